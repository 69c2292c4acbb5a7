/* summary.c - see summary.h */
#include "jsonx.h"
#include "summary.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONF 0.95
#define NOISY 0.05        /* relative CI half-width above which we warn */
#define MAXRUNS 256       /* runs kept per configuration */
#define BOOT_MIN 50       /* from this many runs on, bootstrap CIs for medians */
#define BOOT_ITERS 2000
#define SEED 20260131u

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* JSON cannot carry NaN or infinities: those become null. */
static json_t *jreal(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The latency percentiles kept per run: record summary key, mtload key, label. */
static const struct pct {
    const char *key, *load_key, *label;
} pcts[] = {
    { "p50_us", "p50", "p50" },     { "p90_us", "p90", "p90" },       { "p99_us", "p99", "p99" },
    { "p999_us", "p99.9", "p99.9" }, { "p9999_us", "p99.99", "p99.99" },
};
#define NPCT (sizeof pcts / sizeof pcts[0])

char *mtb_workload_key(json_t *w)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return mtb_strdup("");
    const char **keys = mtb_calloc(json_object_size(w) + 1, sizeof *keys);
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(w, k, v) keys[n++] = k;
    qsort(keys, n, sizeof *keys, cmp_str);
    for (size_t i = 0; i < n; i++) {
        v = json_object_get(w, keys[i]);
        fprintf(f, "%s%s=", i ? "," : "", keys[i]);
        if (json_is_number(v)) {
            fprintf(f, "%.17g", json_number_value(v)); /* 2 and 2.0 are the same workload */
        } else {
            char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
            fprintf(f, "%s", d ? d : "");
            free(d);
        }
    }
    fclose(f);
    free(keys);
    return buf;
}

int mtb_workload_equal(json_t *a, json_t *b)
{
    char *x = mtb_workload_key(a), *y = mtb_workload_key(b);
    int eq = !strcmp(x, y);
    free(x);
    free(y);
    return eq;
}

/* What makes two runs the same configuration apart from variant/mode. */
static char *base_key(json_t *rec)
{
    json_t *c = json_object_get(rec, "config");
    json_t *w = json_object_get(c, "workload");
    char *wl = mtb_workload_key(w);
    char *k = mtb_asprintf("%s|%s|%s|%s", mtb_jstr(c, "service"), mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), wl ? wl : "");
    free(wl);
    return k;
}

/* The same, without the kernel: what two kernels are compared on. */
static char *nokernel_key(json_t *rec)
{
    json_t *c = json_object_get(rec, "config");
    char *wl = mtb_workload_key(json_object_get(c, "workload"));
    char *k = mtb_asprintf("%s|%s|%s|%s|%s", mtb_jstr(c, "service"), mtb_jstr(c, "platform"), mtb_jstr(c, "variant"),
                           mtb_jstr(c, "mode"), wl ? wl : "");
    free(wl);
    return k;
}

static char *config_key(json_t *rec)
{
    json_t *c = json_object_get(rec, "config");
    char *b = base_key(rec);
    char *k = mtb_asprintf("%s|%s|%s", b, mtb_jstr(c, "variant"), mtb_jstr(c, "mode"));
    free(b);
    return k;
}

/* Median with a CI as {"median","lo","hi","conf","method","rel_halfwidth"}.
 * Below BOOT_MIN values the distribution-free order-statistic interval (exact
 * coverage, stated in "conf"; the widest one, [min, max], when there are too
 * few runs for CONF); from BOOT_MIN on a percentile bootstrap. */
static json_t *med_ci(const double *x, size_t n)
{
    struct stats_ci ci;
    double ach = 0;
    const char *method = "order statistics";
    if (n == 0)
        return json_null();
    if (n >= BOOT_MIN) {
        if (stats_bootstrap_median_ci(x, n, CONF, BOOT_ITERS, SEED, &ci) != 0)
            return json_null();
        ach = CONF;
        method = "percentile bootstrap";
    } else if (stats_median_ci(x, n, CONF, &ci, &ach) != 0) {
        return json_null();
    }
    json_t *o = json_object();
    json_object_set_new(o, "median", jreal(ci.est));
    json_object_set_new(o, "lo", jreal(ci.lo));
    json_object_set_new(o, "hi", jreal(ci.hi));
    json_object_set_new(o, "conf", json_real(ach));
    json_object_set_new(o, "method", json_string(method));
    json_object_set_new(o, "rel_halfwidth", n >= 2 ? jreal(stats_rel_halfwidth(&ci)) : json_null());
    return o;
}

/* The ratio CI of paired values (median of the pairwise ratios), same shape.
 * seq: REPS=auto's "sequential" block of the records, or NULL: the interval is
 * then built at the level of the rule's looks (seqstop.h), and "conf" is the
 * simultaneous level over the looks, 1 - L (1 - achieved), >= 95%. */
