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

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "VALUE <key> <flags> <bytes> [<cas>]": the payload length, or -1 */
static long long value_bytes(const char *line)
{
    const char *p = line + 6;
    unsigned long long v = 0;
    int field;

    for (field = 0; field < 2; field++) {       /* skip key and flags */
        while (*p && *p != ' ') p++;
        while (*p == ' ') p++;
    }
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (unsigned)(*p++ - '0');
        if (v > (1ULL << 40))
            return -1;
    }
    if (*p && *p != ' ')
        return -1;
    return (long long)v;
}

static enum mtl_parse_rc mc_parse(struct mtl_parser *p, const char *buf, size_t len,
                                  size_t *used, enum mtl_result *res)
{
    size_t i = 0;

    while (i < len) {
        const char *l;
        if (p->state == MC_DATA) {
            size_t take = len - i < p->remain ? len - i : (size_t)p->remain;
            i += take;
            p->remain -= take;
            if (p->remain == 0)
                p->state = MC_LINE;
            continue;
        }
        if (!mtl_parser_line(p, buf, len, &i))
            break;
        l = p->line;
        p->linelen = 0;
        if (starts(l, "VALUE ")) {
            long long n = value_bytes(l);
            if (n < 0)
                return MTL_PARSE_ERROR;
            p->seen_value = 1;
            p->remain = (uint64_t)n + 2;
            p->state = MC_DATA;
            continue;
        }
        if (strcmp(l, "END") == 0)
            *res = p->seen_value ? MTL_RES_HIT : MTL_RES_MISS;
        else if (strcmp(l, "STORED") == 0)
            *res = MTL_RES_STORED;
        else if (strcmp(l, "NOT_STORED") == 0 || strcmp(l, "EXISTS") == 0 ||
                 strcmp(l, "NOT_FOUND") == 0 || starts(l, "SERVER_ERROR"))
            *res = MTL_RES_SERVER_ERROR;
        else if (strcmp(l, "ERROR") == 0 || starts(l, "CLIENT_ERROR"))
            *res = MTL_RES_CLIENT_ERROR;
        else
            return MTL_PARSE_ERROR;
        *used = i;
        mc_reset(p);
        return MTL_PARSE_DONE;
    }
    *used = len;
    return MTL_PARSE_MORE;
}

const struct mtl_proto mtl_proto_memcache = {
    .name = "memcache",
    .default_port = 11211,
    .build = mc_build,
    .reset = mc_reset,
    .parse = mc_parse,
};
