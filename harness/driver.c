/* driver.c - the driver table and the mtload driver; the adapters for the
 * standard drivers (pgbench, db_bench, wrk) are in driver_std.c. */
#include "driver.h"
#include "proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note the command line in the log before its output. */
static void log_command(const char *logp, const struct mtb_argv *argv)
{
    FILE *lf = fopen(logp, "a");
    if (!lf)
        return;
    fputs("$", lf);
    for (int i = 0; i < argv->n; i++)
        fprintf(lf, " %s", argv->v[i]);
    fputs("\n", lf);
    fclose(lf);
}

int mtb_driver_exec(const struct mtb_drive *d, struct mtb_argv *argv, char *const *env, const char *logp,
                    const int *cpus, int ncpus, const char *user)
{
    log_command(logp, argv);
    struct mtb_spawn s = { .argv = argv->v, .env_add = env, .log_path = logp, .cpus = cpus,
                           .ncpus = ncpus, .user = user };
    return mtb_proc_run(&s, d->timeout);
}

int mtb_driver_exec_seen(const struct mtb_drive *d, struct mtb_argv *argv, char *const *env, const char *logp,
                         const int *cpus, int ncpus, const char *user, int numa, char *seen,
                         void (*on_start)(pid_t, void *), void *arg)
{
    log_command(logp, argv);
    struct mtb_spawn s = { .argv = argv->v, .env_add = env, .log_path = logp, .cpus = cpus, .ncpus = ncpus,
                           .user = user, .numa_bind = numa >= 0, .numa_node = numa, .affinity_out = seen,
                           .affinity_len = seen ? 256 : 0, .on_start = on_start, .on_start_arg = arg };
    return mtb_proc_run(&s, d->timeout);
}

int mtb_driver_exec_client(const struct mtb_drive *d, struct mtb_argv *argv, const char *logp, struct rusage *ru)
{
    log_command(logp, argv);
    int cpus[MTB_MAX_CPUS];
    int n = mtb_cpulist_parse(d->client_cpus, cpus, MTB_MAX_CPUS);
    struct mtb_spawn s = { .argv = argv->v, .log_path = logp, .cpus = n > 0 ? cpus : NULL, .ncpus = n > 0 ? n : 0,
                           .affinity_out = d->client_seen, .affinity_len = d->client_seen ? 256 : 0 };
    return mtb_proc_run_ru(&s, d->timeout, ru);
}

void mtb_driver_cpu(const struct mtb_drive *d, json_t *load, const struct rusage *ru, double seconds)
{
    int cpus[MTB_MAX_CPUS];
    int n = mtb_cpulist_parse(d->client_cpus, cpus, MTB_MAX_CPUS);
    double user = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
    double sys = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
    double busy = seconds > 0 && n > 0 ? (user + sys) / (seconds * n) : 0;
    json_object_set_new(load, "cpu", json_pack("{s:f,s:f,s:f,s:b,s:s}", "user_s", user, "sys_s", sys, "busy", busy,
                                               "client_bound", busy > 0.9, "scope", "whole client process"));
}

/* ---- mtload: memcached text protocol and HTTP/1.1 ----------------------- */

