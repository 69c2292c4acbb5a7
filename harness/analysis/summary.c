/* summary.c - see summary.h */
#include "lib/jsonx.h"
#include "analysis/summary.h"
#include "analysis/summary_series.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/allocator.h"
#include "analysis/stats.h"
#include "analysis/seqstop.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONF 0.95
#define NOISY 0.05        /* relative CI half-width above which we warn */
#define BOOT_MIN 50       /* from this many runs on, bootstrap CIs for medians */
#define BOOT_ITERS 2000
#define SEED 20260131u

/* JSON cannot carry NaN or infinities: those become null. */
static json_t *jreal(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* Records of several hosts (a fleet's report): each host's runs are its own
 * configurations, paired on that host only, and every row names the host. */
static int per_host;

/* What makes two runs the same configuration apart from variant/mode: the
 * pair key of the one pairing rule (record.h), and the host in a fleet's report. */
static char *base_key(json_t *rec)
{
    char *k = mtb_record_pair_key(rec);
    if (!k) /* an incomplete config (a record not loaded through the checks): a configuration of its own */
        k = mtb_asprintf("incomplete#%p", (void *)rec);
    if (!per_host)
        return k;
    char *h = mtb_asprintf("%s|host=%s", k, mtb_record_host(rec));
    free(k);
    return h;
}

/* 1 if records come from more than one host */
static int several_hosts(json_t *records)
{
    const char *first = NULL;
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        const char *h = mtb_record_host(rec);
        if (!first)
            first = h;
        else if (strcmp(first, h))
            return 1;
    }
    return 0;
}

/* the host of a summary row, when the report has several */
void mtb_summary_set_host(json_t *o, json_t *rec)
{
    if (per_host)
        json_object_set_new(o, "host", json_string(mtb_record_host(rec)));
}

/* The same, without the kernel: what two kernels are compared on. */
static char *nokernel_key(json_t *rec)
{
    struct mtb_rec_config c;
    if (mtb_rec_config_get(rec, &c, NULL, 0) != 0)
        return mtb_strdup("");
    char *wl = mtb_workload_key(c.workload);
    char lab[128];
    char *k = mtb_asprintf("%s|%s|%s|%s|%s", c.service, c.platform, mtb_label_of(c.variant, c.allocator, lab, sizeof lab),
                           c.mode, wl ? wl : "");
    free(wl);
    return k;
}

static char *config_key(json_t *rec)
{
    struct mtb_rec_config c;
    char *b = base_key(rec);
    char *k = mtb_rec_config_get(rec, &c, NULL, 0) == 0 ? mtb_asprintf("%s|%s|%s", b, c.variant, c.mode)
                                                         : mtb_strdup(b);
    free(b);
    return k;
}

/* Median with a CI as {"median","lo","hi","conf","method","rel_halfwidth"}.
 * Below BOOT_MIN values the distribution-free order-statistic interval (exact
 * coverage, stated in "conf"; the widest one, [min, max], when there are too
 * few runs for CONF); from BOOT_MIN on a percentile bootstrap. */
static json_t *med_ci(const double *x, size_t n)
{
    struct mtb_stats_ci ci;
    double ach = 0;
    const char *method = "order statistics";
    if (n == 0)
        return json_null();
    if (n >= BOOT_MIN) {
        if (mtb_stats_bootstrap_median_ci(x, n, CONF, BOOT_ITERS, SEED, &ci) != 0)
            return json_null();
        ach = CONF;
        method = "percentile bootstrap";
    } else if (mtb_stats_median_ci(x, n, CONF, &ci, &ach) != 0) {
        return json_null();
    }
    json_t *o = json_object();
    json_object_set_new(o, "median", jreal(ci.est));
    json_object_set_new(o, "lo", jreal(ci.lo));
    json_object_set_new(o, "hi", jreal(ci.hi));
    json_object_set_new(o, "conf", json_real(ach));
    json_object_set_new(o, "method", json_string(method));
    json_object_set_new(o, "rel_halfwidth", n >= 2 ? jreal(mtb_stats_rel_halfwidth(&ci)) : json_null());
    return o;
}

/* The ratio CI of paired values (median of the pairwise ratios), same shape.
 * seq: REPS=auto's "sequential" block of the records, or NULL. With seq the
 * interval is built at the level of the rule's looks (seqstop.h) by the
 * method the pairs' shape chooses, as the rule itself did (mtb_stats_pair_ci:
 * t, signed-rank or order statistics; "shape" says why), and "conf" is the
 * simultaneous level over the looks: 95% when the interval reaches the
 * looks' level, else the union bound 1 - L (1 - achieved). Without
 * it (a fixed REPS=N) the distribution-free order-statistic interval at 95%:
 * at a single look the shape check's choice was measured to undercover under
 * strong skew (docs/STATISTICS.md). */
static json_t *ratio_ci_seq(const double *num, const double *den, size_t n, json_t *seq)
{
    struct mtb_stats_ci ci;
    double looks = seq ? mtb_jnum(seq, "looks") : NAN, lconf = seq ? mtb_jnum(seq, "look_conf") : NAN;
    int sequential = isfinite(lconf) && lconf > 0 && lconf < 1 && looks >= 1;
    double conf = sequential ? lconf : CONF, ach = 0;
    struct mtb_stats_shape sh;
    int rc;
    if (n == 0)
        return json_null();
    if (sequential)
        rc = mtb_stats_pair_ci(num, den, n, conf, &ci, &ach, &sh);
    else {
        double *r = mtb_calloc(n, sizeof *r);
        for (size_t i = 0; i < n; i++)
            r[i] = num[i] / den[i];
        rc = mtb_stats_ratio_ci(num, den, n, conf, 0, SEED, &ci);
        if (rc == 0)
            mtb_stats_median_ci(r, n, conf, &ci, &ach); /* the same interval, with its achieved confidence */
        free(r);
    }
    if (rc != 0)
        return json_null();
    if (sequential) {
        /* at the looks' level: the 95% they were set for together (seqstop.c simulates that level);
         * short of it (too few pairs for order statistics): what the union bound still gives */
        double sim = ach >= lconf - 1e-9 ? MTB_SEQ_CONF : 1 - looks * (1 - ach);
        ach = sim > 0 ? sim : 0;
    }
    json_t *o = json_object();
    json_object_set_new(o, "median", jreal(ci.est));
    json_object_set_new(o, "lo", jreal(ci.lo));
    json_object_set_new(o, "hi", jreal(ci.hi));
    json_object_set_new(o, "conf", json_real(ach));
    json_object_set_new(o, "rel_halfwidth", n >= 2 ? jreal(mtb_stats_rel_halfwidth(&ci)) : json_null());
    if (sequential) {
        json_object_set_new(o, "method", json_sprintf("%s%s, sequential (one level for all looks of REPS=auto, 95%% together)",
                                                      mtb_stats_pair_method_name(sh.method),
                                                      n < STATS_SHAPE_MIN && sh.method == STATS_PAIR_T
                                                          ? " (too few pairs to check their shape)" : ""));
        json_object_set_new(o, "look_conf", json_real(conf));
        if (n >= STATS_SHAPE_MIN)
            json_object_set_new(o, "shape", json_pack("{s:i,s:o,s:o,s:o,s:i}", "pairs", (int)n, "skew",
                                                      jreal(sh.skew),
                                                      "medcouple", jreal(sh.medcouple), "medcouple_limit",
                                                      jreal(sh.mc_limit), "outliers", (int)sh.outliers));
    } else
        json_object_set_new(o, "method", json_string("order statistics of pairwise ratios"));
    return o;
}

json_t *mtb_summary_ratio_ci(const double *num, const double *den, size_t n) { return ratio_ci_seq(num, den, n, NULL); }


/* values of a percentile that are present */
static size_t finite_of(const double *x, size_t n, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            out[m++] = x[i];
    return m;
}

static const char *cfg_name(const struct mtb_rec_config *c, char *buf, size_t n)
{
    char lab[128];
    snprintf(buf, n, "%s %s/%s%s%s", c->service, mtb_label_of(c->variant, c->allocator, lab, sizeof lab), c->mode,
             strcmp(c->kernel, "host") ? ", kernel " : "", strcmp(c->kernel, "host") ? c->kernel : "");
    return buf;
}

/* text, once, into the environment's list key */
static void env_add(json_t *env, const char *key, const char *text) { mtb_jadd_unique(json_object_get(env, key), text); }

/* what a record says of its machine, platform, kernel and build */
static void env_machine(json_t *env, const struct mtb_rec_env *e)
{
    env_add(env, "cpu_model", e->cpu_model);
    if (e->cpus >= 0) {
        char *s = mtb_asprintf("%lld", e->cpus);
        env_add(env, "cpus", s);
        free(s);
    }
    char *ks = mtb_asprintf("%s: %s %s (%s)", *e->kernel_name ? e->kernel_name : "?", e->uname_r, e->uname_v, e->machine);
    env_add(env, "kernels", ks);
    free(ks);
    char *ps = mtb_asprintf("%s%s", e->platform, e->emulated ? " (emulated: not hardware timing)" : "");
    env_add(env, "platforms", ps);
    free(ps);
    env_add(env, "qemu", e->qemu);
    if (*e->build_key) {
        char *bs = mtb_asprintf("%s %s %s %s: %.12s", e->build_service, e->build_version, e->build_variant,
                                e->build_target, e->build_key);
        env_add(env, "builds", bs);
        free(bs);
    }
    env_add(env, "mtebench_versions", e->mtebench_version);
}

/* a run's environment block: provenance and the quiet check */
static void env_provenance(json_t *env, const struct mtb_rec_env *e)
{
    env_add(env, "midr", e->midr);
    env_add(env, "microcode", e->microcode);
    env_add(env, "kernel_cmdline", e->kernel_cmdline);
    env_add(env, "glibc", e->glibc);
    for (size_t i = 0; i < e->ncompilers; i++) {
        char *cs = mtb_asprintf("%s: %s", e->compilers[i].name, e->compilers[i].version);
        env_add(env, "compilers", cs);
        free(cs);
    }
    char *ms = mtb_asprintf("MTE %s (arm64.nomte %s, HWCAP2_MTE %s)",
                            e->mte_enabled ? "enabled" : "not enabled in this kernel", e->arm64_nomte ? "set" : "not set",
                            e->hwcap2_mte < 0 ? "n/a" : e->hwcap2_mte ? "yes" : "no");
    env_add(env, "mte", ms);
    free(ms);
    if (e->quiet)
        env_add(env, "quiet", "quiet (no finding)");
    size_t wi;
    json_t *wv;
    json_array_foreach(e->quiet_warnings, wi, wv) env_add(env, "quiet", json_string_value(wv));
}

/* Everything the records say of where and how they ran, each text once. */
static json_t *environment(json_t *records)
{
    static const char *const lists[] = { "cpu_model", "cpus", "kernels", "platforms", "qemu", "builds",
                                         "mtebench_versions", "midr", "microcode", "kernel_cmdline", "glibc",
                                         "compilers", "mte", "pinning", "quiet", NULL };
    json_t *env = json_object();
    for (const char *const *l = lists; *l; l++)
        json_object_set_new(env, *l, json_array());
    const char *first = NULL, *last = NULL;
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        struct mtb_rec_env e;
        mtb_rec_env_read(rec, &e);
        env_machine(env, &e);
        if (e.has_provenance)
            env_provenance(env, &e);
        if (e.has_affinity) {
            char *as = mtb_asprintf("service on CPUs %s (asked %s), client on %s (asked %s)",
                                    e.service_cpus ? e.service_cpus : "?", e.service_requested,
                                    e.client_cpus ? e.client_cpus : "?", e.client_requested);
            env_add(env, "pinning", as);
            free(as);
        }
        if (e.started && (!first || strcmp(e.started, first) < 0))
            first = e.started;
        if (e.finished && (!last || strcmp(e.finished, last) > 0))
            last = e.finished;
        mtb_rec_env_free(&e);
    }
    json_object_set_new(env, "first_started", first ? json_string(first) : json_null());
    json_object_set_new(env, "last_finished", last ? json_string(last) : json_null());
    return env;
}

