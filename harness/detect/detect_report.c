/* detect_report.c - the detection matrix of `mtebench detect` trials:
 * per bug x configuration (variant/mode) the outcomes, the tag-check catch
 * rate over the trials that reached and triggered the bug (or were caught)
 * with its Wilson 95% interval; per class pooled; the headline (per
 * configuration, how many of the catalogue's bugs it catches in most trials,
 * with the Wilson interval over bugs, beside the catalogue's make-up). Trials
 * that never reached the bug are counted apart, never as misses.
 * Computes from the trials' detect.json objects only (analysis side). */
#include "detect/detect.h"
#include "run/faultrep.h"
#include "detect/catalogue.h"
#include "analysis/stats.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Z95 1.959963985

/* a cell whose bad access a system call makes, tried under qemu-user */
#define UNCHECKED_NOTE "the bad access happens inside a system call (access_in syscall), which qemu-user never " \
                       "checks: under emu this is not the hardware's answer; a real kernel in sync mode checks it " \
                       "(vm) (docs/DETECTION.md)"

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* the cell of key in obj, created with zero counts */
static json_t *cell(json_t *obj, const char *key, json_t *init)
{
    json_t *c = json_object_get(obj, key);
    if (!c) {
        c = json_deep_copy(init);
        json_object_set_new(c, "counts", json_object());
        json_object_set_new(obj, key, c);
    }
    return c;
}

static void count(json_t *c, const char *outcome)
{
    json_t *cs = json_object_get(c, "counts");
    json_object_set_new(cs, outcome, json_integer(json_integer_value(json_object_get(cs, outcome)) + 1));
}

/* rate fields of a cell from its counts: valid = caught + silent; a tag
 * check caught it in user code (sync, async) or in the kernel (a system call
 * refused) */
static void rates(json_t *c)
{
    json_t *cs = json_object_get(c, "counts");
    long sync = (long)json_integer_value(json_object_get(cs, "caught_sync"));
    long as = (long)json_integer_value(json_object_get(cs, "caught_async"));
    long kern = (long)json_integer_value(json_object_get(cs, "caught_kernel"));
    long other = (long)json_integer_value(json_object_get(cs, "caught_other"));
    long silent = (long)json_integer_value(json_object_get(cs, "silent"));
    long valid = sync + as + kern + other + silent, mte = sync + as + kern;
    json_object_set_new(c, "valid", json_integer(valid));
    json_object_set_new(c, "caught_mte", json_integer(mte));
    struct mtb_stats_ci ci;
    if (valid > 0 && mtb_stats_wilson(mte, valid, Z95, &ci) == 0) {
        json_object_set_new(c, "rate", json_real(ci.est));
        json_object_set_new(c, "wilson95_lo", json_real(ci.lo));
        json_object_set_new(c, "wilson95_hi", json_real(ci.hi));
        mtb_stats_wilson(mte + other, valid, Z95, &ci);
        json_object_set_new(c, "rate_any", json_real(ci.est));
        /* diagnosability: caught and explained (the report's cause and object) */
        long ex = (long)json_integer_value(json_object_get(c, "explained"));
        mtb_stats_wilson(ex, valid, Z95, &ci);
        json_object_set_new(c, "explained", json_integer(ex));
        json_object_set_new(c, "explained_rate", json_real(ci.est));
    } else {
        json_object_set_new(c, "rate", json_null());
    }
}

/* a real bug: not a synthetic plant, not a second trigger of another entry's bug */
static int real_bug(const char *id, json_t *man)
{
    const char *sw = str(man, "switch");
    return strcmp(str(man, "port"), "plant") && !json_object_get(man, "plant") && (!*sw || !strcmp(sw, id));
}

/* where an object lives, without "service: " and the note: "pool", "glibc malloc" */
static void memory_kind(const char *mem, char *buf, size_t n)
{
    if (!strncmp(mem, "service: ", 9))
        mem += 9;
    size_t l = strcspn(mem, "(");
    while (l && mem[l - 1] == ' ')
        l--;
    snprintf(buf, n, "%.*s", (int)l, mem);
}

