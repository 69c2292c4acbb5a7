/* work_table.c - see work_table.h */
#include "report/work_table.h"
#include "core/work.h"
#include "core/record.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

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

/* the tag-setting instructions of a row: IRG aside, every tag store */
static double tag_stores(const json_t *r)
{
    static const char *const k[] = { "stg", "st2g", "stzg", "stz2g", "stgp", "stgm", "stzgm", "dc_gva", "dc_gzva", NULL };
    double s = 0;
    for (int i = 0; k[i]; i++)
        s += num(r, k[i]);
    return s;
}

/* a row per EL of one account (per request, "el0" and "el1") */
static void work_rows(FILE *f, const char *name, const json_t *r)
{
    for (int el = 0; el <= 1; el++) {
        const json_t *e = json_object_get(r, el ? "el1" : "el0");
        char label[80];
        snprintf(label, sizeof label, "%s EL%d", name, el);
        fprintf(f, "  %-24s %12.1f %10.1f %10.1f %12.2f %12.2f %10.1f %10.1f %10.2f %12.1f\n", label, num(e, "insns"),
                num(e, "loads"), num(e, "stores"), num(e, "loads_checked"), num(e, "stores_checked"),
                num(e, "tag0_lower"), num(e, "unchecked_tco"), tag_stores(e), num(e, "tag_bytes"));
    }
}

int mtb_work_table_print(FILE *f, const json_t *rec)
{
    const json_t *w = json_object_get(rec, "work");
    const json_t *pr = json_object_get(w, "per_request");
    if (!json_is_object(pr))
        return -1;
    struct mtb_rec_config c = cfg(rec);
    fprintf(f, "work per request: exact (counted), not a timing; the load's window less an idle one as long; %s %s/%s, "
                "kernel %s, %.0f requests (%s)\n",
            c.service, c.variant, c.mode, c.kernel, num(w, "requests"),
            json_string_value(json_object_get(w, "requests_from")));
    fprintf(f, "  %-24s %12s %10s %10s %12s %12s %10s %10s %10s %12s\n", "", "instructions", "loads", "stores",
            "checked ld", "checked st", "tag0 lower", "TCO-exempt", "tag stores", "bytes tagged");
    static const char *const roles[] = { "workers", "service", "client", "all", "tasks", "interrupts", NULL };
    static const char *const names[] = { "request tasks", "service vCPU", "load generator", "all vCPUs",
                                         "service's tasks", "interrupts" };
    for (int i = 0; roles[i]; i++) {
        const json_t *r = json_object_get(pr, roles[i]);
        if (!r || (i == 3 && json_object_get(pr, "service")))
            continue;
        work_rows(f, names[i], r);
    }
    const char *name;
    const json_t *t;
    json_object_foreach((json_t *)json_object_get(w, "by_task"), name, t) {
        const json_t *tp = json_object_get(t, "per_request");
        if (num(json_object_get(tp, "el0"), "insns") == 0 && num(json_object_get(tp, "el1"), "insns") == 0)
            continue; /* a task that ran as much idle as loaded (mostly: not at all) */
        char label[64];
        snprintf(label, sizeof label, "  %s", name);
        work_rows(f, label, json_object_get(t, "per_request"));
    }
    fprintf(f, "  (checked: Tag Checked by the Arm ARM's rule; tag0 lower: tag-0 user accesses, checked only if "
               "their page is Tagged; request tasks: the service's tasks that serve requests ([run] request_tasks), "
               "on any vCPU; service's tasks: all of them, by name below; interrupts: the kernel's interrupt "
               "handling on every vCPU; docs/COUNTING.md)\n");
    const json_t *main_role = json_object_get(pr, mtb_work_role(pr));
    fprintf(f, "  (every count leaves out the repeats of wait loops, whose length is the host's timing under TCG: "
               "here %.1f instructions a request at EL0 and %.1f at EL1 (%s))\n",
            num(json_object_get(main_role, "el0"), "spin_insns"), num(json_object_get(main_role, "el1"), "spin_insns"),
            mtb_work_role(pr));
    if (json_object_get(w, "tasks_note"))
        fprintf(f, "  (%s)\n", json_string_value(json_object_get(w, "tasks_note")));
    return 0;
}

/* "variant/mode" of a record */
static void config_of(const json_t *rec, char *buf, size_t n)
{
    struct mtb_rec_config c = cfg(rec);
    snprintf(buf, n, "%s/%s", shown(c.variant), shown(c.mode));
}

/* the account two records share (core/work.h's mtb_work_role of each) */
static const char *same_role(const json_t *pb, const json_t *pr)
{
    const char *a = mtb_work_role(pb), *b = mtb_work_role(pr);
    if (!strcmp(a, b))
        return a;
    return json_object_get(pb, "service") && json_object_get(pr, "service") ? "service" : "all";
}

