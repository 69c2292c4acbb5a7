/* test_seqstop.c - REPS=auto's stopping rule (harness/seqstop.c).
 *
 * 1. Coverage under the rule: many synthetic sequences of interleaved pairs
 *    with a known true overhead (the median of the pairwise ratio), noise from
 *    0.5% to 8% (lognormal and heavy-tailed), run through mtb_seq_run exactly
 *    as a plan is; the interval reported where the rule stops must cover the
 *    truth >= 94% of the time. The naive rule (a nominal 95% interval after
 *    every pair, stop when tight) is simulated beside it to show why the
 *    correction is needed.
 * 2. A stand-in noise source in real time (a few ms a pair): small noise
 *    stops early at the precision, large noise stops at MAX_TIME.
 */
#include "seqstop.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <time.h>

struct sim {
    struct stats_rng rng;
    double truth, sigma;
    int heavy;               /* Student-t(3)-like tails instead of normal */
    long sleep_us;           /* stand-in run time */
};

static double noise(struct sim *m)
{
    double z = stats_rng_normal(&m->rng);
    if (m->heavy) {          /* t with 3 degrees of freedom, scaled to unit-ish spread */
        double c = 0;
        for (int i = 0; i < 3; i++) {
            double g = stats_rng_normal(&m->rng);
            c += g * g;
        }
        z = z / sqrt(c / 3) / sqrt(3.0);
    }
    return m->sigma * z;
}

static int pair(void *ctx, long rep, double *num, double *den)
{
    struct sim *m = ctx;
    (void)rep;
    if (m->sleep_us) {
        struct timespec ts = { 0, m->sleep_us * 1000 };
        nanosleep(&ts, NULL);
    }
    /* a drifting machine: both runs of a pair share the drift */
    double drift = 1e5 * exp(0.05 * stats_rng_normal(&m->rng));
    den[0] = drift;
    num[0] = drift * m->truth * exp(noise(m));     /* median ratio = truth */
    return 0;
}

/* the naive rule: 95% interval after every pair from 6 on, stop when tight */
static int naive_covers(struct sim *m, double precision, long cap)
{
    double num[512], den[512];
    struct stats_ci ci = { 0, 0, 0 };
    for (long n = 1; n <= cap; n++) {
        pair(m, n, &num[n - 1], &den[n - 1]);
        if (n < MTB_SEQ_MIN_PAIRS)
            continue;
        stats_ratio_ci(num, den, (size_t)n, 0.95, 0, 0, &ci);
        if (stats_rel_halfwidth(&ci) <= precision)
            break;
    }
    return ci.lo <= m->truth && m->truth <= ci.hi;
}

/* the rule as plans run it; the reported interval is recomputed from the
 * pairs the rule saw, at the looks' level */
struct rec {
    struct sim *m;
    double num[512], den[512];
    long n;
};
static int rec_pair(void *ctx, long rep, double *num, double *den)
{
    struct rec *r = ctx;
    pair(r->m, rep, num, den);
    r->num[r->n] = num[0];
    r->den[r->n] = den[0];
    r->n++;
    return 0;
}

int main(void)
{
    const double precision = 0.02;
    const double sigmas[] = { 0.005, 0.01, 0.02, 0.04, 0.08 };
    struct mtb_seq s;
    int trials = 0, covered = 0, naive_cov = 0, early = 0;
    long pairs_sum = 0;

    /* looks planned for 40 pairs at most */
    mtb_seq_init(&s, precision, 1e9, 40, 1);
    ok(s.looks[0] == 6 && s.looks[s.nlooks - 1] == 40 && s.nlooks < 15,
       "looks 6 .. 40, geometric: %zu looks, each at %.4f", s.nlooks, s.look_conf);
    ok(fabs(s.look_conf - (1 - 0.05 / (double)s.nlooks)) < 1e-12, "Bonferroni: each look at 1 - 0.05/L");

    for (size_t si = 0; si < sizeof sigmas / sizeof sigmas[0]; si++)
        for (int heavy = 0; heavy <= 1; heavy++)
            for (int t = 0; t < 400; t++) {
                struct sim m = { .truth = 1.0 + 0.3 * (double)t / 400, .sigma = sigmas[si], .heavy = heavy };
                struct rec r = { .m = &m };
                struct mtb_seq_outcome o;
                struct stats_ci ci;
                double ach;
                stats_rng_seed(&m.rng, 1000003u * (unsigned)t + 7919u * (unsigned)si + (unsigned)heavy);
                mtb_seq_run(&s, 1, rec_pair, &r, NULL, &o);
                mtb_seq_ratio_ci(&s, r.num, r.den, (size_t)r.n, &ci, &ach);
                trials++;
                covered += ci.lo <= m.truth && m.truth <= ci.hi;
                early += o.why == MTB_SEQ_PRECISION;
                pairs_sum += o.pairs;
                struct sim m2 = m;
                stats_rng_seed(&m2.rng, 1000003u * (unsigned)t + 7919u * (unsigned)si + (unsigned)heavy);
                naive_cov += naive_covers(&m2, precision, 40);
            }
    double cov = (double)covered / trials, ncov = (double)naive_cov / trials;
    diag("%d sequences (noise 0.5%%-8%%, normal and heavy tails): %d stopped at +-2%%, mean %.1f pairs",
         trials, early, (double)pairs_sum / trials);
    ok(cov >= 0.94, "the interval where the rule stops covers the true overhead %.1f%% of the time (>= 94%%)", 100 * cov);
    ok(ncov < cov, "the naive rule (95%% after every pair, stop when tight) covers less: %.1f%%", 100 * ncov);
    ok(early > trials / 5 && early < trials, "some sequences reach the precision, the noisiest do not");

    /* ---- the stand-in noise source in real time -------------------------- */
    struct mtb_seq_outcome o;
    struct sim quiet = { .truth = 1.1, .sigma = 0.002, .sleep_us = 2000 };
    stats_rng_seed(&quiet.rng, 42);
    mtb_seq_init(&s, precision, 2.0, 1000, 0.002);
    mtb_seq_run(&s, 1, pair, &quiet, NULL, &o);
    ok(o.why == MTB_SEQ_PRECISION && o.pairs <= 10 && o.elapsed < 1.0,
       "small noise (0.2%%): stops at the precision after %ld pairs, %.2f s (MAX_TIME 2 s)", o.pairs, o.elapsed);
    struct sim noisy = { .truth = 1.1, .sigma = 0.3, .sleep_us = 2000 };
    stats_rng_seed(&noisy.rng, 43);
    mtb_seq_run(&s, 1, pair, &noisy, NULL, &o);
    /* not timed to the millisecond: a loaded machine stretches the stand-in
     * runs, and the rule may then stop at an earlier look it can afford */
    ok(o.why == MTB_SEQ_MAX_TIME && o.elapsed <= 2.5 && o.pairs >= 12 && o.worst_hw > precision,
       "large noise (30%%): stops at MAX_TIME after %ld pairs, %.2f s, +-%.1f%%", o.pairs, o.elapsed, 100 * o.worst_hw);
    mtb_seq_init(&s, precision, 1e9, 12, 0.002);
    mtb_seq_run(&s, 1, pair, &noisy, NULL, &o);
    ok(o.why == MTB_SEQ_MAX_REPS && o.pairs == 12, "MAX_REPS 12 ends at 12 pairs (%ld)", o.pairs);
    return done_testing();
}