/* "noisy" and "low confidence" notes of one configuration */
static void config_warnings(json_t *o, const char *name, json_t *warnings)
{
    char noisy[512] = "";
    size_t len = 0;
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++) {
        double hw = mtb_jnum(json_object_get(o, mtb_run_metrics[m].key), "rel_halfwidth");
        if (!isnan(hw) && hw > NOISY && len < sizeof noisy - 40)
            len += (size_t)snprintf(noisy + len, sizeof noisy - len, "%s%s ±%.1f%%", len ? ", " : "",
                                    mtb_run_metrics[m].label, isinf(hw) ? INFINITY : 100 * hw);
    }
    json_object_set_new(o, "noisy", json_boolean(len > 0));
    if (len)
        json_array_append_new(warnings, json_sprintf("%s: noisy: add repetitions (CI half-width above 5%%: %s)",
                                                     name, noisy));
    int runs = (int)json_integer_value(json_object_get(o, "runs"));
    double conf = mtb_jnum(json_object_get(o, "ops_per_sec"), "conf");
    if (runs == 1)
        json_array_append_new(warnings, json_sprintf("%s: low confidence: a single run, no interval; "
                                                     "6 runs are needed for a 95%% interval", name));
    else if (!isnan(conf) && conf < CONF - 1e-9)
        json_array_append_new(warnings, json_sprintf("%s: low confidence: %d runs give [min - max] intervals with "
                                                     "%.1f%% confidence; 6 runs are needed for 95%%",
                                                     name, runs, 100 * conf));
    if (json_is_true(json_object_get(o, "client_bound")))
        json_array_append_new(warnings, json_sprintf("%s: client-bound: the load generator saturated a CPU; "
                                                     "figures measure the client", name));
    if (json_is_true(json_object_get(o, "errors_over_limit")))
        json_array_append_new(warnings, json_sprintf("%s: errors: in some run more requests than the limit (0.1%% by "
                                                     "default) were answered with an error, lost or never sent", name));
}


