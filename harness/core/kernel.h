/* kernel.h - named arm64 kernels for PLATFORM=vm, built from Debian's
 * linux-source tarball with a config fragment and patches
 * (configs/kernel/<name>.conf), cached by a hash of every input; or a
 * prebuilt Image given by path. */
#ifndef MTB_KERNEL_H
#define MTB_KERNEL_H
#include <jansson.h>
#include <stddef.h>

/* Kernel source versions we build from (/usr/src/linux-source-V.tar.xz). */
#define MTB_KERNEL_SOURCE_DEFAULT "6.12"
#define MTB_KERNEL_SOURCES "6.12, 6.1"

struct mtb_kernel {
    char name[64];       /* "stock", "tcma1", or the file name of a prebuilt Image */
    char source[16];     /* "6.12", "6.1", or "" for a prebuilt Image */
    char key[65];        /* build hash: sha256 of the inputs (of the Image for a path) */
    char *dir;           /* cache directory of the build (NULL for a path) */
    char *image;         /* arm64 Image to boot */
    char *release;       /* expected uname -r, or NULL when unknown (path) */
    json_t *info;        /* the record's "kernel" object: name, uname_r (expected),
                          * build_hash, config_hash, patches[], source, ... */
    int cached;
};

/* "stock, tcma1": the names of configs/kernel/NAME.conf */
const char *mtb_kernel_names(void);
/* 1 if name is a named kernel (has configs/kernel/<name>.conf). */
int mtb_kernel_known(const char *name);

/* 1 when the named kernel is built for the default source (nothing built,
 * no lock waited for). */
int mtb_kernel_cached(const char *name);

/* Ensure the kernel named name (or the Image at a path containing '/') is
 * built for source (NULL = default). Builds it when missing (minutes),
 * incrementally from its base kernel's build tree when that exists.
 * @return 0, or -1 with a message in err (unknown names list the accepted). */
int mtb_kernel_ensure(const char *name, const char *source, int force, int quiet,
                      struct mtb_kernel *out, char *err, size_t errlen);
void mtb_kernel_free(struct mtb_kernel *k);

/* A named kernel's summary line (its .conf's `summary`; heap string), or
 * NULL when it is not one. */
char *mtb_kernel_summary(const char *name);
#endif
