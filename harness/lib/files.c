/* files.c - see files.h */
#include "lib/files.h"
#include "lib/util.h"
#include "common/atomicfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* dir (PATH_MAX, filled once): $env when set, else the checkout's sub/ */
static const char *env_or_checkout(char *dir, const char *env, const char *sub)
{
    if (!dir[0]) {
        const char *e = getenv(env);
        if (e && *e)
            snprintf(dir, PATH_MAX, "%s", e);
        else
            snprintf(dir, PATH_MAX, "%s/%s", mtb_root(), sub);
    }
    return dir;
}

const char *mtb_reports_dir(void)
{
    static char dir[PATH_MAX];
    return env_or_checkout(dir, "MTEBENCH_REPORTS", "reports");
}

const char *mtb_results_dir(void)
{
    static char dir[PATH_MAX];
    return env_or_checkout(dir, "MTEBENCH_RESULTS", "results");
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
