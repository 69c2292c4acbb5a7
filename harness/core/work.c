/* work.c - see work.h */
#include "core/work.h"
#include "core/work_rows.h"
#include "core/load_rows.h"
#include "core/record_outcome.h"
#include "core/hostfacts.h"
#include "core/recipe.h"
#include "lib/cpus.h"
#include "lib/files.h"
#include "lib/util.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *mtb_work_plugin(void) { return mtb_asprintf("%s/build/native/libmtecount.so", mtb_root()); }

int mtb_work_plugin_ready(char *why, size_t n)
{
    if (mtb_host_kvm_mte()) { /* TCG plugins see nothing of a KVM guest */
        snprintf(why, n, "counting needs QEMU's TCG, and this host runs its vm guests under KVM (MTE hardware): "
                 "here the PMU counts the same accesses (perf stat -e mem_access_checked; docs/COUNTING.md)");
        return 0;
    }
    char *p = mtb_work_plugin();
    int ok = mtb_file_exists(p);
    if (!ok)
        snprintf(why, n, "the counting plugin %s is not built (make deps fetches QEMU's qemu-plugin.h; make "
                 "builds it; docs/COUNTING.md)", p);
    free(p);
    return ok;
}

char *mtb_work_plugin_arg(const char *out)
{
    char *p = mtb_work_plugin();
    char *a = mtb_asprintf("%s,out=%s", p, out);
    free(p);
    return a;
}

/* "k=v k=v ..." into o: numbers as integers, the rest as strings.
 * @return MTB_HAS_TID, MTB_HAS_WINDOW: the keys the line had */
enum { HAS_TID = 1, HAS_WINDOW = 2 };
static int parse_pairs(char *line, json_t *o)
{
    int has = 0;
    for (char *save = NULL, *tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        char *end;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        json_t *val = eq[1] && !*end ? json_integer((json_int_t)v) : json_string(eq + 1);
        if (val && json_object_set_new(o, tok, val) == 0)
            has |= !strcmp(tok, "tid") ? HAS_TID : !strcmp(tok, "window") ? HAS_WINDOW : 0;
    }
    return has;
}

json_t *mtb_work_load(const char *path, char *err, size_t errlen)
{
    char *text = mtb_read_file(path, NULL);
    if (!text) {
        snprintf(err, errlen, "the counting plugin wrote no %s (see the run's qemu.log)", path);
        return NULL;
    }
    if (strncmp(text, "mtecount ", 9) != 0) {
        snprintf(err, errlen, "%s is not the counting plugin's output", path);
        free(text);
        return NULL;
    }
    json_t *plugin = json_object(), *totals = json_array(), *windows = json_array(), *tasks = json_array();
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "mtecount ", 9)) {
            parse_pairs(line + 9, plugin);
            continue;
        }
        json_t *o = json_object();
        int has = parse_pairs(line, o);
        json_array_append_new(has & HAS_TID ? tasks : has & HAS_WINDOW ? windows : totals, o);
    }
    free(text);
    return json_pack("{s:o,s:o,s:o,s:o}", "plugin", plugin, "totals", totals, "windows", windows, "tasks", tasks);
}

/* ---- the account, on the output's lines (core/work_rows.h) ---- */

/* an EL's counts summed over lines: each integer key, in the order met */
struct counts {
    struct mtb_work_kv *kv;
    size_t n, cap;
};

static long long count_of(const struct counts *c, const char *k)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->kv[i].key, k))
            return c->kv[i].v;
    return 0;
}

/* add every integer of line l into c (its tid aside) */
static void add_counts(struct counts *c, const struct mtb_work_line *l)
{
    for (size_t k = 0; k < l->n; k++) {
        if (!strcmp(l->kv[k].key, "tid"))
            continue;
        size_t i = 0;
        while (i < c->n && strcmp(c->kv[i].key, l->kv[k].key))
            i++;
        if (i == c->n) {
            if (c->n == c->cap)
                c->kv = mtb_realloc(c->kv, (c->cap = c->cap ? 2 * c->cap : 32) * sizeof *c->kv);
            c->kv[c->n++] = (struct mtb_work_kv){ l->kv[k].key, 0 };
        }
        c->kv[i].v += l->kv[k].v;
    }
}

static json_t *counts_json(const struct counts *c)
{
    json_t *o = json_object();
    for (size_t i = 0; i < c->n; i++)
        json_object_set_new(o, c->kv[i].key, json_integer((json_int_t)c->kv[i].v));
    return o;
}

/* counter k of an EL's window less what wait loops' repeats held of it
 * (the plugin's spin_k; docs/COUNTING.md, "Wait loops") */
static long long outside_waits(const struct counts *c, const char *k)
{
    char spin[64];
    snprintf(spin, sizeof spin, "spin_%s", k);
    return count_of(c, k) - count_of(c, spin);
}

