/* pinpoint.h - the decision rule of a bisection under noise, after Chromium's
 * Pinpoint: two samples are DIFFERENT when p = min(Mann-Whitney, two-sample
 * Kolmogorov-Smirnov) <= 0.01, SAME when p is above a high threshold that
 * depends on the effect sought (in IQRs) and the sample count, else UNKNOWN
 * (more repetitions). The high thresholds are ours: the 99th percentile of p
 * when the effect is really there, found by simulation (seeded, memoised), so
 * SAME wrongly hides a change of that size at most about 1% of the time.
 * Pure computation: no I/O. docs/BISECT.md. */
#ifndef MTB_PINPOINT_H
#define MTB_PINPOINT_H

#include <stddef.h>

#define PP_LOW_THRESHOLD 0.01
/* the exact KS distribution is counted up to this many values in all */
#define PP_KS_EXACT_MAX 400

enum mtb_pinpoint_verdict { PP_SAME, PP_DIFFERENT, PP_UNKNOWN };

/**
 * mtb_pinpoint_ks2 - two-sample two-sided Kolmogorov-Smirnov test.
 * D = max |F_x - F_y| over the pooled values (ties stepped together). p is
 * exact (lattice paths from (0,0) to (nx,ny) that stay within D, counted)
 * when nx + ny <= PP_KS_EXACT_MAX, else the asymptotic Kolmogorov series with
 * Stephens' correction.
 * @return 0, -EINVAL (an empty sample), -ENOMEM
 */
int mtb_pinpoint_ks2(const double *x, size_t nx, const double *y, size_t ny, double *d_out, double *p_out);

/** @return the asymptotic Kolmogorov tail Q(lambda) = 2 sum (-1)^(k-1) e^(-2 k^2 lambda^2) */
double mtb_pinpoint_kolmogorov_q(double lambda);

/**
 * mtb_pinpoint_high_threshold - p above which two samples of n values each are called
 * SAME when an effect of `magnitude` IQRs is sought: the 99th percentile of
 * min(MWU, KS) over simulated normal samples shifted by that effect. Falls
 * with n and with the magnitude. Magnitude clipped to [0.1, 4], rounded to a
 * tenth; n clipped to [2, 200].
 */
double mtb_pinpoint_high_threshold(double magnitude, size_t n);

struct mtb_pinpoint_cmp {
    double p_mwu, p_ks, p; /* p = min of the two */
    double high;           /* the high threshold used */
    double magnitude;      /* the effect sought, in IQRs */
    size_t n;              /* the smaller sample */
    enum mtb_pinpoint_verdict v;
};

/**
 * mtb_pinpoint_compare - Pinpoint's compare of samples a and b when an effect of
 * `magnitude` IQRs is sought.
 * @return 0, -EINVAL, -ENOMEM
 */
int mtb_pinpoint_compare(const double *a, size_t na, const double *b, size_t nb, double magnitude, struct mtb_pinpoint_cmp *out);

/** @return the verdict's word: "same", "different", "unknown" */
const char *mtb_pinpoint_verdict_name(enum mtb_pinpoint_verdict v);

/** @return the IQR of x (type-7 quantiles); NaN when n < 2 */
double mtb_pinpoint_iqr(const double *x, size_t n);
#endif