/* a group's tally: caught += c, tested++ */
static void tally(json_t *groups, const char *key, int c)
{
    json_t *g = json_object_get(groups, key);
    if (!g)
        json_object_set_new(groups, key, g = json_pack("{s:i,s:i}", "bugs_caught", 0, "bugs_tested", 0));
    json_object_set_new(g, "bugs_caught", json_integer(json_integer_value(json_object_get(g, "bugs_caught")) + c));
    json_object_set_new(g, "bugs_tested", json_integer(json_integer_value(json_object_get(g, "bugs_tested")) + 1));
}

/* the tallies as rows {name: key, bugs_caught, bugs_tested, fraction, Wilson 95%} */
static json_t *tally_rows(json_t *groups, const char *name)
{
    json_t *rows = json_array(), *g;
    const char *k;
    json_object_foreach(groups, k, g) {
        long c = (long)json_integer_value(json_object_get(g, "bugs_caught"));
        long n = (long)json_integer_value(json_object_get(g, "bugs_tested"));
        struct mtb_stats_ci ci = { 0, 0, 0 };
        mtb_stats_wilson(c, n, Z95, &ci);
        json_array_append_new(rows, json_pack("{s:s,s:i,s:i,s:f,s:f,s:f}", name, k, "bugs_caught", (json_int_t)c,
                                              "bugs_tested", (json_int_t)n, "fraction", ci.est, "wilson95_lo", ci.lo,
                                              "wilson95_hi", ci.hi));
    }
    return rows;
}

/* The headline: per configuration, the bugs caught by a tag check in most of
 * their valid trials, of the real bugs tried (of every entry when only
 * plants or second triggers were), overall, by class and by where the
 * object lives, each with its Wilson 95% interval. */
static void headline(json_t *out, json_t *configs, json_t *bugs)
{
    int any_real = 0;
    const char *k;
    json_t *v;
    json_object_foreach(bugs, k, v) any_real |= real_bug(k, v);
    json_object_set_new(out, "headline_counts", json_string(any_real ? "real bugs" : "entries"));
    json_object_foreach(configs, k, v) {
        long caught = 0, tested = 0, expl = 0;
        size_t j;
        json_t *c, *by_class = json_object(), *by_memory = json_object();
        json_array_foreach(json_object_get(out, "cells"), j, c) {
            char cfg[96], mk[96];
            snprintf(cfg, sizeof cfg, "%s/%s", str(c, "variant"), str(c, "mode"));
            json_t *man = json_object_get(bugs, str(c, "bug"));
            if (strcmp(cfg, k) || json_integer_value(json_object_get(c, "valid")) == 0 ||
                (any_real && !real_bug(str(c, "bug"), man)))
                continue;
            /* a system call's access tried on a real kernel too: its answer is the hardware's */
            json_t *kc = json_object_get(c, "kernel_check"), *by = json_integer_value(json_object_get(kc, "valid")) ? kc : c;
            int hit = 2 * json_integer_value(json_object_get(by, "caught_mte")) > json_integer_value(json_object_get(by, "valid"));
            tested++;
            caught += hit;
            /* explained: a tag check's report named the cause and the object in most trials */
            expl += 2 * json_integer_value(json_object_get(c, "explained")) > json_integer_value(json_object_get(c, "valid"));
            tally(by_class, str(c, "class"), hit);
            memory_kind(str(c, "memory"), mk, sizeof mk);
            tally(by_memory, mk, hit);
        }
        struct mtb_stats_ci ci = { 0, 0, 0 }, ce = { 0, 0, 0 };
        if (tested) {
            mtb_stats_wilson(caught, tested, Z95, &ci);
            mtb_stats_wilson(expl, tested, Z95, &ce);
        }
        json_array_append_new(json_object_get(out, "headline"),
                              json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:o,s:o,s:{s:i,s:f,s:f,s:f}}", "config", k, "bugs_caught",
                                        (json_int_t)caught, "bugs_tested", (json_int_t)tested, "fraction", ci.est,
                                        "wilson95_lo", ci.lo, "wilson95_hi", ci.hi, "by_class",
                                        tally_rows(by_class, "class"), "by_memory", tally_rows(by_memory, "memory"),
                                        "explained", "bugs", (json_int_t)expl, "fraction", ce.est, "wilson95_lo", ce.lo,
                                        "wilson95_hi", ce.hi));
        json_decref(by_class);
        json_decref(by_memory);
    }
}

/* a caught trial's fault report, for the pages: its headline, whether it
 * explains the bug, and the whole text (run/faultrep.c) */
