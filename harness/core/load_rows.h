/* load_rows.h - a load generator's result (mtload's JSON, schema mtload/1,
 * which the drivers' adapters and the far clients' merge write too; a
 * record keeps it as `load`) read once into a struct: the totals, the
 * error account, the latency percentiles (corrected for coordinated
 * omission, and not), whether the client was the limit, and the engine
 * that ran. The record's summary (core/run_request.c), the run's warnings,
 * the work account's requests, the latency floor and capacity's points read
 * these fields, never the result by key.
 *
 * A number the result lacks, or does not hold as a number, reads as NaN
 * (has_ says whether its key was there); a string or an array as NULL,
 * valid while the result is.
 *
 *   struct mtb_load_view l;
 *   mtb_load_view_read(load, &l);
 *   ... l.ops_per_sec, l.lat[MTB_LAT_CORRECTED].v[MTB_LOAD_P99] ...
 */
#ifndef MTB_LOAD_ROWS_H
#define MTB_LOAD_ROWS_H
#include <jansson.h>

/* the statistics of a latency block (latency_us.corrected, .uncorrected), in us */
#define MTB_LOAD_STATS(X)                                                                             \
    X(MEAN, "mean") X(P50, "p50") X(P90, "p90") X(P99, "p99") X(P999, "p99.9") X(P9999, "p99.99") X(MAX, "max")
enum mtb_load_stat {
#define X(id, key) MTB_LOAD_##id,
    MTB_LOAD_STATS(X)
#undef X
    MTB_LOAD_NSTATS
};

enum { MTB_LAT_CORRECTED, MTB_LAT_UNCORRECTED, MTB_LAT_N };

struct mtb_load_lat {
    int present;                 /* the block is there */
    int has[MTB_LOAD_NSTATS];    /* each statistic's key is there */
    double v[MTB_LOAD_NSTATS];   /* NaN: absent or not a number */
    long long count;             /* requests it holds */
};

struct mtb_load_view {
    int present;                 /* a result object */
    const char *engine;          /* the I/O engine that ran (mtload's), or NULL */
    /* totals */
    int has_requests, has_ops_per_sec;
    double requests, ops_per_sec;
    long long errors;            /* totals.errors summed, reconnects aside (they are not failed requests) */
    int has_error_rate;          /* mtload's account: answered with an error, lost or never sent */
    double error_rate, error_limit;
    int has_errors_over_limit, errors_over_limit;
    int has_accounting;          /* totals.accounting: mtload's account of every request scheduled */
    double sent, answered, unsent;
    int has_setup;               /* totals.setup: the transactions the clients' own setup made (pgbench) */
    long long setup;
    struct mtb_load_lat lat[MTB_LAT_N];
    int has_client_bound, client_bound; /* cpu.client_bound */
    double duration_s;           /* the measured period; NaN: not said */
    json_t *histogram;           /* the corrected latencies' buckets ([[us, count], ...]; borrowed), or NULL */
    json_t *timeseries;          /* each second's operations ([{t, ops, ...}]; borrowed), or NULL */
};

void mtb_load_view_read(json_t *load, struct mtb_load_view *l);
/** the same of a record's load (its "load"; none: not present) */
void mtb_load_view_of_record(json_t *rec, struct mtb_load_view *l);
#endif