/* 1 when vcpu is in the CPU list s ("0", "0-3,8") */
static int in_list(const char *s, int vcpu)
{
    int cpus[MTB_MAX_CPUS];
    int n = s ? mtb_cpulist_parse(s, cpus, MTB_MAX_CPUS) : -1;
    for (int i = 0; i < n; i++)
        if (cpus[i] == vcpu)
            return 1;
    return 0;
}

/* 1 when name is a word of the space-separated list names */
static int in_words(const char *names, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = names; (p = strstr(p, name)); p += n)
        if ((p == names || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

/* the guest's list of the service's tasks */
struct svc_tasks {
    struct mtb_svc_task *v;
    size_t n;
};

/* 1 when tid is one of the service's tasks whose name is one of comms (a
 * space-separated list; NULL: any) */
static int task_of(const struct svc_tasks *st, long long tid, const char *comms)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].tid == tid && (!comms || in_words(comms, st->v[i].comm ? st->v[i].comm : "")))
            return 1;
    return 0;
}

/* Which lines of a window a sum takes: the vCPUs of list (NULL: all), or
 * the service's tasks named one of comms (NULL: all of them). */
struct lines_of {
    const char *list;
    const struct svc_tasks *svc_tasks;
    const char *comms;
};

/* window win's counts per EL (el0, el1): the plugin's lines by vCPU or by
 * task that which takes */
struct per_el {
    struct counts el[2];
};

static void per_el_free(struct per_el *p)
{
    free(p->el[0].kv);
    free(p->el[1].kv);
}

static json_t *per_el_json(const struct per_el *p)
{
    return json_pack("{s:o,s:o}", "el0", counts_json(&p->el[0]), "el1", counts_json(&p->el[1]));
}

static void window_counts(const struct mtb_work_line *lines, size_t n, long long win, const struct lines_of *which,
                          struct per_el *out)
{
    memset(out, 0, sizeof *out);
    for (int el = 0; el <= 1; el++)
        for (size_t i = 0; i < n; i++) {
            const struct mtb_work_line *w = &lines[i];
            if (w->window != win || w->el != el)
                continue;
            if (which->svc_tasks ? task_of(which->svc_tasks, w->tid, which->comms)
                                 : !which->list || in_list(which->list, (int)w->vcpu))
                add_counts(&out->el[el], w);
        }
}

static void role_counts(const struct mtb_work_out *o, long long win, const char *list, struct per_el *out)
{
    window_counts(o->by_vcpu, o->nby_vcpu, win, &(struct lines_of){ list, NULL, NULL }, out);
}

static void task_counts(const struct mtb_work_out *o, long long win, const struct svc_tasks *st, const char *comms,
                        struct per_el *out)
{
    window_counts(o->by_task, o->nby_task, win, &(struct lines_of){ NULL, st, comms }, out);
}

/* load less idle, per EL, counter by counter (core/work_rows.h's
 * MTB_WORK_COUNTERS: what a work table shows, and what wait loops' repeats
 * held of the first six and of wfe), each outside wait loops' repeats
 * (spin_NAME: what they held); and that per request */
static json_t *net_of(const struct per_el *load, const struct per_el *idle, double requests, json_t **per_req)
{
    json_t *net = json_object();
    *per_req = json_object();
    for (int el = 0; el <= 1; el++) {
        json_t *n = json_object(), *pr = json_object();
        for (int k = 0; k < MTB_NWC; k++) {
            long long d = outside_waits(&load->el[el], mtb_work_counter_keys[k]) -
                          outside_waits(&idle->el[el], mtb_work_counter_keys[k]);
            json_object_set_new(n, mtb_work_counter_keys[k], json_integer((json_int_t)d));
            if (requests > 0)
                json_object_set_new(pr, mtb_work_counter_keys[k], json_real((double)d / requests));
        }
        json_object_set_new(net, el ? "el1" : "el0", n);
        json_object_set_new(*per_req, el ? "el1" : "el0", pr);
    }
    return net;
}

/* A counted run's accounts, each keyed by role: the load's window, the idle
 * one, their difference and that per request */
struct accounts {
    json_t *load, *idle, *net, *per_req;
};

/* role's load (lw) and idle (iw) windows into a (which takes them; freed) */
static void account(struct accounts *a, const char *role, struct per_el *lw, struct per_el *iw, double requests)
{
    json_t *pr;
    json_object_set_new(a->net, role, net_of(lw, iw, requests, &pr));
    json_object_set_new(a->per_req, role, pr);
    json_object_set_new(a->load, role, per_el_json(lw));
    json_object_set_new(a->idle, role, per_el_json(iw));
    per_el_free(lw);
    per_el_free(iw);
}

