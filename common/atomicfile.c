/* atomicfile.c - see atomicfile.h */
#include "common/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void tmp_name(const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s.tmp.%ld", path, (long)getpid());
}

int mtb_af_open(const char *path, int *named)
{
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    *named = 0;
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
        return -errno;
#endif
    tmp_name(path, tmp, sizeof tmp);
    int nfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (nfd < 0)
        return -errno;
    *named = 1;
    return nfd;
}

int mtb_af_commit(int fd, int named, const char *path)
{
    char tmp[PATH_MAX + 32], self[64];
    tmp_name(path, tmp, sizeof tmp);
    int rc = fsync(fd) == 0 ? 0 : -errno;
    if (!rc && !named) {
        /* the unnamed file gets its temporary name (a stale one of this pid goes) */
        unlink(tmp);
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0)
            rc = -errno;
        else
            named = 1;
    }
    if (close(fd) != 0 && !rc)
        rc = -errno;
    if (!rc && rename(tmp, path) != 0)
        rc = -errno;
    if (rc && named)
        unlink(tmp);
    return rc;
}

void mtb_af_abort(int fd, int named, const char *path)
{
    char tmp[PATH_MAX + 32];
    close(fd);
    if (named) {
        tmp_name(path, tmp, sizeof tmp);
        unlink(tmp);
    }
}

/* open path's unnamed temporary file for writing (common/atomicfile.h: a
 * SIGKILL while writing leaves nothing); *tmp remembers how */
FILE *mtb_af_fopen(const char *path, char **tmp)
{
    int named, fd = mtb_af_open(path, &named);
    FILE *f = NULL;
    *tmp = NULL;
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    if (!(*tmp = strdup(named ? "named" : "unnamed")) || !(f = fdopen(fd, "w"))) {
        int e = errno;
        mtb_af_abort(fd, named, path);
        free(*tmp);
        *tmp = NULL;
        errno = e;
    }
    return f;
}

int mtb_af_fclose(FILE *f, char *tmp, const char *path, int rc)
{
    int named = !strcmp(tmp, "named");
    int fd = dup(fileno(f));
    if (fflush(f) != 0)
        rc = rc ? rc : errno;
    fclose(f); /* the data is in fd's file; fd keeps it open */
    if (fd < 0)
        rc = rc ? rc : errno;
    else if (rc)
        mtb_af_abort(fd, named, path);
    else {
        int r = mtb_af_commit(fd, named, path);
        rc = r ? -r : 0;
    }
    free(tmp);
    return rc;
}
