/* detect_rows.c - see detect_rows.h */
#include "core/detect_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const mtb_det_outcome_names[MTB_DET_NOUTCOMES] = {
#define X(o) #o,
    MTB_DET_OUTCOMES(X)
#undef X
};

/* the number at k, 0 when absent (what the pages printed for it) */
static void rate_read(json_t *c, struct mtb_det_rate *r)
{
    json_t *cs = json_object_get(c, "counts");
    for (int i = 0; i < MTB_DET_NOUTCOMES; i++)
        r->counts[i] = mtb_jint(cs, mtb_det_outcome_names[i]);
    r->valid = mtb_jint(c, "valid");
    r->caught_mte = mtb_jint(c, "caught_mte");
    r->has_rate = json_is_number(json_object_get(c, "rate"));
    r->rate = mtb_jnum0(c, "rate");
    r->lo = mtb_jnum0(c, "wilson95_lo");
    r->hi = mtb_jnum0(c, "wilson95_hi");
}

static void cell_read(json_t *c, struct mtb_det_cell *r)
{
    r->bug = mtb_jstr(c, "bug");
    r->cls = mtb_jstr(c, "class");
    r->memory = mtb_jstr(c, "memory");
    r->variant = mtb_jstr(c, "variant");
    r->mode = mtb_jstr(c, "mode");
    rate_read(c, &r->r);
    r->unchecked = json_is_true(json_object_get(c, "kernel_access_unchecked"));
    json_t *kc = json_object_get(c, "kernel_check");
    r->has_kcheck = kc != NULL;
    r->kcheck_platform = mtb_jstr(kc, "platform");
    rate_read(kc, &r->kcheck);
}

static void class_group_read(json_t *g, struct mtb_det_group *r)
{
    r->name = mtb_jstr(g, "class");
    r->caught = mtb_jint(g, "bugs_caught");
    r->tested = mtb_jint(g, "bugs_tested");
}

static void memory_group_read(json_t *g, struct mtb_det_group *r)
{
    class_group_read(g, r);
    r->name = mtb_jstr(g, "memory");
}

static void head_read(json_t *h, struct mtb_det_head *r)
{
    r->j = h;
    r->config = mtb_jstr(h, "config");
    r->caught = mtb_jint(h, "bugs_caught");
    r->tested = mtb_jint(h, "bugs_tested");
    r->fraction = mtb_jnum0(h, "fraction");
    r->lo = mtb_jnum0(h, "wilson95_lo");
    r->hi = mtb_jnum0(h, "wilson95_hi");
    MTB_READ_ROWS(json_object_get(h, "by_class"), r->by_class, r->nby_class, class_group_read);
    MTB_READ_ROWS(json_object_get(h, "by_memory"), r->by_memory, r->nby_memory, memory_group_read);
    json_t *ex = json_object_get(h, "explained"), *cost = json_object_get(h, "cost");
    r->has_explained = ex != NULL;
    r->explained = mtb_jint(ex, "bugs");
    r->ex_fraction = mtb_jnum0(ex, "fraction");
    r->ex_lo = mtb_jnum0(ex, "wilson95_lo");
    r->ex_hi = mtb_jnum0(ex, "wilson95_hi");
    r->cost_baseline = json_is_true(json_object_get(cost, "baseline"));
    r->cost_measured = json_is_number(json_object_get(cost, "lo"));
    r->slowdown = mtb_jnum0(cost, "slowdown");
    r->cost_lo = mtb_jnum0(cost, "lo");
    r->cost_hi = mtb_jnum0(cost, "hi");
}

static void report_read(json_t *p, struct mtb_det_report *r)
{
    json_t *ex = json_object_get(p, "explained");
    r->bug = mtb_jstr(p, "bug");
    r->config = mtb_jstr(p, "config");
    r->headline = mtb_jstr(p, "headline");
    r->text = mtb_jstr(p, "text");
    r->why = mtb_jstr(ex, "why");
    r->trial = mtb_jint(p, "trial");
    r->explained = json_is_true(json_object_get(ex, "ok"));
}

