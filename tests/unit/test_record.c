/* Unit tests of the run record (harness/core/record.c, record_load.c,
 * record_pair.c): the one builder (begin, identify, fail, end), the
 * atomic writer, the metric table's getters, each check a loaded record
 * passes or fails by name, the workload key, and the pairing rule in C
 * against the same rule in SQL (SQLite). */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/record.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "tap.h"

static char tmp[] = "/tmp/mtb-test-record-XXXXXX";

static json_t *workload(int duration)
{
    return json_pack("{s:s,s:s,s:i,s:i}", "name", "default", "mix", "1:10", "conns", 16, "duration_s", duration);
}

static void test_builder(void)
{
    json_t *wl = workload(30), *build = json_pack("{s:s}", "key", "abc");
    struct mtb_record_id id = { "memcached", "tagged", "async", "emu", "host", "p", NULL, 2, 5, 6, wl, build };
    json_t *rec = mtb_record_begin(&id);
    json_t *c = json_object_get(rec, "config");
    ok(!strcmp(mtb_jstr(rec, "schema"), MTB_RECORD_SCHEMA) && *mtb_jstr(rec, "started") &&
           !strcmp(mtb_jstr(rec, "mtebench_version"), MTEBENCH_VERSION),
       "begin: schema, started, version");
    ok(!strcmp(mtb_jstr(c, "service"), "memcached") && !strcmp(mtb_jstr(c, "variant"), "tagged") &&
           !strcmp(mtb_jstr(c, "mode"), "async") && !strcmp(mtb_jstr(c, "allocator"), "glibc") &&
           json_integer_value(json_object_get(c, "rep")) == 2 && json_integer_value(json_object_get(c, "total")) == 6 &&
           json_equal(json_object_get(c, "workload"), wl) && json_equal(json_object_get(rec, "build"), build),
       "begin: the identity in config (glibc when no allocator is named), workload and build copied in");
    /* a far side's record takes the controller's identity, and keeps its own other keys */
    json_t *far = json_pack("{s:{s:s,s:s,s:s}}", "config", "service", "other", "mode", "sync", "far_key", "kept");
    mtb_record_identify(far, &id);
    c = json_object_get(far, "config");
    ok(!strcmp(mtb_jstr(c, "service"), "memcached") && !strcmp(mtb_jstr(c, "mode"), "async") &&
           !strcmp(mtb_jstr(c, "far_key"), "kept"),
       "identify: the identity over a far record, its other config keys kept");
    json_decref(far);

    ok(mtb_record_status(rec) == MTB_RUN_ERROR, "status: none is an error");
    json_object_set_new(rec, "status", json_string("fault"));
    ok(mtb_record_status(rec) == MTB_RUN_FAULT, "status: fault");
    json_object_set_new(rec, "status", json_string("fine"));
    ok(mtb_record_status(rec) == MTB_RUN_ERROR, "status: an unknown one is an error");
    json_object_set_new(rec, "status", json_string("ok"));

    char *dir = mtb_asprintf("%s/run", tmp);
    mkdir(dir, 0755);
    ok(mtb_record_end(rec, dir) == MTB_RUN_OK, "end: written, status kept");
    char *path = mtb_asprintf("%s/record.json", dir);
    json_t *back = json_load_file(path, 0, NULL);
    ok(back && *mtb_jstr(back, "finished") && json_equal(json_object_get(back, "config"), json_object_get(rec, "config")),
       "end: DIR/record.json holds the record with `finished`");
    char *text = mtb_read_file(path, NULL);
    ok(text && strstr(text, "\"build\"") < strstr(text, "\"config\"") && strstr(text, "\n  \""),
       "the record written indented, keys sorted");
    free(text);
    json_decref(back);
    /* a record that cannot be written is not a result */
    char *gone = mtb_asprintf("%s/no/such/dir", tmp);
    ok(mtb_record_end(rec, gone) == MTB_RUN_ERROR && json_is_true(json_object_get(rec, "not_written")) &&
           strstr(mtb_jstr(rec, "error"), "cannot write"),
       "end into a missing directory: an error, marked not_written, named");
    free(gone);
    free(path);
    free(dir);
    json_decref(rec);
    json_decref(wl);
    json_decref(build);
}

