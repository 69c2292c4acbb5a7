/* history.c - see history.h */
#include "jsonx.h"
#include "history.h"
#include "summary.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mtb_history {
    sqlite3 *db;
    char *path;
    int version;
};

/* ---- schema ------------------------------------------------------------------ */

/* Version 2, the current layout. Version 1 was the runs table alone, with the
 * columns id, plan, service, workload, variant, mode, platform, kernel,
 * started, rep, mtebench_version, build_key, status, ops_per_sec, p50_us,
 * p99_us, p999_us and record (see migrate_1_to_2). */
static const char schema_nights[] =
    "CREATE TABLE nights(id INTEGER PRIMARY KEY, plan TEXT NOT NULL, started TEXT NOT NULL,"
    " results_dir TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', mtebench_version TEXT NOT NULL DEFAULT '',"
    " report TEXT NOT NULL DEFAULT '');";
static const char schema_runs[] =
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, night INTEGER REFERENCES nights(id), plan TEXT NOT NULL,"
    " series TEXT NOT NULL DEFAULT '', config_hash TEXT NOT NULL DEFAULT '', service TEXT, workload TEXT,"
    " variant TEXT, mode TEXT, platform TEXT, kernel TEXT, machine TEXT NOT NULL DEFAULT '', started TEXT,"
    " rep INTEGER, mtebench_version TEXT, build_key TEXT, kernel_release TEXT NOT NULL DEFAULT '',"
    " kernel_build TEXT NOT NULL DEFAULT '', status TEXT, ops_per_sec REAL, p50_us REAL, p99_us REAL,"
    " p999_us REAL, record TEXT UNIQUE);";
static const char schema_overheads[] =
    "CREATE TABLE overheads(id INTEGER PRIMARY KEY, night INTEGER NOT NULL REFERENCES nights(id), plan TEXT,"
    " series TEXT NOT NULL, config_hash TEXT NOT NULL, service TEXT, workload TEXT, mode TEXT, platform TEXT,"
    " kernel TEXT, machine TEXT, rep INTEGER, started TEXT, slowdown REAL, p99_ratio REAL, base_build TEXT,"
    " tagged_build TEXT, UNIQUE(series, night, rep));";
static const char schema_indexes[] =
    "CREATE INDEX IF NOT EXISTS runs_series ON runs(series, night);"
    "CREATE INDEX IF NOT EXISTS overheads_series ON overheads(series, night);";

static int exec(struct mtb_history *h, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "history %s: %s (in: %.80s)", h->path, msg ? msg : sqlite3_errmsg(h->db), sql);
        sqlite3_free(msg);
        return -EIO;
    }
    return 0;
}

static int prepare(struct mtb_history *h, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(h->db, sql, -1, st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "history %s: %s", h->path, sqlite3_errmsg(h->db));
        return -EIO;
    }
    return 0;
}

/* ---- series keys ---------------------------------------------------------------- */

static void short_hash(const char *text, char out[13])
{
    struct mtb_hash *hs = mtb_hash_new();
    char hex[65];
    mtb_hash_str(hs, "series", text);
    mtb_hash_final(hs, hex);
    memcpy(out, hex, 12);
    out[12] = 0;
}

/* the machine profile as canonical text: what the runs were pinned to.
 * The profile's first keys always; the later ones (NUMA node, sweep, raw
 * events, ...) only when set, so that series recorded before they existed
 * keep their keys; never the file's path. */
static char *machine_text(json_t *rec)
{
    json_t *m = json_object_get(rec, "machine");
    if (!json_is_object(m))
        return mtb_strdup("");
    static const char *const base[] = { "name", "service_cpus", "client_cpus", "service_threads", "loadgen_threads",
                                        "perf_events", NULL };
    json_t *k = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v)
    {
        int keep = 0;
        for (const char *const *b = base; *b && !keep; b++)
            keep = !strcmp(*b, key);
        if (!keep && strcmp(key, "file"))
            keep = !(json_is_null(v) || json_is_false(v) || (json_is_string(v) && !*json_string_value(v)) ||
                     (json_is_array(v) && !json_array_size(v)) || (json_is_object(v) && !json_object_size(v)) ||
                     (!strcmp(key, "sweep_cpus") && json_equal(v, json_object_get(m, "service_cpus"))));
        if (keep)
            json_object_set(k, key, v);
    }
    char *d = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(k);
    return d ? d : mtb_strdup("");
}

