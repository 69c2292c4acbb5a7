/* test_history.c - the nightly's history store: creation, nights, duplicates,
 * series keyed by configuration, the migration from schema 1 (made here by
 * hand), refusal of corrupt, foreign and newer histories and of an unreachable
 * PostgreSQL server, and the redaction of passwords in PostgreSQL URLs. */
#include "history/history.h"
#include "analysis/nightly_analyse.h"
#include "core/record.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[] = "/tmp/mtebench-test-history.XXXXXX";
static struct mtb_err e; /* the last ADD_NIGHT's reason */
/* one night of plan "nightly" added (results dir D, report R, records and their files, capacity results) */
#define ADD_NIGHT(h, d, r, recs, fl, caps)                                                                   \
    (e = (struct mtb_err){ 0 },                                                                              \
     mtb_history_add_night(h, &(struct mtb_night_in){ .plan = "nightly", .results_dir = d, .report = r,      \
                                                      .records = recs, .files = fl, .capacity = caps },      \
                           &night, &added, &e))

static json_t *rec(const char *variant, const char *mode, int rep, double ops, double p99, double duration,
                   const char *started)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:{s:s,s:s,s:i,s:f}},"
                     "s:{s:s},s:{s:s,s:s},s:{s:s,s:s},s:{s:f,s:f,s:f,s:f}}",
                     "schema", "mtebench-run/1", "status", "ok", "started", started, "mtebench_version", "v-test",
                     "config", "service", "memcached", "variant", variant, "mode", mode, "platform", "emu", "kernel",
                     "host", "plan", "nightly", "rep", rep, "workload", "name", "default", "mix", "1:10", "conns", 16,
                     "duration_s", duration, "build", "key", "b0123", "kernel", "uname_r", "6.1.0", "uname_v", "#1 SMP",
                     "machine", "name", "auto", "service_cpus", "0", "summary", "ops_per_sec", ops, "p50_us", 10.0,
                     "p99_us", p99, "p999_us", 2 * p99);
}

/* write records to DIR/NNN/record.json; fill files */
static json_t *write_night(const char *name, json_t *records)
{
    json_t *files = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(records, i, r)
    {
        char *d = mtb_asprintf("%s/%s/%03zu", tmp, name, i + 1);
        mtb_mkdir_p(d);
        char *f = mtb_asprintf("%s/record.json", d);
        json_dump_file(r, f, JSON_SORT_KEYS);
        json_array_append_new(files, json_string(f));
        free(f);
        free(d);
    }
    return files;
}

static json_t *find_series(json_t *all, const char *kind, const char *variant, const char *mode)
{
    size_t i;
    json_t *s;
    json_array_foreach(all, i, s) if (!strcmp(json_string_value(json_object_get(s, "kind")), kind) &&
                                      !strcmp(json_string_value(json_object_get(s, "variant")), variant) &&
                                      !strcmp(json_string_value(json_object_get(s, "mode")), mode)) return s;
    return NULL;
}