static json_t *rec_of(const char *variant, const char *mode, int rep, double ops, double p99)
{
    json_t *r = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:o},s:{s:f}}", "schema", MTB_RECORD_SCHEMA, "status",
                          "ok", "config", "service", "memcached", "variant", variant, "mode", mode, "platform", "emu",
                          "kernel", "host", "plan", "p", "rep", rep, "workload", workload(30), "summary", "ops_per_sec",
                          ops);
    if (!isnan(p99)) /* p99 only in the load, as mtload reports it */
        json_object_set_new(r, "load", json_pack("{s:{s:{s:f}}}", "latency_us", "corrected", "p99", p99));
    return r;
}

static void test_metrics(void)
{
    json_t *t = rec_of("tagged", "async", 1, 800, 200), *b = rec_of("plain", "off", 1, 1000, 100);
    ok(mtb_record_metric(t, MTB_M_ops_per_sec) == 800, "metric: summary.ops_per_sec");
    ok(mtb_record_metric(t, MTB_M_p99_us) == 200, "metric: p99 from the load's corrected latency");
    ok(isnan(mtb_record_metric(t, MTB_M_p999_us)), "metric: NaN where the record has none");
    ok(mtb_record_pair_metric(t, b, MTB_P_slowdown) == 1.25, "pair: slowdown = baseline / tagged throughput (1.25)");
    ok(mtb_record_pair_metric(t, b, MTB_P_p99_ratio) == 2, "pair: p99 ratio = tagged / baseline (2)");
    json_object_set_new(json_object_get(t, "summary"), "ops_per_sec", json_real(0));
    ok(isnan(mtb_record_pair_metric(t, b, MTB_P_slowdown)), "pair: NaN over a denominator of 0");
    json_decref(t);
    json_decref(b);
}

/* write text to DIR/NAME/record.json */
static void put(const char *dir, const char *name, const char *text)
{
    char *d = mtb_asprintf("%s/%s", dir, name), *p = mtb_asprintf("%s/record.json", d);
    mkdir(d, 0755);
    mtb_write_atomic(p, text, strlen(text));
    free(d);
    free(p);
}

/* a complete config (mtb_rec_config_get) */
#define CFG "{\"service\":\"m\",\"variant\":\"plain\",\"mode\":\"off\",\"platform\":\"emu\",\"kernel\":\"host\",\"rep\":1,\"workload\":{}}"