static void add_report(json_t *reports, json_t *t, const char *cfg)
{
    json_t *f = json_object_get(t, "fault"), *rep = json_object_get(f, "report");
    if (!rep)
        return;
    char *text = mtb_fault_text(f);
    json_array_append_new(reports, json_pack("{s:s,s:s,s:O?,s:s,s:O?,s:s?}", "bug", str(t, "bug"), "config", cfg,
                                             "trial", json_object_get(t, "trial"), "headline", str(rep, "headline"),
                                             "explained", json_object_get(t, "explained"), "text", text));
    free(text);
}

json_t *mtb_detect_matrix(json_t *trials)
{
    json_t *cells = json_object(), *classes = json_object(), *configs = json_object(), *bugs = json_object();
    json_t *reports = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(trials, i, t) {
        json_t *man = json_object_get(t, "manifest");
        char cfg[96], key[256], ck[192];
        snprintf(cfg, sizeof cfg, "%s/%s", str(t, "variant"), str(t, "mode"));
        snprintf(key, sizeof key, "%s %s", str(t, "bug"), cfg);
        snprintf(ck, sizeof ck, "%s %s", str(man, "class"), cfg);
        /* where the object lives: "memory" (trials before it: "allocator") */
        const char *mem = *str(man, "memory") ? str(man, "memory") : str(man, "allocator");
        json_t *init = json_pack("{s:s,s:s,s:s,s:s,s:s}", "bug", str(t, "bug"), "class", str(man, "class"),
                                 "memory", mem, "variant", str(t, "variant"), "mode", str(t, "mode"));
        /* a system call's bad access under qemu-user, which never checks it:
         * not the hardware's answer (vm's is) */
        json_t *pf = json_object_get(t, "platform");
        const char *pn = json_is_object(pf) ? str(pf, "name") : json_string_value(pf);
        json_t *cl = cell(cells, key, init);
        if (json_is_true(json_object_get(t, "kernel_check"))) {
            /* the same cell tried where a real kernel checks system calls
             * (detect --kernel-check vm): its answer beside the cell's */
            json_t *kc = json_object_get(cl, "kernel_check");
            if (!kc)
                json_object_set_new(cl, "kernel_check", kc = json_pack("{s:s?,s:{}}", "platform", pn, "counts"));
            count(kc, str(t, "outcome"));
            json_decref(init);
            continue;
        }
        if (!strcmp(str(man, "access_in"), "syscall") && pn && !strcmp(pn, "emu"))
            json_object_set_new(cl, "kernel_access_unchecked", json_true());
        count(cl, str(t, "outcome"));
        add_report(reports, t, cfg);
        if (json_is_true(json_object_get(json_object_get(t, "explained"), "ok")))
            json_object_set_new(cl, "explained", json_integer(json_integer_value(json_object_get(cl, "explained")) + 1));
        json_object_del(init, "bug");
        json_object_del(init, "memory");
        count(cell(classes, ck, init), str(t, "outcome"));
        json_decref(init);
        json_object_set_new(configs, cfg, json_true());
        if (!json_object_get(bugs, str(t, "bug")))
            json_object_set(bugs, str(t, "bug"), man);
    }
    json_t *out = json_pack("{s:s,s:[],s:[],s:[],s:O,s:o}", "schema", MTB_DET_SCHEMA, "cells", "classes",
                            "headline", "bugs", bugs, "reports", reports);
    const char *k;
    json_t *v;
    json_object_foreach(cells, k, v) {
        rates(v);
        if (json_object_get(v, "kernel_check"))
            rates(json_object_get(v, "kernel_check"));
        json_array_append(json_object_get(out, "cells"), v);
    }
    json_object_foreach(classes, k, v) { rates(v); json_array_append(json_object_get(out, "classes"), v); }
    headline(out, configs, bugs);
    json_t *makeup = json_object();
    json_object_foreach(bugs, k, v) {
        const char *cl = str(v, "class");
        json_object_set_new(makeup, cl, json_integer(json_integer_value(json_object_get(makeup, cl)) + 1));
    }
    json_object_set_new(out, "makeup", makeup);
    json_object_set_new(out, "mix", mtb_catalogue_mix(bugs)); /* beside ARVO's crash mix */
    json_decref(cells);
    json_decref(classes);
    json_decref(configs);
    return out;
}

