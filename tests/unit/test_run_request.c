/* Unit tests of the run request (harness/core/run_request.c): a struct
 * mtb_run made into the record whoever performs it begins (its identity
 * set in one place, over a far side's record too), and mtload's result
 * folded into the record's summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run_request.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "plan/platforms.h"
#include "tap.h"

static void test_summary(void)
{
    json_t *load = json_pack("{s:s,s:{s:f,s:I,s:f,s:I,s:{s:I,s:I,s:I,s:s}},s:{s:{s:f,s:f,s:f}},s:{s:b}}", "engine",
                             "epoll", "totals", "ops_per_sec", 1234.5, "requests", (json_int_t)12345, "error_rate",
                             0.001, "errors_over_limit", (json_int_t)0, "errors", "timeouts", (json_int_t)2, "server",
                             (json_int_t)3, "reconnects", (json_int_t)40, "note", "x", "latency_us", "corrected", "p50",
                             10.0, "p99", 99.0, "p99.9", 999.0, "cpu", "client_bound", 1);
    json_t *s = mtb_run_summary(load);
    ok(mtb_jnum(s, "ops_per_sec") == 1234.5 && mtb_jnum(s, "requests") == 12345 && mtb_jnum(s, "p50_us") == 10 &&
           mtb_jnum(s, "p99_us") == 99 && mtb_jnum(s, "p999_us") == 999 &&
           json_is_true(json_object_get(s, "client_bound")) && !strcmp(mtb_jstr(s, "engine"), "epoll"),
       "summary: throughput, requests, corrected percentiles, client-bound, engine");
    ok(json_integer_value(json_object_get(s, "errors")) == 5,
       "summary: errors are the error counts' sum, reconnects and non-counts left out (5)");
    ok(mtb_jnum(s, "error_rate") == 0.001 && json_object_get(s, "errors_over_limit"),
       "summary: mtload's error accounting carried");
    json_decref(s);
    json_object_del(json_object_get(load, "totals"), "error_rate");
    s = mtb_run_summary(load);
    ok(!json_object_get(s, "error_rate") && !json_object_get(s, "errors_over_limit"),
       "summary: no error accounting where the load has none (another tool's)");
    json_decref(s);
    json_decref(load);
}

static void test_record(void)
{
    char err[MTB_ERRLEN];
    struct mtb_recipe *r = mtb_recipe_find("memcached", err, sizeof err);
    struct mtb_machine m;
    struct mtb_workload wl;
    ok(r && mtb_machine_load("auto", &m, err, sizeof err) == 0 && mtb_workload_defaults(r, "default", &wl, NULL) == 0,
       "a real recipe, machine profile and workload: %s", r ? "memcached" : err);
    if (!r)
        return;
    wl.duration = 7;
    struct mtb_build b = { .info = json_pack("{s:s}", "key", "k1") };
    struct mtb_run run = { .recipe = r, .variant = "tagged", .mode = mtb_mode_find("async"),
                           .platform = mtb_platform_find("emu"), .kernel = "host", .wl = &wl, .build = &b,
                           .machine = &m, .rep = 3, .index = 7, .total = 12, .plan = "bench" };
    json_t *rec = mtb_run_record(&run, NULL), *c = json_object_get(rec, "config");
    ok(!strcmp(mtb_jstr(c, "service"), "memcached") && !strcmp(mtb_jstr(c, "variant"), "tagged") &&
           !strcmp(mtb_jstr(c, "mode"), "async") && !strcmp(mtb_jstr(c, "platform"), "emu") &&
           !strcmp(mtb_jstr(c, "kernel"), "host") && !strcmp(mtb_jstr(c, "allocator"), "glibc") &&
           json_integer_value(json_object_get(c, "rep")) == 3 && json_integer_value(json_object_get(c, "index")) == 7 &&
           !strcmp(mtb_jstr(c, "plan"), "bench"),
       "record: the run's identity in config");
    ok(mtb_jnum(json_object_get(c, "workload"), "duration_s") == 7 &&
           !strcmp(mtb_jstr(json_object_get(rec, "build"), "key"), "k1"),
       "record: its workload and build");
    ok(json_is_true(json_object_get(json_object_get(rec, "platform"), "emulated")) &&
           json_is_object(json_object_get(rec, "kernel")) && json_is_object(json_object_get(rec, "machine")),
       "record: the platform (emulated), an empty kernel object and the machine, before the run");
    json_decref(rec);
    rec = mtb_run_record(&run, "stock");
    ok(!strcmp(mtb_jstr(json_object_get(rec, "config"), "kernel"), "stock"), "record: a kernel given overrides the run's");
    json_decref(rec);
    /* a far side's record (a vm guest's, a server host's) takes the controller's identity */
    json_t *far = json_pack("{s:{s:s,s:i,s:s}}", "config", "variant", "plain", "rep", 1, "guest_only", "kept");
    mtb_run_identify(&run, NULL, far);
    c = json_object_get(far, "config");
    ok(!strcmp(mtb_jstr(c, "variant"), "tagged") && json_integer_value(json_object_get(c, "rep")) == 3 &&
           !strcmp(mtb_jstr(c, "guest_only"), "kept"),
       "identify: a far record gets the run's identity, its own keys kept");
    json_decref(far);
    json_decref(b.info);
}

int main(void)
{
    test_summary();
    test_record();
    return done_testing();
}