static const char *role_name(const char *role)
{
    return !strcmp(role, "workers") ? "the service's request tasks" : !strcmp(role, "service") ? "the service's vCPU"
                                                                                                 : "all vCPUs";
}

void mtb_work_table_pair(FILE *f, const json_t *base, const json_t *rec)
{
    const json_t *pb = json_object_get(json_object_get(base, "work"), "per_request");
    const json_t *pr = json_object_get(json_object_get(rec, "work"), "per_request");
    const char *role = same_role(pb, pr);
    char cb[96], cr[96];
    config_of(base, cb, sizeof cb);
    config_of(rec, cr, sizeof cr);
    struct mtb_rec_config c = cfg(rec);
    fprintf(f, "MTE's work per request, %s: exact (counted on vm, kernel %s), not a timing\n", c.service, c.kernel);
    fprintf(f, "  %-34s %14s %14s %10s\n", role_name(role), cb, cr, "ratio");
    static const struct { const char *key, *name; } rows[] = {
        { "insns", "instructions" }, { "loads", "loads" }, { "stores", "stores" },
        { "loads_checked", "Tag Checked loads" }, { "stores_checked", "Tag Checked stores" },
        { NULL, "tag stores (STG.., DC GVA/GZVA)" }, { "tag_bytes", "bytes tagged" },
        { "spin_insns", "instructions waiting (left out)" },
    };
    for (int el = 0; el <= 1; el++) {
        const json_t *eb = json_object_get(json_object_get(pb, role), el ? "el1" : "el0");
        const json_t *er = json_object_get(json_object_get(pr, role), el ? "el1" : "el0");
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            double vb = rows[i].key ? num(eb, rows[i].key) : tag_stores(eb);
            double vr = rows[i].key ? num(er, rows[i].key) : tag_stores(er);
            char label[64], ratio[32];
            snprintf(label, sizeof label, "EL%d %s", el, rows[i].name);
            if (rows[i].key && !strncmp(rows[i].key, "spin_", 5))
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
}

void mtb_work_table_kernels(FILE *f, json_t *const *recs, int n)
{
    if (n < 1)
        return;
    char cfgs[96];
    config_of(recs[0], cfgs, sizeof cfgs);
    fprintf(f, "MTE's work per request by kernel, %s %s: exact (counted on vm), not a timing\n", cfg(recs[0]).service,
            cfgs);
    const char *role = mtb_work_role(json_object_get(json_object_get(recs[0], "work"), "per_request"));
    for (int i = 1; i < n; i++) /* a kernel that keeps tasks apart beside one that does not: their vCPU */
        if (strcmp(role, same_role(json_object_get(json_object_get(recs[0], "work"), "per_request"),
                                   json_object_get(json_object_get(recs[i], "work"), "per_request"))))
            role = "service";
    fprintf(f, "  %-34s", role_name(role));
    for (int i = 0; i < n; i++)
        fprintf(f, " %14s", shown(cfg(recs[i]).kernel));
    fprintf(f, "\n");
    static const struct { int el; const char *key, *name; } rows[] = {
        { 0, "insns", "EL0 instructions" }, { 0, "loads_checked", "EL0 Tag Checked loads" },
        { 0, "stores_checked", "EL0 Tag Checked stores" }, { 1, "insns", "EL1 instructions" },
        { 1, "loads", "EL1 loads" }, { 1, "stores", "EL1 stores" }, { 1, "loads_checked", "EL1 Tag Checked loads" },
        { 1, "stores_checked", "EL1 Tag Checked stores" }, { 1, "checked_unpriv", "  of which unprivileged (user)" },
        { 1, "unchecked_tcma", "EL1 exempt by TCMA" }, { 1, "unchecked_tco", "EL1 exempt by TCO" },
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fprintf(f, "  %-34s", rows[r].name);
        for (int i = 0; i < n; i++) {
            const json_t *pr = json_object_get(json_object_get(recs[i], "work"), "per_request");
            fprintf(f, " %14.1f", num(json_object_get(json_object_get(pr, role), rows[r].el ? "el1" : "el0"),
                                      rows[r].key));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "  (one counted run per kernel, per request net of an idle window; TCMA1 set exempts the kernel's\n"
               "   0xF-tagged accesses, TCO set (Linux's entry for async tasks) exempts all: docs/COUNTING.md)\n");
}

static const char *str(const json_t *o, const char *k) { return json_string_value(json_object_get(o, k)) ?: ""; }

/* one counted record as a row (no ratio yet) */
static json_t *work_row(const json_t *rec, const char *file)
{
    double v[MTB_NWORK];
    const char *role = "all";
    if (mtb_work_values(rec, v, &role) != 0)
        return NULL;
    struct mtb_rec_config c = cfg(rec);
    json_t *vals = json_object();
    for (int q = 0; q < MTB_NWORK; q++)
        json_object_set_new(vals, mtb_work_quantities[q].key, isfinite(v[q]) ? json_real(v[q]) : json_null());
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:f,s:s,s:b,s:o}", "service", c.service, "variant", c.variant, "mode",
                     c.mode, "kernel", c.kernel, "role", role, "requests", num(json_object_get(rec, "work"), "requests"),
                     "record", file, "baseline", !strcmp(c.variant, "plain") && !strcmp(c.mode, "off"), "values",
                     vals);
}

