/* test_pinpoint.c - the decision rule of `mtebench bisect` (pinpoint.c) and its
 * search (bisect_search.c): the two-sample Kolmogorov-Smirnov test against a
 * brute-force count and known quantiles, the high threshold's shape, and the
 * whole search on simulated revisions at the noise the nightly sees
 * (multiplicative, CV 7% per run: docs/STATISTICS.md, test_changepoint.c's
 * 3-8%): a false culprit at most 5% of the time, the planted step found at
 * least 90% of the time, within log2(n) + 2 builds. */
#include "bisect/bisect_search.h"
#include "analysis/pinpoint.h"
#include "analysis/stats.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* brute force: every way of choosing which nx of the nx+ny ranks are x's */
static double ks_brute(const double *x, size_t nx, const double *y, size_t ny)
{
    double dobs;
    mtb_pinpoint_ks2(x, nx, y, ny, &dobs, NULL);
    size_t n = nx + ny, total = 0, hit = 0;
    double a[32], b[32];
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if ((size_t)__builtin_popcount(mask) != nx)
            continue;
        size_t ia = 0, ib = 0;
        for (size_t k = 0; k < n; k++)
            if (mask & (1u << k))
                a[ia++] = (double)k;
            else
                b[ib++] = (double)k;
        double d;
        mtb_pinpoint_ks2(a, nx, b, ny, &d, NULL);
        total++;
        hit += d >= dobs - 1e-12;
    }
    return (double)hit / (double)total;
}

static void ks_checks(void)
{
    double x[] = { 1, 2, 3, 4, 5 }, y[] = { 6, 7, 8, 9, 10 }, d = 0, p = 0;
    int rc = mtb_pinpoint_ks2(x, 5, y, 5, &d, &p);
    ok(rc == 0 && d == 1 && near(p, 2.0 / 252, 1e-12), "separated 5 vs 5: D 1, p 2/C(10,5) (%g)", p);
    double x2[] = { 0.1, 0.5, 0.9, 1.3, 2.2, 2.9, 3.1 }, y2[] = { 0.7, 1.9, 2.4, 3.5, 3.8, 4.4 };
    mtb_pinpoint_ks2(x2, 7, y2, 6, &d, &p);
    double pb = ks_brute(x2, 7, y2, 6);
    ok(near(p, pb, 1e-12), "7 vs 6: exact p %.6f = brute-force count %.6f (D %.3f)", p, pb, d);
    double x3[] = { 3, 1, 4, 1.5, 9, 2.6, 5.3, 5.8, 9.7 }, y3[] = { 9.3, 2.3, 8.4, 6.2, 6.4, 3.38, 3.27, 9.5, 0.28 };
    mtb_pinpoint_ks2(x3, 9, y3, 9, &d, &p);
    pb = ks_brute(x3, 9, y3, 9);
    ok(near(p, pb, 1e-12), "9 vs 9, interleaved: exact p %.6f = brute force %.6f", p, pb);
    ok(near(mtb_pinpoint_kolmogorov_q(1.3581), 0.05, 2e-4), "Kolmogorov: Q(1.3581) = 0.05 (%.5f)", mtb_pinpoint_kolmogorov_q(1.3581));
    ok(near(mtb_pinpoint_kolmogorov_q(1.6276), 0.01, 1e-4), "Kolmogorov: Q(1.6276) = 0.01 (%.5f)", mtb_pinpoint_kolmogorov_q(1.6276));
    /* 300 vs 300 uses the asymptotic series; a shift of half an SD is obvious */
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 7);
    double *a = malloc(300 * sizeof *a), *b = malloc(300 * sizeof *b);
    for (int i = 0; i < 300; i++) {
        a[i] = mtb_stats_rng_normal(&r);
        b[i] = mtb_stats_rng_normal(&r) + 0.5;
    }
    rc = mtb_pinpoint_ks2(a, 300, b, 300, &d, &p);
    ok(rc == 0 && p < 1e-6 && d > 0.15, "300 vs 300 shifted 0.5 SD: D %.3f, p %.2g", d, p);
    ok(mtb_pinpoint_ks2(a, 300, a, 300, &d, &p) == 0 && d == 0 && p == 1, "a sample against itself: D 0, p 1");
    ok(mtb_pinpoint_ks2(a, 0, b, 3, &d, &p) != 0, "an empty sample refused");
    free(a);
    free(b);
}