/* The pair metrics of tagged series t against its baseline b: the runs of
 * the same repetition (the pairing rule of record.h; both series share the
 * pair key), one median-of-ratios CI per metric of the table. */
void mtb_summary_pair_metrics(json_t *o, const struct series *t, const struct series *b, json_t *seq, size_t *npairs)
{
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        double num[MAXRUNS], den[MAXRUNS];
        size_t np = 0, nv = 0;
        for (size_t x = 0; x < t->n; x++)
            for (size_t y = 0; y < b->n; y++) {
                if (t->rep[x] != b->rep[y] || !(OPS(t)[x] > 0) || !(OPS(b)[y] > 0) || np >= MAXRUNS)
                    continue;
                np++;
                double tv = t->val[d->of][x], bv = b->val[d->of][y];
                double nu = d->tagged_num ? tv : bv, de = d->tagged_num ? bv : tv;
                if (isfinite(nu) && de > 0 && isfinite(de)) {
                    num[nv] = nu;
                    den[nv] = de;
                    nv++;
                }
            }
        /* the metric REPS=auto decided on (the first) at the level of its looks (seq: its block) */
        json_object_set_new(o, d->key, ratio_ci_seq(num, den, nv, m == 0 ? seq : NULL));
        if (m == 0)
            *npairs = np;
    }
}

