/* util.h - the harness's basics: memory, messages, time, strict number
 * parsing. Files and the two paths (the checkout, the build cache): files.h;
 * hashing: hash.h; argument vectors: argv.h; child processes: proc.h. */
#ifndef MTB_UTIL_H
#define MTB_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/version.h"   /* MTEBENCH_VERSION (common/version.h) */

#define MTB_ERRLEN 512

/* printf into a fresh heap string; exits on out-of-memory (CLI tool). */
char *mtb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mtb_strdup(const char *s);
void *mtb_calloc(size_t n, size_t sz);
void *mtb_realloc(void *p, size_t sz); /* exits on out-of-memory too */
/* "mtebench: out of memory (WHAT)" and exit 1: the one exit below the
 * commands' fronts (which alone exit: lib/err.h), as a command-line
 * tool's allocations do. */
void mtb_oom(const char *what) __attribute__((noreturn));
/* "mtebench: <msg>" on stderr: a warning (a command's front then may exit, cmd/commands.h) */
void mtb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mtb_vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Monotonic seconds (CLOCK_MONOTONIC) for intervals; never wall-clock. */
double mtb_mono(void);
/* Wall-clock seconds since the epoch (CLOCK_REALTIME): instants shared with
 * other hosts (a load's start), never intervals. */
double mtb_wall(void);
/** v when it is a number, else 0 (a figure absent, as a table shows it) */
double mtb_or0(double v);
/* UTC timestamp "2026-11-30T11:22:33Z" and a compact "20261130-112233". */
void mtb_utc_iso(char *buf, size_t n);
void mtb_utc_compact(char *buf, size_t n);

/* Strict number parsing: whole string must be a number in range.
 * Durations (common/duration.h: 30, 30s, 500ms, 2m, 1h, 10us) return
 * seconds. @return 0 or -1. */
int mtb_parse_long(const char *s, long lo, long hi, long *out);
int mtb_parse_duration(const char *s, double *secs);

/* "No space left on device (ENOSPC)": errno e (positive or negative) with its name. */
const char *mtb_errdesc(int e);
/* Number of online CPUs. */
int mtb_ncpus(void);


#endif
