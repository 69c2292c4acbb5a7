/* clients.c - see clients.h */
#include "agent/clients.h"
#include "drivers/driver.h"
#include "loadgen/engine.h"
#include "loadgen/hist.h"
#include "core/host_rows.h"
#include "core/load_rows.h"
#include "core/loadlog.h"
#include "loadgen/report.h"
#include "common/mtload_exit.h"
#include "lib/proc.h"
#include "agent/transport_ssh.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* ---- merging ------------------------------------------------------------- */

/* add one mtload histogram ([[value_us, count], ...]) into h */
static int add_hist(struct mtl_hist *h, json_t *arr, char *err, size_t errlen)
{
    size_t i;
    json_t *b;
    json_array_foreach(arr, i, b) {
        double vus = json_number_value(json_array_get(b, 0));
        json_int_t cnt = json_integer_value(json_array_get(b, 1));
        uint64_t ns = (uint64_t)llround(vus * 1e3);
        if (cnt < 0 || ns > h->highest) {
            snprintf(err, errlen, "histogram bucket [%g, %lld] out of mtload's range", vus, (long long)cnt);
            return -1;
        }
        size_t idx = mtl_hist_index(h->sub_bits, ns);
        if (mtl_hist_bucket_value(h, idx) != ns) {
            snprintf(err, errlen, "histogram value %.3f us is no bucket of mtload's histogram (%u sub-bucket bits)", vus,
                     h->sub_bits);
            return -1;
        }
        h->counts[idx] += (uint64_t)cnt;
        h->total += (uint64_t)cnt;
        h->sum += (double)ns * (double)cnt;
        h->sumsq += (double)ns * (double)ns * (double)cnt;
        if (cnt && ns < h->min)
            h->min = ns;
        if (cnt && ns > h->max)
            h->max = ns;
    }
    return 0;
}

/* The merged counts, as the merge keeps them: a whole number after each
 * client's is added (as a JSON integer would hold it). */
struct sums {
    json_int_t count[MTB_LOAD_NCOUNTS], errors[MTB_LOAD_NERRKINDS], account[MTB_LOAD_NACCOUNT];
    int account_whole;   /* every client so far gave its accounting (an object) */
    json_int_t setup;    /* the transactions the clients' own setup commits (pgbench) */
    int has_setup;
    json_int_t *ops, *errs; /* per second */
    size_t nsec;
};

static json_int_t add(json_int_t sum, double v) { return (json_int_t)((double)sum + mtb_or0(v)); }

/* One client's counters added to the merged totals: requests and the like,
 * errors by kind, the accounting (every client's or none) and pgbench's
 * setup transactions; its per-second operations added by second (the
 * clients started together). */
static void add_client(struct sums *m, const struct mtb_load_view *l)
{
    m->has_setup |= l->has_setup;
    m->setup += l->setup;
    for (int k = 0; k < MTB_LOAD_NCOUNTS; k++)
        m->count[k] = add(m->count[k], l->count[k]);
    for (int k = 0; k < MTB_LOAD_NERRKINDS; k++)
        m->errors[k] = add(m->errors[k], l->errors_by[k]);
    for (int k = 0; k < MTB_LOAD_NACCOUNT && m->account_whole; k++)
        m->account[k] = add(m->account[k], l->account[k]);
    m->account_whole &= l->accounting_whole;
    if (l->nseconds > m->nsec) {
        m->ops = mtb_realloc(m->ops, l->nseconds * sizeof *m->ops);
        m->errs = mtb_realloc(m->errs, l->nseconds * sizeof *m->errs);
        for (size_t j = m->nsec; j < l->nseconds; j++)
            m->ops[j] = m->errs[j] = 0;
        m->nsec = l->nseconds;
    }
    for (size_t j = 0; j < l->nseconds; j++) {
        struct mtb_load_sec s;
        mtb_load_second(l, j, &s);
        m->ops[j] = add(m->ops[j], s.ops);
        m->errs[j] = add(m->errs[j], s.errors);
    }
}

