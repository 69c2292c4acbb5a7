/* summary.c - see summary.h */
#include "lib/jsonx.h"
#include "analysis/summary.h"
#include "analysis/summary_series.h"
#include "analysis/summary_env.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/record_outcome.h"
#include "core/summary_rows.h"
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
 * seq: a record of REPS=auto's whose rule (its "sequential" block, read into its struct mtb_rec_env) the interval follows, or NULL. With seq the
 * interval is built at the level of the rule's looks (seqstop.h) by the
 * method the pairs' shape chooses, as the rule itself did (mtb_stats_pair_ci:
 * t, signed-rank or order statistics; "shape" says why), and "conf" is the
 * simultaneous level over the looks: 95% when the interval reaches the
 * looks' level, else the union bound 1 - L (1 - achieved). Without
 * it (a fixed REPS=N) the distribution-free order-statistic interval at 95%:
 * at a single look the shape check's choice was measured to undercover under
 * strong skew (docs/STATISTICS.md). */
static json_t *ratio_ci_seq(const double *num, const double *den, size_t n, const struct mtb_rec_env *seq)
{
    struct mtb_stats_ci ci;
    double looks = seq ? seq->seq_looks : NAN, lconf = seq ? seq->seq_look_conf : NAN;
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

/* "noisy" and "low confidence" notes of one configuration */
static void config_warnings(json_t *o, const char *name, json_t *warnings)
{
    struct mtb_sum_config c;
    mtb_sum_config_read(o, &c);
    char noisy[512] = "";
    size_t len = 0;
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++) {
        double hw = c.metric[m].rel_halfwidth;
        if (!isnan(hw) && hw > NOISY && len < sizeof noisy - 40)
            len += (size_t)snprintf(noisy + len, sizeof noisy - len, "%s%s ±%.1f%%", len ? ", " : "",
                                    mtb_run_metrics[m].label, isinf(hw) ? INFINITY : 100 * hw);
    }
    json_object_set_new(o, "noisy", json_boolean(len > 0));
    if (len)
        json_array_append_new(warnings, json_sprintf("%s: noisy: add repetitions (CI half-width above 5%%: %s)",
                                                     name, noisy));
    int runs = (int)c.runs;
    double conf = c.metric[MTB_M_ops_per_sec].conf;
    if (runs == 1)
        json_array_append_new(warnings, json_sprintf("%s: low confidence: a single run, no interval; "
                                                     "6 runs are needed for a 95%% interval", name));
    else if (!isnan(conf) && conf < CONF - 1e-9)
        json_array_append_new(warnings, json_sprintf("%s: low confidence: %d runs give [min - max] intervals with "
                                                     "%.1f%% confidence; 6 runs are needed for 95%%",
                                                     name, runs, 100 * conf));
    if (c.client_bound)
        json_array_append_new(warnings, json_sprintf("%s: client-bound: the load generator saturated a CPU; "
                                                     "figures measure the client", name));
    if (c.errors_over_limit)
        json_array_append_new(warnings, json_sprintf("%s: errors: in some run more requests than the limit (0.1%% by "
                                                     "default) were answered with an error, lost or never sent", name));
}


/* The pair metrics of tagged series t against its baseline b: the runs of
 * the same repetition (the pairing rule of record.h; both series share the
 * pair key), one median-of-ratios CI per metric of the table. */
