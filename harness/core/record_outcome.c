/* record_outcome.c - how a record's run ended (record_outcome.h) */
#include "core/record_outcome.h"
#include "lib/jsonx.h"

#include <stdlib.h>
#include <string.h>

void mtb_rec_outcome_read(json_t *rec, struct mtb_rec_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->status = json_string_value(json_object_get(rec, "status"));
    o->not_written = json_is_true(json_object_get(rec, "not_written"));
    o->error = json_string_value(json_object_get(rec, "error"));
    o->service_log = json_string_value(json_object_get(json_object_get(rec, "logs"), "service"));
    o->platform = json_object_get(rec, "platform");
    o->platform_name = json_string_value(json_object_get(o->platform, "name"));
    o->fault = json_object_get(rec, "fault");
    o->proof_ok = json_object_get(json_object_get(rec, "proof"), "ok");
    o->build_key = json_object_get(json_object_get(rec, "build"), "key");
    o->warnings = json_object_get(rec, "warnings");
    o->perf = json_object_get(rec, "perf");
    o->has_work = json_object_get(rec, "work") != NULL;
    o->work_tasks = json_object_get(json_object_get(rec, "work"), "tasks");
    o->perf_per_request = json_object_get(o->perf, "per_request");
    json_t *d = json_object_get(json_object_get(rec, "service_counters"), "delta");
    o->counters_delta = d;
    json_t *ops = json_object_get(d, "objtag_ops"), *gr = json_object_get(d, "objtag_granules");
    o->has_objtag = json_is_integer(ops) && json_is_integer(gr);
    o->objtag_ops = json_integer_value(ops);
    o->objtag_granules = json_integer_value(gr);
    double req = mtb_jnum(d, "cmd_get") + mtb_jnum(d, "cmd_set");
    if (!(req > 0))
        req = mtb_jnum(d, "requests");
    if (!(req > 0))
        req = mtb_jnum(d, "xact_commit") + mtb_jnum(d, "xact_rollback");
    o->counted_requests = req;
    json_t *tr = json_object_get(json_object_get(rec, "load"), "trigger");
    struct mtb_rec_trigger *t = &o->trigger;
    t->j = tr;
    t->present = tr != NULL;
    t->embedded = json_is_true(json_object_get(tr, "embedded"));
    t->closed = json_is_true(json_object_get(tr, "closed"));
    t->alive_after = json_is_true(json_object_get(tr, "alive_after"));
    t->received = json_integer_value(json_object_get(tr, "received"));
}

const char *mtb_rec_outcome_error(json_t *rec) { return json_string_value(json_object_get(rec, "error")); }

json_t *mtb_counters_delta(json_t *before, json_t *after)
{
    json_t *delta = json_object(), *v;
    const char *k;
    json_object_foreach(after, k, v) if (json_is_integer(json_object_get(before, k)))
        json_object_set_new(delta, k, json_integer(json_integer_value(v) - json_integer_value(json_object_get(before, k))));
    return delta;
}

long long mtb_counters_sum(json_t *counters, const char *what)
{
    if (!what || !counters)
        return -1;
    char *dup = mtb_strdup(what), *save = NULL;
    long long sum = 0;
    for (char *k = strtok_r(dup, "+ ", &save); k; k = strtok_r(NULL, "+ ", &save)) {
        json_t *v = json_object_get(counters, k);
        if (!json_is_integer(v)) {
            sum = -1;
            break;
        }
        sum += json_integer_value(v);
    }
    free(dup);
    return sum;
}
