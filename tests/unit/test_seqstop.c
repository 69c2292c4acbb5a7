/* test_seqstop.c - REPS=auto's stopping rule (harness/analysis/seqstop.c).
 *
 * 1. Coverage under the rule: many synthetic sequences of interleaved pairs
 *    with a known true overhead (the median of the pairwise ratio), noise from
 *    0.5% to 8% (lognormal and heavy-tailed), run through mtb_seq_run exactly
 *    as a plan is; the interval reported where the rule stops must cover the
 *    truth >= 94% of the time. The naive rule (a nominal 95% interval after
 *    every pair, stop when tight) is simulated beside it to show why the
 *    correction is needed.
 * 1b. The interval chosen by the pairs' shape (t, signed-rank or order
 *    statistics, mtb_stats_pair_ci) against the order statistics alone, on five
 *    noise shapes (normal, t(3), symmetric outliers, one-sided outliers, a
 *    skewed lognormal-like shape) at 1% to 10%, for the plan of the measured
 *    run (looks 4, 6, 8, 10, 13 at 99%) and one of 40 pairs: the rule's
 *    interval covers >= 95% for every shape, and the new interval is
 *    narrower. MTB_SEQ_TABLE=1 also prints docs/STATISTICS.md's table.
 * 2. A stand-in noise source in real time (a few ms a pair): small noise
 *    stops early at the precision, large noise stops at MAX_TIME.
 */
#include "analysis/seqstop.h"
#include "plan/runlen.h"
#include "lib/jsonx.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <time.h>

enum shape { NORMAL, HEAVY, SYM_OUTLIERS, SKEW_OUTLIERS, SKEW_LOGNORMAL, NSHAPES };
static const char *shape_name[NSHAPES] = { "normal", "t(3)", "10% symmetric outliers", "15% one-sided outliers",
                                           "skewed (lognormal-like)" };
static double shape_median[NSHAPES];     /* the median of each standard shape, subtracted */

struct sim {
    struct mtb_stats_rng rng;
    double truth, sigma;
    int heavy;               /* Student-t(3)-like tails instead of normal */
    enum shape shape;        /* with heavy == 0 */
    long sleep_us;           /* stand-in run time */
};

/* a standard deviate of the shape (scale about 1) */
static double deviate(struct mtb_stats_rng *r, enum shape sh)
{
    double z = mtb_stats_rng_normal(r);
    switch (sh) {
    case HEAVY: {            /* t with 3 degrees of freedom, scaled to unit-ish spread */
        double c = 0;
        for (int i = 0; i < 3; i++) {
            double g = mtb_stats_rng_normal(r);
            c += g * g;
        }
        return z / sqrt(c / 3) / sqrt(3.0);
    }
    case SYM_OUTLIERS:       /* one run of a pair disturbed, either run */
        if (mtb_stats_rng_uniform(r) < 0.1)
            z += (mtb_stats_rng_uniform(r) < 0.5 ? -1 : 1) * (3 + 5 * mtb_stats_rng_uniform(r));
        return z;
    case SKEW_OUTLIERS:      /* the tagged run disturbed more often */
        if (mtb_stats_rng_uniform(r) < 0.15)
            z += 3 + 5 * mtb_stats_rng_uniform(r);
        return z;
    case SKEW_LOGNORMAL:
        return (exp(0.7 * z) - 1) / 0.7;
    default:
        return z;
    }
}