void mtb_summary_pair_metrics(json_t *o, const struct series *t, const struct series *b, const struct mtb_rec_env *seq,
                              size_t *npairs)
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
        struct mtb_rec_env te;
        mtb_rec_env_read(t->first, &te);
        mtb_summary_pair_metrics(o, t, b, te.sequential ? &te : NULL, &np);
        if (np == 0) {
            mtb_rec_env_free(&te);
            json_decref(o);
            continue;
        }
        json_object_set_new(o, "pairs", json_integer((json_int_t)np));
        struct mtb_stats_mwu mw;
        json_object_set_new(o, "mann_whitney_p", mtb_stats_mann_whitney(OPS(t), t->n, OPS(b), b->n, &mw) == 0
                                                     ? json_real(mw.p) : json_null());
        char name[256];
        struct mtb_sum_overhead ov;
        mtb_sum_overhead_read(o, &ov);
        double hw = ov.metric[MTB_P_slowdown].rel_halfwidth;
        if (json_is_object(te.sequential)) {
            /* REPS=auto: what the rule reached */
            double prec = te.seq_precision;
            json_object_set_new(o, "sequential", json_pack("{s:f,s:b,s:f}", "precision", prec, "reached",
                                                          !isnan(hw) && hw <= prec, "max_time_s",
                                                          te.seq_max_time_s));
            if (!(hw <= prec))
                json_array_append_new(warnings, json_sprintf("%s overhead: REPS=auto did not reach +-%.1f%% (+-%.1f%% "
                                                             "after %d pairs): a noisy machine; see the quiet check",
                                                             cfg_name(tc, name, sizeof name), 100 * prec, 100 * hw, (int)np));
        } else if (!isnan(hw) && hw > NOISY)
            json_array_append_new(warnings, json_sprintf("%s overhead: noisy: add repetitions (CI half-width ±%.1f%%)",
                                                         cfg_name(tc, name, sizeof name), 100 * hw));
        mtb_rec_env_free(&te);
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
    struct mtb_sum_overhead *ov;
    size_t n;
    MTB_READ_ROWS(overheads, ov, n, mtb_sum_overhead_read);
    char *done = mtb_calloc(n + 1, 1);
    double *x = mtb_calloc(n + 1, sizeof *x);
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        const struct mtb_sum_overhead *a = &ov[i];
        json_t *members = json_array();
        size_t m = 0;
        for (size_t j = i; j < n; j++) {
            const struct mtb_sum_overhead *b = &ov[j];
            if (done[j] || strcmp(a->variant, b->variant) || strcmp(a->mode, b->mode) ||
                strcmp(a->platform, b->platform) || strcmp(a->kernel, b->kernel))
                continue;
            done[j] = 1;
            double v = b->metric[MTB_P_slowdown].median;
            if (!(v > 0))
                continue;
            x[m++] = v;
            json_array_append_new(members, json_sprintf("%s %s", b->service, b->workload.mix));
        }
        struct mtb_stats_ci ci;
        if (m == 0 || mtb_stats_geomean_ci(x, m, CONF, BOOT_ITERS, SEED, &ci) != 0) {
            json_decref(members);
            continue;
        }
        json_t *g = json_pack("{s:s,s:s,s:s,s:s,s:i,s:o}", "variant", a->variant, "mode", a->mode, "platform",
                              a->platform, "kernel", a->kernel, "n", (int)m, "of", members);
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
    free(ov);
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
    struct mtb_ci rc;
    mtb_ci_read(ratio, &rc);
    if (rc.present) {
        delta = json_object();
        json_object_set_new(delta, "median", jreal(rc.median - 1));
        json_object_set_new(delta, "lo", jreal(rc.lo - 1));
        json_object_set_new(delta, "hi", jreal(rc.hi - 1));
        json_object_set_new(delta, "conf", json_real(rc.conf));
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

/* each kernel's overhead of the comparison o of A's configuration with B's
 * (slowdown_a, slowdown_b), where there is one among the overhead rows ov */
static void kernel_overheads(json_t *o, const struct series *A, const struct series *B,
                             const struct mtb_sum_overhead *ov, size_t nov)
{
    const struct mtb_rec_config *ca = &A->cfg;
    char lab[128];
    const char *variant = mtb_label_of(ca->variant, ca->allocator, lab, sizeof lab);
    for (size_t i = 0; i < nov; i++) {
        if (strcmp(ov[i].service, ca->service) || strcmp(ov[i].variant, variant) || strcmp(ov[i].mode, ca->mode) ||
            strcmp(ov[i].platform, ca->platform) || !mtb_workload_equal(ov[i].workload.j, ca->workload))
            continue;
        if (!strcmp(ov[i].kernel, ca->kernel))
            json_object_set(o, "slowdown_a", ov[i].metric[MTB_P_slowdown].j);
        if (!strcmp(ov[i].kernel, B->cfg.kernel))
            json_object_set(o, "slowdown_b", ov[i].metric[MTB_P_slowdown].j);
    }
}

/* Every pair of kernels of one configuration. Kernel A (the reference) is
 * ref where ref is one of the two; else "host", then "stock", lead; else the
 * first in sort order. */
static json_t *kernels_of(struct series *ss, size_t ns, json_t *overheads, const char *ref)
{
    json_t *out = json_array();
    struct mtb_sum_overhead *ov;
    size_t nov;
    MTB_READ_ROWS(overheads, ov, nov, mtb_sum_overhead_read);
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++) {
            const char *ka = ss[a].cfg.kernel, *kb = ss[b].cfg.kernel;
            if (a == b || strcmp(ss[a].nkkey, ss[b].nkkey) || strcmp(ka, kb) >= 0)
                continue;
            int swap = ref && (!strcmp(ka, ref) || !strcmp(kb, ref))
                           ? !strcmp(kb, ref)
                           : !strcmp(kb, "host") || (!strcmp(kb, "stock") && strcmp(ka, "host"));
            const struct series *A = swap ? &ss[b] : &ss[a], *B = swap ? &ss[a] : &ss[b];
            json_t *o = kernel_pair(A, B);
            kernel_overheads(o, A, B, ov, nov);
            json_array_append_new(out, o);
        }
    free(ov);
    return out;
}

