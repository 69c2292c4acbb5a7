/* test_proto.c - memcache and HTTP response parsers, whole, byte by byte and
 * in random splits; and the request builders. */
#include <stdio.h>
#include <string.h>
#include "loadgen/proto.h"
#include "loadgen/rng.h"
#include "tap.h"

#define MAXR 64

/* Feed stream in pieces whose lengths come from split(); collect the results.
 * @return the number of responses, or -1 on a parse error. */
static int run(const struct mtl_proto *pr, const char *stream, size_t len,
               struct mtl_rng *r, int mode, enum mtl_result *out, unsigned *closes)
{
    struct mtl_parser p;
    size_t pos = 0;
    int n = 0;

    pr->reset(&p);
    *closes = 0;
    while (pos < len) {
        size_t piece = mode == 0 ? len - pos : mode == 1 ? 1 : 1 + mtl_rng_below(r, 17);
        size_t off = 0;
        if (piece > len - pos)
            piece = len - pos;
        while (off < piece) {
            size_t used = 0;
            enum mtl_result res;
            enum mtl_parse_rc rc = pr->parse(&p, stream + pos + off, piece - off, &used, &res);
            if (rc == MTL_PARSE_ERROR)
                return -1;
            if (rc == MTL_PARSE_MORE)
                break;
            if (used == 0 || used > piece - off)
                return -2;
            if (p.flags & MTL_PF_CLOSE)
                (*closes)++;
            out[n++] = res;
            off += used;
        }
        pos += piece;
    }
    return n;
}

static void check_stream(const struct mtl_proto *pr, const char *what, const char *stream,
                         const enum mtl_result *want, int nwant, unsigned want_closes)
{
    static const char *modes[] = { "whole", "byte by byte", "random splits" };
    struct mtl_rng r;
    enum mtl_result got[MAXR];
    int mode, iter, bad;
    unsigned closes;

    mtl_rng_seed(&r, 5);
    for (mode = 0; mode < 3; mode++) {
        bad = 0;
        for (iter = 0; iter < (mode == 2 ? 500 : 1); iter++) {
            int n = run(pr, stream, strlen(stream), &r, mode, got, &closes);
            if (n != nwant || memcmp(got, want, sizeof(*want) * (size_t)nwant) != 0 ||
                closes != want_closes) {
                if (!bad)
                    diag("%s %s: got %d responses (want %d), closes %u", what, modes[mode],
                         n, nwant, closes);
                bad++;
            }
        }
        ok(!bad, "%s: %s", what, modes[mode]);
    }
}

static void check_error(const struct mtl_proto *pr, const char *what, const char *stream)
{
    struct mtl_rng r;
    enum mtl_result got[MAXR];
    unsigned closes;
    mtl_rng_seed(&r, 6);
    ok(run(pr, stream, strlen(stream), &r, 0, got, &closes) == -1 &&
       run(pr, stream, strlen(stream), &r, 1, got, &closes) == -1,
       "%s: protocol error detected", what);
}

/* Feed stream[0..len) in pieces (mode as in run()); write one character per
 * response ('h', 'm', 's', 'S', 'C') and 'X' at a parse error into out. */
static void trace(const struct mtl_proto *pr, const char *stream, size_t len, struct mtl_rng *r,
                  int mode, char *out, size_t outcap)
{
    static const char code[] = { 'h', 'm', 's', 'S', 'C' };
    struct mtl_parser p;
    size_t pos = 0, n = 0;

    pr->reset(&p);
    while (pos < len && n + 2 < outcap) {
        size_t piece = mode == 0 ? len - pos : mode == 1 ? 1 : 1 + mtl_rng_below(r, 40);
        size_t off = 0;
        if (piece > len - pos)
            piece = len - pos;
        while (off < piece && n + 2 < outcap) {
            size_t used = 0;
            enum mtl_result res = MTL_RES_HIT;
            enum mtl_parse_rc rc = pr->parse(&p, stream + pos + off, piece - off, &used, &res);
            if (rc == MTL_PARSE_ERROR) {
                out[n++] = 'X';
                out[n] = 0;
                return;
            }
            if (rc == MTL_PARSE_MORE)
                break;
            out[n++] = code[res];
            off += used;
        }
        pos += piece;
    }
    out[n] = 0;
}

/* A line read where it lies in the buffer (a whole one) and a line assembled
 * across reads (byte by byte) must parse alike: streams of responses and near
 * misses (NULs in lines, lines longer than the line buffer, bad lengths). */