static double noise(struct sim *m)
{
    if (m->heavy)
        return m->sigma * deviate(&m->rng, HEAVY);
    return m->sigma * (deviate(&m->rng, m->shape) - shape_median[m->shape]);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* each shape's median, from 200001 draws (within about 0.003 of its scale) */
static void shape_medians(void)
{
    struct mtb_stats_rng r;
    size_t n = 200001;
    double *x = malloc(n * sizeof *x);
    mtb_stats_rng_seed(&r, 99);
    for (int sh = 0; sh < NSHAPES; sh++) {
        for (size_t i = 0; i < n; i++)
            x[i] = deviate(&r, (enum shape)sh);
        qsort(x, n, sizeof *x, cmp_d);
        shape_median[sh] = x[n / 2];
    }
    free(x);
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
    double drift = 1e5 * exp(0.05 * mtb_stats_rng_normal(&m->rng));
    den[0] = drift;
    num[0] = drift * m->truth * exp(noise(m));     /* median ratio = truth */
    return 0;
}

/* the naive rule: 95% interval after every pair from 6 on, stop when tight */
static int naive_covers(struct sim *m, double precision, long cap)
{
    double num[512], den[512];
    struct mtb_stats_ci ci = { 0, 0, 0 };
    for (long n = 1; n <= cap; n++) {
        pair(m, n, &num[n - 1], &den[n - 1]);
        if (n < MTB_SEQ_MIN_PAIRS)
            continue;
        mtb_stats_ratio_ci(num, den, (size_t)n, 0.95, 0, 0, &ci);
        if (mtb_stats_rel_halfwidth(&ci) <= precision)
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

/* the rule on one sequence: covered? pairs, half-width at the stop */
static int one_sequence(struct mtb_seq *s, struct sim *m, long *pairs, double *hw, int *reached)
{
    struct rec r = { .m = m };
    struct mtb_seq_outcome o;
    struct mtb_stats_ci ci;
    double ach;
    mtb_seq_run(s, 1, rec_pair, &r, NULL, &o);
    mtb_seq_ratio_ci(s, r.num, r.den, (size_t)r.n, &ci, &ach);
    *pairs = o.pairs;
    *hw = mtb_seq_halfwidth(s, &ci, ach);
    *reached = o.why == MTB_SEQ_PRECISION;
    return ci.lo <= m->truth && m->truth <= ci.hi;
}

/* 1b: coverage by shape, the new interval against order statistics alone */
static void shapes(void)
{
    const double sigmas[] = { 0.01, 0.02, 0.04, 0.07, 0.10 };
    const long caps[] = { 13, 40 };
    const int trials = 100;
    int all = 0, all_cov = 0, worst_ok = 1, reached[2] = { 0, 0 };
    double hw10[2] = { 0, 0 };
    int n10 = 0;
    for (int sh = 0; sh < NSHAPES; sh++) {
        int cov[2] = { 0, 0 }, t = 0;
        for (size_t c = 0; c < 2; c++)
            for (size_t si = 0; si < sizeof sigmas / sizeof sigmas[0]; si++)
                for (int k = 0; k < trials; k++) {
                    t++;
                    for (int old = 0; old <= 1; old++) {
                        struct mtb_seq s;
                        mtb_seq_init(&s, 0.02, 1e9, caps[c], 1);
                        s.sign_only = old;
                        struct sim m = { .truth = 1.0 + 0.3 * k / trials, .sigma = sigmas[si], .shape = (enum shape)sh };
                        mtb_stats_rng_seed(&m.rng, 7000003u * (unsigned)k + 104729u * (unsigned)si + 31u * (unsigned)sh + c);
                        long pairs;
                        double hw;
                        int re;
                        cov[old] += one_sequence(&s, &m, &pairs, &hw, &re);
                        reached[old] += re;
                    }
                }
        diag("%-24s: the rule's interval covers %.1f%% (by shape) / %.1f%% (order statistics alone)", shape_name[sh],
             100.0 * cov[0] / t, 100.0 * cov[1] / t);
        worst_ok &= cov[0] >= 0.95 * t;
        all += t;
        all_cov += cov[0];
    }
    /* the measured run's case: 7% noise, 10 pairs, the looks of a 13-pair plan (99%: looks 4, 6, 8, 10, 13) */
    for (int k = 0; k < 400; k++) {
        struct sim m = { .truth = 2.2, .sigma = 0.07, .shape = NORMAL };
        struct rec r = { .m = &m };
        mtb_stats_rng_seed(&m.rng, 555u + (unsigned)k);
        for (long i = 1; i <= 10; i++)
            rec_pair(&r, i, &(double){ 0 }, &(double){ 0 });
        for (int old = 0; old <= 1; old++) {
            struct mtb_seq s;
            struct mtb_stats_ci ci;
            double ach;
            mtb_seq_init(&s, 0.02, 1e9, 13, 1);
            s.sign_only = old;
            mtb_seq_ratio_ci(&s, r.num, r.den, 10, &ci, &ach);
            hw10[old] += mtb_seq_halfwidth(&s, &ci, ach);
        }
        n10++;
    }
    ok(worst_ok && all_cov >= 0.95 * all, "the interval chosen by shape, where the rule stops, covers >= 95%% for "
       "every shape (%.1f%% overall, %d sequences)", 100.0 * all_cov / all, all);
    ok(reached[0] > reached[1], "it reaches +-2%% more often than order statistics alone (%d against %d of %d)",
       reached[0], reached[1], all);
    ok(hw10[0] < 0.8 * hw10[1], "7%% noise, 10 pairs, 99%% looks of a 13-pair plan: +-%.1f%% by shape against +-%.1f%% "
       "by order statistics (mean of %d)", 100 * hw10[0] / n10, 100 * hw10[1] / n10, n10);
}

/* docs/STATISTICS.md's table: pairs the rule takes to reach a precision,
 * today's interval (order statistics) against the one chosen by shape */
static void table(void)
{
    const double sigmas[] = { 0.02, 0.05, 0.07, 0.10 }, goals[] = { 0.02, 0.05 };
    const int trials = 200;
    diag("| pair noise (SD of log ratio) | goal | order statistics: pairs (reached) | by shape: pairs (reached) |");
    for (size_t g = 0; g < 2; g++)
        for (size_t si = 0; si < 4; si++) {
            double mp[2] = { 0, 0 };
            int re[2] = { 0, 0 };
            for (int old = 0; old <= 1; old++)
                for (int k = 0; k < trials; k++) {
                    struct mtb_seq s;
                    mtb_seq_init(&s, goals[g], 1e9, 100, 1);
                    s.sign_only = old;
                    struct sim m = { .truth = 1.2, .sigma = sigmas[si], .shape = NORMAL };
                    mtb_stats_rng_seed(&m.rng, 31337u * (unsigned)k + (unsigned)si);
                    long pairs;
                    double hw;
                    int r;
                    one_sequence(&s, &m, &pairs, &hw, &r);
                    mp[old] += (double)pairs;
                    re[old] += r;
                }
            diag("| %.0f%% | +-%.0f%% | %.1f (%d%%) | %.1f (%d%%) |", 100 * sigmas[si], 100 * goals[g],
                 mp[1] / trials, 100 * re[1] / trials, mp[0] / trials, 100 * re[0] / trials);
        }
}

/* runlen.c: pilot pairs whose runs have per-second noise sw (independent
 * seconds) and a per-run offset sb; the chosen length is the configured one
 * when the seconds' noise dominates (it averages out), the shortest when
 * the runs' offsets do (a longer run buys nothing) */
static void runlen_case(double sw, double sb, double t0, struct mtb_runlen *r)
{
    struct mtb_stats_rng g;
    mtb_stats_rng_seed(&g, 77);
    json_t *recs = json_array();
    for (int p = 1; p <= MTB_RUNLEN_PILOT; p++)
        for (int k = 0; k < 2; k++) {
            json_t *ts = json_array();
            double b = sb * mtb_stats_rng_normal(&g);
            for (int t = 1; t <= (int)t0; t++)
                json_array_append_new(ts, json_pack("{s:i,s:f}", "t", t, "ops", 1e4 * exp(b + sw * mtb_stats_rng_normal(&g))));
            json_array_append_new(recs, json_pack("{s:s,s:{s:i,s:s,s:s},s:{s:o}}", "status", "ok", "config", "rep", p,
                                                  "variant", k ? "tagged" : "plain", "mode", k ? "sync" : "off",
                                                  "load", "timeseries", ts));
        }
    mtb_runlen_choose(recs, t0, 3, 7, MTB_RUNLEN_MIN, r);
    json_decref(recs);
}

static void runlen(void)
{
    struct mtb_runlen r;
    runlen_case(0.02, 0.08, 30, &r);
    ok(r.chosen_s == MTB_RUNLEN_MIN && r.pilot_pairs == 3 && r.ncand == 5,
       "runs' offsets 8%%, seconds 2%%: the shortest run, %g s (%s; pair SD at 5 s %.3f, at 30 s %.3f)", r.chosen_s,
       r.why, r.cand[0].pair_sd, r.cand[r.ncand - 1].pair_sd);
    runlen_case(0.3, 0.0, 30, &r);
    ok(r.chosen_s >= 20 && r.cand[0].pair_sd > 1.5 * r.cand[r.ncand - 1].pair_sd,
       "seconds' noise 30%%, no offsets: a long run (20 s or more), %g s (%s; pair SD at 5 s %.3f, at 30 s %.3f)",
       r.chosen_s, r.why, r.cand[0].pair_sd, r.cand[r.ncand - 1].pair_sd);
    json_t *none = json_array();
    ok(mtb_runlen_choose(none, 30, 3, 7, 5, &r) == -1 && r.chosen_s == 30, "no pilot pairs: the length stays");
    json_decref(none);
    json_t *j = mtb_runlen_json(&r);
    ok(json_is_object(j) && mtb_jnum(j, "chosen_s") == 30, "recorded as JSON");
    json_decref(j);
}

int main(void)
{
    const double precision = 0.02;
    const double sigmas[] = { 0.005, 0.01, 0.02, 0.04, 0.08 };
    struct mtb_seq s;
    int trials = 0, covered = 0, naive_cov = 0, early = 0;
    long pairs_sum = 0;

    shape_medians();
    /* looks planned for 40 pairs at most */
    mtb_seq_init(&s, precision, 1e9, 40, 1);
    ok(s.looks[0] == MTB_SEQ_FIRST_LOOK && s.looks[1] == 6 && s.looks[s.nlooks - 1] == 40 && s.nlooks < 15,
       "looks 4, 6 .. 40, geometric: %zu looks, each at %.4f", s.nlooks, s.look_conf);
    ok(fabs(s.bonferroni - (1 - 0.05 / (double)s.nlooks)) < 1e-12 && s.look_conf >= 0.95 &&
       s.look_conf < s.bonferroni - 0.002, "each look at %.4f: between 95%% and Bonferroni's 1 - 0.05/L (%.4f)",
       s.look_conf, s.bonferroni);
    {
        /* simultaneous coverage at that level, on sequences the level was not simulated from */
        int all = 0, seqs = 4000;
        struct mtb_stats_rng rr;
        mtb_stats_rng_seed(&rr, 4242);
        for (int i = 0; i < seqs; i++) {
            double x[64];
            int together = 1;
            for (long n = 0; n < s.looks[s.nlooks - 1]; n++)
                x[n] = mtb_stats_rng_normal(&rr);
            for (size_t k = 0; k < s.nlooks; k++) {
                struct mtb_stats_ci ci;
                mtb_stats_t_ci(x, (size_t)s.looks[k], s.look_conf, &ci);
                together &= ci.lo <= 0 && 0 <= ci.hi;
            }
            all += together;
        }
        ok(all >= 0.94 * seqs && all <= 0.965 * seqs, "normal pairs: all %zu looks' t-intervals cover together in "
           "%.1f%% of %d sequences (95%% aimed at; Bonferroni alone gives more)", s.nlooks, 100.0 * all / seqs, seqs);
    }

    for (size_t si = 0; si < sizeof sigmas / sizeof sigmas[0]; si++)
        for (int heavy = 0; heavy <= 1; heavy++)
            for (int t = 0; t < 400; t++) {
                struct sim m = { .truth = 1.0 + 0.3 * (double)t / 400, .sigma = sigmas[si], .heavy = heavy };
                struct rec r = { .m = &m };
                struct mtb_seq_outcome o;
                struct mtb_stats_ci ci;
                double ach;
                mtb_stats_rng_seed(&m.rng, 1000003u * (unsigned)t + 7919u * (unsigned)si + (unsigned)heavy);
                mtb_seq_run(&s, 1, rec_pair, &r, NULL, &o);
                mtb_seq_ratio_ci(&s, r.num, r.den, (size_t)r.n, &ci, &ach);
                trials++;
                covered += ci.lo <= m.truth && m.truth <= ci.hi;
                early += o.why == MTB_SEQ_PRECISION;
                pairs_sum += o.pairs;
                struct sim m2 = m;
                mtb_stats_rng_seed(&m2.rng, 1000003u * (unsigned)t + 7919u * (unsigned)si + (unsigned)heavy);
                naive_cov += naive_covers(&m2, precision, 40);
            }
    double cov = (double)covered / trials, ncov = (double)naive_cov / trials;
    diag("%d sequences (noise 0.5%%-8%%, normal and heavy tails): %d stopped at +-2%%, mean %.1f pairs",
         trials, early, (double)pairs_sum / trials);
    ok(cov >= 0.94, "the interval where the rule stops covers the true overhead %.1f%% of the time (>= 94%%)", 100 * cov);
    ok(ncov < cov, "the naive rule (95%% after every pair, stop when tight) covers less: %.1f%%", 100 * ncov);
    ok(early > trials / 5 && early < trials, "some sequences reach the precision, the noisiest do not");

    shapes();
    runlen();
    if (getenv("MTB_SEQ_TABLE"))
        table();

    /* ---- the stand-in noise source in real time -------------------------- */
    struct mtb_seq_outcome o;
    struct sim quiet = { .truth = 1.1, .sigma = 0.002, .sleep_us = 2000 };
    mtb_stats_rng_seed(&quiet.rng, 42);
    mtb_seq_init(&s, precision, 2.0, 1000, 0.002);
    mtb_seq_run(&s, 1, pair, &quiet, NULL, &o);
    ok(o.why == MTB_SEQ_PRECISION && o.pairs <= 10 && o.elapsed < 1.0,
       "small noise (0.2%%): stops at the precision after %ld pairs, %.2f s (MAX_TIME 2 s)", o.pairs, o.elapsed);
    struct sim noisy = { .truth = 1.1, .sigma = 0.3, .sleep_us = 2000 };
    mtb_stats_rng_seed(&noisy.rng, 43);
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