static json_t *ratio_ci_seq(const double *num, const double *den, size_t n, json_t *seq)
{
    struct stats_ci ci;
    double looks = seq ? mtb_jnum(seq, "looks") : NAN, lconf = seq ? mtb_jnum(seq, "look_conf") : NAN;
    double conf = isfinite(lconf) && lconf > 0 && lconf < 1 && looks >= 1 ? lconf : CONF;
    if (n == 0 || stats_ratio_ci(num, den, n, conf, 0, SEED, &ci) != 0)
        return json_null();
    double *r = mtb_calloc(n, sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = num[i] / den[i];
    struct stats_ci c2;
    double ach = 0;
    int rc = stats_median_ci(r, n, conf, &c2, &ach); /* for the achieved confidence */
    free(r);
    if (rc == 0 && conf != CONF) {
        double sim = 1 - looks * (1 - ach);
        ach = sim > 0 ? sim : 0;
    }
    json_t *o = json_object();
    json_object_set_new(o, "median", jreal(ci.est));
    json_object_set_new(o, "lo", jreal(ci.lo));
    json_object_set_new(o, "hi", jreal(ci.hi));
    json_object_set_new(o, "conf", json_real(rc == 0 ? ach : NAN));
    json_object_set_new(o, "method", json_string(conf != CONF ? "order statistics of pairwise ratios, "
                                                                "sequential (Bonferroni over the looks of REPS=auto)"
                                                              : "order statistics of pairwise ratios"));
    json_object_set_new(o, "rel_halfwidth", n >= 2 ? jreal(stats_rel_halfwidth(&ci)) : json_null());
    if (conf != CONF)
        json_object_set_new(o, "look_conf", json_real(conf));
    return o;
}

static json_t *ratio_ci(const double *num, const double *den, size_t n) { return ratio_ci_seq(num, den, n, NULL); }

struct series {
    char *key, *bkey, *nkkey;
    json_t *first;             /* a representative record */
    double ops[MAXRUNS];
    double lat[NPCT][MAXRUNS]; /* NAN where a run lacks the percentile */
    int rep[MAXRUNS];
    size_t n;
    int client_bound;
};

static double latency_of(json_t *rec, const struct pct *p)
{
    double v = mtb_jnum(json_object_get(rec, "summary"), p->key);
    if (isnan(v))
        v = mtb_jnum(json_object_get(json_object_get(json_object_get(rec, "load"), "latency_us"), "corrected"),
                 p->load_key);
    return v;
}

/* values of a percentile that are present */
static size_t finite_of(const double *x, size_t n, double *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            out[m++] = x[i];
    return m;
}

static const char *cfg_name(json_t *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s/%s%s%s", mtb_jstr(c, "service"), mtb_jstr(c, "variant"), mtb_jstr(c, "mode"),
             strcmp(mtb_jstr(c, "kernel"), "host") ? ", kernel " : "",
             strcmp(mtb_jstr(c, "kernel"), "host") ? mtb_jstr(c, "kernel") : "");
    return buf;
}

/* Append s to the array a unless it is there already. */
static void add_unique(json_t *a, const char *s)
{
    size_t i;
    json_t *v;
    if (!s || !*s)
        return;
    json_array_foreach(a, i, v) if (!strcmp(json_string_value(v), s)) return;
    json_array_append_new(a, json_string(s));
}

static json_t *environment(json_t *records)
{
    json_t *cpu = json_array(), *cores = json_array(), *kern = json_array(), *plat = json_array();
    json_t *builds = json_array(), *vers = json_array(), *qemu = json_array();
    json_t *midr = json_array(), *micro = json_array(), *cmdline = json_array(), *glibc = json_array();
    json_t *compilers = json_array(), *mte = json_array(), *quiet = json_array(), *pinning = json_array();
    const char *first = NULL, *last = NULL;
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        json_t *p = json_object_get(rec, "platform"), *k = json_object_get(rec, "kernel");
        json_t *b = json_object_get(rec, "build");
        add_unique(cpu, mtb_jstr(p, "cpu_model"));
        if (json_is_integer(json_object_get(p, "cpus"))) {
            char *s = mtb_asprintf("%lld", (long long)json_integer_value(json_object_get(p, "cpus")));
            add_unique(cores, s);
            free(s);
        }
        char *ks = mtb_asprintf("%s: %s %s (%s)", *mtb_jstr(k, "name") ? mtb_jstr(k, "name") : "?", mtb_jstr(k, "uname_r"),
                                mtb_jstr(k, "uname_v"), mtb_jstr(k, "machine"));
        add_unique(kern, ks);
        free(ks);
        char *ps = mtb_asprintf("%s%s", mtb_jstr(p, "name"),
                                json_is_true(json_object_get(p, "emulated")) ? " (emulated: not hardware timing)" : "");
        add_unique(plat, ps);
        free(ps);
        add_unique(qemu, mtb_jstr(p, "qemu"));
        if (*mtb_jstr(b, "key")) {
            char *bs = mtb_asprintf("%s %s %s %s: %.12s", mtb_jstr(b, "service"), mtb_jstr(b, "version"), mtb_jstr(b, "variant"),
                                    mtb_jstr(b, "target"), mtb_jstr(b, "key"));
            add_unique(builds, bs);
            free(bs);
        }
        add_unique(vers, mtb_jstr(rec, "mtebench_version"));
        /* the run's environment block: provenance and the quiet check */
        json_t *e = json_object_get(rec, "environment");
        if (json_is_object(e)) {
            add_unique(midr, mtb_jstr(e, "midr"));
            add_unique(micro, mtb_jstr(e, "microcode"));
            add_unique(cmdline, mtb_jstr(e, "kernel_cmdline"));
            add_unique(glibc, mtb_jstr(e, "glibc"));
            const char *ck;
            json_t *cv;
            json_object_foreach(json_object_get(e, "compilers"), ck, cv) if (json_is_string(cv))
            {
                char *cs = mtb_asprintf("%s: %s", ck, json_string_value(cv));
                add_unique(compilers, cs);
                free(cs);
            }
            json_t *m = json_object_get(e, "mte");
            char *ms = mtb_asprintf("MTE %s (arm64.nomte %s, HWCAP2_MTE %s)",
                                    json_is_true(json_object_get(m, "enabled")) ? "enabled" : "not enabled in this kernel",
                                    json_is_true(json_object_get(m, "arm64_nomte")) ? "set" : "not set",
                                    json_is_null(json_object_get(m, "hwcap2_mte")) ? "n/a"
                                    : json_is_true(json_object_get(m, "hwcap2_mte")) ? "yes" : "no");
            add_unique(mte, ms);
            free(ms);
            json_t *q = json_object_get(e, "quiet");
            if (json_is_true(json_object_get(q, "quiet")))
                add_unique(quiet, "quiet (no finding)");
            size_t wi;
            json_t *wv;
            json_array_foreach(json_object_get(q, "warnings"), wi, wv) add_unique(quiet, json_string_value(wv));
        }
        json_t *af = json_object_get(rec, "affinity");
        if (json_is_object(af)) {
            char *as = mtb_asprintf("service on CPUs %s (asked %s), client on %s (asked %s)",
                                    json_is_string(json_object_get(af, "service")) ? mtb_jstr(af, "service") : "?",
                                    mtb_jstr(af, "service_requested"),
                                    json_is_string(json_object_get(af, "client")) ? mtb_jstr(af, "client") : "?",
                                    mtb_jstr(af, "client_requested"));
            add_unique(pinning, as);
            free(as);
        }
        const char *s = json_string_value(json_object_get(rec, "started"));
        const char *f = json_string_value(json_object_get(rec, "finished"));
        if (s && (!first || strcmp(s, first) < 0))
            first = s;
        if (f && (!last || strcmp(f, last) > 0))
            last = f;
    }
    json_t *env = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cpu_model", cpu, "cpus", cores, "kernels", kern,
                            "platforms", plat, "qemu", qemu, "builds", builds, "mtebench_versions", vers);
    json_object_set_new(env, "midr", midr);
    json_object_set_new(env, "microcode", micro);
    json_object_set_new(env, "kernel_cmdline", cmdline);
    json_object_set_new(env, "glibc", glibc);
    json_object_set_new(env, "compilers", compilers);
    json_object_set_new(env, "mte", mte);
    json_object_set_new(env, "pinning", pinning);
    json_object_set_new(env, "quiet", quiet);
    json_object_set_new(env, "first_started", first ? json_string(first) : json_null());
    json_object_set_new(env, "last_finished", last ? json_string(last) : json_null());
    return env;
}