void mtb_detect_cost(json_t *mx, json_t *summary, const char *service, const char *platform)
{
    size_t i, j;
    json_t *h, *o;
    json_array_foreach(json_object_get(mx, "headline"), i, h) {
        char v[64];
        const char *cfg = str(h, "config"), *sl = strchr(cfg, '/');
        if (!sl)
            continue;
        snprintf(v, sizeof v, "%.*s", (int)(sl - cfg), cfg);
        if (!strcmp(cfg, "plain/off")) {
            json_object_set_new(h, "cost", json_pack("{s:b,s:f}", "baseline", 1, "slowdown", 1.0));
            continue;
        }
        json_t *best = NULL;
        json_array_foreach(json_object_get(summary, "overheads"), j, o) {
            if (!strcmp(str(o, "service"), service) && !strcmp(str(o, "variant"), v) && !strcmp(str(o, "mode"), sl + 1) &&
                !strcmp(str(o, "platform"), platform) &&
                (!best || json_integer_value(json_object_get(o, "pairs")) > json_integer_value(json_object_get(best, "pairs"))))
                best = o;
        }
        json_t *sd = json_object_get(best, "slowdown");
        json_object_set_new(h, "cost", best ? json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?}", "slowdown", json_object_get(sd, "median"),
                                                        "lo", json_object_get(sd, "lo"), "hi", json_object_get(sd, "hi"),
                                                        "pairs", json_object_get(best, "pairs"), "workload",
                                                        json_object_get(json_object_get(best, "workload"), "name"))
                                            : json_null());
    }
    json_object_set_new(mx, "cost_note", json_string("overhead: the bench records given (--cost) of the same service, "
                                                     "variant, mode and platform (plain/off = 1); the bug builds are those "
                                                     "variants plus bugs.patch. Under emulation the overheads are "
                                                     "emulated timings, not hardware costs"));
}

static void rate_text(const struct mtb_det_rate *c, char *buf, size_t n)
{
    if (!c->has_rate)
        snprintf(buf, n, "n/a (none reached)");
    else
        snprintf(buf, n, "%lld/%lld %.2f [%.2f, %.2f]", c->caught_mte, c->valid, c->rate, c->lo, c->hi);
}

static void counts_text(const struct mtb_det_rate *c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int o = 0; o < MTB_DET_NOUTCOMES && len < n; o++)
        if (c->counts[o])
            len += (size_t)snprintf(buf + len, n - len, "%s%s %lld", len ? ", " : "", mtb_det_outcome_names[o],
                                    c->counts[o]);
}

/* the texts of one headline row: bugs caught, the fraction with its
 * interval, the overhead beside it (text, Markdown and HTML alike) */
struct headline_row {
    char caught[64], fraction[64], cost[96], explained[96];
};

static void headline_row(const struct mtb_det_rows *mx, const struct mtb_det_head *c, struct headline_row *h)
{
    snprintf(h->caught, sizeof h->caught, "%lld of %lld", c->caught, c->tested);
    snprintf(h->fraction, sizeof h->fraction, "%.2f [%.2f, %.2f]", c->fraction, c->lo, c->hi);
    snprintf(h->explained, sizeof h->explained, "%lld: %.2f [%.2f, %.2f]", c->explained, c->ex_fraction, c->ex_lo,
             c->ex_hi);
    snprintf(h->cost, sizeof h->cost, "not measured");
    if (c->cost_measured)
        snprintf(h->cost, sizeof h->cost, "%.2fx [%.2f, %.2f]%s", c->slowdown, c->cost_lo, c->cost_hi,
                 mx->emulated ? " (emulated)" : "");
    else if (c->cost_baseline)
        snprintf(h->cost, sizeof h->cost, "1 (baseline)");
}

/* a headline grouping: by class (0) or by where the object lives (1) */
static const struct mtb_det_group *groups(const struct mtb_det_head *h, int by, size_t *n)
{
    *n = by ? h->nby_memory : h->nby_class;
    return by ? h->by_memory : h->by_class;
}

/* the grouping's names over every configuration, in the order first met
 * (a new array of the rows' strings; *n of them) */
