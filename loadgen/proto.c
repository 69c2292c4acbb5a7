/* proto.c - the protocol registry and shared parser helpers. */
#include "loadgen/proto.h"
#include <string.h>

const struct mtl_proto *const mtl_protocols[] = {
    &mtl_proto_memcache,
    &mtl_proto_http,
    NULL
};

const struct mtl_proto *mtl_proto_find(const char *name)
{
    const struct mtl_proto *const *p;
    for (p = mtl_protocols; *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

int mtl_parser_line(struct mtl_parser *p, const char *buf, size_t len, size_t *i)
{
    const char *start = buf + *i;
    const char *nl = memchr(start, '\n', len - *i);
    size_t n = nl ? (size_t)(nl - start) : len - *i;
    size_t room = MTL_LINE_MAX - 1 - p->linelen;

    memcpy(p->line + p->linelen, start, n < room ? n : room);
    p->linelen += n < room ? n : room;
    if (!nl) {
        *i = len;
        return 0;
    }
    *i += n + 1;
    if (p->linelen && p->line[p->linelen - 1] == '\r')
        p->linelen--;
    p->line[p->linelen] = 0;
    return 1;
}
