/* test_capacity.c - capacity at an SLO (harness/analysis/capacity.c).
 *
 * 1. SLOs parsed, and bad ones refused with what is wrong.
 * 2. The M/D/1 arithmetic: Erlang's waiting-time formula against its known
 *    points (P(W = 0) = 1 - rho) and against a simulated queue (Lindley's
 *    recursion, a million customers).
 * 3. The estimate on exact curves: the crossing found where it is, and a
 *    disturbed run (four times its neighbours) left out of the fit.
 * 4. The search and its interval by simulation: runs of a simulated M/D/1
 *    server (Poisson arrivals, 300 us per request; each run its warm-up and
 *    its measured requests, its p99 the run's own), searched exactly as
 *    `mtebench capacity` searches (mtb_cap_next, mtb_cap_estimate); the
 *    interval must contain the capacity by the definition for runs of that
 *    length (finite_truth) in >= 90% of 400 searches
 *    (the coverage, the runs a search takes and the interval's width are
 *    printed: docs/STATISTICS.md). A server twice as slow: the capacity
 *    overhead's interval (capacity.c's MOVER combination, as the command's)
 *    contains the predicted ratio as often.
 */
#include "analysis/capacity.h"
#include "analysis/stats.h"
#include "tap.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void slo_cases(void)
{
    struct mtb_slo s;
    char why[256];
    ok(mtb_slo_parse("p99:1ms", &s, why, sizeof why) == 0 && s.n == 1 && !strcmp(s.b[0].pct, "p99") &&
           s.b[0].bound_us == 1000 && s.err_max < 0 && !strcmp(s.b[0].text, "p99 <= 1 ms"),
       "p99:1ms");
    ok(mtb_slo_parse("p99:500us,p99.9:2ms,errors:0.1%", &s, why, sizeof why) == 0 && s.n == 2 &&
           s.b[1].bound_us == 2000 && fabs(s.err_max - 0.001) < 1e-12,
       "two bounds and an error rate");
    ok(mtb_slo_parse("p50:0.25s,errors:0.01", &s, why, sizeof why) == 0 && s.b[0].bound_us == 250000 &&
           fabs(s.err_max - 0.01) < 1e-12,
       "seconds, and an error rate as a fraction");
    struct { const char *in, *says; } bad[] = {
        { "", "expected" },           { "p99", "expected PERCENTILE:BOUND" }, { "1ms", "expected" },
        { "p97:1ms", "unknown percentile 'p97'" }, { "p99:-1ms", "positive" }, { "p99:1", "needs a unit" },
        { "p99:fast", "not a number" }, { "errors:5%", "no latency bound" }, { "p99:1ms,p99:2ms", "twice" },
        { "p99:1ms,errors:200%", "error rate" }, { "p99:", "expected" }, { ":1ms", "expected" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = 0;
        int rc = mtb_slo_parse(bad[i].in, &s, why, sizeof why);
        ok(rc == -1 && strstr(why, bad[i].says), "SLO '%s' refused: %s", bad[i].in, why);
    }
}

/* a simulated M/D/1 queue: n customers, response times out (warm customers first, not returned) */
static void md1_run(struct mtb_stats_rng *r, double lambda, double d, size_t warm, size_t n, double *out)
{
    double w = 0;
    for (size_t i = 0; i < warm + n; i++) {
        double a = -log(1 - mtb_stats_rng_uniform(r)) / lambda; /* the next arrival's gap */
        if (i >= warm)
            out[i - warm] = w + d;
        w = w + d - a;
        w = w > 0 ? w : 0;
    }
}

static void md1_cases(void)
{
    double d = 300e-6;
    ok(fabs(mtb_md1_cdf(0.5 / d, d, d) - 0.5) < 1e-12, "P(W = 0) = 1 - rho at rho 0.5");
    ok(mtb_md1_cdf(0.5 / d, d, d / 2) == 0, "no response before one service time");
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 42);
    size_t n = 1000000;
    double *t = malloc(n * sizeof *t);
    for (double rho = 0.5; rho < 0.95; rho += 0.2) {
        md1_run(&r, rho / d, d, 10000, n, t);
        double sim = mtb_stats_quantile(t, n, 0.99), lo = d, hi = 20 / (rho / d); /* within the formula's range */
        for (int i = 0; i < 60; i++) { /* the formula's p99 by bisection */
            double mid = (lo + hi) / 2;
            *(mtb_md1_cdf(rho / d, d, mid) < 0.99 ? &lo : &hi) = mid;
        }
        ok(fabs(sim / lo - 1) < 0.03, "M/D/1 p99 at rho %.1f: formula %.0f us, simulated %.0f us", rho, lo * 1e6,
           sim * 1e6);
    }
    double cap = mtb_md1_capacity(d, 0.99, 3e-3);
    ok(cap > 0.6 / d && cap < 0.9 / d && fabs(mtb_md1_cdf(cap, d, 3e-3) - 0.99) < 1e-6,
       "M/D/1 capacity for p99 <= 3 ms at 300 us: %.0f/s (rho %.3f)", cap, cap * d);
    ok(mtb_md1_capacity(d, 0.99, 2e-4) == 0, "a bound below the service time: no capacity");
    free(t);
}