static void test_checks_and_load(void)
{
    char msg[400];
    static const struct {
        const char *json;
        enum mtb_record_problem p;
    } cases[] = {
        { "[1]", MTB_REC_NOT_OBJECT },
        { "{\"config\":{\"service\":\"m\"}}", MTB_REC_NO_SCHEMA },
        { "{\"schema\":\"mtebench-run/99\",\"config\":{\"service\":\"m\"}}", MTB_REC_OTHER_SCHEMA },
        { "{\"schema\":\"mtebench-run/1\",\"config\":{}}", MTB_REC_NO_SERVICE },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"ok\",\"config\":" CFG "}", MTB_REC_NO_FIGURES },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"ok\",\"config\":" CFG ",\"summary\":{\"ops_per_sec\":1},"
          "\"timing\":\"none\",\"work\":{}}",
          MTB_REC_COUNTED },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"error\",\"config\":{\"service\":\"m\"}}", MTB_REC_BAD_CONFIG },
        { "{\"schema\":\"mtebench-run/1\",\"status\":\"error\",\"config\":" CFG "}", MTB_REC_OK },
    };
    int good = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *r = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
        enum mtb_record_problem p = mtb_record_check(r, msg, sizeof msg);
        if (p != cases[i].p || (p != MTB_REC_OK) != (msg[0] != 0)) {
            good = 0;
            diag("%s: %s (%s)", cases[i].json, mtb_record_problem_name(p), msg);
        }
        json_decref(r);
    }
    ok(good, "check: each of %zu records gets its problem, with a message where it has one",
       sizeof cases / sizeof cases[0]);

    char *dir = mtb_asprintf("%s/results", tmp);
    mkdir(dir, 0755);
    json_t *r = rec_of("plain", "off", 1, 1000, 100);
    char *text = json_dumps(r, 0);
    put(dir, "001-ok", text);
    free(text);
    json_decref(r);
    put(dir, "002-broken", "{\"schema\": ");
    put(dir, "003-other", "{\"schema\":\"mtebench-run/99\",\"config\":{\"service\":\"m\"}}");
    put(dir, "004-error", "{\"schema\":\"mtebench-run/1\",\"status\":\"error\",\"config\":" CFG "}");
    char *missing = mtb_asprintf("%s/nothing-here", tmp);
    char *dirs[] = { dir, dir, missing }; /* a directory twice: its records once */
    struct mtb_record_set set;
    ok(mtb_record_load(dirs, 3, &set) == 0, "load: three directories");
    ok(json_array_size(set.records) == 2 && mtb_record_usable(&set) == 1,
       "load: 2 records kept (one ok, one an error), each file once (%zu)", json_array_size(set.records));
    size_t i;
    json_t *b;
    const char *reasons = "";
    char got[256] = "";
    json_array_foreach(set.bad, i, b) snprintf(got + strlen(got), sizeof got - strlen(got), "%s ", mtb_jstr(b, "reason"));
    reasons = "not-json other-schema not-json ";
    ok(!strcmp(got, reasons), "load: the corrupt file, the other schema and the missing directory listed bad by name");
    if (strcmp(got, reasons))
        diag("got %s", got);
    mtb_record_set_free(&set);
    free(missing);
    free(dir);
}

/* the configuration typed once: each key named when it is missing or of the wrong type */
static void test_config(void)
{
    json_t *r = rec_of("tagged", "async", 3, 900, 100);
    struct mtb_rec_config c;
    char why[200] = "";
    ok(mtb_rec_config_get(r, &c, why, sizeof why) == 0 && !strcmp(c.service, "memcached") && !strcmp(c.variant, "tagged") &&
           !strcmp(c.mode, "async") && !strcmp(c.kernel, "host") && c.rep == 3 && json_is_object(c.workload),
       "config: the identity typed");
    ok(!strcmp(c.allocator, "glibc") && c.index == 0 && c.total == 0,
       "config: a record from before the allocator axis and without its place in the plan: glibc's, 0, 0");
    static const struct {
        const char *key, *json, *want;
    } bad[] = {
        { "rep", "\"3\"", "config.rep: string, not a whole number" },
        { "rep", "-1", "config.rep: integer out of range" },
        { "variant", NULL, "config.variant: missing (a string)" },
        { "mode", "7", "config.mode: integer, not a string" },
        { "kernel", "\"\"", "config.kernel: empty" },
        { "workload", "[]", "config.workload: array" },
        { "index", "1.5", "config.index: real, not a whole number" },
    };
    int good = 1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *copy = json_deep_copy(r), *cc = json_object_get(copy, "config");
        if (bad[i].json)
            json_object_set_new(cc, bad[i].key, json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
        else
            json_object_del(cc, bad[i].key);
        why[0] = 0;
        if (mtb_rec_config_get(copy, &c, why, sizeof why) != -1 || strcmp(why, bad[i].want)) {
            good = 0;
            diag("%s: got '%s'", bad[i].want, why);
        }
        char msg[400];
        good &= mtb_record_check(copy, msg, sizeof msg) == MTB_REC_BAD_CONFIG && strstr(msg, bad[i].want) != NULL;
        json_decref(copy);
    }
    ok(good, "config: each of %zu bad keys named, never read as \"\", and the record refused by the check (bad-config)",
       sizeof bad / sizeof bad[0]);
    json_decref(r);
}

