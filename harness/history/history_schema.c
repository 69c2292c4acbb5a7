/* history_schema.c - the history's schema (history.h describes it): the
 * tables, generated from record.h's metric table; the overheads derived from
 * a night's runs; the check that tables named like ours are ours; the
 * migrations from older versions, and creating or migrating it all in one
 * write transaction. */
#include "lib/jsonx.h"
#include "history/history.h"
#include "history/history_db.h"
#include "core/record.h"
#include "core/record_env.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- schema ------------------------------------------------------------------ */

/* Version 4, the current layout (history.h). Version 1 was the runs table
 * alone, with the columns id, plan, service, workload, variant, mode,
 * platform, kernel, started, rep, mtebench_version, build_key, status,
 * ops_per_sec, p50_us, p99_us, p999_us and record (see migrate_1_to_2);
 * 3 added emulated, 4 host. runs.steal (the hypervisor's share of the
 * run's CPUs, record.steal.share) is additive, like the metric columns: an
 * older history gains it, NULL in its runs; runs.allocator likewise,
 * 'glibc' in its runs. */
static const char schema_nights[] =
    "CREATE TABLE nights(id @ID@, plan TEXT NOT NULL, started TEXT NOT NULL,"
    " results_dir TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', mtebench_version TEXT NOT NULL DEFAULT '',"
    " report TEXT NOT NULL DEFAULT '');";
/* The history's metrics of one kind (runs: run metrics, overheads: pair
 * metrics, those of record.h's table marked MTB_V_HISTORY), each written
 * with fmt (%1$s the key, %2$s arg) and joined: the metric columns of
 * every statement are generated from the table. */
char *mtb_hdb_metric_join(int pairs, const char *fmt, const char *arg)
{
    char *out = mtb_strdup("");
    size_t n = pairs ? MTB_NPAIR_METRICS : MTB_NRUN_METRICS;
    for (size_t m = 0; m < n; m++) {
        int views = pairs ? mtb_pair_metrics[m].views : mtb_run_metrics[m].views;
        if (!(views & MTB_V_HISTORY))
            continue;
        char *one = mtb_asprintf(fmt, pairs ? mtb_pair_metrics[m].key : mtb_run_metrics[m].key, arg ? arg : "");
        char *x = mtb_asprintf("%s%s", out, one);
        free(one);
        free(out);
        out = x;
    }
    return out;
}
static char *metric_columns(int pairs) { return mtb_hdb_metric_join(pairs, " %1$s @REAL@,", NULL); }

static char *schema_runs(void)
{
    char *m = metric_columns(0);
    char *s = mtb_asprintf(
        "CREATE TABLE runs(id @ID@, night @INT@ REFERENCES nights(id), plan TEXT NOT NULL,"
        " series TEXT NOT NULL DEFAULT '', config_hash TEXT NOT NULL DEFAULT '', service TEXT, workload TEXT,"
        " variant TEXT, mode TEXT, platform TEXT, kernel TEXT, machine TEXT NOT NULL DEFAULT '', started TEXT,"
        " rep @INT@, mtebench_version TEXT, build_key TEXT, kernel_release TEXT NOT NULL DEFAULT '',"
        " kernel_build TEXT NOT NULL DEFAULT '', status TEXT,%s emulated @INT@ NOT NULL DEFAULT 0,"
        " host TEXT NOT NULL DEFAULT '', record TEXT UNIQUE, steal @REAL@);", m);
    free(m);
    return s;
}

static char *schema_overheads(void)
{
    char *m = metric_columns(1);
    char *s = mtb_asprintf(
        "CREATE TABLE overheads(id @ID@, night @INT@ NOT NULL REFERENCES nights(id), plan TEXT,"
        " series TEXT NOT NULL, config_hash TEXT NOT NULL, service TEXT, workload TEXT, mode TEXT, platform TEXT,"
        " kernel TEXT, machine TEXT, rep @INT@, started TEXT,%s base_build TEXT, tagged_build TEXT,"
        " emulated @INT@ NOT NULL DEFAULT 0, host TEXT NOT NULL DEFAULT '', UNIQUE(series, night, rep));", m);
    free(m);
    return s;
}

