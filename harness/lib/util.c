/* util.c - see util.h */
#include "lib/util.h"
#include "common/atomicfile.h"
#include "common/duration.h"

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
        mtb_die(1, "out of memory");
    return s;
}

char *mtb_strdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        mtb_die(1, "out of memory");
    return d;
}

void *mtb_calloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        mtb_die(1, "out of memory");
    return p;
}

void mtb_die(int code, const char *fmt, ...)
{
    va_list ap;
    fputs("mtebench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

void mtb_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("mtebench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int mtb_mkdir_p(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -ENAMETOOLONG;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}

char *mtb_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

int mtb_write_atomic(const char *path, const char *data, size_t len)
{
    int named, fd = mtb_af_open(path, &named);
    if (fd < 0)
        return fd;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            mtb_af_abort(fd, named, path);
            return -e;
        }
        off += (size_t)w;
    }
    return mtb_af_commit(fd, named, path);
}

const char *mtb_errdesc(int e)
{
    static __thread char buf[160];
    e = e < 0 ? -e : e;
    const char *name = strerrorname_np(e);
    snprintf(buf, sizeof buf, "%s (%s)", strerror(e), name ? name : "?");
    return buf;
}

int mtb_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int mtb_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -errno;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return -errno;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *sub = mtb_asprintf("%s/%s", path, e->d_name);
            mtb_rm_rf(sub);
            free(sub);
        }
        closedir(d);
        return rmdir(path) == 0 ? 0 : -errno;
    }
    return unlink(path) == 0 ? 0 : -errno;
}

int mtb_mark_scratch(const char *dir)
{
    static const char tag[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
                              "# a service's working data (mtebench), not a result: the vm guest does not hand it back\n";
    char *p = mtb_asprintf("%s/CACHEDIR.TAG", dir);
    int rc = mtb_write_atomic(p, tag, sizeof tag - 1);
    free(p);
    return rc;
}

int mtb_lock_wait(const char *path, const char *what, int quiet)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    int e = errno;
    if (e == EWOULDBLOCK) {
        if (!quiet)
            fprintf(stderr, "mtebench: waiting for %s (another mtebench holds %s)\n", what, path);
        e = flock(fd, LOCK_EX) == 0 ? 0 : errno;
    }
    if (e == 0)
        return fd;
    close(fd);
    return -e;
}

struct mtb_hash {
    EVP_MD_CTX *ctx;
};

struct mtb_hash *mtb_hash_new(void)
{
    struct mtb_hash *h = mtb_calloc(1, sizeof *h);
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
        mtb_die(1, "cannot initialise SHA-256");
    return h;
}

void mtb_hash_str(struct mtb_hash *h, const char *label, const char *s)
{
    /* label and length framing keep ("ab","c") and ("a","bc") apart */
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "%s:%zu:", label, strlen(s ? s : ""));
    EVP_DigestUpdate(h->ctx, hdr, (size_t)n);
    EVP_DigestUpdate(h->ctx, s ? s : "", strlen(s ? s : ""));
}

int mtb_hash_file(struct mtb_hash *h, const char *label, const char *path)
{
    size_t len;
    char *data = mtb_read_file(path, &len);
    if (!data)
        return -errno;
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "%s:%zu:", label, len);
    EVP_DigestUpdate(h->ctx, hdr, (size_t)n);
    EVP_DigestUpdate(h->ctx, data, len);
    free(data);
    return 0;
}

void mtb_hash_final(struct mtb_hash *h, char hex[65])
{
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(h->ctx, md, &n);
    for (unsigned i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
    EVP_MD_CTX_free(h->ctx);
    free(h);
}

int mtb_sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        EVP_DigestUpdate(ctx, buf, r);
    int err = ferror(f);
    fclose(f);
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    EVP_MD_CTX_free(ctx);
    if (err)
        return -EIO;
    for (unsigned i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
    return 0;
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

const char *mtb_root(void)
{
    static char root[PATH_MAX];
    if (root[0])
        return root;
    const char *env = getenv("MTEBENCH_ROOT");
    if (env && *env) {
        snprintf(root, sizeof root, "%s", env);
        return root;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(root, sizeof root, ".");
    if (n > 0) {
        exe[n] = 0;
        /* walk up from the binary (<root>/build/...) to the checkout */
        char *d = dirname(exe);
        while (strcmp(d, "/") != 0) {
            char probe[PATH_MAX + 32];
            snprintf(probe, sizeof probe, "%s/services", d);
            if (mtb_file_exists(probe)) {
                snprintf(root, sizeof root, "%s", d);
                break;
            }
            d = dirname(d);
        }
    }
    return root;
}

const char *mtb_cache(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *e = getenv("MTEBENCH_CACHE");
    if (e && *e)
        snprintf(dir, sizeof dir, "%s", e);
    else if (geteuid() == 0)
        /* readable by the unprivileged users services run as (not under /root) */
        snprintf(dir, sizeof dir, "/var/cache/mtebench");
    else if ((e = getenv("XDG_CACHE_HOME")) && *e)
        snprintf(dir, sizeof dir, "%s/mtebench", e);
    else
        snprintf(dir, sizeof dir, "%s/.cache/mtebench", getenv("HOME") ? getenv("HOME") : "/tmp");
    return dir;
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

char *mtb_which(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? mtb_strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    char *copy = mtb_strdup(path), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *p = mtb_asprintf("%s/%s", d, name);
        if (access(p, X_OK) == 0) {
            free(copy);
            return p;
        }
        free(p);
    }
    free(copy);
    return NULL;
}

int mtb_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void mtb_argv_push(struct mtb_argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
        if (!a->v)
            mtb_die(1, "out of memory");
    }
    a->v[a->n++] = mtb_strdup(s);
    a->v[a->n] = NULL;
}

void mtb_argv_pushf(struct mtb_argv *a, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        mtb_die(1, "out of memory");
    va_end(ap);
    mtb_argv_push(a, s);
    free(s);
}

void mtb_argv_split(struct mtb_argv *a, const char *s)
{
    char *copy = mtb_strdup(s), *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        mtb_argv_push(a, w);
    free(copy);
}

void mtb_argv_free(struct mtb_argv *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}
