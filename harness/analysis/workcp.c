/* workcp.c - see workcp.h */
#include "analysis/workcp.h"
#include "analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int mtb_workcp_detect(const double *y, const int *g, size_t n, double alpha, double min_change, size_t window,
                      struct mtb_workcp **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if ((n && (!y || !g)) || !window || !(alpha > 0 && alpha < 1))
        return -EINVAL;
    /* the nights: each one's value (the median of its points) and first point */
    double *v = calloc(n + 1, sizeof *v);
    size_t *first = calloc(n + 1, sizeof *first), nn = 0;
    struct mtb_workcp *cp = calloc(n + 1, sizeof *cp);
    if (!v || !first || !cp) {
        free(v), free(first), free(cp);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && g[j] == g[i])
            j++;
        first[nn] = i;
        v[nn++] = mtb_stats_median(y + i, j - i);
        i = j;
    }
    size_t seg = 0, nc = 0; /* the first night of the current segment */
    for (size_t k = 0; k < nn; k++) {
        size_t from = k - seg > window ? k - window : seg, m = k - from;
        if (m < MTB_WORKCP_MIN_NIGHTS || !isfinite(v[k]))
            continue;
        double mean = mtb_stats_mean(v + from, m), sd = mtb_stats_stddev(v + from, m);
        double q = mtb_stats_t_quantile(alpha, (double)(m - 1));
        double thr = fmax(fmax(q * sd * sqrt(1 + 1 / (double)m), MTB_WORKCP_FLOOR), min_change * fabs(mean));
        if (!(fabs(v[k] - mean) > thr))
            continue;
        cp[nc++] = (struct mtb_workcp){ .index = first[k], .before = mean, .after = v[k], .sd = sd,
                                        .threshold = thr, .n_before = m };
        seg = k;
    }
    free(v);
    free(first);
    *out = cp;
    *nout = nc;
    return 0;
}
