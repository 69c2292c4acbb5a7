/* proto_memcache.c - memcached text protocol: get / set. */
#include "loadgen/proto.h"
#include <string.h>

enum { MC_LINE, MC_DATA };

static size_t mc_build(struct mtl_gen *g, char *buf, enum mtl_op *op)
{
    const struct mtl_workload *w = g->w;
    char *p = buf;
    uint64_t key;

    *op = mtl_gen_op(g);
    key = mtl_gen_key(g);
    if (*op == MTL_OP_GET) {
        memcpy(p, "get ", 4);
        p += 4;
    } else {
        memcpy(p, "set ", 4);
        p += 4;
    }
    memcpy(p, w->prefix, w->prefix_len);
    p += w->prefix_len;
    p += mtl_utoa(p, key);
    if (*op == MTL_OP_SET) {
        uint64_t vlen = mtl_gen_value_size(g);
        memcpy(p, " 0 0 ", 5);
        p += 5;
        p += mtl_utoa(p, vlen);
        *p++ = '\r';
        *p++ = '\n';
        /* the filler ends in "\r\n" at vmax; copy vlen bytes and the terminator */
        memcpy(p, w->value, vlen);
        p += vlen;
    }
    *p++ = '\r';
    *p++ = '\n';
    return (size_t)(p - buf);
}

static void mc_reset(struct mtl_parser *p)
{
    p->state = MC_LINE;
    p->flags = 0;
    p->seen_value = 0;
    p->remain = 0;
    p->linelen = 0;
}

/* A response line is l[0..n) without its "\r\n", read as the C string the
 * line buffer holds: it ends at n or at a NUL before it. */
static size_t cstr_len(const char *l, size_t n)
{
    const char *z = memchr(l, 0, n);
    return z ? (size_t)(z - l) : n;
}

static int is(const char *l, size_t n, const char *word, size_t wlen)
{
    return n == wlen && memcmp(l, word, wlen) == 0;
}

static int starts(const char *l, size_t n, const char *prefix, size_t plen)
{
    return n >= plen && memcmp(l, prefix, plen) == 0;
}

/* p moved to the first ' ' or NUL before end, or to end; eight bytes at a
 * time while eight remain (a word has a zero byte when (x - 0x01..) & ~x &
 * 0x80.. is not 0; a space, when x ^ 0x20.. has one) */
static const char *to_space(const char *p, const char *end)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t x, y;
        memcpy(&x, p, 8);
        y = x ^ (ones * ' ');
        if ((((x - ones) & ~x) | ((y - ones) & ~y)) & highs)
            break;
        p += 8;
    }
    while (p < end && *p && *p != ' ')
        p++;
    return p;
}

/* "VALUE <key> <flags> <bytes> [<cas>]": the payload length, or -1 */
static long long value_bytes(const char *line, size_t n)
{
    const char *p = line + 6, *end = line + n;
    unsigned long long v = 0;
    int field;

    for (field = 0; field < 2; field++) {       /* skip key and flags */
        p = to_space(p, end);
        while (p < end && *p == ' ') p++;
    }
    if (p >= end || *p < '0' || *p > '9')
        return -1;
    while (p < end && *p >= '0' && *p <= '9') {
        v = v * 10 + (unsigned)(*p++ - '0');
        if (v > (1ULL << 40))
            return -1;
    }
    if (p < end && *p && *p != ' ')
        return -1;
    return (long long)v;
}

/* One complete line l[0..n): 1 when it ends a response (*res set), 0 when
 * more lines follow (VALUE), -1 when it is not the protocol. */
static int mc_line(struct mtl_parser *p, const char *l, size_t n, enum mtl_result *res)
{
    /* the lines of every answer mtload asks for, compared whole */
    if (is(l, n, "END", 3)) {
        *res = p->seen_value ? MTL_RES_HIT : MTL_RES_MISS;
        return 1;
    }
    if (is(l, n, "STORED", 6)) {
        *res = MTL_RES_STORED;
        return 1;
    }
    if (starts(l, n, "VALUE ", 6)) {
        long long bytes = value_bytes(l, n);
        if (bytes < 0)
            return -1;
        p->seen_value = 1;
        p->remain = (uint64_t)bytes + 2;
        p->state = MC_DATA;
        return 0;
    }
    /* any other line up to a NUL in it */
    n = cstr_len(l, n);
    if (is(l, n, "END", 3))
        *res = p->seen_value ? MTL_RES_HIT : MTL_RES_MISS;
    else if (is(l, n, "STORED", 6))
        *res = MTL_RES_STORED;
    else if (is(l, n, "NOT_STORED", 10) || is(l, n, "EXISTS", 6) ||
             is(l, n, "NOT_FOUND", 9) || starts(l, n, "SERVER_ERROR", 12))
        *res = MTL_RES_SERVER_ERROR;
    else if (is(l, n, "ERROR", 5) || starts(l, n, "CLIENT_ERROR", 12))
        *res = MTL_RES_CLIENT_ERROR;
    else
        return -1;
    return 1;
}

static enum mtl_parse_rc mc_parse(struct mtl_parser *p, const char *buf, size_t len,
                                  size_t *used, enum mtl_result *res)
{
    size_t i = 0;

    while (i < len) {
        const char *l, *nl;
        size_t n;
        int rc;

        if (p->state == MC_DATA) {
            size_t take = len - i < p->remain ? len - i : (size_t)p->remain;
            i += take;
            p->remain -= take;
            if (p->remain == 0)
                p->state = MC_LINE;
            continue;
        }
        if (p->linelen == 0) {
            /* "END" after a value, or "STORED": the commonest lines, whole in buf */
            if (len - i >= 5 && memcmp(buf + i, "END\r\n", 5) == 0) {
                *res = p->seen_value ? MTL_RES_HIT : MTL_RES_MISS;
                i += 5;
                goto done;
            }
            if (len - i >= 8 && memcmp(buf + i, "STORED\r\n", 8) == 0) {
                *res = MTL_RES_STORED;
                i += 8;
                goto done;
            }
        }
        /* a line whole in buf, and short enough that the line buffer would
         * hold it untruncated, is read where it is; any other is assembled
         * in p->line (mtl_parser_line) */
        if (p->linelen == 0 && (nl = memchr(buf + i, '\n', len - i)) != NULL &&
            (size_t)(nl - (buf + i)) <= MTL_LINE_MAX - 1) {
            l = buf + i;
            n = (size_t)(nl - l);
            i += n + 1;
            if (n && l[n - 1] == '\r')
                n--;
        } else {
            if (!mtl_parser_line(p, buf, len, &i))
                break;
            l = p->line;
            n = p->linelen;
            p->linelen = 0;
        }
        rc = mc_line(p, l, n, res);
        if (rc < 0)
            return MTL_PARSE_ERROR;
        if (rc > 0)
            goto done;
    }
    *used = len;
    return MTL_PARSE_MORE;
done:
    *used = i;
    mc_reset(p);
    return MTL_PARSE_DONE;
}

const struct mtl_proto mtl_proto_memcache = {
    .name = "memcache",
    .default_port = 11211,
    .build = mc_build,
    .reset = mc_reset,
    .parse = mc_parse,
};
