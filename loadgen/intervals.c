/* intervals.c - per-second histograms by operation for the interval log (intervals.h). */
#include "common/atomicfile.h"
#include "loadgen/intervals.h"
#include "loadgen/engine.h"
#include "loadgen/hlog.h"
#include "loadgen/report.h"
#include "common/version.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtl_iv_init(struct mtl_intervals *iv)
{
    int k;
    memset(iv, 0, sizeof(*iv));
    for (k = 0; k < MTL_IV_KINDS; k++)
        if (mtl_hist_init(&iv->dense[k], MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST)) {
            mtl_iv_free(iv);
            return ENOMEM;
        }
    iv->on = 1;
    return 0;
}

void mtl_sparse_free(struct mtl_sparse *sp)
{
    free(sp->idx);
    free(sp->cnt);
    memset(sp, 0, sizeof(*sp));
}

void mtl_iv_free(struct mtl_intervals *iv)
{
    size_t s;
    int k;
    for (s = 0; s < iv->cap; s++)
        for (k = 0; k < MTL_IV_KINDS; k++)
            mtl_sparse_free(&iv->sec[s][k]);
    free(iv->sec);
    for (k = 0; k < MTL_IV_KINDS; k++)
        mtl_hist_free(&iv->dense[k]);
    memset(iv, 0, sizeof(*iv));
}

/* add the sparse buckets into h */
void mtl_sparse_expand(const struct mtl_sparse *sp, struct mtl_hist *h)
{
    size_t i;
    if (!sp->total)
        return;
    for (i = 0; i < sp->n; i++)
        h->counts[sp->idx[i]] += sp->cnt[i];
    h->total += sp->total;
    if (sp->min < h->min) h->min = sp->min;
    if (sp->max > h->max) h->max = sp->max;
    h->sum += sp->sum;
    h->sumsq += sp->sumsq;
}

/* replace sp by h's non-empty buckets */
int mtl_sparse_compact(const struct mtl_hist *h, struct mtl_sparse *sp)
{
    size_t i, n = 0;
    uint32_t *idx;
    uint64_t *cnt;

    for (i = 0; i < h->nbuckets; i++)
        n += h->counts[i] != 0;
    idx = malloc((n ? n : 1) * sizeof(*idx));
    cnt = malloc((n ? n : 1) * sizeof(*cnt));
    if (!idx || !cnt) {
        free(idx);
        free(cnt);
        return ENOMEM;
    }
    mtl_sparse_free(sp);
    sp->idx = idx;
    sp->cnt = cnt;
    for (i = 0; i < h->nbuckets; i++)
        if (h->counts[i]) {
            idx[sp->n] = (uint32_t)i;
            cnt[sp->n++] = h->counts[i];
        }
    sp->total = h->total;
    sp->min = h->min;
    sp->max = h->max;
    sp->sum = h->sum;
    sp->sumsq = h->sumsq;
    return 0;
}

static int reserve(struct mtl_intervals *iv, size_t seconds)
{
    size_t cap = iv->cap ? iv->cap : 64;
    void *n;
    if (seconds <= iv->cap)
        return 0;
    while (cap < seconds)
        cap *= 2;
    if (!(n = realloc(iv->sec, cap * sizeof(*iv->sec))))
        return ENOMEM;
    iv->sec = n;
    memset(&iv->sec[iv->cap], 0, (cap - iv->cap) * sizeof(*iv->sec));
    iv->cap = cap;
    return 0;
}

/* fold dense[k] (reset afterwards) into second s */
static int fold(struct mtl_intervals *iv, size_t s, int k)
{
    int rc;
    if (!iv->dense[k].total)
        return 0;
    if ((rc = reserve(iv, s + 1)) != 0)
        return rc;
    if (s >= iv->len)
        iv->len = s + 1;
    mtl_sparse_expand(&iv->sec[s][k], &iv->dense[k]);
    rc = mtl_sparse_compact(&iv->dense[k], &iv->sec[s][k]);
    mtl_hist_reset(&iv->dense[k]);
    return rc;
}

