/* lathist.c - see lathist.h */
#include "analysis/lathist.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>

double mtb_hist_percentile(const double *val, const double *cnt, size_t n, double p)
{
    double total = 0;
    if (!val || !cnt || !(p >= 0 && p <= 1))
        return NAN;
    for (size_t i = 0; i < n; i++)
        total += cnt[i];
    if (!(total > 0))
        return NAN;
    double want = ceil(p * total - 1e-9);
    if (want < 1)
        want = 1;
    double cum = 0;
    for (size_t i = 0; i < n; i++) {
        cum += cnt[i];
        if (cum >= want)
            return val[i];
    }
    return val[n - 1];
}

size_t mtb_hist_spectrum(const double *val, const double *cnt, size_t n, double *pct, double *v, size_t max)
{
    double total = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        total += cnt[i];
    if (!(total > 0) || max == 0)
        return 0;
    for (int k = 0; m + 1 < max; k++) {
        double p = 1 - pow(2, -k / 5.0);
        if (1 / (1 - p) > total)
            break;
        pct[m] = p;
        v[m] = mtb_hist_percentile(val, cnt, n, p);
        m++;
    }
    if (total > 1) { /* the maximum, at the last point the sample resolves */
        pct[m] = 1 - 1 / total;
        v[m] = val[n - 1];
        m++;
    }
    return m;
}

struct bucket {
    double v, c;
};

static int bucket_cmp(const void *a, const void *b)
{
    double x = ((const struct bucket *)a)->v, y = ((const struct bucket *)b)->v;
    return (x > y) - (x < y);
}

size_t mtb_hist_merge(json_t *hists, double **val, double **cnt)
{
    size_t total = 0, i, j;
    json_t *h, *b;
    *val = *cnt = NULL;
    json_array_foreach(hists, i, h) total += json_array_size(h);
    if (total == 0)
        return 0;
    struct bucket *bs = mtb_calloc(total, sizeof *bs);
    size_t n = 0;
    json_array_foreach(hists, i, h) json_array_foreach(h, j, b)
    {
        double v = json_number_value(json_array_get(b, 0)), c = json_number_value(json_array_get(b, 1));
        if (isfinite(v) && c > 0)
            bs[n++] = (struct bucket){ v, c };
    }
    qsort(bs, n, sizeof *bs, bucket_cmp);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (m && bs[m - 1].v == bs[k].v)
            bs[m - 1].c += bs[k].c;
        else
            bs[m++] = bs[k];
    }
    if (m) {
        *val = mtb_calloc(m, sizeof **val);
        *cnt = mtb_calloc(m, sizeof **cnt);
        for (size_t k = 0; k < m; k++) {
            (*val)[k] = bs[k].v;
            (*cnt)[k] = bs[k].c;
        }
    }
    free(bs);
    return m;
}
