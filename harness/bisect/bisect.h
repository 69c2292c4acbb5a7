/* bisect.h - `mtebench bisect`: the commit that changed one configuration's
 * metric, between a good and a bad revision of a service's patch history
 * (services/<svc>/ and patches/<svc>/ in a git repository, by default this
 * checkout's). Each revision's tree is this checkout with those two folders
 * taken from the revision; builds and runs are the ordinary `mtebench build`
 * and `mtebench run` with MTEBENCH_ROOT at that tree (builds cached by
 * content, so revisions that do not change the build share one). The search
 * and its decision rule: bisect_search.c, pinpoint.c. docs/BISECT.md. */
#ifndef MTB_BISECT_H
#define MTB_BISECT_H

#include <jansson.h>
#include "bisect/bisect_search.h"
#include "core/nightly_rows.h"
#include "core/record.h"
#include "lib/argv.h"
#include "lib/err.h"

/* exit statuses */
#define MTB_BISECT_FOUND 0
#define MTB_BISECT_NOT_REPRODUCED 4

/* what a bisection searches, and how (`mtebench bisect`'s options, cmd/bisect_cli.c) */
struct mtb_bisect_opts {
    const char *good, *bad, *repo, *axis, *out, *service;
    const char *history; /* where steps are stored; "none": not stored */
    enum mtb_run_metric_id metric;
    struct mtb_bisect_cfg cfg;
    double max_time; /* seconds, 0: no limit */
    struct mtb_argv pass; /* options handed to every build and run */
};

/* Bisect o's range (o->pass: the options each build and run gets), report
 * under o->out, store the steps in o->history. @return MTB_BISECT_FOUND,
 * MTB_BISECT_NOT_REPRODUCED, 1 when the search failed; -1 with e set when
 * it could not begin (bad input: the range, the repository, the history) */
int mtb_bisect_run(struct mtb_bisect_opts *o, struct mtb_err *e);

/** mtb_bisect_command - the command line that bisects a nightly regression
 *  between two mtebench revisions for one configuration (malloc'd), or NULL
 *  when a field is missing. workload: a name, or the history's workload key
 *  (name="default",mix="1:10",duration_s=1,...), made run options */
char *mtb_bisect_command(const char *good, const char *bad, const char *service, const char *variant,
                         const char *mode, const char *platform, const char *workload, const char *metric);

/** mtb_bisect_proposed - run the `bisect` command of each change in `changes`
 *  that carries one (the nightly's new regressions), one after another,
 *  within `budget` seconds in all, reports under OUT/bisect-N/, each
 *  bisection and its steps stored in `history` (the nightly's; NULL: bisect's
 *  default); prints each outcome. @return how many named a culprit */
int mtb_bisect_proposed(const struct mtb_nightly_change *changes, size_t n, const char *out, double budget,
                        const char *history);
#endif