/* Version 5: a capacity search's result per configuration and bound
 * (mtebench-capacity/1, a plan's entry with an slo, docs/CAPACITY.md): the
 * capacity and its interval, the closed-loop throughput of the pilot, the
 * capacity overhead against the baseline (NULL for the baseline) and the
 * result file it came from (a file is added once). */
static const char schema_capacity[] =
    "CREATE TABLE capacity(id @ID@, night @INT@ NOT NULL REFERENCES nights(id), plan TEXT NOT NULL,"
    " series TEXT NOT NULL, config_hash TEXT NOT NULL, service TEXT, workload TEXT, variant TEXT, mode TEXT,"
    " platform TEXT, kernel TEXT, machine TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', started TEXT,"
    " bound TEXT NOT NULL, arrival TEXT, confidence @REAL@, status TEXT NOT NULL, capacity @REAL@, lo @REAL@,"
    " hi @REAL@, closed_loop_ops @REAL@, overhead @REAL@, overhead_lo @REAL@, overhead_hi @REAL@,"
    " baseline @INT@ NOT NULL DEFAULT 0, emulated @INT@ NOT NULL DEFAULT 0, mtebench_version TEXT,"
    " build_key TEXT, result TEXT NOT NULL, UNIQUE(series, night), UNIQUE(result, series));";
static const char capacity_shape[] =
    "id, night, plan, series, config_hash, service, workload, variant, mode, platform, kernel, machine, host,"
    " started, bound, arrival, confidence, status, capacity, lo, hi, closed_loop_ops, overhead, overhead_lo,"
    " overhead_hi, baseline, emulated, mtebench_version, build_key, result";

/* Version 6: MTE's work counted per request (a plan's `count`, a counted
 * run's record: core/work.h's quantities, on the service's vCPU or, where
 * the account does not keep it apart, all vCPUs: role), one row per counted
 * record (a file is added once). */
static const char schema_work[] =
    "CREATE TABLE work(id @ID@, night @INT@ NOT NULL REFERENCES nights(id), plan TEXT NOT NULL,"
    " series TEXT NOT NULL, config_hash TEXT NOT NULL, service TEXT, workload TEXT, variant TEXT, mode TEXT,"
    " platform TEXT, kernel TEXT, machine TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', started TEXT,"
    " role TEXT NOT NULL, requests @REAL@, el0_insns @REAL@, el1_insns @REAL@, el0_tag_insns @REAL@,"
    " el1_tag_insns @REAL@, el0_tag_bytes @REAL@, el1_tag_bytes @REAL@, el0_checked @REAL@, el1_checked @REAL@,"
    " mtebench_version TEXT, build_key TEXT, kernel_release TEXT NOT NULL DEFAULT '',"
    " kernel_build TEXT NOT NULL DEFAULT '', record TEXT NOT NULL, UNIQUE(record));";
static const char work_shape[] =
    "id, night, plan, series, config_hash, service, workload, variant, mode, platform, kernel, machine, host,"
    " started, role, requests, el0_insns, el1_insns, el0_tag_insns, el1_tag_insns, el0_tag_bytes, el1_tag_bytes,"
    " el0_checked, el1_checked, mtebench_version, build_key, kernel_release, kernel_build, record";

static const char schema_indexes[] =
    "CREATE INDEX IF NOT EXISTS runs_series ON runs(series, night);"
    "CREATE INDEX IF NOT EXISTS overheads_series ON overheads(series, night);";
static const char schema_indexes_5[] = "CREATE INDEX IF NOT EXISTS capacity_series ON capacity(series, night);";
static const char schema_indexes_6[] = "CREATE INDEX IF NOT EXISTS work_series ON work(series, night);";
/* every column of schema 2 (runs and overheads gain "emulated" in 3, "host"
 * in 4): a table named like ours that lacks one is not ours */
static const char *const shape[][2] = {
    { "nights", "id, plan, started, results_dir, host, mtebench_version, report" },
    { "runs", "id, night, plan, series, config_hash, service, workload, variant, mode, platform, kernel, machine,"
              " started, rep, mtebench_version, build_key, kernel_release, kernel_build, status, ops_per_sec, p50_us,"
              " p99_us, p999_us, record" },
    { "overheads", "id, night, plan, series, config_hash, service, workload, mode, platform, kernel, machine, rep,"
                   " started, slowdown, p99_ratio, base_build, tagged_build" },
};

