/* units.c - strict number / duration parsers. */
#include "loadgen/units.h"
#include "common/duration.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mtl_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    uint64_t mul = 1;

    if (!s || *s < '0' || *s > '9')
        return EINVAL;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return ERANGE;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1000ULL; break;
        case 'm': case 'M': mul = 1000000ULL; break;
        case 'g': case 'G': mul = 1000000000ULL; break;
        default: return EINVAL;
        }
        if (end[1])
            return EINVAL;
    }
    if (v > UINT64_MAX / mul)
        return ERANGE;
    *out = (uint64_t)v * mul;
    return 0;
}

int mtl_parse_double(const char *s, double *out)
{
    char *end;
    double v;

    if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
        return EINVAL;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < 0)
        return EINVAL;
    *out = v;
    return 0;
}

int mtl_parse_duration(const char *s, mtl_time_t *out)
{
    double secs; /* common/duration.c, shared with the harness */
    if (mtb_duration_parse(s, &secs) != 0)
        return EINVAL;
    if (secs * 1e9 > 1e18)
        return ERANGE;
    *out = (mtl_time_t)(secs * 1e9 + 0.5);
    return 0;
}
