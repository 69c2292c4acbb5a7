/* driver_pgbench.c - PostgreSQL's pgbench; its per-transaction logs folded
 * into mtload's record format (loadgen/adapt.c) */
#include "loadgen/adapt.h"
#include "drivers/driver.h"
#include "lib/proc.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- pgbench -------------------------------------------------------------- */

static void pg_conn(const struct mtb_drive *d, struct mtb_argv *a)
{
    mtb_argv_push(a, "pgbench");
    mtb_argv_push(a, "-h");
    mtb_argv_push(a, "127.0.0.1");
    mtb_argv_pushf(a, "-p%d", d->port);
    mtb_argv_pushf(a, "-U%s", mtb_driver_param(d, "db_user", "mtebench"));
}

int mtb_pgbench_kv_write(const char *dir, long keys, char *get, char *set, size_t n)
{
    snprintf(get, n, "%s/kv-get.sql", dir);
    snprintf(set, n, "%s/kv-set.sql", dir);
    char *g = mtb_asprintf("\\set k random(1, %ld)\nSELECT v FROM mtb_kv WHERE k = :k;\n", keys);
    char *s = mtb_asprintf("\\set k random(1, %ld)\nUPDATE mtb_kv SET v = md5(random()::text) WHERE k = :k;\n",
                           keys);
    int rc = mtb_write_atomic(get, g, strlen(g)) | mtb_write_atomic(set, s, strlen(s));
    free(g);
    free(s);
    return rc;
}

/* The key-value script: GETs and SETs on one table in the workload's ratio. */
static int write_kv_scripts(const struct mtb_drive *d, char *get, char *set, size_t n)
{
    return mtb_pgbench_kv_write(d->rundir, d->wl->keys, get, set, n);
}

long mtb_pgbench_setup_xacts(int builtin, long clients)
{
    /* pgbench 15's main(): its setup connection (doConnect; a backend's
     * start commits one transaction), GetTableInfo's two queries (select
     * count(*) from pgbench_branches, and the partitioning query) for a
     * built-in script only, and one connection per client; with -n no
     * vacuum and no truncate (each of which would commit more) */
    return 1 + (builtin ? 2 : 0) + clients;
}

static int pgbench_preload(const struct mtb_drive *d, char *why, size_t n)
{
    char *logp = mtb_asprintf("%s/pgbench.log", d->rundir);
    int kv = !strcmp(mtb_driver_param(d, "script", "tpcb-like"), "kv"), rc = 0, st;
    if (!kv) { /* pgbench's own tables, for its built-in scripts (the key-value
                * scripts touch only mtb_kv: ~8 s of `pgbench -i -s1` under emu saved) */
        struct mtb_argv a = { 0 };
        pg_conn(d, &a);
        mtb_argv_push(&a, "-i");
        mtb_argv_pushf(&a, "-s%s", mtb_driver_param(d, "scale", "1"));
        mtb_argv_push(&a, "-q");
        mtb_argv_push(&a, mtb_driver_param(d, "database", "postgres"));
        st = mtb_driver_exec(d, &a, NULL, logp, NULL, 0, NULL);
        mtb_argv_free(&a);
        rc = mtb_driver_failed(st, "pgbench -i", logp, why, n);
    }
    if (rc == 0 && kv) {
        /* the key-value table, filled so that every GET hits */
        char *sql = mtb_asprintf("CREATE TABLE IF NOT EXISTS mtb_kv (k int PRIMARY KEY, v text); "
                                 "INSERT INTO mtb_kv SELECT g, md5(g::text) FROM generate_series(1, %ld) g "
                                 "ON CONFLICT DO NOTHING;", d->wl->keys);
        char *port = mtb_asprintf("%d", d->port);
        char *user = mtb_asprintf("%s", mtb_driver_param(d, "db_user", "mtebench"));
        struct mtb_argv q = { 0 };
        const char *qv[] = { "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", port, "-U", user,
                             "-d", mtb_driver_param(d, "database", "postgres"), "-c", sql, NULL };
        for (const char **p = qv; *p; p++)
            mtb_argv_push(&q, *p);
        st = mtb_driver_exec(d, &q, NULL, logp, NULL, 0, NULL);
        mtb_argv_free(&q);
        rc = mtb_driver_failed(st, "filling the key-value table", logp, why, n);
        free(sql);
        free(port);
        free(user);
    }
    free(logp);
    return rc;
}

int mtb_pgbench_fold_logs(const char *prefix, double skip, struct mtl_adapt *ad, char *why, size_t n)
{
    char *pat = mtb_asprintf("%s.*", prefix);
    glob_t g;
    int bad = 0;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && !bad; i++) {
            FILE *f = fopen(g.gl_pathv[i], "r");
            long line = 0;
            if (!f || mtl_adapt_pgbench_log(ad, f, skip, &line) != 0) {
                snprintf(why, n, "%s:%ld: not a pgbench transaction log line", g.gl_pathv[i], line);
                bad = 1;
            }
            if (f)
                fclose(f);
        }
        globfree(&g);
    } else {
        snprintf(why, n, "pgbench wrote no transaction log (%s)", pat);
        bad = 1;
    }
    free(pat);
    return bad ? -1 : 0;
}

