/* duration.c - see duration.h */
#include "common/duration.h"

#include <errno.h>
#include <math.h>
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