void mtb_det_trial_read(json_t *t, struct mtb_det_trial *r)
{
    json_t *man = json_object_get(t, "manifest"), *pf = json_object_get(t, "platform");
    json_t *ex = json_object_get(t, "explained"), *rep = json_object_get(json_object_get(t, "fault"), "report");
    memset(r, 0, sizeof *r);
    r->bug = mtb_jstr(t, "bug");
    r->variant = mtb_jstr(t, "variant");
    r->mode = mtb_jstr(t, "mode");
    r->outcome = mtb_jstr(t, "outcome");
    r->cls = mtb_jstr(man, "class");
    r->memory = *mtb_jstr(man, "memory") ? mtb_jstr(man, "memory") : mtb_jstr(man, "allocator");
    r->access_in = mtb_jstr(man, "access_in");
    r->bug_switch = mtb_jstr(man, "switch");
    r->port = mtb_jstr(man, "port");
    r->plant = json_object_get(man, "plant") != NULL;
    r->platform = json_is_object(pf) ? mtb_jstr(pf, "name") : json_string_value(pf);
    r->kernel_check = json_is_true(json_object_get(t, "kernel_check"));
    r->explained = json_is_true(json_object_get(ex, "ok"));
    r->has_report = rep != NULL;
    r->report_headline = mtb_jstr(rep, "headline");
    r->manifest = man;
    r->fault = json_object_get(t, "fault");
    r->number = json_object_get(t, "trial");
    r->explained_j = ex;
}

static void mix_read(json_t *m, struct mtb_det_mix *r)
{
    r->kind = mtb_jstr(m, "kind");
    r->catalogue = mtb_jint(m, "catalogue");
    r->catalogue_share = mtb_jnum0(m, "catalogue_share");
    r->has_arvo = json_object_get(m, "arvo") != NULL;
    r->arvo = mtb_jint(m, "arvo");
    r->arvo_share = mtb_jnum0(m, "arvo_share");
}

char *mtb_det_path(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? mtb_asprintf("%s/detect.json", path) : mtb_strdup(path);
}

void mtb_det_rows_read(json_t *mx, struct mtb_det_rows *r)
{
    memset(r, 0, sizeof *r);
    r->schema = mtb_jstr(mx, "schema");
    r->service = mtb_jstr(mx, "service");
    r->platform = mtb_jstr(mx, "platform");
    r->headline_counts = mtb_jstr(mx, "headline_counts");
    r->emulated = json_is_true(json_object_get(mx, "emulated"));
    MTB_READ_ROWS(json_object_get(mx, "headline"), r->head, r->nhead, head_read);
    MTB_READ_ROWS(json_object_get(mx, "cells"), r->cells, r->ncells, cell_read);
    MTB_READ_ROWS(json_object_get(mx, "classes"), r->classes, r->nclasses, cell_read);
    MTB_READ_ROWS(json_object_get(mx, "reports"), r->reports, r->nreports, report_read);
    json_t *mk = json_object_get(mx, "makeup"), *v;
    const char *k;
    r->makeup = mtb_calloc(json_object_size(mk) + 1, sizeof *r->makeup);
    json_object_foreach(mk, k, v) {
        r->makeup[r->nmakeup].cls = k;
        r->makeup[r->nmakeup++].bugs = (long long)json_integer_value(v);
    }
    /* detect.json is written with its keys sorted: the classes back in the
     * order the matrix met them (its classes' rows keep it), as detect printed them */
    size_t placed = 0;
    for (size_t c = 0; c < r->nclasses; c++)
        for (size_t i = placed; i < r->nmakeup; i++)
            if (!strcmp(r->makeup[i].cls, r->classes[c].cls)) {
                struct mtb_det_makeup t = r->makeup[i];
                memmove(&r->makeup[placed + 1], &r->makeup[placed], (i - placed) * sizeof t);
                r->makeup[placed++] = t;
                break;
            }
    MTB_READ_ROWS(json_object_get(mx, "mix"), r->mix, r->nmix, mix_read);
}