/* "slowdown = baseline ops/s / tagged ops/s; p99_ratio = tagged p99 / baseline p99" */
static char *pair_definition(void)
{
    char *def = mtb_strdup("per interleaved pair of a tagged run and its baseline (paired by repetition), median of "
                           "the pairs:");
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        const char *of = mtb_run_metrics[d->of].label;
        char *x = mtb_asprintf("%s%s %s = %s %s / %s %s", def, m ? ";" : "", d->key, d->tagged_num ? "tagged" : "baseline",
                               of, d->tagged_num ? "baseline" : "tagged", of);
        free(def);
        def = x;
    }
    return def;
}

static json_t *overheads_of(struct series *ss, size_t ns, json_t *warnings)
{
    json_t *overheads = json_array();
    char *def = pair_definition();
    for (size_t j = 0; j < ns; j++) {
        struct series *t = &ss[j];
        const struct mtb_rec_config *tc = &t->cfg;
        if (mtb_rec_config_is_baseline(tc))
            continue;
        struct series *b = NULL;
        for (size_t k = 0; k < ns; k++)
            if (!strcmp(ss[k].bkey, t->bkey) && mtb_rec_config_is_baseline(&ss[k].cfg))
                b = &ss[k];
        if (!b)
            continue;
        char lab[128], blab[128];
        snprintf(blab, sizeof blab, "%s/off", mtb_label_of(b->cfg.variant, b->cfg.allocator, lab, sizeof lab));
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:s}", "service", tc->service, "variant",
                              mtb_label_of(tc->variant, tc->allocator, lab, sizeof lab), "allocator", tc->allocator,
                              "mode", tc->mode, "platform", tc->platform, "kernel", tc->kernel, "workload",
                              tc->workload, "baseline", blab, "definition", def);
        mtb_summary_set_host(o, t->first);
        size_t np = 0;
        mtb_summary_pair_metrics(o, t, b, json_object_get(t->first, "sequential"), &np);
        if (np == 0) {
            json_decref(o);
            continue;
        }
        json_object_set_new(o, "pairs", json_integer((json_int_t)np));
        struct mtb_stats_mwu mw;
        json_object_set_new(o, "mann_whitney_p", mtb_stats_mann_whitney(OPS(t), t->n, OPS(b), b->n, &mw) == 0
                                                     ? json_real(mw.p) : json_null());
        char name[256];
        double hw = mtb_jnum(json_object_get(o, "slowdown"), "rel_halfwidth");
        json_t *seq = json_object_get(t->first, "sequential");
        if (json_is_object(seq)) {
            /* REPS=auto: what the rule reached */
            double prec = mtb_jnum(seq, "precision");
            json_object_set_new(o, "sequential", json_pack("{s:f,s:b,s:f}", "precision", prec, "reached",
                                                          !isnan(hw) && hw <= prec, "max_time_s",
                                                          mtb_jnum(seq, "max_time_s")));
            if (!(hw <= prec))
                json_array_append_new(warnings, json_sprintf("%s overhead: REPS=auto did not reach +-%.1f%% (+-%.1f%% "
                                                             "after %d pairs): a noisy machine; see the quiet check",
                                                             cfg_name(tc, name, sizeof name), 100 * prec, 100 * hw, (int)np));
        } else if (!isnan(hw) && hw > NOISY)
            json_array_append_new(warnings, json_sprintf("%s overhead: noisy: add repetitions (CI half-width ±%.1f%%)",
                                                         cfg_name(tc, name, sizeof name), 100 * hw));
        json_array_append_new(overheads, o);
    }
    free(def);
    return overheads;
}

/* Geometric mean of the slowdowns across services and workloads, for each
 * (variant, mode, platform, kernel). */