static const char **group_names(const struct mtb_det_rows *mx, int by, size_t *n)
{
    size_t cap = 1, k = 0;
    for (size_t i = 0; i < mx->nhead; i++)
        cap += by ? mx->head[i].nby_memory : mx->head[i].nby_class;
    const char **names = mtb_calloc(cap, sizeof *names);
    for (size_t i = 0; i < mx->nhead; i++) {
        size_t ng;
        const struct mtb_det_group *g = groups(&mx->head[i], by, &ng);
        for (size_t j = 0; j < ng; j++) {
            size_t m = 0;
            while (m < k && strcmp(names[m], g[j].name))
                m++;
            if (m == k)
                names[k++] = g[j].name;
        }
    }
    *n = k;
    return names;
}

/* "caught/tested" of the grouping's name in configuration h, or "-" */
static void group_cell(const struct mtb_det_head *h, int by, const char *name, char *buf, size_t n)
{
    size_t ng;
    const struct mtb_det_group *g = groups(h, by, &ng);
    snprintf(buf, n, "-");
    for (size_t j = 0; j < ng; j++)
        if (!strcmp(g[j].name, name))
            snprintf(buf, n, "%lld/%lld", g[j].caught, g[j].tested);
}

/* the headline's bugs caught of tested by a grouping (by 0: class, 1:
 * memory): a row per group, a column per configuration, "caught/tested" in each */
static void print_groups(FILE *f, const struct mtb_det_rows *mx, int md, int by, const char *title)
{
    const char *name = by ? "memory" : "class";
    size_t nk;
    const char **keys = group_names(mx, by, &nk);
    if (!nk) {
        free(keys);
        return;
    }
    fprintf(f, md ? "\n## %s (%s caught of tried, per configuration)\n\n| %s |" : "%s (%s caught of tried):\n  %-22s", title,
            mx->headline_counts, name);
    for (size_t i = 0; i < mx->nhead; i++)
        fprintf(f, md ? " %s |" : " %-13s", mx->head[i].config);
    if (md) {
        fputs("\n|---|", f);
        for (size_t i = 0; i < mx->nhead; i++)
            fputs("---|", f);
    }
    for (size_t k = 0; k < nk; k++) {
        fprintf(f, md ? "\n| %s |" : "\n  %-22.22s", keys[k]);
        for (size_t i = 0; i < mx->nhead; i++) {
            char cellt[32];
            group_cell(&mx->head[i], by, keys[k], cellt, sizeof cellt);
            fprintf(f, md ? " %s |" : " %-13s", cellt);
        }
    }
    fputs("\n", f);
    free(keys);
}

