/* protection.c - see protection.h */
#include "report/protection.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "core/detect_rows.h"
#include "core/summary_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a configuration's catches in matrix mx (its headline row h) as a row of
 * "what the price buys", its cost not yet joined; NULL: no "variant/mode" */
static json_t *protection_row(const struct mtb_det_rows *mx, const struct mtb_det_head *h, const char *path)
{
    const char *cfg = h->config;
    const char *slash = strchr(cfg, '/');
    if (!slash)
        return NULL;
    json_t *makeup = json_object();
    for (size_t i = 0; i < mx->nmakeup; i++)
        json_object_set_new(makeup, mx->makeup[i].cls, json_integer((json_int_t)mx->makeup[i].bugs));
    json_t *r = json_pack("{s:s,s:s%,s:s,s:s,s:I,s:I,s:f,s:f,s:f,s:o,s:s}", "service", mx->service, "variant", cfg,
                          (size_t)(slash - cfg), "mode", slash + 1, "detect_platform", mx->platform, "bugs_caught",
                          (json_int_t)h->caught, "bugs_tested", (json_int_t)h->tested, "fraction", h->fraction,
                          "wilson95_lo", h->lo, "wilson95_hi", h->hi, "makeup", makeup, "source", path);
    /* diagnosability: the bugs it also explains (cause and object; matrices from before it have none) */
    if (h->has_explained)
        json_object_set_new(r, "explained", json_pack("{s:I,s:f,s:f,s:f}", "bugs", (json_int_t)h->explained,
                                                      "fraction", h->ex_fraction, "wilson95_lo", h->ex_lo,
                                                      "wilson95_hi", h->ex_hi));
    return r;
}

json_t *mtb_report_protection(json_t *sum, char *const *paths, int n, char *err, size_t errlen)
{
    json_t *rows = json_array();
    struct mtb_sum_rows sr;
    mtb_sum_rows_read(sum, &sr);
    const struct mtb_sum_overhead *ov = sr.overheads;
    size_t nov = sr.noverheads;
    for (int i = 0; i < n; i++) {
        char *p = mtb_det_path(paths[i]);
        json_error_t je;
        json_t *mj = json_load_file(p, 0, &je);
        struct mtb_det_rows mx;
        mtb_det_rows_read(mj, &mx);
        if (!mj || strcmp(mx.schema, MTB_DET_SCHEMA) != 0) {
            snprintf(err, errlen, "%s: no detection matrix (mtebench detect's detect.json, schema "
                     "mtebench-detect-matrix/1)", p);
            mtb_det_rows_free(&mx);
            json_decref(mj);
            json_decref(rows);
            mtb_sum_rows_free(&sr);
            free(p);
            return NULL;
        }
        for (size_t j = 0; j < mx.nhead; j++) {
            const struct mtb_det_head *h = &mx.head[j];
            json_t *r = protection_row(&mx, h, p);
            if (!r)
                continue;
            const char *slash = strchr(h->config, '/');
            char *variant = mtb_asprintf("%.*s", (int)(slash - h->config), h->config);
            const char *mode = slash + 1;
            int found = 0;
            for (size_t k = 0; k < nov; k++) {
                const struct mtb_sum_overhead *o = &ov[k];
                if (strcmp(o->service, mx.service) || strcmp(o->variant, variant) || strcmp(o->mode, mode))
                    continue;
                json_t *x = json_deep_copy(r);
                json_object_set(x, "slowdown", o->metric[MTB_P_slowdown].j);
                json_object_set_new(x, "kernel", json_string(o->kernel));
                json_object_set_new(x, "cost_platform", json_string(o->platform));
                json_array_append_new(rows, x);
                found = 1;
            }
            if (!found && !strcmp(variant, "plain") && !strcmp(mode, "off")) {
                json_object_set_new(r, "baseline", json_true());
                json_array_append(rows, r);
            }
            free(variant);
            json_decref(r);
        }
        mtb_det_rows_free(&mx);
        json_decref(mj);
        free(p);
    }
    mtb_sum_rows_free(&sr);
    return rows;
}

void mtb_report_protection_text(const struct mtb_sum_protection *row, int emulated, struct mtb_protection_text *t)
{
    const char *k = row->kernel;
    snprintf(t->config, sizeof t->config, "%s %s/%s%s%s", row->service, row->variant, row->mode,
             *k && strcmp(k, "host") ? ", kernel " : "", *k && strcmp(k, "host") ? k : "");
    if (row->baseline)
        snprintf(t->cost, sizeof t->cost, "1 (the baseline)");
    else
        snprintf(t->cost, sizeof t->cost, "%.3fx [%.3f, %.3f] on %s%s", row->slowdown.median, row->slowdown.lo,
                 row->slowdown.hi, row->cost_platform, emulated ? " (emulated timing)" : "");
    snprintf(t->caught, sizeof t->caught, "%lld of %lld", row->bugs_caught, row->bugs_tested);
    snprintf(t->fraction, sizeof t->fraction, "%.2f [%.2f, %.2f]", row->fraction, row->lo, row->hi);
    if (row->has_explained)
        snprintf(t->explained, sizeof t->explained, "%lld, %.2f [%.2f, %.2f]", row->explained, row->ex_fraction,
                 row->ex_lo, row->ex_hi);
    else
        snprintf(t->explained, sizeof t->explained, "not judged");
    snprintf(t->where, sizeof t->where, "%s (exact: tag checks as the architecture)", row->detect_platform);
}

void mtb_report_protection_print(FILE *f, json_t *rows, int emulated)
{
    size_t n;
    struct mtb_sum_protection *v = mtb_sum_protection_read(rows, &n);
    for (size_t i = 0; i < n; i++) {
        struct mtb_protection_text t;
        mtb_report_protection_text(&v[i], emulated, &t);
        fprintf(f, "%s what the price buys: catches %s bugs, %s, explains %s, at %s\n", t.config, t.caught, t.fraction,
                t.explained, t.cost);
    }
    free(v);
}