/* "noisy" and "low confidence" notes of one configuration */
static void config_warnings(json_t *o, const char *name, json_t *warnings)
{
    static const char *metrics[] = { "ops_per_sec", "p50_us", "p90_us", "p99_us", "p999_us", "p9999_us" };
    static const char *labels[] = { "ops/s", "p50", "p90", "p99", "p99.9", "p99.99" };
    char noisy[512] = "";
    size_t len = 0;
    for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
        double hw = mtb_jnum(json_object_get(o, metrics[m]), "rel_halfwidth");
        if (!isnan(hw) && hw > NOISY && len < sizeof noisy - 40)
            len += (size_t)snprintf(noisy + len, sizeof noisy - len, "%s%s ±%.1f%%", len ? ", " : "", labels[m],
                                    isinf(hw) ? INFINITY : 100 * hw);
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
}

static int is_baseline(json_t *c) { return !strcmp(mtb_jstr(c, "variant"), "plain") && !strcmp(mtb_jstr(c, "mode"), "off"); }

static json_t *overheads_of(struct series *ss, size_t ns, json_t *warnings)
{
    json_t *overheads = json_array();
    for (size_t j = 0; j < ns; j++) {
        struct series *t = &ss[j];
        json_t *tc = json_object_get(t->first, "config");
        if (is_baseline(tc))
            continue;
        struct series *b = NULL;
        for (size_t k = 0; k < ns; k++)
            if (!strcmp(ss[k].bkey, t->bkey) && is_baseline(json_object_get(ss[k].first, "config")))
                b = &ss[k];
        if (!b)
            continue;
        double bops[MAXRUNS], tops[MAXRUNS], tp99[MAXRUNS], bp99[MAXRUNS];
        size_t np = 0, nl = 0;
        for (size_t x = 0; x < t->n; x++)
            for (size_t y = 0; y < b->n; y++)
                if (t->rep[x] == b->rep[y] && t->ops[x] > 0 && b->ops[y] > 0 && np < MAXRUNS) {
                    bops[np] = b->ops[y];
                    tops[np] = t->ops[x];
                    np++;
                    if (b->lat[2][y] > 0 && isfinite(t->lat[2][x])) {
                        tp99[nl] = t->lat[2][x];
                        bp99[nl] = b->lat[2][y];
                        nl++;
                    }
                }
        if (np == 0)
            continue;
        struct stats_mwu mw;
        json_t *pv = stats_mann_whitney(t->ops, t->n, b->ops, b->n, &mw) == 0 ? json_real(mw.p) : json_null();
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:i,s:o,s:o,s:o,s:s}", "service", mtb_jstr(tc, "service"),
                              "variant", mtb_jstr(tc, "variant"), "mode", mtb_jstr(tc, "mode"), "platform",
                              mtb_jstr(tc, "platform"), "kernel", mtb_jstr(tc, "kernel"), "workload",
                              json_object_get(tc, "workload"), "baseline", "plain/off", "pairs", (int)np,
                              "slowdown", ratio_ci_seq(bops, tops, np, json_object_get(t->first, "sequential")),
                              "p99_ratio", ratio_ci(tp99, bp99, nl),
                              "mann_whitney_p", pv, "definition",
                              "slowdown = baseline ops/s / tagged ops/s per interleaved pair (paired by repetition; "
                              "median of pairs); p99_ratio = tagged p99 / baseline p99");
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
        struct stats_ci ci;
        if (m == 0 || stats_geomean_ci(x, m, CONF, BOOT_ITERS, SEED, &ci) != 0) {
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
 * under two kernels; delta = kernel B ops/s / kernel A ops/s - 1, the median
 * of the ratios of runs paired by repetition, with its CI. */
static json_t *kernels_of(struct series *ss, size_t ns, json_t *overheads)
{
    json_t *out = json_array();
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < ns; b++) {
            json_t *ca = json_object_get(ss[a].first, "config"), *cb = json_object_get(ss[b].first, "config");
            if (a == b || strcmp(ss[a].nkkey, ss[b].nkkey) || strcmp(mtb_jstr(ca, "kernel"), mtb_jstr(cb, "kernel")) >= 0)
                continue;
            /* kernel A is the one named first in sort order, except that "host" (or "stock") leads */
            const char *ka = mtb_jstr(ca, "kernel"), *kb = mtb_jstr(cb, "kernel");
            int swap = !strcmp(kb, "host") || (!strcmp(kb, "stock") && strcmp(ka, "host"));
            struct series *A = swap ? &ss[b] : &ss[a], *B = swap ? &ss[a] : &ss[b];
            ca = json_object_get(A->first, "config");
            cb = json_object_get(B->first, "config");
            double num[MAXRUNS], den[MAXRUNS];
            size_t np = 0;
            for (size_t x = 0; x < B->n; x++)
                for (size_t y = 0; y < A->n; y++)
                    if (B->rep[x] == A->rep[y] && A->ops[y] > 0 && np < MAXRUNS) {
                        num[np] = B->ops[x];
                        den[np] = A->ops[y];
                        np++;
                    }
            json_t *ratio = ratio_ci(num, den, np);
            json_t *delta = json_null();
            if (json_is_object(ratio)) {
                delta = json_object();
                json_object_set_new(delta, "median", jreal(mtb_jnum(ratio, "median") - 1));
                json_object_set_new(delta, "lo", jreal(mtb_jnum(ratio, "lo") - 1));
                json_object_set_new(delta, "hi", jreal(mtb_jnum(ratio, "hi") - 1));
                json_object_set(delta, "conf", json_object_get(ratio, "conf"));
            }
            json_decref(ratio);
            struct stats_mwu mw;
            int have_p = stats_mann_whitney(B->ops, B->n, A->ops, A->n, &mw) == 0;
            json_t *pl = json_object_get(ss[a].first, "platform");
            int emu = json_is_true(json_object_get(pl, "emulated"));
            json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:O,s:b,s:s,s:s,s:i,s:i,s:o,s:o,s:i,s:o,s:o,s:b}", "service",
                                  mtb_jstr(ca, "service"), "platform", mtb_jstr(ca, "platform"), "variant", mtb_jstr(ca, "variant"),
                                  "mode", mtb_jstr(ca, "mode"), "workload", json_object_get(ca, "workload"), "emulated",
                                  emu, "kernel_a", mtb_jstr(ca, "kernel"), "kernel_b", mtb_jstr(cb, "kernel"), "runs_a",
                                  (int)A->n, "runs_b", (int)B->n, "ops_a", jreal(stats_median(A->ops, A->n)), "ops_b",
                                  jreal(stats_median(B->ops, B->n)), "pairs", (int)np, "delta", delta,
                                  "mann_whitney_p", have_p ? json_real(mw.p) : json_null(), "significant",
                                  have_p && mw.p < 0.05);
            /* each kernel's overhead of this configuration, where there is one */
            size_t i;
            json_t *ov;
            json_array_foreach(overheads, i, ov)
            {
                if (strcmp(mtb_jstr(ov, "service"), mtb_jstr(ca, "service")) || strcmp(mtb_jstr(ov, "variant"), mtb_jstr(ca, "variant")) ||
                    strcmp(mtb_jstr(ov, "mode"), mtb_jstr(ca, "mode")) || strcmp(mtb_jstr(ov, "platform"), mtb_jstr(ca, "platform")) ||
                    !mtb_workload_equal(json_object_get(ov, "workload"), json_object_get(ca, "workload")))
                    continue;
                if (!strcmp(mtb_jstr(ov, "kernel"), mtb_jstr(ca, "kernel")))
                    json_object_set(o, "slowdown_a", json_object_get(ov, "slowdown"));
                if (!strcmp(mtb_jstr(ov, "kernel"), mtb_jstr(cb, "kernel")))
                    json_object_set(o, "slowdown_b", json_object_get(ov, "slowdown"));
            }
            json_object_set_new(o, "note",
                emu ? json_sprintf("measured on platform %s (emulated): under TCG/emulation no kernel difference is "
                                   "expected; the TCMA1 effect shows only on MTE hardware", mtb_jstr(ca, "platform"))
                    : json_sprintf("measured on platform %s", mtb_jstr(ca, "platform")));
            json_array_append_new(out, o);
        }
    return out;
}

