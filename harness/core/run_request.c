/* run_request.c - see run_request.h */
#include "core/run_request.h"
#include "core/load_rows.h"

#include <math.h>
#include <string.h>

/* a figure of the load's as the summary keeps it: none when the load has
 * no such key, null when it holds no number there */
static void put_num(json_t *s, const char *k, int has, double v)
{
    if (has)
        json_object_set_new(s, k, isfinite(v) ? json_real(v) : json_null());
}

json_t *mtb_run_summary(json_t *load)
{
    struct mtb_load_view l;
    mtb_load_view_read(load, &l);
    const struct mtb_load_lat *lat = &l.lat[MTB_LAT_CORRECTED];
    json_t *s = json_object();
    put_num(s, "ops_per_sec", l.has_ops_per_sec, l.ops_per_sec);
    if (l.has_requests)
        json_object_set_new(s, "requests", isfinite(l.requests) ? json_integer((json_int_t)l.requests) : json_null());
    put_num(s, "p50_us", lat->has[MTB_LOAD_P50], lat->v[MTB_LOAD_P50]);
    put_num(s, "p99_us", lat->has[MTB_LOAD_P99], lat->v[MTB_LOAD_P99]);
    put_num(s, "p999_us", lat->has[MTB_LOAD_P999], lat->v[MTB_LOAD_P999]);
    if (l.has_client_bound)
        json_object_set_new(s, "client_bound", json_boolean(l.client_bound));
    if (l.engine) /* mtload: the I/O engine that ran */
        json_object_set_new(s, "engine", json_string(l.engine));
    json_object_set_new(s, "errors", json_integer(l.errors));
    /* mtload's accounting: requests answered with an error, lost or never sent */
    if (l.has_error_rate) {
        json_object_set_new(s, "error_rate", json_real(l.error_rate));
        if (l.has_errors_over_limit)
            json_object_set_new(s, "errors_over_limit", json_boolean(l.errors_over_limit));
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
