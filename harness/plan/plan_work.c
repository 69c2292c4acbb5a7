/* plan_work.c - see plan_work.h */
#include "plan/plan_work.h"
#include "core/record_outcome.h"
#include "core/allocator.h"
#include "core/build.h"
#include "core/kernel.h"
#include "core/mode.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "core/work.h"
#include "lib/util.h"
#include "plan/platforms.h"
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* DIR/work/NNN-VARIANT-MODE-KERNEL (a kernel's path or git ref made one name) */
static char *work_dir(const char *dir, int index, const char *variant, const struct mtb_allocator *a,
                      const struct mtb_mode *m, const char *kernel)
{
    char lab[128], kname[128];
    snprintf(kname, sizeof kname, "%s", kernel);
    for (char *c = kname; *c; c++)
        if (*c == '/' || *c == ':' || *c == '@')
            *c = '_';
    return mtb_asprintf("%s/work/%03d-%s-%s-%s", dir, index, mtb_variant_label(variant, a, lab, sizeof lab), m->name,
                        kname);
}

json_t *mtb_work_count_one(const struct mtb_work_req *q, char **file)
{
    const struct mtb_recipe *r = q->recipe;
    const char *variant = q->variant, *kernel = q->kernel;
    const struct mtb_mode *m = q->mode;
    const struct mtb_allocator *a = q->allocator;
    int index = q->index, quiet = q->quiet;
    if (file)
        *file = NULL;
    char err[MTB_ERRLEN];
    struct mtb_build b;
    if (mtb_build_ensure(r, variant, "aarch64", 0, quiet, &b, err, sizeof err) != 0) {
        mtb_warn("counting %s/%s: %s", variant, m->name, err);
        return NULL;
    }
    struct mtb_workload wl = *q->wl;
    wl.duration = q->seconds > 0 ? q->seconds : MTB_WORK_SECONDS;
    wl.warmup = 0;
    /* one request at a time, each finding the service asleep: then every
     * request takes the same path (one wake-up, one read, one reply), and
     * its count does not depend on how the host's speed batched requests
     * (docs/COUNTING.md, "Per request"); an open loop where the driver has
     * one that keeps its gaps (mtload's uniform arrivals) */
    wl.conns = 1;
    wl.threads = 1;
    wl.pipeline = 1;
    const char *drv = r->run.driver;
    if (drv && !strcmp(drv, "mtload")) {
        wl.rate = MTB_WORK_RATE;
        snprintf(wl.arrival, sizeof wl.arrival, "uniform");
    }
    char lab[128];
    mtb_variant_label(variant, a, lab, sizeof lab);
    char *rundir = work_dir(q->dir, index, variant, a, m, kernel);
    struct mtb_run run = { .recipe = r, .variant = variant, .mode = m, .allocator = a,
                           .platform = mtb_platform_find("vm"), .kernel = kernel, .wl = &wl, .build = &b,
                           .machine = q->machine, .rep = 1, .index = index, .total = q->total, .plan = "work",
                           .dir = rundir, .quiet = quiet, .count = 1 };
    fprintf(stderr, "mtebench: work %d/%d: %s %s/%s counted on vm (kernel %s), %g s...\n", index, q->total, r->name, lab,
            m->name, kernel, wl.duration);
    json_t *rec = NULL;
    enum mtb_run_status st = mtb_run_one(&run, &rec);
    if (st != MTB_RUN_OK) {
        mtb_warn("counting %s/%s: %s (see %s)", lab, m->name,
                 mtb_rec_outcome_error(rec) ?: "failed", rundir);
        json_decref(rec);
        rec = NULL;
    }
    if (rec && file)
        *file = mtb_asprintf("%s/record.json", rundir);
    free(rundir);
    free(b.dir);
    free(b.binary);
    json_decref(b.info);
    return rec;
}

int mtb_work_countable(char *why, size_t n)
{
    const struct mtb_platform *vm = mtb_platform_find("vm");
    if (!vm) {
        snprintf(why, n, "no vm platform in this mtebench");
        return 0;
    }
    return vm->usable(why, n) && mtb_work_plugin_ready(why, n);
}