void mtb_det_rows_free(struct mtb_det_rows *r)
{
    for (size_t i = 0; i < r->nhead; i++) {
        free(r->head[i].by_class);
        free(r->head[i].by_memory);
    }
    free(r->head);
    free(r->cells);
    free(r->classes);
    free(r->reports);
    free(r->makeup);
    free(r->mix);
    memset(r, 0, sizeof *r);
}

const struct mtb_det_cell *mtb_det_cell_of(const struct mtb_det_rows *r, const char *bug, const char *config)
{
    const char *sl = strchr(config, '/');
    if (!sl)
        return NULL;
    size_t vl = (size_t)(sl - config);
    for (size_t i = 0; i < r->ncells; i++) {
        const struct mtb_det_cell *c = &r->cells[i];
        if (!strcmp(c->bug, bug) && strlen(c->variant) == vl && !strncmp(c->variant, config, vl) &&
            !strcmp(c->mode, sl + 1))
            return c;
    }
    return NULL;
}

static void sweep_cell_read(json_t *c, struct mtb_sweep_cell *r)
{
    json_t *te = json_object_get(c, "tags_exact");
    r->cell = json_string_value(json_object_get(c, "cell"));
    r->deterministic = json_is_true(json_object_get(c, "deterministic"));
    r->agree95 = json_is_true(json_object_get(c, "agree95"));
    r->tags_known = json_is_boolean(te);
    r->tags_exact = json_is_true(te);
    r->caught = mtb_jint(c, "caught");
    r->trials = mtb_jint(c, "trials");
    r->same_tag = mtb_jint(c, "same_tag");
    r->fresh_same_tag = mtb_jint(c, "fresh_same_tag");
    r->rate = mtb_jnum0(c, "rate");
    r->lo = mtb_jnum0(c, "wilson95_lo");
    r->hi = mtb_jnum0(c, "wilson95_hi");
    r->predicted = mtb_jnum0(c, "predicted");
    r->predicted_other_model = mtb_jnum0(c, "predicted_other_model");
}

static void sweep_mode_read(json_t *m, struct mtb_sweep_mode *r)
{
    r->mode = json_string_value(json_object_get(m, "mode"));
    r->prctl_ctrl = json_string_value(json_object_get(m, "prctl_ctrl"));
    r->tag_steps = json_string_value(json_object_get(m, "tag_steps"));
    MTB_READ_ROWS(json_object_get(m, "cells"), r->cells, r->ncells, sweep_cell_read);
}

void mtb_sweep_rows_read(json_t *doc, struct mtb_sweep_rows *r)
{
    memset(r, 0, sizeof *r);
    json_t *v = json_object_get(doc, "verdict");
    r->platform = json_string_value(json_object_get(doc, "platform"));
    r->allocator = json_string_value(json_object_get(doc, "allocator"));
    r->tag_model = json_string_value(json_object_get(doc, "tag_model"));
    MTB_READ_ROWS(json_object_get(doc, "modes"), r->modes, r->nmodes, sweep_mode_read);
    r->pass = json_is_true(json_object_get(v, "pass"));
    r->cells = mtb_jint(v, "cells");
    r->agree95 = mtb_jint(v, "agree95");
    r->agree999 = mtb_jint(v, "agree999");
    r->deterministic_exact = mtb_jint(v, "deterministic_exact");
    r->deterministic = mtb_jint(v, "deterministic");
    r->si_codes_wrong = mtb_jint(v, "si_codes_wrong");
    r->tags_wrong = mtb_jint(v, "tags_wrong");
}

void mtb_sweep_rows_free(struct mtb_sweep_rows *r)
{
    for (size_t i = 0; i < r->nmodes; i++)
        free(r->modes[i].cells);
    free(r->modes);
    memset(r, 0, sizeof *r);
}
