/* Unit tests of kernels beyond the named ones (harness/core/kernel_tree.c):
 * which specs are trees or series, a patch series read (quilt's series
 * file in its order, else *.patch sorted) and refused with the reason
 * named, and a git tree checked in the order a user fixes it (not a work
 * tree, no such commit, uncommitted changes, not a Linux tree, no
 * CONFIG_ARM64_MTE) on small repositories made here. TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/kernel_tree.h"
#include "lib/files.h"
#include "lib/util.h"
#include "tap.h"

static char tmp[] = "/tmp/mtb-test-ktree-XXXXXX";

static void file(const char *dir, const char *name, const char *text)
{
    char *p = mtb_asprintf("%s/%s", dir, name);
    mtb_write_atomic(p, text, strlen(text));
    free(p);
}

/* dir/name, in a static buffer (valid until the next call) */
static const char *at(const char *dir, const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* sh -c CMD in dir: 0 when it succeeded */
static int sh(const char *dir, const char *cmd)
{
    char *c = mtb_asprintf("cd '%s' && (%s) > /dev/null 2>&1", dir, cmd);
    int rc = system(c);
    free(c);
    return rc;
}

/* the spec's parse: its kind (or -1) and the reason in why */
static int parse(const char *spec, struct mtb_ktree *t, char *why, size_t n)
{
    why[0] = 0;
    return mtb_ktree_parse(spec, t, why, n);
}

static void test_series(void)
{
    char why[512], *spec;
    struct mtb_ktree t;
    ok(mtb_ktree_is("stock+patches") && mtb_ktree_is("git:/src/linux@v6.12") && !mtb_ktree_is("stock") &&
           !mtb_ktree_is("/boot/Image") && !mtb_ktree_is("./a+b") && !mtb_ktree_is(NULL),
       "trees and series: git:PATH@REF and BASE+DIR; a name or a path is not");
    ok(parse("stock", &t, why, sizeof why) == MTB_KTREE_NAMED, "a named kernel parses as named");

    char *q = mtb_asprintf("%s/quilt", tmp);
    mkdir(q, 0755);
    file(q, "b.patch", "b");
    file(q, "a.patch", "a");
    file(q, "series", "# order\nb.patch -p1\n\na.patch\n");
    spec = mtb_asprintf("stock+%s", q);
    ok(parse(spec, &t, why, sizeof why) == MTB_KTREE_SERIES && t.patches.n == 2 && strstr(t.patches.v[0], "/b.patch") &&
           strstr(t.patches.v[1], "/a.patch") && !strcmp(t.base, "stock") && !strcmp(t.label, "stock+quilt"),
       "a quilt series: its order, options and comments aside; label %s", t.label);
    mtb_ktree_free(&t);
    file(q, "series", "a.patch\nc.patch\n");
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "names c.patch, which does not exist"),
       "a series naming a missing patch refused: %s", why);
    unlink(at(q, "series"));
    ok(parse(spec, &t, why, sizeof why) == MTB_KTREE_SERIES && t.patches.n == 2 && strstr(t.patches.v[0], "/a.patch"),
       "no series file: *.patch sorted");
    mtb_ktree_free(&t);
    free(spec);
    spec = mtb_asprintf("nosuch+%s", q);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "'nosuch' is not a named kernel"),
       "an unknown base refused: %s", why);
    free(spec);
    spec = mtb_asprintf("stock+%s/none", tmp);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "no patch directory"), "a missing directory refused: %s", why);
    free(spec);
    char *e = mtb_asprintf("%s/empty", tmp);
    mkdir(e, 0755);
    spec = mtb_asprintf("stock+%s", e);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "no patches in"), "a directory of no patches refused: %s", why);
    free(spec);
    free(e);
    free(q);
}

static void test_git(void)
{
    char why[512], *spec;
    struct mtb_ktree t;
    ok(parse("git:@v1", &t, why, sizeof why) == -1 && strstr(why, "want git:PATH@REF"), "git: without a path refused");
    char *g = mtb_asprintf("%s/linux", tmp);
    mkdir(g, 0755);
    spec = mtb_asprintf("git:%s@main", g);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "is not a git work tree"), "not a work tree: %s", why);
    const char *git = "git -c user.name=t -c user.email=t@t -c init.defaultBranch=main";
    char *cmd = mtb_asprintf("%s init -q . && echo x > README && git add README && %s commit -qm one", git, git);
    int made = sh(g, cmd) == 0;
    free(cmd);
    ok(made, "a git repository made here");
    free(spec);
    spec = mtb_asprintf("git:%s@nosuch", g);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "no commit 'nosuch'"), "an unknown ref: %s", why);
    free(spec);
    spec = mtb_asprintf("git:%s@main", g);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "not a Linux kernel tree"), "not a kernel: %s", why);
    file(g, "Makefile", "VERSION = 6\nPATCHLEVEL = 12\n");
    mkdir(at(g, "arch"), 0755);
    mkdir(at(g, "arch/arm64"), 0755);
    file(g, "arch/arm64/Kconfig", "menu x\nconfig ARM64\n");
    cmd = mtb_asprintf("git add -A && %s commit -qm kernel", git);
    sh(g, cmd);
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "no CONFIG_ARM64_MTE"), "a kernel without MTE: %s", why);
    file(g, "arch/arm64/Kconfig", "menu x\nconfig ARM64\nconfig ARM64_MTE\n");
    ok(parse(spec, &t, why, sizeof why) == -1 && strstr(why, "uncommitted changes"), "a dirty tree: %s", why);
    sh(g, cmd);
    free(cmd);
    ok(parse(spec, &t, why, sizeof why) == MTB_KTREE_GIT && strlen(t.commit) == 40 && strlen(t.tree_id) == 40 &&
           !strcmp(t.base, "stock") && !strcmp(t.ref, "main") && !strncmp(t.label, "git-linux-", 10) &&
           !strncmp(t.label + 10, t.commit, 12),
       "a Linux tree with MTE, committed: its commit, tree and label %s", t.label);
    mtb_ktree_free(&t);
    free(spec);
    free(g);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return perror("mkdtemp"), 1;
    test_series();
    test_git();
    mtb_rm_rf(tmp);
    return done_testing();
}
