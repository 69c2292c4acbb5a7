/* duration.c - see duration.h */
#include "common/duration.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mtb_duration_parse(const char *s, double *secs)
{
    static const struct { const char *sfx; double mul; } units[] = {
        { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 }, { "m", 60 }, { "h", 3600 }, { "", 1 },
    };
    if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].sfx)) {
            *secs = v * units[i].mul;
            return 0;
        }
    return -1;
}

void mtb_duration_format(char *buf, size_t n, double secs)
{
    long s = secs > 0 ? (long)(secs + 0.5) : 0;
    if (s >= 3600)
        snprintf(buf, n, "%ldh%02ldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, n, "%lds", s);
}
