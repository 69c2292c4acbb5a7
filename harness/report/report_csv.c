/* report_csv.c - runs.csv, one row per run (see report.h): its columns come
 * from the record's identity, the workload's field list
 * (harness/core/workload_fields.h) and record.h's metric table. */
#include "lib/jsonx.h"
#include "report/report.h"
#include "core/allocator.h"
#include "core/record.h"
#include "lib/util.h"
#include "core/workload_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *mtb_csv_field(const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n"))
        return mtb_strdup(s);
    char *out = mtb_calloc(2 * strlen(s) + 3, 1), *o = out;
    *o++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *o++ = '"';
        *o++ = *s;
    }
    *o++ = '"';
    return out;
}

/* ---- runs.csv -------------------------------------------------------------- */

/* runs.csv: the run's identity (csv_head), the workload's fields (their
 * record keys, config.workload.<json>, in the order of workload_fields.h),
 * the run's place (csv_place), run metric 0 (ops/s), "requests", "errors",
 * the other run metrics, csv_tail, the pair metrics of a tagged run against
 * its baseline (empty on baseline rows), "host" and "allocator": all but the identity
 * and the place generated from the field list and record.h's table. */
static const char *const csv_head[] = { "record", "status", "service", "variant", "mode", "platform", "emulated",
                                        "kernel", "kernel_release", NULL };
/* but those a record never has (the seed: a run's draw, not in config.workload) */
#define X(field, kind, key, option, json, rec, ...) MTB_WL_##rec == MTB_WL_NEVER ? "" : json,
static const char *const csv_workload[] = { MTB_WORKLOAD_FIELDS(X) NULL };
#undef X
static const char *const csv_place[] = { "rep", "index", "started", "finished", NULL };
static const char *const csv_tail[] = { "client_bound", "build_key", "mtebench_version", "error", NULL };

static void append_names(json_t *c, const char *const *names)
{
    for (; *names; names++)
        if (**names) /* "": a workload field no record has */
            json_array_append_new(c, json_string(*names));
}

static int is_workload_column(const char *col)
{
    for (const char *const *w = csv_workload; *w; w++)
        if (!strcmp(*w, col))
            return 1;
    return 0;
}

/* The columns of runs.csv, in order (stable; documented in README.md): a
 * JSON array of strings, the metric columns generated from record.h's table. */
static json_t *mtb_report_csv_columns(void)
{
    json_t *c = json_array();
    append_names(c, csv_head);
    append_names(c, csv_workload);
    append_names(c, csv_place);
    json_array_append_new(c, json_string(mtb_run_metrics[0].key));
    json_array_append_new(c, json_string("requests"));
    json_array_append_new(c, json_string("errors"));
    for (size_t m = 1; m < MTB_NRUN_METRICS; m++)
        json_array_append_new(c, json_string(mtb_run_metrics[m].key));
    append_names(c, csv_tail);
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        json_array_append_new(c, json_string(mtb_pair_metrics[m].key));
    json_array_append_new(c, json_string("host")); /* the columns before it keep their places */
    json_array_append_new(c, json_string("allocator")); /* after host, which was last before the allocator axis */
    return c;
}

static char *csv_number(double v) { return isfinite(v) ? mtb_asprintf("%.6g", v) : mtb_strdup(""); }

/* The value of one CSV column for record i of the set, as text (heap string). */
static char *csv_value(const struct mtb_record_set *set, const long *partner, size_t i, const char *col)
{
    json_t *rec = json_array_get(set->records, i);
    json_t *c = json_object_get(rec, "config"), *w = json_object_get(c, "workload");
    json_t *s = json_object_get(rec, "summary");
    json_t *v = NULL;
    int ok = !strcmp(mtb_jstr(rec, "status"), "ok");
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (!strcmp(col, mtb_run_metrics[m].key) && (m || !json_object_get(s, col)))
            return csv_number(mtb_record_metric(rec, (enum mtb_run_metric_id)m));
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++)
        if (!strcmp(col, mtb_pair_metrics[m].key)) {
            long b = ok ? partner[i] : -1;
            return b < 0 ? mtb_strdup("")
                         : csv_number(mtb_record_pair_metric(rec, json_array_get(set->records, (size_t)b),
                                                             (enum mtb_pair_metric_id)m));
        }
    if (!strcmp(col, "record"))
        return mtb_strdup(json_string_value(json_array_get(set->files, i)));
    if (!strcmp(col, "emulated"))
        return mtb_strdup(mtb_record_emulated(rec) ? "true" : "false");
    if (!strcmp(col, "host"))
        return mtb_strdup(mtb_record_host(rec));
    if (!strcmp(col, "allocator")) {
        struct mtb_rec_config rc;
        mtb_rec_config_view(rec, &rc);
        return mtb_strdup(rc.allocator);
    }
    if (is_workload_column(col))
        v = json_object_get(w, col);
    else if (!strcmp(col, "kernel_release"))
        v = json_object_get(json_object_get(rec, "kernel"), "uname_r");
    else if (!strcmp(col, "build_key"))
        v = json_object_get(json_object_get(rec, "build"), "key");
    else if (!strcmp(col, "status") || !strcmp(col, "started") || !strcmp(col, "finished") ||
             !strcmp(col, "mtebench_version") || !strcmp(col, "error"))
        v = json_object_get(rec, col);
    else if (json_object_get(c, col) && strcmp(col, "workload"))
        v = json_object_get(c, col);
    else
        v = json_object_get(s, col);
    if (json_is_string(v))
        return mtb_strdup(json_string_value(v));
    if (json_is_integer(v))
        return mtb_asprintf("%lld", (long long)json_integer_value(v));
    if (json_is_real(v))
        return mtb_asprintf("%.6g", json_real_value(v));
    if (json_is_boolean(v))
        return mtb_strdup(json_is_true(v) ? "true" : "false");
    if (json_is_object(v) || json_is_array(v)) {
        char *d = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        return d ? d : mtb_strdup("");
    }
    return mtb_strdup("");
}

char *mtb_report_csv(const struct mtb_record_set *set)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    json_t *cols = mtb_report_csv_columns(), *col;
    long *partner = mtb_record_partners(set->records);
    size_t i, k;
    json_array_foreach(cols, k, col) fprintf(f, "%s%s", k ? "," : "", json_string_value(col));
    fprintf(f, "\r\n");
    for (i = 0; i < json_array_size(set->records); i++) {
        json_array_foreach(cols, k, col)
        {
            char *v = csv_value(set, partner, i, json_string_value(col));
            char *q = mtb_csv_field(v);
            fprintf(f, "%s%s", k ? "," : "", q);
            free(q);
            free(v);
        }
        fprintf(f, "\r\n");
    }
    json_decref(cols);
    free(partner);
    fclose(f);
    return buf;
}
