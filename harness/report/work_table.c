/* work_table.c - see work_table.h */
#include "report/work_table.h"
#include "core/work.h"
#include "core/work_rows.h"
#include "core/record.h"
#include "core/summary_rows.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* a counted record's configuration (core/record.h's view: a counted record is
 * no set's, so each key as it has it, "" when absent) */
static struct mtb_rec_config cfg(const json_t *rec)
{
    struct mtb_rec_config c;
    mtb_rec_config_view((json_t *)rec, &c);
    return c;
}

/* "?" for a key the record lacks, as the tables show it */
static const char *shown(const char *s) { return *s ? s : "?"; }

/* a row per EL of one account per request */
static void work_rows(FILE *f, const char *name, const struct mtb_work_acct *a)
{
    for (int el = 0; el <= 1; el++) {
        const double *c = a->c[el];
        char label[80];
        snprintf(label, sizeof label, "%s EL%d", name, el);
        fprintf(f, "  %-24s %12.1f %10.1f %10.1f %12.2f %12.2f %10.1f %10.1f %10.2f %12.1f\n", label, c[MTB_WC_insns],
                c[MTB_WC_loads], c[MTB_WC_stores], c[MTB_WC_loads_checked], c[MTB_WC_stores_checked],
                c[MTB_WC_tag0_lower], c[MTB_WC_unchecked_tco], mtb_work_tag_stores(a, el), c[MTB_WC_tag_bytes]);
    }
}

int mtb_work_table_print(FILE *f, const json_t *rec)
{
    struct mtb_work_view w;
    mtb_work_view_read(rec, &w);
    if (!w.present) {
        mtb_work_view_free(&w);
        return -1;
    }
    struct mtb_rec_config c = cfg(rec);
    fprintf(f, "work per request: exact (counted), not a timing; the load's window less an idle one as long; %s %s/%s, "
                "kernel %s, %.0f requests (%s)\n",
            c.service, c.variant, c.mode, c.kernel, w.requests, w.requests_from);
    fprintf(f, "  %-24s %12s %10s %10s %12s %12s %10s %10s %10s %12s\n", "", "instructions", "loads", "stores",
            "checked ld", "checked st", "tag0 lower", "TCO-exempt", "tag stores", "bytes tagged");
    static const struct { enum mtb_work_role_id role; const char *name; } roles[] = {
        { MTB_WR_workers, "request tasks" }, { MTB_WR_service, "service vCPU" }, { MTB_WR_client, "load generator" },
        { MTB_WR_all, "all vCPUs" },         { MTB_WR_tasks, "service's tasks" }, { MTB_WR_interrupts, "interrupts" },
    };
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        const struct mtb_work_acct *a = &w.role[roles[i].role];
        if (!a->present || (roles[i].role == MTB_WR_all && w.role[MTB_WR_service].present))
            continue;
        work_rows(f, roles[i].name, a);
    }
    for (size_t t = 0; t < w.ntasks; t++) {
        const struct mtb_work_acct *tp = &w.tasks[t].per_request;
        if (tp->c[0][MTB_WC_insns] == 0 && tp->c[1][MTB_WC_insns] == 0)
            continue; /* a task that ran as much idle as loaded (mostly: not at all) */
        char label[64];
        snprintf(label, sizeof label, "  %s", w.tasks[t].name);
        work_rows(f, label, tp);
    }
    fprintf(f, "  (checked: Tag Checked by the Arm ARM's rule; tag0 lower: tag-0 user accesses, checked only if "
               "their page is Tagged; request tasks: the service's tasks that serve requests ([run] request_tasks), "
               "on any vCPU; service's tasks: all of them, by name below; interrupts: the kernel's interrupt "
               "handling on every vCPU; docs/COUNTING.md)\n");
    const struct mtb_work_acct *main_role = &w.role[w.main];
    fprintf(f, "  (every count leaves out the repeats of wait loops, whose length is the host's timing under TCG: "
               "here %.1f instructions a request at EL0 and %.1f at EL1 (%s))\n",
            main_role->c[0][MTB_WC_spin_insns], main_role->c[1][MTB_WC_spin_insns], mtb_work_role_keys[w.main]);
    if (w.tasks_note)
        fprintf(f, "  (%s)\n", w.tasks_note);
    mtb_work_view_free(&w);
    return 0;
}

