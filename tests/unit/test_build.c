/* Unit tests of build: a kept object tree's absolute links into itself made
 * relative, so that a copy elsewhere (a tree_from build) resolves them in
 * the copy (PostgreSQL links its generated headers by absolute path). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/build.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

int main(void)
{
    char dir[] = "/tmp/mtb-relink-XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *work = mtb_asprintf("%s/work", dir), *inc = mtb_asprintf("%s/work/src/include/utils", dir);
    char *gen = mtb_asprintf("%s/work/src/backend/utils/errcodes.h", dir);
    char *lnk = mtb_asprintf("%s/errcodes.h", inc), *out = mtb_asprintf("%s/work/top.h", dir);
    char *ext = mtb_asprintf("%s/work/ext.h", dir), *copy = mtb_asprintf("%s/copy", dir);
    mtb_mkdir_p(inc);
    char *bu = mtb_asprintf("%s/work/src/backend/utils", dir);
    mtb_mkdir_p(bu);
    ok(mtb_write_atomic(gen, "x", 1) == 0, "a generated header");
    ok(symlink(gen, lnk) == 0 && symlink(gen, out) == 0 && symlink("/etc/hostname", ext) == 0,
       "absolute links to it (two depths) and one outside the tree");
    ok(mtb_build_relink_tree(work) == 0, "relink");
    char t[512];
    ssize_t n = readlink(lnk, t, sizeof t - 1);
    t[n > 0 ? n : 0] = 0;
    ok(!strcmp(t, "../../../src/backend/utils/errcodes.h"), "three directories down: relative (by way of the root)" " (%s)", t);
    n = readlink(out, t, sizeof t - 1);
    t[n > 0 ? n : 0] = 0;
    ok(!strcmp(t, "src/backend/utils/errcodes.h"), "at the root: relative" " (%s)", t);
    n = readlink(ext, t, sizeof t - 1);
    t[n > 0 ? n : 0] = 0;
    ok(!strcmp(t, "/etc/hostname"), "a link outside the tree is left alone" " (%s)", t);
    ok(rename(work, copy) == 0, "the tree moved");
    char *moved = mtb_asprintf("%s/src/include/utils/errcodes.h", copy);
    ok(access(moved, R_OK) == 0, "its link resolves in the new place");
    mtb_rm_rf(dir);
    free(work), free(inc), free(gen), free(lnk), free(out), free(ext), free(copy), free(bu), free(moved);
    return done_testing();
}