/* the merged totals in mtload/1's order (no client: no counts) */
static json_t *totals_json(const struct sums *m, size_t nloads, double dur)
{
    json_t *tot = json_object(), *errs = json_object();
    for (int k = 0; k < MTB_LOAD_NCOUNTS && nloads; k++)
        json_object_set_new(tot, mtb_load_count_keys[k], json_integer(m->count[k]));
    json_object_set_new(tot, "ops_per_sec", json_real(dur > 0 ? (double)m->count[MTB_LOAD_C_REQUESTS] / dur : 0));
    for (int k = 0; k < MTB_LOAD_NERRKINDS && nloads; k++)
        json_object_set_new(errs, mtb_load_errkind_keys[k], json_integer(m->errors[k]));
    json_object_set_new(tot, "errors", errs);
    if (m->has_setup)
        json_object_set_new(tot, "setup", json_integer(m->setup));
    if (m->account_whole) {
        json_t *acct = json_object();
        for (int k = 0; k < MTB_LOAD_NACCOUNT && nloads; k++)
            json_object_set_new(acct, mtb_load_account_keys[k], json_integer(m->account[k]));
        json_object_set_new(tot, "accounting", acct);
    }
    return tot;
}

/* Merge mtload results (array of mtload/1 objects) by adding their
 * histograms bucket by bucket. @return the merged object, or NULL with err
 * (a histogram value that is no bucket of mtload's shape). */
