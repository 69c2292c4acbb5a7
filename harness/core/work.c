/* work.c - see work.h */
#include "core/work.h"
#include "core/work_rows.h"
#include "core/load_rows.h"
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

/* "k=v k=v ..." into o: numbers as integers, the rest as strings */
static void parse_pairs(char *line, json_t *o)
{
    for (char *save = NULL, *tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        char *end;
        unsigned long long v = strtoull(eq + 1, &end, 10);
        json_object_set_new(o, tok, eq[1] && !*end ? json_integer((json_int_t)v) : json_string(eq + 1));
    }
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
        json_t *o = json_object();
        if (!strncmp(line, "mtecount ", 9)) {
            parse_pairs(line + 9, plugin);
            json_decref(o);
            continue;
        }
        parse_pairs(line, o);
        json_array_append_new(json_object_get(o, "tid") ? tasks : json_object_get(o, "window") ? windows : totals, o);
    }
    free(text);
    return json_pack("{s:o,s:o,s:o,s:o}", "plugin", plugin, "totals", totals, "windows", windows, "tasks", tasks);
}

/* add every integer of from into to */
static void add_counts(json_t *to, const json_t *from)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)from, k, v) {
        if (!json_is_integer(v) || !strcmp(k, "vcpu") || !strcmp(k, "el") || !strcmp(k, "window"))
            continue;
        json_int_t had = json_integer_value(json_object_get(to, k));
        json_object_set_new(to, k, json_integer(had + json_integer_value(v)));
    }
}

/* counter k of an EL's window less what wait loops' repeats held of it
 * (the plugin's spin_k; docs/COUNTING.md, "Wait loops") */