static void rule_checks(void)
{
    double h5 = mtb_pinpoint_high_threshold(1.0, 5), h20 = mtb_pinpoint_high_threshold(1.0, 20), h40 = mtb_pinpoint_high_threshold(1.0, 40);
    diag("high threshold at 1 IQR: n 5 %.3f, n 20 %.3f, n 40 %.3f; at 0.5 IQR n 40 %.3f, at 3 IQR n 10 %.3f", h5, h20,
         h40, mtb_pinpoint_high_threshold(0.5, 40), mtb_pinpoint_high_threshold(3.0, 10));
    ok(h5 > h20 && h20 > h40, "the high threshold falls with the sample count");
    ok(mtb_pinpoint_high_threshold(0.5, 20) > h20 && mtb_pinpoint_high_threshold(2.0, 20) < h20, "and with the effect sought");
    ok(h40 < 0.5 && h5 > 0.5, "1 IQR: about 35 samples to say SAME (Pinpoint's figure): n 5 undecided, n 40 decides");
    double a[10], b[10], c[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 100 + i;
        b[i] = 150 + i;
        c[i] = 100.5 + i;
    }
    struct mtb_pinpoint_cmp cm;
    int rc = mtb_pinpoint_compare(a, 10, b, 10, 1, &cm);
    ok(rc == 0 && cm.v == PP_DIFFERENT, "separated: different (p %.2g)", cm.p);
    rc = mtb_pinpoint_compare(a, 10, c, 10, 3, &cm);
    ok(rc == 0 && cm.v == PP_SAME, "interleaved, 3 IQRs sought: same (p %.2g > %.2g)", cm.p,
       cm.high);
    rc = mtb_pinpoint_compare(a, 10, c, 10, 0.3, &cm);
    ok(rc == 0 && cm.v == PP_UNKNOWN,
       "interleaved, 0.3 IQR sought: unknown (p %.2g <= %.2g)", cm.p, cm.high);
}

/* ---- the search on simulated revisions ---- */
struct sim {
    struct mtb_stats_rng r;
    size_t step_at; /* first bad revision; 0: none */
    size_t step2_at; /* a second step; 0: none */
    double step, cv;
    int skip;       /* this revision does not build (0: none) */
};

static int sim_build(void *ctx, size_t i)
{
    struct sim *s = ctx;
    return s->skip && (size_t)s->skip == i ? BS_BUILD_SKIP : 0;
}

static int sim_run(void *ctx, size_t i, double *v)
{
    struct sim *s = ctx;
    *v = 1000 * (1 + s->cv * mtb_stats_rng_normal(&s->r));
    if (s->step_at && i >= s->step_at)
        *v *= 1 - s->step;
    if (s->step2_at && i >= s->step2_at)
        *v *= 1 - s->step;
    return 0;
}

struct tally {
    int found, wrong, none, trials, max_builds, runs, in_bound;
};

static struct tally simulate(size_t n, double cv, double step, int with_step, int trials, uint64_t seed)
{
    struct tally t = { 0 };
    struct sim s = { .cv = cv, .step = step };
    mtb_stats_rng_seed(&s.r, seed);
    struct mtb_bisect_cfg cfg;
    mtb_bisect_defaults(&cfg);
    struct mtb_bisect_ops ops = { &s, sim_build, sim_run, NULL };
    struct mtb_bisect_rev *revs = calloc(n, sizeof *revs);
    for (int k = 0; k < trials; k++) {
        s.step_at = with_step ? 1 + mtb_stats_rng_below(&s.r, n - 1) : 0;
        memset(revs, 0, n * sizeof *revs);
        struct mtb_bisect_result res;
        if (mtb_bisect_search(revs, n, &cfg, &ops, &res) != 0)
            continue;
        t.trials++;
        t.runs += res.runs;
        t.max_builds = res.builds > t.max_builds ? res.builds : t.max_builds;
        t.in_bound += res.builds <= log2((double)(n - 1)) + 2 + 1e-9;
        if (res.outcome != BS_FOUND)
            t.none++;
        else if (res.nculprits == 1 && res.culprits[0].bad == s.step_at)
            t.found++;
        else {
            t.wrong++;
            if (getenv("PP_DEBUG"))
                diag("wrong: step %zu, %zu culprits: %zu..%zu (p %.3g %s), ambiguous %d, builds %d", s.step_at, res.nculprits,
                     res.culprits[0].good, res.culprits[0].bad, res.culprits[0].c.p, mtb_pinpoint_verdict_name(res.culprits[0].c.v),
                     res.ambiguous, res.builds);
        }
        mtb_bisect_free(revs, n);
    }
    free(revs);
    return t;
}

