/* duration.h - the one duration syntax of mtebench and mtload: a
 * non-negative decimal number (fraction allowed) and one of us, ms, s, m, h;
 * a bare number is seconds ("30", "30s", "500ms", "2m"). Shared source,
 * compiled into both programs (harness/lib/util.c and loadgen/units.c wrap it). */
#ifndef MTB_DURATION_H
#define MTB_DURATION_H

/* @return 0 with *secs, or -1 (not a duration: sign, junk, NaN, infinity). */
int mtb_duration_parse(const char *s, double *secs);
/* A time span for people, to the nearest second: "42s", "3m07s", "2h05m"
 * (negative: 0s). The one formatter of ETAs, elapsed and planned times. */
#include <stddef.h>
void mtb_duration_format(char *buf, size_t n, double secs);
#endif