/* A record's perf events per request (perf.per_request). */
static json_t *perf_of(json_t *rec)
{
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read(rec, &o);
    return json_incref(o.perf_per_request);
}

/* A record's tag operations per request, from the service's own counters
 * (objtag_ops, objtag_granules: the objtag variants) divided by the requests
 * it counted over the same window (memcached: cmd_get + cmd_set; nginx:
 * stub_status's requests; RocksDB: db_bench's operations, "requests" too;
 * PostgreSQL: transactions, xact_commit + xact_rollback). */
static json_t *tag_ops_of(json_t *rec)
{
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read(rec, &o);
    if (!o.has_objtag || !(o.counted_requests > 0))
        return NULL;
    return json_pack("{s:f,s:f}", "tag_ops", (double)o.objtag_ops / o.counted_requests, "granules_tagged",
                     (double)o.objtag_granules / o.counted_requests);
}

/* an event's values over a configuration's runs */
struct ev_values {
    char *name;
    double x[MAXRUNS];
    size_t n;
};

/* The median over a configuration's runs of each figure per request that
 * `of` gives for a record (a new reference, or NULL); NULL when no run had any. */
static json_t *per_request(json_t *records, const char *key, json_t *(*of)(json_t *))
{
    struct ev_values *ev = NULL;
    size_t nev = 0;
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        if (mtb_record_status(rec) != MTB_RUN_OK)
            continue;
        char *k = config_key(rec);
        int same = !strcmp(k, key);
        free(k);
        if (!same)
            continue;
        json_t *pr = of(rec);
        const char *name;
        json_t *v;
        json_object_foreach(pr, name, v)
        {
            if (!json_is_number(v))
                continue;
            struct ev_values *e = NULL;
            for (size_t k2 = 0; k2 < nev && !e; k2++)
                if (!strcmp(ev[k2].name, name))
                    e = &ev[k2];
            if (!e) {
                ev = mtb_realloc(ev, (nev + 1) * sizeof *ev);
                e = &ev[nev++];
                e->name = mtb_strdup(name);
                e->n = 0;
            }
            if (e->n < MAXRUNS)
                e->x[e->n++] = json_number_value(v);
        }
        json_decref(pr);
    }
    if (!nev)
        return NULL;
    json_t *out = json_object();
    for (size_t k = 0; k < nev; k++) {
        json_object_set_new(out, ev[k].name, json_real(mtb_stats_median(ev[k].x, ev[k].n)));
        free(ev[k].name);
    }
    free(ev);
    return out;
}

/* Throughput and overhead against server cores: the configurations that are
 * points of a core sweep (workload.cores), in order of service, workload,
 * platform, kernel, config and cores. */