static json_t *pgbench_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const struct mtb_workload *w = d->wl;
    char *logp = mtb_asprintf("%s/pgbench.log", d->rundir);
    char *prefix = mtb_asprintf("%s/pgbench_tx", d->rundir);
    const char *script = mtb_driver_param(d, "script", "tpcb-like");
    struct mtb_argv a = { 0 };
    pg_conn(d, &a);
    /* a core sweep point: one client (one backend) per server core, as many
     * jobs as there are clients and client CPUs */
    long clients = w->cores > 0 ? w->cores : w->conns;
    long jobs = w->cores > 0 ? (w->cores < d->ncli ? w->cores : d->ncli) : w->threads;
    if (jobs < 1)
        jobs = 1;
    mtb_argv_pushf(&a, "-c%ld", clients);
    mtb_argv_pushf(&a, "-j%ld", jobs);
    mtb_argv_pushf(&a, "-T%ld", (long)(w->warmup + w->duration + 0.5));
    mtb_argv_push(&a, "-l");
    mtb_argv_pushf(&a, "--log-prefix=%s", prefix);
    if (w->rate > 0)
        mtb_argv_pushf(&a, "--rate=%g", w->rate);
    if (!strcmp(script, "kv")) {
        char get[512], set[512];
        if (write_kv_scripts(d, get, set, sizeof get) != 0) {
            snprintf(why, n, "cannot write the key-value scripts in %s", d->rundir);
            mtb_argv_free(&a);
            return NULL;
        }
        long s, g;
        mtb_driver_mix_parts(w->mix, &s, &g);
        if (g > 0)
            mtb_argv_pushf(&a, "-f%s@%ld", get, g);
        if (s > 0)
            mtb_argv_pushf(&a, "-f%s@%ld", set, s);
        mtb_argv_push(&a, "-n");
    } else {
        mtb_argv_pushf(&a, "-b%s", script);
    }
    mtb_argv_push(&a, mtb_driver_param(d, "database", "postgres"));
    long secs = (long)(w->warmup + w->duration + 0.5);
    struct rusage ru = { 0 };
    int st = mtb_driver_exec_client(d, &a, logp, &ru);
    mtb_argv_free(&a);
    json_t *load = NULL;
    if (mtb_driver_failed(st, "pgbench", logp, why, n) == 0) {
        struct mtl_adapt ad, all;
        mtl_adapt_init(&ad);
        mtl_adapt_init(&all);
        /* the warm-up: transactions that ended before pgbench's first transaction's start + warmup (its own
         * clock: a time taken here before it ran began up to a second early, whole seconds, and before its
         * connections; the window measured was then up to 20% longer than DURATION and ops/s as much too
         * high); the window: the rest of pgbench's -T */
        if (mtb_pgbench_fold_logs(prefix, 0, &all, why, n) == 0 &&
            mtb_pgbench_fold_logs(prefix, w->warmup > 0 ? all.first_s + w->warmup : 0, &ad, why, n) == 0) {
            json_t *cfg = json_pack("{s:s,s:s,s:I,s:I}", "driver", "pgbench", "script", script,
                                    "clients", (json_int_t)clients, "threads", (json_int_t)jobs);
            json_object_set_new(cfg, "scale", json_string(mtb_driver_param(d, "scale", "1")));
            double window = w->warmup > 0 ? (double)secs - w->warmup : (double)secs;
            load = mtl_adapt_json(&ad, "pgbench", window > 0 ? window : w->duration, cfg, NULL);
            mtb_driver_cpu(d, load, &ru, w->warmup + w->duration);
        }
        mtl_adapt_free(&ad);
        mtl_adapt_free(&all);
    }
    free(prefix);
    free(logp);
    return load;
}

/* mix and keys shape the kv script only; pgbench's own scripts have their
 * own mix and a data set sized by `scale` */
static int pgbench_check(const struct mtb_workload *w, char *why, size_t n)
{
    const char *script = mtb_workload_param(w, "script");
    if (script && !strcmp(script, "kv"))
        return 0;
    int f = !mtb_workload_is_default(w, MTB_WL_mix) ? MTB_WL_mix : !mtb_workload_is_default(w, MTB_WL_keys) ? MTB_WL_keys : -1;
    if (f < 0)
        return 0;
    char v[64];
    snprintf(why, n, "pgbench does not honour the workload's %s (%s here) with script %s: only script = kv takes it",
             mtb_workload_field_key(f), mtb_workload_field_text(w, f, v, sizeof v), script ? script : "tpcb-like");
    return -1;
}

const struct mtb_driver mtb_driver_pgbench = {
    .name = "pgbench",
    .summary = "PostgreSQL's pgbench; per-transaction logs folded into the histogram",
    /* its rows are md5 text (no value size); no pipelining option */
    .honours = 1u << MTB_WL_mix | 1u << MTB_WL_keys | 1u << MTB_WL_threads | 1u << MTB_WL_conns |
               1u << MTB_WL_duration | 1u << MTB_WL_warmup | 1u << MTB_WL_rate | 1u << MTB_WL_arrival,
    .arrival = "poisson", /* --rate: "the schedule ... follows a Poisson distribution" (pgbench's documentation) */
    .check = pgbench_check,
    .preload = pgbench_preload,
    .measure = pgbench_measure,
    .client_hosts = "pgbench",
};