/* The median over a configuration's runs of each perf event per request
 * (records' perf.per_request); NULL when no run counted any. */
static json_t *perf_per_request(json_t *records, const char *key)
{
    json_t *vals = json_object();
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        if (strcmp(mtb_jstr(rec, "status"), "ok"))
            continue;
        json_t *pr = json_object_get(json_object_get(rec, "perf"), "per_request");
        if (!json_object_size(pr))
            continue;
        char *k = config_key(rec);
        int same = !strcmp(k, key);
        free(k);
        if (!same)
            continue;
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
        json_object_set_new(out, ev, json_real(stats_median(x, n)));
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

json_t *mtb_summary_build(json_t *records)
{
    struct series *ss = mtb_calloc(json_array_size(records) + 1, sizeof *ss);
    size_t ns = 0;
    size_t i;
    json_t *rec;
    int emulated = 0;
    json_t *warnings = json_array();
    json_array_foreach(records, i, rec)
    {
        if (strcmp(mtb_jstr(rec, "status"), "ok") != 0)
            continue;
        json_t *sum = json_object_get(rec, "summary");
        if (!json_is_object(sum) || !(mtb_jnum(sum, "ops_per_sec") >= 0))
            continue;
        char *k = config_key(rec);
        struct series *s = NULL;
        for (size_t j = 0; j < ns; j++)
            if (!strcmp(ss[j].key, k))
                s = &ss[j];
        if (!s) {
            s = &ss[ns++];
            s->key = k;
            s->bkey = base_key(rec);
            s->nkkey = nokernel_key(rec);
            s->first = rec;
        } else {
            free(k);
        }
        if (s->n >= MAXRUNS)
            continue;
        s->ops[s->n] = mtb_jnum(sum, "ops_per_sec");
        for (size_t p = 0; p < NPCT; p++)
            s->lat[p][s->n] = latency_of(rec, &pcts[p]);
        s->rep[s->n] = (int)json_integer_value(json_object_get(json_object_get(rec, "config"), "rep"));
        s->n++;
        if (json_is_true(json_object_get(sum, "client_bound")))
            s->client_bound = 1;
        if (json_is_true(json_object_get(json_object_get(rec, "platform"), "emulated")))
            emulated = 1;
    }

    json_t *configs = json_array();
    for (size_t j = 0; j < ns; j++) {
        struct series *s = &ss[j];
        json_t *c = json_object_get(s->first, "config");
        json_t *pl = json_object_get(s->first, "platform");
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:i,s:o,s:b,s:b}", "service", mtb_jstr(c, "service"), "variant",
                              mtb_jstr(c, "variant"), "mode", mtb_jstr(c, "mode"), "platform", mtb_jstr(c, "platform"), "kernel",
                              mtb_jstr(c, "kernel"), "workload", json_object_get(c, "workload"), "runs", (int)s->n,
                              "ops_per_sec", med_ci(s->ops, s->n), "client_bound", s->client_bound, "emulated",
                              json_is_true(json_object_get(pl, "emulated")));
        for (size_t p = 0; p < NPCT; p++) {
            double v[MAXRUNS];
            size_t m = finite_of(s->lat[p], s->n, v);
            json_object_set_new(o, pcts[p].key, med_ci(v, m));
        }
        char name[256];
        config_warnings(o, cfg_name(c, name, sizeof name), warnings);
        json_t *ppr = perf_per_request(records, s->key);
        if (ppr)
            json_object_set_new(o, "perf_per_request", ppr);
        json_array_append_new(configs, o);
    }

    json_t *overheads = overheads_of(ss, ns, warnings);
    json_t *geomeans = geomeans_of(overheads);
    json_t *kernels = kernels_of(ss, ns, overheads);
    for (size_t j = 0; j < ns; j++) {
        free(ss[j].key);
        free(ss[j].bkey);
        free(ss[j].nkkey);
    }
    free(ss);
    json_t *cores = cores_of(configs, overheads);
    return json_pack("{s:s,s:b,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "schema", "mtebench-summary/1", "emulated", emulated,
                     "label", emulated ? "emulated: not hardware timing" : "hardware timing", "configs", configs,
                     "overheads", overheads, "geomeans", geomeans, "kernels", kernels, "cores", cores, "warnings",
                     warnings, "environment", environment(records));
}

