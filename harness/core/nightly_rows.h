/* nightly_rows.h - the nightly's analysis (analysis.json, as
 * analysis/nightly_analyse.h makes it and cmd/nightly.c completes it) read
 * once into typed rows: the nights, each series with its change points,
 * the open and the new regressions, and the settings. The dashboard, the
 * digest and the nightly's front read these fields, never the analysis
 * by key.
 *
 * As for the summary's rows (core/summary_rows.h): a key the analysis
 * lacks reads as "", NaN, 0; strings and arrays are the analysis's own,
 * valid while it is (and while it is not changed).
 *
 *   struct mtb_nightly_rows r;
 *   mtb_nightly_rows_read(analysis, &r);
 *   ... r.series[i].changes[j].change ...
 *   mtb_nightly_rows_free(&r);
 */
#ifndef MTB_NIGHTLY_ROWS_H
#define MTB_NIGHTLY_ROWS_H
#include <jansson.h>
#include <stddef.h>

/* The revisions a change lies between: each key of revisions_before and
 * revisions_after, with the name the digest gives it. */
#define MTB_NIGHTLY_REVS(X)                                                                          \
    X(mtebench_version, "mtebench") X(build_key, "build") X(base_build, "baseline build")            \
    X(kernel_release, "kernel") X(kernel_build, "kernel build")
enum mtb_nightly_rev {
#define X(key, name) MTB_REV_##key,
    MTB_NIGHTLY_REVS(X)
#undef X
    MTB_NREVS
};
extern const char *const mtb_nightly_rev_names[MTB_NREVS];

/* What a regression's bisection would search (bisect_from), when it has one. */
struct mtb_bisect_from {
    int present;
    const char *good, *bad, *service, *variant, *mode, *platform, *workload, *metric;
};

/* A change point of a series (and, the same change, an open or a new regression). */
struct mtb_nightly_change {
    json_t *j;                      /* the change's object: where cmd/nightly.c adds its bisect command */
    const char *kind;               /* regression, improvement, change, machine */
    const char *rule;               /* "counts" for a counted series (no p value over runs) */
    const char *series, *series_id, *label, *metric, *night_started, *machine_why;
    const char *report_before, *report_after, *bisect; /* bisect: the command ("" none) */
    int open;
    long long x, night, n_before, n_after;
    double change, ci_lo, ci_hi, before, after, p_mwu, p_split, sd, threshold;
    const char *rev_before[MTB_NREVS], *rev_after[MTB_NREVS];
    struct mtb_bisect_from bisect_from;
};

/* A night of the history. */
struct mtb_nightly_night {
    long long x, runs;
    const char *started, *busy_why, *busy, *results_dir, *report;
    int quiet;                      /* 1 quiet, 0 busy, -1 unknown (no record here) */
    int has_steal;
    double steal;
    json_t *hosts;                  /* an array of host names */
};

/* A series: one configuration's metric on one host, night by night. */
struct mtb_nightly_series {
    const char *id, *key, *host, *label, *metric, *unit, *better;
    int emulated;
    long long points, kept_out;
    json_t *x, *y;                  /* arrays of numbers, the points drawn */
    size_t nchanges;
    struct mtb_nightly_change *changes;
};

struct mtb_nightly_rows {
    size_t nnights, nseries, nopen, nfresh, nbusy;
    struct mtb_nightly_night *nights;
    struct mtb_nightly_series *series;
    struct mtb_nightly_change *open, *fresh; /* "open", and "new" (those this run confirmed) */
    int busy_excluded;              /* busy nights kept out of the change-point test */
    int emulated;                   /* some series is emulated */
    /* the settings */
    long long nights_total, window;
    double threshold, min_change;
    const char *generated, *version, *history;
};
/** analysis's rows into r (every key read here, once). Never fails */
void mtb_nightly_rows_read(json_t *analysis, struct mtb_nightly_rows *r);
void mtb_nightly_rows_free(struct mtb_nightly_rows *r);
#endif
