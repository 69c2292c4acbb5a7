/* build_rows.h - a build's build.json (a service variant's, core/build.c;
 * a kernel's, core/kernel.c) read once into a struct: its cache key, the
 * kernel release it built, and whether it names its patches. The build
 * cache, the kernel cache and the vm record's kernel identity read these
 * fields, never the file by key.
 *
 * A string it lacks (or holds as another type) reads as NULL. Strings are
 * the file's own, valid while it is.
 *
 *   struct mtb_build_view b;
 *   mtb_build_view_read(info, &b);
 */
#ifndef MTB_BUILD_ROWS_H
#define MTB_BUILD_ROWS_H
#include <jansson.h>

struct mtb_build_view {
    const char *key;             /* the build's input hash */
    const char *uname_r;         /* a kernel's release */
    int has_patches;             /* patches is a list (a kernel's: [] for none) */
};

void mtb_build_view_read(json_t *info, struct mtb_build_view *b);
#endif