static json_t *geomeans_of(json_t *overheads)
{
    json_t *out = json_array();
    size_t n = json_array_size(overheads);
    char *done = mtb_calloc(n + 1, 1);
    double *x = mtb_calloc(n + 1, sizeof *x);
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        json_t *a = json_array_get(overheads, i);
        json_t *members = json_array();
        size_t m = 0;
        for (size_t j = i; j < n; j++) {
            json_t *b = json_array_get(overheads, j);
            if (done[j] || strcmp(mtb_jstr(a, "variant"), mtb_jstr(b, "variant")) || strcmp(mtb_jstr(a, "mode"), mtb_jstr(b, "mode")) ||
                strcmp(mtb_jstr(a, "platform"), mtb_jstr(b, "platform")) || strcmp(mtb_jstr(a, "kernel"), mtb_jstr(b, "kernel")))
                continue;
            done[j] = 1;
            double v = mtb_jnum(json_object_get(b, "slowdown"), "median");
            if (!(v > 0))
                continue;
            x[m++] = v;
            json_array_append_new(members, json_sprintf("%s %s", mtb_jstr(b, "service"),
                                                        mtb_jstr(json_object_get(b, "workload"), "mix")));
        }
        struct mtb_stats_ci ci;
        if (m == 0 || mtb_stats_geomean_ci(x, m, CONF, BOOT_ITERS, SEED, &ci) != 0) {
            json_decref(members);
            continue;
        }
        json_t *g = json_pack("{s:s,s:s,s:s,s:s,s:i,s:o}", "variant", mtb_jstr(a, "variant"), "mode", mtb_jstr(a, "mode"),
                              "platform", mtb_jstr(a, "platform"), "kernel", mtb_jstr(a, "kernel"), "n", (int)m, "of", members);
        json_t *c = json_object();
        json_object_set_new(c, "geomean", jreal(ci.est));
        json_object_set_new(c, "lo", jreal(ci.lo));
        json_object_set_new(c, "hi", jreal(ci.hi));
        json_object_set_new(c, "conf", json_real(m >= 2 ? CONF : 0));
        json_object_set_new(c, "method", json_string("geometric mean, bootstrap-t on the log scale"));
        json_object_set_new(g, "slowdown", c);
        json_array_append_new(out, g);
    }
    free(done);
    free(x);
    return out;
}

/* Kernel comparisons: the same service, platform, workload, variant and mode
 * under two kernels A (the reference) and B, their runs paired by
 * repetition as a tagged run is paired with its baseline: ops_ratio = B
 * ops/s ÷ A ops/s and delta = ops_ratio − 1 (median of the pairs with its
 * CI), every pair metric of the table with B in the tagged run's place and A
 * in the baseline's (slowdown = A ops/s ÷ B ops/s, p99_ratio = B p99 ÷ A p99,
 * ...), and Mann–Whitney U on the runs' throughput. */
static json_t *kernel_pair(const struct series *A, const struct series *B)
{
    const struct mtb_rec_config *ca = &A->cfg, *cb = &B->cfg;
    double num[MAXRUNS], den[MAXRUNS];
    size_t np = 0;
    for (size_t x = 0; x < B->n; x++)
        for (size_t y = 0; y < A->n; y++)
            if (B->rep[x] == A->rep[y] && OPS(A)[y] > 0 && np < MAXRUNS) {
                num[np] = OPS(B)[x];
                den[np] = OPS(A)[y];
                np++;
            }
    json_t *ratio = mtb_summary_ratio_ci(num, den, np);
    json_t *delta = json_null();
    if (json_is_object(ratio)) {
        delta = json_object();
        json_object_set_new(delta, "median", jreal(mtb_jnum(ratio, "median") - 1));
        json_object_set_new(delta, "lo", jreal(mtb_jnum(ratio, "lo") - 1));
        json_object_set_new(delta, "hi", jreal(mtb_jnum(ratio, "hi") - 1));
        json_object_set(delta, "conf", json_object_get(ratio, "conf"));
    }
    struct mtb_stats_mwu mw;
    char lab[128];
    int have_p = mtb_stats_mann_whitney(OPS(B), B->n, OPS(A), A->n, &mw) == 0;
    int emu = mtb_record_emulated(A->first);
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:O,s:b,s:s,s:s,s:i,s:i,s:o,s:o,s:i,s:o,s:o,s:o,s:b}", "service",
                          ca->service, "platform", ca->platform, "variant",
                          mtb_label_of(ca->variant, ca->allocator, lab, sizeof lab), "mode", ca->mode, "workload",
                          ca->workload, "emulated", emu, "kernel_a", ca->kernel, "kernel_b", cb->kernel, "runs_a", (int)A->n, "runs_b", (int)B->n, "ops_a",
                          jreal(mtb_stats_median(OPS(A), A->n)), "ops_b", jreal(mtb_stats_median(OPS(B), B->n)), "pairs",
                          (int)np, "ops_ratio", ratio, "delta", delta, "mann_whitney_p",
                          have_p ? json_real(mw.p) : json_null(), "significant", have_p && mw.p < 0.05);
    size_t pairs = 0;
    mtb_summary_pair_metrics(o, B, A, NULL, &pairs);
    json_object_set_new(o, "note",
                        emu ? json_sprintf("measured on platform %s (emulated): under TCG/emulation no kernel "
                                           "difference is expected; the TCMA1 effect shows only on MTE hardware",
                                           ca->platform)
                            : json_sprintf("measured on platform %s", ca->platform));
    return o;
}

