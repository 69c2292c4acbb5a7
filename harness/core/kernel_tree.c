/* kernel_tree.c - git trees and patch series as kernels (kernel_tree.h). */
#include "core/kernel_tree.h"
#include "lib/proc.h"
#include "lib/files.h"
#include "lib/argv.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int named_exists(const char *name)
{
    if (!*name || strchr(name, '/') || name[0] == '.')
        return 0;
    char *p = mtb_asprintf("%s/configs/kernel/%s.conf", mtb_root(), name);
    int ok = mtb_file_exists(p);
    free(p);
    return ok;
}

int mtb_ktree_is(const char *spec)
{
    if (!spec)
        return 0;
    if (!strncmp(spec, "git:", 4))
        return 1;
    const char *plus = strchr(spec, '+');
    return plus && plus > spec && !memchr(spec, '/', (size_t)(plus - spec));
}

void mtb_ktree_free(struct mtb_ktree *t)
{
    mtb_argv_free(&t->patches);
    free(t->git);
    free(t->ref);
    memset(t, 0, sizeof *t);
}

/* git -C dir ARGS: its stdout (first line trimmed when line), NULL on failure */
static char *git_out(const char *dir, int line, const char *a1, const char *a2, const char *a3, const char *a4)
{
    char *argv[] = { "git", "-C", (char *)dir, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };
    int st = 0;
    char *out = mtb_proc_capture(argv, 0, 120, &st);
    if (!out || !WIFEXITED(st) || WEXITSTATUS(st)) {
        free(out);
        return NULL;
    }
    if (line)
        out[strcspn(out, "\n")] = 0;
    return out;
}

static int parse_series(const char *spec, const char *plus, struct mtb_ktree *t, char *err, size_t errlen)
{
    snprintf(t->base, sizeof t->base, "%.*s", (int)(plus - spec), spec);
    if (!named_exists(t->base)) {
        snprintf(err, errlen, "kernel %s: '%s' is not a named kernel (BASE+PATCHDIR wants one of configs/kernel/)",
                 spec, t->base);
        return -1;
    }
    char rp[PATH_MAX];
    struct stat st;
    if (!realpath(plus + 1, rp) || stat(rp, &st) || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "kernel %s: no patch directory %s", spec, plus + 1);
        return -1;
    }
    char *series = mtb_asprintf("%s/series", rp);
    char *text = mtb_read_file(series, NULL);
    if (text) {
        /* quilt: one patch per line, '#' comments, options after the name */
        for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
            l += strspn(l, " \t");
            if (!*l || *l == '#')
                continue;
            l[strcspn(l, " \t")] = 0;
            char *p = mtb_asprintf("%s/%s", rp, l);
            if (!mtb_file_exists(p)) {
                snprintf(err, errlen, "kernel %s: %s names %s, which does not exist", spec, series, l);
                free(p);
                free(text);
                free(series);
                return -1;
            }
            mtb_argv_push(&t->patches, p);
            free(p);
        }
        free(text);
    } else {
        char *pat = mtb_asprintf("%s/*.patch", rp);
        glob_t g;
        if (glob(pat, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; i++)
                mtb_argv_push(&t->patches, g.gl_pathv[i]);
            globfree(&g);
        }
        free(pat);
    }
    free(series);
    if (t->patches.n == 0) {
        snprintf(err, errlen, "kernel %s: no patches in %s (a quilt series file, or *.patch)", spec, rp);
        return -1;
    }
    snprintf(t->label, sizeof t->label, "%.20s+%.40s", t->base, basename(rp));
    for (char *c = t->label; *c; c++)
        if (*c == '/' || *c == ' ')
            *c = '_';
    return MTB_KTREE_SERIES;
}

