/* capacity_rows.h - a capacity search's result (capacity.json,
 * mtebench-capacity/1, as cmd/capacity_cli.c makes it) read once into
 * typed rows: the search's identity, the SLO's bounds, each
 * configuration's capacity at each bound and its probed points, the
 * overheads and how the search ended. capacity.md, curves.csv,
 * capacity.html, the printed table and the Prometheus textfile read these
 * fields, never the result by key.
 *
 * As for the summary's rows (core/summary_rows.h): a key the result lacks
 * reads as "", NaN, 0; strings are the result's own, valid while it is. */
#ifndef MTB_CAPACITY_ROWS_H
#define MTB_CAPACITY_ROWS_H
#include <jansson.h>
#include <stddef.h>

/* the percentiles a point carries, in order: p50, p99, p99.9 */
#define MTB_CAP_NPCT 3
extern const char *const mtb_cap_pcts[MTB_CAP_NPCT];

/* one configuration's capacity at one bound */
struct mtb_cap_at {
    const char *status;            /* found, below, above, or "" (not measured) */
    const char *interval;          /* "bracket" when the interval is the bracket's */
    const char *percentile, *bound;
    double capacity, lo, hi, lowest_rate, at_lowest_us, rate_meets, rate_misses;
    int client_bound;              /* the client could not offer the rate */
};

/* a probed rate */
struct mtb_cap_row_point {
    double rate, achieved, runs;
    int client_bound, sweep;
    double corrected[MTB_CAP_NPCT], uncorrected[MTB_CAP_NPCT]; /* NaN: none */
};

struct mtb_cap_config {
    const char *variant, *mode;
    int baseline;                  /* the search's baseline (plain/off, or --baseline-variant's) */
    const char *pilot_record;      /* its first pilot run's record file, or NULL */
    double closed_loop_ops;
    size_t nat, npoints;
    struct mtb_cap_at *at;         /* per bound, in the SLO's order */
    struct mtb_cap_row_point *points;
};

/* an interval of an overhead: {est, lo, hi} */
struct mtb_cap_ci {
    int present;
    double est, lo, hi;
};

struct mtb_cap_overhead {
    const char *variant, *mode, *bound;
    struct mtb_cap_ci capacity, closed_loop;
};

struct mtb_cap_rows {
    const char *service, *workload, *arrival, *platform, *kernel, *definition, *slo_text;
    double duration_s, warmup_s;
    double confidence_pct;         /* the intervals' level in percent (files before CONFIDENCE: 95) */
    double confidence;             /* as the file has it, a fraction (NaN: files before CONFIDENCE) */
    const char *plan;              /* a plan's entry's search: the plan ("" for `capacity`) */
    const char *schema, *started, *mtebench_version;
    const char *dir, *file;        /* where a plan's or the nightly's search is (its entry; "" in the file) */
    int emulated;
    size_t nbounds, nconfigs, noverheads;
    struct mtb_cap_bound {
        const char *text;          /* "p99 <= 2.2 ms" */
        double bound_us;
    } *bounds;                     /* the SLO's bounds, in order */
    struct mtb_cap_config *configs;
    struct mtb_cap_overhead *overheads;
    /* the search */
    double runs, failed, elapsed_s;
    const char *stopped;           /* done, max_time, interrupted, error */
};
/** result's rows into r (every key read here, once). Never fails */
void mtb_cap_rows_read(json_t *result, struct mtb_cap_rows *r);
void mtb_cap_rows_free(struct mtb_cap_rows *r);
#endif