static json_t *mtb_clients_merge(json_t *loads, char *err, size_t errlen)
{
    struct mtl_hist h, u; /* corrected, uncorrected */
    if (mtl_hist_init(&h, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) != 0) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (mtl_hist_init(&u, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) != 0) {
        mtl_hist_free(&h);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int has_unc = 1; /* every client gave its uncorrected histogram */
    double umean_sum = 0, umaxv = 0;
    json_t *m = json_object(), *cpu = json_object(), *config = NULL;
    double dur = 0, user = 0, sys = 0, mean_sum = 0, maxv = 0, cnt_sum = 0;
    int bound = 0;
    struct sums sm = { .account_whole = 1 };
    size_t i, nloads = json_array_size(loads);
    json_t *l;
    json_array_foreach(loads, i, l) {
        struct mtb_load_view v;
        mtb_load_view_read(l, &v);
        if (!i)
            config = v.config;
        const struct mtb_load_lat *lc = &v.lat[MTB_LAT_CORRECTED], *lu = &v.lat[MTB_LAT_UNCORRECTED];
        json_t *uh = v.histogram_uncorrected;
        has_unc &= json_is_array(uh);
        if (add_hist(&h, v.histogram, err, errlen) != 0 || (json_is_array(uh) && add_hist(&u, uh, err, errlen) != 0)) {
            json_decref(m);
            m = NULL;
            goto out;
        }
        umean_sum += mtb_or0(lu->v[MTB_LOAD_MEAN]) * (double)lu->count;
        umaxv = fmax(umaxv, mtb_or0(lu->v[MTB_LOAD_MAX]));
        add_client(&sm, &v);
        dur = fmax(dur, mtb_or0(v.duration_s));
        user += mtb_or0(v.cpu_user_s);
        sys += mtb_or0(v.cpu_sys_s);
        bound |= v.client_bound;
        double c = (double)lc->count;
        mean_sum += mtb_or0(lc->v[MTB_LOAD_MEAN]) * c;
        cnt_sum += c;
        maxv = fmax(maxv, mtb_or0(lc->v[MTB_LOAD_MAX]));
    }
    json_t *tot = totals_json(&sm, nloads, dur), *ts = json_array();
    for (size_t j = 0; j < sm.nsec; j++)
        json_array_append_new(ts, json_pack("{s:I,s:I,s:I}", "t", (json_int_t)j + 1, "ops", sm.ops[j], "errors",
                                            sm.errs[j]));
    json_t *corr = mtl_latency_json(&h);
    /* exact figures where the clients give them: the mean and the maximum */
    if (cnt_sum > 0)
        json_object_set_new(corr, "mean", json_real(round(mean_sum / cnt_sum * 1e3) / 1e3));
    json_object_set_new(corr, "max", json_real(maxv));
    json_object_set_new(m, "schema", json_string("mtload/1"));
    json_object_set(m, "config", config ? config : json_null());
    json_object_set_new(m, "duration_s", json_real(dur));
    json_object_set_new(m, "totals", tot);
    tot = NULL;
    json_t *unc = NULL;
    if (has_unc) {
        unc = mtl_latency_json(&u);
        if (u.total > 0)
            json_object_set_new(unc, "mean", json_real(round(umean_sum / (double)u.total * 1e3) / 1e3));
        json_object_set_new(unc, "max", json_real(umaxv));
    }
    json_object_set_new(m, "latency_us", json_pack("{s:o,s:o}", "corrected", corr, "uncorrected", unc ? unc : json_null()));
    json_object_set_new(m, "histogram", mtl_buckets_json(&h));
    if (has_unc)
        json_object_set_new(m, "histogram_uncorrected", mtl_buckets_json(&u));
    json_object_set_new(m, "timeseries", ts);
    ts = NULL;
    json_object_set_new(cpu, "user_s", json_real(user));
    json_object_set_new(cpu, "sys_s", json_real(sys));
    json_object_set_new(cpu, "client_bound", json_boolean(bound));
    json_object_set_new(m, "cpu", cpu);
    cpu = NULL;
    json_object_set_new(m, "merged", json_pack("{s:I,s:s}", "clients", (json_int_t)nloads, "how",
                                               "histograms (corrected and uncorrected) added bucket by bucket; "
                                               "per-second operations added; per-second percentiles are per client only"));
out:
    free(sm.ops);
    free(sm.errs);
    json_decref(cpu);
    mtl_hist_free(&h);
    mtl_hist_free(&u);
    return m;
}

/* ---- the controller's side ------------------------------------------------ */

static const struct mtb_transport *ssh(void) { return mtb_transport_find("ssh"); }

int mtb_clients_open(struct mtb_clients *c, const char *csv, const char *workdir, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->workdir = mtb_strdup(workdir);
    char *dup = mtb_strdup(csv), *save = NULL;
    for (char *h = strtok_r(dup, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        c->hosts = realloc(c->hosts, (size_t)(c->n + 1) * sizeof *c->hosts);
        c->s = realloc(c->s, (size_t)(c->n + 1) * sizeof *c->s);
        c->hosts[c->n] = mtb_strdup(h);
        c->s[c->n] = NULL;
        c->n++;
    }
    free(dup);
    if (c->n == 0) {
        snprintf(err, errlen, "client hosts: empty list (accepted: host1,host2,... as [user@]host[:port])");
        return -1;
    }
    for (int i = 0; i < c->n; i++) {
        char *wd = mtb_asprintf("%s/ssh-%s", workdir, c->hosts[i]);
        struct mtb_agent_target t = { .where = c->hosts[i], .workdir = wd };
        char e[MTB_ERRLEN];
        c->s[i] = ssh()->open(&t, e, sizeof e);
        free(wd);
        if (!c->s[i]) {
            snprintf(err, errlen, "client host %s: %s", c->hosts[i], e);
            return -1;
        }
    }
    return 0;
}

void mtb_clients_close(struct mtb_clients *c)
{
    for (int i = 0; i < c->n; i++) {
        if (c->s[i])
            ssh()->close(c->s[i]);
        free(c->hosts[i]);
    }
    free(c->hosts);
    free(c->s);
    free(c->workdir);
    memset(c, 0, sizeof *c);
}

/* the ssh transport, as the registry has it */
struct job {
    struct mtb_session *s;
    struct mtb_argv argv;
    double deadline;
    char *dir;
    struct mtb_agent_result res;
    int rc;
    char err[MTB_ERRLEN];
    struct mtb_workload share;    /* this host's share of the load */
};

static void *job_main(void *arg)
{
    struct job *j = arg;
    j->rc = ssh()->exec(j->s, j->argv.v, j->deadline, j->dir, &j->res, j->err, sizeof j->err);
    return NULL;
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    return json_load_file(path, 0, &je);
}

/* One client's outcome into ci (its entry of "clients"); its load into
 * loads. @return 0, or -1 with why (failed, late, ended early). */
static int client_result(struct job *j, const struct mtb_client_load *l, const struct mtb_workload *share,
                         double late_limit, json_t *ci, json_t *loads, char *why, size_t whylen)
{
    why[0] = 0;
    const char *tool = l->tool ? l->tool : "mtload";
    char *lp = mtb_asprintf("%s/load.json", j->dir), *cp = mtb_asprintf("%s/client.json", j->dir);
    json_t *cj = load_json(cp), *ld = NULL;
    struct mtb_client_outcome co;
    mtb_client_outcome_read(cj, &co);
    long long ex = co.exit;
    char fold[MTB_ERRLEN] = "";
    if (!l->tool)
        ld = load_json(lp);
    else if (j->rc == 0 && cj && ex == 0) /* pgbench's logs came back: folded here */
        ld = mtb_clients_pgbench_fold(j->dir, share, cj, fold, sizeof fold);
    free(lp);
    free(cp);
    struct mtb_load_view lv;
    mtb_load_view_read(ld, &lv);
    double measured = mtb_or0(lv.duration_s);
    if (j->rc != 0)
        snprintf(why, whylen, "%s", j->err);
    else if (!cj)
        snprintf(why, whylen, "no client.json came back (exit %d; see %s/agent.log)", j->res.exit_status, j->dir);
    else if ((ex != 0 && (l->tool || ex != MTL_EXIT_ERRORS)) || !ld)
        snprintf(why, whylen, "%s failed there (%s; see %s/%s)", tool,
                 fold[0] ? fold : co.exit_text ? co.exit_text : "no load.json",
                 j->dir, l->tool ? "pgbench.log" : "agent.log");
    else if (co.late_s > late_limit)
        snprintf(why, whylen, "started %.6f s late (the limit is %.6f s; --late-limit)", co.late_s, late_limit);
    else if (measured < 0.95 * l->wl.duration)
        snprintf(why, whylen, "ended early: measured %.2f s of %.2f s", measured, l->wl.duration);
    json_t *info = j->res.info ? j->res.info : ssh()->info(j->s);
    struct mtb_host_view hv;
    mtb_host_view_read(info, &hv);
    json_object_set(ci, "identity", info ? info : json_null());
    json_object_set_new(ci, "clock_offset_s", json_real(hv.clock_offset_s));
    if (cj) {
        json_object_set_new(ci, "late_s", json_real(co.late_s));
        json_object_set_new(ci, "cpu", json_pack("{s:f,s:f}", "user_s", co.cpu_user_s, "sys_s", co.cpu_sys_s));
    }
    if (ld) {
        json_object_set_new(ci, "client_bound", json_boolean(lv.client_bound));
        json_object_set(ci, "totals", lv.totals);
        json_object_set(ci, "latency_us", lv.lat[MTB_LAT_CORRECTED].j);
        json_object_set_new(ci, "duration_s", json_real(measured));
    }
    json_object_set_new(ci, "dir", json_string(j->dir));
    json_object_set_new(ci, "status", json_string(why[0] ? "failed" : "ok"));
    if (why[0])
        json_object_set_new(ci, "error", json_string(why));
    if (ld)
        json_array_append_new(loads, ld);
    json_decref(cj);
    return why[0] ? -1 : 0;
}

/* Client host i's job: its share of the connections and the rate, and the far
 * `client-load` that starts at the instant `start` (on our clock; on its own
 * with its offset); its line in clients. @return 0, or 1 with why in j->err */
static int job_prepare(struct mtb_clients *c, int i, const struct mtb_client_load *l, const char *dir, double start,
                       struct job *j, json_t *clients)
{
    const struct mtb_workload *w = &l->wl;
    int bad = 0;
    long conns = w->conns / c->n + (i < w->conns % c->n);
    long threads = w->threads < conns ? w->threads : conns;
    struct mtb_host_view hv;
    mtb_host_view_read(ssh()->info(c->s[i]), &hv);
    double off = hv.clock_offset_s;
    j->s = c->s[i];
    j->dir = mtb_asprintf("%s/%s", dir, c->hosts[i]);
    mtb_argv_push(&j->argv, "client-load");
    mtb_argv_pushf(&j->argv, "--start-at=%.6f", start + off);
    mtb_argv_push(&j->argv, "--out={out}");
    struct mtb_workload *share = &j->share; /* this host's share of the connections and the rate */
    *share = *w;
    share->conns = conns;
    share->threads = threads > 0 ? threads : 1;
    share->rate = w->rate > 0 ? w->rate * (double)conns / (double)w->conns : 0;
    if (l->tool) { /* pgbench */
        if (mtb_clients_pgbench_argv(l, share, &j->argv, j->err, sizeof j->err) != 0)
            bad = 1;
    } else {
        mtb_argv_push(&j->argv, "--");
        mtb_argv_pushf(&j->argv, "--server=%s", l->server);
        mtb_argv_pushf(&j->argv, "--protocol=%s", l->protocol ? l->protocol : "memcache");
        mtb_workload_mtload_flags(share, 0, &j->argv);
        mtb_workload_mtload_flags(share, 1, &j->argv);
        /* each its own key and arrival sequence, drawn from the run's seed (capacity's repeats each their own;
         * the default seed 1 gives 1000 + i as before) */
        mtb_argv_pushf(&j->argv, "--seed=%llu", ((unsigned long long)w->seed * 1000 + (unsigned)i) % 4000000000000000000ULL);
    }
    j->deadline = (start - mtb_wall()) + w->warmup + w->duration + 60;
    json_array_append_new(clients, json_pack("{s:s,s:I,s:f}", "host", c->hosts[i], "conns", (json_int_t)conns,
                                             "rate", share->rate));
    return bad;
}

json_t *mtb_clients_run(struct mtb_clients *c, const struct mtb_client_load *l, const char *dir, char *err,
                        size_t errlen)
{
    const struct mtb_workload *w = &l->wl;
    if (w->conns < c->n) {
        snprintf(err, errlen, "%ld connections cannot be shared by %d client hosts (at least one each)", w->conns, c->n);
        return NULL;
    }
    struct job *jobs = mtb_calloc((size_t)c->n, sizeof *jobs);
    double rtt = 0;
    for (int i = 0; i < c->n; i++) {
        struct mtb_host_view hv;
        mtb_host_view_read(ssh()->info(c->s[i]), &hv);
        rtt = fmax(rtt, hv.clock_rtt_s);
    }
    /* the instant: far enough ahead for every exec to be under way */
    double start = mtb_wall() + 1.0 + 4 * rtt * (double)c->n;
    double late_limit = l->late_limit > 0 ? l->late_limit : 0.25;
    json_t *clients = json_array(), *loads = json_array(), *merged = NULL;
    int bad = 0;
    for (int i = 0; i < c->n && !bad; i++)
        if ((bad = job_prepare(c, i, l, dir, start, &jobs[i], clients)))
            snprintf(err, errlen, "%s", jobs[i].err);
    if (bad) {
        json_decref(clients);
        json_decref(loads);
        for (int i = 0; i < c->n; i++) {
            mtb_argv_free(&jobs[i].argv);
            free(jobs[i].dir);
        }
        free(jobs);
        return NULL;
    }
    pthread_t *th = mtb_calloc((size_t)c->n, sizeof *th);
    for (int i = 0; i < c->n; i++)
        if (pthread_create(&th[i], NULL, job_main, &jobs[i]) != 0) {
            jobs[i].rc = -1;
            snprintf(jobs[i].err, sizeof jobs[i].err, "cannot start a thread");
            th[i] = 0;
        }
    for (int i = 0; i < c->n; i++)
        if (th[i])
            pthread_join(th[i], NULL);
    free(th);
    err[0] = 0;
    for (int i = 0; i < c->n; i++) {
        char why[MTB_ERRLEN];
        if (client_result(&jobs[i], l, &jobs[i].share, late_limit, json_array_get(clients, (size_t)i), loads, why,
                          sizeof why) != 0 && !err[0])
            snprintf(err, errlen, "client host %s: %s", c->hosts[i], why);
    }
    if (!err[0]) {
        merged = mtb_clients_merge(loads, err, errlen);
        if (merged) {
            json_object_set(merged, "clients", clients);
            json_object_set_new(merged, "start", json_pack("{s:f,s:s}", "controller_wall_s", start, "how",
                                                           "one instant on the controller's clock, passed to each "
                                                           "host on its own clock (offset measured at connect)"));
            /* DIR/load.hlog: the hosts' interval logs added (mtload's); pgbench's
             * logs have no intervals: the merged histogram as DIR/driver.hlog */
            if (l->tool)
                mtb_hlog_from_load(dir, merged);
            else if (mtb_hlog_merge_hosts(clients, dir) == 0)
                json_object_set_new(merged, "hlog", json_string("load.hlog"));
        }
    }
    /* whatever happened, the per-host view is kept next to the results */
    char *cp = mtb_asprintf("%s/clients.json", dir);
    json_dump_file(clients, cp, JSON_INDENT(2));
    free(cp);
    json_decref(clients);
    json_decref(loads);
    for (int i = 0; i < c->n; i++) {
        mtb_argv_free(&jobs[i].argv);
        free(jobs[i].dir);
        json_decref(jobs[i].res.info);
    }
    free(jobs);
    return merged;
}

/* ---- the client host's side ------------------------------------------------ */

int mtb_clients_far_load(double at, const char *out, const char *tool, long kv_keys, char *const *args, int nargs)
{
    mtb_mkdir_p(out);
    int pg = !strcmp(tool, "pgbench");
    struct mtb_argv a = { 0 };
    if (pg) /* the system's pgbench (Debian's postgresql-client), every transaction logged */
        mtb_argv_push(&a, "pgbench");
    else
        mtb_argv_pushf(&a, "%s/build/mtload", mtb_root());
    for (int k = 0; k < nargs; k++)
        mtb_argv_push(&a, args[k]);
    if (pg) {
        mtb_argv_push(&a, "-l");
        mtb_argv_push(&a, "--log-prefix=pgbench_tx"); /* in out: its working directory */
        char g[4096], s[4096];
        if (kv_keys > 0 && mtb_pgbench_kv_write(out, kv_keys, g, s, sizeof g) != 0) {
            fprintf(stderr, "mtebench client-load: cannot write the key-value scripts in %s\n", out);
            mtb_argv_free(&a);
            return 1;
        }
    } else {
        mtb_argv_pushf(&a, "--json=%s/load.json", out);
        mtb_argv_pushf(&a, "--hlog=%s/load.hlog", out);
        mtb_argv_push(&a, "--quiet");
    }
    char log[4096];
    snprintf(log, sizeof log, "%s/%s.log", out, tool);
    /* wait for the instant on this host's clock */
    if (at > 0) {
        struct timespec ts = { (time_t)at, (long)((at - (double)(time_t)at) * 1e9) };
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR && !mtb_proc_interrupted)
            ;
    }
    double t0 = mtb_wall();
    struct mtb_spawn sp = { .argv = a.v, .log_path = log, .cwd = pg ? out : NULL }; /* pgbench's -f kv-*.sql */
    struct rusage ru = { 0 };
    int st = mtb_proc_run_ru(&sp, 86400, &ru);
    double t1 = mtb_wall();
    char desc[64];
    json_t *cj = json_pack("{s:f,s:f,s:f,s:f,s:i,s:s,s:f,s:f}", "start_at", at, "started", t0, "late_s",
                           at > 0 ? t0 - at : 0.0, "ended", t1, "exit", st == 0 ? 0 : st < 0 ? -1 : (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)),
                           "exit_text", st < 0 ? strerror(-st) : mtb_proc_describe(st, desc, sizeof desc), "cpu_user_s",
                           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, "cpu_sys_s",
                           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    char path[4096];
    snprintf(path, sizeof path, "%s/client.json", out);
    char *text = json_dumps(cj, JSON_INDENT(2));
    mtb_write_atomic(path, text, strlen(text));
    free(text);
    json_decref(cj);
    mtb_argv_free(&a);
    return st == 0 ? 0 : 1;
}
