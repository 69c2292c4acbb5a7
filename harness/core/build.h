/* build.h - fetch a service's pinned source, verify it, and build one
 * variant for one target into the build cache, keyed by a hash of every
 * input (source, patches, flags, build script, toolchain). */
#ifndef MTB_BUILD_H
#define MTB_BUILD_H
#include <jansson.h>
#include "core/recipe.h"

struct mtb_build {
    char key[65];        /* sha256 of the inputs */
    char *dir;           /* cache directory of this build */
    char *binary;        /* absolute path of the service binary */
    json_t *info;        /* inputs and outcome, copied into run records */
    int cached;          /* 1 if nothing was compiled */
};

/* target: "aarch64" or "native". quiet: no progress lines.
 * @return 0, or -1 with a message in err (the build log's tail printed). */
int mtb_build_ensure(const struct mtb_recipe *r, const char *variant, const char *target,
                     int force, int quiet, struct mtb_build *out, char *err, size_t errlen);
/* The cache directory of the build of service's variant for target with
 * this key (a record's build: service, variant, target, key) */
char *mtb_build_dir_of(const char *service, const char *variant, const char *target, const char *key);
/* Use a build directory made by mtb_build_ensure (build.json and the
 * recipe's binary), e.g. a copy inside the vm guest. @return 0 or -1. */
int mtb_build_load_dir(const struct mtb_recipe *r, const char *dir, struct mtb_build *out,
                       char *err, size_t errlen);
/* Make the symbolic links under the directory work that point to absolute
 * paths inside it relative (a kept object tree is copied elsewhere).
 * @return 0 or -1 (errno). */
int mtb_build_relink_tree(const char *work);
/* The cache directory of a setup's reusable output ([run] setup_reuse) for
 * this build, recipe, workload, user and mode environment
 * ($CACHE/setup/<service>-<key16>), or NULL when the recipe reuses none. The
 * key holds the build's content key, never a path or the platform, so a vm
 * guest or a server host computes the same key as this machine. */
struct mtb_workload;
char *mtb_build_setup_dir(const struct mtb_build *b, const struct mtb_recipe *r, const struct mtb_workload *wl,
                          const char *user, const char *mode_env);
#endif
