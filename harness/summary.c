/* summary.c - see summary.h */
#include "summary.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONF 0.95
#define NOISY 0.05 /* relative CI half-width above which we warn */

static const char *jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* What makes two runs the same configuration apart from variant/mode. */
static char *base_key(json_t *rec)
{
    json_t *c = json_object_get(rec, "config");
    json_t *w = json_object_get(c, "workload");
    char *wl = json_dumps(w, JSON_SORT_KEYS | JSON_COMPACT);
    char *k = mtb_asprintf("%s|%s|%s|%s", jstr(c, "service"), jstr(c, "platform"), jstr(c, "kernel"), wl);
    free(wl);
    return k;
}

static char *config_key(json_t *rec)
{
    json_t *c = json_object_get(rec, "config");
    char *b = base_key(rec);
    char *k = mtb_asprintf("%s|%s|%s", b, jstr(c, "variant"), jstr(c, "mode"));
    free(b);
    return k;
}

/* median with an order-statistic CI, as {"median","lo","hi","conf"} */
static json_t *med_ci(const double *x, size_t n)
{
    struct stats_ci ci;
    double ach = 0;
    if (n == 0 || stats_median_ci(x, n, CONF, &ci, &ach) != 0)
        return json_null();
    return json_pack("{s:f,s:f,s:f,s:f}", "median", ci.est, "lo", ci.lo, "hi", ci.hi, "conf", ach);
}

struct series {
    char *key, *bkey;
    json_t *first;           /* a representative record */
    double ops[256], p50[256], p99[256], p999[256];
    int rep[256];
    size_t n;
    int client_bound;
};

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
        if (strcmp(jstr(rec, "status"), "ok") != 0)
            continue;
        json_t *sum = json_object_get(rec, "summary");
        if (!sum)
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
            s->first = rec;
        } else {
            free(k);
        }
        if (s->n >= 256)
            continue;
        s->ops[s->n] = jnum(sum, "ops_per_sec");
        s->p50[s->n] = jnum(sum, "p50_us");
        s->p99[s->n] = jnum(sum, "p99_us");
        s->p999[s->n] = jnum(sum, "p999_us");
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
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:i,s:o,s:o,s:o,s:o,s:b}",
                              "service", jstr(c, "service"), "variant", jstr(c, "variant"),
                              "mode", jstr(c, "mode"), "platform", jstr(c, "platform"),
                              "kernel", jstr(c, "kernel"), "workload", json_object_get(c, "workload"),
                              "runs", (int)s->n, "ops_per_sec", med_ci(s->ops, s->n),
                              "p50_us", med_ci(s->p50, s->n), "p99_us", med_ci(s->p99, s->n),
                              "p999_us", med_ci(s->p999, s->n), "client_bound", s->client_bound);
        json_t *ops = json_object_get(o, "ops_per_sec");
        double med = jnum(ops, "median");
        int noisy = s->n >= 2 && med > 0 && (jnum(ops, "hi") - jnum(ops, "lo")) / 2 / med > NOISY;
        json_object_set_new(o, "noisy", json_boolean(noisy));
        if (noisy)
            json_array_append_new(warnings, json_sprintf("%s %s/%s: noisy: throughput CI half-width above 5%%; add repetitions",
                                                         jstr(c, "service"), jstr(c, "variant"), jstr(c, "mode")));
        if (s->client_bound)
            json_array_append_new(warnings, json_sprintf("%s %s/%s: client-bound: the load generator saturated a CPU; figures measure the client",
                                                         jstr(c, "service"), jstr(c, "variant"), jstr(c, "mode")));
        json_array_append_new(configs, o);
    }

    /* overhead of every non-baseline configuration against plain/off */
    json_t *overheads = json_array();
    for (size_t j = 0; j < ns; j++) {
        struct series *t = &ss[j];
        json_t *tc = json_object_get(t->first, "config");
        if (!strcmp(jstr(tc, "variant"), "plain") && !strcmp(jstr(tc, "mode"), "off"))
            continue;
        struct series *b = NULL;
        for (size_t k = 0; k < ns; k++) {
            json_t *bc = json_object_get(ss[k].first, "config");
            if (!strcmp(ss[k].bkey, t->bkey) && !strcmp(jstr(bc, "variant"), "plain") && !strcmp(jstr(bc, "mode"), "off"))
                b = &ss[k];
        }
        if (!b)
            continue;
        double slow[256], p99r[256];
        size_t np = 0;
        for (size_t x = 0; x < t->n; x++)
            for (size_t y = 0; y < b->n; y++)
                if (t->rep[x] == b->rep[y] && t->ops[x] > 0 && b->p99[y] > 0) {
                    slow[np] = b->ops[y] / t->ops[x];
                    p99r[np] = t->p99[x] / b->p99[y];
                    np++;
                }
        if (np == 0)
            continue;
        struct stats_mwu mw;
        json_t *pv = stats_mann_whitney(t->ops, t->n, b->ops, b->n, &mw) == 0 ? json_real(mw.p) : json_null();
        json_array_append_new(overheads,
            json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:i,s:o,s:o,s:o,s:s}", "service", jstr(tc, "service"),
                      "variant", jstr(tc, "variant"), "mode", jstr(tc, "mode"), "platform", jstr(tc, "platform"),
                      "kernel", jstr(tc, "kernel"), "workload", json_object_get(tc, "workload"),
                      "baseline", "plain/off", "pairs", (int)np, "slowdown", med_ci(slow, np),
                      "p99_ratio", med_ci(p99r, np), "mann_whitney_p", pv,
                      "definition", "slowdown = baseline ops/s / tagged ops/s per interleaved pair (median of pairs); p99_ratio = tagged p99 / baseline p99"));
    }
    for (size_t j = 0; j < ns; j++) {
        free(ss[j].key);
        free(ss[j].bkey);
    }
    free(ss);
    return json_pack("{s:s,s:b,s:s,s:o,s:o,s:o}", "schema", "mtebench-summary/1", "emulated", emulated,
                     "label", emulated ? "emulated: not hardware timing" : "hardware timing",
                     "configs", configs, "overheads", overheads, "warnings", warnings);
}

