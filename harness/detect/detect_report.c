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
#include "core/summary_rows.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Z95 1.959963985

/* a cell whose bad access a system call makes, tried under qemu-user */
#define UNCHECKED_NOTE "the bad access happens inside a system call (access_in syscall), which qemu-user never " \
                       "checks: under emu this is not the hardware's answer; a real kernel in sync mode checks it " \
                       "(vm) (docs/DETECTION.md)"

/* an outcome of no name of MTB_DET_OUTCOMES, kept as it came and counted in no rate */
struct other {
    const char *name;
    long long n;
};

/* A cell (a bug in a configuration) or a class's tally in one, as the
 * trials come; a cell tried again on a real kernel keeps its answer apart. */
struct tally {
    const char *bug, *cls, *memory, *variant, *mode; /* the trials' strings (bug, memory NULL: a class's) */
    long long counts[MTB_DET_NOUTCOMES], explained;
    int unchecked, has_kcheck;
    const char *kcheck_platform;
    long long kcheck_counts[MTB_DET_NOUTCOMES];
    struct other *other, *kcheck_other; /* outcomes of no name above (a trial of another version's) */
    size_t nother, nkcheck_other;
};

/* the tallies of the cells or of the classes, in the order first met */
struct tallies {
    struct tally *v;
    size_t n, cap;
};

/* the tally of bug (NULL: of a class) in the configuration, made when new */
static struct tally *tally_of(struct tallies *ts, const struct mtb_det_trial *t, int cls_only)
{
    for (size_t i = 0; i < ts->n; i++) {
        struct tally *x = &ts->v[i];
        if ((cls_only ? !strcmp(x->cls, t->cls) : !strcmp(x->bug, t->bug)) && !strcmp(x->variant, t->variant) &&
            !strcmp(x->mode, t->mode))
            return x;
    }
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 16;
        ts->v = mtb_realloc(ts->v, ts->cap * sizeof *ts->v);
    }
    struct tally *x = &ts->v[ts->n++];
    memset(x, 0, sizeof *x);
    x->bug = cls_only ? NULL : t->bug;
    x->memory = cls_only ? NULL : t->memory;
    x->cls = t->cls;
    x->variant = t->variant;
    x->mode = t->mode;
    return x;
}

static void count(long long *counts, struct other **other, size_t *nother, const char *outcome)
{
    for (int i = 0; i < MTB_DET_NOUTCOMES; i++)
        if (!strcmp(outcome, mtb_det_outcome_names[i])) {
            counts[i]++;
            return;
        }
    size_t k = 0;
    while (k < *nother && strcmp((*other)[k].name, outcome))
        k++;
    if (k == *nother) {
        *other = mtb_realloc(*other, (*nother + 1) * sizeof **other);
        (*other)[(*nother)++] = (struct other){ outcome, 0 };
    }
    (*other)[k].n++;
}

/* valid and caught by a tag check, from a tally's counts */
static long long valid_of(const long long *c)
{
    return c[MTB_DET_caught_sync] + c[MTB_DET_caught_async] + c[MTB_DET_caught_kernel] + c[MTB_DET_caught_other] +
           c[MTB_DET_silent];
}
static long long mte_of(const long long *c)
{
    return c[MTB_DET_caught_sync] + c[MTB_DET_caught_async] + c[MTB_DET_caught_kernel];
}

/* a tally's rate fields into c: valid = caught + silent; a tag check caught
 * it in user code (sync, async) or in the kernel (a system call refused) */