/* "variant/mode" of a record */
static void config_of(const json_t *rec, char *buf, size_t n)
{
    struct mtb_rec_config c = cfg(rec);
    snprintf(buf, n, "%s/%s", shown(c.variant), shown(c.mode));
}

/* the account two records share (each one's `main`) */
static enum mtb_work_role_id same_role(const struct mtb_work_view *b, const struct mtb_work_view *r)
{
    if (b->main == r->main)
        return b->main;
    return b->role[MTB_WR_service].present && r->role[MTB_WR_service].present ? MTB_WR_service : MTB_WR_all;
}

static const char *role_name(enum mtb_work_role_id role)
{
    return role == MTB_WR_workers ? "the service's request tasks" : role == MTB_WR_service ? "the service's vCPU"
                                                                                           : "all vCPUs";
}

void mtb_work_table_pair(FILE *f, const json_t *base, const json_t *rec)
{
    struct mtb_work_view wb, wr;
    mtb_work_view_read(base, &wb);
    mtb_work_view_read(rec, &wr);
    enum mtb_work_role_id role = same_role(&wb, &wr);
    char cb[96], cr[96];
    config_of(base, cb, sizeof cb);
    config_of(rec, cr, sizeof cr);
    struct mtb_rec_config c = cfg(rec);
    fprintf(f, "MTE's work per request, %s: exact (counted on vm, kernel %s), not a timing\n", c.service, c.kernel);
    fprintf(f, "  %-34s %14s %14s %10s\n", role_name(role), cb, cr, "ratio");
    /* counter -1: the tag stores */
    static const struct { int counter; const char *name; } rows[] = {
        { MTB_WC_insns, "instructions" }, { MTB_WC_loads, "loads" }, { MTB_WC_stores, "stores" },
        { MTB_WC_loads_checked, "Tag Checked loads" }, { MTB_WC_stores_checked, "Tag Checked stores" },
        { -1, "tag stores (STG.., DC GVA/GZVA)" }, { MTB_WC_tag_bytes, "bytes tagged" },
        { MTB_WC_spin_insns, "instructions waiting (left out)" },
    };
    const struct mtb_work_acct *ab = &wb.role[role], *ar = &wr.role[role];
    for (int el = 0; el <= 1; el++) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            int k = rows[i].counter;
            double vb = k >= 0 ? ab->c[el][k] : mtb_work_tag_stores(ab, el);
            double vr = k >= 0 ? ar->c[el][k] : mtb_work_tag_stores(ar, el);
            char label[64], ratio[32];
            snprintf(label, sizeof label, "EL%d %s", el, rows[i].name);
            if (k == MTB_WC_spin_insns)
                snprintf(ratio, sizeof ratio, "-"); /* the host's timing: no ratio */
            else if (vb > 0)
                snprintf(ratio, sizeof ratio, "%.3fx", vr / vb);
            else
                snprintf(ratio, sizeof ratio, "%s", vr > 0 ? "new" : "-");
            fprintf(f, "  %-34s %14.1f %14.1f %10s\n", label, vb, vr, ratio);
        }
    }
    fprintf(f, "  (per request: the load's window less an idle one as long, over the service's own request count,\n"
               "   one request at a time; every count leaves out the repeats of wait loops (a contended lock's spin,\n"
               "   as long as the host's timing makes it under TCG), shown apart as instructions waiting. EL0 counts\n"
               "   repeat within 0.1%%, EL1 within about 1%%. `make bench-work` counts five of each with their\n"
               "   spread; docs/COUNTING.md)\n");
    mtb_work_view_free(&wb);
    mtb_work_view_free(&wr);
}