static json_int_t outside_waits(const json_t *counts, const char *k)
{
    char spin[64];
    snprintf(spin, sizeof spin, "spin_%s", k);
    return json_integer_value(json_object_get(counts, k)) - json_integer_value(json_object_get(counts, spin));
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

/* 1 when tid is one of the service's tasks whose name is one of comms (a
 * space-separated list; NULL: any) */
static int task_of(const json_t *svc_tasks, json_int_t tid, const char *comms)
{
    size_t i;
    json_t *t;
    json_array_foreach(svc_tasks, i, t) {
        if (json_integer_value(json_object_get(t, "tid")) == tid &&
            (!comms || in_words(comms, json_string_value(json_object_get(t, "comm")) ?: "")))
            return 1;
    }
    return 0;
}

/* Which lines of a window a sum takes: the vCPUs of list (NULL: all), or
 * the service's tasks named one of comms (NULL: all of them). */
struct lines_of {
    const char *list;
    const json_t *svc_tasks;
    const char *comms;
};

/* window win's counts per EL ("el0", "el1"): the plugin's lines by vCPU
 * ("windows") or by task ("tasks") that which takes */
static json_t *window_counts(const json_t *work, const char *lines, json_int_t win, const struct lines_of *which)
{
    json_t *per_el = json_object();
    for (int el = 0; el <= 1; el++) {
        json_t *sum = json_object();
        size_t i;
        json_t *w;
        json_array_foreach(json_object_get(work, lines), i, w) {
            if (json_integer_value(json_object_get(w, "window")) != win ||
                json_integer_value(json_object_get(w, "el")) != el)
                continue;
            if (which->svc_tasks ? task_of(which->svc_tasks, json_integer_value(json_object_get(w, "tid")),
                                           which->comms)
                                 : !which->list ||
                                       in_list(which->list, (int)json_integer_value(json_object_get(w, "vcpu"))))
                add_counts(sum, w);
        }
        json_object_del(sum, "tid");
        json_object_set_new(per_el, el ? "el1" : "el0", sum);
    }
    return per_el;
}

static json_t *role_counts(const json_t *work, json_int_t win, const char *list)
{
    return window_counts(work, "windows", win, &(struct lines_of){ list, NULL, NULL });
}

static json_t *task_counts(const json_t *work, json_int_t win, const json_t *svc_tasks, const char *comms)
{
    return window_counts(work, "tasks", win, &(struct lines_of){ NULL, svc_tasks, comms });
}


/* load less idle, per EL, counter by counter (core/work_rows.h's
 * MTB_WORK_COUNTERS: what a work table shows, and what wait loops' repeats
 * held of the first six and of wfe), each outside wait loops' repeats
 * (spin_NAME: what they held); and that per request */
static json_t *net_of(const json_t *load, const json_t *idle, double requests, json_t **per_req)
{
    json_t *net = json_object();
    *per_req = json_object();
    const char *el;
    json_t *l;
    json_object_foreach((json_t *)load, el, l) {
        json_t *n = json_object(), *pr = json_object();
        const json_t *i = json_object_get(idle, el);
        for (int k = 0; k < MTB_NWC; k++) {
            json_int_t d = outside_waits(l, mtb_work_counter_keys[k]) - outside_waits(i, mtb_work_counter_keys[k]);
            json_object_set_new(n, mtb_work_counter_keys[k], json_integer(d));
            if (requests > 0)
                json_object_set_new(pr, mtb_work_counter_keys[k], json_real((double)d / requests));
        }
        json_object_set_new(net, el, n);
        json_object_set_new(*per_req, el, pr);
    }
    return net;
}

/* A counted run's accounts, each keyed by role: the load's window, the idle
 * one, their difference and that per request */
struct accounts {
    json_t *load, *idle, *net, *per_req;
};

/* role's load (lw) and idle (iw) windows into a (which takes them) */
static void account(struct accounts *a, const char *role, json_t *lw, json_t *iw, double requests)
{
    json_t *pr;
    json_object_set_new(a->net, role, net_of(lw, iw, requests, &pr));
    json_object_set_new(a->per_req, role, pr);
    json_object_set_new(a->load, role, lw);
    json_object_set_new(a->idle, role, iw);
}

/* The service's own tasks (the guest's list, svc_tasks) in the load's
 * window less the idle one, all of them ("tasks" in net and per_req) and by
 * task name (by_task); or why not (tasks_note) */
static void task_account(json_t *acc, const json_t *work, json_int_t nwin, const json_t *svc_tasks,
                         const char *workers, double requests, struct accounts *a)
{
    json_int_t switches = json_integer_value(json_object_get(json_object_get(work, "plugin"), "context_switches"));
    if (!switches || !json_array_size(json_object_get(work, "tasks"))) {
        json_object_set_new(acc, "tasks_note", json_string("no work by task: the kernel did not write CONTEXTIDR_EL1 "
                                                           "at its context switches (CONFIG_PID_IN_CONTEXTIDR, which "
                                                           "the named kernels set)"));
        return;
    }
    if (!json_array_size(svc_tasks)) {
        json_object_set_new(acc, "tasks_note", json_string("no work by task: the guest listed no task of the service "
                                                           "(an embedded service runs in its driver)"));
        return;
    }
    account(a, "tasks", task_counts(work, nwin, svc_tasks, NULL), task_counts(work, nwin - 1, svc_tasks, NULL),
            requests);
    /* the tasks that serve requests ([run] request_tasks; else all): their
     * work is per request by construction, where background threads follow
     * the clock */
    account(a, "workers", task_counts(work, nwin, svc_tasks, workers), task_counts(work, nwin - 1, svc_tasks, workers),
            requests);
    json_object_set_new(acc, "workers", json_string(workers ? workers : "all of the service's tasks"));
    /* what the kernel ran for interrupts, on every vCPU (the plugin's tid -2) */
    json_t *irq = json_pack("[{s:i,s:s}]", "tid", -2, "comm", "interrupts");
    account(a, "interrupts", task_counts(work, nwin, irq, NULL), task_counts(work, nwin - 1, irq, NULL), requests);
    json_decref(irq);
    json_t *pr;
    json_t *by = json_object();
    size_t i;
    json_t *t;
    json_array_foreach(svc_tasks, i, t) {
        const char *comm = json_string_value(json_object_get(t, "comm"));
        if (!comm || json_object_get(by, comm))
            continue;
        json_t *lw = task_counts(work, nwin, svc_tasks, comm), *iw = task_counts(work, nwin - 1, svc_tasks, comm);
        json_t *n = net_of(lw, iw, requests, &pr);
        int tids = 0;
        size_t j;
        json_t *u;
        json_array_foreach(svc_tasks, j, u) tids += !strcmp(comm, json_string_value(json_object_get(u, "comm")) ?: "");
        json_object_set_new(by, comm, json_pack("{s:i,s:o,s:o}", "tasks", tids, "net", n, "per_request", pr));
        json_decref(lw);
        json_decref(iw);
    }
    json_object_set_new(acc, "tasks", json_deep_copy(svc_tasks));
    json_object_set_new(acc, "by_task", by);
}

json_t *mtb_work_account(const json_t *work, double requests, const char *requests_from, const json_t *affinity,
                         const json_t *svc_tasks, const char *workers)
{
    json_t *plugin = json_object_get(work, "plugin");
    json_t *acc = json_pack("{s:s,s:O,s:s,s:s}", "counted", "exact (counted): the guest's instruction stream under "
                            "QEMU; not a timing", "plugin", plugin, "rules",
                            "docs/COUNTING.md: Tag Checked by the Arm ARM's rule; the page's Tagged attribute "
                            "approximated (upper half Tagged; lower half Tagged when the pointer's tag is not 0; "
                            "lower-half tag-0 accesses apart, tag0_lower)", "net",
                            "per request: the load's window less an idle window of the same length before it "
                            "(the service's timers and background threads, the kernel's ticks)");
    json_int_t nwin = json_integer_value(json_object_get(plugin, "windows"));
    json_object_set_new(acc, "windows", json_integer(nwin));
    if (nwin < 2) {
        json_object_set_new(acc, "error", json_string("the guest did not open and close its two counting windows "
                                                      "(idle, then the load)"));
        return acc;
    }
    /* the roles: the service's vCPUs and the load generator's, when apart
     * (the guest's CPU n is the plugin's vCPU n) */
    const char *svc = json_string_value(json_object_get(affinity, "service"));
    const char *cli = json_string_value(json_object_get(affinity, "client"));
    int apart = svc && cli && !json_is_true(json_object_get(affinity, "shares_cpus_with_client"));
    const char *roles[3] = { "all", "service", "client" }, *lists[3] = { NULL, svc, cli };
    struct accounts a = { json_object(), json_object(), json_object(), json_object() };
    json_t *load = a.load, *idle = a.idle, *net = a.net, *per_req = a.per_req;
    for (int r = 0; r < (apart ? 3 : 1); r++)
        account(&a, roles[r], role_counts(work, nwin, lists[r]), role_counts(work, nwin - 1, lists[r]), requests);
    task_account(acc, work, nwin, svc_tasks, workers, requests, &a);
    if (apart)
        json_object_set_new(acc, "vcpus", json_pack("{s:s,s:s}", "service", svc, "client", cli));
    json_t *by_vcpu = json_array();
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(work, "windows"), i, w) {
        if (json_integer_value(json_object_get(w, "window")) >= nwin - 1)
            json_array_append(by_vcpu, w);
    }
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
    return acc;
}

double mtb_work_requests(const struct mtb_recipe *r, const json_t *rec, const char **from)
{
    const char *what = r->run.counted;
    json_t *d = json_object_get(json_object_get(rec, "service_counters"), "delta");
    if (what && d) {
        char *dup = mtb_strdup(what), *save = NULL;
        double sum = 0;
        int ok = 1;
        for (char *k = strtok_r(dup, "+ ", &save); k; k = strtok_r(NULL, "+ ", &save)) {
            json_t *v = json_object_get(d, k);
            if (!json_is_integer(v)) {
                ok = 0;
                break;
            }
            sum += (double)json_integer_value(v);
        }
        free(dup);
        const char *self = r->run.counters_self;
        sum -= self ? atof(self) : 0;
        if (ok && sum > 0) {
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
            if (json_object_get(rec, "work")) {
                json_array_append(recs, rec);
                json_array_append_new(files, json_string(g.gl_pathv[i]));
            }
            json_decref(rec);
        }
        globfree(&g);
    }
    free(pat);
}
