/* test_lathist.c - known answers for harness/analysis/lathist.c: a
 * histogram's percentiles, its percentile spectrum (HdrHistogram's
 * 1/(1-p) steps), and the histograms of runs merged. TAP. */
#include <math.h>
#include <stdlib.h>

#include "analysis/lathist.h"
#include "tap.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

static void test_histogram(void)
{
    double v[] = { 10, 20, 30, 40 }, c[] = { 1, 1, 1, 1 };
    /* 4 samples: p50 -> 2nd sample (20), p75 -> 3rd (30), p0 -> 1st, p100 -> max;
     * p = 0.26 -> ceil(1.04) = 2nd sample */
    ok(mtb_hist_percentile(v, c, 4, 0.5) == 20 && mtb_hist_percentile(v, c, 4, 0.75) == 30 &&
       mtb_hist_percentile(v, c, 4, 0) == 10 && mtb_hist_percentile(v, c, 4, 1) == 40 &&
       mtb_hist_percentile(v, c, 4, 0.26) == 20, "histogram percentiles by hand");
    ok(isnan(mtb_hist_percentile(v, c, 0, 0.5)) && isnan(mtb_hist_percentile(v, c, 4, 1.5)),
       "empty histogram or bad p -> NaN");

    /* spectrum of 4 samples: p = 1 - 2^(-k/5) while 1/(1-p) = 2^(k/5) <= 4,
     * i.e. k = 0..10 (11 points), then the maximum at p = 1 - 1/4 */
    double pct[64], val[64];
    size_t m = mtb_hist_spectrum(v, c, 4, pct, val, 64);
    ok(m == 12, "spectrum of 4 samples has 11 + 1 points (got %zu)", m);
    ok(pct[0] == 0 && val[0] == 10 && near(pct[5], 0.5, 1e-12) && val[5] == 20, "spectrum starts at p0, p50 = 20");
    ok(near(pct[10], 0.75, 1e-12) && val[10] == 30 && near(pct[11], 0.75, 1e-12) && val[11] == 40,
       "spectrum: p75 = 30, then the maximum 40");

    json_t *h = json_loads("[[[10,1],[20,2]], [[20,3],[5,1]], []]", 0, NULL);
    double *mv, *mc;
    size_t n = mtb_hist_merge(h, &mv, &mc);
    ok(n == 3 && mv[0] == 5 && mc[0] == 1 && mv[1] == 10 && mc[1] == 1 && mv[2] == 20 && mc[2] == 5,
       "histograms of runs merged per value, sorted");
    free(mv);
    free(mc);
    json_decref(h);
}

int main(void)
{
    test_histogram();
    return done_testing();
}
