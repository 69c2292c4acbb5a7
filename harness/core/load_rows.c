/* load_rows.c - a load generator's result read into its struct (load_rows.h) */
#include "core/load_rows.h"
#include "lib/jsonx.h"

#include <math.h>
#include <string.h>

static const char *const mtb_load_stat_keys[MTB_LOAD_NSTATS] = {
#define X(id, key) key,
    MTB_LOAD_STATS(X)
#undef X
};

static void lat_read(json_t *b, struct mtb_load_lat *l)
{
    l->present = b != NULL;
    for (int k = 0; k < MTB_LOAD_NSTATS; k++) {
        l->has[k] = json_object_get(b, mtb_load_stat_keys[k]) != NULL;
        l->v[k] = mtb_jnum(b, mtb_load_stat_keys[k]);
    }
    l->count = mtb_jint(b, "count");
}

void mtb_load_view_read(json_t *load, struct mtb_load_view *l)
{
    memset(l, 0, sizeof *l);
    l->present = json_is_object(load);
    l->engine = json_string_value(json_object_get(load, "engine"));
    json_t *tot = json_object_get(load, "totals");
    l->has_requests = json_object_get(tot, "requests") != NULL;
    l->requests = mtb_jnum(tot, "requests");
    l->has_ops_per_sec = json_object_get(tot, "ops_per_sec") != NULL;
    l->ops_per_sec = mtb_jnum(tot, "ops_per_sec");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(tot, "errors"), k, v) if (json_is_integer(v) && strcmp(k, "reconnects"))
        l->errors += json_integer_value(v);
    l->has_error_rate = json_is_number(json_object_get(tot, "error_rate"));
    l->error_rate = mtb_jnum(tot, "error_rate");
    l->error_limit = mtb_jnum(tot, "error_limit");
    json_t *over = json_object_get(tot, "errors_over_limit");
    l->has_errors_over_limit = over != NULL;
    l->errors_over_limit = json_is_true(over);
    json_t *acc = json_object_get(tot, "accounting");
    l->has_accounting = acc != NULL;
    l->sent = mtb_jnum(acc, "sent");
    l->answered = mtb_jnum(acc, "answered");
    l->unsent = mtb_jnum(acc, "unsent");
    json_t *su = json_object_get(tot, "setup");
    l->has_setup = json_is_integer(su);
    l->setup = json_integer_value(su);
    json_t *lat = json_object_get(load, "latency_us");
    lat_read(json_object_get(lat, "corrected"), &l->lat[MTB_LAT_CORRECTED]);
    lat_read(json_object_get(lat, "uncorrected"), &l->lat[MTB_LAT_UNCORRECTED]);
    json_t *cb = json_object_get(json_object_get(load, "cpu"), "client_bound");
    l->has_client_bound = cb != NULL;
    l->client_bound = json_is_true(cb);
    l->duration_s = mtb_jnum(load, "duration_s");
    l->histogram = json_object_get(load, "histogram");
    l->timeseries = json_object_get(load, "timeseries");
}

void mtb_load_view_of_record(json_t *rec, struct mtb_load_view *l) { mtb_load_view_read(json_object_get(rec, "load"), l); }
