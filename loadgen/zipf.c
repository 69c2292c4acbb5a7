/* zipf.c - rejection-inversion Zipf sampler. */
#include "loadgen/zipf.h"
#include <errno.h>
#include <math.h>

/* log1p(x)/x and expm1(x)/x, accurate near 0 */
static double log1p_over(double x)
{
    if (fabs(x) > 1e-8)
        return log1p(x) / x;
    return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

static double expm1_over(double x)
{
    if (fabs(x) > 1e-8)
        return expm1(x) / x;
    return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
}

/* h(x) = x^-s ; H(x) = integral of h, shifted so that it is defined for s = 1 */
static double zh(double s, double x) { return exp(-s * log(x)); }

static double zH(double s, double x)
{
    double lx = log(x);
    return expm1_over((1.0 - s) * lx) * lx;
}

static double zH_inv(double s, double y)
{
    double t = y * (1.0 - s);
    if (t < -1.0)
        t = -1.0;
    return exp(log1p_over(t) * y);
}

int mtl_zipf_init(struct mtl_zipf *z, uint64_t n, double s)
{
    if (n < 1 || !(s > 0.0) || s > 100.0)
        return EINVAL;
    z->n = n;
    z->s = s;
    z->h_x1 = zH(s, 1.5) - 1.0;
    z->h_n = zH(s, (double)n + 0.5);
    z->accept = 2.0 - zH_inv(s, zH(s, 2.5) - zh(s, 2.0));
    return 0;
}

uint64_t mtl_zipf_sample(const struct mtl_zipf *z, struct mtl_rng *r)
{
    for (;;) {
        double u = z->h_n + mtl_rng_double(r) * (z->h_x1 - z->h_n);
        double x = zH_inv(z->s, u);
        double kd = floor(x + 0.5);
        uint64_t k;

        if (kd < 1.0)
            kd = 1.0;
        else if (kd > (double)z->n)
            kd = (double)z->n;
        k = (uint64_t)kd;
        if (kd - x <= z->accept || u >= zH(z->s, kd + 0.5) - zh(z->s, kd))
            return k - 1;
    }
}

double mtl_zipf_pmf(const struct mtl_zipf *z, uint64_t k)
{
    double norm = 0.0;
    uint64_t i;
    for (i = 1; i <= z->n; i++)
        norm += zh(z->s, (double)i);
    return zh(z->s, (double)(k + 1)) / norm;
}
