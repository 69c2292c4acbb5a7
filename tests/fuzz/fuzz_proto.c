/* fuzz_proto.c - mtload's response parsers (loadgen/proto_memcache.c,
 * proto_http.c): the first byte picks the protocol and the size of the
 * pieces the rest is fed in (responses split anywhere), as the engine does
 * with whatever a server sends. */
#include "fuzz.h"
#include "loadgen/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct mtl_proto *pr = data[0] & 1 ? &mtl_proto_http : &mtl_proto_memcache;
    size_t piece = 1 + (data[0] >> 1);
    struct mtl_parser p;
    pr->reset(&p);
    const char *buf = (const char *)data + 1;
    size_t len = size - 1, off = 0;
    while (off < len) {
        size_t n = len - off < piece ? len - off : piece, used = 0;
        enum mtl_result res;
        enum mtl_parse_rc rc = pr->parse(&p, buf + off, n, &used, &res);
        if (rc == MTL_PARSE_ERROR) {
            pr->reset(&p); /* the engine resets the connection */
            off += n;
        } else if (rc == MTL_PARSE_DONE) {
            if (used == 0 || used > n)
                abort(); /* a response must consume what it claims, within what it was given */
            off += used;
        } else {
            off += n;
        }
    }
    return 0;
}
