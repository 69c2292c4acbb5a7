/* duration.h - the one duration syntax of mtebench and mtload: a
 * non-negative decimal number (fraction allowed) and one of us, ms, s, m, h;
 * a bare number is seconds ("30", "30s", "500ms", "2m"). Shared source,
 * compiled into both programs (harness/lib/util.c and loadgen/units.c wrap it). */
#ifndef MTB_DURATION_H
#define MTB_DURATION_H

/* @return 0 with *secs, or -1 (not a duration: sign, junk, NaN, infinity). */
int mtb_duration_parse(const char *s, double *secs);
#endif
