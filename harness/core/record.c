/* record.c - see record.h: the metric tables, writing a record (atomically),
 * its facts (workload key, machine, host) and making it (begin, identify,
 * fail, end). Loading a set of records: record_load.c; pairing them:
 * record_pair.c. */
#include "lib/jsonx.h"
#include "core/mode.h"
#include "core/record.h"
#include "core/load_rows.h"
#include "core/allocator.h"
#include "lib/util.h"
#include "lib/files.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the metric table --------------------------------------------------------------- */

const struct mtb_run_metric mtb_run_metrics[MTB_NRUN_METRICS] = {
#define X(key, label, unit, better, load, views, nightly) { #key, label, unit, better, load, views, nightly },
    MTB_RUN_METRICS(X)
#undef X
};
const struct mtb_pair_metric mtb_pair_metrics[MTB_NPAIR_METRICS] = {
#define X(key, label, of, tagged_num, views, nightly) { #key, label, MTB_M_##of, tagged_num, views, nightly },
    MTB_PAIR_METRICS(X)
#undef X
};

double mtb_record_metric(json_t *rec, enum mtb_run_metric_id m)
{
    const struct mtb_run_metric *d = &mtb_run_metrics[m];
    double v = mtb_jnum(json_object_get(rec, "summary"), d->key);
    if (isnan(v) && d->load)
        v = mtb_jnum(json_object_get(json_object_get(json_object_get(rec, "load"), "latency_us"), "corrected"), d->load);
    return v;
}

void mtb_rec_figures_read(json_t *rec, struct mtb_rec_figures *f)
{
    json_t *s = json_object_get(rec, "summary");
    f->present = json_is_object(s);
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        f->metric[m] = mtb_record_metric(rec, (enum mtb_run_metric_id)m);
    f->error_rate = mtb_jnum(s, "error_rate");
    f->client_bound = json_is_true(json_object_get(s, "client_bound"));
    f->errors_over_limit = json_is_true(json_object_get(s, "errors_over_limit"));
}

double mtb_record_pair_metric(json_t *tagged, json_t *baseline, enum mtb_pair_metric_id p)
{
    const struct mtb_pair_metric *d = &mtb_pair_metrics[p];
    double t = mtb_record_metric(tagged, d->of), b = mtb_record_metric(baseline, d->of);
    double num = d->tagged_num ? t : b, den = d->tagged_num ? b : t;
    if (!isfinite(num) || !(den > 0) || !isfinite(den))
        return NAN;
    return num / den;
}

/* ---- writing ------------------------------------------------------------------------ */

int mtb_record_write(const char *path, json_t *rec)
{
    char *text = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text)
        return -ENOMEM;
    int rc = mtb_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}

/* ---- the record's configuration, typed ---------------------------------------------------- */

static const char *type_name(json_t *v)
{
    static const char *const names[] = { "object", "array", "string", "integer", "real", "true", "false", "null" };
    return names[json_typeof(v)];
}

int mtb_rec_config_get(json_t *rec, struct mtb_rec_config *c, char *why, size_t n)
{
    static const struct {
        const char *key;
        size_t off;
        const char *absent; /* NULL: needed */
    } strs[] = {
        { "service", offsetof(struct mtb_rec_config, service), NULL },
        { "variant", offsetof(struct mtb_rec_config, variant), NULL },
        { "mode", offsetof(struct mtb_rec_config, mode), NULL },
        { "platform", offsetof(struct mtb_rec_config, platform), NULL },
        { "kernel", offsetof(struct mtb_rec_config, kernel), NULL },
        { "plan", offsetof(struct mtb_rec_config, plan), "" },
        { "allocator", offsetof(struct mtb_rec_config, allocator), "glibc" },
    };
    static const struct {
        const char *key;
        size_t off;
        int needed;
    } ints[] = {
        { "rep", offsetof(struct mtb_rec_config, rep), 1 },
        { "index", offsetof(struct mtb_rec_config, index), 0 },
        { "total", offsetof(struct mtb_rec_config, total), 0 },
    };
    memset(c, 0, sizeof *c);
    json_t *cfg = json_object_get(rec, "config");
    if (!json_is_object(cfg)) {
        if (why && n)
            snprintf(why, n, "config: %s, not an object", cfg ? type_name(cfg) : "missing");
        return -1;
    }
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        json_t *v = json_object_get(cfg, strs[i].key);
        const char **slot = (const char **)((char *)c + strs[i].off);
        if (json_is_string(v) && *json_string_value(v))
            *slot = json_string_value(v);
        else if (strs[i].absent && (!v || json_is_string(v))) /* absent or "" (mtb_config_allocator's reading) */
            *slot = strs[i].absent;
        else {
            if (why && n)
                snprintf(why, n, "config.%s: %s%s", strs[i].key,
                         !v ? "missing" : json_is_string(v) ? "empty" : type_name(v),
                         !v ? " (a string)" : json_is_string(v) ? "" : ", not a string");
            return -1;
        }
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        json_t *v = json_object_get(cfg, ints[i].key);
        int *slot = (int *)((char *)c + ints[i].off);
        if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT_MAX)
            *slot = (int)json_integer_value(v);
        else if (v || ints[i].needed) {
            if (why && n)
                snprintf(why, n, "config.%s: %s%s", ints[i].key, !v ? "missing" : type_name(v),
                         !v ? " (a whole number)" : json_is_integer(v) ? " out of range" : ", not a whole number");
            return -1;
        }
    }
    c->workload = json_object_get(cfg, "workload");
    if (!json_is_object(c->workload)) {
        if (why && n)
            snprintf(why, n, "config.workload: %s", c->workload ? type_name(c->workload) : "missing (an object)");
        return -1;
    }
    return 0;
}

