/* driver_std.c - the standard drivers: pgbench (PostgreSQL), db_bench
 * (RocksDB, embedded) and wrk (HTTP). Each runs the real program and folds
 * its output into mtload's record format through loadgen/adapt.c. */
#include "adapt.h"
#include "driver.h"
#include "proc.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int mtb_pgbench_preload(const struct mtb_drive *d, char *why, size_t n);
json_t *mtb_pgbench_measure(const struct mtb_drive *d, char *why, size_t n);
int mtb_dbbench_preload(const struct mtb_drive *d, char *why, size_t n);
json_t *mtb_dbbench_measure(const struct mtb_drive *d, char *why, size_t n);
json_t *mtb_wrk_measure(const struct mtb_drive *d, char *why, size_t n);

static const char *param(const struct mtb_drive *d, const char *k, const char *dflt)
{
    const char *v = mtb_workload_param(d->run->wl, k);
    return v ? v : dflt;
}

static int failed(int st, const char *what, const char *logp, char *why, size_t n)
{
    if (st == 0)
        return 0;
    char desc[64];
    snprintf(why, n, "%s failed (%s); see %s", what, st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc),
             logp);
    return -1;
}

static void mix_parts(const char *mix, long *set, long *get)
{
    *set = 1;
    *get = 10;
    sscanf(mix, "%ld:%ld", set, get);
}

/* ---- pgbench -------------------------------------------------------------- */

static void pg_conn(const struct mtb_drive *d, struct mtb_argv *a)
{
    mtb_argv_push(a, "pgbench");
    mtb_argv_push(a, "-h");
    mtb_argv_push(a, "127.0.0.1");
    mtb_argv_pushf(a, "-p%d", d->port);
    mtb_argv_pushf(a, "-U%s", param(d, "db_user", "mtebench"));
}

/* The key-value script: GETs and SETs on one table in the workload's ratio. */
static int write_kv_scripts(const struct mtb_drive *d, char *get, char *set, size_t n)
{
    snprintf(get, n, "%s/kv-get.sql", d->rundir);
    snprintf(set, n, "%s/kv-set.sql", d->rundir);
    char *g = mtb_asprintf("\\set k random(1, %ld)\nSELECT v FROM mtb_kv WHERE k = :k;\n", d->run->wl->keys);
    char *s = mtb_asprintf("\\set k random(1, %ld)\nUPDATE mtb_kv SET v = md5(random()::text) WHERE k = :k;\n",
                           d->run->wl->keys);
    int rc = mtb_write_atomic(get, g, strlen(g)) | mtb_write_atomic(set, s, strlen(s));
    free(g);
    free(s);
    return rc;
}

int mtb_pgbench_preload(const struct mtb_drive *d, char *why, size_t n)
{
    char *logp = mtb_asprintf("%s/pgbench.log", d->rundir);
    struct mtb_argv a = { 0 };
    pg_conn(d, &a);
    mtb_argv_push(&a, "-i");
    mtb_argv_pushf(&a, "-s%s", param(d, "scale", "1"));
    mtb_argv_push(&a, "-q");
    mtb_argv_push(&a, param(d, "database", "postgres"));
    int st = mtb_driver_exec(d, &a, NULL, logp, NULL, 0, NULL);
    mtb_argv_free(&a);
    int rc = failed(st, "pgbench -i", logp, why, n);
    if (rc == 0 && !strcmp(param(d, "script", "tpcb-like"), "kv")) {
        /* the key-value table, filled so that every GET hits */
        char *sql = mtb_asprintf("CREATE TABLE IF NOT EXISTS mtb_kv (k int PRIMARY KEY, v text); "
                                 "INSERT INTO mtb_kv SELECT g, md5(g::text) FROM generate_series(1, %ld) g "
                                 "ON CONFLICT DO NOTHING;", d->run->wl->keys);
        char *port = mtb_asprintf("%d", d->port);
        char *user = mtb_asprintf("%s", param(d, "db_user", "mtebench"));
        struct mtb_argv q = { 0 };
        const char *qv[] = { "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", port, "-U", user,
                             "-d", param(d, "database", "postgres"), "-c", sql, NULL };
        for (const char **p = qv; *p; p++)
            mtb_argv_push(&q, *p);
        st = mtb_driver_exec(d, &q, NULL, logp, NULL, 0, NULL);
        mtb_argv_free(&q);
        rc = failed(st, "filling the key-value table", logp, why, n);
        free(sql);
        free(port);
        free(user);
    }
    free(logp);
    return rc;
}

