/* floor.h - the machine's latency floor: what a request on loopback costs
 * here before any service does work. A native memcached (Debian's, one
 * thread) is driven by mtload with 16 connections at a low, a moderate and a
 * high uniform rate, and each rate's corrected p50/p90/p99/p99.9 kept. On a
 * virtual machine whose idle wake-ups cost milliseconds the floor is
 * milliseconds, and lowest at the highest rate (busy CPUs do not go idle):
 * a tail-latency bound below the best any rate showed cannot be met by any
 * service on this machine, which `capacity` says before it searches.
 * `doctor` prints it; the quiet check before a plan measures it unless
 * MTEBENCH_FLOOR=0 (the test suite's default: a plan's wait), and records
 * carry it (environment.quiet.checks.floor). */
#ifndef MTB_FLOOR_H
#define MTB_FLOOR_H
#include <jansson.h>
#include "core/floor_rows.h"
#include "lib/err.h"
#include <stddef.h>
#include <stdio.h>

#define MTB_FLOOR_RATES 3
/* the percentiles kept, as in a record's load.latency_us */
#define MTB_FLOOR_NPCT MTB_FLOOR_NPCTS

struct mtb_floor_point {
    double rate;                   /* offered, requests/s */
    double seconds;                /* its run's length */
    long count;                    /* requests measured */
    double pct[MTB_FLOOR_NPCT];    /* p50 p90 p99 p99.9, us (corrected) */
};

struct mtb_floor {
    int n; /* points measured */
    struct mtb_floor_point pt[MTB_FLOOR_RATES];
    char server[160]; /* what answered ("memcached 1.6.18 (/usr/bin/memcached), 1 thread") */
};

/* The index of a percentile key among those kept (p50 p90 p99 p99.9; -1: not kept). */
int mtb_floor_pct_index(const char *pct);
/* Measure (about 3.5 s; scale multiplies each rate's run length, 0.2-10).
 * @return 0, or -1 with why (no memcached, no mtload, a run that failed). */
int mtb_floor_measure(struct mtb_floor *f, double scale, char *why, size_t n);
/* The lowest value of a percentile over the rates (us), and the rate that
 * showed it; NAN when none was measured. */
double mtb_floor_best(const struct mtb_floor *f, int pct, double *rate);
/* One line per rate, for people ("  at 50/s: p50 143 us, p99 412 us ..."). */
void mtb_floor_print(const struct mtb_floor *f, FILE *out, const char *indent);
/* 0 when MTEBENCH_FLOOR=0 (skip the floor), else 1; any value but 0 and 1
 * is refused: -1 with e set (bad input). */
int mtb_floor_enabled(struct mtb_err *e);
/* The quiet check's entry: measured unless MTEBENCH_FLOOR=0 ({"skipped": why}
 * then, or {"error": why} when it could not be measured): {"server", "points":
 * [{rate, seconds, count, p50, p90, p99, p99.9}], "best": {p50: {us, rate}, ...}}.
 * NULL with e set: MTEBENCH_FLOOR refused. */
json_t *mtb_floor_check(struct mtb_err *e);
/* That entry (read into v: core/floor_rows.h) in words: 1 and "p99 N us
 * at best (at R/s), loopback to SERVER" when measured; else 0 and why it
 * was not (skipped or error). */
int mtb_floor_describe(const struct mtb_floor_view *v, char *buf, size_t n);
#endif
