/* history_rows.h - the history's series (history/history.c's
 * mtb_history_load: every series with its points, oldest night first)
 * read once into typed rows: what the nightly's analysis
 * (analysis/nightly_analyse.c) reads, never the series by key.
 *
 * A point's values are those asked (mtb_hist_rows_read's fields: the
 * metrics the analysis tests), parallel to them, NaN when the point lacks
 * one or it is not a number. A string the series or point lacks reads as
 * "", a count as 0; strings are the history's own, valid while it is.
 *
 *   struct mtb_hist_rows r;
 *   mtb_hist_rows_read(history, fields, nfields, &r);
 *   ... r.series[i].points[j].v[k] ...
 *   mtb_hist_rows_free(&r);
 */
#ifndef MTB_HISTORY_ROWS_H
#define MTB_HISTORY_ROWS_H
#include <jansson.h>
#include <stddef.h>

/* one run's (one search's, one counted run's, one pair's) point */
struct mtb_hist_point {
    long long night;
    const char *night_started, *report, *results_dir, *started, *status, *record;
    /* the revisions it ran: base_build is an overhead's baseline build ("" when none) */
    const char *mtebench_version, *build_key, *kernel_release, *kernel_build, *base_build;
    int emulated;                /* the record's platform.emulated (true, or an integer above 0) */
    int has_steal;               /* a number: the hypervisor's share of the run's CPUs */
    double steal;
    double *v;                   /* the values asked, NaN when absent */
};

struct mtb_hist_series {
    const char *series, *kind, *host, *service, *variant, *mode, *platform, *workload;
    struct mtb_hist_point *points;
    size_t npoints;
};

struct mtb_hist_rows {
    struct mtb_hist_series *series;
    size_t n;
};

/** history's series into r, each point's values of fields (a point's
 *  v[k] is its fields[k]) */
void mtb_hist_rows_read(json_t *history, const char *const *fields, size_t nfields, struct mtb_hist_rows *r);
void mtb_hist_rows_free(struct mtb_hist_rows *r);
#endif
