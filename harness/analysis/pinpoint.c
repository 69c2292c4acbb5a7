/* pinpoint.c - Pinpoint's compare: min(Mann-Whitney, Kolmogorov-Smirnov),
 * a low and a high threshold (see pinpoint.h, docs/BISECT.md). */
#include "analysis/pinpoint.h"
#include "analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *mtb_pinpoint_verdict_name(enum mtb_pinpoint_verdict v)
{
    return v == PP_SAME ? "same" : v == PP_DIFFERENT ? "different" : "unknown";
}

double mtb_pinpoint_iqr(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    return mtb_stats_quantile(x, n, 0.75) - mtb_stats_quantile(x, n, 0.25);
}

double mtb_pinpoint_kolmogorov_q(double lambda)
{
    if (lambda < 0.2)
        return 1.0;
    double sum = 0, sign = 1;
    for (int k = 1; k <= 100; k++) {
        double t = exp(-2.0 * k * k * lambda * lambda);
        sum += sign * t;
        if (t < 1e-16)
            break;
        sign = -sign;
    }
    double q = 2 * sum;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* D as the integer max |i ny - j nx| over the points where both ECDFs have
 * taken every copy of a value (ties step together). */
static long ks_dint(const double *xs, size_t nx, const double *ys, size_t ny)
{
    size_t i = 0, j = 0;
    long best = 0;
    while (i < nx || j < ny) {
        double v = i < nx && (j >= ny || xs[i] <= ys[j]) ? xs[i] : ys[j];
        while (i < nx && xs[i] == v)
            i++;
        while (j < ny && ys[j] == v)
            j++;
        long d = labs((long)i * (long)ny - (long)j * (long)nx);
        if (d > best)
            best = d;
    }
    return best;
}

/* P(D < dint / (nx ny)) under the null: lattice paths from (0,0) to (nx,ny)
 * with every point strictly inside the band, over all C(nx+ny, nx) paths.
 * Counts are kept as fractions of the paths to each point (no overflow). */
static int ks_exact_inside(size_t nx, size_t ny, long dint, double *out)
{
    double *row = calloc(ny + 1, sizeof *row);
    if (!row)
        return -ENOMEM;
    /* row[j] holds paths to (i, j) / C(i + j, i) */
    for (size_t i = 0; i <= nx; i++)
        for (size_t j = 0; j <= ny; j++) {
            long d = labs((long)i * (long)ny - (long)j * (long)nx);
            if (d >= dint) {
                row[j] = 0;
                continue;
            }
            if (i == 0 && j == 0) {
                row[j] = 1;
                continue;
            }
            /* paths(i,j) = paths(i-1,j) + paths(i,j-1); as fractions of
             * C(i+j,i): weights i/(i+j) and j/(i+j) */
            double up = i > 0 ? row[j] * (double)i / (double)(i + j) : 0;
            double left = j > 0 ? row[j - 1] * (double)j / (double)(i + j) : 0;
            row[j] = up + left;
        }
    *out = row[ny];
    free(row);
    return 0;
}

int mtb_pinpoint_ks2(const double *x, size_t nx, const double *y, size_t ny, double *d_out, double *p_out)
{
    if (!x || !y || nx == 0 || ny == 0)
        return -EINVAL;
    double *xs = malloc(nx * sizeof *xs), *ys = malloc(ny * sizeof *ys);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return -ENOMEM;
    }
    memcpy(xs, x, nx * sizeof *xs);
    memcpy(ys, y, ny * sizeof *ys);
    mtb_stats_sort(xs, nx);
    mtb_stats_sort(ys, ny);
    long dint = ks_dint(xs, nx, ys, ny);
    free(xs);
    free(ys);
    double d = (double)dint / ((double)nx * (double)ny), p;
    if (dint == 0) {
        p = 1;
    } else if (nx + ny <= PP_KS_EXACT_MAX) {
        double inside;
        int rc = ks_exact_inside(nx, ny, dint, &inside);
        if (rc)
            return rc;
        p = 1 - inside;
    } else {
        double en = sqrt((double)nx * (double)ny / (double)(nx + ny));
        p = mtb_pinpoint_kolmogorov_q((en + 0.12 + 0.11 / en) * d);
    }
    if (d_out)
        *d_out = d;
    if (p_out)
        *p_out = p < 0 ? 0 : p > 1 ? 1 : p;
    return 0;
}

