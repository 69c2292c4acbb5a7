/* runlen.h - REPS=auto: the run length for the fastest answer, chosen from
 * the first (pilot) pairs' within-run and between-run noise (runlen.c). */
#ifndef MTB_RUNLEN_H
#define MTB_RUNLEN_H
#include <jansson.h>
#include <stddef.h>

#define MTB_RUNLEN_PILOT 3     /* pairs at the configured length before choosing */
#define MTB_RUNLEN_MIN   5.0   /* seconds: the shortest run chosen */

struct mtb_runlen {
    double pilot_s;     /* the configured length the pilot pairs ran at */
    double chosen_s;    /* the length of the pairs after them */
    int pilot_pairs;
    double within_sd;   /* SD of log ops over one second, within a run */
    double between_sd;  /* SD of a run's log throughput whatever its length */
    double pair_sd;     /* SD of the pilot pairs' log ratios */
    double overhead_s;  /* warm-up + start-up of a run */
    const char *why;
};

/* From the pilot's records (their per-second series) and its pairs' log
 * ratios d[0..nd) at run length t0: the run length in [lo, hi] that narrows
 * the interval fastest. @return 0, or -1 (too little data: chosen_s = t0). */
int mtb_runlen_choose(json_t *records, const double *d, size_t nd, double t0, double warmup, double startup,
                      double lo, double hi, struct mtb_runlen *out);
/* The choice as recorded in records and summary.json */
json_t *mtb_runlen_json(const struct mtb_runlen *r);
#endif
