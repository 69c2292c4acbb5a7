/* test_schedule.c - the open-loop schedule keeps its rate (within 2%). */
#include <math.h>
#include "loadgen/schedule.h"
#include "tap.h"

static void check(enum mtl_arrival kind, double rate, double seconds)
{
    struct mtl_sched s;
    struct mtl_rng r;
    mtl_time_t start = 123456789, end = start + (mtl_time_t)(seconds * 1e9), t, prev;
    uint64_t n = 0, backwards = 0;
    double got, cv_sum = 0, cv_sq = 0;

    mtl_rng_seed(&r, 99);
    ok(mtl_sched_init(&s, kind, rate, start, &r) == 0, "%s init", mtl_arrival_name(kind));
    prev = start;
    while ((t = mtl_sched_peek(&s)) < end) {
        double gap = (double)(t - prev);
        if (t < prev)
            backwards++;
        if (n) {
            cv_sum += gap;
            cv_sq += gap * gap;
        }
        prev = t;
        n++;
        mtl_sched_advance(&s, &r);
    }
    got = (double)n / seconds;
    ok(fabs(got - rate) / rate <= 0.02, "%s: %.0f/s achieved for %.0f/s target",
       mtl_arrival_name(kind), got, rate);
    ok(backwards == 0, "%s: intended times never go backwards", mtl_arrival_name(kind));
    {
        double m = cv_sum / (double)(n - 1);
        double sd = sqrt(cv_sq / (double)(n - 1) - m * m);
        if (kind == MTL_ARRIVAL_POISSON)
            ok(fabs(sd / m - 1.0) < 0.05, "poisson gaps: coefficient of variation %.3f ~ 1", sd / m);
        else
            ok(sd / m < 0.001, "uniform gaps: coefficient of variation %.5f ~ 0", sd / m);
    }
}

int main(void)
{
    struct mtl_sched s;
    struct mtl_rng r;
    enum mtl_arrival a;
    mtl_rng_seed(&r, 1);
    check(MTL_ARRIVAL_UNIFORM, 2000, 10);
    check(MTL_ARRIVAL_POISSON, 2000, 10);
    check(MTL_ARRIVAL_UNIFORM, 1e6 / 3, 2);
    check(MTL_ARRIVAL_POISSON, 100000, 5);
    check(MTL_ARRIVAL_UNIFORM, 0.5, 1000);
    ok(mtl_sched_init(&s, MTL_ARRIVAL_UNIFORM, 0, 0, &r) != 0, "rate 0 refused");
    ok(mtl_arrival_parse("poisson", &a) == 0 && a == MTL_ARRIVAL_POISSON, "parse poisson");
    ok(mtl_arrival_parse("bursty", &a) != 0, "unknown arrival refused");
    /* what a stalled open loop never sent: at 1000/s, next at 5 ms */
    s.kind = MTL_ARRIVAL_UNIFORM;
    s.period_ns = 1e6;
    s.next = 5 * 1000000ULL;
    s.frac = 0;
    ok(mtl_sched_count_before(&s, 0, 1000000000ULL) == 995, "unsent: 995 due in [5 ms, 1 s)");
    ok(mtl_sched_count_before(&s, 500000000ULL, 1000000000ULL) == 500, "unsent: 500 in [0.5 s, 1 s)");
    ok(mtl_sched_count_before(&s, 0, 5 * 1000000ULL) == 0, "unsent: none before the next one");
    ok(mtl_sched_count_before(&s, 0, 5 * 1000000ULL + 1) == 1, "unsent: the next one itself");
    return done_testing();
}