static void fmt_num(char *buf, size_t n, double v)
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

static int low_conf(json_t *ci) { return json_is_object(ci) && jnum(ci, "conf") < CONF - 1e-9; }

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
                                  jstr(c, "service"), jstr(c, "platform"), jstr(c, "kernel"), jstr(w, "mix"),
                                  (long long)jnum(w, "conns"), (long long)jnum(w, "pipeline"), jnum(w, "duration_s"));
        if (strcmp(head, last)) {
            fprintf(out, "\n%s%s\n", head, emu ? "  [emulated: not hardware timing]" : "");
            fprintf(out, "  %-16s %4s  %-32s %10s %10s %10s\n", "config", "runs", "ops/s median [95% CI]", "p50 us", "p99 us", "p99.9 us");
            snprintf(last, sizeof last, "%s", head);
        }
        free(head);
        json_t *ops = json_object_get(c, "ops_per_sec");
        char m[32], lo[32], hi[32], a[32], b[32], d[32];
        fmt_num(m, sizeof m, jnum(ops, "median"));
        fmt_num(lo, sizeof lo, jnum(ops, "lo"));
        fmt_num(hi, sizeof hi, jnum(ops, "hi"));
        fmt_num(a, sizeof a, jnum(json_object_get(c, "p50_us"), "median"));
        fmt_num(b, sizeof b, jnum(json_object_get(c, "p99_us"), "median"));
        fmt_num(d, sizeof d, jnum(json_object_get(c, "p999_us"), "median"));
        char cfg[64], ci[128];
        snprintf(cfg, sizeof cfg, "%s/%s", jstr(c, "variant"), jstr(c, "mode"));
        snprintf(ci, sizeof ci, "%s [%s - %s]%s", m, lo, hi, low_conf(ops) ? "*" : "");
        starred |= low_conf(ops);
        fprintf(out, "  %-16s %4d  %-32s %10s %10s %10s%s\n", cfg, (int)json_integer_value(json_object_get(c, "runs")),
                ci, a, b, d, json_is_true(json_object_get(c, "client_bound")) ? "  client-bound" : "");
    }
    json_t *o;
    json_array_foreach(json_object_get(sum, "overheads"), i, o)
    {
        json_t *s = json_object_get(o, "slowdown"), *p = json_object_get(o, "p99_ratio");
        json_t *pv = json_object_get(o, "mann_whitney_p");
        fprintf(out, "  overhead %s/%s vs plain/off: %.3fx [%.3f - %.3f]%s per operation (%d pairs), "
                "p99 x%.3f [%.3f - %.3f]%s",
                jstr(o, "variant"), jstr(o, "mode"), jnum(s, "median"), jnum(s, "lo"), jnum(s, "hi"),
                low_conf(s) ? "*" : "", (int)json_integer_value(json_object_get(o, "pairs")),
                jnum(p, "median"), jnum(p, "lo"), jnum(p, "hi"), low_conf(p) ? "*" : "");
        if (json_is_number(pv))
            fprintf(out, ", Mann-Whitney p=%.3g", json_number_value(pv));
        fprintf(out, "%s\n", emu ? "  [emulated]" : "");
        starred |= low_conf(s);
    }
    if (starred)
        fprintf(out, "  * fewer runs than a 95%% interval needs (6 pairs); shown is [min - max] of the runs, "
                     "with lower confidence; add REPS\n");
    json_t *w;
    json_array_foreach(json_object_get(sum, "warnings"), i, w) fprintf(out, "  warning: %s\n", json_string_value(w));
    if (emu)
        fprintf(out, "  Emulated (qemu-aarch64): ratios include emulation cost; not hardware MTE overheads.\n");
}

