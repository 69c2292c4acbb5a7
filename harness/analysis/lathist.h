/* lathist.h - the latency histograms of run records (mtload's "histogram":
 * [[value_us, count], ...]): percentiles, the percentile spectrum, and the
 * histograms of several runs merged. Used by the report's plots. */
#ifndef MTB_LATHIST_H
#define MTB_LATHIST_H
#include <jansson.h>
#include <stddef.h>

/**
 * mtb_hist_percentile - a percentile of a latency histogram.
 * @param val, cnt  n buckets: value (sorted ascending) and count
 * @param p         probability in [0, 1]
 * @return the smallest bucket value v whose cumulative count reaches
 *         max(1, ceil(p * total)); NaN for an empty histogram or bad p
 */
double mtb_hist_percentile(const double *val, const double *cnt, size_t n, double p);

/**
 * mtb_hist_spectrum - percentile spectrum as HdrHistogram plots it: points at
 * p = 1 - 2^(-k/5), k = 0, 1, ..., while 1/(1-p) does not exceed the sample
 * count, then the maximum at p = 1 - 1/total.
 * @param val, cnt  n buckets (values ascending)
 * @param pct       receives up to max percentiles (0..1)
 * @param v         receives the values at them
 * @return the number of points written (0 for an empty histogram)
 */
size_t mtb_hist_spectrum(const double *val, const double *cnt, size_t n, double *pct, double *v, size_t max);

/**
 * mtb_hist_merge - the histograms (mtload "histogram": [[value_us, count],
 * ...]) of several runs summed per value, sorted by value.
 * @param hists  array of histogram arrays
 * @param val, cnt  receive heap arrays (free() them)
 * @return the number of buckets, 0 if none
 */
size_t mtb_hist_merge(json_t *hists, double **val, double **cnt);
#endif
