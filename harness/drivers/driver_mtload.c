/* driver_mtload.c - mtebench's own load generator (memcached text
 * protocol, HTTP/1.1): its JSON is the record's load format as it is */
#include "drivers/driver.h"
#include "common/mtload_exit.h"
#include "lib/proc.h"
#include "lib/argv.h"
#include "lib/files.h"

#include <errno.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- mtload: memcached text protocol and HTTP/1.1 ----------------------- */

#define MTLOAD_PRELOAD_TIMEOUT "10s" /* per request */
#define MTLOAD_PRELOAD_PIPELINE "16" /* requests in flight per connection */

static void mtload_common(const struct mtb_drive *d, struct mtb_argv *a, const char *json)
{
    const struct mtb_workload *w = d->wl;
    const char *proto = mtb_workload_param(w, "protocol");
    if (!proto)
        proto = d->recipe->run.protocol;
    mtb_argv_pushf(a, "%s/build/mtload", mtb_root());
    mtb_argv_pushf(a, "--server=127.0.0.1:%d", d->port);
    mtb_argv_pushf(a, "--protocol=%s", proto ? proto : "memcache");
    mtb_workload_mtload_flags(w, 0, a);
    mtb_argv_pushf(a, "--cpus=%s", d->client_cpus);
    mtb_argv_pushf(a, "--json=%s", json);
    const char *paths = mtb_workload_param(w, "paths");
    if (paths)
        mtb_argv_pushf(a, "--paths=%s", paths);
    const char *pat = mtb_workload_param(w, "key_pattern");
    if (pat)
        mtb_argv_pushf(a, "--key-pattern=%s", pat);
}

static int mtload_preload(const struct mtb_drive *d, char *why, size_t n)
{
    const char *proto = mtb_workload_param(d->wl, "protocol");
    if (!proto)
        proto = d->recipe->run.protocol;
    if (proto && strcmp(proto, "memcache") != 0)
        return 0; /* HTTP serves files made by the recipe's setup */
    char *json = mtb_asprintf("%s/preload.json", d->rundir);
    char *logp = mtb_asprintf("%s/mtload.log", d->rundir);
    struct mtb_argv a = { 0 };
    mtload_common(d, &a, json);
    mtb_argv_push(&a, "--preload");
    /* Its latencies are not measured, but a request it loses to the timeout
     * leaves a key missing and fails the run: an emulated tagged service on a
     * loaded machine has answered later than mtload's default 1 s (a run of
     * ansible-fleet.t's fleet and arm64-paths.t in the rehearsal failed so). */
    mtb_argv_push(&a, "--timeout=" MTLOAD_PRELOAD_TIMEOUT);
    /* pipelined: the SETs' answers are not measured, and one at a time per
     * connection an emulated memcached stored 10,000 keys in 1.1 s */
    mtb_argv_push(&a, "--pipeline=" MTLOAD_PRELOAD_PIPELINE);
    int cpus[MTB_MAX_CPUS];
    int nc = mtb_cpulist_parse(d->client_cpus, cpus, MTB_MAX_CPUS);
    int st = mtb_driver_exec(d, &a, NULL, logp, nc > 0 ? cpus : NULL, nc > 0 ? nc : 0, NULL);
    mtb_argv_free(&a);
    if (st != 0) {
        char desc[64];
        snprintf(why, n, "mtload --preload failed (%s); see %s",
                 st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), logp);
    }
    free(json);
    free(logp);
    return st == 0 ? 0 : -1;
}

static json_t *mtload_measure(const struct mtb_drive *d, char *why, size_t n)
{
    char *json = mtb_asprintf("%s/mtload.json", d->rundir);
    char *logp = mtb_asprintf("%s/mtload.log", d->rundir);
    struct mtb_argv a = { 0 };
    mtload_common(d, &a, json);
    mtb_workload_mtload_flags(d->wl, 1, &a);
    /* the HdrHistogram interval log beside the record (docs/FORMATS.md) */
    mtb_argv_pushf(&a, "--hlog=%s/mtload.hlog", d->rundir);
    mtb_argv_pushf(&a, "--hgrm=%s/mtload.hgrm", d->rundir);
    /* the whole process on the client CPUs (mtload pins each thread too) */
    int cpus[MTB_MAX_CPUS];
    int nc = mtb_cpulist_parse(d->client_cpus, cpus, MTB_MAX_CPUS);
    int st = mtb_driver_spawn(d, &(struct mtb_spawn){ .argv = a.v, .log_path = logp, .cpus = nc > 0 ? cpus : NULL,
                                                      .ncpus = nc > 0 ? nc : 0, .affinity_out = d->client_seen,
                                                      .affinity_len = d->client_seen ? 256 : 0 });
    mtb_argv_free(&a);
    json_t *load = NULL;
    /* exit 3: measured, above its error limit: the record keeps the load and
     * is marked by its totals.errors_over_limit, as before mtload said so */
    if (st > 0 && WIFEXITED(st) && WEXITSTATUS(st) == MTL_EXIT_ERRORS)
        st = 0;
    if (st != 0) {
        char desc[64];
        snprintf(why, n, "mtload failed (%s); see %s",
                 st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), logp);
    } else {
        json_error_t je;
        load = json_load_file(json, 0, &je);
        if (!load)
            snprintf(why, n, "%s: %s", json, je.text);
        else
            json_object_set_new(load, "hlog", json_string("mtload.hlog"));
    }
    free(json);
    free(logp);
    return load;
}

const struct mtb_driver mtb_driver_mtload = {
    .name = "mtload",
    .summary = "mtebench's load generator: memcached text protocol, HTTP/1.1",
    .honours = MTB_WL_EVERY, /* its flags come from the field list */
    .preload = mtload_preload,
    .measure = mtload_measure,
};