static int sql(const char *path, const char *q)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    int rc = sqlite3_exec(db, q, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

static long long sql_int(const char *path, const char *q)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 1;
    char err[MTB_ERRLEN] = "";
    struct mtb_history *h = NULL;
    int created = 0;
    char *db = mtb_asprintf("%s/sub/history.sqlite", tmp);

    /* ---- a new history, two nights, duplicates, overheads ---- */
    int rc = mtb_history_open(db, &h, &created, err, sizeof err);
    ok(rc == 0 && created && mtb_history_schema(h) == MTB_HISTORY_VERSION, "new history created (%s)", err);
    json_t *n1 = json_pack("[o,o,o,o]", rec("plain", "off", 1, 1000, 100, 2, "2026-01-01T01:00:00Z"),
                           rec("tagged", "async", 1, 800, 120, 2, "2026-01-01T01:01:00Z"),
                           rec("plain", "off", 2, 1100, 100, 2, "2026-01-01T01:02:00Z"),
                           rec("tagged", "async", 2, 1000, 130, 2, "2026-01-01T01:03:00Z"));
    json_t *f1 = write_night("n1", n1);
    long long night = 0;
    int added = 0;
    rc = ADD_NIGHT(h, "n1", NULL, n1, f1, NULL);
    ok(rc == 0 && night > 0 && added == 4, "night 1: 4 runs added (%s)", e.msg);
    rc = ADD_NIGHT(h, "n1", NULL, n1, f1, NULL);
    ok(rc == 0 && night == 0 && added == 0, "the same records again: nothing added");
    ok(mtb_history_nights(h, err, sizeof err) == 1, "and no empty night");
    json_t *n2 = json_pack("[o,o]", rec("plain", "off", 1, 1050, 100, 2, "2026-01-02T01:00:00Z"),
                           rec("tagged", "async", 1, 700, 150, 2, "2026-01-02T01:01:00Z"));
    json_t *f2 = write_night("n2", n2);
    rc = ADD_NIGHT(h, "n2", "reports/n2/index.html", n2, f2, NULL);
    ok(rc == 0 && added == 2 && mtb_history_nights(h, err, sizeof err) == 2, "night 2 added");
    json_t *all = NULL;
    ok(mtb_history_load(h, &all, err, sizeof err) == 0 && json_array_size(all) == 3,
       "3 series: plain/off, tagged/async, overhead of async (%zu)", json_array_size(all));
    json_t *base = find_series(all, "run", "plain", "off"), *ovh = find_series(all, "overhead", "tagged", "async");
    ok(base && json_array_size(json_object_get(base, "points")) == 3, "baseline series holds 3 runs");
    json_t *p0 = json_array_get(json_object_get(ovh, "points"), 0), *p2 = json_array_get(json_object_get(ovh, "points"), 2);
    ok(ovh && json_array_size(json_object_get(ovh, "points")) == 3 &&
           json_real_value(json_object_get(p0, "slowdown")) == 1.25 &&
           json_real_value(json_object_get(p2, "slowdown")) == 1.5,
       "overhead pairs per night and rep: 1000/800 = 1.25, ..., 1050/700 = 1.5");
    ok(json_is_string(json_object_get(json_array_get(json_object_get(base, "points"), 0), "record")) &&
           !strcmp(json_string_value(json_object_get(json_array_get(json_object_get(base, "points"), 2), "report")),
                   "reports/n2/index.html"),
       "points carry their record and the night's report");
    ok(strstr(json_string_value(json_object_get(base, "series")), "nightly/memcached/default mix 1:10/plain/off/emu") != NULL,
       "series key is readable: %s", json_string_value(json_object_get(base, "series")));
    json_decref(all);

    /* ---- a capacity search's result: a row per configuration and bound, a night of its own ---- */
    {
        json_t *pil = json_pack("[o,o]", rec("plain", "off", 1, 3000, 900, 2, "2026-01-02T03:00:00Z"),
                                rec("tagged", "async", 1, 2500, 1000, 2, "2026-01-02T03:00:05Z"));
        json_t *pf = write_night("cap-pilot", pil);
        json_t *res = json_pack(
            "{s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:f,s:s,s:s,"
            "s:[{s:s,s:s,s:b,s:f,s:[O],s:[{s:s,s:s,s:f,s:f,s:f}]},{s:s,s:s,s:b,s:f,s:[O],s:[{s:s,s:s,s:f,s:f,s:f}]}],"
            "s:[{s:s,s:s,s:s,s:{s:f,s:f,s:f}}]}",
            "schema", "mtebench-capacity/1", "plan", "nightly", "service", "memcached", "workload", "default",
            "platform", "emu", "kernel", "host", "emulated", 1, "confidence", 0.95, "arrival", "poisson", "started",
            "2026-01-02T03:00:00Z", "configs", "variant", "plain", "mode", "off", "baseline", 1, "closed_loop_ops",
            3000.0, "pilot_records", json_array_get(pf, 0), "capacity", "bound", "p99 <= 1 ms", "status", "found",
            "capacity", 2000.0, "lo", 1900.0, "hi", 2100.0, "variant", "tagged", "mode", "async", "baseline", 0,
            "closed_loop_ops", 2500.0, "pilot_records", json_array_get(pf, 1), "capacity", "bound", "p99 <= 1 ms",
            "status", "found", "capacity", 1600.0, "lo", 1500.0, "hi", 1700.0, "overheads", "variant", "tagged",
            "mode", "async", "bound", "p99 <= 1 ms", "capacity", "est", 1.25, "lo", 1.1, "hi", 1.4);
        char *cfile = mtb_asprintf("%s/capacity.json", tmp);
        json_dump_file(res, cfile, 0);
        json_object_set_new(res, "file", json_string(cfile));
        json_t *caps = json_pack("[O]", res), *none = json_array();
        rc = ADD_NIGHT(h, "cap", NULL, none, none, caps);
        ok(rc == 0 && night > 0 && added == 2, "a capacity result alone is a night: 2 rows, one a configuration (%s)", e.msg);
        rc = ADD_NIGHT(h, "cap", NULL, none, none, caps);
        ok(rc == 0 && night == 0 && added == 0, "the same result again: nothing added");
        ok(sql_int(db, "SELECT count(*) FROM nights WHERE started = '2026-01-02T03:00:00Z'") == 1,
           "the night starts when the search did");
        mtb_history_load(h, &all, err, sizeof err);
        json_t *cb = find_series(all, "capacity", "plain", "off"), *ct = find_series(all, "capacity", "tagged", "async");
        json_t *pt = json_array_get(json_object_get(ct, "points"), 0);
        const char *key = json_string_value(json_object_get(ct, "series"));
        ok(cb && ct && json_array_size(json_object_get(ct, "points")) == 1 &&
               json_real_value(json_object_get(pt, "capacity")) == 1600 &&
               json_real_value(json_object_get(pt, "capacity_overhead")) == 1.25 &&
               !strcmp(json_string_value(json_object_get(pt, "status")), "ok") &&
               json_is_null(json_object_get(json_array_get(json_object_get(cb, "points"), 0), "capacity_overhead")),
           "capacity series per configuration: the estimate, its overhead (none for the baseline), status ok when found");
        ok(key && !strncmp(key, "capacity:nightly/memcached/default mix 1:10/tagged/async/emu/", 61) &&
               strstr(key, " at p99 <= 1 ms, poisson arrivals#"),
           "its key: the pilot's run series, the bound and the arrivals (%s)", key ? key : "none");
        json_decref(all);
        json_decref(caps);
        json_decref(none);
        json_decref(res);
        json_decref(pil);
        json_decref(pf);
        free(cfile);
    }

    /* ---- a changed configuration starts new series ---- */
    json_t *n3 = json_pack("[o,o]", rec("plain", "off", 1, 1000, 100, 5, "2026-01-03T01:00:00Z"),
                           rec("tagged", "async", 1, 800, 120, 5, "2026-01-03T01:01:00Z"));
    json_t *f3 = write_night("n3", n3);
    ADD_NIGHT(h, "n3", NULL, n3, f3, NULL);
    mtb_history_load(h, &all, err, sizeof err);
    ok(json_array_size(all) == 8, "duration 2 s -> 5 s: three new series, none mixed (%zu; 2 of capacity)",
       json_array_size(all));
    json_decref(all);
    char *k1, *k2, h1[13], h2[13];
    mtb_history_series_key(json_array_get(n1, 0), &k1, h1);
    mtb_history_series_key(json_array_get(n3, 0), &k2, h2);
    ok(strcmp(h1, h2) != 0 && strlen(h1) == 12, "configuration hashes differ (%s, %s)", h1, h2);
    free(k1);
    free(k2);
    /* profile keys added later keep old series when unset, and split them when set */
    {
        json_t *r1 = rec("plain", "off", 1, 1000, 100, 2, "2026-01-01T01:00:00Z");
        json_t *r2 = json_deep_copy(r1);
        json_t *m2 = json_object_get(r2, "machine");
        json_object_set_new(m2, "numa_node", json_null());
        json_object_set_new(m2, "cores", json_array());
        json_object_set_new(m2, "perf_raw", json_string(""));
        json_object_set_new(m2, "allow_overlap", json_false());
        json_object_set_new(m2, "sweep_cpus", json_string("0"));
        json_object_set_new(m2, "file", json_string("/somewhere/configs/machines/x.conf"));
        char *ka, *kb, ha[13], hb[13];
        mtb_history_series_key(r1, &ka, ha);
        mtb_history_series_key(r2, &kb, hb);
        ok(!strcmp(ha, hb), "new profile keys at their defaults (and the file path) keep the series (%s, %s)", ha, hb);
        free(kb);
        json_object_set_new(m2, "numa_node", json_integer(0));
        mtb_history_series_key(r2, &kb, hb);
        ok(strcmp(ha, hb) != 0, "a NUMA binding starts a new series");
        free(ka);
        free(kb);
        json_decref(r1);
        json_decref(r2);
    }
    mtb_history_close(h);
    h = NULL;

    /* ---- two hosts, one history: a series each, pairs never across hosts ---- */
    {
        char *hdb = mtb_asprintf("%s/hosts.sqlite", tmp);
        struct mtb_history *hh = NULL;
        ok(mtb_history_open(hdb, &hh, NULL, err, sizeof err) == 0, "history for two hosts (%s)", err);
        /* one night holding both hosts' runs (as an ingested directory of a fleet may): A's
         * baseline is slow, B's fast; a pair across hosts would give 500/800 or 2000/400 */
        json_t *nh = json_pack("[o,o,o,o]", rec("plain", "off", 1, 500, 100, 2, "2026-02-01T01:00:00Z"),
                               rec("tagged", "async", 1, 400, 120, 2, "2026-02-01T01:01:00Z"),
                               rec("plain", "off", 1, 2000, 100, 2, "2026-02-01T01:02:00Z"),
                               rec("tagged", "async", 1, 800, 120, 2, "2026-02-01T01:03:00Z"));
        for (size_t i = 0; i < 4; i++)
            json_object_set_new(json_array_get(nh, i), "environment",
                                json_pack("{s:s}", "hostname", i < 2 ? "lab-a" : "lab-b"));
        /* B is a server host: its name comes from hosts.server, whatever its environment says */
        for (size_t i = 2; i < 4; i++)
            json_object_set_new(json_array_get(nh, i), "hosts",
                                json_pack("{s:s,s:{s:s}}", "server_host", "mtb@b", "server", "hostname", "lab-b"));
        json_t *fh = write_night("hosts", nh);
        rc = ADD_NIGHT(hh, "hosts", NULL, nh, fh, NULL);
        ok(rc == 0 && added == 4, "one night, 4 runs of two hosts (%s)", e.msg);
        json_t *hall = NULL;
        mtb_history_load(hh, &hall, err, sizeof err);
        ok(json_array_size(hall) == 6, "6 series: plain, tagged and overhead on each host (%zu)", json_array_size(hall));
        size_t i;
        json_t *sv;
        int on_a = 0, on_b = 0;
        double sa = 0, sb = 0;
        json_array_foreach(hall, i, sv)
        {
            const char *host = json_string_value(json_object_get(sv, "host"));
            const char *key = json_string_value(json_object_get(sv, "series"));
            int a = !strcmp(host, "lab-a"), b = !strcmp(host, "lab-b");
            on_a += a && strstr(key, " on lab-a#") != NULL;
            on_b += b && strstr(key, " on lab-b#") != NULL;
            if (!strcmp(json_string_value(json_object_get(sv, "kind")), "overhead")) {
                json_t *pts = json_object_get(sv, "points");
                double v = json_real_value(json_object_get(json_array_get(pts, 0), "slowdown"));
                if (a)
                    sa = v;
                if (b)
                    sb = v;
                ok(json_array_size(pts) == 1, "overhead on %s: one pair", host);
            }
        }
        ok(on_a == 3 && on_b == 3, "each host's series key names it (\" on lab-a#\", \" on lab-b#\")");
        ok(sa == 1.25 && sb == 2.5, "pairs within a host only: 500/400 = 1.25 on lab-a, 2000/800 = 2.5 on lab-b (%g, %g)",
           sa, sb);
        char *ka, *kb, ha[13], hb[13];
        mtb_history_series_key(json_array_get(nh, 0), &ka, ha);
        mtb_history_series_key(json_array_get(nh, 2), &kb, hb);
        ok(strcmp(ka, kb) != 0 && !strcmp(ha, hb), "same configuration hash, two series keys (%s | %s)", ka, kb);
        free(ka);
        free(kb);
        json_decref(hall);
        json_decref(nh);
        json_decref(fh);
        mtb_history_close(hh);
        free(hdb);
    }

    /* reopening keeps everything */
    rc = mtb_history_open(db, &h, &created, err, sizeof err);
    ok(rc == 0 && !created && mtb_history_nights(h, err, sizeof err) == 4, "reopened: 4 nights, not recreated");
    mtb_history_close(h);
    h = NULL;

    /* ---- refusals ---- */
    /* PostgreSQL: unreachable server (the histories themselves are tested
     * against a real server in tests/integration/history/history-postgresql.t) */
    rc = mtb_history_open("postgresql://lab:s3cr%40tpw@127.0.0.1:1/mtebench", &h, NULL, err, sizeof err);
#ifdef MTB_WITH_PG
    ok(rc == -EIO && strstr(err, "cannot connect to PostgreSQL") && strstr(err, "not starting a new history") &&
           strstr(err, "postgresql://lab:***@127.0.0.1:1/mtebench"),
       "PostgreSQL server unreachable: %s", err);
#else
    ok(rc == -ENOTSUP && strstr(err, "built without libpq"), "PostgreSQL URL: %s", err);
#endif
    ok(!strstr(err, "s3cr") && !strstr(err, "tpw"), "... the password is not in the message");
    static const char *const redact[][2] = {
        { "postgresql://lab:pw@db.example:5432/mtb", "postgresql://lab:***@db.example:5432/mtb" },
        { "postgres://u:p%40ss@/mtb?host=/run/pg", "postgres://u:***@/mtb?host=/run/pg" },
        { "postgresql://u@h/mtb?sslmode=require&password=pw2&x=1", "postgresql://u@h/mtb?sslmode=require&password=***&x=1" },
        { "postgresql://u:a@b@h/mtb", "postgresql://u:***@h/mtb" },
        { "postgresql://h/mtb", "postgresql://h/mtb" },
        { "results/history.sqlite", "results/history.sqlite" },
    };
    for (size_t i = 0; i < sizeof redact / sizeof redact[0]; i++) {
        char *r = mtb_history_redact(redact[i][0]);
        ok(!strcmp(r, redact[i][1]), "redact %s -> %s", redact[i][1], r);
        free(r);
    }

    char *junk = mtb_asprintf("%s/junk.sqlite", tmp);
    const char text[] = "this is not a database, but a note someone saved here by mistake\n";
    mtb_write_atomic(junk, text, sizeof text - 1);
    rc = mtb_history_open(junk, &h, NULL, err, sizeof err);
    ok(rc == -EIO && strstr(err, "corrupt") && strstr(err, "not starting a new history"), "garbage file: %s", err);
    size_t len = 0;
    char *after = mtb_read_file(junk, &len);
    ok(after && len == sizeof text - 1 && !memcmp(after, text, len), "... and the file is left as it was");
    free(after);

    /* a real history with a damaged page */
    char *dmg = mtb_asprintf("%s/damaged.sqlite", tmp);
    rc = mtb_history_open(dmg, &h, NULL, err, sizeof err);
    ADD_NIGHT(h, "n1", NULL, n1, f1, NULL);
    mtb_history_close(h);
    h = NULL;
    FILE *f = fopen(dmg, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    for (long off = 4096; off < size; off += 4096) { /* scribble over every page but the header */
        fseek(f, off + 8, SEEK_SET);
        fwrite("\xff\xfe\xfd\xfc\x55\xaa\x55\xaa\x01\x02\x03\x04", 1, 12, f);
    }
    fclose(f);
    rc = mtb_history_open(dmg, &h, NULL, err, sizeof err);
    ok(rc == -EIO && strstr(err, "corrupt"), "damaged pages: %s", err);

    char *foreign = mtb_asprintf("%s/foreign.sqlite", tmp);
    sql(foreign, "CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT);");
    rc = mtb_history_open(foreign, &h, NULL, err, sizeof err);
    ok(rc == -EIO && strstr(err, "not an mtebench history"), "another program's database: %s", err);

    char *newer = mtb_asprintf("%s/newer.sqlite", tmp);
    sql(newer, "CREATE TABLE runs(id INTEGER PRIMARY KEY); PRAGMA user_version = 99;");
    rc = mtb_history_open(newer, &h, NULL, err, sizeof err);
    ok(rc == -EPROTO && strstr(err, "newer"), "schema 99: %s", err);

    /* ---- migration from schema 1, made by hand ---- */
    char *v1 = mtb_asprintf("%s/v1.sqlite", tmp);
    const char *kept = json_string_value(json_array_get(f1, 0)); /* a record file that still exists */
    char *v1sql = mtb_asprintf(
        "CREATE TABLE runs(id INTEGER PRIMARY KEY, plan TEXT NOT NULL, service TEXT, workload TEXT, variant TEXT,"
        " mode TEXT, platform TEXT, kernel TEXT, started TEXT, rep INTEGER, mtebench_version TEXT, build_key TEXT,"
        " status TEXT, ops_per_sec REAL, p50_us REAL, p99_us REAL, p999_us REAL, record TEXT UNIQUE);"
        "INSERT INTO runs VALUES(1, 'nightly', 'memcached', 'mix=\"1:10\"', 'plain', 'off', 'emu', 'host',"
        " '2025-12-01T01:00:00Z', 1, 'v-old', 'b0123', 'ok', 1000, 10, 100, 200, '%s');"
        "INSERT INTO runs VALUES(2, 'nightly', 'memcached', 'mix=\"1:10\"', 'tagged', 'async', 'emu', 'host',"
        " '2025-12-01T01:01:00Z', 1, 'v-old', 'b0123', 'ok', 500, 10, 100, 200, '/gone/record.json');"
        "INSERT INTO runs VALUES(3, 'nightly', 'memcached', 'mix=\"1:10\"', 'plain', 'off', 'emu', 'host',"
        " '2025-12-02T01:00:00Z', 1, 'v-old', 'b0123', 'ok', 990, 10, 100, 200, '/gone/record2.json');"
        "INSERT INTO runs VALUES(4, 'nightly', 'memcached', 'mix=\"1:10\"', 'plain', 'off', 'emu', 'host',"
        " '2025-12-01T01:02:00Z', 1, 'v-old', 'b0123', 'ok', 1000, 10, 90, 200, '/gone/record3.json');"
        "PRAGMA user_version = 1;", kept);
    ok(sql(v1, v1sql) == SQLITE_OK, "schema 1 history made by hand");
    free(v1sql);
    err[0] = 0;
    rc = mtb_history_open(v1, &h, &created, err, sizeof err);
    ok(rc == 0 && !created && mtb_history_schema(h) == MTB_HISTORY_VERSION, "opened: migrated to schema %d (%s)",
       MTB_HISTORY_VERSION, err);
    mtb_history_close(h);
    h = NULL;
    ok(sql_int(v1, "PRAGMA user_version") == MTB_HISTORY_VERSION, "user_version stored");
    ok(sql_int(v1, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'capacity'") == 1 &&
           sql_int(v1, "SELECT count(*) FROM capacity") == 0,
       "schema 5's capacity table made on the way, empty");
    ok(sql_int(v1, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'work'") == 1 &&
           sql_int(v1, "SELECT count(*) FROM work") == 0,
       "schema 6's work table made on the way, empty");
    ok(sql_int(v1, "SELECT count(*) FROM runs") == 4 && sql_int(v1, "SELECT count(*) FROM runs WHERE night IS NULL") == 0,
       "every run kept and given a night");
    ok(sql_int(v1, "SELECT count(*) FROM nights") == 2, "one night per plan and day: 2");
    char *key0, hash0[13];
    mtb_history_series_key(json_array_get(n1, 0), &key0, hash0);
    char *q = mtb_asprintf("SELECT count(*) FROM runs WHERE id = 1 AND config_hash = '%s' AND machine <> ''"
                           " AND kernel_release = '6.1.0'", hash0);
    ok(sql_int(v1, q) == 1, "a run whose record still exists gets the series its record gives");
    free(q);
    free(key0);
    ok(sql_int(v1, "SELECT count(*) FROM runs WHERE id IN (2, 3, 4) AND series LIKE '%schema-1 on unknown#%'"
               " AND host = 'unknown'") == 3,
       "runs without a record keep a series of their own, on host unknown");
    ok(sql_int(v1, "SELECT count(*) FROM overheads WHERE slowdown = 2.0") == 1,
       "overheads derived for migrated nights (runs 4 and 2: 1000/500)");
    rc = mtb_history_open(v1, &h, &created, err, sizeof err);
    ok(rc == 0 && mtb_history_nights(h, err, sizeof err) == 2, "reopening a migrated history changes nothing");
    mtb_history_close(h);

    /* a migration that fails leaves schema 1 untouched (one transaction) */
    char *v1bad = mtb_asprintf("%s/v1bad.sqlite", tmp);
    sql(v1bad, "CREATE TABLE runs(id INTEGER PRIMARY KEY, plan TEXT, started TEXT, night TEXT);"
               "PRAGMA user_version = 1;"); /* already has a night column: ALTER fails */
    rc = mtb_history_open(v1bad, &h, NULL, err, sizeof err);
    ok(rc != 0, "a migration that fails is an error (%s)", err);
    ok(sql_int(v1bad, "PRAGMA user_version") == 1 && sql_int(v1bad, "SELECT count(*) FROM sqlite_master WHERE name = 'nights'") == 0,
       "... rolled back: still schema 1, no half-made tables");

    /* ---- migration from schema 2 (the layout of 6a9d852), made by hand: runs and
     * overheads gain "emulated", from the record where it still exists (a vm run
     * under TCG is emulated although its platform is not "emu"), else from the
     * platform name as schema 2's nightly assumed; overheads gain the pair
     * metric columns of the table; series keys are kept ---- */
    char *v2 = mtb_asprintf("%s/v2.sqlite", tmp);
    json_t *vmrec = rec("tagged", "sync", 1, 400, 120, 1.0, "2025-12-03T01:01:00Z");
    json_object_set_new(json_object_get(vmrec, "config"), "platform", json_string("vm"));
    json_object_set_new(vmrec, "platform", json_pack("{s:s,s:b}", "name", "vm", "emulated", 1));
    json_t *vmfiles = write_night("v2rec", json_pack("[O]", vmrec));
    char *vmkey, vmhash[13];
    mtb_history_series_key(vmrec, &vmkey, vmhash);
    /* schema 2 keyed it without the host (its record names none: "unknown") */
    char *v2key = mtb_strdup(vmkey), *on = strstr(v2key, " on unknown#");
    ok(on != NULL, "a record without a host is keyed on host unknown: %s", vmkey);
    if (on)
        memmove(on, on + strlen(" on unknown"), strlen(on + strlen(" on unknown")) + 1);
    char *v2sql = mtb_asprintf(
        "CREATE TABLE nights(id INTEGER PRIMARY KEY, plan TEXT NOT NULL, started TEXT NOT NULL,"
        " results_dir TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', mtebench_version TEXT NOT NULL DEFAULT '',"
        " report TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE runs(id INTEGER PRIMARY KEY, night INTEGER REFERENCES nights(id), plan TEXT NOT NULL,"
        " series TEXT NOT NULL DEFAULT '', config_hash TEXT NOT NULL DEFAULT '', service TEXT, workload TEXT,"
        " variant TEXT, mode TEXT, platform TEXT, kernel TEXT, machine TEXT NOT NULL DEFAULT '', started TEXT,"
        " rep INTEGER, mtebench_version TEXT, build_key TEXT, kernel_release TEXT NOT NULL DEFAULT '',"
        " kernel_build TEXT NOT NULL DEFAULT '', status TEXT, ops_per_sec REAL, p50_us REAL, p99_us REAL,"
        " p999_us REAL, record TEXT UNIQUE);"
        "CREATE TABLE overheads(id INTEGER PRIMARY KEY, night INTEGER NOT NULL REFERENCES nights(id), plan TEXT,"
        " series TEXT NOT NULL, config_hash TEXT NOT NULL, service TEXT, workload TEXT, mode TEXT, platform TEXT,"
        " kernel TEXT, machine TEXT, rep INTEGER, started TEXT, slowdown REAL, p99_ratio REAL, base_build TEXT,"
        " tagged_build TEXT, UNIQUE(series, night, rep));"
        "INSERT INTO nights VALUES(1, 'nightly', '2025-12-03T01:00:00Z', 'n', 'h', 'v-old', '');"
        "INSERT INTO runs VALUES(1, 1, 'nightly', 'k1', 'h1', 'memcached', 'w', 'plain', 'off', 'vm', 'host', 'm',"
        " '2025-12-03T01:00:00Z', 1, 'v-old', 'b', '', '', 'ok', 1000, 10, 100, 200, '/gone/vm-base.json');"
        "INSERT INTO runs VALUES(2, 1, 'nightly', '%s', '%s', 'memcached', 'w', 'tagged', 'sync', 'vm', 'host', 'm',"
        " '2025-12-03T01:01:00Z', 1, 'v-old', 'b', '', '', 'ok', 400, 10, 120, 240, '%s');"
        "INSERT INTO runs VALUES(3, 1, 'nightly', 'k3', 'h3', 'memcached', 'w', 'plain', 'off', 'emu', 'host', 'm',"
        " '2025-12-03T01:02:00Z', 2, 'v-old', 'b', '', '', 'ok', 1000, 10, 100, 200, '/gone/emu.json');"
        "INSERT INTO overheads VALUES(1, 1, 'nightly', 'overhead:%s', '%s', 'memcached', 'w', 'sync', 'vm', 'host',"
        " 'm', 1, '2025-12-03T01:01:00Z', 2.5, 1.2, 'b', 'b');"
        "PRAGMA user_version = 2;", v2key, vmhash, json_string_value(json_array_get(vmfiles, 0)), v2key, vmhash);
    ok(sql(v2, v2sql) == SQLITE_OK, "schema 2 history made by hand");
    err[0] = 0;
    free(v2sql);
    rc = mtb_history_open(v2, &h, &created, err, sizeof err);
    ok(rc == 0 && !created && mtb_history_schema(h) == MTB_HISTORY_VERSION, "schema 2 opened: migrated to %d (%s)",
       MTB_HISTORY_VERSION, err);
    json_t *v2all = NULL;
    ok(rc == 0 && mtb_history_load(h, &v2all, err, sizeof err) == 0, "migrated history loads (%s)", err);
    mtb_history_close(h);
    h = NULL;
    ok(sql_int(v2, "SELECT emulated FROM runs WHERE id = 2") == 1,
       "a vm run whose record says emulated is emulated (not guessed from the platform name)");
    ok(sql_int(v2, "SELECT emulated FROM runs WHERE id = 1") == 0 && sql_int(v2, "SELECT emulated FROM runs WHERE id = 3") == 1,
       "runs whose record is gone: emulated as schema 2 assumed (platform emu)");
    ok(sql_int(v2, "SELECT emulated FROM overheads WHERE id = 1") == 1, "an overhead is emulated when its tagged run is");
    char *q2 = mtb_asprintf("SELECT count(*) FROM runs WHERE series = '%s' AND config_hash = '%s'", vmkey, vmhash);
    ok(sql_int(v2, q2) == 1 && sql_int(v2, "SELECT count(*) FROM overheads WHERE slowdown = 2.5") == 1,
       "series keys kept, on their host (unknown), and the overheads");
    free(q2);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        char *qc = mtb_asprintf("SELECT count(*) FROM pragma_table_info('overheads') WHERE name = '%s'", mtb_pair_metrics[m].key);
        ok(sql_int(v2, qc) == 1, "overheads has the pair metric column %s", mtb_pair_metrics[m].key);
        free(qc);
    }
    json_t *s2 = NULL;
    size_t si;
    json_t *sv;
    json_array_foreach(v2all, si, sv) if (!strcmp(json_string_value(json_object_get(sv, "series")), vmkey)) s2 = sv;
    ok(s2 && json_integer_value(json_object_get(json_array_get(json_object_get(s2, "points"), 0), "emulated")) == 1,
       "loaded points carry emulated");
    struct mtb_cp_opts cpo;
    mtb_cp_defaults(&cpo);
    json_t *an = mtb_nightly_analyse(v2all, &cpo, NULL);
    int vm_emu = 0, vm_seen = 0;
    json_array_foreach(json_object_get(an, "series"), si, sv) if (!strcmp(json_string_value(json_object_get(sv, "key")), vmkey))
    {
        vm_seen = 1;
        vm_emu = json_is_true(json_object_get(sv, "emulated"));
    }
    ok(vm_seen && vm_emu, "the nightly marks a vm series emulated from its records, not from the platform name");
    json_decref(an);
    json_decref(v2all);
    json_decref(vmrec);
    json_decref(vmfiles);
    free(vmkey);
    free(v2key);

    json_decref(n1);
    json_decref(n2);
    json_decref(n3);
    json_decref(f1);
    json_decref(f2);
    json_decref(f3);
    mtb_rm_rf(tmp);
    return done_testing();
}
