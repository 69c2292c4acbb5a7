/* units.h - strict parsers for numbers with unit suffixes ("10s", "500ms", "1k"). */
#ifndef MTL_UNITS_H
#define MTL_UNITS_H
#include <stdint.h>
#include "loadgen/mtime.h"

/**
 * Parse an unsigned decimal integer with an optional k/m/g (x1000) suffix.
 * The whole string must be consumed. @return 0, or EINVAL / ERANGE.
 */
int mtl_parse_u64(const char *s, uint64_t *out);

/**
 * Parse a duration: a non-negative decimal number (fraction allowed) followed by
 * one of us, ms, s, m, h; a bare number means seconds. @return 0 or EINVAL / ERANGE.
 */
int mtl_parse_duration(const char *s, mtl_time_t *out);

/** Parse a non-negative finite double, whole string. @return 0 or EINVAL. */
int mtl_parse_double(const char *s, double *out);
#endif
