/* util.h - small helpers shared by the harness: paths, files, hashing, time. */
#ifndef MTB_UTIL_H
#define MTB_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/version.h"   /* MTEBENCH_VERSION (common/version.h) */

#define MTB_ERRLEN 512

/* printf into a fresh heap string; exits on out-of-memory (CLI tool). */
char *mtb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mtb_strdup(const char *s);
void *mtb_calloc(size_t n, size_t sz);

/* Print "mtebench: <msg>" to stderr and exit with status code. */
void mtb_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
void mtb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Create a directory and its parents. @return 0 or -errno. */
int mtb_mkdir_p(const char *path);
/* Whole file into a NUL-terminated heap buffer, or NULL (errno set). */
char *mtb_read_file(const char *path, size_t *len);
/* Write via a temporary file in the same directory, fsync, rename.
 * @return 0 or -errno; the target is either old or new, never half. */
int mtb_write_atomic(const char *path, const char *data, size_t len);
int mtb_file_exists(const char *path);
int mtb_rm_rf(const char *path);
/* Mark dir as a service's working data, not a result: a CACHEDIR.TAG (the
 * Cache Directory Tagging convention, honoured by tar --exclude-caches); the
 * vm guest does not hand such directories back. @return 0 or -errno. */
int mtb_mark_scratch(const char *dir);
/* An exclusive lock on path (made if missing), for work two mtebench
 * processes must not do at once (a build of the same service or kernel): if
 * another holds it, says "waiting for <what>" (unless quiet) and waits.
 * @return the descriptor (close it to release) or -errno. */
int mtb_lock_wait(const char *path, const char *what, int quiet);

/* Streaming SHA-256 (OpenSSL EVP) producing lowercase hex. */
struct mtb_hash;
struct mtb_hash *mtb_hash_new(void);
void mtb_hash_str(struct mtb_hash *h, const char *label, const char *s);
int mtb_hash_file(struct mtb_hash *h, const char *label, const char *path);
void mtb_hash_final(struct mtb_hash *h, char hex[65]);
int mtb_sha256_file(const char *path, char hex[65]);

/* Monotonic seconds (CLOCK_MONOTONIC) for intervals; never wall-clock. */
double mtb_mono(void);
/* UTC timestamp "2026-11-30T11:22:33Z" and a compact "20261130-112233". */
void mtb_utc_iso(char *buf, size_t n);
void mtb_utc_compact(char *buf, size_t n);

/* The project checkout (parent of the directory holding the binary, or
 * $MTEBENCH_ROOT) and the build cache ($MTEBENCH_CACHE, else
 * /var/cache/mtebench for root, else $XDG_CACHE_HOME/mtebench, else ~/.cache/mtebench). */
const char *mtb_root(void);
const char *mtb_cache(void);

/* Strict number parsing: whole string must be a number in range.
 * Durations (common/duration.h: 30, 30s, 500ms, 2m, 1h, 10us) return
 * seconds. @return 0 or -1. */
int mtb_parse_long(const char *s, long lo, long hi, long *out);
int mtb_parse_duration(const char *s, double *secs);

/* Run a command (argv) and capture its stdout (and stderr when
 * with_stderr); NULL on failure to start or when it did not end within
 * MTB_CAPTURE_LIMIT seconds (*status -ETIMEDOUT). Exit status into *status.
 * Defined in proc.c (mtb_proc_capture: a child under a deadline), so that
 * util.c does not include proc.h. */
#define MTB_CAPTURE_LIMIT 120
/* "No space left on device (ENOSPC)": errno e (positive or negative) with its name. */
const char *mtb_errdesc(int e);
char *mtb_capture(char *const argv[], int with_stderr, int *status);
/* Find an executable in PATH; returns a heap path or NULL. */
char *mtb_which(const char *name);
/* Number of online CPUs. */
int mtb_ncpus(void);


/* A growable NULL-terminated argv. */
struct mtb_argv {
    char **v;
    int n, cap;
};
void mtb_argv_push(struct mtb_argv *a, const char *s);
void mtb_argv_pushf(struct mtb_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Split on spaces and push each word. */
void mtb_argv_split(struct mtb_argv *a, const char *s);
void mtb_argv_free(struct mtb_argv *a);
#endif
