/* test_stats_pairs.c - known answers for harness/analysis/stats_pairs.c:
 * the t quantile and interval, the signed-rank interval and its exact
 * level, the medcouple, and the overhead interval chosen by the pairs'
 * shape (t, signed-rank, order statistics). TAP. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/stats.h"
#include "tap.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* The overhead interval by the pairs' shape (stats_pairs.c): known answers. */
static void test_pair_cis(void)
{
    struct mtb_stats_ci ci;
    double ach = 0;
    ok(near(mtb_stats_t_quantile(0.05, 9), 2.262157, 1e-5) && near(mtb_stats_t_quantile(0.05, 1), 12.7062, 1e-3) &&
       near(mtb_stats_t_quantile(0.0125, 9), 3.1109, 1e-3),
       "t quantiles: t(9) 2.262157, t(1) 12.7062 at 95%%, t(9) 3.1109 at 98.75%%");
    double five[] = {1, 2, 3, 4, 5};
    ok(mtb_stats_t_ci(five, 5, 0.95, &ci) == 0 && near(ci.est, 3, 1e-12) &&
       near(ci.lo, 3 - 2.776445 * sqrt(2.5 / 5), 1e-5) && near(ci.hi, 3 + 2.776445 * sqrt(2.5 / 5), 1e-5),
       "t-interval of 1..5: 3 +- 2.776445 * sd/sqrt(5)");
    double ten[] = {7, 3, 9, 1, 5, 10, 2, 8, 4, 6};
    /* n = 10: P(T+ <= 8) = 25/1024, so 95% is [W_(9), W_(47)] of the 55 Walsh averages */
    ok(mtb_stats_signedrank_ci(ten, 10, 0.95, &ci, &ach) == 0 && ci.est == 5.5 && ci.lo == 3.0 && ci.hi == 8.0 &&
       near(ach, 1 - 2 * 25.0 / 1024, 1e-12),
       "signed-rank of 1..10 at 95%%: HL 5.5, [3, 8], exact level 1 - 50/1024");
    /* at 98.75% (4 looks): P(T+ <= 3) = 5/1024 -> [W_(4), W_(52)] */
    ok(mtb_stats_signedrank_ci(ten, 10, 0.9875, &ci, &ach) == 0 && ci.lo == 2.0 && ci.hi == 9.0 &&
       near(ach, 1 - 10.0 / 1024, 1e-12), "signed-rank of 1..10 at 98.75%%: [2, 9], level 1 - 10/1024");
    ok(mtb_stats_signedrank_ci(ten, 5, 0.95, &ci, &ach) == 0 && ci.lo == 1 && ci.hi == 9 && near(ach, 1 - 2.0 / 32, 1e-12),
       "5 values cannot reach 95%%: [min, max], level 1 - 2/32");
    double skew5[] = {1, 2, 3, 4, 10}, skew6[] = {1, 2, 3, 4, 10, 12};
    ok(mtb_stats_medcouple(five, 5) == 0 && mtb_stats_medcouple(skew5, 5) == 0 &&
       near(mtb_stats_medcouple(skew6, 6), 6.0 / 11, 1e-12), "medcouple: 0 for 1..5 and {1,2,3,4,10}, 6/11 for {1,2,3,4,10,12}");

    /* the choice: normal-looking pairs get the t-interval, one wild pair the
     * signed-rank, a skewed set order statistics, 4 or 5 pairs the t-interval unchecked, fewer order statistics */
    double num[12], den[12];
    struct mtb_stats_shape sh;
    const double z12[] = {-1.6, -1.1, -0.8, -0.5, -0.3, -0.1, 0.1, 0.3, 0.5, 0.8, 1.1, 1.6};
    for (int i = 0; i < 12; i++) {
        den[i] = 1000;
        num[i] = 1000 * 1.3 * exp(0.05 * z12[i]);
    }
    ok(mtb_stats_pair_ci(num, den, 12, 0.95, &ci, &ach, &sh) == 0 && sh.method == STATS_PAIR_T && near(ci.est, 1.3, 1e-9) &&
       ach == 0.95, "normal-looking log ratios: t-interval, estimate the geometric mean 1.3");
    double tw = mtb_stats_rel_halfwidth(&ci);
    num[11] = 1000 * 1.3 * exp(0.05 * 9);
    ok(mtb_stats_pair_ci(num, den, 12, 0.95, &ci, &ach, &sh) == 0 && sh.method == STATS_PAIR_SIGNEDRANK &&
       sh.outliers == 1 && ci.lo < 1.3 && 1.3 < ci.hi, "one pair 9 SD away: signed-rank (HL %.4f)", ci.est);
    const double sk[] = {0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.5, 1.0, 1.5, 2.0, 2.5};
    for (int i = 0; i < 12; i++)
        num[i] = 1000 * exp(sk[i]);
    ok(mtb_stats_pair_ci(num, den, 12, 0.95, &ci, &ach, &sh) == 0 && sh.method == STATS_PAIR_SIGN &&
       fabs(sh.medcouple) > sh.mc_limit && near(ci.est, exp(0.05) / 2 + exp(0.06) / 2, 1e-12),
       "skewed log ratios (a long upper tail): order statistics, the median ratio");
    ok(mtb_stats_pair_ci(num, den, 5, 0.95, &ci, &ach, &sh) == 0 && sh.method == STATS_PAIR_T && ci.lo < ci.est &&
       ci.est < ci.hi, "5 pairs: too few to check the shape, the t-interval (REPS=auto's first look)");
    ok(mtb_stats_pair_ci(num, den, 3, 0.95, &ci, &ach, &sh) == 0 && sh.method == STATS_PAIR_SIGN, "3 pairs: order statistics");
    double r12[12];
    for (int i = 0; i < 12; i++)
        r12[i] = 1.3 * exp(0.05 * z12[i]);
    mtb_stats_median_ci(r12, 12, 0.95, &ci, NULL);
    ok(tw < mtb_stats_rel_halfwidth(&ci), "on the normal-looking pairs the t-interval is narrower (+-%.2f%%) than the "
       "order statistics' (+-%.2f%%)", 100 * tw, 100 * mtb_stats_rel_halfwidth(&ci));
    ok(mtb_stats_pair_ci(num, den, 0, 0.95, &ci, &ach, &sh) == -EINVAL && mtb_stats_signedrank_ci(five, 0, 0.95, &ci, NULL) == -EINVAL,
       "no pairs: -EINVAL");
    den[0] = 0;
    ok(mtb_stats_pair_ci(num, den, 3, 0.95, &ci, &ach, &sh) == -EDOM, "a zero denominator: -EDOM");
}

int main(void)
{
    test_pair_cis();
    return done_testing();
}
