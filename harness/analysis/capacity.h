/* capacity.h - capacity at an SLO: the offered rate at which a latency
 * percentile (CO-corrected, the median over the runs repeated at that rate)
 * crosses its bound, found by probing rates in open loop.
 *
 * An SLO is one or more bounds ("p99:1ms,p99.9:5ms") and optionally an
 * error-rate bound ("errors:0.1%"); every bound is answered from the same
 * runs. A run counts as missing a bound when its achieved rate is below 99%
 * of the offered one or its error rate is above the error bound, whatever
 * its latency (its value is then +inf).
 *
 * The estimate (mtb_cap_estimate): the probed rates of one configuration
 * and one bound, sorted; the bracket is the last rate whose median meets the
 * bound before the first whose median misses it. ln(value) is fitted against
 * -ln(1 - rate / sat) (sat: the pilot's closed-loop throughput, so that a
 * queue's percentile, ~ 1 / (1 - utilisation), is a line) by least squares
 * over the runs of the probed rates around the bracket (its two ends and the
 * nearest rate beyond each, within a factor 2), and the capacity
 * is where the line crosses ln(bound), with Fieller's interval for that
 * crossing at the t quantile of the fit's residual degrees of freedom. When
 * the fit is not usable (too few finite values, a slope that does not rise,
 * or an unbounded Fieller set) the interval is the bracket itself.
 * docs/STATISTICS.md ("Capacity at an SLO") gives the coverage measured by
 * simulation (tests/unit/test_capacity.c). Pure functions: no I/O. */
#ifndef MTB_CAPACITY_H
#define MTB_CAPACITY_H
#include <stddef.h>

#define MTB_SLO_MAX 8
#define MTB_CAP_MAXREP 16
/* the open-loop runs a search typically takes a configuration after its pilot
 * (test_capacity.c's simulated searches: 10.9 on average) */
#define MTB_CAP_TYPICAL_PROBES 11

struct mtb_slo_bound {
    char pct[8];     /* the percentile's key in a record's load.latency_us ("p99", "p99.9") */
    double bound_us; /* > 0 */
    char text[48];   /* "p99 <= 1 ms" */
};

struct mtb_slo {
    struct mtb_slo_bound b[MTB_SLO_MAX];
    int n;           /* latency bounds, >= 1 */
    double err_max;  /* the error-rate bound as a fraction; < 0: none */
    char text[256];  /* as given */
};

/* Parse "p99:1ms[,p99.9:5ms][,errors:0.1%]" (percentiles p50, p90, p99,
 * p99.9, p99.99; bounds with a unit: us, ms or s; an error rate as a percent
 * or a fraction). @return 0, or -1 with a message naming what is wrong. */
int mtb_slo_parse(const char *text, struct mtb_slo *slo, char *why, size_t n);

/* One probed rate of one configuration for one bound: each repeat's value
 * (the percentile in us; INFINITY for a run that missed the rate or the
 * error bound). */
struct mtb_cap_point {
    double rate;
    int n;
    double v[MTB_CAP_MAXREP];
};

/* The median of a point's values (+inf counts as the largest). */
double mtb_cap_median(const struct mtb_cap_point *p);

enum mtb_cap_status {
    MTB_CAP_FOUND,   /* a rate that meets the bound below one that misses it */
    MTB_CAP_BELOW,   /* no probed rate meets it: the capacity is below the lowest */
    MTB_CAP_ABOVE,   /* every probed rate meets it: the capacity is above the highest */
    MTB_CAP_NONE     /* no point */
};

struct mtb_cap_est {
    enum mtb_cap_status status;
    double capacity, lo, hi;     /* requests/s; FOUND: the estimate and its interval */
    double rate_pass, rate_fail; /* the bracket (0 where there is none) */
    int fit;                     /* 1: Fieller's interval from the fit; 0: the bracket */
    int nvalues;                 /* runs in the fit */
};

/* The estimate for one bound from n points (any order). conf: e.g. 0.95;
 * sat: the configuration's closed-loop throughput (0: unknown), which
 * straightens the curve (see the top). */
void mtb_cap_estimate(const struct mtb_cap_point *pts, size_t n, double bound_us, double conf, double sat,
                      struct mtb_cap_est *e);

/* The search's settings. */
struct mtb_cap_search {
    double sat;        /* the pilot's closed-loop throughput (the highest of the configurations) */
    double carried;    /* the most an open-loop run of the curve carried (mtb_cap_carried; 0: not known). A pilot
                        * the machine's other work disturbed reads low (a loaded 2-core CI machine once read 22%
                        * of the service's throughput, and the climb above, capped at 4 pilots, ended "above"):
                        * past 4 sat the climb goes on while the runs carry their rates (see mtb_cap_next) */
    double tol;        /* a bracket narrower than this (0.2: 20% of its low end) needs no more rates */
    int reps;          /* runs per configuration at a new rate */
    int max_reps;      /* at most this many at a bracket's end whose runs fall on both sides */
    size_t max_probes; /* distinct rates at most */
};

/* The most an open-loop run carried: the highest of achieved (each probed
 * rate's median achieved rate, n of them; NaN: none), 0 when none. */
double mtb_cap_carried(const double *achieved, size_t n);

/* The next step of the search over every curve (a configuration and a
 * bound: its points and its bound): a new rate (*add = reps) or more runs at
 * a probed one (*add = 1). The first rates are 0.3, 0.6 and 0.9 of sat; then
 * the widest bracket is split where its medians' log-linear interpolation
 * crosses the bound (kept within its middle 60%), until every bracket is
 * within tol; a curve that meets its bound at every rate gets a rate above
 * its highest (x1.3, up to 4 sat; past it, on while the runs carried the
 * rates offered, until a rate misses or max_probes), one that meets it at none a rate below its
 * lowest (down to sat / 100); then the bracket ends whose runs fall on both
 * sides of the bound get more runs, up to max_reps. @return the rate, or 0
 * when the search is done. */
double mtb_cap_next(const struct mtb_cap_search *s, const struct mtb_cap_point *const *curves, const size_t *npts,
                    const double *bounds, size_t ncurves, int *add);

/* M/D/1 (Poisson arrivals at lambda, a fixed service time d, one server,
 * first come first served): P(response time <= t), from Erlang's formula
 * for the waiting time (exact; in long double, NaN when lambda * t > 20, beyond its digits). */
double mtb_md1_cdf(double lambda, double d, double t);
/* The arrival rate at which the M/D/1 q-quantile of the response time
 * equals bound (bisection on the utilisation); 0 if bound <= d. */
double mtb_md1_capacity(double d, double q, double bound);
#endif
