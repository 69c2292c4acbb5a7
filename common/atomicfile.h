/* atomicfile.h - a file written whole or not at all, that leaves nothing
 * behind when its writer is killed (shared by mtebench and mtload).
 *
 * The data goes into an unnamed file in the target's directory (O_TMPFILE);
 * once complete it is fsync'd, linked as PATH.tmp.PID and renamed over PATH,
 * so a SIGKILL during the write (the harness kills its children when
 * interrupted) leaves no PATH.tmp.PID, only a window of two system calls.
 * Where the filesystem has no O_TMPFILE the file is PATH.tmp.PID from the
 * start, as before. */
#ifndef MTB_ATOMICFILE_H
#define MTB_ATOMICFILE_H

/* Open for writing. @return the descriptor, or -errno; *named: 1 when the
 * file already has its temporary name (no O_TMPFILE here). */
int mtb_af_open(const char *path, int *named);
/* fsync, give it its name and close; then rename over path. The descriptor
 * is closed in every case; on failure nothing is left. @return 0 or -errno. */
int mtb_af_commit(int fd, int named, const char *path);
/* Give up: close, and remove the temporary name if it had one. */
void mtb_af_abort(int fd, int named, const char *path);
/* The same as a stdio stream: open PATH's temporary file for writing (*tmp
 * remembers how; free()d by mtb_af_fclose), or NULL with errno. */
#include <stdio.h>
FILE *mtb_af_fopen(const char *path, char **tmp);
/* Flush and close f; give it PATH when rc is 0, else remove it.
 * @return rc, or the first errno. */
int mtb_af_fclose(FILE *f, char *tmp, const char *path, int rc);
#endif