static void rates(json_t *c, const long long *counts, const struct other *other, size_t nother, long long explained)
{
    json_t *cs = json_object();
    for (size_t k = 0; k < nother; k++)
        json_object_set_new(cs, other[k].name, json_integer(other[k].n));
    for (int i = 0; i < MTB_DET_NOUTCOMES; i++)
        if (counts[i])
            json_object_set_new(cs, mtb_det_outcome_names[i], json_integer(counts[i]));
    json_object_set_new(c, "counts", cs);
    long long mte = mte_of(counts), valid = valid_of(counts);
    json_object_set_new(c, "valid", json_integer(valid));
    json_object_set_new(c, "caught_mte", json_integer(mte));
    struct mtb_stats_ci ci;
    if (valid > 0 && mtb_stats_wilson(mte, valid, Z95, &ci) == 0) {
        json_object_set_new(c, "rate", json_real(ci.est));
        json_object_set_new(c, "wilson95_lo", json_real(ci.lo));
        json_object_set_new(c, "wilson95_hi", json_real(ci.hi));
        mtb_stats_wilson(mte + counts[MTB_DET_caught_other], valid, Z95, &ci);
        json_object_set_new(c, "rate_any", json_real(ci.est));
        /* diagnosability: caught and explained (the report's cause and object) */
        mtb_stats_wilson(explained, valid, Z95, &ci);
        json_object_set_new(c, "explained", json_integer(explained));
        json_object_set_new(c, "explained_rate", json_real(ci.est));
    } else {
        if (explained)
            json_object_set_new(c, "explained", json_integer(explained));
        json_object_set_new(c, "rate", json_null());
    }
}

/* a real bug: not a synthetic plant, not a second trigger of another entry's bug */
static int real_bug(const char *id, const struct mtb_det_trial *t)
{
    if (!t) /* a bug met only on a real kernel's tries: the manifest unread, counted as real (as before) */
        return 1;
    return strcmp(t->port, "plant") && !t->plant && (!*t->bug_switch || !strcmp(t->bug_switch, id));
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

/* a headline grouping's tallies: bugs caught of tested, by name, in the order first met */
struct group {
    char name[96];
    long long caught, tested;
};
struct groups {
    struct group *v;
    size_t n, cap;
};

static void group_add(struct groups *gs, const char *name, int caught)
{
    size_t i = 0;
    while (i < gs->n && strcmp(gs->v[i].name, name))
        i++;
    if (i == gs->n) {
        if (gs->n == gs->cap) {
            gs->cap = gs->cap ? 2 * gs->cap : 8;
            gs->v = mtb_realloc(gs->v, gs->cap * sizeof *gs->v);
        }
        memset(&gs->v[i], 0, sizeof gs->v[i]);
        snprintf(gs->v[i].name, sizeof gs->v[i].name, "%s", name);
        gs->n++;
    }
    gs->v[i].caught += caught;
    gs->v[i].tested++;
}

/* the tallies as rows {name: key, bugs_caught, bugs_tested, fraction, Wilson 95%} */
static json_t *group_rows(const struct groups *gs, const char *name)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < gs->n; i++) {
        struct mtb_stats_ci ci = { 0, 0, 0 };
        mtb_stats_wilson(gs->v[i].caught, gs->v[i].tested, Z95, &ci);
        json_array_append_new(rows, json_pack("{s:s,s:I,s:I,s:f,s:f,s:f}", name, gs->v[i].name, "bugs_caught",
                                              (json_int_t)gs->v[i].caught, "bugs_tested", (json_int_t)gs->v[i].tested,
                                              "fraction", ci.est, "wilson95_lo", ci.lo, "wilson95_hi", ci.hi));
    }
    return rows;
}

/* the matrix being made: its tallies, configurations and bugs (each bug's
 * first trial: its manifest), in the order first met */
struct build {
    struct tallies cells, classes;
    const char **configs;
    const struct mtb_det_trial **bugs;
    size_t nconfigs, nbugs;
};

static const struct mtb_det_trial *bug_of(const struct build *b, const char *id)
{
    for (size_t i = 0; i < b->nbugs; i++)
        if (!strcmp(b->bugs[i]->bug, id))
            return b->bugs[i];
    return NULL;
}

/* The headline: per configuration, the bugs caught by a tag check in most of
 * their valid trials, of the real bugs tried (of every entry when only
 * plants or second triggers were), overall, by class and by where the
 * object lives, each with its Wilson 95% interval. */