static void search_checks(void)
{
    /* 16 commits after the good one, a 10% throughput step, CV 7% per run */
    size_t n = 17;
    struct tally st = simulate(n, 0.07, 0.10, 1, 200, 11), no = simulate(n, 0.07, 0.10, 0, 200, 12);
    diag("CV 7%%, 10%% step among 16 commits: found %d/%d, wrong culprit %d, none %d, at most %d builds, %.0f runs "
         "a bisection",
         st.found, st.trials, st.wrong, st.none, st.max_builds, (double)st.runs / st.trials);
    diag("CV 7%%, no step: a culprit named %d/%d, not reproduced %d, %.0f runs a bisection", no.wrong + no.found,
         no.trials, no.none, (double)no.runs / no.trials);
    ok(st.trials == 200 && no.trials == 200, "every simulated bisection ran");
    ok(st.found >= 0.90 * st.trials, "planted step found >= 90%% (%.1f%%)", 100.0 * st.found / st.trials);
    ok(st.wrong + no.found + no.wrong <= 0.05 * (st.trials + no.trials), "a false culprit <= 5%% (%.1f%%)",
       100.0 * (st.wrong + no.found + no.wrong) / (st.trials + no.trials));
    ok(no.found + no.wrong <= 0.05 * no.trials, "no step: a culprit named <= 5%% (%.1f%%)",
       100.0 * (no.found + no.wrong) / no.trials);
    ok(st.in_bound >= 0.90 * st.trials, "at most log2(16) + 2 = 6 builds in >= 90%% (%d/%d; at most %d)", st.in_bound,
       st.trials, st.max_builds);

    /* a large step (a busy loop per request) is decided with the first runs */
    struct tally big = simulate(9, 0.07, 0.5, 1, 50, 13);
    ok(big.found == big.trials && big.max_builds <= 5, "a 50%% step among 8: found %d/%d, %d builds at most", big.found,
       big.trials, big.max_builds);
}

static void skip_and_two(void)
{
    struct sim s = { .cv = 0.03, .step = 0.3, .step_at = 4, .skip = 4 };
    mtb_stats_rng_seed(&s.r, 5);
    struct mtb_bisect_cfg cfg;
    mtb_bisect_defaults(&cfg);
    struct mtb_bisect_ops ops = { &s, sim_build, sim_run, NULL };
    struct mtb_bisect_rev revs[9] = { { 0 } };
    struct mtb_bisect_result res;
    int rc = mtb_bisect_search(revs, 9, &cfg, &ops, &res);
    ok(rc == 0 && res.outcome == BS_FOUND && res.nculprits == 1, "skip: found");
    ok(res.skipped == 1 && res.culprits[0].good == 3 && res.culprits[0].bad == 5 && res.culprits[0].skipped == 1,
       "the step on a revision that does not build: the culprit is 4 or 5 (between %zu and %zu, %zu skipped)",
       res.culprits[0].good, res.culprits[0].bad, res.culprits[0].skipped);
    ok(res.culprits[0].effect < -0.25 && res.culprits[0].lo < res.culprits[0].effect &&
           res.culprits[0].hi > res.culprits[0].effect,
       "effect %.3f [%.3f, %.3f]", res.culprits[0].effect, res.culprits[0].lo, res.culprits[0].hi);
    mtb_bisect_free(revs, 9);
    s.skip = 0;
    s.step_at = 3;
    s.step2_at = 7;
    rc = mtb_bisect_search(revs, 9, &cfg, &ops, &res);
    ok(rc == 0 && res.outcome == BS_FOUND && res.nculprits == 2 &&
           res.culprits[0].bad == 3 && res.culprits[1].bad == 7,
       "two steps (3 and 7): both named (%zu culprits: %zu, %zu)", res.nculprits, res.culprits[0].bad,
       res.nculprits > 1 ? res.culprits[1].bad : 0);
    mtb_bisect_free(revs, 9);
    s.step2_at = 0;
    ok(mtb_bisect_search(revs, 2, &cfg, &ops, &res) == 0, "two revisions");
    mtb_bisect_free(revs, 2);
    ok(mtb_bisect_search(revs, 1, &cfg, &ops, &res) != 0, "one revision refused");
}

int main(void)
{
    ks_checks();
    rule_checks();
    search_checks();
    skip_and_two();
    return done_testing();
}