/* ---- overheads ---------------------------------------------------------------------- */

/* The pairs of one night, under record.h's pairing rule (the join
 * condition is generated from it): each tagged run with the plain/off run of
 * the same night, repetition, plan, service, workload, platform, kernel,
 * machine and host; one column per pair metric of the table. */
int mtb_hdb_derive_overheads(struct mtb_history *h, long long night, char *err, size_t errlen)
{
    char *cols = mtb_strdup(""), *vals = mtb_strdup("");
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        if (!(d->views & MTB_V_HISTORY))
            continue;
        /* the runs table holds the compared figure only if its run metric is in the history */
        const char *of = mtb_run_metrics[d->of].key;
        int have = mtb_run_metrics[d->of].views & MTB_V_HISTORY;
        char *c = mtb_asprintf("%s %s,", cols, d->key);
        char *v = have ? mtb_asprintf("%s CASE WHEN %s.%s > 0 THEN %s.%s / %s.%s END,", vals, d->tagged_num ? "b" : "t",
                                      of, d->tagged_num ? "t" : "b", of, d->tagged_num ? "b" : "t", of)
                       : mtb_asprintf("%s NULL,", vals);
        free(cols);
        free(vals);
        cols = c;
        vals = v;
    }
    char *join = mtb_record_pair_sql("t", "b");
    char *sql = mtb_asprintf(
        "INSERT INTO overheads(night, plan, series, config_hash, service, workload, mode, platform, kernel,"
        " machine, rep, started,%s base_build, tagged_build, emulated, host)"
        " SELECT t.night, t.plan, 'overhead:' || t.series, t.config_hash, t.service, t.workload, t.mode, t.platform,"
        " t.kernel, t.machine, t.rep, t.started,%s b.build_key, t.build_key, t.emulated, t.host"
        " FROM runs t JOIN runs b ON %s"
        " WHERE t.night = ?1 AND t.status = 'ok' AND b.status = 'ok'"
        " AND t.ops_per_sec > 0 AND b.ops_per_sec > 0 ORDER BY t.id ON CONFLICT DO NOTHING", cols, vals, join);
    struct hp p[1] = { PINT(night) };
    int rc = mtb_hdb_q(h, sql, p, 1, NULL, err, errlen);
    free(sql);
    free(join);
    free(cols);
    free(vals);
    return rc;
}


/* ---- migrations ------------------------------------------------------------------------ */

/* ALTER TABLE table ADD COLUMN col type, unless the table has it already */
static int add_column(struct mtb_history *h, const char *table, const char *col, const char *type, char *err,
                      size_t errlen)
{
    struct hp p[2] = { PTEXT(table), PTEXT(col) };
    long long n = 0;
    int rc = mtb_hdb_q_int(h, h->be->count_column, p, 2, &n, err, errlen);
    if (rc || n)
        return rc;
    char *sql = mtb_asprintf("ALTER TABLE %s ADD COLUMN %s %s;", table, col, type);
    rc = mtb_hdb_exec(h, sql, err, errlen);
    free(sql);
    return rc;
}

/* Every metric column of record.h's table that the history lacks is added
 * (additive, no version change: older nights hold NULL there, which the
 * nightly skips; an older mtebench ignores the column). */
static int ensure_metric_columns(struct mtb_history *h, char *err, size_t errlen)
{
    /* runs.allocator (allocator.h), additive too: every older run was glibc's; the
     * pairing rule's join (record.h's MTB_PAIR_FIELDS) reads it */
    int rc = add_column(h, "runs", "allocator", "TEXT NOT NULL DEFAULT 'glibc'", err, errlen);
    for (size_t m = 0; !rc && m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_HISTORY)
            rc = add_column(h, "runs", mtb_run_metrics[m].key, "@REAL@", err, errlen);
    for (size_t m = 0; !rc && m < MTB_NPAIR_METRICS; m++)
        if (mtb_pair_metrics[m].views & MTB_V_HISTORY)
            rc = add_column(h, "overheads", mtb_pair_metrics[m].key, "@REAL@", err, errlen);
    return rc;
}

