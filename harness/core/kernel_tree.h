/* kernel_tree.h - kernels beyond the named ones (docs/BISECT.md, "Kernels
 * from a tree or a patch series"):
 *   git:PATH@REF   the committed content of REF in the git work tree PATH
 *   BASE+PATCHDIR  the named kernel BASE (e.g. stock) plus a quilt-style
 *                  series: PATCHDIR/series in order (comments and -p options
 *                  ignored), else the PATCHDIR's .patch files, sorted
 * Both are built with the suite's config fragments (BASE's, or stock's for
 * git) by kernel-build.sh, incrementally from the named kernel's build tree
 * when it exists, and cached by content (REF's tree id, the patches' bytes)
 * and config like the named kernels. Everything is checked here before a
 * build: named errors for a ref that does not exist, a dirty tree, a tree
 * that is not a Linux kernel or has no CONFIG_ARM64_MTE, an empty series. */
#ifndef MTB_KERNEL_TREE_H
#define MTB_KERNEL_TREE_H

#include "lib/util.h"
#include "lib/argv.h"

#include <stddef.h>

enum mtb_ktree_kind { MTB_KTREE_NAMED, MTB_KTREE_SERIES, MTB_KTREE_GIT };

struct mtb_ktree {
    enum mtb_ktree_kind kind;
    char base[64];           /* the named kernel giving fragments and the base tree */
    char label[64];          /* file-system name of the cache entry: stock+DIR, git-NAME-COMMIT */
    struct mtb_argv patches; /* series: the patch files in order (absolute) */
    char *git, *ref;         /* git: work tree (absolute) and ref as given */
    char commit[41], tree_id[41];
};

/** @return 1 when spec names a tree or a series (git:..., BASE+DIR) */
int mtb_ktree_is(const char *spec);

/**
 * mtb_ktree_parse - spec read and checked (see the header).
 * @return the kind, or -1 with a named error in err
 */
int mtb_ktree_parse(const char *spec, struct mtb_ktree *t, char *err, size_t errlen);
void mtb_ktree_free(struct mtb_ktree *t);
#endif