void mtb_work_table_kernels(FILE *f, json_t *const *recs, int n)
{
    if (n < 1)
        return;
    char cfgs[96];
    config_of(recs[0], cfgs, sizeof cfgs);
    fprintf(f, "MTE's work per request by kernel, %s %s: exact (counted on vm), not a timing\n", cfg(recs[0]).service,
            cfgs);
    struct mtb_work_view *w = mtb_calloc((size_t)n, sizeof *w);
    for (int i = 0; i < n; i++)
        mtb_work_view_read(recs[i], &w[i]);
    enum mtb_work_role_id role = w[0].main;
    for (int i = 1; i < n; i++) /* a kernel that keeps tasks apart beside one that does not: their vCPU */
        if (role != same_role(&w[0], &w[i]))
            role = MTB_WR_service;
    fprintf(f, "  %-34s", role_name(role));
    for (int i = 0; i < n; i++)
        fprintf(f, " %14s", shown(cfg(recs[i]).kernel));
    fprintf(f, "\n");
    static const struct { int el; enum mtb_work_counter k; const char *name; } rows[] = {
        { 0, MTB_WC_insns, "EL0 instructions" }, { 0, MTB_WC_loads_checked, "EL0 Tag Checked loads" },
        { 0, MTB_WC_stores_checked, "EL0 Tag Checked stores" }, { 1, MTB_WC_insns, "EL1 instructions" },
        { 1, MTB_WC_loads, "EL1 loads" }, { 1, MTB_WC_stores, "EL1 stores" },
        { 1, MTB_WC_loads_checked, "EL1 Tag Checked loads" }, { 1, MTB_WC_stores_checked, "EL1 Tag Checked stores" },
        { 1, MTB_WC_checked_unpriv, "  of which unprivileged (user)" },
        { 1, MTB_WC_unchecked_tcma, "EL1 exempt by TCMA" }, { 1, MTB_WC_unchecked_tco, "EL1 exempt by TCO" },
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fprintf(f, "  %-34s", rows[r].name);
        for (int i = 0; i < n; i++)
            fprintf(f, " %14.1f", w[i].role[role].c[rows[r].el][rows[r].k]);
        fprintf(f, "\n");
    }
    fprintf(f, "  (one counted run per kernel, per request net of an idle window; TCMA1 set exempts the kernel's\n"
               "   0xF-tagged accesses, TCO set (Linux's entry for async tasks) exempts all: docs/COUNTING.md)\n");
    for (int i = 0; i < n; i++)
        mtb_work_view_free(&w[i]);
    free(w);
}

/* a counted record as a row: its values per request, the JSON row written
 * once its ratio is known */
struct wrow {
    char *service, *kernel;
    int baseline;
    double v[MTB_NWORK];
    json_t *j;
};

/* one counted record as a row (no ratio yet); 0: none */
static int work_row(const json_t *rec, const char *file, struct wrow *w)
{
    const char *role = "all";
    if (mtb_work_values(rec, w->v, &role) != 0)
        return 0;
    struct mtb_rec_config c = cfg(rec);
    struct mtb_work_view wv;
    mtb_work_view_read((json_t *)rec, &wv);
    json_t *vals = json_object();
    for (int q = 0; q < MTB_NWORK; q++)
        json_object_set_new(vals, mtb_work_quantities[q].key, isfinite(w->v[q]) ? json_real(w->v[q]) : json_null());
    w->service = mtb_strdup(c.service);
    w->kernel = mtb_strdup(c.kernel);
    w->baseline = !strcmp(c.variant, "plain") && !strcmp(c.mode, "off");
    w->j = json_pack("{s:s,s:s,s:s,s:s,s:s,s:f,s:s,s:b,s:o}", "service", c.service, "variant", c.variant, "mode",
                     c.mode, "kernel", c.kernel, "role", role, "requests", wv.requests, "record", file, "baseline",
                     w->baseline, "values", vals);
    mtb_work_view_free(&wv);
    return 1;
}


