/* run_request.c - see run_request.h */
#include "core/run_request.h"

#include <string.h>

json_t *mtb_run_summary(json_t *load)
{
    json_t *tot = json_object_get(load, "totals");
    json_t *lat = json_object_get(json_object_get(load, "latency_us"), "corrected");
    json_t *cpu = json_object_get(load, "cpu");
    json_t *s = json_object();
    json_object_set(s, "ops_per_sec", json_object_get(tot, "ops_per_sec"));
    json_object_set(s, "requests", json_object_get(tot, "requests"));
    json_object_set(s, "p50_us", json_object_get(lat, "p50"));
    json_object_set(s, "p99_us", json_object_get(lat, "p99"));
    json_object_set(s, "p999_us", json_object_get(lat, "p99.9"));
    json_object_set(s, "client_bound", json_object_get(cpu, "client_bound"));
    if (json_object_get(load, "engine"))   /* mtload: the I/O engine that ran */
        json_object_set(s, "engine", json_object_get(load, "engine"));
    json_t *errs = json_object_get(tot, "errors");
    long long e = 0;
    const char *k;
    json_t *v;
    json_object_foreach(errs, k, v) if (json_is_integer(v) && strcmp(k, "reconnects")) e += json_integer_value(v);
    json_object_set_new(s, "errors", json_integer(e));
    /* mtload's accounting: requests answered with an error, lost or never sent */
    if (json_is_number(json_object_get(tot, "error_rate"))) {
        json_object_set(s, "error_rate", json_object_get(tot, "error_rate"));
        json_object_set(s, "errors_over_limit", json_object_get(tot, "errors_over_limit"));
    }
    return s;
}

static void identity(const struct mtb_run *run, const char *kernel, struct mtb_record_id *id)
{
    *id = (struct mtb_record_id){ .service = run->recipe->name, .variant = run->variant, .mode = run->mode->name,
                                  .allocator = run->allocator ? run->allocator->name : NULL,
                                  .platform = run->platform->name, .kernel = kernel ? kernel : run->kernel,
                                  .plan = run->plan, .rep = run->rep, .index = run->index, .total = run->total,
                                  .workload = mtb_workload_json(run->wl), .build = run->build->info };
}

json_t *mtb_run_record(const struct mtb_run *run, const char *kernel)
{
    struct mtb_record_id id;
    identity(run, kernel, &id);
    json_t *rec = mtb_record_begin(&id);
    json_decref(id.workload);
    /* what is known before the run: filled in by whoever performs it */
    json_object_set_new(rec, "platform", json_pack("{s:s,s:b}", "name", run->platform->name, "emulated",
                                                   mtb_platform_emulated(run->platform)));
    json_object_set_new(rec, "kernel", json_object());
    json_object_set_new(rec, "machine", mtb_machine_json(run->machine));
    return rec;
}

void mtb_run_identify(const struct mtb_run *run, const char *kernel, json_t *rec)
{
    struct mtb_record_id id;
    identity(run, kernel, &id);
    mtb_record_identify(rec, &id);
    json_decref(id.workload);
}
