/* Unit tests of how a record's run ended, read into a struct
 * (harness/core/record_outcome.c): its error, service log, platform, fault,
 * proof and build key as the record holds them, and what its trigger saw;
 * a record without them reads as NULL and 0. */
#include <math.h>
#include <string.h>

#include "core/record_outcome.h"
#include "tap.h"

int main(void)
{
    json_t *rec = json_loads(
        "{\"error\": \"the service died during the run\", \"logs\": {\"service\": \"guest/r1/service.log\"},"
        " \"platform\": {\"name\": \"vm\", \"emulated\": true}, \"fault\": {\"si_code\": 9, \"tag_check\": true},"
        " \"proof\": {\"ok\": false}, \"build\": {\"key\": \"abc\"},"
        " \"load\": {\"trigger\": {\"received\": 12, \"closed\": true, \"alive_after\": false}}}",
        0, NULL);
    ok(rec != NULL, "the record parses");
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read(rec, &o);
    ok(!strcmp(o.error, "the service died during the run") && !strcmp(o.service_log, "guest/r1/service.log") &&
           !strcmp(o.platform_name, "vm"),
       "its error, service log and platform");
    ok(!strcmp(mtb_rec_outcome_error(rec), "the service died during the run"), "the error alone");
    ok(o.fault && json_integer_value(json_object_get(o.fault, "si_code")) == 9 && json_is_false(o.proof_ok) &&
           !strcmp(json_string_value(o.build_key), "abc") && json_is_true(json_object_get(o.platform, "emulated")),
       "the fault, the proof's verdict, the build key and the platform as the record holds them");
    ok(o.trigger.present && o.trigger.received == 12 && o.trigger.closed && !o.trigger.alive_after &&
           !o.trigger.embedded && o.trigger.j,
       "what the trigger saw");
    json_decref(rec);
    rec = json_pack("{s:s}", "status", "ok");
    mtb_rec_outcome_read(rec, &o);
    ok(!o.error && !o.service_log && !o.platform_name && !o.fault && !o.proof_ok && !o.build_key && !o.trigger.present &&
           !o.trigger.j && o.trigger.received == 0,
       "a record without them: NULL and 0");
    ok(!strcmp(o.status, "ok") && !o.not_written && !o.warnings && !o.perf_per_request && !o.has_objtag &&
           isnan(o.counted_requests),
       "its status; no warnings, perf or service counters");
    json_decref(rec);
    rec = json_loads("{\"status\": \"error\", \"not_written\": true, \"warnings\": [\"tagging not seen\"],"
                     " \"perf\": {\"per_request\": {\"cycles\": 1000}},"
                     " \"service_counters\": {\"delta\": {\"objtag_ops\": 300, \"objtag_granules\": 600,"
                     "  \"cmd_get\": 90, \"cmd_set\": 10}}}", 0, NULL);
    mtb_rec_outcome_read(rec, &o);
    ok(!strcmp(o.status, "error") && o.not_written && json_array_size(o.warnings) == 1 &&
           json_integer_value(json_object_get(o.perf_per_request, "cycles")) == 1000,
       "not written, its warnings, perf's events per request");
    ok(json_is_object(o.perf) && !mtb_rec_outcome_error(rec) && !o.has_work, "the perf block; no error, no work account");
    ok(o.has_objtag && o.objtag_ops == 300 && o.objtag_granules == 600 && o.counted_requests == 100,
       "the objtag counters and memcached's requests (cmd_get + cmd_set)");
    json_decref(rec);
    rec = json_loads("{\"service_counters\": {\"delta\": {\"objtag_ops\": 5, \"xact_commit\": 40,"
                     " \"xact_rollback\": 2}}}", 0, NULL);
    mtb_rec_outcome_read(rec, &o);
    ok(!o.has_objtag && o.counted_requests == 42, "PostgreSQL's transactions; objtag_ops alone is no count");
    json_decref(rec);
    mtb_rec_outcome_read(NULL, &o);
    ok(!o.error && !o.trigger.present, "no record at all");

    /* the service's counters over a window, and a recipe's counted sum of them */
    json_t *before = json_loads("{\"cmd_get\": 10, \"cmd_set\": 5, \"version\": \"1.6\", \"gone\": 3}", 0, NULL),
           *after = json_loads("{\"cmd_get\": 110, \"cmd_set\": 25, \"version\": \"1.6\", \"new\": 7}", 0, NULL);
    json_t *d = mtb_counters_delta(before, after);
    ok(json_object_size(d) == 2 && json_integer_value(json_object_get(d, "cmd_get")) == 100 &&
           json_integer_value(json_object_get(d, "cmd_set")) == 20,
       "the delta: the counters both give as whole numbers, after - before");
    ok(mtb_counters_sum(d, "cmd_get + cmd_set") == 120 && mtb_counters_sum(d, "cmd_get") == 100,
       "the recipe's counted sum of them");
    ok(mtb_counters_sum(d, "cmd_get + requests") == -1 && mtb_counters_sum(d, NULL) == -1 &&
           mtb_counters_sum(NULL, "cmd_get") == -1,
       "a counter missing, no recipe's sum or no counters: -1");
    json_decref(d);
    json_decref(before);
    json_decref(after);
    return done_testing();
}