int mtl_iv_roll(struct mtl_intervals *iv, size_t s)
{
    int k, rc = 0;
    for (k = 0; k < MTL_IV_KINDS; k++)
        rc = rc ? rc : fold(iv, iv->cur, k);
    iv->cur = s;
    return rc;
}

int mtl_iv_add(struct mtl_intervals *dst, struct mtl_intervals *src)
{
    size_t s;
    int k, rc;

    if ((rc = mtl_iv_roll(src, src->cur)) != 0)
        return rc;
    for (s = 0; s < src->len; s++)
        for (k = 0; k < MTL_IV_KINDS; k++) {
            if (!src->sec[s][k].total)
                continue;
            mtl_sparse_expand(&src->sec[s][k], &dst->dense[k]);
            if ((rc = fold(dst, s, k)) != 0)
                return rc;
        }
    return 0;
}

void mtl_iv_get(const struct mtl_intervals *iv, size_t s, enum mtl_iv_kind k, struct mtl_hist *h)
{
    if (s < iv->len)
        mtl_sparse_expand(&iv->sec[s][k], h);
}

static const struct { const char *tag; enum mtl_iv_kind a, b; } tags[] = {
    { "request", MTL_IV_GET, MTL_IV_SET },
    { "GET", MTL_IV_GET, MTL_IV_GET },
    { "SET", MTL_IV_SET, MTL_IV_SET },
    { "request-uncorrected", MTL_IV_GET_UNC, MTL_IV_SET_UNC },
    { "GET-uncorrected", MTL_IV_GET_UNC, MTL_IV_GET_UNC },
    { "SET-uncorrected", MTL_IV_SET_UNC, MTL_IV_SET_UNC },
};

static int kind_used(const struct mtl_intervals *iv, enum mtl_iv_kind k)
{
    size_t s;
    for (s = 0; s < iv->len; s++)
        if (iv->sec[s][k].total)
            return 1;
    return 0;
}

static int write_intervals(FILE *f, const struct mtl_intervals *iv, double duration_s,
                           struct mtl_hist *h)
{
    size_t s, t, seconds = iv->len;
    int rc = 0;

    if (duration_s > 0 && (size_t)(duration_s + 0.999) > seconds)
        seconds = (size_t)(duration_s + 0.999);  /* silent seconds are intervals too */
    for (s = 0; s < seconds && !rc; s++) {
        double len = duration_s > (double)s && duration_s < (double)s + 1 ? duration_s - (double)s : 1.0;
        for (t = 0; t < sizeof(tags) / sizeof(tags[0]) && !rc; t++) {
            if (!kind_used(iv, tags[t].a) && !kind_used(iv, tags[t].b))
                continue;
            mtl_hist_reset(h);
            mtl_iv_get(iv, s, tags[t].a, h);
            if (tags[t].b != tags[t].a)
                mtl_iv_get(iv, s, tags[t].b, h);
            rc = mtl_hlog_write_interval(f, tags[t].tag, (double)s, len, h);
        }
    }
    return rc;
}

int mtl_iv_write_log(const char *path, const struct mtl_intervals *iv, double start_epoch,
                     double duration_s, const char *producer)
{
    struct mtl_hist h;
    char *tmp, who[200];
    FILE *f;
    int rc;

    if ((rc = mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST)) != 0)
        return rc;
    if (!(f = mtb_af_fopen(path, &tmp))) {
        rc = errno ? errno : ENOMEM;
        mtl_hist_free(&h);
        return rc;
    }
    if (!producer) {
        snprintf(who, sizeof(who), "mtload %s latency per second, tags request, GET, SET and their "
                 "-uncorrected (from the actual send time)", MTEBENCH_VERSION);
        producer = who;
    }
    rc = mtl_hlog_write_header(f, start_epoch, producer);
    if (!rc)
        rc = write_intervals(f, iv, duration_s, &h);
    mtl_hist_free(&h);
    return mtb_af_fclose(f, tmp, path, rc);
}