void mtb_history_series_key(json_t *rec, char **key, char hash[13])
{
    json_t *c = json_object_get(rec, "config"), *w = json_object_get(c, "workload");
    char *wl = mtb_workload_key(w), *mach = machine_text(rec);
    char *full = mtb_asprintf("plan=%s|service=%s|workload=%s|variant=%s|mode=%s|platform=%s|kernel=%s|machine=%s",
                              mtb_jstr(c, "plan"), mtb_jstr(c, "service"), wl, mtb_jstr(c, "variant"), mtb_jstr(c, "mode"),
                              mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), mach);
    short_hash(full, hash);
    const char *mname = mtb_jstr(json_object_get(rec, "machine"), "name");
    *key = mtb_asprintf("%s/%s/%s mix %s/%s/%s/%s/%s/%s#%s", mtb_jstr(c, "plan"), mtb_jstr(c, "service"), mtb_jstr(w, "name"),
                        mtb_jstr(w, "mix"), mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"),
                        *mname ? mname : "-", hash);
    free(full);
    free(wl);
    free(mach);
}

/* ---- overheads ---------------------------------------------------------------------- */

/* The pairs of one night: each tagged run with the plain/off run of the same
 * repetition, plan, service, workload, platform, kernel and machine. */
static int derive_overheads(struct mtb_history *h, long long night, char *err, size_t errlen)
{
    static const char sql[] =
        "INSERT OR IGNORE INTO overheads(night, plan, series, config_hash, service, workload, mode, platform, kernel,"
        " machine, rep, started, slowdown, p99_ratio, base_build, tagged_build)"
        " SELECT t.night, t.plan, 'overhead:' || t.series, t.config_hash, t.service, t.workload, t.mode, t.platform,"
        " t.kernel, t.machine, t.rep, t.started, b.ops_per_sec / t.ops_per_sec,"
        " CASE WHEN b.p99_us > 0 THEN t.p99_us / b.p99_us END, b.build_key, t.build_key"
        " FROM runs t JOIN runs b ON b.night = t.night AND b.rep = t.rep AND b.plan = t.plan"
        " AND b.service = t.service AND b.workload = t.workload AND b.platform = t.platform AND b.kernel = t.kernel"
        " AND b.machine = t.machine AND b.variant = 'plain' AND b.mode = 'off'"
        " WHERE t.night = ?1 AND t.variant <> 'plain' AND t.status = 'ok' AND b.status = 'ok'"
        " AND t.ops_per_sec > 0 AND b.ops_per_sec > 0 ORDER BY t.id";
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, err, errlen);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, night);
    if (sqlite3_step(st) != SQLITE_DONE) {
        snprintf(err, errlen, "history %s: overheads: %s", h->path, sqlite3_errmsg(h->db));
        rc = -EIO;
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- migrations ------------------------------------------------------------------------ */

static int migrate_1_to_2(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = exec(h, schema_nights, err, errlen);
    static const char *const alters[] = {
        "ALTER TABLE runs ADD COLUMN night INTEGER REFERENCES nights(id);",
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
        rc = exec(h, alters[i], err, errlen);
    if (!rc)
        rc = exec(h, schema_overheads, err, errlen);
    if (rc)
        return rc;
    /* series keys: from the record file where it still exists, else from the
     * columns version 1 kept (such runs form series of their own) */
    sqlite3_stmt *sel, *upd;
    if ((rc = prepare(h, "SELECT id, record, plan, service, workload, variant, mode, platform, kernel FROM runs",
                      &sel, err, errlen)) != 0)
        return rc;
    if ((rc = prepare(h, "UPDATE runs SET series = ?2, config_hash = ?3, machine = ?4, kernel_release = ?5,"
                         " kernel_build = ?6, workload = coalesce(?7, workload) WHERE id = ?1", &upd, err, errlen)) != 0) {
        sqlite3_finalize(sel);
        return rc;
    }
    while (!rc && sqlite3_step(sel) == SQLITE_ROW) {
        const char *col[9];
        for (int i = 1; i < 9; i++) {
            col[i] = (const char *)sqlite3_column_text(sel, i);
            if (!col[i])
                col[i] = "";
        }
        json_t *rec = *col[1] ? json_load_file(col[1], 0, NULL) : NULL;
        char *key = NULL, hash[13], *mach = NULL, kb[13] = "", *wl = NULL;
        const char *krel = "";
        if (json_is_object(rec) && json_is_object(json_object_get(rec, "config"))) {
            mtb_history_series_key(rec, &key, hash);
            mach = machine_text(rec);
            wl = mtb_workload_key(json_object_get(json_object_get(rec, "config"), "workload"));
            json_t *k = json_object_get(rec, "kernel");
            krel = mtb_jstr(k, "uname_r");
            if (*mtb_jstr(k, "uname_v"))
                short_hash(mtb_jstr(k, "uname_v"), kb);
        } else {
            char *full = mtb_asprintf("v1|%s|%s|%s|%s|%s|%s|%s", col[2], col[3], col[4], col[5], col[6], col[7],
                                      col[8]);
            short_hash(full, hash);
            key = mtb_asprintf("%s/%s/%s/%s/%s/%s/%s/schema-1#%s", col[2], col[3], col[4], col[5], col[6], col[7],
                               col[8], hash);
            mach = mtb_strdup("");
            free(full);
        }
        sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
        sqlite3_bind_text(upd, 2, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 3, hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 4, mach, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 5, krel, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(upd, 6, kb, -1, SQLITE_TRANSIENT);
        if (wl)
            sqlite3_bind_text(upd, 7, wl, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(upd, 7);
        if (sqlite3_step(upd) != SQLITE_DONE) {
            snprintf(err, errlen, "history %s: migration: %s", h->path, sqlite3_errmsg(h->db));
            rc = -EIO;
        }
        sqlite3_reset(upd);
        free(key);
        free(mach);
        free(wl);
        json_decref(rec);
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    if (rc)
        return rc;
    sqlite3_stmt *nights;
    if ((rc = prepare(h, "SELECT id FROM nights", &nights, err, errlen)) != 0)
        return rc;
    while (!rc && sqlite3_step(nights) == SQLITE_ROW)
        rc = derive_overheads(h, sqlite3_column_int64(nights, 0), err, errlen);
    sqlite3_finalize(nights);
    return rc;
}

/* migrations[v] takes version v to v + 1 */
static int (*const migrations[])(struct mtb_history *, char *, size_t) = { NULL, migrate_1_to_2 };

static int user_version(struct mtb_history *h, int *v, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = prepare(h, "PRAGMA user_version", &st, err, errlen);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *v = sqlite3_column_int(st, 0);
    else
        rc = -EIO;
    sqlite3_finalize(st);
    return rc;
}

static int count_tables(struct mtb_history *h, const char *names, long long *n, char *err, size_t errlen)
{
    char *sql = mtb_asprintf("SELECT count(*) FROM sqlite_master WHERE type = 'table'%s%s%s",
                             names ? " AND name IN (" : "", names ? names : "", names ? ")" : "");
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, err, errlen);
    free(sql);
    if (rc)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = sqlite3_column_int64(st, 0);
    else
        rc = -EIO;
    sqlite3_finalize(st);
    return rc;
}

/* ---- open / close ------------------------------------------------------------------------ */

static int corrupt(struct mtb_history *h, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "history %s is corrupt (%s); not starting a new history: restore it from a backup, "
             "or move it away to start a new one", h->path, what);
    return -EIO;
}

int mtb_history_open(const char *where, struct mtb_history **out, int *created, char *err, size_t errlen)
{
    *out = NULL;
    if (created)
        *created = 0;
    if (!where || !*where) {
        snprintf(err, errlen, "no history given");
        return -EINVAL;
    }
    if (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11)) {
        snprintf(err, errlen, "history %s: PostgreSQL histories are not built in this version of mtebench "
                 "(only SQLite files: --history PATH)", where);
        return -ENOTSUP;
    }
    struct mtb_history *h = mtb_calloc(1, sizeof *h);
    h->path = mtb_strdup(where);
    struct stat sb;
    int existed = stat(where, &sb) == 0 && sb.st_size > 0;
    if (!existed) {
        char *dir = mtb_strdup(where), *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = 0;
            mtb_mkdir_p(dir);
        }
        free(dir);
    }
    int rc = 0;
    if (sqlite3_open_v2(where, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "history %s: cannot open: %s", where, h->db ? sqlite3_errmsg(h->db) : "out of memory");
        rc = -EIO;
        goto fail;
    }
    sqlite3_busy_timeout(h->db, 30000);
    if (existed) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
            rc = corrupt(h, sqlite3_errmsg(h->db), err, errlen);
            goto fail;
        }
        int s = sqlite3_step(st);
        const char *res = s == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (s != SQLITE_ROW || !res || strcmp(res, "ok")) {
            char what[300];
            snprintf(what, sizeof what, "integrity check: %.250s", res ? res : sqlite3_errmsg(h->db));
            for (char *c = what; *c; c++)
                if (*c == '\n')
                    *c = ';';
            sqlite3_finalize(st);
            rc = corrupt(h, what, err, errlen);
            goto fail;
        }
        sqlite3_finalize(st);
    }
    if ((rc = user_version(h, &h->version, err, errlen)) != 0)
        goto fail;
    if (h->version > MTB_HISTORY_VERSION) {
        snprintf(err, errlen, "history %s has schema version %d, newer than this mtebench's %d: use a newer "
                 "mtebench", where, h->version, MTB_HISTORY_VERSION);
        rc = -EPROTO;
        goto fail;
    }
    long long ntab = 0;
    if ((rc = count_tables(h, NULL, &ntab, err, errlen)) != 0)
        goto fail;
    if (h->version == 0) {
        if (ntab) {
            snprintf(err, errlen, "history %s is an SQLite database but not an mtebench history (it has tables and "
                     "no schema version); refusing to write into it", where);
            rc = -EIO;
            goto fail;
        }
        if ((rc = exec(h, "BEGIN IMMEDIATE", err, errlen)) != 0)
            goto fail;
        char *sql = mtb_asprintf("%s%s%s%sPRAGMA user_version = %d;", schema_nights, schema_runs, schema_overheads,
                                 schema_indexes, MTB_HISTORY_VERSION);
        rc = exec(h, sql, err, errlen);
        free(sql);
        if (rc || (rc = exec(h, "COMMIT", err, errlen)) != 0) {
            exec(h, "ROLLBACK", err + strlen(err), 0);
            goto fail;
        }
        h->version = MTB_HISTORY_VERSION;
        if (created)
            *created = 1;
    } else if (h->version < MTB_HISTORY_VERSION) {
        if ((rc = exec(h, "BEGIN IMMEDIATE", err, errlen)) != 0)
            goto fail;
        for (int v = h->version; !rc && v < MTB_HISTORY_VERSION; v++) {
            rc = migrations[v](h, err, errlen);
            if (!rc) {
                char *sql = mtb_asprintf("PRAGMA user_version = %d;", v + 1);
                rc = exec(h, sql, err, errlen);
                free(sql);
            }
        }
        if (!rc)
            rc = exec(h, schema_indexes, err, errlen);
        if (rc || (rc = exec(h, "COMMIT", err, errlen)) != 0) {
            char ignore[8];
            exec(h, "ROLLBACK", ignore, sizeof ignore);
            goto fail;
        }
        h->version = MTB_HISTORY_VERSION;
    }
    long long ours = 0;
    if ((rc = count_tables(h, "'nights','runs','overheads'", &ours, err, errlen)) != 0)
        goto fail;
    if (ours != 3) {
        snprintf(err, errlen, "history %s: schema version %d but %lld of its 3 tables (nights, runs, overheads); "
                 "not an mtebench history, or damaged", where, h->version, ours);
        rc = -EIO;
        goto fail;
    }
    *out = h;
    return 0;
