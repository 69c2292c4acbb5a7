/* Unit tests of a load generator's result read into its struct
 * (harness/core/load_rows.c): the totals, the errors summed without
 * reconnects, mtload's account, each latency block's statistics (absent
 * and null NaN), the client's bound and the engine; and the record's
 * summary made of it (core/run_request.c's mtb_run_summary). */
#include <math.h>
#include <string.h>

#include "core/load_rows.h"
#include "core/run_request.h"
#include "tap.h"

int main(void)
{
    json_t *load = json_loads(
        "{\"engine\": \"io_uring\", \"totals\": {\"requests\": 2934, \"ops_per_sec\": 2934.5,"
        "  \"errors\": {\"server\": 1, \"timeout\": 2, \"reconnects\": 40, \"note\": \"x\"},"
        "  \"accounting\": {\"sent\": 3000, \"answered\": 2934, \"unsent\": 5}, \"setup\": 7,"
        "  \"error_rate\": 0.001, \"error_limit\": 0.01, \"errors_over_limit\": false},"
        " \"latency_us\": {\"corrected\": {\"mean\": 90, \"p50\": 80.5, \"p99\": 400, \"p99.9\": null, \"count\": 2934},"
        "                \"uncorrected\": {\"p50\": 70}},"
        " \"cpu\": {\"client_bound\": true}, \"duration_s\": 2.0, \"histogram\": [[80.5, 2934]],"
        " \"timeseries\": [{\"t\": 1, \"ops\": 1467}, {\"t\": 2, \"ops\": 1467}]}",
        0, NULL);
    ok(load != NULL, "the result parses");
    struct mtb_load_view l;
    mtb_load_view_read(load, &l);
    ok(l.present && !strcmp(l.engine, "io_uring") && l.requests == 2934 && l.ops_per_sec == 2934.5 && l.has_requests,
       "the engine and the totals");
    ok(l.errors == 3, "the errors summed, reconnects and what is no count aside (%lld)", l.errors);
    ok(l.has_accounting && l.accounting_whole && l.account[MTB_LOAD_A_SENT] == 3000 &&
           l.account[MTB_LOAD_A_ANSWERED] == 2934 && l.account[MTB_LOAD_A_UNSENT] == 5 &&
           isnan(l.account[MTB_LOAD_A_LOST_TIMEOUT]) && l.has_error_rate &&
           l.error_rate == 0.001 && l.error_limit == 0.01 && l.has_errors_over_limit && !l.errors_over_limit,
       "mtload's account of the requests");
    ok(l.has_setup && l.setup == 7, "the clients' own setup transactions");
    ok(l.count[MTB_LOAD_C_REQUESTS] == 2934 && isnan(l.count[MTB_LOAD_C_GETS]) && l.errors_by[MTB_LOAD_E_SERVER] == 1 &&
           l.errors_by[MTB_LOAD_E_RECONNECTS] == 40 && isnan(l.errors_by[MTB_LOAD_E_PROTOCOL]),
       "each count and each kind of error, by its key (absent NaN)");
    struct mtb_load_sec sec;
    mtb_load_second(&l, 1, &sec);
    ok(l.nseconds == 2 && sec.t == 2 && sec.ops == 1467 && isnan(sec.errors),
       "a second of the timeseries: when, its operations, no errors said");
    mtb_load_second(&l, 5, &sec);
    ok(isnan(sec.t) && isnan(sec.ops) && isnan(sec.errors), "a second past the end: NaN");
    ok(isnan(l.cpu_user_s) && !l.config && !l.histogram_uncorrected && !l.has_hlog && !l.hlog && !l.clients &&
           !l.nclients && json_is_object(l.totals) && l.lat[MTB_LAT_CORRECTED].j,
       "no CPU times, config, uncorrected histogram, log or clients; the totals and a latency block as held");
    const struct mtb_load_lat *c = &l.lat[MTB_LAT_CORRECTED], *u = &l.lat[MTB_LAT_UNCORRECTED];
    ok(c->present && c->v[MTB_LOAD_P50] == 80.5 && c->v[MTB_LOAD_P99] == 400 && c->has[MTB_LOAD_P999] &&
           isnan(c->v[MTB_LOAD_P999]) && !c->has[MTB_LOAD_P90] && isnan(c->v[MTB_LOAD_P90]) && c->count == 2934,
       "the corrected latencies: a null one there but NaN, an absent one not there");
    ok(u->present && u->v[MTB_LOAD_P50] == 70 && u->count == 0, "the uncorrected");
    ok(l.has_client_bound && l.client_bound, "the client was the limit");
    ok(l.duration_s == 2 && json_array_size(l.histogram) == 1 && json_array_size(l.timeseries) == 2,
       "the measured period, the histogram and the seconds as the result holds them");
    json_t *rec = json_pack("{s:O}", "load", load);
    struct mtb_load_view lr;
    mtb_load_view_of_record(rec, &lr);
    ok(lr.requests == 2934 && lr.histogram == l.histogram, "a record's load read the same");
    json_decref(rec);
    json_t *s = mtb_run_summary(load);
    ok(json_real_value(json_object_get(s, "ops_per_sec")) == 2934.5 &&
           json_integer_value(json_object_get(s, "requests")) == 2934 &&
           json_real_value(json_object_get(s, "p50_us")) == 80.5 && json_is_null(json_object_get(s, "p999_us")) &&
           json_is_true(json_object_get(s, "client_bound")) && json_integer_value(json_object_get(s, "errors")) == 3 &&
           json_is_false(json_object_get(s, "errors_over_limit")) &&
           !strcmp(json_string_value(json_object_get(s, "engine")), "io_uring"),
       "the record's summary of it");
    json_decref(s);
    json_decref(load);
    load = json_pack("{s:{s:i}}", "totals", "requests", 1);
    mtb_load_view_read(load, &l);
    ok(!l.engine && !l.has_accounting && !l.has_error_rate && !l.lat[MTB_LAT_CORRECTED].present && !l.has_ops_per_sec &&
           isnan(l.ops_per_sec) && !l.has_client_bound,
       "a trigger's result: what it lacks is not there");
    s = mtb_run_summary(load);
    ok(json_object_size(s) == 2 && json_integer_value(json_object_get(s, "requests")) == 1 &&
           json_integer_value(json_object_get(s, "errors")) == 0,
       "its summary: the requests and no errors, nothing made up");
    json_decref(s);
    json_decref(load);
    mtb_load_view_read(NULL, &l);
    ok(!l.present && isnan(l.requests) && !l.histogram && !l.timeseries && isnan(l.duration_s), "no result at all");

    /* a merged load of client hosts: their CPU, the config, the log, the clients */
    load = json_loads("{\"config\": {\"rate\": 100}, \"cpu\": {\"user_s\": 1.5, \"sys_s\": 0.5},"
                      " \"histogram_uncorrected\": [[70, 1]], \"hlog\": \"load.hlog\","
                      " \"clients\": [{\"host\": \"a\"}, {\"host\": \"b\"}], \"totals\": {\"accounting\": 3}}",
                      0, NULL);
    mtb_load_view_read(load, &l);
    ok(l.cpu_user_s == 1.5 && l.cpu_sys_s == 0.5 && json_is_object(l.config) && json_array_size(l.histogram_uncorrected) == 1 &&
           l.has_hlog && !strcmp(l.hlog, "load.hlog") && l.nclients == 2 && l.clients,
       "a merged load: the clients' CPU, the config, the uncorrected histogram, the log, the clients");
    ok(l.has_accounting && !l.accounting_whole, "an account that is no object: there, not whole");
    mtb_load_set_hlog(load, json_string("clients/load.hlog"));
    mtb_load_set_total(load, "requests", json_integer(9));
    mtb_load_view_read(load, &l);
    ok(!strcmp(l.hlog, "clients/load.hlog") && l.requests == 9, "the log's file and a total set");
    mtb_load_set_hlog(NULL, json_string("x")); /* no load: freed (valgrind) */
    json_decref(load);

    /* a merged load's entry of a client host */
    json_t *ce = json_pack("{s:s,s:s}", "dir", "clients/h1", "status", "ok");
    struct mtb_client_entry cen;
    mtb_client_entry_read(ce, &cen);
    ok(!strcmp(cen.dir, "clients/h1") && !strcmp(cen.status, "ok"), "a client host's entry: its directory, its status");
    mtb_client_entry_read(NULL, &cen);
    ok(!strcmp(cen.dir, "") && !strcmp(cen.status, ""), "no entry: \"\"");
    json_decref(ce);

    /* a far client's own account (client.json) */
    json_t *cj = json_loads("{\"exit\": 3, \"exit_text\": \"errors\", \"late_s\": 0.01, \"cpu_user_s\": 2}", 0, NULL);
    struct mtb_client_outcome co;
    mtb_client_outcome_read(cj, &co);
    ok(co.present && co.exit == 3 && !strcmp(co.exit_text, "errors") && co.late_s == 0.01 && co.cpu_user_s == 2 &&
           co.cpu_sys_s == 0,
       "a client's exit, its text, how late it started, its CPU (absent: 0)");
    json_decref(cj);
    mtb_client_outcome_read(NULL, &co);
    ok(!co.present && co.exit == 0 && !co.exit_text && co.late_s == 0, "no client.json");
    return done_testing();
}