json_t *mtb_pgbench_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const struct mtb_workload *w = d->run->wl;
    char *logp = mtb_asprintf("%s/pgbench.log", d->rundir);
    char *prefix = mtb_asprintf("%s/pgbench_tx", d->rundir);
    const char *script = param(d, "script", "tpcb-like");
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
        mix_parts(w->mix, &s, &g);
        if (g > 0)
            mtb_argv_pushf(&a, "-f%s@%ld", get, g);
        if (s > 0)
            mtb_argv_pushf(&a, "-f%s@%ld", set, s);
        mtb_argv_push(&a, "-n");
    } else {
        mtb_argv_pushf(&a, "-b%s", script);
    }
    mtb_argv_push(&a, param(d, "database", "postgres"));
    double t0 = (double)time(NULL);
    struct rusage ru = { 0 };
    int st = mtb_driver_exec_client(d, &a, logp, &ru);
    mtb_argv_free(&a);
    json_t *load = NULL;
    if (failed(st, "pgbench", logp, why, n) == 0) {
        struct mtl_adapt ad;
        mtl_adapt_init(&ad);
        char *pat = mtb_asprintf("%s.*", prefix);
        glob_t g;
        int bad = 0;
        if (glob(pat, 0, NULL, &g) == 0) {
            /* the warm-up: transactions that started before t0 + warmup */
            double skip = w->warmup > 0 ? t0 + w->warmup : 0;
            for (size_t i = 0; i < g.gl_pathc && !bad; i++) {
                FILE *f = fopen(g.gl_pathv[i], "r");
                long line = 0;
                if (!f || mtl_adapt_pgbench_log(&ad, f, skip, &line) != 0) {
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
        if (!bad) {
            json_t *cfg = json_pack("{s:s,s:s,s:I,s:I}", "driver", "pgbench", "script", script,
                                    "clients", (json_int_t)clients, "threads", (json_int_t)jobs);
            json_object_set_new(cfg, "scale", json_string(param(d, "scale", "1")));
            load = mtl_adapt_json(&ad, "pgbench", w->duration, cfg, NULL);
            mtb_driver_cpu(d, load, &ru, w->warmup + w->duration);
        }
        mtl_adapt_free(&ad);
    }
    free(prefix);
    free(logp);
    return load;
}

/* ---- db_bench (embedded) ------------------------------------------------------ */

static void dbbench_argv(const struct mtb_drive *d, struct mtb_argv *a, struct mtb_argv *envx, const char *bench,
                         double duration, int existing)
{
    const struct mtb_workload *w = d->run->wl;
    d->run->platform->wrap(a, envx, d->run->build->binary, d->svc_env);
    mtb_argv_pushf(a, "--benchmarks=%s", bench);
    mtb_argv_pushf(a, "--db=%s/db", d->rundir);
    mtb_argv_pushf(a, "--num=%ld", w->keys);
    mtb_argv_pushf(a, "--value_size=%ld", atol(w->value_size) > 0 ? atol(w->value_size) : 100);
    mtb_argv_pushf(a, "--threads=%ld", w->cores > 0 ? w->cores : w->threads); /* a sweep point: a thread per core */
    mtb_argv_pushf(a, "--use_existing_db=%d", existing);
    if (duration > 0)
        mtb_argv_pushf(a, "--duration=%ld", (long)(duration + 0.5));
    long s, g;
    mix_parts(w->mix, &s, &g);
    mtb_argv_pushf(a, "--readwritepercent=%ld", s + g > 0 ? (100 * g) / (s + g) : 90);
    mtb_argv_push(a, "--histogram=1");
    mtb_argv_push(a, "--statistics=1");
    mtb_argv_push(a, "--compression_type=none");
    const char *extra = param(d, "db_bench_args", NULL);
    if (extra)
        mtb_argv_split(a, extra);
}

static int dbbench_exec(const struct mtb_drive *d, const char *bench, double duration, int existing,
                        const char *logp, int measured)
{
    struct mtb_argv a = { 0 }, envx = { 0 };
    dbbench_argv(d, &a, &envx, bench, duration, existing);
    int st = mtb_driver_exec_seen(d, &a, envx.v, logp, d->svc_cpus, d->nsvc, d->user, d->numa_node, d->service_seen,
                                  measured ? d->measured_start : NULL, d->measured_arg);
    mtb_argv_free(&a);
    mtb_argv_free(&envx);
    return st;
}

static int needs_existing(const char *bench) { return strncmp(bench, "fill", 4) != 0; }

int mtb_dbbench_preload(const struct mtb_drive *d, char *why, size_t n)
{
    const char *bench = param(d, "benchmark", "readrandomwriterandom");
    if (!needs_existing(bench))
        return 0;
    char *logp = mtb_asprintf("%s/db_bench-preload.log", d->rundir);
    int rc = failed(dbbench_exec(d, "fillseq", 0, 0, logp, 0), "db_bench fillseq (preload)", logp, why, n);
    free(logp);
    return rc;
}

json_t *mtb_dbbench_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const struct mtb_workload *w = d->run->wl;
    const char *bench = param(d, "benchmark", "readrandomwriterandom");
    int existing = needs_existing(bench);
    char *wlog = mtb_asprintf("%s/db_bench-warmup.log", d->rundir);
    char *logp = mtb_asprintf("%s/db_bench.log", d->rundir);
    json_t *load = NULL;
    if (w->warmup > 0 && failed(dbbench_exec(d, bench, w->warmup, existing, wlog, 0), "db_bench warm-up", wlog, why, n))
        goto out;
    if (failed(dbbench_exec(d, bench, w->duration, existing, logp, 1), "db_bench", logp, why, n))
        goto out;
    char *text = mtb_read_file(logp, NULL);
    struct mtl_adapt ad;
    mtl_adapt_init(&ad);
    double ops = 0, secs = 0;
    uint64_t nops = 0;
    if (!text || mtl_adapt_dbbench(&ad, text, bench, &ops, &secs, &nops) != 0) {
        snprintf(why, n, "no '%s' result line in %s", bench, logp);
    } else {
        json_t *cfg = json_pack("{s:s,s:s,s:I}", "driver", "db_bench", "benchmark", bench, "threads",
                                (json_int_t)(w->cores > 0 ? w->cores : w->threads));
        load = mtl_adapt_json(&ad, "db_bench", secs > 0 ? secs : w->duration, cfg, NULL);
        /* db_bench's own figure is authoritative for throughput */
        json_object_set_new(json_object_get(load, "totals"), "ops_per_sec", json_real(ops));
        json_object_set_new(json_object_get(load, "totals"), "requests", json_integer((json_int_t)nops));
        /* RocksDB's statistics, for cross-checks ("rocksdb.number.keys.read COUNT : N") */
        json_t *stats = json_object();
        for (const char *p = strstr(text, "rocksdb.number."); p; p = strstr(p + 1, "rocksdb.number.")) {
            char key[128];
            unsigned long long v;
            if (sscanf(p, "%127s COUNT : %llu", key, &v) == 2)
                json_object_set_new(stats, key, json_integer((json_int_t)v));
        }
        json_object_set_new(load, "rocksdb_statistics", stats);
    }
    mtl_adapt_free(&ad);
    free(text);
out:
    free(wlog);
    free(logp);
    return load;
}

/* ---- wrk ------------------------------------------------------------------ */

static int wrk_exec(const struct mtb_drive *d, double secs, const char *logp, struct rusage *ru)
{
    const struct mtb_workload *w = d->run->wl;
    struct mtb_argv a = { 0 };
    mtb_argv_push(&a, "wrk");
    mtb_argv_pushf(&a, "-t%ld", w->threads);
    mtb_argv_pushf(&a, "-c%ld", w->conns);
    mtb_argv_pushf(&a, "-d%lds", (long)(secs + 0.5) > 0 ? (long)(secs + 0.5) : 1);
    mtb_argv_push(&a, "--timeout=5s");
    mtb_argv_pushf(&a, "-s%s/loadgen/wrk-report.lua", mtb_root());
    const char *path = param(d, "wrk_path", "/");
    mtb_argv_pushf(&a, "%s://127.0.0.1:%d%s", strcmp(param(d, "https", "no"), "yes") ? "http" : "https", d->port, path);
    int st = mtb_driver_exec_client(d, &a, logp, ru);
    mtb_argv_free(&a);
    return st;
}

json_t *mtb_wrk_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const struct mtb_workload *w = d->run->wl;
    char *wlog = mtb_asprintf("%s/wrk-warmup.log", d->rundir);
    char *logp = mtb_asprintf("%s/wrk.log", d->rundir);
    json_t *load = NULL;
    struct rusage ru = { 0 };
    if (w->warmup > 0 && failed(wrk_exec(d, w->warmup, wlog, &ru), "wrk warm-up", wlog, why, n))
        goto out;
    if (failed(wrk_exec(d, w->duration, logp, &ru), "wrk", logp, why, n))
        goto out;
    char *text = mtb_read_file(logp, NULL);
    struct mtl_adapt ad;
    mtl_adapt_init(&ad);
    double secs = 0;
    json_t *errors = json_object();
    if (!text || mtl_adapt_wrk(&ad, text, &secs, errors) != 0) {
        snprintf(why, n, "no wrk report lines in %s", logp);
        json_decref(errors);
    } else {
        json_t *cfg = json_pack("{s:s,s:I,s:I,s:s}", "driver", "wrk", "threads", (json_int_t)w->threads, "conns",
                                (json_int_t)w->conns, "path", param(d, "wrk_path", "/"));
        load = mtl_adapt_json(&ad, "wrk", secs, cfg, errors);
        mtb_driver_cpu(d, load, &ru, secs);
    }
    mtl_adapt_free(&ad);
    free(text);
out:
    free(wlog);
    free(logp);
    return load;
}