/* each kernel's overhead of comparison o's configuration (slowdown_a, slowdown_b), where there is one */
static void kernel_overheads(json_t *o, json_t *overheads)
{
    size_t i;
    json_t *ov;
    json_array_foreach(overheads, i, ov)
    {
        if (strcmp(mtb_jstr(ov, "service"), mtb_jstr(o, "service")) || strcmp(mtb_jstr(ov, "variant"), mtb_jstr(o, "variant")) ||
            strcmp(mtb_jstr(ov, "mode"), mtb_jstr(o, "mode")) || strcmp(mtb_jstr(ov, "platform"), mtb_jstr(o, "platform")) ||
            !mtb_workload_equal(json_object_get(ov, "workload"), json_object_get(o, "workload")))
            continue;
        if (!strcmp(mtb_jstr(ov, "kernel"), mtb_jstr(o, "kernel_a")))
            json_object_set(o, "slowdown_a", json_object_get(ov, "slowdown"));
        if (!strcmp(mtb_jstr(ov, "kernel"), mtb_jstr(o, "kernel_b")))
            json_object_set(o, "slowdown_b", json_object_get(ov, "slowdown"));
    }
}

/* Every pair of kernels of one configuration. Kernel A (the reference) is
 * ref where ref is one of the two; else "host", then "stock", lead; else the
 * first in sort order. */
static json_t *kernels_of(struct series *ss, size_t ns, json_t *overheads, const char *ref)
{
    json_t *out = json_array();
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++) {
            const char *ka = ss[a].cfg.kernel, *kb = ss[b].cfg.kernel;
            if (a == b || strcmp(ss[a].nkkey, ss[b].nkkey) || strcmp(ka, kb) >= 0)
                continue;
            int swap = ref && (!strcmp(ka, ref) || !strcmp(kb, ref))
                           ? !strcmp(kb, ref)
                           : !strcmp(kb, "host") || (!strcmp(kb, "stock") && strcmp(ka, "host"));
            json_t *o = kernel_pair(swap ? &ss[b] : &ss[a], swap ? &ss[a] : &ss[b]);
            kernel_overheads(o, overheads);
            json_array_append_new(out, o);
        }
    return out;
}

/* A record's perf events per request (perf.per_request). */
static json_t *perf_of(json_t *rec)
{
    return json_incref(json_object_get(json_object_get(rec, "perf"), "per_request"));
}

/* A record's tag operations per request, from the service's own counters
 * (objtag_ops, objtag_granules: the objtag variants) divided by the requests
 * it counted over the same window (memcached: cmd_get + cmd_set; nginx:
 * stub_status's requests; RocksDB: db_bench's operations, "requests" too;
 * PostgreSQL: transactions, xact_commit + xact_rollback). */
static json_t *tag_ops_of(json_t *rec)
{
    json_t *d = json_object_get(json_object_get(rec, "service_counters"), "delta");
    json_t *ops = json_object_get(d, "objtag_ops"), *gr = json_object_get(d, "objtag_granules");
    double req = mtb_jnum(d, "cmd_get") + mtb_jnum(d, "cmd_set");
    if (!(req > 0))
        req = mtb_jnum(d, "requests");
    if (!(req > 0))
        req = mtb_jnum(d, "xact_commit") + mtb_jnum(d, "xact_rollback");
    if (!json_is_integer(ops) || !json_is_integer(gr) || !(req > 0))
        return NULL;
    return json_pack("{s:f,s:f}", "tag_ops", (double)json_integer_value(ops) / req, "granules_tagged",
                     (double)json_integer_value(gr) / req);
}

/* The median over a configuration's runs of each figure per request that
 * `of` gives for a record (a new reference, or NULL); NULL when no run had any. */
static json_t *per_request(json_t *records, const char *key, json_t *(*of)(json_t *))
{
    json_t *vals = json_object();
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        if (strcmp(mtb_jstr(rec, "status"), "ok"))
            continue;
        char *k = config_key(rec);
        int same = !strcmp(k, key);
        free(k);
        if (!same)
            continue;
        json_t *pr = of(rec);
        if (!json_object_size(pr)) {
            json_decref(pr);
            continue;
        }
        const char *ev;
        json_t *v;
        json_object_foreach(pr, ev, v)
        {
            if (!json_is_number(v))
                continue;
            json_t *a = json_object_get(vals, ev);
            if (!a)
                json_object_set_new(vals, ev, a = json_array());
            json_array_append_new(a, json_real(json_number_value(v)));
        }
        json_decref(pr);
    }
    if (!json_object_size(vals)) {
        json_decref(vals);
        return NULL;
    }
    json_t *out = json_object();
    const char *ev;
    json_t *a;
    json_object_foreach(vals, ev, a)
    {
        double x[MAXRUNS];
        size_t n = 0, j;
        json_t *v;
        json_array_foreach(a, j, v) if (n < MAXRUNS) x[n++] = json_number_value(v);
        json_object_set_new(out, ev, json_real(mtb_stats_median(x, n)));
    }
    json_decref(vals);
    return out;
}

/* Throughput and overhead against server cores: the configurations that are
 * points of a core sweep (workload.cores), in order of service, workload,
 * platform, kernel, config and cores. */