/* points on an exact curve: ln v = ln 100 + rate / 1000 (us) */
static void estimate_cases(void)
{
    struct mtb_cap_point p[5];
    double rates[5] = { 500, 1000, 1500, 2000, 2500 };
    for (int i = 0; i < 5; i++) {
        p[i].rate = rates[4 - i]; /* any order */
        p[i].n = 3;
        for (int k = 0; k < 3; k++)
            p[i].v[k] = 100 * exp(rates[4 - i] / 1000) * (1 + 0.01 * (k - 1));
    }
    struct mtb_cap_est e;
    double bound = 100 * exp(1.7); /* crossing at 1700 */
    mtb_cap_estimate(p, 5, bound, 0.95, 0, &e);
    ok(e.status == MTB_CAP_FOUND && e.fit && fabs(e.capacity - 1700) < 5 && e.lo < 1700 && e.hi > 1700 &&
           e.rate_pass == 1500 && e.rate_fail == 2000,
       "the crossing of an exact curve: %.1f [%.1f, %.1f] from %d runs", e.capacity, e.lo, e.hi, e.nvalues);
    double keep = p[2].v[0];
    p[2].v[0] *= 4; /* one run the machine disturbed, at the bracket's low end (1500) */
    mtb_cap_estimate(p, 5, bound, 0.95, 0, &e);
    ok(e.status == MTB_CAP_FOUND && e.fit && e.nvalues == 11 && fabs(e.capacity - 1700) < 5,
       "a disturbed run is left out of the fit: %.1f [%.1f, %.1f] from %d runs", e.capacity, e.lo, e.hi, e.nvalues);
    p[2].v[0] = keep;
    mtb_cap_estimate(p, 5, 50, 0.95, 0, &e);
    ok(e.status == MTB_CAP_BELOW && e.rate_fail == 500, "a bound no rate meets: below the lowest");
    mtb_cap_estimate(p, 5, 1e9, 0.95, 0, &e);
    ok(e.status == MTB_CAP_ABOVE && e.rate_pass == 2500, "a bound every rate meets: above the highest");
    p[0].v[0] = p[0].v[1] = p[0].v[2] = INFINITY; /* 2500: the server fell behind */
    p[1].v[0] = p[1].v[1] = INFINITY;              /* 2000 too, its median */
    mtb_cap_estimate(p, 5, bound, 0.95, 0, &e);
    ok(e.status == MTB_CAP_FOUND && !e.fit && e.lo == 1500 && e.hi == 2000,
       "a bracket whose failing end fell behind: the bracket is the interval [%g, %g]", e.lo, e.hi);
}

/* ---- the search, simulated ---------------------------------------------------------------------- */

struct simcfg {
    double d, run_s, warm_s, q, bound_us;
};

/* how a simulated search's pilot reads: share of the server's throughput
 * (0: all of it, with a little noise), and whether the climb past 4 pilots
 * may use what the runs carried */
struct simpilot {
    double share;
    int carried;
};

/* one search on a simulated server: the estimate, *runs the runs it took,
 * rates (16 at most, may be NULL) the rates probed; @return their number */
