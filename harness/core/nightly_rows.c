/* nightly_rows.c - see nightly_rows.h */
#include "lib/jsonx.h"
#include "core/nightly_rows.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

const char *const mtb_nightly_rev_names[MTB_NREVS] = {
#define X(key, name) name,
    MTB_NIGHTLY_REVS(X)
#undef X
};

static const char *const rev_keys[MTB_NREVS] = {
#define X(key, name) #key,
    MTB_NIGHTLY_REVS(X)
#undef X
};


static void change_read(json_t *c, struct mtb_nightly_change *r)
{
    r->j = c;
    r->kind = mtb_jstr(c, "kind");
    r->rule = mtb_jstr(c, "rule");
    r->series = mtb_jstr(c, "series");
    r->series_id = mtb_jstr(c, "series_id");
    r->label = mtb_jstr(c, "label");
    r->metric = mtb_jstr(c, "metric");
    r->night_started = mtb_jstr(c, "night_started");
    r->machine_why = mtb_jstr(c, "machine_why");
    r->report_before = mtb_jstr(c, "report_before");
    r->report_after = mtb_jstr(c, "report_after");
    r->bisect = mtb_jstr(c, "bisect");
    r->open = json_is_true(json_object_get(c, "open"));
    r->x = mtb_jint(c, "x");
    r->night = mtb_jint(c, "night");
    r->n_before = mtb_jint(c, "n_before");
    r->n_after = mtb_jint(c, "n_after");
    r->change = mtb_jnum(c, "change");
    r->ci_lo = mtb_jnum(c, "ci_lo");
    r->ci_hi = mtb_jnum(c, "ci_hi");
    r->before = mtb_jnum(c, "before");
    r->after = mtb_jnum(c, "after");
    r->p_mwu = mtb_jnum(c, "p_mwu");
    r->p_split = mtb_jnum(c, "p_split");
    r->sd = mtb_jnum(c, "sd");
    r->threshold = mtb_jnum(c, "threshold");
    json_t *a = json_object_get(c, "revisions_before"), *b = json_object_get(c, "revisions_after");
    for (size_t k = 0; k < MTB_NREVS; k++) {
        r->rev_before[k] = mtb_jstr(a, rev_keys[k]);
        r->rev_after[k] = mtb_jstr(b, rev_keys[k]);
    }
    json_t *bf = json_object_get(c, "bisect_from");
    struct mtb_bisect_from *f = &r->bisect_from;
    f->present = bf != NULL;
    f->good = mtb_jstr(bf, "good");
    f->bad = mtb_jstr(bf, "bad");
    f->service = mtb_jstr(bf, "service");
    f->variant = mtb_jstr(bf, "variant");
    f->mode = mtb_jstr(bf, "mode");
    f->platform = mtb_jstr(bf, "platform");
    f->workload = mtb_jstr(bf, "workload");
    f->metric = mtb_jstr(bf, "metric");
}

static void night_read(json_t *n, struct mtb_nightly_night *r)
{
    r->x = mtb_jint(n, "x");
    r->runs = mtb_jint(n, "runs");
    r->started = mtb_jstr(n, "started");
    r->busy_why = mtb_jstr(n, "busy_why");
    r->busy = mtb_jstr(n, "busy");
    r->results_dir = mtb_jstr(n, "results_dir");
    r->report = mtb_jstr(n, "report");
    json_t *q = json_object_get(n, "quiet");
    r->quiet = json_is_true(q) ? 1 : json_is_false(q) ? 0 : -1;
    json_t *st = json_object_get(n, "steal");
    r->has_steal = json_is_number(st);
    r->steal = mtb_jnum(n, "steal");
    r->hosts = json_object_get(n, "hosts");
}

static void series_read(json_t *s, struct mtb_nightly_series *r)
{
    r->id = mtb_jstr(s, "id");
    r->key = mtb_jstr(s, "key");
    r->host = mtb_jstr(s, "host");
    r->label = mtb_jstr(s, "label");
    r->metric = mtb_jstr(s, "metric");
    r->unit = mtb_jstr(s, "unit");
    r->better = mtb_jstr(s, "better");
    r->emulated = json_is_true(json_object_get(s, "emulated"));
    r->points = mtb_jint(s, "points");
    r->kept_out = mtb_jint(s, "kept_out");
    r->x = json_object_get(s, "x");
    r->y = json_object_get(s, "y");
    MTB_READ_ROWS(json_object_get(s, "changes"), r->changes, r->nchanges, change_read);
}

void mtb_nightly_rows_read(json_t *a, struct mtb_nightly_rows *r)
{
    memset(r, 0, sizeof *r);
    MTB_READ_ROWS(json_object_get(a, "nights"), r->nights, r->nnights, night_read);
    MTB_READ_ROWS(json_object_get(a, "series"), r->series, r->nseries, series_read);
    MTB_READ_ROWS(json_object_get(a, "open"), r->open, r->nopen, change_read);
    MTB_READ_ROWS(json_object_get(a, "new"), r->fresh, r->nfresh, change_read);
    r->nbusy = json_array_size(json_object_get(a, "busy_nights"));
    r->busy_excluded = json_is_true(json_object_get(a, "busy_excluded"));
    for (size_t i = 0; i < r->nseries; i++)
        r->emulated |= r->series[i].emulated;
    json_t *set = json_object_get(a, "settings");
    r->nights_total = mtb_jint(set, "nights");
    r->window = mtb_jint(set, "window");
    r->threshold = mtb_jnum(set, "threshold");
    r->min_change = mtb_jnum(set, "min_change");
    r->generated = mtb_jstr(set, "generated");
    r->version = mtb_jstr(set, "version");
    r->history = mtb_jstr(set, "history");
}

void mtb_nightly_rows_free(struct mtb_nightly_rows *r)
{
    for (size_t i = 0; i < r->nseries; i++)
        free(r->series[i].changes);
    free(r->nights);
    free(r->series);
    free(r->open);
    free(r->fresh);
    memset(r, 0, sizeof *r);
}
