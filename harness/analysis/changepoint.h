/* changepoint.h - change points in a performance history, and whether they
 * are regressions.
 *
 * A series is a time-ordered list of points (one per run, or per pair of
 * runs for an overhead ratio), grouped into nights: a change can only happen
 * between two nights, so candidate change points are the night boundaries.
 *
 * Method, in the manner of Apache Otava (formerly Hunter):
 *   1. Binary segmentation. In a segment, the boundary that maximises the
 *      E-Divisive means statistic (Matteson & James 2014, energy distance with
 *      alpha = 1: robust to outliers and heavy tails) is the candidate. It is
 *      accepted when a Welch t-test of the runs either side of it, within a
 *      window of W nights each way, gives p < threshold (Otava replaces
 *      E-Divisive's permutation test by this t-test). Accepted splits are
 *      searched again on both sides.
 *   2. The newest night is also tested on its own against the window before
 *      it, so a regression in last night's runs is not missed at the edge.
 *   3. Each change point is then judged: a two-sided Mann-Whitney U test of
 *      the runs after it (up to W nights, up to the next change) against the
 *      runs before it (up to W nights, from the previous change), and the
 *      relative change of the medians with a 95% percentile-bootstrap CI.
 *      It is a regression only if both p values are below the threshold, the
 *      change goes the bad way for the metric, and its size is at least
 *      min_change. The windows end at the neighbouring change points whose
 *      size is at least min_change (a first judgement against every
 *      neighbour tells which): a smaller step beside a big one does not
 *      shrink the big one's windows.
 *
 * Functions return 0 or a negative errno value and never abort.
 */
#ifndef MTB_CHANGEPOINT_H
#define MTB_CHANGEPOINT_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/stats.h"

/* Which direction is good for a metric: throughput up, latency or overhead down. */
enum mtb_cp_better { MTB_CP_HIGHER = 1, MTB_CP_LOWER = -1 };

struct mtb_cp_opts {
    double threshold;  /* p below which a change is significant (default 0.001) */
    double min_change; /* smallest relative change reported as a regression (default 0.02) */
    size_t min_points; /* smallest segment, in points (default 3; at least 2) */
    size_t window;     /* nights compared on either side of a change (default 20) */
    size_t max_cps;    /* at most this many change points per series (default 16) */
    unsigned boot;     /* bootstrap resamples for the CI of the change (default 1000) */
    uint64_t seed;     /* bootstrap seed (results are deterministic) */
};

/** mtb_cp_defaults - fill o with the defaults above. */
void mtb_cp_defaults(struct mtb_cp_opts *o);

struct mtb_cp {
    size_t index;            /* first point after the change */
    int group;               /* the night (group id) of that point */
    int from_newest;         /* found by the newest-night test (step 2), not by segmentation */
    size_t n_before, n_after; /* points in the compared windows */
    double before, after;    /* medians of the windows */
    double change;           /* after / before - 1 */
    struct mtb_stats_ci ci;      /* 95% CI of change (est = change) */
    double p_split;          /* Welch t-test p of the split */
    double p_mwu;            /* Mann-Whitney U p, after vs before */
    int significant;         /* p_split and p_mwu below the threshold */
    int regression;          /* significant, bad direction, |change| >= min_change */
    int improvement;         /* significant, good direction, |change| >= min_change */
};

/**
 * mtb_cp_detect - change points of a series.
 * @param x       n finite values in time order
 * @param group   n non-decreasing night ids (candidate changes are where it
 *                changes); NULL: every point is its own night
 * @param better  the good direction of the metric
 * @param o       options (NULL: defaults)
 * @param out     receives a heap array of change points sorted by index
 *                (free() it; NULL when none)
 * @param nout    receives their number
 * @return 0; -EINVAL (NULL x, n == 0, a non-finite value, decreasing groups,
 *         bad options); -ENOMEM
 */
int mtb_cp_detect(const double *x, const int *group, size_t n, enum mtb_cp_better better,
                  const struct mtb_cp_opts *o, struct mtb_cp **out, size_t *nout);

/**
 * mtb_cp_edivisive - the E-Divisive means statistic (alpha = 1) of every
 * split of x[0..n): q[k] for the split into x[0..k) and x[k..n), for
 * 2 <= k <= n-2 (other entries are set to 0).
 * q(k) = k(n-k)/n * (2/(k(n-k)) S_xy - 2/(k(k-1)) S_xx - 2/((n-k)(n-k-1)) S_yy)
 * with S the sums of |a - b| across and within the two parts. O(n^2).
 * @return 0, -EINVAL, -ENOMEM
 */
int mtb_cp_edivisive(const double *x, size_t n, double *q);

/**
 * mtb_cp_welch - two-sided Welch t-test of two samples.
 * @param p  receives the p-value (1 if both samples are constant and equal,
 *           0 if constant and different)
 * @return 0; -EINVAL if a sample has fewer than 2 values
 */
int mtb_cp_welch(const double *a, size_t na, const double *b, size_t nb, double *p);

#endif