static void check_paths_agree(const struct mtl_proto *mc)
{
    static const char *const piece[] = {
        "VALUE mtl:1 0 5\r\nhello\r\nEND\r\n", "END\r\n", "STORED\r\n", "NOT_STORED\r\n",
        "EXISTS\r\n", "NOT_FOUND\r\n", "ERROR\r\n", "SERVER_ERROR x\r\n", "CLIENT_ERROR y\r\n",
        "VALUE k 1 3 99\r\nabc\r\n", "VALUE k 0 0\r\n\r\n", "END", "\r\n", "\n", "E", "ND\r\n",
        "VALUE k 0 x\r\n", "VALUE k 0\r\n", "VALUE  k  0  2\r\nab\r\n", "STORED\n", "END \r\n",
        "VALUE k 0 99999999999999\r\n", "HELLO\r\n", "SERVER_ERRORX\r\n", "ERRORS\r\n",
        "VALUE abcdefgh 0 3\r\nabc\r\n", "VALUE abcdefghijklmnopq 12345678 3\r\nabc\r\n",
    };
    struct mtl_rng r;
    static char stream[8192], a[2048], b[2048], c[2048];
    int iter, bad = 0;

    mtl_rng_seed(&r, 11);
    for (iter = 0; iter < 3000; iter++) {
        size_t len = 0, k, npieces = 1 + mtl_rng_below(&r, 12);
        for (k = 0; k < npieces; k++) {
            uint64_t what = mtl_rng_below(&r, 10);
            if (what < 7) {                      /* a known piece */
                const char *s = piece[mtl_rng_below(&r, sizeof(piece) / sizeof(piece[0]))];
                memcpy(stream + len, s, strlen(s));
                len += strlen(s);
            } else if (what < 9) {               /* a NUL in a known line */
                const char *s = piece[mtl_rng_below(&r, 9)];
                size_t sl = strlen(s);
                memcpy(stream + len, s, sl);
                stream[len + mtl_rng_below(&r, sl)] = 0;
                len += sl;
            } else {                             /* a long line: 300..340 bytes */
                size_t ll = 300 + mtl_rng_below(&r, 41), j;
                const char *head = mtl_rng_below(&r, 2) ? "VALUE k 0 1 " : "END";
                memcpy(stream + len, head, strlen(head));
                for (j = strlen(head); j < ll; j++)
                    stream[len + j] = 'x';
                stream[len + ll - 2] = '\r';
                stream[len + ll - 1] = '\n';
                len += ll;
            }
        }
        trace(mc, stream, len, &r, 0, a, sizeof(a));
        trace(mc, stream, len, &r, 1, b, sizeof(b));
        trace(mc, stream, len, &r, 2, c, sizeof(c));
        if (strcmp(a, b) != 0 || strcmp(a, c) != 0) {
            if (!bad)
                diag("iteration %d: whole '%s', byte by byte '%s', splits '%s'", iter, a, b, c);
            bad++;
        }
    }
    ok(!bad, "memcache: lines read in place and assembled across reads parse alike (%d of 3000 differ)", bad);
}

/* mtl_utoa against snprintf at every length */
static void check_utoa(void)
{
    static const uint64_t v[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10000, 99999,
                                  100000, 123456789, 999999999, 1000000000, 4294967295ULL,
                                  4294967296ULL, 9999999999999999999ULL, 10000000000000000000ULL,
                                  18446744073709551615ULL };
    char got[32], want[32];
    size_t i, n;
    int bad = 0;
    struct mtl_rng r;

    mtl_rng_seed(&r, 3);
    for (i = 0; i < sizeof(v) / sizeof(v[0]) + 10000; i++) {
        uint64_t x = i < sizeof(v) / sizeof(v[0]) ? v[i] : mtl_rng_next(&r) >> mtl_rng_below(&r, 64);
        n = mtl_utoa(got, x);
        got[n] = 0;
        snprintf(want, sizeof(want), "%llu", (unsigned long long)x);
        if (strcmp(got, want) != 0 && !bad++)
            diag("mtl_utoa(%s) wrote %s", want, got);
    }
    ok(!bad, "mtl_utoa writes every length like printf");
}