fail:
    mtb_history_close(h);
    return rc;
}

void mtb_history_close(struct mtb_history *h)
{
    if (!h)
        return;
    if (h->db)
        sqlite3_close(h->db);
    free(h->path);
    free(h);
}

int mtb_history_schema(struct mtb_history *h) { return h->version; }

long long mtb_history_nights(struct mtb_history *h, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (prepare(h, "SELECT count(*) FROM nights", &st, err, errlen))
        return -EIO;
    long long n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -EIO;
    sqlite3_finalize(st);
    return n;
}

/* ---- adding a night --------------------------------------------------------------------- */

static void bind_num(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_number(v) && isfinite(json_number_value(v)))
        sqlite3_bind_double(st, i, json_number_value(v));
    else
        sqlite3_bind_null(st, i);
}

int mtb_history_add_night(struct mtb_history *h, const char *plan, const char *results_dir, const char *report,
                          json_t *records, json_t *files, long long *night, int *added, char *err, size_t errlen)
{
    *night = 0;
    *added = 0;
    if (!json_is_array(records) || !json_is_array(files) || json_array_size(records) != json_array_size(files)) {
        snprintf(err, errlen, "history: records and files do not match");
        return -EINVAL;
    }
    /* the night starts with its earliest run */
    const char *first = NULL, *version = "";
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        const char *s = mtb_jstr(rec, "started");
        if (*s && (!first || strcmp(s, first) < 0))
            first = s;
        if (!*version)
            version = mtb_jstr(rec, "mtebench_version");
    }
    char now[32];
    mtb_utc_iso(now, sizeof now);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int rc = exec(h, "BEGIN IMMEDIATE", err, errlen);
    if (rc)
        return rc;
    sqlite3_stmt *ins_n = NULL, *ins_r = NULL;
    if ((rc = prepare(h, "INSERT INTO nights(plan, started, results_dir, host, mtebench_version, report)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &ins_n, err, errlen)) != 0)
        goto out;
    sqlite3_bind_text(ins_n, 1, plan, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins_n, 2, first ? first : now, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins_n, 3, results_dir ? results_dir : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins_n, 4, host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins_n, 5, version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins_n, 6, report ? report : "", -1, SQLITE_TRANSIENT);
    if (sqlite3_step(ins_n) != SQLITE_DONE) {
        snprintf(err, errlen, "history %s: %s", h->path, sqlite3_errmsg(h->db));
        rc = -EIO;
        goto out;
    }
    long long nid = sqlite3_last_insert_rowid(h->db);
    if ((rc = prepare(h, "INSERT OR IGNORE INTO runs(night, plan, series, config_hash, service, workload, variant, mode,"
                         " platform, kernel, machine, started, rep, mtebench_version, build_key, kernel_release,"
                         " kernel_build, status, ops_per_sec, p50_us, p99_us, p999_us, record) VALUES (?1, ?2, ?3,"
                         " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
                         " ?23)", &ins_r, err, errlen)) != 0)
        goto out;
    json_array_foreach(records, i, rec)
    {
        json_t *c = json_object_get(rec, "config"), *s = json_object_get(rec, "summary");
        json_t *k = json_object_get(rec, "kernel");
        char *key, hash[13], kb[13] = "", real[PATH_MAX];
        mtb_history_series_key(rec, &key, hash);
        char *wl = mtb_workload_key(json_object_get(c, "workload")), *mach = machine_text(rec);
        if (*mtb_jstr(k, "uname_v"))
            short_hash(mtb_jstr(k, "uname_v"), kb);
        const char *file = json_string_value(json_array_get(files, i));
        if (!file || !realpath(file, real))
            snprintf(real, sizeof real, "%s", file ? file : "");
        int ok = !strcmp(mtb_jstr(rec, "status"), "ok");
        sqlite3_bind_int64(ins_r, 1, nid);
        sqlite3_bind_text(ins_r, 2, *mtb_jstr(c, "plan") ? mtb_jstr(c, "plan") : plan, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 3, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 4, hash, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 5, mtb_jstr(c, "service"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 6, wl, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 7, mtb_jstr(c, "variant"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 8, mtb_jstr(c, "mode"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 9, mtb_jstr(c, "platform"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 10, mtb_jstr(c, "kernel"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 11, mach, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 12, mtb_jstr(rec, "started"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins_r, 13, json_integer_value(json_object_get(c, "rep")));
        sqlite3_bind_text(ins_r, 14, mtb_jstr(rec, "mtebench_version"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 15, mtb_jstr(json_object_get(rec, "build"), "key"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 16, mtb_jstr(k, "uname_r"), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 17, kb, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins_r, 18, mtb_jstr(rec, "status"), -1, SQLITE_TRANSIENT);
        bind_num(ins_r, 19, ok ? json_object_get(s, "ops_per_sec") : NULL);
        bind_num(ins_r, 20, ok ? json_object_get(s, "p50_us") : NULL);
        bind_num(ins_r, 21, ok ? json_object_get(s, "p99_us") : NULL);
        bind_num(ins_r, 22, ok ? json_object_get(s, "p999_us") : NULL);
        sqlite3_bind_text(ins_r, 23, real, -1, SQLITE_TRANSIENT);
        int s2 = sqlite3_step(ins_r);
        if (s2 == SQLITE_DONE)
            *added += sqlite3_changes(h->db);
        sqlite3_reset(ins_r);
        free(key);
        free(wl);
        free(mach);
        if (s2 != SQLITE_DONE) {
            snprintf(err, errlen, "history %s: %s", h->path, sqlite3_errmsg(h->db));
            rc = -EIO;
            goto out;
        }
    }
    if (*added == 0)
        goto out; /* all known: no empty night (rolled back below) */
    if ((rc = derive_overheads(h, nid, err, errlen)) != 0)
        goto out;
    rc = exec(h, "COMMIT", err, errlen);
    if (!rc)
        *night = nid;
out:
    sqlite3_finalize(ins_n);
    sqlite3_finalize(ins_r);
    if (rc || *added == 0) {
        char ignore[8];
        exec(h, "ROLLBACK", ignore, sizeof ignore);
    }
    return rc;
}

/* ---- loading ------------------------------------------------------------------------------- */

static json_t *col_json(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT: return json_string((const char *)sqlite3_column_text(st, i));
    default: return json_null();
    }
}

/* Rows of sql (ordered by series, then time) into series objects: the first
 * nhead columns describe the series, the rest go into its points. */
static int load_rows(struct mtb_history *h, const char *sql, const char *kind, int nhead, json_t *out, char *err,
                     size_t errlen)
{
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, err, errlen);
    if (rc)
        return rc;
    json_t *cur = NULL;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *series = (const char *)sqlite3_column_text(st, 0);
        if (!cur || strcmp(mtb_jstr(cur, "series"), series ? series : "")) {
            cur = json_object();
            json_object_set_new(cur, "kind", json_string(kind));
            for (int i = 0; i < nhead; i++)
                json_object_set_new(cur, sqlite3_column_name(st, i), col_json(st, i));
            json_object_set_new(cur, "points", json_array());
            json_array_append_new(out, cur);
        }
        json_t *p = json_object();
        for (int i = nhead; i < sqlite3_column_count(st); i++)
            json_object_set_new(p, sqlite3_column_name(st, i), col_json(st, i));
        json_array_append_new(json_object_get(cur, "points"), p);
    }
    if (s != SQLITE_DONE) {
        snprintf(err, errlen, "history %s: %s", h->path, sqlite3_errmsg(h->db));
        rc = -EIO;
    }
    sqlite3_finalize(st);
    return rc;
}

int mtb_history_load(struct mtb_history *h, json_t **out, char *err, size_t errlen)
{
    *out = json_array();
    static const char runs_sql[] =
        "SELECT r.series AS series, r.config_hash AS hash, r.plan AS plan, r.service AS service, r.workload AS"
        " workload, r.variant AS variant, r.mode AS mode, r.platform AS platform, r.kernel AS kernel, r.machine AS"
        " machine, r.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS results_dir,"
        " r.started AS started, r.rep AS rep, r.status AS status, r.ops_per_sec AS ops_per_sec, r.p99_us AS p99_us,"
        " r.mtebench_version AS mtebench_version, r.build_key AS build_key, r.kernel_release AS kernel_release,"
        " r.kernel_build AS kernel_build, r.record AS record"
        " FROM runs r JOIN nights n ON n.id = r.night ORDER BY r.series, n.started, n.id, r.rep, r.id";
    static const char ovh_sql[] =
        "SELECT o.series AS series, o.config_hash AS hash, o.plan AS plan, o.service AS service, o.workload AS"
        " workload, 'tagged' AS variant, o.mode AS mode, o.platform AS platform, o.kernel AS kernel, o.machine AS"
        " machine, o.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS results_dir,"
        " o.started AS started, o.rep AS rep, 'ok' AS status, o.slowdown AS slowdown, o.p99_ratio AS p99_ratio,"
        " n.mtebench_version AS mtebench_version, o.tagged_build AS build_key, '' AS kernel_release,"
        " '' AS kernel_build, o.base_build AS base_build"
        " FROM overheads o JOIN nights n ON n.id = o.night ORDER BY o.series, n.started, n.id, o.rep, o.id";
    int rc = load_rows(h, runs_sql, "run", 10, *out, err, errlen);
    if (!rc)
        rc = load_rows(h, ovh_sql, "overhead", 10, *out, err, errlen);
    if (rc) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}