void mtb_rec_config_view(json_t *rec, struct mtb_rec_config *c)
{
    if (mtb_rec_config_get(rec, c, NULL, 0) == 0)
        return;
    json_t *j = json_object_get(rec, "config");
    const char *a = json_string_value(json_object_get(j, "allocator"));
    *c = (struct mtb_rec_config){ .service = mtb_jstr(j, "service"), .variant = mtb_jstr(j, "variant"),
                                  .mode = mtb_jstr(j, "mode"), .platform = mtb_jstr(j, "platform"),
                                  .kernel = mtb_jstr(j, "kernel"), .plan = mtb_jstr(j, "plan"),
                                  .allocator = a && *a ? a : "glibc",
                                  .rep = (int)json_integer_value(json_object_get(j, "rep")),
                                  .workload = json_object_get(j, "workload") };
}

/* ---- the record's facts ------------------------------------------------------------- */

int mtb_record_emulated(json_t *rec) { return json_is_true(json_object_get(json_object_get(rec, "platform"), "emulated")); }


static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

char *mtb_workload_key(json_t *w)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return mtb_strdup("");
    const char **keys = mtb_calloc(json_object_size(w) + 1, sizeof *keys);
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(w, k, v) keys[n++] = k;
    qsort(keys, n, sizeof *keys, cmp_str);
    for (size_t i = 0; i < n; i++) {
        v = json_object_get(w, keys[i]);
        fprintf(f, "%s%s=", i ? "," : "", keys[i]);
        if (json_is_number(v)) {
            fprintf(f, "%.17g", json_number_value(v)); /* 2 and 2.0 are the same workload */
        } else {
            char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
            fprintf(f, "%s", d ? d : "");
            free(d);
        }
    }
    fclose(f);
    free(keys);
    return buf;
}

int mtb_workload_equal(json_t *a, json_t *b)
{
    char *x = mtb_workload_key(a), *y = mtb_workload_key(b);
    int eq = !strcmp(x, y);
    free(x);
    free(y);
    return eq;
}

void mtb_record_kernel_identity(json_t *rec, json_t *into)
{
    static const char *const keys[] = { "uname_r", "build_hash", "config_hash", "source", "patches", NULL };
    json_t *id = json_object_get(rec, "kernel");
    for (const char *const *k = keys; *k; k++)
        if (json_object_get(id, *k))
            json_object_set(into, *k, json_object_get(id, *k));
}

void mtb_rec_hosts_read(json_t *rec, struct mtb_rec_hosts *h)
{
    h->j = json_object_get(rec, "hosts");
    h->server_host = mtb_jstr(h->j, "server_host");
    h->far_out = mtb_jstr(h->j, "far_out");
}

void mtb_record_hosts_set(json_t *rec, const char *key, json_t *value)
{
    json_object_set_new(json_object_get(rec, "hosts"), key, value); /* no block: value freed */
}

void mtb_record_load_hlog(json_t *rec, json_t *path) { mtb_load_set_hlog(json_object_get(rec, "load"), path); }

int mtb_record_has_config(json_t *rec) { return json_is_object(json_object_get(rec, "config")); }

const char *mtb_record_machine_name(json_t *rec)
{
    return mtb_jstr(json_object_get(rec, "machine"), "name");
}

/* The profile's first keys always; the later ones (NUMA node, sweep, raw
 * events, ...) only when set, so that series recorded before they existed
 * keep their keys; never the file's path. */