void mtb_detect_matrix_print(FILE *f, const struct mtb_det_rows *mx, int md)
{
    const char *note = "Detection is exact under QEMU (its tag checks follow the architecture); timings under "
                       "emulation are emulated, and random tags follow QEMU's generator (docs/DETECTION.md).";
    fprintf(f, md ? "# Detection matrix\n\n%s\n\n## Headline\n\nCatalogue: " : "%s\nheadline (catalogue: ", note);
    /* the counts are of real bugs when the matrix holds any: plants and second triggers stay in the matrix only */
    for (size_t i = 0; i < mx->nmakeup; i++)
        fprintf(f, "%s%lld %s", i ? ", " : "", mx->makeup[i].bugs, mx->makeup[i].cls);
    fprintf(f, md ? "\n\n| configuration | bugs caught (tag check, most trials) | fraction [Wilson 95%%] | "
                    "explained (cause and object) [Wilson 95%%] | overhead (bench) |\n"
                    "|---|---|---|---|---|\n"
                  : "):\n");
    for (size_t i = 0; i < mx->nhead; i++) {
        const struct mtb_det_head *c = &mx->head[i];
        struct headline_row h;
        headline_row(mx, c, &h);
        if (md)
            fprintf(f, "| %s | %s | %s | %s | %s |\n", c->config, h.caught, h.fraction, h.explained, h.cost);
        else
            fprintf(f, "  %-16s catches %s bugs: %s; explains %s; overhead %s\n", c->config, h.caught, h.fraction,
                    h.explained, h.cost);
    }
    print_groups(f, mx, md, 0, "Headline by class");
    print_groups(f, mx, md, 1, "Headline by where the object lives");
    if (md && json_array_size(mx->mix)) { /* the bugs tried, beside what fuzzing finds */
        fprintf(f, "\n## The bugs tried beside ARVO's crash mix\n");
        mtb_catalogue_mix_print(f, mx->mix, 1);
    }
    fprintf(f, md ? "\n## Matrix\n\n| bug | class | memory | configuration | tag-check catch rate [Wilson 95%%] | outcomes |\n|---|---|---|---|---|---|\n"
                  : "matrix (tag-check catches / trials that reached and triggered the bug):\n");
    int unchecked = 0;
    for (size_t i = 0; i < mx->ncells; i++) {
        const struct mtb_det_cell *c = &mx->cells[i];
        char r[96], o[512];
        rate_text(&c->r, r, sizeof r);
        counts_text(&c->r, o, sizeof o);
        if (c->unchecked) {
            strncat(o, " (†)", sizeof o - strlen(o) - 1);
            unchecked = 1;
        }
        if (c->has_kcheck) { /* the real kernel's answer beside it */
            char kr[96], ko[160];
            rate_text(&c->kcheck, kr, sizeof kr);
            counts_text(&c->kcheck, ko, sizeof ko);
            snprintf(o + strlen(o), sizeof o - strlen(o), "; on %s (a real kernel): %s, %s", c->kcheck_platform, kr, ko);
        }
        fprintf(f, md ? "| %s | %s | %s | %s/%s | %s | %s |\n" : "  %-15s %-17s %-22s %s/%-6s %-26s %s\n", c->bug, c->cls,
                c->memory, c->variant, c->mode, r, o);
    }
    if (unchecked)
        fprintf(f, "%s", md ? "\n(†) " UNCHECKED_NOTE "; where the cell was tried on vm too (--kernel-check), the "
                              "headline counts vm's answer\n"
                            : "  (†) " UNCHECKED_NOTE "; where the cell was tried on vm too (--kernel-check), the "
                              "headline counts vm's answer\n");
    fprintf(f, md ? "\n## Per class\n\n| class | configuration | tag-check catch rate [Wilson 95%%] | outcomes |\n|---|---|---|---|\n"
                  : "per class:\n");
    for (size_t i = 0; i < mx->nclasses; i++) {
        const struct mtb_det_cell *c = &mx->classes[i];
        char r[96], o[256];
        rate_text(&c->r, r, sizeof r);
        counts_text(&c->r, o, sizeof o);
        fprintf(f, md ? "| %s | %s/%s | %s | %s |\n" : "  %-17s %s/%-6s %-26s %s\n", c->cls, c->variant, c->mode, r, o);
    }
}

static void html_esc(FILE *f, const char *t)
{
    for (; t && *t; t++)
        fputs(*t == '<' ? "&lt;" : *t == '>' ? "&gt;" : *t == '&' ? "&amp;" : (char[]){ *t, 0 }, f);
}