void mtb_summary_fmt_int(char *buf, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
        return;
    }
    long long x = llround(v);
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", x < 0 ? -x : x);
    size_t len = strlen(tmp), o = 0;
    if (x < 0 && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
}

int mtb_summary_low_conf(json_t *ci) { return json_is_object(ci) && mtb_jnum(ci, "conf") < CONF - 1e-9; }

void mtb_summary_print(json_t *sum, FILE *out)
{
    json_t *configs = json_object_get(sum, "configs");
    int emu = json_is_true(json_object_get(sum, "emulated"));
    int starred = 0;
    size_t i;
    json_t *c;
    char last[512] = "";
    json_array_foreach(configs, i, c)
    {
        json_t *w = json_object_get(c, "workload");
        char *head = mtb_asprintf("%s on %s, kernel %s: mix %s, %lld conns, pipeline %lld, %g s per run",
                                  mtb_jstr(c, "service"), mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), mtb_jstr(w, "mix"),
                                  (long long)mtb_jnum(w, "conns"), (long long)mtb_jnum(w, "pipeline"), mtb_jnum(w, "duration_s"));
        if (strcmp(head, last)) {
            fprintf(out, "\n%s%s\n", head, emu ? "  [emulated: not hardware timing]" : "");
            fprintf(out, "  %-16s %4s  %-32s %10s %10s %10s\n", "config", "runs", "ops/s median [95% CI]", "p50 us", "p99 us", "p99.9 us");
            snprintf(last, sizeof last, "%s", head);
        }
        free(head);
        json_t *ops = json_object_get(c, "ops_per_sec");
        char m[32], lo[32], hi[32], a[32], b[32], d[32];
        mtb_summary_fmt_int(m, sizeof m, mtb_jnum(ops, "median"));
        mtb_summary_fmt_int(lo, sizeof lo, mtb_jnum(ops, "lo"));
        mtb_summary_fmt_int(hi, sizeof hi, mtb_jnum(ops, "hi"));
        mtb_summary_fmt_int(a, sizeof a, mtb_jnum(json_object_get(c, "p50_us"), "median"));
        mtb_summary_fmt_int(b, sizeof b, mtb_jnum(json_object_get(c, "p99_us"), "median"));
        mtb_summary_fmt_int(d, sizeof d, mtb_jnum(json_object_get(c, "p999_us"), "median"));
        char cfg[64], ci[128], cores[24] = "";
        json_t *wc = json_object_get(json_object_get(c, "workload"), "cores");
        if (json_is_integer(wc)) /* a point of a core sweep */
            snprintf(cores, sizeof cores, " %lldc", (long long)json_integer_value(wc));
        snprintf(cfg, sizeof cfg, "%s/%s%s", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), cores);
        snprintf(ci, sizeof ci, "%s [%s - %s]%s", m, lo, hi, mtb_summary_low_conf(ops) ? "*" : "");
        starred |= mtb_summary_low_conf(ops);
        fprintf(out, "  %-16s %4d  %-32s %10s %10s %10s%s\n", cfg, (int)json_integer_value(json_object_get(c, "runs")),
                ci, a, b, d, json_is_true(json_object_get(c, "client_bound")) ? "  client-bound" : "");
    }
    json_t *o;
    json_array_foreach(json_object_get(sum, "overheads"), i, o)
    {
        json_t *s = json_object_get(o, "slowdown"), *p = json_object_get(o, "p99_ratio");
        json_t *pv = json_object_get(o, "mann_whitney_p");
        json_t *oc = json_object_get(json_object_get(o, "workload"), "cores");
        char ocs[32] = "";
        if (json_is_integer(oc))
            snprintf(ocs, sizeof ocs, " at %lld core%s", (long long)json_integer_value(oc), json_integer_value(oc) == 1 ? "" : "s");
        fprintf(out, "  overhead %s/%s vs plain/off%s: %.3fx [%.3f - %.3f]%s per operation (%d pairs), "
                "p99 x%.3f [%.3f - %.3f]%s",
                mtb_jstr(o, "variant"), mtb_jstr(o, "mode"), ocs, mtb_jnum(s, "median"), mtb_jnum(s, "lo"), mtb_jnum(s, "hi"),
                mtb_summary_low_conf(s) ? "*" : "", (int)json_integer_value(json_object_get(o, "pairs")),
                mtb_jnum(p, "median"), mtb_jnum(p, "lo"), mtb_jnum(p, "hi"), mtb_summary_low_conf(p) ? "*" : "");
        if (json_is_number(pv))
            fprintf(out, ", Mann-Whitney p=%.3g", json_number_value(pv));
        json_t *sq = json_object_get(o, "sequential");
        if (json_is_object(sq)) {
            /* REPS=auto: "+-1.7% after 9 pairs" or "+-6.3% after 15 min: noisy machine" */
            double hw = mtb_jnum(s, "rel_halfwidth");
            if (json_is_true(json_object_get(sq, "reached")))
                fprintf(out, "; +-%.1f%% after %d pairs", 100 * hw, (int)json_integer_value(json_object_get(o, "pairs")));
            else
                fprintf(out, "; +-%.1f%% after %d pairs (at most %g min): noisy machine, see warnings", 100 * hw,
                        (int)json_integer_value(json_object_get(o, "pairs")), mtb_jnum(sq, "max_time_s") / 60);
        }
        fprintf(out, "%s\n", emu ? "  [emulated]" : "");
        starred |= mtb_summary_low_conf(s);
    }
    int seq = 0;
    json_array_foreach(json_object_get(sum, "overheads"), i, o) seq |= json_is_object(json_object_get(o, "sequential"));
    if (starred && seq)
        fprintf(out, "  * too few pairs for the level of REPS=auto's looks before MAX_TIME; shown is [min - max] of "
                     "the runs, with lower confidence; raise MAX_TIME\n");
    else if (starred)
        fprintf(out, "  * fewer runs than a 95%% interval needs (6 pairs); shown is [min - max] of the runs, "
                     "with lower confidence; add REPS\n");
    json_t *w;
    json_array_foreach(json_object_get(sum, "warnings"), i, w) fprintf(out, "  warning: %s\n", json_string_value(w));
    if (emu)
        fprintf(out, "  Emulated (qemu-aarch64): ratios include emulation cost; not hardware MTE overheads.\n");
}

