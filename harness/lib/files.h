/* files.h - the project's two paths (the checkout, the build cache), and
 * files and directories: made with their parents, read whole, written
 * whole or not at all, removed, marked as scratch, locked between mtebench
 * processes; an executable found in PATH */
#ifndef MTB_FILES_H
#define MTB_FILES_H
#include <stddef.h>

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

/* Find an executable in PATH; returns a heap path or NULL. */
char *mtb_which(const char *name);
/* The project checkout (parent of the directory holding the binary, or
 * $MTEBENCH_ROOT) and the build cache ($MTEBENCH_CACHE, else
 * /var/cache/mtebench for root, else $XDG_CACHE_HOME/mtebench, else ~/.cache/mtebench). */
const char *mtb_root(void);
const char *mtb_cache(void);
/* Where reports go by default: MTEBENCH_REPORTS, else reports/ of the
 * checkout (the test suite points it under each test's temporary directory,
 * so that a run of the suite leaves the checkout as it was). */
const char *mtb_reports_dir(void);
/* Where results go by default (and the history and start-up costs kept
 * beside them): MTEBENCH_RESULTS, else results/ of the checkout (the same
 * for the test suite). */
const char *mtb_results_dir(void);

#endif
