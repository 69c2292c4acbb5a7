/* record_outcome.c - how a record's run ended (record_outcome.h) */
#include "core/record_outcome.h"

#include <string.h>

void mtb_rec_outcome_read(json_t *rec, struct mtb_rec_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->error = json_string_value(json_object_get(rec, "error"));
    o->service_log = json_string_value(json_object_get(json_object_get(rec, "logs"), "service"));
    o->platform = json_object_get(rec, "platform");
    o->platform_name = json_string_value(json_object_get(o->platform, "name"));
    o->fault = json_object_get(rec, "fault");
    o->proof_ok = json_object_get(json_object_get(rec, "proof"), "ok");
    o->build_key = json_object_get(json_object_get(rec, "build"), "key");
    json_t *tr = json_object_get(json_object_get(rec, "load"), "trigger");
    struct mtb_rec_trigger *t = &o->trigger;
    t->j = tr;
    t->present = tr != NULL;
    t->embedded = json_is_true(json_object_get(tr, "embedded"));
    t->closed = json_is_true(json_object_get(tr, "closed"));
    t->alive_after = json_is_true(json_object_get(tr, "alive_after"));
    t->received = json_integer_value(json_object_get(tr, "received"));
}
