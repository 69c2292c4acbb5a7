/* summary_alloc.c - the summary's "allocators" section: what an allocator
 * other than glibc's costs alone, and tagging under it beside tagging under
 * glibc (core/allocator.h; summary.c builds the series). */
#include "analysis/summary_series.h"
#include "core/allocator.h"
#include "core/record.h"
#include "core/summary_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* s's pair key with its allocator left out: what a configuration under one
 * allocator shares with the same one under another */
static char *noalloc_key(const struct series *s)
{
    char *k = mtb_strdup(s->bkey), *a = strstr(k, "|allocator=");
    if (a) {
        char *end = strchr(a + 1, '|');
        memmove(a, end ? end : a + strlen(a), strlen(end ? end : a + strlen(a)) + 1);
    }
    return k;
}

static int is_glibc(const struct series *s) { return !strcmp(s->cfg.allocator, "glibc"); }

/* The series of the same configuration as s (variant, mode, pair key but
 * the allocator) under glibc's allocator, or NULL */
static const struct series *under_glibc(const struct series *ss, size_t ns, const struct series *s)
{
    const struct mtb_rec_config *c = &s->cfg;
    char *k = noalloc_key(s);
    const struct series *g = NULL;
    for (size_t j = 0; j < ns && !g; j++) {
        const struct mtb_rec_config *cj = &ss[j].cfg;
        char *kj = noalloc_key(&ss[j]);
        if (is_glibc(&ss[j]) && !strcmp(k, kj) && !strcmp(c->variant, cj->variant) && !strcmp(c->mode, cj->mode))
            g = &ss[j];
        free(kj);
    }
    free(k);
    return g;
}

/* The baseline (plain/off) of s's own allocator, or NULL */
static const struct series *own_baseline(const struct series *ss, size_t ns, const struct series *s)
{
    for (size_t j = 0; j < ns; j++)
        if (!strcmp(ss[j].bkey, s->bkey) && mtb_rec_config_is_baseline(&ss[j].cfg))
            return &ss[j];
    return NULL;
}

/* Per repetition, a tagged series' slowdown against its baseline (baseline ops/s
 * over tagged ops/s) into out by rep; 0 where a repetition lacks either */
static void slowdowns_by_rep(const struct series *t, const struct series *b, double *out, int maxrep)
{
    for (int r = 0; r < maxrep; r++)
        out[r] = 0;
    for (size_t x = 0; x < t->n; x++)
        for (size_t y = 0; y < b->n; y++)
            if (t->rep[x] == b->rep[y] && t->rep[x] >= 0 && t->rep[x] < maxrep && OPS(t)[x] > 0 && OPS(b)[y] > 0)
                out[t->rep[x]] = OPS(b)[y] / OPS(t)[x];
}

/* What each allocator other than glibc's costs (issue: "three costs"): its
 * plain/off against glibc's plain/off (the allocator alone, the pair metrics
 * of the pairing rule but the allocator); each tagged configuration's
 * slowdown against its own allocator's plain/off beside the same one's under
 * glibc; and their difference, the ratio of the two slowdowns per
 * repetition (median and its order-statistic interval). */
json_t *mtb_summary_allocators(const struct series *ss, size_t ns)
{
    json_t *out = json_array();
    enum { MAXREP = 1024 };
    static double sa[MAXREP], sg[MAXREP];
    for (size_t j = 0; j < ns; j++) {
        const struct series *s = &ss[j];
        const struct mtb_rec_config *c = &s->cfg;
        if (is_glibc(s) || !mtb_rec_config_is_baseline(c))
            continue;
        const struct series *g = under_glibc(ss, ns, s);
        if (!g)
            continue;
        json_t *o = json_pack("{s:s,s:s,s:O,s:s,s:s,s:s,s:s}", "service", c->service, "allocator", c->allocator,
                              "workload", c->workload, "platform", c->platform, "kernel", c->kernel, "baseline", "plain/off",
                              "against", "glibc");
        mtb_summary_set_host(o, s->first);
        json_t *alone = json_object();
        size_t np = 0;
        mtb_summary_pair_metrics(alone, s, g, NULL, &np);
        json_object_set_new(alone, "pairs", json_integer((json_int_t)np));
        json_object_set_new(o, "allocator_alone", alone);
        json_t *tagging = json_array();
        for (size_t k = 0; k < ns; k++) {
            const struct series *t = &ss[k];
            const struct mtb_rec_config *tc = &t->cfg;
            if (mtb_rec_config_is_baseline(tc) || strcmp(t->bkey, s->bkey))
                continue;
            const struct series *tg = under_glibc(ss, ns, t), *gb = tg ? own_baseline(ss, ns, tg) : NULL;
            if (!tg || !gb)
                continue;
            slowdowns_by_rep(t, s, sa, MAXREP);
            slowdowns_by_rep(tg, gb, sg, MAXREP);
            double num[MAXRUNS], den[MAXRUNS];
            size_t nd = 0;
            for (int r = 0; r < MAXREP && nd < MAXRUNS; r++)
                if (sa[r] > 0 && sg[r] > 0) {
                    num[nd] = sa[r];
                    den[nd] = sg[r];
                    nd++;
                }
            json_t *row = json_pack("{s:s,s:s}", "variant", tc->variant, "mode", tc->mode);
            json_t *under = json_object(), *glibc = json_object();
            size_t n1 = 0, n2 = 0;
            mtb_summary_pair_metrics(under, t, s, NULL, &n1);
            mtb_summary_pair_metrics(glibc, tg, gb, NULL, &n2);
            struct mtb_sum_overhead ou, og; /* the pair metrics just made, read as the summary's rows are */
            mtb_sum_overhead_read(under, &ou);
            mtb_sum_overhead_read(glibc, &og);
            json_object_set(row, "slowdown", ou.metric[MTB_P_slowdown].j);
            json_object_set(row, "slowdown_glibc", og.metric[MTB_P_slowdown].j);
            json_decref(under);
            json_decref(glibc);
            json_object_set_new(row, "difference", mtb_summary_ratio_ci(num, den, nd));
            json_object_set_new(row, "pairs", json_integer((json_int_t)nd));
            json_array_append_new(tagging, row);
        }
        json_object_set_new(o, "tagging", tagging);
        json_object_set_new(o, "definition",
                            json_string("allocator_alone: this allocator's plain/off against glibc's plain/off of the "
                                        "same repetition (slowdown = glibc ops/s / this allocator's ops/s); tagging: "
                                        "each configuration's slowdown against its own allocator's plain/off "
                                        "(slowdown) and the same configuration's under glibc (slowdown_glibc); "
                                        "difference: slowdown / slowdown_glibc per repetition, median"));
        json_array_append_new(out, o);
    }
    return out;
}