/* The service's own tasks (the guest's list, svc_tasks) in the load's
 * window less the idle one, all of them ("tasks" in net and per_req) and by
 * task name (by_task); or why not (tasks_note) */
static void task_account(json_t *acc, const struct mtb_work_out *o, const json_t *svc_tasks,
                         const struct svc_tasks *st, const char *workers, double requests, struct accounts *a)
{
    long long nwin = o->windows;
    if (!o->context_switches || !o->nby_task) {
        json_object_set_new(acc, "tasks_note", json_string("no work by task: the kernel did not write CONTEXTIDR_EL1 "
                                                           "at its context switches (CONFIG_PID_IN_CONTEXTIDR, which "
                                                           "the named kernels set)"));
        return;
    }
    if (!st->n) {
        json_object_set_new(acc, "tasks_note", json_string("no work by task: the guest listed no task of the service "
                                                           "(an embedded service runs in its driver)"));
        return;
    }
    struct per_el lw, iw;
    task_counts(o, nwin, st, NULL, &lw);
    task_counts(o, nwin - 1, st, NULL, &iw);
    account(a, "tasks", &lw, &iw, requests);
    /* the tasks that serve requests ([run] request_tasks; else all): their
     * work is per request by construction, where background threads follow
     * the clock */
    task_counts(o, nwin, st, workers, &lw);
    task_counts(o, nwin - 1, st, workers, &iw);
    account(a, "workers", &lw, &iw, requests);
    json_object_set_new(acc, "workers", json_string(workers ? workers : "all of the service's tasks"));
    /* what the kernel ran for interrupts, on every vCPU (the plugin's tid -2) */
    struct mtb_svc_task irq_task = { -2, "interrupts" };
    const struct svc_tasks irq = { &irq_task, 1 };
    task_counts(o, nwin, &irq, NULL, &lw);
    task_counts(o, nwin - 1, &irq, NULL, &iw);
    account(a, "interrupts", &lw, &iw, requests);
    json_t *pr;
    json_t *by = json_object();
    for (size_t i = 0; i < st->n; i++) {
        const char *comm = st->v[i].comm;
        int seen = 0;
        for (size_t j = 0; comm && j < i; j++)
            seen |= st->v[j].comm && !strcmp(st->v[j].comm, comm);
        if (!comm || seen)
            continue;
        task_counts(o, nwin, st, comm, &lw);
        task_counts(o, nwin - 1, st, comm, &iw);
        json_t *n = net_of(&lw, &iw, requests, &pr);
        int tids = 0;
        for (size_t j = 0; j < st->n; j++)
            tids += !strcmp(comm, st->v[j].comm ? st->v[j].comm : "");
        json_object_set_new(by, comm, json_pack("{s:i,s:o,s:o}", "tasks", tids, "net", n, "per_request", pr));
        per_el_free(&lw);
        per_el_free(&iw);
    }
    json_object_set_new(acc, "tasks", json_deep_copy(svc_tasks));
    json_object_set_new(acc, "by_task", by);
}

json_t *mtb_work_account(const json_t *work, double requests, const char *requests_from, const json_t *affinity,
                         const json_t *svc_tasks, const char *workers)
{
    struct mtb_work_out o;
    mtb_work_out_read(work, &o);
    json_t *acc = json_pack("{s:s,s:O,s:s,s:s}", "counted", "exact (counted): the guest's instruction stream under "
                            "QEMU; not a timing", "plugin", o.plugin, "rules",
                            "docs/COUNTING.md: Tag Checked by the Arm ARM's rule; the page's Tagged attribute "
                            "approximated (upper half Tagged; lower half Tagged when the pointer's tag is not 0; "
                            "lower-half tag-0 accesses apart, tag0_lower)", "net",
                            "per request: the load's window less an idle window of the same length before it "
                            "(the service's timers and background threads, the kernel's ticks)");
    long long nwin = o.windows;
    json_object_set_new(acc, "windows", json_integer((json_int_t)nwin));
    if (nwin < 2) {
        json_object_set_new(acc, "error", json_string("the guest did not open and close its two counting windows "
                                                      "(idle, then the load)"));
        mtb_work_out_free(&o);
        return acc;
    }
    /* the roles: the service's vCPUs and the load generator's, when apart
     * (the guest's CPU n is the plugin's vCPU n) */
    struct mtb_work_affinity af;
    mtb_work_affinity_read(affinity, &af);
    int apart = af.service && af.client && !af.shares;
    const char *roles[3] = { "all", "service", "client" }, *lists[3] = { NULL, af.service, af.client };
    struct accounts a = { json_object(), json_object(), json_object(), json_object() };
    json_t *load = a.load, *idle = a.idle, *net = a.net, *per_req = a.per_req;
    for (int r = 0; r < (apart ? 3 : 1); r++) {
        struct per_el lw, iw;
        role_counts(&o, nwin, lists[r], &lw);
        role_counts(&o, nwin - 1, lists[r], &iw);
        account(&a, roles[r], &lw, &iw, requests);
    }
    struct svc_tasks st;
    mtb_svc_tasks_read(svc_tasks, &st.v, &st.n);
    task_account(acc, &o, svc_tasks, &st, workers, requests, &a);
    free(st.v);
    if (apart)
        json_object_set_new(acc, "vcpus", json_pack("{s:s,s:s}", "service", af.service, "client", af.client));
    json_t *by_vcpu = json_array();
    for (size_t i = 0; i < o.nby_vcpu; i++)
        if (o.by_vcpu[i].window >= nwin - 1)
            json_array_append(by_vcpu, o.by_vcpu[i].j);
    json_object_set_new(acc, "window", load);
    json_object_set_new(acc, "idle", idle);
    json_object_set_new(acc, "window_net", net);
    json_object_set_new(acc, "by_vcpu", by_vcpu);
    if (requests > 0) {
        json_object_set_new(acc, "requests", json_real(requests));
        json_object_set_new(acc, "requests_from", json_string(requests_from));
        json_object_set_new(acc, "per_request", per_req);
    } else {
        json_decref(per_req);
    }
    mtb_work_out_free(&o);
    return acc;
}

