/* driver.c - the driver registry and what drivers share (running a
 * program pinned, bounded and logged; CPU use of a client); one file per
 * driver: driver_mtload.c, driver_wrk.c, driver_pgbench.c, driver_dbbench.c. */
#include "drivers/driver.h"
#include "lib/proc.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note the command line in the log before its output. */
static void log_command(const char *logp, char *const *argv)
{
    FILE *lf = fopen(logp, "a");
    if (!lf)
        return;
    fputs("$", lf);
    for (; *argv; argv++)
        fprintf(lf, " %s", *argv);
    fputs("\n", lf);
    fclose(lf);
}

int mtb_driver_exec(const struct mtb_drive *d, struct mtb_argv *argv, char *const *env, const char *logp,
                    const int *cpus, int ncpus, const char *user)
{
    return mtb_driver_spawn(d, &(struct mtb_spawn){ .argv = argv->v, .env_add = env, .log_path = logp, .cpus = cpus,
                                                    .ncpus = ncpus, .user = user });
}

int mtb_driver_spawn(const struct mtb_drive *d, const struct mtb_spawn *s)
{
    log_command(s->log_path, s->argv);
    return mtb_proc_run(s, d->timeout);
}

int mtb_driver_exec_client(const struct mtb_drive *d, struct mtb_argv *argv, const char *logp, struct rusage *ru)
{
    log_command(logp, argv->v);
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

const char *mtb_driver_param(const struct mtb_drive *d, const char *k, const char *dflt)
{
    const char *v = mtb_workload_param(d->wl, k);
    return v ? v : dflt;
}

int mtb_driver_failed(int st, const char *what, const char *logp, char *why, size_t n)
{
    if (st == 0)
        return 0;
    char desc[64];
    snprintf(why, n, "%s failed (%s); see %s", what, st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc),
             logp);
    return -1;
}

int mtb_driver_warm_measure(const struct mtb_drive *d, const char *name, mtb_driver_run_fn run, void *arg, char **logp,
                            char **text, char *why, size_t n)
{
    const struct mtb_workload *w = d->wl;
    char *wlog = mtb_asprintf("%s/%s-warmup.log", d->rundir, name);
    char *what = mtb_asprintf("%s warm-up", name);
    *logp = mtb_asprintf("%s/%s.log", d->rundir, name);
    *text = NULL;
    int rc = w->warmup > 0 ? mtb_driver_failed(run(d, w->warmup, wlog, 0, arg), what, wlog, why, n) : 0;
    if (rc == 0)
        rc = mtb_driver_failed(run(d, w->duration, *logp, 1, arg), name, *logp, why, n);
    if (rc == 0)
        *text = mtb_read_file(*logp, NULL);
    else {
        free(*logp);
        *logp = NULL;
    }
    free(what);
    free(wlog);
    return rc;
}

void mtb_driver_mix_parts(const char *mix, long *set, long *get)
{
    *set = 1;
    *get = 10;
    sscanf(mix, "%ld:%ld", set, get);
}

static const struct mtb_driver *const mtb_drivers[] = { &mtb_driver_mtload, &mtb_driver_wrk, &mtb_driver_pgbench,
                                                 &mtb_driver_dbbench, &mtb_driver_trigger, NULL };

static const struct mtb_driver *mtb_driver_find(const char *name)
{
    for (const struct mtb_driver *const *d = mtb_drivers; *d; d++)
        if (name && !strcmp((*d)->name, name))
            return *d;
    return NULL;
}

const struct mtb_driver *mtb_driver_of(const struct mtb_workload *w, const char **name)
{
    const char *n = mtb_workload_param(w, "driver");
    if (!n && w->recipe)
        n = w->recipe->run.driver;
    if (!n)
        n = "mtload";
    if (name)
        *name = n;
    return mtb_driver_find(n);
}

int mtb_driver_check(const struct mtb_driver *drv, const struct mtb_workload *w, char *why, size_t n)
{
    for (int i = 0; i < MTB_WL_NFIELDS; i++) {
        if (i == MTB_WL_service_threads || (drv->honours & (1u << i)) || mtb_workload_is_default(w, i))
            continue;
        char v[64];
        snprintf(why, n, "%s does not honour the workload's %s (%s here): leave it at its default for %s's runs",
                 drv->name, mtb_workload_field_key(i), mtb_workload_field_text(w, i, v, sizeof v),
                 w->recipe ? w->recipe->name : drv->name);
        return -1;
    }
    return drv->check ? drv->check(w, why, n) : 0;
}

int mtb_driver_no_preload(const struct mtb_drive *d, char *why, size_t n)
{
    (void)d;
    (void)why;
    (void)n;
    return 0;
}