static int search_on(struct mtb_stats_rng *r, const struct simcfg *c, struct simpilot pl, struct mtb_cap_est *e,
                     int *runs, double *rates)
{
    struct mtb_cap_point pts[16];
    double achieved[16];
    size_t np = 0;
    double *t = malloc(200000 * sizeof *t);
    /* the pilot: the closed-loop throughput of a server busy all the time, with a little noise */
    double pilot = pl.share > 0 ? pl.share / c->d : 1 / c->d * (1 + 0.02 * mtb_stats_rng_normal(r));
    struct mtb_cap_search s = { .sat = pilot, .tol = 0.2, .reps = 3, .max_reps = 4, .max_probes = 10 };
    *runs = 0;
    for (;;) {
        const struct mtb_cap_point *cv[1] = { pts };
        int add;
        s.carried = pl.carried ? mtb_cap_carried(achieved, np) : 0;
        double rate = mtb_cap_next(&s, cv, &np, &c->bound_us, 1, &add);
        if (rate <= 0)
            break;
        size_t i = 0;
        while (i < np && pts[i].rate != rate)
            i++;
        if (i == np) {
            if (np == 16)
                break;
            if (rates)
                rates[np] = rate;
            achieved[np] = rate < 1 / c->d ? rate : 1 / c->d; /* a server carries at most its throughput */
            pts[np].rate = rate;
            pts[np++].n = 0;
        }
        for (int k = 0; k < add && pts[i].n < MTB_CAP_MAXREP; k++) {
            size_t n = (size_t)(rate * c->run_s);
            double v = INFINITY;
            if (rate * c->d < 1 && n > 100 && n < 200000) {
                md1_run(r, rate, c->d, (size_t)(rate * c->warm_s), n, t);
                v = mtb_stats_quantile(t, n, c->q) * 1e6;
            }
            pts[i].v[pts[i].n++] = v;
            (*runs)++;
        }
    }
    mtb_cap_estimate(pts, np, c->bound_us, 0.95, s.sat, e);
    free(t);
    return (int)np;
}

static void sim_search(struct mtb_stats_rng *r, const struct simcfg *c, struct mtb_cap_est *e, int *runs)
{
    search_on(r, c, (struct simpilot){ 0, 0 }, e, runs, NULL);
}

/* The capacity by the definition, for runs of this length: the rate at
 * which the median over many runs of a run's p99 crosses the bound
 * (bisection, 401 simulated runs a rate). A run's p99 is short of the
 * queue's stationary one (a run of 1.5 s rarely holds the queue's longest
 * excursions), so this is above the stationary M/D/1 capacity. */
static double finite_truth(struct mtb_stats_rng *r, const struct simcfg *c)
{
    double lo = 0.5 / c->d, hi = 0.99 / c->d, v[401];
    double *t = malloc(200000 * sizeof *t);
    for (int it = 0; it < 14; it++) {
        double mid = (lo + hi) / 2;
        size_t n = (size_t)(mid * c->run_s);
        for (int k = 0; k < 401; k++) {
            md1_run(r, mid, c->d, (size_t)(mid * c->warm_s), n, t);
            v[k] = mtb_stats_quantile(t, n, c->q) * 1e6;
        }
        *(mtb_stats_median(v, 401) <= c->bound_us ? &lo : &hi) = mid;
    }
    free(t);
    return (lo + hi) / 2;
}

