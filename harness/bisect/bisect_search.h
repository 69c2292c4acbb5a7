/* bisect_search.h - the search of a bisection under noise, apart from what is
 * searched: revisions 0 (good) .. n-1 (bad) in order, a build and a run given
 * as callbacks, every comparison by Pinpoint's rule (pinpoint.h). The ends are
 * measured first and must differ in the bad direction ("not reproduced"
 * otherwise); then midpoints, each compared with its tested neighbours; a
 * revision that does not build is skipped; two changes are both followed.
 * Runs are interleaved (spread evenly), never in blocks. docs/BISECT.md. */
#ifndef MTB_BISECT_SEARCH_H
#define MTB_BISECT_SEARCH_H

#include "analysis/pinpoint.h"

#include <stddef.h>

#define BS_BUILD_SKIP 125 /* git bisect run's "cannot test this commit" */
#define BS_MAX_CULPRITS 8

struct mtb_bisect_rev {
    double *x; /* the metric of each run, in order */
    size_t n, cap;
    int built;   /* 1: built (or found built); -1: did not build (skipped) */
};

struct mtb_bisect_cfg {
    int reps;          /* first runs of a revision (Pinpoint: 10) */
    int add_reps;      /* runs added to each side of an UNKNOWN comparison (10) */
    int max_reps;      /* at most this many runs of a revision */
    int refresh;       /* fresh runs of each neighbour interleaved with a new midpoint's */
    double min_change; /* the relative change the ends must show (e.g. 0.05) */
    int better;        /* 1: higher is better (throughput); -1: lower (latency) */
};

struct mtb_bisect_step {
    size_t a, b;      /* revisions compared */
    struct mtb_pinpoint_cmp c;  /* the comparison, after these samples */
    const char *why;  /* "ends", "left", "right", "confirm" */
};

struct mtb_bisect_ops {
    void *ctx;
    /** build revision i: 0, BS_BUILD_SKIP (does not build), else fatal */
    int (*build)(void *ctx, size_t i);
    /** one run of revision i; its metric in *v; non-zero: fatal */
    int (*run)(void *ctx, size_t i, double *v);
    /** a comparison was made (for the log and the JSON); may be NULL */
    void (*step)(void *ctx, const struct mtb_bisect_step *s);
};

struct mtb_bisect_culprit {
    size_t good, bad;      /* tested neighbours: the change is in good+1 .. bad */
    size_t skipped;        /* revisions between them that did not build */
    double effect, lo, hi; /* median(bad)/median(good) - 1, 95% bootstrap interval */
    struct mtb_pinpoint_cmp c;
};

enum mtb_bisect_outcome { BS_FOUND, BS_NOT_REPRODUCED, BS_FAILED };

struct mtb_bisect_result {
    enum mtb_bisect_outcome outcome;
    char why[320];
    struct mtb_pinpoint_cmp ends;
    double end_effect, magnitude; /* bad vs good; the effect sought (IQRs) */
    struct mtb_bisect_culprit culprits[BS_MAX_CULPRITS];
    size_t nculprits;
    int builds, skipped, runs, tested;
    int ambiguous; /* steps where neither half differed (the hunt followed the likelier) */
    int dropped;   /* culprits not confirmed with the runs topped up to the cap */
};

/** mtb_bisect_search - bisect revs[0..n) (n >= 2) as the header says. */
int mtb_bisect_search(struct mtb_bisect_rev *revs, size_t n, const struct mtb_bisect_cfg *cfg, const struct mtb_bisect_ops *ops,
              struct mtb_bisect_result *res);

/** mtb_bisect_defaults - Pinpoint's counts (10 runs, 10 more per UNKNOWN, cap 40), 2
 *  refresh runs, a 5% change, higher is better */
void mtb_bisect_defaults(struct mtb_bisect_cfg *cfg);


/** mtb_bisect_free - the revisions' samples freed, their state cleared (ready for another search) */
void mtb_bisect_free(struct mtb_bisect_rev *revs, size_t n);
#endif
