/* proto.h - the protocol table: how to build a request and parse its response.
 *
 * Parsers are incremental: they keep their position in struct mtl_parser, so a
 * response may arrive split at any byte across any number of reads. Adding a
 * protocol is adding a row to mtl_protocols[] (proto.c).
 */
#ifndef MTL_PROTO_H
#define MTL_PROTO_H
#include <stddef.h>
#include "loadgen/workload.h"

enum mtl_parse_rc {
    MTL_PARSE_MORE,      /* everything consumed, the response is not complete */
    MTL_PARSE_DONE,      /* one response complete; *used bytes belong to it */
    MTL_PARSE_ERROR      /* the stream is not the protocol: reset the connection */
};

enum mtl_result {
    MTL_RES_HIT,           /* GET found / HTTP 2xx-3xx */
    MTL_RES_MISS,          /* GET not found / HTTP 404 */
    MTL_RES_STORED,        /* SET stored */
    MTL_RES_SERVER_ERROR,  /* SERVER_ERROR, NOT_STORED, EXISTS, NOT_FOUND / HTTP 5xx */
    MTL_RES_CLIENT_ERROR   /* ERROR, CLIENT_ERROR / other HTTP 4xx (stream still in sync) */
};

#define MTL_LINE_MAX 320
#define MTL_PF_CLOSE 1u      /* server announced it will close after this response */

struct mtl_parser {
    unsigned state;
    unsigned flags;
    int status;              /* HTTP status code */
    int seen_value;          /* memcache: a VALUE line came before END */
    int chunked;
    int has_length;
    uint64_t remain;         /* payload bytes still to skip */
    size_t linelen;          /* bytes in line (a longer line is truncated) */
    char line[MTL_LINE_MAX];
};

struct mtl_proto {
    const char *name;
    int default_port;
    /** Write one request for generator g into buf (>= w->req_max bytes). */
    size_t (*build)(struct mtl_gen *g, char *buf, enum mtl_op *op);
    void (*reset)(struct mtl_parser *p);
    /**
     * Feed len bytes. On MTL_PARSE_DONE *used tells how many bytes the response
     * took and *res what it said; the parser is ready for the next response.
     */
    enum mtl_parse_rc (*parse)(struct mtl_parser *p, const char *buf, size_t len,
                               size_t *used, enum mtl_result *res);
};

extern const struct mtl_proto mtl_proto_memcache;
extern const struct mtl_proto mtl_proto_http;
/** All protocols, ended by NULL. */
extern const struct mtl_proto *const mtl_protocols[];
/** @return the protocol of that name, or NULL. */
const struct mtl_proto *mtl_proto_find(const char *name);

/* Shared line assembly: append up to '\n'. @return 1 when a line is complete
 * (without "\r\n"), 0 when more bytes are needed; *i advances. */
int mtl_parser_line(struct mtl_parser *p, const char *buf, size_t len, size_t *i);
#endif