char *mtb_record_machine_text(json_t *rec)
{
    json_t *m = json_object_get(rec, "machine");
    if (!json_is_object(m))
        return mtb_strdup("");
    static const char *const base[] = { "name", "service_cpus", "client_cpus", "service_threads", "loadgen_threads",
                                        "perf_events", NULL };
    json_t *k = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v)
    {
        int keep = 0;
        for (const char *const *b = base; *b && !keep; b++)
            keep = !strcmp(*b, key);
        if (!keep && strcmp(key, "file"))
            keep = !(json_is_null(v) || json_is_false(v) || (json_is_string(v) && !*json_string_value(v)) ||
                     (json_is_array(v) && !json_array_size(v)) || (json_is_object(v) && !json_object_size(v)) ||
                     (!strcmp(key, "sweep_cpus") && json_equal(v, json_object_get(m, "service_cpus"))));
        if (keep)
            json_object_set(k, key, v);
    }
    char *d = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(k);
    return d ? d : mtb_strdup("");
}

/* ---- making ------------------------------------------------------------------------- */

static json_t *id_config(const struct mtb_record_id *id)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:O?}", "service", id->service, "variant", id->variant,
                     "mode", id->mode, "allocator", id->allocator ? id->allocator : "glibc", "platform", id->platform,
                     "kernel", id->kernel, "plan", id->plan ? id->plan : "", "rep", id->rep, "index", id->index,
                     "total", id->total, "workload", id->workload);
}

json_t *mtb_record_begin(const struct mtb_record_id *id)
{
    char started[32];
    mtb_utc_iso(started, sizeof started);
    json_t *rec = json_pack("{s:s,s:s}", "schema", MTB_RECORD_SCHEMA, "started", started);
    mtb_record_identify(rec, id);
    return rec;
}

void mtb_record_identify(json_t *rec, const struct mtb_record_id *id)
{
    json_t *c = json_object_get(rec, "config");
    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(rec, "config", c);
    }
    json_t *idc = id_config(id);
    json_object_update(c, idc);
    json_decref(idc);
    json_object_set_new(rec, "mtebench_version", json_string(MTEBENCH_VERSION));
    if (id->build)
        json_object_set(rec, "build", id->build);
}

void mtb_record_fail(json_t *rec, const char *err)
{
    json_object_set_new(rec, "status", json_string("error"));
    json_object_set_new(rec, "error", json_string(err));
}

enum mtb_run_status mtb_record_status(json_t *rec)
{
    const char *s = json_string_value(json_object_get(rec, "status"));
    return s && !strcmp(s, "ok") ? MTB_RUN_OK : s && !strcmp(s, "fault") ? MTB_RUN_FAULT : MTB_RUN_ERROR;
}

int mtb_record_warnings_add(json_t *rec)
{
    json_object_del(rec, "warnings");
    json_t *w = json_array();
    json_t *cfg = json_object_get(rec, "config"), *proof = json_object_get(rec, "proof");
    const struct mtb_mode *m = mtb_mode_find(json_string_value(json_object_get(cfg, "mode")));
    json_t *mt = json_object_get(proof, "smaps_mt");
    /* null: smaps cannot show tags here (emu, or no MTE); an integer was read */
    if (m && m->tagged && json_is_integer(mt) && json_integer_value(mt) == 0)
        json_array_append_new(w, json_sprintf("tagging not seen: MODE=%s on %s, yet the service has no `mt` (PROT_MTE) "
                                              "mapping in /proc/PID/smaps; its memory was not tagged",
                                              m->name, json_string_value(json_object_get(cfg, "platform"))));
    const char *nw = json_string_value(json_object_get(json_object_get(rec, "machine"), "numa_warning"));
    if (nw && *nw)
        json_array_append_new(w, json_string(nw));
    int n = (int)json_array_size(w);
    if (n)
        json_object_set_new(rec, "warnings", w);
    else
        json_decref(w);
    return n;
}

enum mtb_run_status mtb_record_end(json_t *rec, const char *dir)
{
    char finished[32];
    mtb_utc_iso(finished, sizeof finished);
    json_object_set_new(rec, "finished", json_string(finished));
    char *recp = mtb_asprintf("%s/record.json", dir);
    int wrc = mtb_record_write(recp, rec);
    if (wrc != 0) { /* not on disk, so not a result */
        char *m = mtb_asprintf("cannot write %s: %s", recp, mtb_errdesc(wrc));
        mtb_record_fail(rec, m);
        json_object_set_new(rec, "not_written", json_true());
        free(m);
    }
    free(recp);
    return mtb_record_status(rec);
}

double mtb_record_num(json_t *rec, const char *key)
{
    json_t *v = json_object_get(json_object_get(rec, "summary"), key);
    return json_is_number(v) ? json_number_value(v) : 0;
}
