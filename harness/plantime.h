/* plantime.h - how long a plan will take (--dry-run), from its runs'
 * durations and warm-ups and the start-up costs measured on this machine
 * (results/startup-costs.json, updated by every ok run of a plan). */
#ifndef MTB_PLANTIME_H
#define MTB_PLANTIME_H
#include <stdio.h>
#include "plan.h"

/* A run's start-up cost in seconds for service on platform: the mean
 * measured here, or the platform's default; *runs (may be NULL) gets the
 * number of runs measured (0: the default). */
double mtb_startup_cost(const char *service, const char *platform, long *runs);
/* Add one run's start-up cost (its wall time less duration and warm-up). */
void mtb_startup_note(const char *service, const char *platform, double seconds);
/* "time: about 1h02m: 3 repetitions x (...)" for a plan, to f. */
void mtb_plan_print_time(const struct mtb_plan *p, FILE *f);
#endif
