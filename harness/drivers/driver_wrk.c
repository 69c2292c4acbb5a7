/* driver_wrk.c - wrk, HTTP/1.1 keep-alive; its percentiles (wrk-report.lua)
 * folded into mtload's record format */
#include "loadgen/adapt.h"
#include "drivers/driver.h"
#include "lib/proc.h"
#include "lib/argv.h"
#include "lib/files.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- wrk ------------------------------------------------------------------ */

static int wrk_exec(const struct mtb_drive *d, double secs, const char *logp, struct rusage *ru)
{
    const struct mtb_workload *w = d->wl;
    struct mtb_argv a = { 0 };
    mtb_argv_push(&a, "wrk");
    mtb_argv_pushf(&a, "-t%ld", w->threads);
    mtb_argv_pushf(&a, "-c%ld", w->conns);
    mtb_argv_pushf(&a, "-d%lds", (long)(secs + 0.5) > 0 ? (long)(secs + 0.5) : 1);
    mtb_argv_push(&a, "--timeout=5s");
    mtb_argv_pushf(&a, "-s%s/loadgen/wrk-report.lua", mtb_root());
    const char *path = mtb_driver_param(d, "wrk_path", "/");
    mtb_argv_pushf(&a, "%s://127.0.0.1:%d%s", strcmp(mtb_driver_param(d, "https", "no"), "yes") ? "http" : "https", d->port, path);
    int st = mtb_driver_exec_client(d, &a, logp, ru);
    mtb_argv_free(&a);
    return st;
}

static int wrk_run(const struct mtb_drive *d, double secs, const char *logp, int measured, void *ru)
{
    (void)measured;
    return wrk_exec(d, secs, logp, ru);
}

static json_t *wrk_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const struct mtb_workload *w = d->wl;
    json_t *load = NULL;
    struct rusage ru = { 0 };
    char *logp, *text;
    if (mtb_driver_warm_measure(d, "wrk", wrk_run, &ru, &logp, &text, why, n) != 0)
        return NULL;
    struct mtl_adapt ad;
    mtl_adapt_init(&ad);
    double secs = 0;
    json_t *errors = json_object();
    if (!text || mtl_adapt_wrk(&ad, text, &secs, errors) != 0) {
        snprintf(why, n, "no wrk report lines in %s", logp);
        json_decref(errors);
    } else {
        json_t *cfg = json_pack("{s:s,s:I,s:I,s:s}", "driver", "wrk", "threads", (json_int_t)w->threads, "conns",
                                (json_int_t)w->conns, "path", mtb_driver_param(d, "wrk_path", "/"));
        load = mtl_adapt_json(&ad, "wrk", secs, cfg, errors);
        mtb_driver_cpu(d, load, &ru, secs);
    }
    mtl_adapt_free(&ad);
    free(text);
    free(logp);
    return load;
}

const struct mtb_driver mtb_driver_wrk = {
    .name = "wrk",
    .summary = "wrk, HTTP/1.1 keep-alive (its percentiles folded into the histogram)",
    /* GETs of one path: no mix, keys or value size; wrk has no pipelining
     * or request rate (wrk2's -R is another program) */
    .honours = 1u << MTB_WL_threads | 1u << MTB_WL_conns | 1u << MTB_WL_duration | 1u << MTB_WL_warmup,
    .preload = mtb_driver_no_preload,
    .measure = wrk_measure,
};