static json_t *g_sort_rows;
static int cmp_core_rows(const void *a, const void *b)
{
    json_t *x = json_array_get(g_sort_rows, *(const size_t *)a), *y = json_array_get(g_sort_rows, *(const size_t *)b);
    static const char *keys[] = { "service", "workload", "platform", "kernel", "variant", "mode" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int c = strcmp(mtb_jstr(x, keys[k]), mtb_jstr(y, keys[k]));
        if (c)
            return c;
    }
    double cx = mtb_jnum(x, "cores"), cy = mtb_jnum(y, "cores");
    return cx < cy ? -1 : cx > cy ? 1 : strcmp(mtb_jstr(x, "service_cpus"), mtb_jstr(y, "service_cpus"));
}

static json_t *cores_of(json_t *configs, json_t *overheads)
{
    json_t *rows = json_array();
    size_t i, j;
    json_t *c, *o;
    json_array_foreach(configs, i, c)
    {
        json_t *w = json_object_get(c, "workload");
        if (!json_is_integer(json_object_get(w, "cores")))
            continue;
        json_t *slow = NULL;
        json_array_foreach(overheads, j, o) if (
            !strcmp(mtb_jstr(o, "service"), mtb_jstr(c, "service")) && !strcmp(mtb_jstr(o, "variant"), mtb_jstr(c, "variant")) &&
            !strcmp(mtb_jstr(o, "mode"), mtb_jstr(c, "mode")) && !strcmp(mtb_jstr(o, "platform"), mtb_jstr(c, "platform")) &&
            !strcmp(mtb_jstr(o, "kernel"), mtb_jstr(c, "kernel")) && mtb_workload_equal(json_object_get(o, "workload"), w)) slow =
            json_object_get(o, "slowdown");
        json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:O,s:O,s:b}", "service", mtb_jstr(c, "service"),
                              "workload", mtb_jstr(w, "name"), "platform", mtb_jstr(c, "platform"), "kernel",
                              mtb_jstr(c, "kernel"), "variant", mtb_jstr(c, "variant"), "mode", mtb_jstr(c, "mode"),
                              "cores", json_object_get(w, "cores"), "service_cpus", mtb_jstr(w, "service_cpus"),
                              "ops_per_sec", json_object_get(c, "ops_per_sec"), "slowdown", slow ? slow : json_null(),
                              "emulated", json_is_true(json_object_get(c, "emulated")));
        if (*mtb_jstr(w, "core_type"))
            json_object_set_new(r, "core_type", json_string(mtb_jstr(w, "core_type")));
        json_array_append_new(rows, r);
    }
    size_t n = json_array_size(rows);
    size_t *idx = mtb_calloc(n + 1, sizeof *idx);
    for (i = 0; i < n; i++)
        idx[i] = i;
    g_sort_rows = rows;
    qsort(idx, n, sizeof *idx, cmp_core_rows);
    json_t *sorted = json_array();
    for (i = 0; i < n; i++)
        json_array_append(sorted, json_array_get(rows, idx[i]));
    free(idx);
    json_decref(rows);
    return sorted;
}

/* the metric table, for readers of summary.json: what each key of configs[]
 * and overheads[] is */
static json_t *metrics_json(void)
{
    json_t *run = json_array(), *pair = json_array();
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        json_array_append_new(run, json_pack("{s:s,s:s,s:s,s:s}", "key", mtb_run_metrics[m].key, "label",
                                             mtb_run_metrics[m].label, "unit", mtb_run_metrics[m].unit, "better",
                                             mtb_run_metrics[m].better == MTB_HIGHER ? "higher" : "lower"));
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        const char *of = mtb_run_metrics[d->of].key;
        json_array_append_new(pair, json_pack("{s:s,s:s,s:s,s:s,s:s}", "key", d->key, "label", d->label, "of", of,
                                              "ratio", d->tagged_num ? "tagged / baseline" : "baseline / tagged",
                                              "better", "lower"));
    }
    return json_pack("{s:o,s:o}", "run", run, "pair", pair);
}

json_t *mtb_summary_build(json_t *records) { return mtb_summary_build_ref(records, NULL); }

/* The ok records with a throughput, grouped into series (one per
 * configuration); *emulated when any was. @return the series (ss, *ns) */
static struct series *series_of(json_t *records, size_t *ns, int *emulated)
{
    struct series *ss = mtb_calloc(json_array_size(records) + 1, sizeof *ss);
    size_t i;
    json_t *rec;
    *ns = 0;
    json_array_foreach(records, i, rec)
    {
        if (strcmp(mtb_jstr(rec, "status"), "ok") != 0)
            continue;
        struct mtb_rec_figures fig;
        mtb_rec_figures_read(rec, &fig);
        if (!fig.present || !(fig.metric[MTB_M_ops_per_sec] >= 0))
            continue;
        char *k = config_key(rec);
        struct series *s = NULL;
        for (size_t j = 0; j < *ns; j++)
            if (!strcmp(ss[j].key, k))
                s = &ss[j];
        if (!s) {
            s = &ss[(*ns)++];
            s->key = k;
            s->bkey = base_key(rec);
            s->nkkey = nokernel_key(rec);
            s->first = rec;
            mtb_rec_config_view(rec, &s->cfg);
        } else {
            free(k);
        }
        if (s->n >= MAXRUNS)
            continue;
        for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
            s->val[m][s->n] = fig.metric[m];
        struct mtb_rec_config rc;
        mtb_rec_config_view(rec, &rc);
        s->rep[s->n] = rc.rep;
        s->n++;
        if (fig.client_bound)
            s->client_bound = 1;
        if (fig.errors_over_limit)
            s->errors_over_limit = 1;
        if (mtb_record_emulated(rec))
            *emulated = 1;
    }
    return ss;
}