static void headline(json_t *out, const struct build *b)
{
    int any_real = 0;
    for (size_t i = 0; i < b->nbugs; i++)
        any_real |= real_bug(b->bugs[i]->bug, b->bugs[i]);
    json_object_set_new(out, "headline_counts", json_string(any_real ? "real bugs" : "entries"));
    json_t *rows = json_array();
    for (size_t k = 0; k < b->nconfigs; k++) {
        long long caught = 0, tested = 0, expl = 0;
        struct groups by_class = { 0 }, by_memory = { 0 };
        for (size_t j = 0; j < b->cells.n; j++) {
            const struct tally *c = &b->cells.v[j];
            char cfg[96], mk[96];
            snprintf(cfg, sizeof cfg, "%s/%s", c->variant, c->mode);
            long long valid = valid_of(c->counts);
            if (strcmp(cfg, b->configs[k]) || valid == 0 || (any_real && !real_bug(c->bug, bug_of(b, c->bug))))
                continue;
            /* a system call's access tried on a real kernel too: its answer is the hardware's */
            const long long *by = c->has_kcheck && valid_of(c->kcheck_counts) ? c->kcheck_counts : c->counts;
            int hit = 2 * mte_of(by) > valid_of(by);
            tested++;
            caught += hit;
            /* explained: a tag check's report named the cause and the object in most trials */
            expl += 2 * c->explained > valid;
            group_add(&by_class, c->cls, hit);
            memory_kind(c->memory, mk, sizeof mk);
            group_add(&by_memory, mk, hit);
        }
        struct mtb_stats_ci ci = { 0, 0, 0 }, ce = { 0, 0, 0 };
        if (tested) {
            mtb_stats_wilson(caught, tested, Z95, &ci);
            mtb_stats_wilson(expl, tested, Z95, &ce);
        }
        json_array_append_new(rows, json_pack("{s:s,s:I,s:I,s:f,s:f,s:f,s:o,s:o,s:{s:I,s:f,s:f,s:f}}", "config",
                                              b->configs[k], "bugs_caught", (json_int_t)caught, "bugs_tested",
                                              (json_int_t)tested, "fraction", ci.est, "wilson95_lo", ci.lo,
                                              "wilson95_hi", ci.hi, "by_class", group_rows(&by_class, "class"),
                                              "by_memory", group_rows(&by_memory, "memory"), "explained", "bugs",
                                              (json_int_t)expl, "fraction", ce.est, "wilson95_lo", ce.lo,
                                              "wilson95_hi", ce.hi));
        free(by_class.v);
        free(by_memory.v);
    }
    json_object_set_new(out, "headline", rows);
}

/* a caught trial's fault report, for the pages: its headline, whether it
 * explains the bug, and the whole text (run/faultrep.c) */
static void add_report(json_t *reports, const struct mtb_det_trial *t, const char *cfg)
{
    if (!t->has_report)
        return;
    char *text = mtb_fault_text(t->fault);
    json_array_append_new(reports, json_pack("{s:s,s:s,s:O?,s:s,s:O?,s:s?}", "bug", t->bug, "config", cfg, "trial",
                                             t->number, "headline", t->report_headline, "explained", t->explained_j,
                                             "text", text));
    free(text);
}

/* a cell's or a class's row of the matrix */
static json_t *tally_row(const struct tally *x)
{
    json_t *c = json_pack("{s:s,s:s,s:s}", "class", x->cls, "variant", x->variant, "mode", x->mode);
    if (x->bug) {
        json_object_set_new(c, "bug", json_string(x->bug));
        json_object_set_new(c, "memory", json_string(x->memory));
    }
    if (x->unchecked)
        json_object_set_new(c, "kernel_access_unchecked", json_true());
    rates(c, x->counts, x->other, x->nother, x->explained);
    if (x->has_kcheck) {
        json_t *kc = json_pack("{s:s?}", "platform", x->kcheck_platform);
        rates(kc, x->kcheck_counts, x->kcheck_other, x->nkcheck_other, 0);
        json_object_set_new(c, "kernel_check", kc);
    }
    return c;
}

