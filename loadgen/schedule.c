/* schedule.c - open-loop arrival schedule. */
#include "loadgen/schedule.h"
#include <errno.h>
#include <math.h>
#include <string.h>

static double gap(const struct mtl_sched *s, struct mtl_rng *r)
{
    if (s->kind == MTL_ARRIVAL_POISSON)
        return -log1p(-mtl_rng_double(r)) * s->period_ns;   /* Exp(mean period) */
    return s->period_ns;
}

static void add(struct mtl_sched *s, double ns)
{
    double whole;
    s->frac += ns;
    whole = floor(s->frac);
    s->next += (mtl_time_t)whole;
    s->frac -= whole;
}

int mtl_sched_init(struct mtl_sched *s, enum mtl_arrival kind, double rate,
                   mtl_time_t start, struct mtl_rng *r)
{
    if (!(rate > 0.0) || !isfinite(rate))
        return EINVAL;
    s->kind = kind;
    s->period_ns = 1e9 / rate;
    s->next = start;
    s->frac = 0.0;
    if (kind == MTL_ARRIVAL_POISSON)
        add(s, gap(s, r));
    else
        add(s, mtl_rng_double(r) * s->period_ns);
    return 0;
}

void mtl_sched_advance(struct mtl_sched *s, struct mtl_rng *r)
{
    add(s, gap(s, r));
}

uint64_t mtl_sched_count_before(const struct mtl_sched *s, mtl_time_t from, mtl_time_t upto)
{
    mtl_time_t a = s->next > from ? s->next : from;
    if (upto <= a || !(s->period_ns > 0))
        return 0;
    /* entries at next + k*period, k >= 0, in [a, upto) */
    double first = s->next >= a ? 0 : ceil((double)(a - s->next) / s->period_ns);
    double last = floor((double)(upto - 1 - s->next) / s->period_ns);
    return last >= first ? (uint64_t)(last - first) + 1 : 0;
}

int mtl_arrival_parse(const char *name, enum mtl_arrival *out)
{
    if (strcmp(name, "uniform") == 0) { *out = MTL_ARRIVAL_UNIFORM; return 0; }
    if (strcmp(name, "poisson") == 0) { *out = MTL_ARRIVAL_POISSON; return 0; }
    return EINVAL;
}

const char *mtl_arrival_name(enum mtl_arrival a)
{
    return a == MTL_ARRIVAL_POISSON ? "poisson" : "uniform";
}
