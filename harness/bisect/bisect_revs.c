/* bisect_revs.c - the revisions of a patch history between good and bad (git), and each revision's tree */
#include "bisect/bisect.h"
#include "bisect/bisect_int.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/err.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- git -------------------------------------------------------------------------- */

char *mtb_bisect_git(const char *repo, int *status, const char *const *args)
{
    char *argv[16] = { "git", "-C", (char *)repo };
    size_t n = 3;
    for (; *args && n + 1 < sizeof argv / sizeof *argv; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    int st = 0;
    char *out = mtb_proc_capture(argv, 0, 60, &st);
    *status = out && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    return out;
}

/* the first line of `git -C repo ARGS...`, or NULL when it failed */
static char *git_line(const char *repo, const char *const *args)
{
    int st;
    char *out = mtb_bisect_git(repo, &st, args);
    if (st || !out) {
        free(out);
        return NULL;
    }
    out[strcspn(out, "\n")] = 0;
    return out;
}

/* the revisions: good, then every commit after it up to bad that touches the
 * service's folders, oldest first */
/* the two ends, checked: 0, or -1 with e set (*g and *b: the commits, freed by the caller) */
static int ends(const struct mtb_bisect_opts *o, char **g, char **b, struct mtb_err *e)
{
    char good_ref[600], bad_ref[600];
    snprintf(good_ref, sizeof good_ref, "%s^{commit}", o->good);
    snprintf(bad_ref, sizeof bad_ref, "%s^{commit}", o->bad);
    *g = git_line(o->repo, (const char *[]){ "rev-parse", "--verify", "--quiet", good_ref, NULL });
    *b = git_line(o->repo, (const char *[]){ "rev-parse", "--verify", "--quiet", bad_ref, NULL });
    if (!*g)
        return mtb_err_set(e, MTB_ERR_INPUT, "bisect: no commit '%s' in %s (--good)", o->good, o->repo);
    if (!*b)
        return mtb_err_set(e, MTB_ERR_INPUT, "bisect: no commit '%s' in %s (--bad)", o->bad, o->repo);
    if (!strcmp(*g, *b))
        return mtb_err_set(e, MTB_ERR_INPUT, "bisect: --good and --bad are the same commit (%.12s)", *g);
    int st;
    free(mtb_bisect_git(o->repo, &st, (const char *[]){ "merge-base", "--is-ancestor", *g, *b, NULL }));
    if (st)
        return mtb_err_set(e, MTB_ERR_INPUT, "bisect: good %.12s is not an ancestor of bad %.12s (swapped?): the bad "
                           "revision must come after the good one", *g, *b);
    return 0;
}

/* one more revision at c->r[c->n]: sha (taken), subject (copied) */
static void add_rev(struct mtb_bisect_ctx *c, char *sha, const char *subject)
{
    c->r = mtb_realloc(c->r, (c->n + 1) * sizeof *c->r);
    memset(&c->r[c->n], 0, sizeof *c->r);
    c->r[c->n].sha = sha;
    c->r[c->n].subject = mtb_strdup(subject);
    c->n++;
}

int mtb_bisect_revisions(struct mtb_bisect_ctx *c, struct mtb_err *e)
{
    struct mtb_bisect_opts *o = c->o;
    char *g = NULL, *b = NULL;
    if (ends(o, &g, &b, e) != 0) {
        free(g);
        free(b);
        return -1;
    }
    char *svc = mtb_asprintf("services/%s", o->service), *pat = mtb_asprintf("patches/%s", o->service);
    char *range = mtb_asprintf("%s..%s", g, b);
    char *argv[] = { "git", "-C", (char *)o->repo, "log", "--reverse", "--topo-order", "--format=%H %s", range, "--",
                     svc, pat, NULL };
    if (!strcmp(o->axis, "kernel"))
        argv[8] = NULL; /* every commit of the kernel tree */
    int ws = 0;
    char *log = mtb_proc_capture(argv, 0, 60, &ws);
    if (!log || !WIFEXITED(ws) || WEXITSTATUS(ws))
        mtb_err_set(e, MTB_ERR_INPUT, "bisect: git log %s failed in %s", range, o->repo);
    add_rev(c, g, "(good)");
    char none[1] = "";
    for (char *line = strtok(log && !e->code ? log : none, "\n"); line; line = strtok(NULL, "\n")) {
        char *sp = strchr(line, ' ');
        if (sp)
            *sp = 0;
        add_rev(c, mtb_strdup(line), sp ? sp + 1 : "");
    }
    if (c->n < 2) /* (the kernel axis: bad is after good, so there is one) */
        mtb_err_set(e, MTB_ERR_INPUT, "bisect: no commit after good %.12s up to bad %.12s touches %s or %s: nothing "
                    "to bisect", g, b, svc, pat);
    if (!e->code && strcmp(c->r[c->n - 1].sha, b))
        add_rev(c, b, "(bad)"); /* bad itself leaves the folders as the last commit that touched them */
    else
        free(b);
    free(log);
    free(svc);
    free(pat);
    free(range);
    return e->code ? -1 : 0;
}

/* ---- a revision's tree ------------------------------------------------------------ */

/* DIR/<entry> -> SRC/<entry> for every entry of SRC but .git, x1 and x2 */
static int link_entries(const char *src, const char *dir, const char *x1, const char *x2)
{
    DIR *d = opendir(src);
    if (!d)
        return -errno;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        const char *nm = e->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strcmp(nm, ".git") || (x1 && !strcmp(nm, x1)) ||
            (x2 && !strcmp(nm, x2)))
            continue;
        char *from = mtb_asprintf("%s/%s", src, nm), *to = mtb_asprintf("%s/%s", dir, nm);
        if (symlink(from, to) && errno != EEXIST)
            rc = -errno;
        free(from);
        free(to);
    }
    closedir(d);
    return rc;
}