/* The record a runs row names (its file, "host:path" in a shared store:
 * read only on that host, where the path is that record's), or NULL */
static json_t *row_record(struct mtb_history *h, const char *file)
{
    if (h->be->shared && *file != '/' && strchr(file, ':')) {
        char me[256] = "";
        gethostname(me, sizeof me - 1);
        size_t n = (size_t)(strchr(file, ':') - file);
        if (n != strlen(me) || strncmp(file, me, n))
            return NULL;
        file += n + 1;
    }
    json_t *rec = *file ? json_load_file(file, 0, NULL) : NULL;
    if (!json_is_object(rec) || !mtb_record_has_config(rec)) {
        json_decref(rec);
        return NULL;
    }
    return rec;
}

/* Version 3 adds runs.emulated and overheads.emulated: the record's
 * platform.emulated, read from the record file where it still exists, else
 * what version 2's nightly assumed (platform "emu"). */
static int migrate_2_to_3(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = add_column(h, "runs", "emulated", "@INT@ NOT NULL DEFAULT 0", err, errlen);
    if (!rc)
        rc = add_column(h, "overheads", "emulated", "@INT@ NOT NULL DEFAULT 0", err, errlen);
    struct hres sel;
    if (rc || (rc = mtb_hdb_q(h, "SELECT id, record, platform FROM runs ORDER BY id", NULL, 0, &sel, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(sel.rows); r++) {
        json_t *rec = row_record(h, mtb_hdb_row_str(&sel, r, 1));
        int emu = rec ? mtb_record_emulated(rec) : !strcmp(mtb_hdb_row_str(&sel, r, 2), "emu");
        struct hp p[2] = { PINT(mtb_hdb_row_int(&sel, r, 0)), PINT(emu) };
        rc = mtb_hdb_q(h, "UPDATE runs SET emulated = ?2 WHERE id = ?1", p, 2, NULL, err, errlen);
        json_decref(rec);
    }
    mtb_hdb_free(&sel);
    if (!rc)
        rc = mtb_hdb_exec(h, "UPDATE overheads SET emulated = coalesce((SELECT max(r.emulated) FROM runs r WHERE"
                     " 'overhead:' || r.series = overheads.series AND r.night = overheads.night"
                     " AND r.rep = overheads.rep), 0);", err, errlen);
    return rc;
}

/* Version 1's runs get their series keys, machine and kernel build: from
 * the record file where it still exists, else from the columns version 1
 * kept (such runs form series of their own). */
static int rekey_v1_runs(struct mtb_history *h, char *err, size_t errlen)
{
    int rc;
    struct hres sel;
    if ((rc = mtb_hdb_q(h, "SELECT id, record, plan, service, workload, variant, mode, platform, kernel FROM runs ORDER BY id",
                NULL, 0, &sel, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(sel.rows); r++) {
        const char *col[9];
        for (int i = 1; i < 9; i++)
            col[i] = mtb_hdb_row_str(&sel, r, (size_t)i);
        /* a shared store keys records by host: host:/path */
        json_t *rec = row_record(h, col[1]);
        char *key = NULL, hash[13], *mach = NULL, kb[13] = "", *wl = NULL;
        const char *krel = "";
        if (rec) {
            mtb_hdb_config_key(rec, &key, hash); /* schema 2's key: migrate_3_to_4 adds the host */
            mach = mtb_record_machine_text(rec);
            struct mtb_rec_config c;
            mtb_rec_config_view(rec, &c);
            wl = mtb_workload_key(c.workload);
            struct mtb_rec_env e;
            mtb_rec_env_read(rec, &e);
            krel = e.uname_r;
            if (*e.uname_v)
                mtb_hdb_short_hash(e.uname_v, kb);
            mtb_rec_env_free(&e);
        } else {
            char *full = mtb_asprintf("v1|%s|%s|%s|%s|%s|%s|%s", col[2], col[3], col[4], col[5], col[6], col[7],
                                      col[8]);
            mtb_hdb_short_hash(full, hash);
            key = mtb_asprintf("%s/%s/%s/%s/%s/%s/%s/schema-1#%s", col[2], col[3], col[4], col[5], col[6], col[7],
                               col[8], hash);
            mach = mtb_strdup("");
            free(full);
        }
        struct hp p[7] = { PINT(mtb_hdb_row_int(&sel, r, 0)), PTEXT(key), PTEXT(hash), PTEXT(mach), PTEXT(krel), PTEXT(kb),
                           wl ? PTEXT(wl) : PNULL };
        rc = mtb_hdb_q(h, "UPDATE runs SET series = ?2, config_hash = ?3, machine = ?4, kernel_release = ?5,"
                  " kernel_build = ?6, workload = coalesce(?7, workload) WHERE id = ?1", p, 7, NULL, err, errlen);
        free(key);
        free(mach);
        free(wl);
        json_decref(rec);
    }
    mtb_hdb_free(&sel);
    return rc;
}

static int migrate_1_to_2(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = mtb_hdb_exec(h, schema_nights, err, errlen);
    static const char *const alters[] = {
        "ALTER TABLE runs ADD COLUMN night @INT@ REFERENCES nights(id);",
        "ALTER TABLE runs ADD COLUMN series TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN config_hash TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN machine TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN kernel_release TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN kernel_build TEXT NOT NULL DEFAULT '';",
        /* version 1 had no nights: one night per plan and UTC day */
        "INSERT INTO nights(plan, started, results_dir) SELECT plan, min(started), 'migrated from schema 1'"
        " FROM runs GROUP BY plan, substr(started, 1, 10) ORDER BY min(started);",
        "UPDATE runs SET night = (SELECT n.id FROM nights n WHERE n.plan = runs.plan"
        " AND substr(n.started, 1, 10) = substr(runs.started, 1, 10));",
        NULL,
    };
    for (int i = 0; !rc && alters[i]; i++)
        rc = mtb_hdb_exec(h, alters[i], err, errlen);
    if (!rc) /* mtb_hdb_derive_overheads reads them */
        rc = add_column(h, "runs", "emulated", "@INT@ NOT NULL DEFAULT 0", err, errlen);
    if (!rc)
        rc = add_column(h, "runs", "host", "TEXT NOT NULL DEFAULT ''", err, errlen);
    if (!rc)
        rc = add_column(h, "runs", "p999_us", "@REAL@", err, errlen);
    if (!rc)
        rc = add_column(h, "runs", "allocator", "TEXT NOT NULL DEFAULT 'glibc'", err, errlen);
    if (!rc) {
        char *so = schema_overheads();
        rc = mtb_hdb_exec(h, so, err, errlen);
        free(so);
    }
    if (rc)
        return rc;
    if ((rc = rekey_v1_runs(h, err, errlen)) != 0)
        return rc;
    struct hres nights;
    if ((rc = mtb_hdb_q(h, "SELECT id FROM nights ORDER BY id", NULL, 0, &nights, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(nights.rows); r++)
        rc = mtb_hdb_derive_overheads(h, mtb_hdb_row_int(&nights, r, 0), err, errlen);
    mtb_hdb_free(&nights);
    return rc;
}

/* Version 4 adds runs.host and overheads.host: the host each run ran on,
 * from its record file where it still exists (mtb_record_host), else
 * "unknown"; every series key gains " on HOST" before its hash, so that the
 * runs of two hosts that shared a series in schema 3 are split into one
 * series per host and an old series goes on under the same key when its
 * host adds nights. The overheads are derived again from the runs, night by
 * night, under the pairing rule that now keeps hosts apart (schema 3 could
 * pair a tagged run with another host's baseline of the same night). */
static int migrate_3_to_4(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = add_column(h, "runs", "host", "TEXT NOT NULL DEFAULT ''", err, errlen);
    if (!rc)
        rc = add_column(h, "overheads", "host", "TEXT NOT NULL DEFAULT ''", err, errlen);
    struct hres sel;
    if (rc || (rc = mtb_hdb_q(h, "SELECT id, record, series FROM runs ORDER BY id", NULL, 0, &sel, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(sel.rows); r++) {
        json_t *rec = row_record(h, mtb_hdb_row_str(&sel, r, 1));
        const char *host = mtb_hdb_host(rec);
        char *key = mtb_hdb_key_on_host(mtb_hdb_row_str(&sel, r, 2), host);
        struct hp p[3] = { PINT(mtb_hdb_row_int(&sel, r, 0)), PTEXT(host), PTEXT(key) };
        rc = mtb_hdb_q(h, "UPDATE runs SET host = ?2, series = ?3 WHERE id = ?1", p, 3, NULL, err, errlen);
        free(key);
        json_decref(rec);
    }
    mtb_hdb_free(&sel);
    /* the derivation writes every pair metric of the table: the columns first */
    if (rc || (rc = ensure_metric_columns(h, err, errlen)) != 0 ||
        (rc = mtb_hdb_exec(h, "DELETE FROM overheads;", err, errlen)) != 0)
        return rc;
    struct hres nights;
    if ((rc = mtb_hdb_q(h, "SELECT id FROM nights ORDER BY id", NULL, 0, &nights, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(nights.rows); r++)
        rc = mtb_hdb_derive_overheads(h, mtb_hdb_row_int(&nights, r, 0), err, errlen);
    mtb_hdb_free(&nights);
    return rc;
}

/* Version 5 adds the capacity table (empty: older nights had no capacity
 * searches in the history). */
static int migrate_4_to_5(struct mtb_history *h, char *err, size_t errlen)
{
    char *sql = mtb_asprintf("%s%s", schema_capacity, schema_indexes_5);
    int rc = mtb_hdb_exec(h, sql, err, errlen);
    free(sql);
    return rc;
}

/* Version 6 adds the work table (empty: older nights counted nothing). */
static int migrate_5_to_6(struct mtb_history *h, char *err, size_t errlen)
{
    char *sql = mtb_asprintf("%s%s", schema_work, schema_indexes_6);
    int rc = mtb_hdb_exec(h, sql, err, errlen);
    free(sql);
    return rc;
}

/* migrations[v] takes version v to v + 1 */
static int (*const migrations[])(struct mtb_history *, char *, size_t) = { NULL, migrate_1_to_2, migrate_2_to_3,
                                                                           migrate_3_to_4, migrate_4_to_5,
                                                                           migrate_5_to_6 };


/* ---- creating, checking and migrating ------------------------------------------------------ */

/* the tables must be ours: each has every column of its schema version (2 or later) */
static int check_shape(struct mtb_history *h, int version, char *err, size_t errlen)
{
    struct hp names[3] = { PTEXT("nights"), PTEXT("runs"), PTEXT("overheads") };
    long long ours = 0;
    int rc = mtb_hdb_q_int(h, h->be->count_ours, names, 3, &ours, err, errlen);
    if (rc)
        return rc;
    if (ours != 3) {
        snprintf(err, errlen, "history %s: schema version %d but %lld of its 3 tables (nights, runs, overheads); "
                 "not an mtebench history, or damaged", h->path, version, ours);
        return -EIO;
    }
    size_t nshape = sizeof shape / sizeof shape[0];
    for (size_t i = 0; i < nshape + (version >= 5) + (version >= 6); i++) {
        const char *table = i < nshape ? shape[i][0] : i == nshape ? "capacity" : "work";
        const char *cols = i < nshape ? shape[i][1] : i == nshape ? capacity_shape : work_shape;
        int v3 = i < nshape && version >= 3 && strcmp(table, "nights"), v4 = version >= 4 && v3;
        char *sql = mtb_asprintf("SELECT %s%s%s FROM %s WHERE 1 = 0", cols, v3 ? ", emulated" : "",
                                 v4 ? ", host" : "", table);
        char why[MTB_ERRLEN];
        rc = mtb_hdb_q(h, sql, NULL, 0, NULL, why, sizeof why);
        free(sql);
        if (rc) {
            const char *m = strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
            snprintf(err, errlen, "history %s: table %s is not shaped like an mtebench history's (%.200s); not an "
                     "mtebench history, or damaged: refusing to write into it", h->path, table, m);
            return -EIO;
        }
    }
    return 0;
}

/* A new history: nothing of ours yet (an SQLite file must be empty; a
 * PostgreSQL database may hold other programs' tables, but none named like
 * ours), then every table at the current version. */
static int create_schema(struct mtb_history *h, char *err, size_t errlen)
{
    struct hp names[3] = { PTEXT("nights"), PTEXT("runs"), PTEXT("overheads") };
    long long ntab = 0;
    int rc;
    if (h->be->shared)
        rc = mtb_hdb_q_int(h, h->be->count_ours, names, 3, &ntab, err, errlen);
    else
        rc = mtb_hdb_q_int(h, h->be->count_all, NULL, 0, &ntab, err, errlen);
    if (rc)
        return rc;
    if (ntab) {
        if (h->be->shared)
            snprintf(err, errlen, "history %s: the database has tables named like an mtebench history's "
                     "(nights, runs, overheads) but no mtebench schema version; not an mtebench history, "
                     "refusing to write into it", h->path);
        else
            snprintf(err, errlen, "history %s is an SQLite database but not an mtebench history (it has tables "
                     "and no schema version); refusing to write into it", h->path);
        return -EIO;
    }
    char *sr = schema_runs(), *so = schema_overheads();
    char *sql = mtb_asprintf("%s%s%s%s%s%s%s%s", schema_nights, sr, so, schema_capacity, schema_work, schema_indexes,
                             schema_indexes_5, schema_indexes_6);
    rc = mtb_hdb_exec(h, sql, err, errlen);
    free(sql);
    free(sr);
    free(so);
    return rc ? rc : h->be->set_version(h, MTB_HISTORY_VERSION, err, errlen);
}

/* Create or migrate the schema, in one write transaction (SQLite: BEGIN
 * IMMEDIATE; PostgreSQL: an advisory lock), so that two machines opening a
 * new or old history at once never both create or migrate it. */
int mtb_hdb_prepare_schema(struct mtb_history *h, int *created, char *err, size_t errlen)
{
    int rc = mtb_hdb_exec(h, h->be->begin, err, errlen);
    if (rc)
        return rc;
    if ((rc = h->be->get_version(h, &h->version, err, errlen)) != 0)
        goto fail;
    if (h->version < 0) {
        snprintf(err, errlen, "history %s: its schema_version table belongs to another program (no mtebench row); "
                 "not an mtebench history, refusing to write into it", h->path);
        rc = -EIO;
        goto fail;
    }
    if (h->version > MTB_HISTORY_VERSION) {
        snprintf(err, errlen, "history %s has schema version %d, newer than this mtebench's %d: use a newer "
                 "mtebench", h->path, h->version, MTB_HISTORY_VERSION);
        rc = -EPROTO;
        goto fail;
    }
    if (h->version == 0) {
        if ((rc = create_schema(h, err, errlen)) != 0)
            goto fail;
        if (created)
            *created = 1;
    } else if (h->version < MTB_HISTORY_VERSION) {
        /* from schema 2 on, the tables must be ours before they are migrated */
        if (h->version >= 2 && (rc = check_shape(h, h->version, err, errlen)) != 0)
            goto fail;
        for (int v = h->version; !rc && v < MTB_HISTORY_VERSION; v++) {
            rc = migrations[v](h, err, errlen);
            if (!rc)
                rc = h->be->set_version(h, v + 1, err, errlen);
        }
        if (!rc)
            rc = mtb_hdb_exec(h, schema_indexes, err, errlen);
        if (rc)
            goto fail;
    }
    /* the tables are ours (never alter another program's), then the metric columns */
    if ((rc = check_shape(h, MTB_HISTORY_VERSION, err, errlen)) != 0 ||
        (rc = ensure_metric_columns(h, err, errlen)) != 0 ||
        (rc = add_column(h, "runs", "steal", "@REAL@", err, errlen)) != 0)
        goto fail;
    if ((rc = mtb_hdb_exec(h, "COMMIT", err, errlen)) != 0)
        goto fail;
    h->version = MTB_HISTORY_VERSION;
    return 0;
fail:
    mtb_hdb_rollback(h);
    return rc;
}

