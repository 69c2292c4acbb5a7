/* plantime.h - how long a plan will take (--dry-run), from its runs'
 * durations and warm-ups and the start-up costs measured on this machine
 * (results/startup-costs.json, updated by every ok run of a plan). */
#ifndef MTB_PLANTIME_H
#define MTB_PLANTIME_H
#include <stddef.h>
#include <stdio.h>

/* Add one run's start-up cost (its wall time less duration and warm-up). */
void mtb_startup_note(const char *service, const char *platform, double seconds);
/* A configuration of a plan: its service and its run's duration + warm-up. */
struct mtb_time_cell {
    const char *service;
    double run_s;
};
/* "time: about 1h02m: 3 repetitions x (...)" for a plan of n cells on
 * platform, to f; reps MTB_REPS_AUTO (0): from the first look to max_reps
 * pairs or max_time. */
void mtb_time_print(FILE *f, const char *platform, const struct mtb_time_cell *cells, size_t n, long reps,
                    long max_reps, double max_time);
#endif
