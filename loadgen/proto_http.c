/* proto_http.c - HTTP/1.1 keep-alive GET over a weighted list of paths. */
#include "loadgen/proto.h"
#include <strings.h>
#include <string.h>

enum { H_STATUS, H_HEADER, H_BODY, H_CHUNK_SIZE, H_CHUNK_DATA, H_TRAILER };

static size_t http_build(struct mtl_gen *g, char *buf, enum mtl_op *op)
{
    const struct mtl_http_req *r = &g->w->reqs[mtl_wlist_pick(&g->w->paths, &g->rng)];
    *op = MTL_OP_GET;
    memcpy(buf, r->text, r->len);
    return r->len;
}

static void http_reset(struct mtl_parser *p)
{
    p->state = H_STATUS;
    p->flags = 0;
    p->status = 0;
    p->chunked = 0;
    p->has_length = 0;
    p->remain = 0;
    p->linelen = 0;
}

/* value of header "name:" when line is that header, else NULL */
static const char *header(const char *line, const char *name)
{
    size_t n = strlen(name);
    if (strncasecmp(line, name, n) != 0 || line[n] != ':')
        return NULL;
    line += n + 1;
    while (*line == ' ' || *line == '\t')
        line++;
    return line;
}

static int contains_token(const char *v, const char *tok)
{
    size_t n = strlen(tok);
    for (; *v; v++)
        if (strncasecmp(v, tok, n) == 0)
            return 1;
    return 0;
}

static enum mtl_result classify(int status)
{
    if (status >= 200 && status < 400)
        return MTL_RES_HIT;
    if (status == 404)
        return MTL_RES_MISS;
    if (status >= 500)
        return MTL_RES_SERVER_ERROR;
    return MTL_RES_CLIENT_ERROR;
}

static enum mtl_parse_rc done(struct mtl_parser *p, size_t i, size_t *used,
                              enum mtl_result *res)
{
    unsigned flags = p->flags;
    *res = classify(p->status);
    *used = i;
    http_reset(p);
    p->flags = flags;     /* the caller reads MTL_PF_CLOSE; next reset clears it */
    return MTL_PARSE_DONE;
}

/* A chunk-size line: hex digits, then nothing, ';' (extensions) or blank.
 * @return 0 with *out, or -1 (no digits, junk, over 2^48) */
static int chunk_size(const char *l, uint64_t *out)
{
    uint64_t n = 0;
    int digits = 0;
    const char *v;
    for (v = l; ; v++, digits++) {
        int d;
        if (*v >= '0' && *v <= '9') d = *v - '0';
        else if (*v >= 'a' && *v <= 'f') d = *v - 'a' + 10;
        else if (*v >= 'A' && *v <= 'F') d = *v - 'A' + 10;
        else break;
        n = n * 16 + (uint64_t)d;
        if (n > (1ULL << 48))
            return -1;
    }
    if (!digits || (*v && *v != ';' && *v != ' ' && *v != '\t'))
        return -1;
    *out = n;
    return 0;
}

static enum mtl_parse_rc http_parse(struct mtl_parser *p, const char *buf, size_t len,
                                    size_t *used, enum mtl_result *res)
{
    size_t i = 0;

    if (p->state == H_STATUS && p->linelen == 0)
        p->flags = 0;
    while (i < len) {
        const char *l, *v;

        if (p->state == H_BODY || p->state == H_CHUNK_DATA) {
            size_t take = len - i < p->remain ? len - i : (size_t)p->remain;
            i += take;
            p->remain -= take;
            if (p->remain)
                continue;
            if (p->state == H_BODY)
                return done(p, i, used, res);
            p->state = H_CHUNK_SIZE;
            continue;
        }
        if (!mtl_parser_line(p, buf, len, &i))
            break;
        l = p->line;
        p->linelen = 0;
        switch (p->state) {
        case H_STATUS:
            if (strlen(l) < 12 || strncmp(l, "HTTP/1.", 7) != 0 || l[8] != ' ' ||
                l[9] < '1' || l[9] > '5' || l[10] < '0' || l[10] > '9' ||
                l[11] < '0' || l[11] > '9' || (l[12] != ' ' && l[12] != 0))
                return MTL_PARSE_ERROR;
            p->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
            p->state = H_HEADER;
            break;
        case H_HEADER:
            if (*l == 0) {
                if (p->status < 200 && p->status >= 100) {     /* interim response */
                    p->state = H_STATUS;
                } else if (p->chunked) {
                    p->state = H_CHUNK_SIZE;
                } else if (p->status == 204 || p->status == 304) {
                    return done(p, i, used, res);
                } else if (p->has_length) {
                    if (p->remain == 0)
                        return done(p, i, used, res);
                    p->state = H_BODY;
                } else {
                    return MTL_PARSE_ERROR;      /* body delimited by close: unsupported */
                }
            } else if ((v = header(l, "Content-Length"))) {
                uint64_t n = 0;
                if (*v < '0' || *v > '9')
                    return MTL_PARSE_ERROR;
                while (*v >= '0' && *v <= '9') {
                    n = n * 10 + (uint64_t)(*v++ - '0');
                    if (n > (1ULL << 48))
                        return MTL_PARSE_ERROR;
                }
                p->remain = n;
                p->has_length = 1;
            } else if ((v = header(l, "Transfer-Encoding"))) {
                if (contains_token(v, "chunked"))
                    p->chunked = 1;
            } else if ((v = header(l, "Connection"))) {
                if (contains_token(v, "close"))
                    p->flags |= MTL_PF_CLOSE;
            }
            break;
        case H_CHUNK_SIZE: {
            uint64_t n;
            if (chunk_size(l, &n) != 0)
                return MTL_PARSE_ERROR;
            if (n == 0) {
                p->state = H_TRAILER;
            } else {
                p->remain = n + 2;       /* data and its CRLF */
                p->state = H_CHUNK_DATA;
            }
            break;
        }
        case H_TRAILER:
            if (*l == 0)
                return done(p, i, used, res);
            break;
        default:
            return MTL_PARSE_ERROR;
        }
    }
    *used = len;
    return MTL_PARSE_MORE;
}

const struct mtl_proto mtl_proto_http = {
    .name = "http",
    .default_port = 80,
    .build = http_build,
    .reset = http_reset,
    .parse = http_parse,
};
