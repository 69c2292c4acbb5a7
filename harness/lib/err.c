/* err.c - see err.h */
#include "lib/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtb_err_set(struct mtb_err *e, int code, const char *fmt, ...)
{
    if (!e || e->code)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code ? code : MTB_ERR_FAIL;
    return -1;
}

int mtb_err_prefix(struct mtb_err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char whole[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(whole, sizeof whole / 2, fmt, ap); /* "HEAD": at most half, the reason keeps the rest */
    va_end(ap);
    size_t hl = n < 0 ? 0 : (size_t)n < sizeof whole / 2 ? (size_t)n : sizeof whole / 2 - 1;
    memcpy(whole + hl, ": ", 3);
    size_t used = hl + 2, ml = strlen(e->msg);
    if (ml > sizeof whole - 1 - used) /* the reason's end cut, never its start */
        ml = sizeof whole - 1 - used;
    memcpy(whole + used, e->msg, ml);
    whole[used + ml] = 0;
    memcpy(e->msg, whole, used + ml + 1);
    if (!e->code)
        e->code = MTB_ERR_FAIL;
    return -1;
}

void mtb_err_exit(const struct mtb_err *e)
{
    fflush(stdout);
    fprintf(stderr, "mtebench: %s\n", e->code ? e->msg : "failed (no reason given)");
    exit(e->code ? e->code : MTB_ERR_FAIL);
}