json_t *mtb_detect_matrix(json_t *trials)
{
    size_t n = json_array_size(trials);
    struct mtb_det_trial *tv = mtb_calloc(n + 1, sizeof *tv);
    struct build b = { 0 };
    b.configs = mtb_calloc(n + 1, sizeof *b.configs);
    b.bugs = mtb_calloc(n + 1, sizeof *b.bugs);
    char(*cfgs)[96] = mtb_calloc(n + 1, sizeof *cfgs);
    json_t *reports = json_array(), *bugs = json_object();
    for (size_t i = 0; i < n; i++) {
        struct mtb_det_trial *t = &tv[i];
        mtb_det_trial_read(json_array_get(trials, i), t);
        snprintf(cfgs[i], sizeof cfgs[i], "%s/%s", t->variant, t->mode);
        struct tally *cl = tally_of(&b.cells, t, 0);
        if (t->kernel_check) {
            /* the same cell tried where a real kernel checks system calls
             * (detect --kernel-check vm): its answer beside the cell's */
            if (!cl->has_kcheck)
                cl->kcheck_platform = t->platform;
            cl->has_kcheck = 1;
            count(cl->kcheck_counts, &cl->kcheck_other, &cl->nkcheck_other, t->outcome);
            continue;
        }
        /* a system call's bad access under qemu-user, which never checks it:
         * not the hardware's answer (vm's is) */
        if (!strcmp(t->access_in, "syscall") && t->platform && !strcmp(t->platform, "emu"))
            cl->unchecked = 1;
        count(cl->counts, &cl->other, &cl->nother, t->outcome);
        add_report(reports, t, cfgs[i]);
        cl->explained += t->explained;
        struct tally *ct = tally_of(&b.classes, t, 1);
        count(ct->counts, &ct->other, &ct->nother, t->outcome);
        size_t k = 0;
        while (k < b.nconfigs && strcmp(b.configs[k], cfgs[i]))
            k++;
        if (k == b.nconfigs)
            b.configs[b.nconfigs++] = cfgs[i];
        if (t->manifest && !bug_of(&b, t->bug)) { /* a trial without a manifest (none is made so) is no bug's */
            b.bugs[b.nbugs++] = t;
            json_object_set(bugs, t->bug, t->manifest);
        }
    }
    json_t *cells = json_array(), *classes = json_array();
    for (size_t i = 0; i < b.cells.n; i++)
        json_array_append_new(cells, tally_row(&b.cells.v[i]));
    for (size_t i = 0; i < b.classes.n; i++)
        json_array_append_new(classes, tally_row(&b.classes.v[i]));
    json_t *out = json_pack("{s:s,s:o,s:o,s:O,s:o}", "schema", MTB_DET_SCHEMA, "cells", cells, "classes", classes,
                            "bugs", bugs, "reports", reports);
    headline(out, &b);
    /* the catalogue's make-up: the bugs tried by class */
    const char **mk = mtb_calloc(b.nbugs + 1, sizeof *mk);
    long long *mn = mtb_calloc(b.nbugs + 1, sizeof *mn);
    size_t nmk = 0;
    for (size_t i = 0; i < b.nbugs; i++) {
        size_t k = 0;
        while (k < nmk && strcmp(mk[k], b.bugs[i]->cls))
            k++;
        if (k == nmk)
            mk[nmk++] = b.bugs[i]->cls;
        mn[k]++;
    }
    json_t *makeup = json_object();
    for (size_t k = 0; k < nmk; k++)
        json_object_set_new(makeup, mk[k], json_integer(mn[k]));
    json_object_set_new(out, "makeup", makeup);
    /* beside ARVO's crash mix */
    const char **ids = mtb_calloc(b.nbugs + 1, sizeof *ids);
    struct mtb_bug *mans = mtb_calloc(b.nbugs + 1, sizeof *mans);
    for (size_t i = 0; i < b.nbugs; i++) {
        ids[i] = b.bugs[i]->bug;
        mtb_bug_from_json(b.bugs[i]->manifest, &mans[i]);
    }
    struct mtb_det_mix mix[MTB_MIX_KINDS];
    mtb_catalogue_mix(ids, mans, b.nbugs, mix);
    json_object_set_new(out, "mix", mtb_catalogue_mix_json(mix, MTB_MIX_KINDS));
    for (size_t i = 0; i < b.nbugs; i++)
        mtb_bug_free(&mans[i]);
    free(mans);
    free(ids);
    json_decref(bugs);
    free(mk);
    free(mn);
    free(cfgs);
    for (size_t i = 0; i < b.cells.n; i++) {
        free(b.cells.v[i].other);
        free(b.cells.v[i].kcheck_other);
    }
    for (size_t i = 0; i < b.classes.n; i++)
        free(b.classes.v[i].other);
    free(b.cells.v);
    free(b.classes.v);
    free(b.configs);
    free(b.bugs);
    free(tv);
    return out;
}

