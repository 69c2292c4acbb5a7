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

#define X(id, key) key,
const char *const mtb_load_count_keys[MTB_LOAD_NCOUNTS] = { MTB_LOAD_COUNTS(X) };
const char *const mtb_load_errkind_keys[MTB_LOAD_NERRKINDS] = { MTB_LOAD_ERRKINDS(X) };
const char *const mtb_load_account_keys[MTB_LOAD_NACCOUNT] = { MTB_LOAD_ACCOUNT(X) };
#undef X

static void lat_read(json_t *b, struct mtb_load_lat *l)
{
    l->present = b != NULL;
    for (int k = 0; k < MTB_LOAD_NSTATS; k++) {
        l->has[k] = json_object_get(b, mtb_load_stat_keys[k]) != NULL;
        l->v[k] = mtb_jnum(b, mtb_load_stat_keys[k]);
    }
    l->count = mtb_jint(b, "count");
    l->j = b;
}

void mtb_load_view_read(json_t *load, struct mtb_load_view *l)
{
    memset(l, 0, sizeof *l);
    l->present = json_is_object(load);
    l->engine = json_string_value(json_object_get(load, "engine"));
    json_t *tot = json_object_get(load, "totals");
    l->totals = tot;
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
    l->accounting_whole = json_is_object(acc);
    for (int i = 0; i < MTB_LOAD_NACCOUNT; i++)
        l->account[i] = mtb_jnum(acc, mtb_load_account_keys[i]);
    for (int i = 0; i < MTB_LOAD_NCOUNTS; i++)
        l->count[i] = mtb_jnum(tot, mtb_load_count_keys[i]);
    json_t *errs = json_object_get(tot, "errors");
    for (int i = 0; i < MTB_LOAD_NERRKINDS; i++)
        l->errors_by[i] = mtb_jnum(errs, mtb_load_errkind_keys[i]);
    json_t *su = json_object_get(tot, "setup");
    l->has_setup = json_is_integer(su);
    l->setup = json_integer_value(su);
    json_t *lat = json_object_get(load, "latency_us");
    lat_read(json_object_get(lat, "corrected"), &l->lat[MTB_LAT_CORRECTED]);
    lat_read(json_object_get(lat, "uncorrected"), &l->lat[MTB_LAT_UNCORRECTED]);
    json_t *cpu = json_object_get(load, "cpu"), *cb = json_object_get(cpu, "client_bound");
    l->has_client_bound = cb != NULL;
    l->client_bound = json_is_true(cb);
    l->cpu_user_s = mtb_jnum(cpu, "user_s");
    l->cpu_sys_s = mtb_jnum(cpu, "sys_s");
    l->config = json_object_get(load, "config");
    l->histogram_uncorrected = json_object_get(load, "histogram_uncorrected");
    l->duration_s = mtb_jnum(load, "duration_s");
    l->histogram = json_object_get(load, "histogram");
    l->timeseries = json_object_get(load, "timeseries");
    l->nseconds = json_array_size(l->timeseries);
    json_t *hl = json_object_get(load, "hlog");
    l->has_hlog = hl != NULL;
    l->hlog = json_string_value(hl);
    l->clients = json_object_get(load, "clients");
    l->nclients = json_array_size(l->clients);
}

void mtb_load_second(const struct mtb_load_view *l, size_t j, struct mtb_load_sec *s)
{
    json_t *e = json_array_get(l->timeseries, j);
    *s = (struct mtb_load_sec){ .t = mtb_jnum(e, "t"), .ops = mtb_jnum(e, "ops"), .errors = mtb_jnum(e, "errors") };
}

void mtb_load_view_of_record(json_t *rec, struct mtb_load_view *l) { mtb_load_view_read(json_object_get(rec, "load"), l); }

void mtb_load_set_hlog(json_t *load, json_t *path)
{
    if (json_is_object(load))
        json_object_set_new(load, "hlog", path);
    else
        json_decref(path);
}

void mtb_load_set_total(json_t *load, const char *key, json_t *value)
{
    json_object_set_new(json_object_get(load, "totals"), key, value); /* no totals: value freed */
}

void mtb_client_outcome_read(json_t *client, struct mtb_client_outcome *c)
{
    c->present = json_is_object(client);
    c->exit = (long long)json_integer_value(json_object_get(client, "exit"));
    c->exit_text = json_string_value(json_object_get(client, "exit_text"));
    c->late_s = mtb_jnum0(client, "late_s");
    c->cpu_user_s = mtb_jnum0(client, "cpu_user_s");
    c->cpu_sys_s = mtb_jnum0(client, "cpu_sys_s");
}

void mtb_client_entry_read(json_t *entry, struct mtb_client_entry *c)
{
    c->dir = mtb_jstr(entry, "dir");
    c->status = mtb_jstr(entry, "status");
}
