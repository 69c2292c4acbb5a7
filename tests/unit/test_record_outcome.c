/* Unit tests of how a record's run ended, read into a struct
 * (harness/core/record_outcome.c): its error, service log, platform, fault,
 * proof and build key as the record holds them, and what its trigger saw;
 * a record without them reads as NULL and 0. */
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
    json_decref(rec);
    mtb_rec_outcome_read(NULL, &o);
    ok(!o.error && !o.trigger.present, "no record at all");
    return done_testing();
}
