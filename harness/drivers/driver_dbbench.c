/* driver_dbbench.c - RocksDB's db_bench, embedded: the measured program is
 * the driver; its histograms folded into mtload's record format */
#include "loadgen/adapt.h"
#include "loadgen/workload.h"
#include "drivers/driver.h"
#include "core/load_rows.h"
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

/* ---- db_bench (embedded) ------------------------------------------------------ */

/* The workload's value size as db_bench's own options: a fixed size is
 * --value_size; a range MIN-MAX its uniform distribution (db_bench 7.8.3:
 * --value_size_distribution_type=uniform --value_size_min --value_size_max,
 * a size drawn per value). mtload's weighted list has no db_bench
 * counterpart: refused unless all its sizes are one. */
int mtb_dbbench_value_size(const char *spec, struct mtb_argv *a, char *why, size_t n)
{
    struct mtl_workload v;
    memset(&v, 0, sizeof v);
    if (!spec || mtl_workload_set_value_size(&v, spec) != 0) {
        snprintf(why, n, "db_bench: value_size '%s' is not N, MIN-MAX or N:W,...", spec ? spec : "");
        return -1;
    }
    if (v.vkind == MTL_VSIZE_LIST && v.vmin != v.vmax) {
        snprintf(why, n,
                 "db_bench does not honour the workload's value_size '%s': it has no weighted list of sizes "
                 "(accepted for db_bench: N, or MIN-MAX for its uniform distribution)",
                 spec);
        return -1;
    }
    if (v.vmin == v.vmax) {
        mtb_argv_pushf(a, "--value_size=%llu", (unsigned long long)v.vmin);
        return 0;
    }
    mtb_argv_push(a, "--value_size_distribution_type=uniform");
    mtb_argv_pushf(a, "--value_size_min=%llu", (unsigned long long)v.vmin);
    mtb_argv_pushf(a, "--value_size_max=%llu", (unsigned long long)v.vmax);
    return 0;
}

static int dbbench_check(const struct mtb_workload *w, char *why, size_t n)
{
    struct mtb_argv a = { 0 };
    int rc = mtb_dbbench_value_size(w->value_size, &a, why, n);
    mtb_argv_free(&a);
    return rc;
}

/* @return 0, or -1 with why (a value size db_bench cannot take; refused
 * before any run by mtb_driver_check, so only a caller that skipped it) */
static int dbbench_argv(const struct mtb_drive *d, struct mtb_argv *a, struct mtb_argv *envx, const char *bench,
                        double duration, int existing, char *why, size_t n)
{
    const struct mtb_workload *w = d->wl;
    d->platform->wrap(a, envx, d->build->binary, d->svc_env);
    mtb_argv_pushf(a, "--benchmarks=%s", bench);
    mtb_argv_pushf(a, "--db=%s/db", d->rundir);
    mtb_argv_pushf(a, "--num=%ld", w->keys);
    if (mtb_dbbench_value_size(w->value_size, a, why, n) != 0)
        return -1;
    mtb_argv_pushf(a, "--threads=%ld", w->cores > 0 ? w->cores : w->threads); /* a sweep point: a thread per core */
    mtb_argv_pushf(a, "--use_existing_db=%d", existing);
    if (duration > 0)
        mtb_argv_pushf(a, "--duration=%ld", (long)(duration + 0.5));
    long s, g;
    mtb_driver_mix_parts(w->mix, &s, &g);
    mtb_argv_pushf(a, "--readwritepercent=%ld", s + g > 0 ? (100 * g) / (s + g) : 90);
    mtb_argv_push(a, "--histogram=1");
    mtb_argv_push(a, "--statistics=1");
    mtb_argv_push(a, "--compression_type=none");
    const char *extra = mtb_driver_param(d, "db_bench_args", NULL);
    if (extra)
        mtb_argv_split(a, extra);
    return 0;
}

static int dbbench_exec(const struct mtb_drive *d, const char *bench, double duration, int existing,
                        const char *logp, int measured)
{
    struct mtb_argv a = { 0 }, envx = { 0 };
    char why[MTB_ERRLEN];
    if (dbbench_argv(d, &a, &envx, bench, duration, existing, why, sizeof why) != 0) {
        mtb_warn("%s", why);
        mtb_argv_free(&a);
        mtb_argv_free(&envx);
        return -EINVAL;
    }
    int st = mtb_driver_spawn(d, &(struct mtb_spawn){ .argv = a.v, .env_add = envx.v, .log_path = logp,
                                                      .cpus = d->svc_cpus, .ncpus = d->nsvc, .user = d->user,
                                                      .numa_bind = d->numa_node >= 0, .numa_node = d->numa_node,
                                                      .affinity_out = d->service_seen,
                                                      .affinity_len = d->service_seen ? 256 : 0,
                                                      .on_start = measured ? d->measured_start : NULL,
                                                      .on_start_arg = d->measured_arg });
    mtb_argv_free(&a);
    mtb_argv_free(&envx);
    return st;
}