/* "1,234 [1,100 – 1,300]" or "-" */
static void md_ci(FILE *f, json_t *ci, int with_ci)
{
    char m[32], lo[32], hi[32];
    if (!json_is_object(ci)) {
        fprintf(f, "-");
        return;
    }
    mtb_summary_fmt_int(m, sizeof m, mtb_jnum(ci, "median"));
    mtb_summary_fmt_int(lo, sizeof lo, mtb_jnum(ci, "lo"));
    mtb_summary_fmt_int(hi, sizeof hi, mtb_jnum(ci, "hi"));
    if (with_ci && mtb_jnum(ci, "lo") != mtb_jnum(ci, "hi"))
        fprintf(f, "%s [%s – %s]%s", m, lo, hi, mtb_summary_low_conf(ci) ? "*" : "");
    else
        fprintf(f, "%s", m);
}

/* a ratio CI ("median", or "geomean") as "1.234x [1.1 – 1.3]", or a delta as "+1.2% [...]" */
static void md_ratio(FILE *f, json_t *ci, int delta)
{
    double m = json_is_number(json_object_get(ci, "median")) ? mtb_jnum(ci, "median") : mtb_jnum(ci, "geomean");
    if (!json_is_object(ci) || isnan(m)) {
        fprintf(f, "-");
        return;
    }
    if (delta)
        fprintf(f, "%+.1f%% [%+.1f%% – %+.1f%%]%s", 100 * m, 100 * mtb_jnum(ci, "lo"), 100 * mtb_jnum(ci, "hi"),
                mtb_summary_low_conf(ci) ? "*" : "");
    else
        fprintf(f, "%.3fx [%.3f – %.3f]%s", m, mtb_jnum(ci, "lo"), mtb_jnum(ci, "hi"), mtb_summary_low_conf(ci) ? "*" : "");
}

