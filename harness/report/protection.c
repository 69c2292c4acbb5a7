/* protection.c - see protection.h */
#include "report/protection.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "core/detect_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *protection_row(json_t *mx, json_t *c, const char *path)
{
    const char *cfg = mtb_jstr(c, "config");
    const char *slash = strchr(cfg, '/');
    if (!slash)
        return NULL;
    json_t *r = json_pack("{s:s,s:s%,s:s,s:s,s:O,s:O,s:O,s:O,s:O,s:O,s:s}", "service", mtb_jstr(mx, "service"),
                          "variant", cfg, (size_t)(slash - cfg), "mode", slash + 1, "detect_platform",
                          mtb_jstr(mx, "platform"), "bugs_caught", json_object_get(c, "bugs_caught"), "bugs_tested",
                          json_object_get(c, "bugs_tested"), "fraction", json_object_get(c, "fraction"),
                          "wilson95_lo", json_object_get(c, "wilson95_lo"), "wilson95_hi",
                          json_object_get(c, "wilson95_hi"), "makeup", json_object_get(mx, "makeup"), "source", path);
    /* diagnosability: the bugs it also explains (cause and object; matrices from before it have none) */
    if (json_object_get(c, "explained"))
        json_object_set(r, "explained", json_object_get(c, "explained"));
    return r;
}

json_t *mtb_report_protection(json_t *sum, char *const *paths, int n, char *err, size_t errlen)
{
    json_t *rows = json_array();
    for (int i = 0; i < n; i++) {
        char *p = mtb_det_path(paths[i]);
        json_error_t je;
        json_t *mx = json_load_file(p, 0, &je), *c, *o;
        if (!mx || strcmp(mtb_jstr(mx, "schema"), MTB_DET_SCHEMA) != 0) {
            snprintf(err, errlen, "%s: no detection matrix (mtebench detect's detect.json, schema "
                     "mtebench-detect-matrix/1)", p);
            json_decref(mx);
            json_decref(rows);
            free(p);
            return NULL;
        }
        size_t j, k;
        json_array_foreach(json_object_get(mx, "headline"), j, c) {
            json_t *r = protection_row(mx, c, p);
            if (!r)
                continue;
            int found = 0;
            json_array_foreach(json_object_get(sum, "overheads"), k, o) {
                if (strcmp(mtb_jstr(o, "service"), mtb_jstr(r, "service")) ||
                    strcmp(mtb_jstr(o, "variant"), mtb_jstr(r, "variant")) || strcmp(mtb_jstr(o, "mode"), mtb_jstr(r, "mode")))
                    continue;
                json_t *x = json_deep_copy(r);
                json_object_set(x, "slowdown", json_object_get(o, "slowdown"));
                json_object_set(x, "kernel", json_object_get(o, "kernel"));
                json_object_set(x, "cost_platform", json_object_get(o, "platform"));
                json_array_append_new(rows, x);
                found = 1;
            }
            if (!found && !strcmp(mtb_jstr(r, "variant"), "plain") && !strcmp(mtb_jstr(r, "mode"), "off")) {
                json_object_set_new(r, "baseline", json_true());
                json_array_append(rows, r);
            }
            json_decref(r);
        }
        json_decref(mx);
        free(p);
    }
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