json_t *mtb_work_rows(const json_t *dirs)
{
    struct wrow *w = NULL;
    size_t n = 0, i;
    const json_t *d;
    json_array_foreach(dirs, i, d)
    {
        json_t *recs = json_array(), *files = json_array(), *rec;
        mtb_work_records(json_string_value(d), recs, files);
        size_t k;
        json_array_foreach(recs, k, rec)
        {
            w = mtb_realloc(w, (n + 1) * sizeof *w);
            n += work_row(rec, json_string_value(json_array_get(files, k)), &w[n]);
        }
        json_decref(recs);
        json_decref(files);
    }
    /* each row against its baseline: plain/off of the same service and kernel */
    json_t *rows = json_array();
    for (i = 0; i < n; i++) {
        const struct wrow *base = NULL;
        for (size_t j = 0; j < n && !base; j++)
            if (w[j].baseline && !strcmp(w[j].service, w[i].service) && !strcmp(w[j].kernel, w[i].kernel))
                base = &w[j];
        json_t *ratio = json_object();
        for (int q = 0; q < MTB_NWORK; q++) {
            double x = mtb_or0(w[i].v[q]), y = base ? mtb_or0(base->v[q]) : 0;
            json_object_set_new(ratio, mtb_work_quantities[q].key, base && y > 0 ? json_real(x / y) : json_null());
        }
        json_object_set_new(w[i].j, "ratio", ratio);
    }
    for (i = 0; i < n; i++) {
        json_array_append_new(rows, w[i].j);
        free(w[i].service);
        free(w[i].kernel);
    }
    free(w);
    return rows;
}

void mtb_work_rows_md(FILE *f, const json_t *rows)
{
    if (!json_array_size(rows))
        return;
    struct mtb_sum_work *w;
    size_t n;
    mtb_sum_work_read((json_t *)rows, &w, &n);
    fprintf(f, "\n## MTE's work per request (exact, counted)\n\nCounted on vm with the plugin "
               "(docs/COUNTING.md), not timed: per request on the service's vCPU, the load's window less an idle "
               "one. In brackets, the ratio to plain/off on the same kernel.\n\n| config | kernel |");
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, " %s |", mtb_work_quantities[q].label);
    fprintf(f, "\n|---|---|");
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        const struct mtb_sum_work *r = &w[i];
        fprintf(f, "| %s %s/%s | %s |", r->service, r->variant, r->mode, r->kernel);
        for (int q = 0; q < MTB_NWORK; q++) {
            fprintf(f, " %.2f", mtb_or0(r->values[q]));
            if (r->has_ratio[q] && !r->baseline)
                fprintf(f, " (%.2fx)", r->ratio[q]);
            fprintf(f, " |");
        }
        fprintf(f, "\n");
    }
    free(w);
}

void mtb_work_rows_csv(FILE *f, const json_t *rows)
{
    struct mtb_sum_work *w;
    size_t n;
    mtb_sum_work_read((json_t *)rows, &w, &n);
    fprintf(f, "service,variant,mode,kernel,role,requests");
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, ",%s", mtb_work_quantities[q].key);
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, ",%s_ratio", mtb_work_quantities[q].key);
    fprintf(f, ",record\n");
    for (size_t i = 0; i < n; i++) {
        const struct mtb_sum_work *r = &w[i];
        fprintf(f, "%s,%s,%s,%s,%s,%.0f", r->service, r->variant, r->mode, r->kernel, r->role, mtb_or0(r->requests));
        for (int q = 0; q < MTB_NWORK; q++)
            fprintf(f, ",%.6g", mtb_or0(r->values[q]));
        for (int q = 0; q < MTB_NWORK; q++) {
            if (r->has_ratio[q])
                fprintf(f, ",%.6g", r->ratio[q]);
            else
                fprintf(f, ",");
        }
        fprintf(f, ",%s\n", r->record);
    }
    free(w);
}