static double min_p(const double *a, size_t na, const double *b, size_t nb, double *p_mwu, double *p_ks)
{
    struct mtb_stats_mwu m;
    double pk = 1;
    if (mtb_stats_mann_whitney(a, na, b, nb, &m) != 0 || mtb_pinpoint_ks2(a, na, b, nb, NULL, &pk) != 0)
        return NAN;
    if (p_mwu)
        *p_mwu = m.p;
    if (p_ks)
        *p_ks = pk;
    return m.p < pk ? m.p : pk;
}

/* ---- the high threshold ---------------------------------------------------- */

#define HT_MAG_STEPS 40 /* tenths of an IQR: 0.1 .. 4.0 */
#define HT_N_MAX 200
#define HT_TRIALS 1000
static float ht_memo[HT_MAG_STEPS][HT_N_MAX + 1];
static pthread_mutex_t ht_lock = PTHREAD_MUTEX_INITIALIZER;

static double ht_simulate(int tenth, size_t n)
{
    struct mtb_stats_rng r;
    mtb_stats_rng_seed(&r, 0x70696e706f696e74ULL ^ ((uint64_t)tenth << 32) ^ n);
    double shift = tenth / 10.0 * 1.3489795; /* the IQR of N(0,1) */
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *ps = malloc(HT_TRIALS * sizeof *ps);
    double q = NAN;
    if (a && b && ps) {
        for (int t = 0; t < HT_TRIALS; t++) {
            for (size_t i = 0; i < n; i++) {
                a[i] = mtb_stats_rng_normal(&r);
                b[i] = mtb_stats_rng_normal(&r) + shift;
            }
            ps[t] = min_p(a, n, b, n, NULL, NULL);
        }
        q = mtb_stats_quantile(ps, HT_TRIALS, 0.99);
    }
    free(a);
    free(b);
    free(ps);
    return q;
}

double mtb_pinpoint_high_threshold(double magnitude, size_t n)
{
    if (!(magnitude > 0))
        magnitude = 0.1;
    int tenth = (int)lround(magnitude * 10);
    tenth = tenth < 1 ? 1 : tenth > HT_MAG_STEPS ? HT_MAG_STEPS : tenth;
    n = n < 2 ? 2 : n > HT_N_MAX ? HT_N_MAX : n;
    pthread_mutex_lock(&ht_lock);
    float v = ht_memo[tenth - 1][n];
    pthread_mutex_unlock(&ht_lock);
    if (v > 0)
        return v;
    double q = ht_simulate(tenth, n);
    if (!(q >= PP_LOW_THRESHOLD))
        q = PP_LOW_THRESHOLD;
    pthread_mutex_lock(&ht_lock);
    ht_memo[tenth - 1][n] = (float)q;
    pthread_mutex_unlock(&ht_lock);
    return q;
}

int mtb_pinpoint_compare(const double *a, size_t na, const double *b, size_t nb, double magnitude, struct mtb_pinpoint_cmp *out)
{
    if (!a || !b || na == 0 || nb == 0 || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    out->p = min_p(a, na, b, nb, &out->p_mwu, &out->p_ks);
    if (isnan(out->p))
        return -ENOMEM;
    out->magnitude = magnitude;
    out->n = na < nb ? na : nb;
    out->high = mtb_pinpoint_high_threshold(magnitude, out->n);
    out->v = out->p <= PP_LOW_THRESHOLD ? PP_DIFFERENT : out->p > out->high ? PP_SAME : PP_UNKNOWN;
    return 0;
}