double mtb_work_requests(const struct mtb_recipe *r, const json_t *rec, const char **from)
{
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read((json_t *)rec, &o);
    long long counted = mtb_counters_sum(o.counters_delta, r->run.counted);
    if (counted >= 0) {
        const char *self = r->run.counters_self;
        double sum = (double)counted - (self ? atof(self) : 0);
        if (sum > 0) {
            *from = "the service's own counters over the window ([run] counted)";
            return sum;
        }
    }
    struct mtb_load_view l;
    mtb_load_view_of_record((json_t *)rec, &l);
    if (l.requests > 0) {
        *from = "the load generator's requests";
        return l.requests;
    }
    *from = "unknown";
    return -1;
}

const struct mtb_work_quantity mtb_work_quantities[MTB_NWORK] = {
    { "el0_insns", "EL0 instructions" },
    { "el1_insns", "EL1 instructions" },
    { "el0_tag_insns", "EL0 tag instructions" },
    { "el1_tag_insns", "EL1 tag instructions" },
    { "el0_tag_bytes", "EL0 bytes tagged" },
    { "el1_tag_bytes", "EL1 bytes tagged" },
    { "el0_checked", "EL0 Tag Checked accesses" },
    { "el1_checked", "EL1 Tag Checked accesses" },
};

int mtb_work_values(const json_t *rec, double v[MTB_NWORK], const char **role)
{
    struct mtb_work_view w;
    mtb_work_view_read(rec, &w);
    const struct mtb_work_acct *acc = &w.role[w.main];
    if (role)
        *role = mtb_work_role_keys[w.main];
    for (int i = 0; i < MTB_NWORK; i++)
        v[i] = NAN;
    int rc = acc->object ? 0 : -1;
    /* the tag instructions: IRG, LDG and every tag store, summed in this order */
    static const enum mtb_work_counter tag[] = { MTB_WC_irg,   MTB_WC_ldg,  MTB_WC_stg,   MTB_WC_st2g,
                                                 MTB_WC_stzg,  MTB_WC_stz2g, MTB_WC_stgp, MTB_WC_stgm,
                                                 MTB_WC_stzgm, MTB_WC_dc_gva, MTB_WC_dc_gzva };
    for (int el = 0; el <= 1 && acc->object; el++) {
        if (!acc->el_present[el])
            continue;
        double t = 0;
        for (size_t k = 0; k < sizeof tag / sizeof tag[0]; k++)
            t += acc->c[el][tag[k]];
        v[0 + el] = acc->c[el][MTB_WC_insns];
        v[2 + el] = t;
        v[4 + el] = acc->c[el][MTB_WC_tag_bytes];
        v[6 + el] = acc->c[el][MTB_WC_loads_checked] + acc->c[el][MTB_WC_stores_checked];
    }
    mtb_work_view_free(&w);
    return rc;
}

void mtb_work_records(const char *dir, json_t *recs, json_t *files)
{
    char *pat = mtb_asprintf("%s/work/*/record.json", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            json_t *rec = json_load_file(g.gl_pathv[i], 0, NULL);
            struct mtb_rec_outcome o;
            mtb_rec_outcome_read(rec, &o);
            if (o.has_work) {
                json_array_append(recs, rec);
                json_array_append_new(files, json_string(g.gl_pathv[i]));
            }
            json_decref(rec);
        }
        globfree(&g);
    }
    free(pat);
}