/* the checks of a git tree, in the order a user fixes them */
static int check_git(const char *spec, struct mtb_ktree *t, char *err, size_t errlen)
{
    char *top = git_out(t->git, 1, "rev-parse", "--show-toplevel", NULL, NULL);
    if (!top) {
        snprintf(err, errlen, "kernel %s: %s is not a git work tree", spec, t->git);
        return -1;
    }
    free(top);
    char *want = mtb_asprintf("%s^{commit}", t->ref);
    char *c = git_out(t->git, 1, "rev-parse", "--verify", "--quiet", want);
    free(want);
    if (!c) {
        snprintf(err, errlen, "kernel %s: no commit '%s' in %s", spec, t->ref, t->git);
        return -1;
    }
    snprintf(t->commit, sizeof t->commit, "%s", c);
    free(c);
    char *dirty = git_out(t->git, 0, "status", "--porcelain", "--untracked-files=no", NULL);
    if (!dirty || *dirty) {
        snprintf(err, errlen, "kernel %s: %s has uncommitted changes (a dirty tree): commit or stash them, the "
                 "kernel is built from %s's committed content", spec, t->git, t->ref);
        free(dirty);
        return -1;
    }
    free(dirty);
    char *kc = mtb_asprintf("%s:arch/arm64/Kconfig", t->commit), *mk = mtb_asprintf("%s:Makefile", t->commit);
    char *kconfig = git_out(t->git, 0, "cat-file", "-p", kc, NULL), *make = git_out(t->git, 0, "cat-file", "-p", mk, NULL);
    free(kc);
    free(mk);
    int rc = 0;
    if (!kconfig || !make || !strstr(make, "\nPATCHLEVEL =")) {
        snprintf(err, errlen, "kernel %s: not a Linux kernel tree (no arch/arm64/Kconfig or top Makefile with "
                 "PATCHLEVEL at %.12s)", spec, t->commit);
        rc = -1;
    } else if (!strstr(kconfig, "\nconfig ARM64_MTE\n")) {
        snprintf(err, errlen, "kernel %s: this kernel has no CONFIG_ARM64_MTE (arch/arm64/Kconfig at %.12s): "
                 "MTE cannot be measured on it", spec, t->commit);
        rc = -1;
    }
    free(kconfig);
    free(make);
    char *tspec = mtb_asprintf("%s^{tree}", t->commit);
    char *tid = rc ? NULL : git_out(t->git, 1, "rev-parse", "--verify", tspec, NULL);
    free(tspec);
    if (!rc && !tid) {
        snprintf(err, errlen, "kernel %s: cannot read the tree of %.12s", spec, t->commit);
        rc = -1;
    }
    if (tid)
        snprintf(t->tree_id, sizeof t->tree_id, "%s", tid);
    free(tid);
    return rc;
}

static int parse_git(const char *spec, struct mtb_ktree *t, char *err, size_t errlen)
{
    const char *s = spec + 4, *at = strrchr(s, '@');
    if (!*s || !at || at == s || !at[1]) {
        snprintf(err, errlen, "kernel %s: want git:PATH@REF (a git work tree and a ref within it)", spec);
        return -1;
    }
    char *path = mtb_asprintf("%.*s", (int)(at - s), s), rp[PATH_MAX];
    if (!realpath(path, rp)) {
        snprintf(err, errlen, "kernel %s: no directory %s", spec, path);
        free(path);
        return -1;
    }
    free(path);
    t->git = mtb_strdup(rp);
    t->ref = mtb_strdup(at + 1);
    snprintf(t->base, sizeof t->base, "stock");
    if (check_git(spec, t, err, errlen))
        return -1;
    snprintf(t->label, sizeof t->label, "git-%.24s-%.12s", basename(rp), t->commit);
    for (char *c = t->label; *c; c++)
        if (*c == '/' || *c == ' ' || *c == '+')
            *c = '_';
    return MTB_KTREE_GIT;
}

int mtb_ktree_parse(const char *spec, struct mtb_ktree *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!mtb_ktree_is(spec))
        return MTB_KTREE_NAMED;
    int rc = !strncmp(spec, "git:", 4) ? parse_git(spec, t, err, errlen)
                                       : parse_series(spec, strchr(spec, '+'), t, err, errlen);
    if (rc < 0)
        mtb_ktree_free(t);
    else
        t->kind = (enum mtb_ktree_kind)rc;
    return rc;
}
