/* workcp.h - changes in a series of counts: MTE's work per request (core/
 * work.h's quantities), one counted run or more a night (docs/NIGHTLY.md).
 *
 * Timings need a significance test over many runs a night; counts of the
 * guest's real instruction stream move only with what the service does
 * beside its requests (batching, background threads), and how much that is
 * is measured from the nights themselves, never assumed:
 *   - each night's value is the median of its runs' (points grouped by g);
 *   - a segment is the nights since the series began or since its last
 *     change; night i is judged against the last `window` nights of its
 *     segment, once there are at least MTB_WORKCP_MIN_NIGHTS of them: their
 *     mean m and standard deviation s (m nights: m - 1 degrees of freedom);
 *   - night i is a change when it lies outside their prediction interval
 *     at level 1 - alpha: |v_i - m| > q * s * sqrt(1 + 1/nights), q
 *     Student's t quantile (two-sided alpha, nights - 1 df: 636 with 2
 *     nights at alpha 0.001, 31.6 with 3, 8.6 with 5, 3.9 with 20), and
 *     also more than MTB_WORKCP_FLOOR and min_change * |m|; its night
 *     starts the next segment. A change is seen the night it comes; with
 *     few nights only a large one (tcma1 -> stock: 25 -> 2900 EL1 Tag
 *     Checked accesses a request, s 0.4 over two nights).
 * MTB_WORKCP_FLOOR (half an event per request) keeps a series whose nights
 * were identical (s 0) from calling a one-off event a change. For noise
 * like a normal distribution's, alpha is the false alarms' rate per judged
 * night. Measured here (docs/COUNTING.md): memcached's EL1 counts on the
 * service's vCPU vary 1.5-4.5% run to run, its EL0 ones 15-50% (its
 * background threads share the vCPU). */
#ifndef MTB_WORKCP_H
#define MTB_WORKCP_H
#include <stddef.h>

#define MTB_WORKCP_MIN_NIGHTS 2
#define MTB_WORKCP_FLOOR 0.5

struct mtb_workcp {
    size_t index;       /* the first point of the night of the change */
    double before;      /* m: the mean of the nights judged against */
    double after;       /* the night's value */
    double sd;          /* s: their standard deviation */
    double threshold;   /* what |after - before| exceeded */
    size_t n_before;    /* nights judged against */
};

/* y: n points in time order, g: their night (non-decreasing); alpha the
 * false alarms' rate (the nightly's --threshold). *out (free() it) receives
 * the changes, *nout how many. @return 0, or -EINVAL (n > 0 with y or g
 * NULL, window 0, alpha outside (0, 1)), -ENOMEM. */
int mtb_workcp_detect(const double *y, const int *g, size_t n, double alpha, double min_change, size_t window,
                      struct mtb_workcp **out, size_t *nout);
#endif