int main(void)
{
    const struct mtl_proto *mc = mtl_proto_find("memcache"), *http = mtl_proto_find("http");
    static const enum mtl_result mc_want[] = {
        MTL_RES_HIT, MTL_RES_MISS, MTL_RES_STORED, MTL_RES_SERVER_ERROR, MTL_RES_SERVER_ERROR,
        MTL_RES_CLIENT_ERROR, MTL_RES_CLIENT_ERROR, MTL_RES_HIT, MTL_RES_HIT, MTL_RES_HIT,
        MTL_RES_SERVER_ERROR, MTL_RES_SERVER_ERROR,
    };
    static const enum mtl_result http_want[] = {
        MTL_RES_HIT, MTL_RES_HIT, MTL_RES_MISS, MTL_RES_HIT, MTL_RES_SERVER_ERROR,
        MTL_RES_HIT, MTL_RES_HIT, MTL_RES_CLIENT_ERROR, MTL_RES_HIT,
    };
    struct mtl_workload w;
    struct mtl_gen g;
    char buf[4096];
    enum mtl_op op;
    size_t n;
    int sets = 0, gets = 0, i;

    ok(mc && http, "protocols registered");
    ok(mtl_proto_find("smtp") == NULL, "unknown protocol not found");

    check_stream(mc, "memcache responses",
        "VALUE mtl:1 0 5\r\nhello\r\nEND\r\n"
        "END\r\n"
        "STORED\r\n"
        "NOT_STORED\r\n"
        "SERVER_ERROR out of memory storing object\r\n"
        "CLIENT_ERROR bad data chunk\r\n"
        "ERROR\r\n"
        "VALUE k 0 0\r\n\r\nEND\r\n"                      /* empty value */
        "VALUE k 0 13\r\nEND\r\nSTORED\r\n\r\nEND\r\n"    /* payload that looks like replies */
        "VALUE k 1 3 99\r\nabc\r\nEND\r\n"                /* with cas */
        "EXISTS\r\n"
        "NOT_FOUND\r\n",
        mc_want, (int)(sizeof(mc_want) / sizeof(mc_want[0])), 0);
    check_error(mc, "memcache garbage", "HELLO\r\n");
    check_error(mc, "memcache VALUE without length", "VALUE k 0\r\n");
    check_paths_agree(mc);
    check_utoa();

    check_stream(http, "http responses",
        "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 5\r\n\r\nhello"
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            "5\r\nhello\r\na;ext=1\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n"
        "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found"
        "HTTP/1.1 204 No Content\r\n\r\n"
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
        "HTTP/1.1 301 Moved\r\ncontent-length: 3\r\n\r\nabc"
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
            "1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n"
        "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
        http_want, (int)(sizeof(http_want) / sizeof(http_want[0])), 1);
    check_error(http, "http garbage status line", "HTTP/1.1 2x0 OK\r\n\r\n");
    check_error(http, "http bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
    check_error(http, "http body without length", "HTTP/1.1 200 OK\r\n\r\nabc");

    /* builders */
    mtl_workload_defaults(&w);
    ok(mtl_workload_set_ratio(&w, "1:3") == 0, "ratio 1:3");
    ok(mtl_workload_set_value_size(&w, "10-20") == 0, "value size range");
    ok(mtl_workload_set_paths(&w, "/a:3,/b/c:1") == 0, "paths list");
    w.keys = 50;
    ok(mtl_workload_finish(&w, "127.0.0.1:8080") == 0, "workload finish");
    mtl_gen_init(&g, &w, 1, 0, 0);
    for (i = 0; i < 400; i++) {
        n = mc->build(&g, buf, &op);
        buf[n] = 0;
        if (op == MTL_OP_SET) {
            unsigned long key, len;
            char data[64];
            sets++;
            if (sscanf(buf, "set mtl:%lu 0 0 %lu\r\n", &key, &len) != 2 || key >= 50 ||
                len < 10 || len > 20 || n != strlen(strstr(buf, "\r\n")) + (size_t)(strstr(buf, "\r\n") - buf) ||
                strcmp(buf + n - 2, "\r\n") != 0 || sscanf(strstr(buf, "\r\n") + 2, "%63s", data) != 1 ||
                strlen(data) != len)
                break;
        } else {
            unsigned long key;
            gets++;
            if (sscanf(buf, "get mtl:%lu\r\n", &key) != 1 || key >= 50 || strcmp(buf + n - 2, "\r\n"))
                break;
        }
    }
    ok(i == 400, "memcache requests well-formed (%s)", i == 400 ? "all" : buf);
    ok(sets == 100 && gets == 300, "SET:GET cycle 1:3 gives %d:%d", sets, gets);
    {
        int a = 0, b = 0;
        for (i = 0; i < 4000; i++) {
            n = http->build(&g, buf, &op);
            buf[n] = 0;
            if (strncmp(buf, "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n", 39) == 0) a++;
            else if (strncmp(buf, "GET /b/c HTTP/1.1\r\n", 19) == 0) b++;
            if (strcmp(buf + n - 4, "\r\n\r\n") != 0) break;
        }
        ok(i == 4000 && a + b == 4000, "http requests well-formed");
        ok(a > 2800 && a < 3200, "paths weighted 3:1 (%d:%d)", a, b);
    }
    mtl_workload_free(&w);
    return done_testing();
}