/* the overheads' row of the configuration "variant/mode" (service and
 * platform too) with the most pairs, or NULL */
static const struct mtb_sum_overhead *cost_of(const struct mtb_sum_rows *s, const char *cfg, const char *service,
                                              const char *platform)
{
    const struct mtb_sum_overhead *best = NULL;
    const char *sl = strchr(cfg, '/');
    for (size_t j = 0; j < s->noverheads; j++) {
        const struct mtb_sum_overhead *o = &s->overheads[j];
        if (!strcmp(o->service, service) && strlen(o->variant) == (size_t)(sl - cfg) &&
            !strncmp(o->variant, cfg, (size_t)(sl - cfg)) && !strcmp(o->mode, sl + 1) &&
            !strcmp(o->platform, platform) && (!best || o->pairs > best->pairs))
            best = o;
    }
    return best;
}

static json_t *real_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

void mtb_detect_cost(json_t *mx, json_t *summary, const char *service, const char *platform)
{
    struct mtb_sum_rows s;
    struct mtb_det_rows m;
    mtb_sum_rows_read(summary, &s);
    mtb_det_rows_read(mx, &m);
    for (size_t i = 0; i < m.nhead; i++) { /* the rows mtb_detect_matrix made, each given its cost */
        const char *cfg = m.head[i].config;
        json_t *h = m.head[i].j;
        if (!strchr(cfg, '/'))
            continue;
        if (!strcmp(cfg, "plain/off")) {
            json_object_set_new(h, "cost", json_pack("{s:b,s:f}", "baseline", 1, "slowdown", 1.0));
            continue;
        }
        const struct mtb_sum_overhead *best = cost_of(&s, cfg, service, platform);
        const struct mtb_ci *sd = best ? &best->metric[MTB_P_slowdown] : NULL;
        json_object_set_new(h, "cost", best ? json_pack("{s:o,s:o,s:o,s:I,s:s}", "slowdown", real_or_null(sd->median),
                                                        "lo", real_or_null(sd->lo), "hi", real_or_null(sd->hi), "pairs",
                                                        (json_int_t)best->pairs, "workload", best->workload.name)
                                            : json_null());
    }
    json_object_set_new(mx, "cost_note", json_string("overhead: the bench records given (--cost) of the same service, "
                                                     "variant, mode and platform (plain/off = 1); the bug builds are those "
                                                     "variants plus bugs.patch. Under emulation the overheads are "
                                                     "emulated timings, not hardware costs"));
    mtb_det_rows_free(&m);
    mtb_sum_rows_free(&s);
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
    if (md && mx->nmix) { /* the bugs tried, beside what fuzzing finds */
        fprintf(f, "\n## The bugs tried beside ARVO's crash mix\n");
        mtb_catalogue_mix_print(f, mx->mix, mx->nmix, 1);
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