char *mtb_summary_markdown(json_t *sum)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int emu = json_is_true(json_object_get(sum, "emulated"));
    fprintf(f, "# mtebench summary%s\n\n", emu ? " (emulated: not hardware timing)" : "");
    fprintf(f, "| service | config | platform | kernel | mix | runs | ops/s median | 95%% CI | conf | p50 µs | p99 µs | p99.9 µs |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(sum, "configs"), i, c)
    {
        json_t *ops = json_object_get(c, "ops_per_sec");
        fprintf(f, "| %s | %s/%s | %s%s | %s | %s | %d | %.0f | %.0f – %.0f | %.0f%% | %.0f | %.0f | %.0f |\n",
                jstr(c, "service"), jstr(c, "variant"), jstr(c, "mode"), jstr(c, "platform"),
                emu ? " (emulated)" : "", jstr(c, "kernel"), jstr(json_object_get(c, "workload"), "mix"),
                (int)json_integer_value(json_object_get(c, "runs")), jnum(ops, "median"), jnum(ops, "lo"),
                jnum(ops, "hi"), 100 * jnum(ops, "conf"), jnum(json_object_get(c, "p50_us"), "median"),
                jnum(json_object_get(c, "p99_us"), "median"), jnum(json_object_get(c, "p999_us"), "median"));
    }
    fprintf(f, "\n## Overhead against plain/off\n\nSlowdown is baseline ops/s ÷ tagged ops/s for each "
               "interleaved pair of runs, summarised by the median of the pairs (as the 2026 study did).\n\n");
    fprintf(f, "| service | config | pairs | slowdown | CI | conf | p99 ratio | Mann–Whitney p |\n|---|---|---|---|---|---|---|---|\n");
    json_t *o;
    json_array_foreach(json_object_get(sum, "overheads"), i, o)
    {
        json_t *s = json_object_get(o, "slowdown"), *p = json_object_get(o, "p99_ratio");
        json_t *pv = json_object_get(o, "mann_whitney_p");
        char pbuf[32] = "-";
        if (json_is_number(pv))
            snprintf(pbuf, sizeof pbuf, "%.3g", json_number_value(pv));
        fprintf(f, "| %s | %s/%s | %d | %.3fx%s | %.3f – %.3f | %.0f%% | %.3f | %s |\n", jstr(o, "service"),
                jstr(o, "variant"), jstr(o, "mode"), (int)json_integer_value(json_object_get(o, "pairs")),
                jnum(s, "median"), emu ? " (emulated)" : "", jnum(s, "lo"), jnum(s, "hi"), 100 * jnum(s, "conf"),
                jnum(p, "median"), pbuf);
    }
    json_t *w;
    if (json_array_size(json_object_get(sum, "warnings")))
        fprintf(f, "\n## Warnings\n\n");
    json_array_foreach(json_object_get(sum, "warnings"), i, w) fprintf(f, "- %s\n", json_string_value(w));
    if (emu)
        fprintf(f, "\n> Measured under aarch64 user-mode emulation (qemu-aarch64 -cpu max). Emulation cost is "
                   "not MTE cost: these ratios are not hardware overheads.\n");
    fclose(f);
    return buf;
}