char *mtb_summary_markdown(json_t *sum)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int emu = json_is_true(json_object_get(sum, "emulated"));
    const char *em = emu ? " (emulated)" : "";
    fprintf(f, "# mtebench summary%s\n\n", emu ? " (emulated: not hardware timing)" : "");
    fprintf(f, "## Throughput and latency%s\n\nMedians over runs with 95%% CIs (order statistics; `*`: too few runs "
               "for 95%%, the interval is [min – max] with the confidence shown). Overhead = baseline ops/s ÷ tagged "
               "ops/s for each interleaved pair of runs (paired by repetition), median of the pairs.\n\n", em);
    fprintf(f, "| service | workload | platform | kernel | config | runs | ops/s [95%% CI] | conf | p50 µs | p99 µs | "
               "p99.9 µs | overhead [CI] | Mann–Whitney p |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    size_t i, j;
    json_t *c, *o;
    json_array_foreach(json_object_get(sum, "configs"), i, c)
    {
        json_t *ops = json_object_get(c, "ops_per_sec"), *w = json_object_get(c, "workload");
        fprintf(f, "| %s | mix %s, %lld conns | %s%s | %s | %s/%s | %d | ", mtb_jstr(c, "service"), mtb_jstr(w, "mix"),
                (long long)mtb_jnum(w, "conns"), mtb_jstr(c, "platform"), json_is_true(json_object_get(c, "emulated")) ? " (emulated)" : "",
                mtb_jstr(c, "kernel"), mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), (int)json_integer_value(json_object_get(c, "runs")));
        md_ci(f, ops, 1);
        fprintf(f, " | %.0f%% | ", 100 * mtb_jnum(ops, "conf"));
        md_ci(f, json_object_get(c, "p50_us"), 0);
        fprintf(f, " | ");
        md_ci(f, json_object_get(c, "p99_us"), 0);
        fprintf(f, " | ");
        md_ci(f, json_object_get(c, "p999_us"), 0);
        fprintf(f, " | ");
        json_t *match = NULL;
        json_array_foreach(json_object_get(sum, "overheads"), j, o) if (
            !strcmp(mtb_jstr(o, "service"), mtb_jstr(c, "service")) && !strcmp(mtb_jstr(o, "variant"), mtb_jstr(c, "variant")) &&
            !strcmp(mtb_jstr(o, "mode"), mtb_jstr(c, "mode")) && !strcmp(mtb_jstr(o, "platform"), mtb_jstr(c, "platform")) &&
            !strcmp(mtb_jstr(o, "kernel"), mtb_jstr(c, "kernel")) && mtb_workload_equal(json_object_get(o, "workload"), w)) match = o;
        if (match) {
            md_ratio(f, json_object_get(match, "slowdown"), 0);
            json_t *pv = json_object_get(match, "mann_whitney_p");
            if (json_is_number(pv))
                fprintf(f, " | %.3g |\n", json_number_value(pv));
            else
                fprintf(f, " | - |\n");
        } else {
            fprintf(f, "%s | |\n", !strcmp(mtb_jstr(c, "variant"), "plain") && !strcmp(mtb_jstr(c, "mode"), "off") ? "baseline" : "-");
        }
    }
    if (json_array_size(json_object_get(sum, "geomeans"))) {
        fprintf(f, "\n## Geometric mean of overheads%s\n\nAcross services and workloads; 95%% CI by bootstrap-t on "
                   "the log scale.\n\n| config | platform | kernel | n | geometric mean [CI] | over |\n|---|---|---|---|---|---|\n", em);
        json_array_foreach(json_object_get(sum, "geomeans"), i, o)
        {
            fprintf(f, "| %s/%s | %s | %s | %d | ", mtb_jstr(o, "variant"), mtb_jstr(o, "mode"), mtb_jstr(o, "platform"),
                    mtb_jstr(o, "kernel"), (int)json_integer_value(json_object_get(o, "n")));
            md_ratio(f, json_object_get(o, "slowdown"), 0);
            fprintf(f, " | ");
            json_t *m;
            json_array_foreach(json_object_get(o, "of"), j, m) fprintf(f, "%s%s", j ? ", " : "", json_string_value(m));
            fprintf(f, " |\n");
        }
    }
    if (json_array_size(json_object_get(sum, "kernels"))) {
        fprintf(f, "\n## Kernel comparison%s\n\nDelta = kernel B ops/s ÷ kernel A ops/s − 1 for runs paired by "
                   "repetition (median of pairs, 95%% CI); significance by Mann–Whitney U on the runs' throughput.\n\n"
                   "| service | config | platform | kernel A | kernel B | ops/s A | ops/s B | delta [CI] | Mann–Whitney p | "
                   "overhead A | overhead B |\n|---|---|---|---|---|---|---|---|---|---|---|\n", em);
        json_array_foreach(json_object_get(sum, "kernels"), i, o)
        {
            char a[32], b[32];
            mtb_summary_fmt_int(a, sizeof a, mtb_jnum(o, "ops_a"));
            mtb_summary_fmt_int(b, sizeof b, mtb_jnum(o, "ops_b"));
            fprintf(f, "| %s | %s/%s | %s%s | %s | %s | %s | %s | ", mtb_jstr(o, "service"), mtb_jstr(o, "variant"), mtb_jstr(o, "mode"),
                    mtb_jstr(o, "platform"), json_is_true(json_object_get(o, "emulated")) ? " (emulated)" : "",
                    mtb_jstr(o, "kernel_a"), mtb_jstr(o, "kernel_b"), a, b);
            md_ratio(f, json_object_get(o, "delta"), 1);
            json_t *pv = json_object_get(o, "mann_whitney_p");
            if (json_is_number(pv))
                fprintf(f, " | %.3g%s | ", json_number_value(pv), json_is_true(json_object_get(o, "significant")) ? " (significant)" : " (not significant)");
            else
                fprintf(f, " | - | ");
            md_ratio(f, json_object_get(o, "slowdown_a"), 0);
            fprintf(f, " | ");
            md_ratio(f, json_object_get(o, "slowdown_b"), 0);
            fprintf(f, " |\n");
        }
        json_t *notes = json_array();
        json_array_foreach(json_object_get(sum, "kernels"), i, o) add_unique(notes, mtb_jstr(o, "note"));
        json_array_foreach(notes, i, o) fprintf(f, "\n> Kernel comparison %s.\n", json_string_value(o));
        json_decref(notes);
    }
    if (json_array_size(json_object_get(sum, "cores"))) {
        fprintf(f, "\n## Throughput and overhead against server cores%s\n\nEach point of the core sweep runs the "
                   "service on that many CPUs of the profile (threads, workers, clients set to match); overhead as "
                   "above.\n\n| service | workload | platform | kernel | config | cores | service CPUs | ops/s [95%% CI] | "
                   "overhead [CI] |\n|---|---|---|---|---|---|---|---|---|\n", em);
        json_array_foreach(json_object_get(sum, "cores"), i, o)
        {
            fprintf(f, "| %s | %s | %s | %s | %s/%s | %lld%s%s | %s | ", mtb_jstr(o, "service"), mtb_jstr(o, "workload"),
                    mtb_jstr(o, "platform"), mtb_jstr(o, "kernel"), mtb_jstr(o, "variant"), mtb_jstr(o, "mode"),
                    (long long)mtb_jnum(o, "cores"), *mtb_jstr(o, "core_type") ? " " : "", mtb_jstr(o, "core_type"),
                    mtb_jstr(o, "service_cpus"));
            md_ci(f, json_object_get(o, "ops_per_sec"), 1);
            fprintf(f, " | ");
            if (json_is_object(json_object_get(o, "slowdown")))
                md_ratio(f, json_object_get(o, "slowdown"), 0);
            else
                fprintf(f, "%s", !strcmp(mtb_jstr(o, "variant"), "plain") ? "baseline" : "-");
            fprintf(f, " |\n");
        }
    }
    int any_perf = 0;
    json_array_foreach(json_object_get(sum, "configs"), i, c) any_perf |= json_is_object(json_object_get(c, "perf_per_request"));
    if (any_perf) {
        fprintf(f, "\n## perf events per request%s\n\nCounted on the service for the measurement window only "
                   "(perf stat); median over runs of event count ÷ requests.\n\n| service | workload | config | events "
                   "per request |\n|---|---|---|---|\n", em);
        json_array_foreach(json_object_get(sum, "configs"), i, c)
        {
            json_t *pr = json_object_get(c, "perf_per_request");
            if (!json_is_object(pr))
                continue;
            json_t *w = json_object_get(c, "workload");
            char cores[32] = "";
            if (json_is_integer(json_object_get(w, "cores")))
                snprintf(cores, sizeof cores, ", %lld cores", (long long)mtb_jnum(w, "cores"));
            fprintf(f, "| %s | %s%s | %s/%s | ", mtb_jstr(c, "service"), mtb_jstr(w, "name"), cores,
                    mtb_jstr(c, "variant"), mtb_jstr(c, "mode"));
            const char *ev;
            json_t *v;
            int first = 1;
            json_object_foreach(pr, ev, v)
            {
                fprintf(f, "%s%s %.4g", first ? "" : ", ", ev, json_number_value(v));
                first = 0;
            }
            fprintf(f, " |\n");
        }
    }
    json_t *w;
    if (json_array_size(json_object_get(sum, "warnings")))
        fprintf(f, "\n## Warnings\n\n");
    json_array_foreach(json_object_get(sum, "warnings"), i, w) fprintf(f, "- %s\n", json_string_value(w));
    json_t *env = json_object_get(sum, "environment");
    if (json_is_object(env)) {
        static const char *keys[] = { "cpu_model", "midr", "microcode", "cpus", "kernels", "kernel_cmdline", "mte",
                                      "platforms", "qemu", "glibc", "compilers", "builds", "pinning", "quiet",
                                      "mtebench_versions" };
        static const char *labels[] = { "CPU model", "MIDR", "microcode", "cores", "kernel", "kernel command line", "MTE",
                                        "platform", "QEMU", "glibc", "compilers", "builds", "pinning (read back)",
                                        "quiet-machine check", "mtebench version" };
        fprintf(f, "\n## Environment\n\n");
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            json_t *a = json_object_get(env, keys[k]);
            if (!json_array_size(a))
                continue;
            fprintf(f, "- %s: ", labels[k]);
            json_array_foreach(a, j, w) fprintf(f, "%s%s", j ? "; " : "", json_string_value(w));
            fprintf(f, "\n");
        }
        fprintf(f, "- dates: %s – %s\n", mtb_jstr(env, "first_started"), mtb_jstr(env, "last_finished"));
    }
    if (emu)
        fprintf(f, "\n> Measured under aarch64 user-mode emulation (qemu-aarch64 -cpu max). Emulation cost is "
                   "not MTE cost: these ratios are not hardware overheads.\n");
    fclose(f);
    return buf;
}