/* One configuration's row: its identity, every run metric as a median with
 * its CI, the figures per request, and its warnings. */
static json_t *config_row(const struct series *s, json_t *records, json_t *warnings)
{
    const struct mtb_rec_config *c = &s->cfg;
    char lab[128];
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:i,s:o,s:b,s:b}", "service", c->service, "variant",
                          mtb_label_of(c->variant, c->allocator, lab, sizeof lab), "allocator", c->allocator, "mode",
                          c->mode, "platform", c->platform, "kernel", c->kernel, "workload", c->workload, "runs",
                          (int)s->n,
                          "ops_per_sec", med_ci(OPS(s), s->n), "client_bound", s->client_bound, "emulated",
                          mtb_record_emulated(s->first));
    if (!o)
        return NULL;
    if (s->errors_over_limit)
        json_object_set_new(o, "errors_over_limit", json_true());
    json_t *rl = json_object_get(json_object_get(s->first, "sequential"), "run_length");
    if (json_is_number(json_object_get(rl, "chosen_s")) && mtb_jnum(rl, "chosen_s") != mtb_jnum(rl, "pilot_s"))
        /* REPS=auto changed the run length after its pilot pairs: the workload keeps the pilot's */
        json_object_set_new(o, "run_length", json_pack("{s:O,s:O,s:O}", "pilot_s", json_object_get(rl, "pilot_s"),
                                                       "pilot_pairs", json_object_get(rl, "pilot_pairs"), "chosen_s",
                                                       json_object_get(rl, "chosen_s")));
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++) {
        double v[MAXRUNS];
        size_t nv = finite_of(s->val[m], s->n, v);
        if (m != MTB_M_ops_per_sec)
            json_object_set_new(o, mtb_run_metrics[m].key, med_ci(v, nv));
    }
    mtb_summary_set_host(o, s->first);
    char name[256];
    config_warnings(o, cfg_name(c, name, sizeof name), warnings);
    json_t *ppr = per_request(records, s->key, perf_of);
    if (ppr)
        json_object_set_new(o, "perf_per_request", ppr);
    json_t *tpr = per_request(records, s->key, tag_ops_of);
    if (tpr)
        json_object_set_new(o, "tag_ops_per_request", tpr);
    return o;
}

/* the runs' own warnings (record "warnings": tagging not seen, NUMA
 * unbound), once per configuration and text */
static void record_warnings(json_t *records, json_t *warnings)
{
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        if (strcmp(mtb_jstr(rec, "status"), "ok") != 0)
            continue;
        size_t wi, k;
        json_t *wv, *have;
        char name[256];
        struct mtb_rec_config rc;
        mtb_rec_config_view(rec, &rc);
        json_array_foreach(json_object_get(rec, "warnings"), wi, wv)
        {
            json_t *line = json_sprintf("%s: %s", cfg_name(&rc, name, sizeof name), json_string_value(wv));
            int dup = 0;
            json_array_foreach(warnings, k, have) dup |= json_equal(have, line);
            if (dup)
                json_decref(line);
            else
                json_array_append_new(warnings, line);
        }
    }
}

json_t *mtb_summary_build_ref(json_t *records, const char *reference_kernel)
{
    size_t ns = 0;
    int emulated = 0;
    json_t *warnings = json_array();
    per_host = several_hosts(records);
    struct series *ss = series_of(records, &ns, &emulated);
    json_t *configs = json_array();
    for (size_t j = 0; j < ns; j++)
        json_array_append_new(configs, config_row(&ss[j], records, warnings));
    record_warnings(records, warnings);
    json_t *overheads = overheads_of(ss, ns, warnings);
    json_t *geomeans = geomeans_of(overheads);
    json_t *kernels = kernels_of(ss, ns, overheads, reference_kernel);
    json_t *allocators = mtb_summary_allocators(ss, ns);
    for (size_t j = 0; j < ns; j++) {
        free(ss[j].key);
        free(ss[j].bkey);
        free(ss[j].nkkey);
    }
    free(ss);
    json_t *cores = cores_of(configs, overheads);
    json_t *sum = json_pack("{s:s,s:b,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "schema", "mtebench-summary/1", "emulated",
                            emulated, "label", emulated ? "emulated: not hardware timing" : "hardware timing", "metrics",
                            metrics_json(), "configs", configs, "overheads", overheads, "geomeans", geomeans, "kernels",
                            kernels, "cores", cores, "warnings", warnings, "environment", environment(records));
    /* only where some allocator other than glibc's ran: summaries as before the axis otherwise */
    if (json_array_size(allocators))
        json_object_set_new(sum, "allocators", allocators);
    else
        json_decref(allocators);
    return sum;
}