static const struct mtb_sum_config *g_sort_cfgs;
static int cmp_core_rows(const void *a, const void *b)
{
    const struct mtb_sum_config *x = &g_sort_cfgs[*(const size_t *)a], *y = &g_sort_cfgs[*(const size_t *)b];
    const char *kx[] = { x->service, x->workload.name, x->platform, x->kernel, x->variant, x->mode };
    const char *ky[] = { y->service, y->workload.name, y->platform, y->kernel, y->variant, y->mode };
    for (size_t k = 0; k < sizeof kx / sizeof kx[0]; k++) {
        int c = strcmp(kx[k], ky[k]);
        if (c)
            return c;
    }
    double cx = (double)x->workload.cores, cy = (double)y->workload.cores;
    return cx < cy ? -1 : cx > cy ? 1 : strcmp(x->workload.service_cpus, y->workload.service_cpus);
}

static json_t *cores_of(json_t *configs, json_t *overheads)
{
    struct mtb_sum_config *cf;
    struct mtb_sum_overhead *ov;
    size_t ncf, nov, n = 0;
    MTB_READ_ROWS(configs, cf, ncf, mtb_sum_config_read);
    MTB_READ_ROWS(overheads, ov, nov, mtb_sum_overhead_read);
    size_t *idx = mtb_calloc(ncf + 1, sizeof *idx);
    for (size_t i = 0; i < ncf; i++)
        if (cf[i].workload.has_cores)
            idx[n++] = i;
    g_sort_cfgs = cf;
    qsort(idx, n, sizeof *idx, cmp_core_rows);
    json_t *sorted = json_array();
    for (size_t k = 0; k < n; k++) {
        const struct mtb_sum_config *c = &cf[idx[k]];
        const struct mtb_sum_workload *w = &c->workload;
        json_t *slow = NULL;
        for (size_t j = 0; j < nov; j++)
            if (!strcmp(ov[j].service, c->service) && !strcmp(ov[j].variant, c->variant) &&
                !strcmp(ov[j].mode, c->mode) && !strcmp(ov[j].platform, c->platform) &&
                !strcmp(ov[j].kernel, c->kernel) && mtb_workload_equal(ov[j].workload.j, w->j))
                slow = ov[j].metric[MTB_P_slowdown].j;
        json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:s,s:O?,s:O,s:b}", "service", c->service, "workload",
                              w->name, "platform", c->platform, "kernel", c->kernel, "variant", c->variant, "mode",
                              c->mode, "cores", (json_int_t)w->cores, "service_cpus", w->service_cpus, "ops_per_sec",
                              c->metric[MTB_M_ops_per_sec].j, "slowdown", slow ? slow : json_null(), "emulated",
                              c->emulated);
        if (*w->core_type)
            json_object_set_new(r, "core_type", json_string(w->core_type));
        json_array_append_new(sorted, r);
    }
    free(idx);
    free(cf);
    free(ov);
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
        if (mtb_record_status(rec) != MTB_RUN_OK)
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
    struct mtb_rec_env e;
    mtb_rec_env_read(s->first, &e);
    if (e.has_run_length && e.chosen_s != e.pilot_s && isfinite(e.pilot_s) && isfinite(e.pilot_pairs))
        /* REPS=auto changed the run length after its pilot pairs: the workload keeps the pilot's */
        json_object_set_new(o, "run_length", json_pack("{s:f,s:I,s:f}", "pilot_s", e.pilot_s, "pilot_pairs",
                                                       (json_int_t)e.pilot_pairs, "chosen_s", e.chosen_s));
    mtb_rec_env_free(&e);
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
        if (mtb_record_status(rec) != MTB_RUN_OK)
            continue;
        size_t wi, k;
        json_t *wv, *have;
        char name[256];
        struct mtb_rec_config rc;
        mtb_rec_config_view(rec, &rc);
        struct mtb_rec_outcome ro;
        mtb_rec_outcome_read(rec, &ro);
        json_array_foreach(ro.warnings, wi, wv)
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
                            kernels, "cores", cores, "warnings", warnings, "environment", mtb_summary_environment(records));
    /* only where some allocator other than glibc's ran: summaries as before the axis otherwise */
    if (json_array_size(allocators))
        json_object_set_new(sum, "allocators", allocators);
    else
        json_decref(allocators);
    return sum;
}