static void test_workload_key(void)
{
    json_t *a = json_pack("{s:i,s:s}", "conns", 16, "mix", "1:10"), *b = json_pack("{s:s,s:f}", "mix", "1:10", "conns", 16.0);
    char *k = mtb_workload_key(a);
    ok(!strcmp(k, "conns=16,mix=\"1:10\""), "workload key: sorted keys, numbers as numbers (%s)", k);
    free(k);
    ok(mtb_workload_equal(a, b), "workload key: 16 and 16.0, any key order: the same workload");
    json_object_set_new(b, "conns", json_integer(17));
    ok(!mtb_workload_equal(a, b), "... 17 connections is another");
    json_decref(a);
    json_decref(b);
}

/* the pairing rule in C, and the history's SQL of it, on the same runs */
static void test_pairing(void)
{
    json_t *recs = json_array();
    json_array_append_new(recs, rec_of("plain", "off", 1, 1000, 100));   /* 0 */
    json_array_append_new(recs, rec_of("tagged", "async", 1, 900, 100)); /* 1: pairs 0 */
    json_array_append_new(recs, rec_of("tagged", "async", 2, 900, 100)); /* 2: no rep-2 baseline */
    json_array_append_new(recs, rec_of("plain", "off", 2, 1000, 100));   /* 3: on another host */
    json_object_set_new(json_array_get(recs, 3), "environment", json_pack("{s:s}", "hostname", "other"));
    json_t *w60 = rec_of("tagged", "sync", 1, 900, 100);                 /* 4: another workload */
    json_object_set_new(json_object_get(w60, "config"), "workload", workload(60));
    json_array_append_new(recs, w60);
    long *p = mtb_record_partners(recs);
    ok(p[0] == -1 && p[1] == 0 && p[2] == -1 && p[3] == -1 && p[4] == -1,
       "partners: a tagged run's baseline is plain/off of its repetition, host and workload (%ld %ld %ld %ld %ld)", p[0],
       p[1], p[2], p[3], p[4]);
    int same = 1;
    for (size_t i = 0; i < json_array_size(recs); i++)
        same &= mtb_record_partner(recs, json_array_get(recs, i)) == p[i];
    ok(same, "mtb_record_partner agrees with mtb_record_partners on each run");
    free(p);

    /* the SQL: a table of the same runs, their pair fields as the history keeps them */
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db, "CREATE TABLE runs (id INT, night INT, rep INT, variant TEXT, mode TEXT, plan TEXT, service TEXT,"
                     " workload TEXT, platform TEXT, kernel TEXT, machine TEXT, allocator TEXT, host TEXT)",
                 NULL, NULL, NULL);
    for (size_t i = 0; i < json_array_size(recs); i++) {
        json_t *r = json_array_get(recs, i), *c = json_object_get(r, "config");
        char *wk = mtb_workload_key(json_object_get(c, "workload")), *mt = mtb_record_machine_text(r);
        char *sql = sqlite3_mprintf("INSERT INTO runs VALUES (%d, 1, %d, %Q, %Q, %Q, %Q, %Q, %Q, %Q, %Q, 'glibc', %Q)",
                                    (int)i, (int)json_integer_value(json_object_get(c, "rep")), mtb_jstr(c, "variant"),
                                    mtb_jstr(c, "mode"), mtb_jstr(c, "plan"), mtb_jstr(c, "service"), wk,
                                    mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), mt, mtb_record_host(r));
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        sqlite3_free(sql);
        free(wk);
        free(mt);
    }
    char *on = mtb_record_pair_sql("t", "b");
    char *q = mtb_asprintf("SELECT group_concat(t.id || '-' || b.id) FROM runs t JOIN runs b ON %s", on);
    sqlite3_stmt *st;
    const char *got = NULL;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        got = (const char *)sqlite3_column_text(st, 0);
    ok(got && !strcmp(got, "1-0"), "the history's SQL pairs the same runs: %s", got ? got : "(none)");
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(q);
    free(on);
    json_decref(recs);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return perror("mkdtemp"), 1;
    test_builder();
    test_metrics();
    test_checks_and_load();
    test_config();
    test_workload_key();
    test_pairing();
    mtb_rm_rf(tmp);
    return done_testing();
}
