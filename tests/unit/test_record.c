/* Unit tests of the run record (harness/core/record.c): the one builder
 * (begin, identify, fail, end), the atomic writer, the metric table's
 * getters, the configuration typed once, the workload key. Loading:
 * test_record_load.c; the pairing rule: test_record_pair.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/record.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "record_fixture.h"
#include "tap.h"

static char tmp[] = "/tmp/mtb-test-record-XXXXXX";

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

int main(void)
{
    if (!mkdtemp(tmp))
        return perror("mkdtemp"), 1;
    test_builder();
    test_metrics();
    test_config();
    test_workload_key();
    mtb_rm_rf(tmp);
    return done_testing();
}
