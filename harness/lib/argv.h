/* argv.h - a growable NULL-terminated argument vector */
#ifndef MTB_ARGV_H
#define MTB_ARGV_H
#include <stddef.h>

/* A growable NULL-terminated argv. */
struct mtb_argv {
    char **v;
    int n, cap;
};
void mtb_argv_push(struct mtb_argv *a, const char *s);
void mtb_argv_pushf(struct mtb_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Split on spaces and push each word. */
void mtb_argv_split(struct mtb_argv *a, const char *s);
void mtb_argv_free(struct mtb_argv *a);
#endif
