/* bisect_int.h - what the files of `mtebench bisect` share: bisect.c (the
 * command: options, the search's builds and runs, the history), bisect_revs.c
 * (the revisions and their trees), bisect_report.c (the outcome written).
 * Private to them; bisect.h is the command's face. */
#ifndef MTB_BISECT_INT_H
#define MTB_BISECT_INT_H
#include "bisect/bisect_search.h"
#include "core/record.h"
#include "lib/util.h"
#include "lib/argv.h"
#include <jansson.h>
#include <stddef.h>

struct mtb_history;
struct mtb_bisect_opts; /* bisect.h */

/* a revision of the range */
struct mtb_bisect_commit {
    char *sha, *subject;
    char *tree;     /* the revision's root, once made */
    char *build_key;
    int new_build;  /* 1: built here; 0: found in the cache */
    char *build_log;
};

/* a bisection under way */
struct mtb_bisect_ctx {
    struct mtb_bisect_opts *o;
    struct mtb_bisect_commit *r;
    size_t n;
    char *outdir;
    int run_no;
    double t0;
    json_t *steps, *runs;
    int new_builds;
    struct mtb_bisect_rev *revs; /* the search's samples */
    struct mtb_history *hist; /* NULL: steps not stored (--history none, or a write failed) */
    long long hist_id;        /* the bisection's row */
    char err[512];
};

/* bisect_revs.c */
/* `git -C repo ARGS...` (ARGS ends with NULL; at most 12): its output, *status its exit status (1 when it did not run) */
char *mtb_bisect_git(const char *repo, int *status, const char *const *args);
/* c->r, c->n: good, then the commits up to bad that touch the service's
 * folders, oldest first. @return 0, or -1 with e set (bad input: an end
 * that is no commit, ends swapped, nothing to bisect) */
int mtb_bisect_revisions(struct mtb_bisect_ctx *c, struct mtb_err *e);
/* c->r[i].tree made under OUT/trees: 0, or -errno */
int mtb_bisect_make_tree(struct mtb_bisect_ctx *c, size_t i);

/* bisect_report.c */
/* the outcome as bisect.json's object */
json_t *mtb_bisect_result_json(struct mtb_bisect_ctx *c, const struct mtb_bisect_result *res, double secs);
/* bisect.json, report.md and index.html into c->outdir: 0, or -errno */
int mtb_bisect_write_report(struct mtb_bisect_ctx *c, json_t *j);
#endif