/* services/S and patches/S of the revision into tree (patches/S may be
 * absent at an old revision) */
static int extract_axis(struct mtb_bisect_ctx *c, const char *sha, const char *tree)
{
    const char *svc = c->o->service;
    char *ps = mtb_asprintf("services/%s", svc), *pp = mtb_asprintf("patches/%s", svc);
    char *tar = mtb_asprintf("%s/axis.tar", tree), *spec = mtb_asprintf("%s:%s", sha, pp);
    int st, ws = 0, rc = 0;
    free(mtb_bisect_git(c->o->repo, &st, (const char *[]){ "cat-file", "-e", spec, NULL }));
    char *argv[] = { "git", "-C", (char *)c->o->repo, "archive", "-o", tar, (char *)sha, ps, st ? NULL : pp, NULL };
    free(mtb_proc_capture(argv, 1, 120, &ws));
    if (!WIFEXITED(ws) || WEXITSTATUS(ws))
        rc = -ENOENT; /* no services/S at this revision */
    if (!rc) {
        char *targv[] = { "tar", "-xf", tar, "-C", (char *)tree, NULL };
        free(mtb_proc_capture(targv, 1, 120, &ws));
        rc = WIFEXITED(ws) && !WEXITSTATUS(ws) ? 0 : -EIO;
    }
    unlink(tar);
    free(spec);
    free(tar);
    free(ps);
    free(pp);
    return rc;
}

/* OUT/trees/NN-SHA: this checkout (symlinks), services/S and patches/S from the revision */
int mtb_bisect_make_tree(struct mtb_bisect_ctx *c, size_t i)
{
    struct mtb_bisect_commit *r = &c->r[i];
    const char *root = mtb_root(), *svc = c->o->service;
    char *tree = mtb_asprintf("%s/trees/%02zu-%.12s", c->outdir, i, r->sha);
    mtb_rm_rf(tree);
    char *sdir = mtb_asprintf("%s/services", tree), *pdir = mtb_asprintf("%s/patches", tree);
    char *rs = mtb_asprintf("%s/services", root), *rp = mtb_asprintf("%s/patches", root);
    int rc = mtb_mkdir_p(sdir) || mtb_mkdir_p(pdir) || link_entries(root, tree, "services", "patches") ||
             link_entries(rs, sdir, svc, NULL) || link_entries(rp, pdir, svc, NULL);
    if (!rc)
        rc = extract_axis(c, r->sha, tree);
    free(sdir);
    free(pdir);
    free(rs);
    free(rp);
    if (rc) {
        mtb_rm_rf(tree);
        free(tree);
        return rc ? rc : -EIO;
    }
    r->tree = tree;
    return 0;
}