json_t *mtb_work_rows(const json_t *dirs)
{
    json_t *rows = json_array();
    size_t i;
    const json_t *d;
    json_array_foreach(dirs, i, d)
    {
        json_t *recs = json_array(), *files = json_array(), *rec;
        mtb_work_records(json_string_value(d), recs, files);
        size_t k;
        json_array_foreach(recs, k, rec)
        {
            json_t *row = work_row(rec, json_string_value(json_array_get(files, k)));
            if (row)
                json_array_append_new(rows, row);
        }
        json_decref(recs);
        json_decref(files);
    }
    /* each row against its baseline: plain/off of the same service and kernel */
    json_t *r, *b;
    size_t j;
    json_array_foreach(rows, i, r)
    {
        json_t *base = NULL;
        json_array_foreach(rows, j, b) if (!base && json_is_true(json_object_get(b, "baseline")) &&
                                           !strcmp(str(b, "service"), str(r, "service")) &&
                                           !strcmp(str(b, "kernel"), str(r, "kernel"))) base = b;
        json_t *ratio = json_object(), *vr = json_object_get(r, "values"), *vb = json_object_get(base, "values");
        for (int q = 0; q < MTB_NWORK; q++) {
            const char *k = mtb_work_quantities[q].key;
            double x = num(vr, k), y = num(vb, k);
            json_object_set_new(ratio, k, base && y > 0 ? json_real(x / y) : json_null());
        }
        json_object_set_new(r, "ratio", ratio);
    }
    return rows;
}

void mtb_work_rows_md(FILE *f, const json_t *rows)
{
    if (!json_array_size(rows))
        return;
    fprintf(f, "\n## MTE's work per request (exact, counted)\n\nCounted on vm with the plugin "
               "(docs/COUNTING.md), not timed: per request on the service's vCPU, the load's window less an idle "
               "one. In brackets, the ratio to plain/off on the same kernel.\n\n| config | kernel |");
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, " %s |", mtb_work_quantities[q].label);
    fprintf(f, "\n|---|---|");
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        fprintf(f, "| %s %s/%s | %s |", str(r, "service"), str(r, "variant"), str(r, "mode"), str(r, "kernel"));
        for (int q = 0; q < MTB_NWORK; q++) {
            const char *k = mtb_work_quantities[q].key;
            const json_t *ra = json_object_get(json_object_get(r, "ratio"), k);
            fprintf(f, " %.2f", num(json_object_get(r, "values"), k));
            if (json_is_number(ra) && !json_is_true(json_object_get(r, "baseline")))
                fprintf(f, " (%.2fx)", json_number_value(ra));
            fprintf(f, " |");
        }
        fprintf(f, "\n");
    }
}

void mtb_work_rows_csv(FILE *f, const json_t *rows)
{
    fprintf(f, "service,variant,mode,kernel,role,requests");
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, ",%s", mtb_work_quantities[q].key);
    for (int q = 0; q < MTB_NWORK; q++)
        fprintf(f, ",%s_ratio", mtb_work_quantities[q].key);
    fprintf(f, ",record\n");
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        fprintf(f, "%s,%s,%s,%s,%s,%.0f", str(r, "service"), str(r, "variant"), str(r, "mode"), str(r, "kernel"),
                str(r, "role"), num(r, "requests"));
        for (int q = 0; q < MTB_NWORK; q++)
            fprintf(f, ",%.6g", num(json_object_get(r, "values"), mtb_work_quantities[q].key));
        for (int q = 0; q < MTB_NWORK; q++) {
            const json_t *ra = json_object_get(json_object_get(r, "ratio"), mtb_work_quantities[q].key);
            if (json_is_number(ra))
                fprintf(f, ",%.6g", json_number_value(ra));
            else
                fprintf(f, ",");
        }
        fprintf(f, ",%s\n", str(r, "record"));
    }
}
