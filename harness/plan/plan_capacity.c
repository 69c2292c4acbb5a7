/* plan_capacity.c - what a capacity search accepts, and its defaults:
 * shared by `mtebench capacity` (cmd/capacity_cli.c) and a plan's entries
 * with an SLO (plan_parse.c), so that a plan is refused at load, before any
 * run, for what the command refuses. docs/CAPACITY.md. */
#include "plan/plan.h"
#include "analysis/capacity.h"
#include "drivers/driver.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LOADS: percents of the baseline's capacity, "10%,50%,90%" (1 to 20, each up to 200%) */
static int loads_ok(const char *l, char *why, size_t n)
{
    if (!l)
        return 0;
    char buf[256];
    int k = 0, bad = strlen(l) >= sizeof buf;
    snprintf(buf, sizeof buf, "%s", l);
    char *save = NULL;
    for (char *it = strtok_r(buf, ",", &save); it && !bad; it = strtok_r(NULL, ",", &save), k++) {
        char *end;
        double v = strtod(it, &end);
        bad = end == it || strcmp(end, "%") || !(v > 0) || v > 200;
    }
    if (!bad && k >= 1 && k <= 20)
        return 0;
    snprintf(why, n, "invalid LOADS '%s' (accepted: 1 to 20 percents of the baseline's capacity such as "
             "10%%,50%%,90%% (each up to 200%%))", l);
    return -1;
}

/* a service and workload with an offered rate the search can set */
static int service_ok(const struct mtb_opts *o, char *why, size_t n)
{
    const char *dname;
    const struct mtb_driver *drv = mtb_driver_of(&o->wl, &dname);
    if (drv && drv->embedded)
        snprintf(why, n, "capacity: %s runs inside its benchmark's process (driver %s): there is no server to "
                 "offer a rate to, so no capacity at an SLO; `make bench SERVICE=%s` measures its closed-loop cost",
                 o->recipe->name, dname, o->recipe->name);
    else if (drv && !(drv->honours & (1u << MTB_WL_rate)))
        snprintf(why, n, "capacity: %s's workload '%s' is driven by %s, which has no open-loop rate; choose a "
                 "workload driven by mtload or pgbench", o->recipe->name, o->wl.name, dname);
    else if (o->wset.set & (1u << MTB_WL_rate))
        snprintf(why, n, "capacity: RATE is what the search chooses; leave it out");
    else
        return 0;
    return -1;
}

int mtb_plan_capacity_check(struct mtb_opts *o, struct mtb_slo *slo, char *why, size_t n)
{
    if (!o->slo) {
        snprintf(why, n, "capacity: no SLO given (e.g. SLO=p99:1ms, or p99:1ms,p99.9:5ms,errors:0.1%%)");
        return -1;
    }
    if (o->nallocs > 1 || (o->nallocs == 1 && o->allocs[0]->preload)) {
        /* capacity.json names no allocator yet: its configurations would be mislabelled */
        snprintf(why, n, "capacity: ALLOCATOR=%s: a capacity search runs under glibc's allocator only (bench and "
                 "plans take the allocator axis)", o->allocator);
        return -1;
    }
    if (mtb_slo_parse(o->slo, slo, why, n) != 0 || loads_ok(o->loads, why, n) != 0 || service_ok(o, why, n) != 0)
        return -1;
    long reps = o->reps_given && o->reps != MTB_REPS_AUTO ? o->reps : 3;
    if (reps > MTB_CAP_MAXREP - 2) {
        snprintf(why, n, "invalid REPS '%ld' (accepted: capacity: the runs at a new rate, 1 to %d)", reps,
                 MTB_CAP_MAXREP - 2);
        return -1;
    }
    /* uniform arrivals hide queueing: Poisson unless asked (a driver with arrivals of its own has them set by
     * mtb_opts_resolve) */
    const struct mtb_driver *drv = mtb_driver_of(&o->wl, NULL);
    if (!(drv && drv->arrival) && !(o->wset.set & (1u << MTB_WL_arrival)))
        snprintf(o->wl.arrival, sizeof o->wl.arrival, "poisson");
    if (!o->max_time_given)
        o->max_time = 4 * 3600; /* a search takes longer than REPS=auto's pairs: MAX_TIME bounds it when given */
    if (!(o->confidence > 0))
        o->confidence = 0.95;
    return 0;
}
