/* adapt.h - adapters that fold the output of the standard drivers (pgbench,
 * db_bench, wrk) into mtload's record format: the same histogram (ns
 * values), the same latency percentiles and per-second series. Pure parsing;
 * the harness runs the programs (harness/driver_std.c). */
#ifndef MTL_ADAPT_H
#define MTL_ADAPT_H
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include "loadgen/hist.h"


#define MTL_ADAPT_MAX_SECONDS 4096

struct mtl_adapt {
    struct mtl_hist corrected;      /* from the intended start (open loop) */
    struct mtl_hist uncorrected;    /* from the actual start */
    uint64_t requests, failed, skipped;
    double first_s, last_s;         /* epoch seconds of the first and last entry */
    uint64_t sec_ops[MTL_ADAPT_MAX_SECONDS];
    uint64_t sec_err[MTL_ADAPT_MAX_SECONDS];
    struct mtl_hist *sec_hist;      /* per-second histograms (allocated) */
    size_t nsec;
};

/** @return 0 or ENOMEM. */
int mtl_adapt_init(struct mtl_adapt *a);
void mtl_adapt_free(struct mtl_adapt *a);
/** Record one operation scheduled at epoch second t (from first_s on) that
 *  waited lag_ns past its scheduled start before it began, then took lat_ns
 *  from its actual start: corrected latency lag_ns + lat_ns, uncorrected
 *  lat_ns. */
void mtl_adapt_record(struct mtl_adapt *a, double t, uint64_t lat_ns, uint64_t lag_ns);

/**
 * Fold one pgbench per-transaction log (pgbench -l) into a.
 * Line format: client_id transaction_no time script_no time_epoch time_us
 * [schedule_lag [retries]]; time is "failed" or "skipped" for those.
 * Under --rate, time counts from the scheduled start (schedule_lag
 * included: the corrected latency); the uncorrected one is time - schedule_lag.
 * Entries before skip_before (epoch seconds; 0 = none) are the warm-up.
 * @return 0, or EINVAL on a malformed line (line number in *bad_line).
 */
int mtl_adapt_pgbench_log(struct mtl_adapt *a, FILE *f, double skip_before, long *bad_line);

/**
 * Parse db_bench's output for one benchmark: its summary line
 * ("name : X micros/op Y ops/sec Z seconds N operations;") into *ops_per_sec,
 * *seconds and *operations, and its "--histogram=1" bucket tables (all of the
 * benchmark's "Microseconds per <op>:" sections) into a.
 * @return 0, or ENOENT when the benchmark's line is missing.
 */
int mtl_adapt_dbbench(struct mtl_adapt *a, const char *text, const char *bench, double *ops_per_sec,
                      double *seconds, uint64_t *operations);

/**
 * Parse the lines the wrk report script prints ("P <percent> <latency_us>",
 * "REQ <n>", "DUR <us>", "ERR <kind> <n>") into a (percentile points are
 * spread into the histogram as the requests between them).
 * @return 0 or EINVAL.
 */
int mtl_adapt_wrk(struct mtl_adapt *a, const char *text, double *seconds, json_t *errors);

/** The whole load object, in mtload's JSON format (schema mtload/1). */
json_t *mtl_adapt_json(const struct mtl_adapt *a, const char *driver, double duration_s, json_t *config,
                       json_t *errors);
#endif
