/* err.h - one way to fail, below the commands' fronts: a function that can
 * fail on its input or its world takes a struct mtb_err *, says why in it
 * (the first reason set stays: the root cause, named with what is
 * accepted) and returns -1 (or NULL); the command's front prints it and
 * exits with its code (mtb_err_exit). A caller adds where it was (a plan's
 * file and line) in front with mtb_err_prefix.
 *
 *   struct mtb_err e = { 0 };
 *   if (mtb_opts_resolve(&o, &e) != 0)
 *       mtb_err_exit(&e);            (in cmd/ only)
 *
 * Nothing below cmd/ and main.c exits (lint check 13); the fuzz targets
 * call the parsers as they are, with no exit to catch. Running out of
 * memory still exits (mtb_oom, from mtb_calloc, mtb_asprintf: a
 * command-line tool's choice). */
#ifndef MTB_ERR_H
#define MTB_ERR_H
#include "lib/util.h"

enum { MTB_ERR_FAIL = 1, MTB_ERR_INPUT = 2 }; /* the exit status: a failure, bad input */

struct mtb_err {
    int code;               /* 0: no error */
    char msg[4 * MTB_ERRLEN]; /* room for the accepted lists, and where in front */
};

/* Say why (printf format), unless a reason is already set. @return -1 */
int mtb_err_set(struct mtb_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "PREFIX: " before the reason (where it happened). @return -1 */
int mtb_err_prefix(struct mtb_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "mtebench: REASON" on stderr and exit with its code (cmd/ and main.c alone). */
void mtb_err_exit(const struct mtb_err *e) __attribute__((noreturn));
#endif
