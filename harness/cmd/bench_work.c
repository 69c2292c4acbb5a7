/* bench_work.c - see bench_work.h */
#include "cmd/bench_work.h"
#include "cmd/commands.h"
#include "core/allocator.h"
#include "core/build.h"
#include "core/hostfacts.h"
#include "core/kernel.h"
#include "core/platform.h"
#include "core/record.h"
#include "core/work.h"
#include "lib/files.h"
#include "lib/util.h"
#include "plan/platforms.h"
#include "plan/plan_work.h"
#include "report/work_table.h"
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORK_KERNEL "stock"

/* whether to count: 1 yes, 0 no (why says why, for a line) */
/* the kernel bench's pair is counted on: the bench's own on vm, else stock */
static const char *pair_kernel(const struct mtb_opts *o)
{
    return o->p && !strcmp(o->p->name, "vm") && o->kernel && strcmp(o->kernel, "host") ? o->kernel : WORK_KERNEL;
}

static int wanted(const struct mtb_opts *o, int bw_kernels, int *must, char *why, size_t n)
{
    const char *v = getenv("MTEBENCH_WORK");
    *must = v && !strcmp(v, "1");
    if (v && strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "auto"))
        mtb_die(2, "MTEBENCH_WORK=%s: 0, 1 or auto (COUNT= of make bench)", v);
    if (v && !strcmp(v, "0")) {
        snprintf(why, n, "COUNT=0");
        return 0;
    }
    if (o->resume) {
        snprintf(why, n, "a resumed bench: its work was counted when it began (%s/work/)", o->results);
        return 0;
    }
    if (!*must && mtb_host_has_mte()) {
        snprintf(why, n, "this machine has MTE: its timings speak (COUNT=1 counts anyway, on vm)");
        return 0;
    }
    if (!*must && strcmp(o->recipe->name, "rocksdb") == 0) {
        snprintf(why, n, "RocksDB's db_bench counts no requests of its own over a window");
        return 0;
    }
    if (!mtb_work_countable(why, n))
        return 0;
    if (!*must && !bw_kernels && !mtb_kernel_cached(pair_kernel(o))) { /* a newcomer's first bench answers first */
        snprintf(why, n, "the vm's %s kernel is not built yet: COUNT=1 builds it (about 9 min on 2 cores) and "
                 "counts; make test builds it too", pair_kernel(o));
        return 0;
    }
    return 1;
}

/* one counted run of variant/mode on vm, kernel kernel */
static json_t *counted(const struct mtb_opts *o, const char *variant, const struct mtb_mode *m, const char *kernel,
                       const char *dir, int index, int total)
{
    struct mtb_work_req q = { .recipe = o->recipe, .wl = &o->wl, .variant = variant, .mode = m,
                              .allocator = o->allocs[0], .kernel = kernel, .machine = &o->mach, .dir = dir,
                              .index = index, .total = total, .quiet = o->quiet };
    return mtb_work_count_one(&q, NULL);
}

void mtb_bench_work(const char *dir, void *arg)
{
    struct mtb_bench_work *bw = arg;
    const struct mtb_opts *o = bw->o;
    char why[MTB_ERRLEN] = "";
    int must = 0;
    if (!wanted(o, bw->nkernels, &must, why, sizeof why)) {
        if (must) {
            mtb_warn("COUNT=1: MTE's work cannot be counted here: %s", why);
            bw->failed = 1;
        } else {
            fprintf(stderr, "mtebench: work not counted (%s)\n", why);
        }
        return;
    }
    double t0 = mtb_mono();
    if (bw->nkernels > 0) { /* compare-kernels: the measured configuration on each kernel */
        json_t *recs[MTB_WORK_MAXK] = { NULL };
        int n = 0;
        for (int k = 0; k < bw->nkernels && k < MTB_WORK_MAXK; k++)
            if ((recs[n] = counted(o, "tagged", o->m, bw->kernels[k], dir, k + 1, bw->nkernels)))
                n++;
        if (n == bw->nkernels) {
            mtb_work_table_kernels(stdout, recs, n);
            printf("(%d counted runs in %.0f s; COUNT=0 leaves them out; the records: %s/work/)\n\n", n,
                   mtb_mono() - t0, dir);
            fflush(stdout);
        } else {
            bw->failed = must;
            fprintf(stderr, "mtebench: work not counted (a counted run failed; above)\n");
        }
        for (int i = 0; i < n; i++)
            json_decref(recs[i]);
        return;
    }
    const char *variant = o->variant && !strchr(o->variant, ',') ? o->variant : "tagged";
    json_t *base = counted(o, "plain", mtb_mode_find("off"), pair_kernel(o), dir, 1, 2);
    json_t *tagged = base ? counted(o, variant, o->m, pair_kernel(o), dir, 2, 2) : NULL;
    if (base && tagged) {
        mtb_work_table_pair(stdout, base, tagged);
        printf("(2 counted runs in %.0f s; COUNT=0 leaves them out; the records: %s/work/)\n\n", mtb_mono() - t0, dir);
        fflush(stdout);
    } else {
        bw->failed = must;
        fprintf(stderr, "mtebench: work not counted (a counted run failed; above)\n");
    }
    json_decref(base);
    json_decref(tagged);
}
