/* runlen.h - REPS=auto: the run length for the fastest answer, measured on
 * the first (pilot) pairs: their runs cut into windows of each candidate
 * length give the pair noise at that length (runlen.c). */
#ifndef MTB_RUNLEN_H
#define MTB_RUNLEN_H
#include <jansson.h>
#include <stddef.h>

#define MTB_RUNLEN_PILOT    3     /* pairs at the configured length before choosing */
#define MTB_RUNLEN_MIN      5.0   /* seconds: the shortest run chosen */
#define MTB_RUNLEN_MAXPAIRS 16
#define MTB_RUNLEN_MAXCAND  32

struct mtb_runlen_cand {
    double len_s;       /* a run length */
    double pair_sd;     /* SD of the pair log ratio of windows that long */
    int windows;        /* windows it was measured on */
    double cost;        /* variance x wall time of a pair: least is fastest */
};

struct mtb_runlen {
    double pilot_s;     /* the configured length the pilot pairs ran at */
    double chosen_s;    /* the length of the pairs after them */
    int pilot_pairs;
    double overhead_s;  /* warm-up + start-up of a run */
    struct mtb_runlen_cand cand[MTB_RUNLEN_MAXCAND];
    int ncand;
    const char *why;
};

/* From the pilot's records (their per-second series; a pair is the plain/off
 * run and the first other run of a repetition) at run length t0: the length
 * in [lo, t0] that narrows the interval fastest. @return 0, or -1 (too
 * little data: chosen_s = t0). */
int mtb_runlen_choose(json_t *records, double t0, double warmup, double startup, double lo, struct mtb_runlen *out);
/* The choice as recorded in records and summary.json */
json_t *mtb_runlen_json(const struct mtb_runlen *r);
#endif
