/* argv.c - see argv.h */
#include "lib/argv.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mtb_argv_push(struct mtb_argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
        if (!a->v)
            mtb_oom("an argument list");
    }
    a->v[a->n++] = mtb_strdup(s);
    a->v[a->n] = NULL;
}

void mtb_argv_pushf(struct mtb_argv *a, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        mtb_oom("an argument list");
    va_end(ap);
    mtb_argv_push(a, s);
    free(s);
}

void mtb_argv_split(struct mtb_argv *a, const char *s)
{
    char *copy = mtb_strdup(s), *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        mtb_argv_push(a, w);
    free(copy);
}

void mtb_argv_free(struct mtb_argv *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}