static int needs_existing(const char *bench) { return strncmp(bench, "fill", 4) != 0; }

static int dbbench_preload(const struct mtb_drive *d, char *why, size_t n)
{
    const char *bench = mtb_driver_param(d, "benchmark", "readrandomwriterandom");
    if (!needs_existing(bench))
        return 0;
    char *logp = mtb_asprintf("%s/db_bench-preload.log", d->rundir);
    int rc = mtb_driver_failed(dbbench_exec(d, "fillseq", 0, 0, logp, 0), "db_bench fillseq (preload)", logp, why, n);
    free(logp);
    return rc;
}

static int dbbench_run(const struct mtb_drive *d, double secs, const char *logp, int measured, void *bench)
{
    return dbbench_exec(d, bench, secs, needs_existing(bench), logp, measured);
}

/* The objtag variant's tag operations over the measured benchmark: db_bench
 * (patches/rocksdb/objtag/) prints "mtebench objtag: before the benchmark:
 * ops N granules M" once the database is open (the write-ahead log replayed),
 * starts counting again, and prints "mtebench objtag: ops N granules M" at
 * exit. With requests = the benchmark's operations, as the summary divides
 * them (NULL without both lines: another build, or tagging off). */
static json_t *objtag_counts(const char *text, uint64_t nops)
{
    static const char pre[] = "mtebench objtag: before the benchmark: ";
    unsigned long long ops = 0, gr = 0;
    int before = 0, at_exit = 0;
    for (const char *p = strstr(text, "mtebench objtag: "); p; p = strstr(p + 1, "mtebench objtag: ")) {
        if (p != text && p[-1] != '\n' && p[-1] != '\r') /* a line of its own */
            continue;
        if (!strncmp(p, pre, sizeof pre - 1))
            before = 1;
        else if (before && sscanf(p, "mtebench objtag: ops %llu granules %llu", &ops, &gr) == 2)
            at_exit = 1;
    }
    if (!at_exit)
        return NULL;
    return json_pack("{s:I,s:I,s:I}", "objtag_ops", (json_int_t)ops, "objtag_granules", (json_int_t)gr, "requests",
                     (json_int_t)nops);
}

static json_t *dbbench_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const struct mtb_workload *w = d->wl;
    const char *bench = mtb_driver_param(d, "benchmark", "readrandomwriterandom");
    json_t *load = NULL;
    char *logp, *text;
    if (mtb_driver_warm_measure(d, "db_bench", dbbench_run, (void *)bench, &logp, &text, why, n) != 0)
        goto out;
    struct mtl_adapt ad;
    mtl_adapt_init(&ad);
    double ops = 0, secs = 0;
    uint64_t nops = 0;
    if (!text || mtl_adapt_dbbench(&ad, text, bench, &ops, &secs, &nops) != 0) {
        snprintf(why, n, "no '%s' result line in %s", bench, logp);
    } else {
        json_t *cfg = json_pack("{s:s,s:s,s:I,s:s}", "driver", "db_bench", "benchmark", bench, "threads",
                                (json_int_t)(w->cores > 0 ? w->cores : w->threads), "value_size", w->value_size);
        load = mtl_adapt_json(&ad, "db_bench", secs > 0 ? secs : w->duration, cfg, NULL);
        /* db_bench's own figure is authoritative for throughput */
        mtb_load_set_total(load, "ops_per_sec", json_real(ops));
        mtb_load_set_total(load, "requests", json_integer((json_int_t)nops));
        /* RocksDB's statistics, for cross-checks ("rocksdb.number.keys.read COUNT : N") */
        json_t *stats = json_object();
        for (const char *p = strstr(text, "rocksdb.number."); p; p = strstr(p + 1, "rocksdb.number.")) {
            char key[128];
            unsigned long long v;
            if (sscanf(p, "%127s COUNT : %llu", key, &v) == 2)
                json_object_set_new(stats, key, json_integer((json_int_t)v));
        }
        json_object_set_new(load, "rocksdb_statistics", stats);
        if (d->own_counters)
            *d->own_counters = objtag_counts(text, nops);
    }
    mtl_adapt_free(&ad);
    free(text);
    free(logp);
out:;
    char *db = mtb_asprintf("%s/db", d->rundir); /* the database is working data, not a result */
    if (mtb_file_exists(db))
        mtb_mark_scratch(db);
    free(db);
    return load;
}

const struct mtb_driver mtb_driver_dbbench = {
    .name = "db_bench",
    .summary = "RocksDB's db_bench (embedded: the measured program itself)",
    .embedded = 1,
    /* conns, pipeline and rate have no db_bench counterpart here (its
     * rate limits are per reads or bytes written, not requests) */
    .honours = 1u << MTB_WL_mix | 1u << MTB_WL_keys | 1u << MTB_WL_value_size | 1u << MTB_WL_threads |
               1u << MTB_WL_duration | 1u << MTB_WL_warmup,
    .check = dbbench_check,
    .preload = dbbench_preload,
    .measure = dbbench_measure,
};
