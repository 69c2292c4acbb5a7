/* util.c - see util.h */
#include "lib/util.h"
#include "common/atomicfile.h"
#include "common/duration.h"

#include <math.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *mtb_asprintf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        mtb_oom(NULL);
    return s;
}

char *mtb_strdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        mtb_oom(NULL);
    return d;
}

void *mtb_calloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        mtb_oom(NULL);
    return p;
}

void *mtb_realloc(void *old, size_t sz)
{
    void *p = realloc(old, sz ? sz : 1);
    if (!p)
        mtb_oom(NULL);
    return p;
}

void mtb_oom(const char *what)
{
    fprintf(stderr, "mtebench: out of memory%s%s%s\n", what ? " (" : "", what ? what : "", what ? ")" : "");
    exit(1);
}

void mtb_vwarn(const char *fmt, va_list ap)
{
    fputs("mtebench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void mtb_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mtb_vwarn(fmt, ap);
    va_end(ap);
}

const char *mtb_errdesc(int e)
{
    static __thread char buf[160];
    e = e < 0 ? -e : e;
    const char *name = strerrorname_np(e);
    snprintf(buf, sizeof buf, "%s (%s)", strerror(e), name ? name : "?");
    return buf;
}

double mtb_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double mtb_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void mtb_utc_iso(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void mtb_utc_compact(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y%m%d-%H%M%S", &tm);
}

int mtb_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int mtb_parse_duration(const char *s, double *secs)
{
    return mtb_duration_parse(s, secs); /* common/duration.c, shared with mtload */
}

int mtb_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

double mtb_or0(double v) { return isfinite(v) ? v : 0; }
