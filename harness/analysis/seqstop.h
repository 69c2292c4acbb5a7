/* seqstop.h - REPS=auto: when to stop adding interleaved pairs.
 *
 * The overhead of a configuration is estimated from its pairwise ratios
 * (baseline ops/s over tagged ops/s, one pair per repetition) with the
 * interval the shape of their logs allows (mtb_stats_pair_ci): the t-interval
 * when they look normal, the Wilcoxon signed-rank interval (Hodges-Lehmann)
 * when they look symmetric, the distribution-free order-statistic interval
 * of the median otherwise. Looking at that interval after every pair and
 * stopping once it is tight would undercover: each look is another chance
 * for a 95% interval to miss, and the rule stops exactly when one happens to
 * be narrow. So the rule looks only at a fixed set of pair counts, planned
 * before the first run: 4 (the first answer: with 30 s runs it comes within
 * 5 minutes), then 6 and about x1.25 each time (6, 8, 10, 13, 17, 22, ...)
 * up to the most pairs MAX_TIME or MAX_REPS allow. Each look's interval
 * is built at one level for all looks, chosen so that all L intervals cover
 * the true overhead together with probability 95%: for normal pairs the
 * level is simulated for the planned looks (their statistics share pairs,
 * so the union bound 1 - 0.05/L, Bonferroni, is loose: 99.1% instead of
 * 99.5% for 10 looks up to 40 pairs), never stricter than Bonferroni's. The
 * interval reported at whichever look the rule stops at is then a 95%
 * interval (for the shape-chosen interval and other shapes of noise this
 * rests on the simulation of tests/unit/test_seqstop.c, docs/STATISTICS.md).
 * Geometric spacing keeps L small (it grows with the log of the pair
 * count), which is what keeps the per-look level, and so the interval width,
 * affordable. The rule stops at a look when every overhead's interval is
 * within +-PRECISION of its estimate, at the last planned look, or at a look
 * when the next look would not fit in MAX_TIME.
 */
#ifndef MTB_SEQSTOP_H
#define MTB_SEQSTOP_H
#include <stddef.h>
#include <stdio.h>
#include "analysis/stats.h"

#define MTB_REPS_AUTO      0            /* --reps auto */
#define MTB_SEQ_FIRST_LOOK 4            /* the first look: only the t-interval reaches its level */
#define MTB_SEQ_MIN_PAIRS  6            /* the first 95% order-statistic interval; looks grow from here */
#define MTB_SEQ_MAXLOOKS   64
#define MTB_SEQ_CONF       0.95         /* simultaneous over the looks */

struct mtb_seq {
    double precision;                   /* relative half-width to reach, 0.02 */
    double max_time;                    /* seconds of runs */
    long max_reps;                      /* pairs */
    long looks[MTB_SEQ_MAXLOOKS];       /* pair counts at which the rule looks */
    size_t nlooks;
    double look_conf;                   /* every look's level: simultaneous MTB_SEQ_CONF (seqstop.c) */
    double bonferroni;                  /* 1 - (1 - MTB_SEQ_CONF) / nlooks, the bound it never exceeds */
    int sign_only;                      /* 0 (mtb_seq_init): the interval by the pairs' shape
                                         * (mtb_stats_pair_ci); 1: order statistics whatever the
                                         * shape (the rule before; for comparisons) */
};

enum mtb_seq_verdict { MTB_SEQ_GO_ON, MTB_SEQ_PRECISION, MTB_SEQ_MAX_REPS, MTB_SEQ_MAX_TIME,
                        MTB_SEQ_USER /* the pair function asked to stop: Ctrl-C */ };

/* Plan the looks: up to max_reps pairs and as many as max_time allows at
 * pair_s seconds a pair (its planned run time, without overheads, so the plan
 * errs towards more looks: a lower per-look level, wider intervals). */
void mtb_seq_init(struct mtb_seq *s, double precision, double max_time, long max_reps, double pair_s);
/* The interval of a look: the overhead's CI at s->look_conf, chosen by the
 * shape of the pairs (mtb_stats_pair_ci); *achieved (may be NULL) gets its exact
 * level, below look_conf when n is too small for it ([min, max] then);
 * *shape (may be NULL) the checks and the method. @return as mtb_stats_pair_ci. */
int mtb_seq_ratio_ci(const struct mtb_seq *s, const double *num, const double *den, size_t n,
                     struct mtb_stats_ci *out, double *achieved);
/* The relative half-width that counts for the rule: +inf when the interval
 * falls short of the look's level. */
double mtb_seq_halfwidth(const struct mtb_seq *s, const struct mtb_stats_ci *ci, double achieved);
const char *mtb_seq_verdict_name(enum mtb_seq_verdict v);
/* "auto" or the count, for messages */
void mtb_reps_text(char *buf, size_t n, long reps);

/* ---- the loop --------------------------------------------------------- */

/* Run repetition rep (1, 2, ...) of every cell; fill num[k], den[k] for each
 * of the nover overheads (baseline ops/s, tagged ops/s; NAN when the pair
 * failed). @return 0, or nonzero to stop (interrupted). */
typedef int (*mtb_seq_pair_fn)(void *ctx, long rep, double *num, double *den);

struct mtb_seq_outcome {
    long pairs;                         /* repetitions run */
    enum mtb_seq_verdict why;           /* MTB_SEQ_USER when the pair function stopped it */
    double elapsed;                     /* seconds */
    double worst_hw;                    /* at the last look: the widest overhead's relative half-width */
    size_t worst;                       /* ... which overhead */
};

/* Add pairs until the rule stops; progress (interval, next look, time left)
 * to progress after every pair if not NULL. @return 0, or -ENOMEM. */
int mtb_seq_run(const struct mtb_seq *s, size_t nover, mtb_seq_pair_fn pair, void *ctx, FILE *progress,
                struct mtb_seq_outcome *out);
#endif