static void coverage(void)
{
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 7);
    struct simcfg fast = { .d = 300e-6, .run_s = 1.5, .warm_s = 0.5, .q = 0.99, .bound_us = 3000 };
    struct simcfg slow = fast;
    slow.d = 600e-6;
    slow.bound_us = 6000; /* the same multiple of its service time: half the capacity */
    double md1_f = mtb_md1_capacity(fast.d, 0.99, 3e-3), md1_s = mtb_md1_capacity(slow.d, 0.99, 6e-3);
    double truth_f = finite_truth(&r, &fast), truth_s = finite_truth(&r, &slow);
    diag("M/D/1 capacity %.0f and %.0f/s; for runs of %g s, %.0f and %.0f/s", md1_f, md1_s, fast.run_s, truth_f, truth_s);
    int trials = 400, cov = 0, cov_md1 = 0, cov_ratio = 0, fits = 0, runs_total = 0, found = 0;
    double width = 0, bias = 0, sq = 0;
    for (int i = 0; i < trials; i++) {
        struct mtb_cap_est a, b;
        int ra, rb;
        sim_search(&r, &fast, &a, &ra);
        sim_search(&r, &slow, &b, &rb);
        runs_total += ra + rb;
        if (a.status != MTB_CAP_FOUND || b.status != MTB_CAP_FOUND)
            continue;
        found++;
        fits += a.fit;
        cov += a.lo <= truth_f && truth_f <= a.hi;
        cov_md1 += a.lo <= md1_f && md1_f <= a.hi;
        width += (a.hi - a.lo) / a.capacity;
        bias += a.capacity / truth_f / trials;
        sq += (a.capacity / truth_f - 1) * (a.capacity / truth_f - 1) / trials;
        /* the capacity overhead: MOVER on the log scale, as the command combines the two intervals */
        double lr = log(a.capacity / b.capacity);
        double lo = lr - hypot(log(a.capacity / a.lo), log(b.hi / b.capacity));
        double hi = lr + hypot(log(a.hi / a.capacity), log(b.capacity / b.lo));
        cov_ratio += lo <= log(truth_f / truth_s) && log(truth_f / truth_s) <= hi;
    }
    diag("M/D/1 at 300 us, p99 <= 3 ms: capacity %.0f/s (rho %.3f); %d searches, %d found, %d by the fit", truth_f,
         truth_f * fast.d, trials, found, fits);
    diag("coverage %.1f%%, mean width %.1f%% of the estimate, %.1f runs per search; the overhead's interval "
         "(600 us against 300 us, predicted %.3fx) covers %.1f%%",
         100.0 * cov / found, 100 * width / found, runs_total / (2.0 * trials), truth_f / truth_s,
         100.0 * cov_ratio / found);
    diag("the estimate against the definition's capacity: mean %.4f, root mean square error %.2f%%; the interval "
         "contains the stationary M/D/1 capacity in %.1f%%", bias, 100 * sqrt(sq), 100.0 * cov_md1 / found);
    ok(found == trials, "every search found a bracket");
    ok(cov >= 0.90 * found, "the interval contains the M/D/1 capacity in >= 90%% of searches (%.1f%%)",
       100.0 * cov / found);
    ok(cov_ratio >= 0.90 * found, "the overhead's interval contains the predicted ratio in >= 90%% (%.1f%%)",
       100.0 * cov_ratio / found);
    ok(runs_total <= trials * 2 * 25, "a search takes at most 25 runs on average (%.1f)",
       runs_total / (2.0 * trials));
}

/* A pilot the machine disturbed, reading 22% of the server's throughput
 * (as a loaded 2-core CI machine once did): capped at 4 pilots the search
 * stops below the capacity ("above"); climbing on past them while the runs
 * carry their rates (mtb_cap_carried) it finds it. */
static void disturbed_pilot(void)
{
    double a[] = { 100, NAN, 900, 400 };
    ok(mtb_cap_carried(a, 4) == 900 && mtb_cap_carried(NULL, 0) == 0, "the most a run carried");
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 11);
    struct simcfg c = { .d = 300e-6, .run_s = 1.5, .warm_s = 0.5, .q = 0.99, .bound_us = 20000 };
    struct mtb_cap_est e0, e1;
    double r0[16], r1[16];
    int runs;
    search_on(&r, &c, (struct simpilot){ 0.22, 0 }, &e0, &runs, r0);
    int np = search_on(&r, &c, (struct simpilot){ 0.22, 1 }, &e1, &runs, r1);
    ok(e0.status == MTB_CAP_ABOVE && e1.status == MTB_CAP_FOUND && e1.lo > 0.8 / c.d && e1.lo < 1 / c.d &&
           e1.capacity < 1.2 / c.d,
       "a pilot at 22%% of the throughput: \"above\" at 4 pilots alone; found climbing past them, %.0f/s "
       "[%.0f, %.0f] (the server's throughput %.0f/s; %d rates)", e1.capacity, e1.lo, e1.hi, 1 / c.d, np);
    /* a pilot at half the throughput, the capacity within 4 of it: the same rates, climb or not (the
     * runs' noise drawn alike) */
    struct mtb_stats_rng ra, rb;
    mtb_stats_rng_seed(&ra, 5);
    mtb_stats_rng_seed(&rb, 5);
    int na = search_on(&ra, &c, (struct simpilot){ 0.5, 0 }, &e0, &runs, r0);
    int nb = search_on(&rb, &c, (struct simpilot){ 0.5, 1 }, &e1, &runs, r1);
    ok(na == nb && na > 6 && !memcmp(r0, r1, (size_t)na * sizeof *r0) && e0.capacity == e1.capacity &&
           e0.status == MTB_CAP_FOUND,
       "a pilot at half the throughput: the same %d rates with the climb as without it, up to %.0f/s", na,
       r0[na - 1]);
}

int main(void)
{
    slo_cases();
    md1_cases();
    estimate_cases();
    coverage();
    disturbed_pilot();
    return done_testing();
}