static void mtload_common(const struct mtb_drive *d, struct mtb_argv *a, const char *json)
{
    const struct mtb_workload *w = d->run->wl;
    const char *proto = mtb_workload_param(w, "protocol");
    if (!proto)
        proto = mtb_recipe_get(d->run->recipe, "run", "protocol");
    mtb_argv_pushf(a, "%s/build/mtload", mtb_root());
    mtb_argv_pushf(a, "--server=127.0.0.1:%d", d->port);
    mtb_argv_pushf(a, "--protocol=%s", proto ? proto : "memcache");
    mtb_argv_pushf(a, "--threads=%ld", w->threads);
    mtb_argv_pushf(a, "--conns=%ld", w->conns);
    mtb_argv_pushf(a, "--keys=%ld", w->keys);
    mtb_argv_pushf(a, "--value-size=%s", w->value_size);
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
    const char *proto = mtb_workload_param(d->run->wl, "protocol");
    if (!proto)
        proto = mtb_recipe_get(d->run->recipe, "run", "protocol");
    if (proto && strcmp(proto, "memcache") != 0)
        return 0; /* HTTP serves files made by the recipe's setup */
    char *json = mtb_asprintf("%s/preload.json", d->rundir);
    char *logp = mtb_asprintf("%s/mtload.log", d->rundir);
    struct mtb_argv a = { 0 };
    mtload_common(d, &a, json);
    mtb_argv_push(&a, "--preload");
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
    const struct mtb_workload *w = d->run->wl;
    char *json = mtb_asprintf("%s/mtload.json", d->rundir);
    char *logp = mtb_asprintf("%s/mtload.log", d->rundir);
    struct mtb_argv a = { 0 };
    mtload_common(d, &a, json);
    mtb_argv_pushf(&a, "--ratio=%s", w->mix);
    mtb_argv_pushf(&a, "--pipeline=%ld", w->pipeline);
    mtb_argv_pushf(&a, "--duration=%gs", w->duration);
    mtb_argv_pushf(&a, "--warmup=%gs", w->warmup);
    if (w->rate > 0)
        mtb_argv_pushf(&a, "--rate=%g", w->rate);
    /* the whole process on the client CPUs (mtload pins each thread too) */
    int cpus[MTB_MAX_CPUS];
    int nc = mtb_cpulist_parse(d->client_cpus, cpus, MTB_MAX_CPUS);
    int st = mtb_driver_exec_seen(d, &a, NULL, logp, nc > 0 ? cpus : NULL, nc > 0 ? nc : 0, NULL, -1, d->client_seen, NULL, NULL);
    mtb_argv_free(&a);
    json_t *load = NULL;
    if (st != 0) {
        char desc[64];
        snprintf(why, n, "mtload failed (%s); see %s",
                 st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), logp);
    } else {
        json_error_t je;
        load = json_load_file(json, 0, &je);
        if (!load)
            snprintf(why, n, "%s: %s", json, je.text);
    }
    free(json);
    free(logp);
    return load;
}

/* the standard drivers live in driver_std.c */
int mtb_pgbench_preload(const struct mtb_drive *d, char *why, size_t n);
json_t *mtb_pgbench_measure(const struct mtb_drive *d, char *why, size_t n);
int mtb_dbbench_preload(const struct mtb_drive *d, char *why, size_t n);
json_t *mtb_dbbench_measure(const struct mtb_drive *d, char *why, size_t n);
json_t *mtb_wrk_measure(const struct mtb_drive *d, char *why, size_t n);

static int no_preload(const struct mtb_drive *d, char *why, size_t n)
{
    (void)d;
    (void)why;
    (void)n;
    return 0;
}

const struct mtb_driver mtb_drivers[] = {
    { "mtload", "mtebench's load generator: memcached text protocol, HTTP/1.1", 0, mtload_preload, mtload_measure },
    { "wrk", "wrk, HTTP/1.1 keep-alive (its percentiles folded into the histogram)", 0, no_preload, mtb_wrk_measure },
    { "pgbench", "PostgreSQL's pgbench; per-transaction logs folded into the histogram", 0, mtb_pgbench_preload,
      mtb_pgbench_measure },
    { "db_bench", "RocksDB's db_bench (embedded: the measured program itself)", 1, mtb_dbbench_preload,
      mtb_dbbench_measure },
    { NULL, NULL, 0, NULL, NULL },
};

const struct mtb_driver *mtb_driver_find(const char *name)
{
    for (const struct mtb_driver *d = mtb_drivers; d->name; d++)
        if (name && !strcmp(d->name, name))
            return d;
    return NULL;
}
