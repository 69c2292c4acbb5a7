/* test_workcp.c - the work series' rule (workcp.c): a change in counts per
 * request is seen the night it comes, outside the prediction interval of
 * the nights before it; a series noisy like memcached's EL0 counts (15-50%
 * run to run, measured) gives few false alarms; steps of one STG a request
 * on a series that was 0, and of the kernel's Tag Checked accesses (25 ->
 * 2900, tcma1 -> stock, measured), are found at their night. */
#include "analysis/workcp.h"
#include "analysis/stats.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int g1[64];

static void nights(int n)
{
    for (int i = 0; i < n; i++)
        g1[i] = i + 1;
}

int main(void)
{
    struct mtb_workcp *c = NULL;
    size_t n = 0;
    nights(64);

    double stg[] = { 0, 0, 1.0, 1.0 };
    int rc = mtb_workcp_detect(stg, g1, 4, 0.001, 0.02, 20, &c, &n);
    ok(rc == 0 && n == 1 && c[0].index == 2 && c[0].before == 0 && c[0].after == 1.0 &&
       c[0].threshold == MTB_WORKCP_FLOOR,
       "one STG a request more on a series at 0: a change at night 3, the night it came (the floor, %.1f)",
       MTB_WORKCP_FLOOR);
    free(c);

    double el1[] = { 25.3, 25.9, 2902.1 };
    ok(mtb_workcp_detect(el1, g1, 3, 0.001, 0.02, 20, &c, &n) == 0 && n == 1 && c[0].index == 2 && c[0].n_before == 2,
       "EL1 Tag Checked 25 -> 2900 a request (tcma1 -> stock): a change at night 3");
    free(c);

    double two[] = { 25.3, 2902.1 };
    ok(mtb_workcp_detect(two, g1, 2, 0.001, 0.02, 20, &c, &n) == 0 && n == 0,
       "one night before: no noise measured, nothing judged");
    free(c);

    /* several runs a night: the night's median */
    double runs[] = { 10, 10.2, 9.9, 10.1, 10, 30, 10, 13, 13.1 };
    int gr[] = { 1, 1, 1, 2, 2, 2, 3, 4, 4 };
    ok(mtb_workcp_detect(runs, gr, 9, 0.001, 0.02, 20, &c, &n) == 0 && n == 1 && c[0].index == 7,
       "runs grouped by night, each night its median: the outlier run of night 2 moves nothing, night 4 (+30%%) "
       "is a change");
    free(c);

    /* noise like memcached's EL0 counts: 30% (sd) run to run, lognormal; no step */
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 11);
    int alarms = 0, series = 200;
    double y[30];
    for (int s = 0; s < series; s++) {
        for (int i = 0; i < 30; i++)
            y[i] = 5000 * exp(0.3 * mtb_stats_rng_normal(&r));
        if (mtb_workcp_detect(y, g1, 30, 0.001, 0.02, 20, &c, &n) == 0)
            alarms += n > 0;
        free(c);
    }
    /* alpha 0.001 over 28 judged nights would give 2.8% of series under
     * normal noise; the lognormal's long upper tail gives more */
    ok(alarms * 100 <= 15 * series, "30%% lognormal noise, no step, 30 nights: a false change in %d of %d series "
       "(at most 15%%)", alarms, series);

    /* ... and a doubling in it is still seen */
    int found = 0;
    for (int s = 0; s < series; s++) {
        for (int i = 0; i < 30; i++)
            y[i] = 5000 * exp(0.3 * mtb_stats_rng_normal(&r)) * (i >= 25 ? 3 : 1);
        if (mtb_workcp_detect(y, g1, 30, 0.001, 0.02, 20, &c, &n) == 0)
            for (size_t k = 0; k < n; k++)
                found += c[k].index == 25;
        free(c);
    }
    ok(found * 2 >= series, "... a tripling at night 26 found there in %d of %d series", found, series);

    ok(mtb_workcp_detect(NULL, g1, 3, 0.001, 0.02, 20, &c, &n) == -EINVAL &&
       mtb_workcp_detect(el1, g1, 3, 0.001, 0.02, 0, &c, &n) == -EINVAL &&
       mtb_workcp_detect(el1, g1, 3, 0, 0.02, 20, &c, &n) == -EINVAL, "no points, a window of 0, alpha 0: EINVAL");
    return done_testing();
}