/* one table row of cells (NULL-terminated), escaped */
static void html_row(FILE *f, const char *tag, const char *const *cells)
{
    fputs("<tr>", f);
    for (; *cells; cells++) {
        fprintf(f, "<%s>", tag);
        html_esc(f, *cells);
        fprintf(f, "</%s>", tag);
    }
    fputs("</tr>\n", f);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* s added to the n names in v unless there (the order first met kept) */
static void add_name(char **v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return;
    v[(*n)++] = mtb_strdup(s);
}

/* The matrix as one grid: a row per bug, grouped by class, a column per
 * configuration, each cell coloured by its outcome (every trial caught by a
 * tag check, some, a plain crash, missed, not reached) and giving the
 * count; the outcomes in its title. */
static void html_grid(FILE *f, const struct mtb_det_rows *mx)
{
    char **cv = mtb_calloc(mx->ncells + 1, sizeof *cv), **rv = mtb_calloc(mx->ncells + 1, sizeof *rv);
    size_t nc = 0, nr = 0;
    for (size_t i = 0; i < mx->ncells; i++) {
        const struct mtb_det_cell *c = &mx->cells[i];
        char k[96], r[256];
        snprintf(k, sizeof k, "%s/%s", c->variant, c->mode);
        snprintf(r, sizeof r, "%s\t%s", c->cls, c->bug);
        add_name(cv, &nc, k);
        add_name(rv, &nr, r);
    }
    qsort(rv, nr, sizeof *rv, cmp_str); /* by class, then bug */
    int any_unchecked = 0;
    fputs("<table class=\"grid\">\n<tr><th>class</th><th>bug</th>", f);
    for (size_t k = 0; k < nc; k++) {
        fputs("<th>", f);
        html_esc(f, cv[k]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t r = 0; r < nr; r++) {
        const char *tab = strchr(rv[r], '\t');
        int first = !r || strncmp(rv[r - 1], rv[r], (size_t)(tab - rv[r]) + 1);
        fputs("<tr>", f);
        if (first) { /* the class once, over its bugs */
            size_t span = 1;
            while (r + span < nr && !strncmp(rv[r + span], rv[r], (size_t)(tab - rv[r]) + 1))
                span++;
            fprintf(f, "<th rowspan=\"%zu\">%.*s</th>", span, (int)(tab - rv[r]), rv[r]);
        }
        fputs("<td>", f);
        html_esc(f, tab + 1);
        fputs("</td>", f);
        for (size_t k = 0; k < nc; k++) {
            const struct mtb_det_cell *x0 = mtb_det_cell_of(mx, tab + 1, cv[k]);
            /* coloured by a real kernel's answer */
            const struct mtb_det_rate *x = !x0 ? NULL : x0->has_kcheck && x0->kcheck.valid ? &x0->kcheck : &x0->r;
            long long valid = x ? x->valid : 0, mte = x ? x->caught_mte : 0;
            long long other = x ? x->counts[MTB_DET_caught_other] : 0;
            const char *cls = !x ? "none" : !valid ? "nr" : mte == valid ? "caught" : mte ? "some" : other ? "crash" : "missed";
            int vm = x && x != &x0->r;
            char o[256] = "", t[96];
            if (x)
                counts_text(x, o, sizeof o);
            snprintf(t, sizeof t, !x ? "" : valid ? "%lld/%lld%s" : "not reached", mte, valid, vm ? " (vm)" : "");
            if (vm) /* emu's answer beside vm's, marked */
                snprintf(t + strlen(t), sizeof t - strlen(t), "; emu %lld/%lld", x0->r.caught_mte, x0->r.valid);
            int unchecked = x0 && x0->unchecked;
            any_unchecked |= unchecked;
            fprintf(f, "<td class=\"%s\" title=\"", cls);
            html_esc(f, o);
            fprintf(f, "%s\">%s%s</td>", unchecked ? "; a system call's access: qemu-user does not check it" : "", t,
                    unchecked ? " †" : "");
        }
        fputs("</tr>\n", f);
    }
    fprintf(f, "</table>\n<p>Each cell: trials a tag check caught / trials that reached and triggered the bug; green "
               "every one caught, amber some, orange a crash but no tag check, red missed, grey not reached; its "
               "outcomes in its tooltip; (vm): a real kernel's answer, emu's beside it.%s</p>\n",
            any_unchecked ? " † " UNCHECKED_NOTE "." : "");
    for (size_t k = 0; k < nc; k++)
        free(cv[k]);
    for (size_t r = 0; r < nr; r++)
        free(rv[r]);
    free(cv);
    free(rv);
}


/* each caught trial's fault report (docs/DETECTION.md, "Fault reports") */
static void html_reports(FILE *f, const struct mtb_det_rows *mx)
{
    if (!mx->nreports)
        return;
    fputs("<h2>Fault reports</h2>\n<p class=\"note\">Each caught trial's report: the cause and the object from the "
          "allocation record (libmtealloc.so), the stacks symbolised; explained = the cause fits the bug's class and "
          "the object is the one the bug's log names.</p>\n", f);
    for (size_t i = 0; i < mx->nreports; i++) {
        const struct mtb_det_report *r = &mx->reports[i];
        fputs("<h3>", f);
        html_esc(f, r->bug);
        fputs(" ", f);
        html_esc(f, r->config);
        fprintf(f, " trial %lld: %s</h3>\n<p>", r->trial, r->explained ? "explained" : "not explained");
        html_esc(f, r->why);
        fputs("</p>\n<pre>", f);
        html_esc(f, r->text);
        fputs("</pre>\n", f);
    }
}

/* print_groups' table in HTML */
static void html_groups(FILE *f, const struct mtb_det_rows *mx, int by, const char *title)
{
    size_t nk, nh = mx->nhead;
    const char **keys = group_names(mx, by, &nk);
    if (nk) {
        fprintf(f, "<h2>%s</h2>\n<p>%s caught of tried, per configuration</p>\n<table>\n", title, mx->headline_counts);
        const char **row = mtb_calloc(nh + 2, sizeof *row);
        char (*cells)[32] = mtb_calloc(nh + 1, sizeof *cells);
        row[0] = by ? "memory" : "class";
        for (size_t i = 0; i < nh; i++)
            row[i + 1] = mx->head[i].config;
        html_row(f, "th", row);
        for (size_t k = 0; k < nk; k++) {
            row[0] = keys[k];
            for (size_t i = 0; i < nh; i++) {
                group_cell(&mx->head[i], by, keys[k], cells[i], sizeof cells[i]);
                row[i + 1] = cells[i];
            }
            html_row(f, "td", row);
        }
        fputs("</table>\n", f);
        free(cells);
        free(row);
    }
    free(keys);
}

void mtb_detect_matrix_html(FILE *f, const struct mtb_det_rows *mx)
{
    fprintf(f, "<!doctype html><html><head><meta charset=\"utf-8\"><title>mtebench detection: %s</title>"
               "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
               "td,th{border:1px solid #bbb;padding:.25em .6em;text-align:left}th{background:#eee}"
               ".note{background:#fff6d5;padding:.6em;border:1px solid #e0c060}"
               ".grid td{text-align:center}.caught{background:#8fd18f}.some{background:#f3d36b}"
               ".crash{background:#f5a65b}.missed{background:#ee8a8a}.nr{background:#ddd}</style></head><body>\n",
            mx->service);
    fprintf(f, "<h1>Detection: %s on %s</h1>\n<p class=\"note\">Detection is exact under QEMU (its tag checks "
               "follow the architecture); timings under emulation are emulated, and random tags follow QEMU's "
               "generator (docs/DETECTION.md).</p>\n<h2>Headline</h2>\n<table>\n",
            mx->service, mx->platform);
    static const char *const hh[] = { "configuration", "bugs caught (tag check, most trials)", "fraction [Wilson 95%]",
                                      "explained (cause and object) [Wilson 95%]", "overhead (bench)", NULL };
    html_row(f, "th", hh);
    for (size_t i = 0; i < mx->nhead; i++) {
        const struct mtb_det_head *c = &mx->head[i];
        struct headline_row h;
        headline_row(mx, c, &h);
        const char *row[] = { c->config, h.caught, h.fraction, h.explained, h.cost, NULL };
        html_row(f, "td", row);
    }
    fputs("</table>\n", f);
    html_groups(f, mx, 0, "Headline by class");
    html_groups(f, mx, 1, "Headline by where the object lives");
    fputs("<h2>Matrix</h2>\n", f);
    html_grid(f, mx);
    fputs("<h2>Cells in detail</h2>\n<table>\n", f);
    static const char *const mh[] = { "bug", "class", "memory", "configuration",
                                      "tag-check catch rate [Wilson 95%]", "outcomes", NULL };
    html_row(f, "th", mh);
    for (size_t i = 0; i < mx->ncells; i++) {
        const struct mtb_det_cell *c = &mx->cells[i];
        char r[96], o[256], cfg[96];
        rate_text(&c->r, r, sizeof r);
        counts_text(&c->r, o, sizeof o);
        snprintf(cfg, sizeof cfg, "%s/%s", c->variant, c->mode);
        const char *row[] = { c->bug, c->cls, c->memory, cfg, r, o, NULL };
        html_row(f, "td", row);
    }
    fputs("</table>\n<h2>Per class</h2>\n<table>\n", f);
    static const char *const ch[] = { "class", "configuration", "tag-check catch rate [Wilson 95%]", "outcomes", NULL };
    html_row(f, "th", ch);
    for (size_t i = 0; i < mx->nclasses; i++) {
        const struct mtb_det_cell *c = &mx->classes[i];
        char r[96], o[256], cfg[96];
        rate_text(&c->r, r, sizeof r);
        counts_text(&c->r, o, sizeof o);
        snprintf(cfg, sizeof cfg, "%s/%s", c->variant, c->mode);
        const char *row[] = { c->cls, cfg, r, o, NULL };
        html_row(f, "td", row);
    }
    fputs("</table>\n", f);
    html_reports(f, mx);
    fputs("</body></html>\n", f);
}
