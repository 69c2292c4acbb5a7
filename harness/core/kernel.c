/* kernel.c - see kernel.h */
#include "core/kernel.h"
#include "core/build_rows.h"
#include "core/kernel_tree.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/hash.h"
#include "lib/argv.h"

#include <errno.h>
#include <glob.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#define KERNEL_ABI "mtebench-kernel/1"

struct kconf {
    char *summary, *fragments, *patches, *localversion, *base;
};

static int kconf_kv(void *user, const char *section, const char *name, const char *value)
{
    struct kconf *c = user;
    if (!name)
        return 1;
    if (strcmp(section, "kernel") != 0)
        return 0;
    char **slot = !strcmp(name, "summary")        ? &c->summary
                  : !strcmp(name, "fragments")    ? &c->fragments
                  : !strcmp(name, "patches")      ? &c->patches
                  : !strcmp(name, "localversion") ? &c->localversion
                  : !strcmp(name, "base")         ? &c->base
                                                  : NULL;
    if (!slot)
        return 0;
    free(*slot);
    *slot = mtb_strdup(value);
    return 1;
}

static void kconf_free(struct kconf *c)
{
    free(c->summary);
    free(c->fragments);
    free(c->patches);
    free(c->localversion);
    free(c->base);
    memset(c, 0, sizeof *c);
}

static char *conf_path(const char *name)
{
    return mtb_asprintf("%s/configs/kernel/%s.conf", mtb_root(), name);
}

const char *mtb_kernel_names(void)
{
    static char buf[512];
    if (buf[0])
        return buf;
    char *pat = mtb_asprintf("%s/configs/kernel/*.conf", mtb_root());
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *b = strrchr(g.gl_pathv[i], '/') + 1;
            size_t l = strlen(b) - 5;
            if (strlen(buf) + l + 3 >= sizeof buf)
                break;
            if (buf[0])
                strcat(buf, ", ");
            strncat(buf, b, l);
        }
        globfree(&g);
    }
    free(pat);
    if (!buf[0])
        snprintf(buf, sizeof buf, "(none: no configs/kernel/*.conf)");
    return buf;
}

int mtb_kernel_known(const char *name)
{
    if (mtb_ktree_is(name))
        return 1; /* git:PATH@REF, BASE+PATCHDIR: checked when ensured */
    if (!name || !*name || strchr(name, '/') || name[0] == '.')
        return 0;
    char *p = conf_path(name);
    int ok = mtb_file_exists(p);
    free(p);
    return ok;
}

/* The kernel source version: $KERNEL_SOURCE, else the default. */
static const char *mtb_kernel_source_default(void)
{
    const char *e = getenv("KERNEL_SOURCE");
    return e && *e ? e : MTB_KERNEL_SOURCE_DEFAULT;
}

static int load_conf(const char *name, struct kconf *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!mtb_kernel_known(name)) {
        snprintf(err, errlen, "unknown kernel '%s' (accepted: %s, or the path of an arm64 Image)", name,
                 mtb_kernel_names());
        return -1;
    }
    char *p = conf_path(name);
    int rc = ini_parse(p, kconf_kv, c);
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: malformed line (sections: [kernel]; keys: summary, fragments, "
                 "patches, localversion, base)", p, rc);
        free(p);
        kconf_free(c);
        return -1;
    }
    free(p);
    if (!c->fragments || !*c->fragments) {
        snprintf(err, errlen, "configs/kernel/%s.conf: no fragments", name);
        kconf_free(c);
        return -1;
    }
    return 0;
}

/* Globs relative to the project root, {source} replaced; sorted per glob. */
static int expand(const char *spec, const char *source, struct mtb_argv *out, char *err, size_t errlen)
{
    if (!spec)
        return 0;
    struct mtb_argv words = { 0 };
    mtb_argv_split(&words, spec);
    int rc = 0;
    for (int i = 0; i < words.n && rc == 0; i++) {
        char *w = mtb_strdup(words.v[i]);
        char *at = strstr(w, "{source}");
        if (at) {
            *at = 0;
            char *n = mtb_asprintf("%s%s%s", w, source, at + 8);
            free(w);
            w = n;
        }
        char *pat = mtb_asprintf("%s/%s", mtb_root(), w);
        glob_t g;
        if (glob(pat, 0, NULL, &g) == 0) {
            for (size_t j = 0; j < g.gl_pathc; j++)
                mtb_argv_push(out, g.gl_pathv[j]);
            globfree(&g);
        } else {
            snprintf(err, errlen, "no file matches %s", w);
            rc = -1;
        }
        free(pat);
        free(w);
    }
    mtb_argv_free(&words);
    return rc;
}

static char *tarball_of(const char *source)
{
    return mtb_asprintf("/usr/src/linux-source-%s.tar.xz", source);
}

/* sha256 of the source tarball, once per process per version. */
static const char *tarball_sha(const char *source, char *err, size_t errlen)
{
    static char done_src[8][16], done_hex[8][65];
    static int ndone;
    for (int i = 0; i < ndone; i++)
        if (!strcmp(done_src[i], source))
            return done_hex[i];
    char *tb = tarball_of(source);
    char hex[65];
    if (mtb_sha256_file(tb, hex) != 0) {
        snprintf(err, errlen, "kernel source %s not found (make deps installs linux-source-%s; "
                 "KERNEL_SOURCE accepts %s)", tb, source, MTB_KERNEL_SOURCES);
        free(tb);
        return NULL;
    }
    free(tb);
    if (ndone == 8)
        ndone = 0;
    snprintf(done_src[ndone], sizeof done_src[0], "%s", source);
    memcpy(done_hex[ndone], hex, 65);
    return done_hex[ndone++];
}

static char *cross_prefix(void)
{
    struct mtb_argv a = { 0 };
    mtb_argv_push(&a, "uname");
    mtb_argv_push(&a, "-m");
    int st;
    char *m = mtb_capture(a.v, 0, &st);
    mtb_argv_free(&a);
    int native = m && !strncmp(m, "aarch64", 7);
    free(m);
    return mtb_strdup(native ? "" : "aarch64-linux-gnu-");
}

static char *toolchain_id(const char *cross)
{
    char *cc = mtb_asprintf("%sgcc", cross);
    char *const argv[] = { cc, "--version", NULL };
    int st;
    char *out = mtb_capture(argv, 0, &st);
    free(cc);
    if (!out || st != 0) {
        free(out);
        return NULL;
    }
    out[strcspn(out, "\n")] = 0;
    return out;
}

/* Everything that decides the kernel: key and the record's inputs. */
struct kplan {
    struct kconf c;
    struct mtb_ktree t; /* a git tree or a patch series; kind NAMED otherwise */
    char label[64];     /* the cache entry's name */
    struct mtb_argv frags, patches;
    char *script, *tc, *cross;
    const char *src_sha;
    char key[65];
    json_t *jpatches, *jfrags;
};

static void kplan_free(struct kplan *p)
{
    kconf_free(&p->c);
    mtb_ktree_free(&p->t);
    mtb_argv_free(&p->frags);
    mtb_argv_free(&p->patches);
    free(p->script);
    free(p->tc);
    free(p->cross);
    json_decref(p->jpatches);
    json_decref(p->jfrags);
    memset(p, 0, sizeof *p);
}

/* a tree or a series on its named kernel: the series' patches after the
 * base's, the base's build tree as the incremental start, its own uname -r */
static void ktree_adopt(struct kplan *p)
{
    if (p->t.kind == MTB_KTREE_NAMED)
        return;
    for (int i = 0; i < p->t.patches.n; i++)
        mtb_argv_push(&p->patches, p->t.patches.v[i]);
    free(p->c.base);
    p->c.base = mtb_strdup(p->t.base);
    char *lv = mtb_asprintf("%s-%s", p->c.localversion ? p->c.localversion : "",
                            p->t.kind == MTB_KTREE_GIT ? "git" : "series");
    free(p->c.localversion);
    p->c.localversion = lv;
}

/* a path as the key and the record name it: relative to the project, else as is */
static const char *rel_path(const char *path)
{
    size_t n = strlen(mtb_root());
    return !strncmp(path, mtb_root(), n) && path[n] == '/' ? path + n + 1 : path;
}

static int kplan_make(const char *name, const char *source, struct kplan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (strcmp(source, "6.12") && strcmp(source, "6.1")) {
        snprintf(err, errlen, "invalid KERNEL_SOURCE '%s' (accepted: %s)", source, MTB_KERNEL_SOURCES);
        return -1;
    }
    if (mtb_ktree_parse(name, &p->t, err, errlen) < 0)
        return -1;
    snprintf(p->label, sizeof p->label, "%s", p->t.kind ? p->t.label : name);
    if (load_conf(p->t.kind ? p->t.base : name, &p->c, err, errlen) != 0) {
        mtb_ktree_free(&p->t);
        return -1;
    }
    if (expand(p->c.fragments, source, &p->frags, err, errlen) != 0 ||
        expand(p->c.patches, source, &p->patches, err, errlen) != 0)
        goto fail;
    ktree_adopt(p);
    p->src_sha = tarball_sha(source, err, errlen);
    if (!p->src_sha)
        goto fail;
    p->cross = cross_prefix();
    p->tc = toolchain_id(p->cross);
    if (!p->tc) {
        snprintf(err, errlen, "compiler %sgcc not found (make deps installs it)", p->cross);
        goto fail;
    }
    p->script = mtb_asprintf("%s/harness/core/kernel-build.sh", mtb_root());
    struct mtb_hash *h = mtb_hash_new();
    mtb_hash_str(h, "abi", KERNEL_ABI);
    mtb_hash_str(h, "source", source);
    mtb_hash_str(h, "source-sha256", p->src_sha);
    mtb_hash_str(h, "localversion", p->c.localversion ? p->c.localversion : "");
    mtb_hash_str(h, "toolchain", p->tc);
    int bad_git = 0;
    if (p->t.kind == MTB_KTREE_GIT) {
        mtb_hash_str(h, "git-tree", p->t.tree_id); /* REF's content, whatever its name */
        char *gs = mtb_asprintf("%s/harness/core/kernel-git-tree.sh", mtb_root());
        bad_git = mtb_hash_file(h, "git-script", gs) != 0;
        free(gs);
    }
    int bad = mtb_hash_file(h, "script", p->script) != 0 || bad_git;
    p->jfrags = json_array();
    p->jpatches = json_array();
    for (int i = 0; i < p->frags.n && !bad; i++) {
        char hex[65];
        bad = mtb_sha256_file(p->frags.v[i], hex) != 0;
        const char *rel = rel_path(p->frags.v[i]);
        mtb_hash_str(h, "fragment", rel);
        mtb_hash_str(h, "fragment-sha256", hex);
        json_array_append_new(p->jfrags, json_pack("{s:s,s:s}", "file", rel, "sha256", hex));
    }
    for (int i = 0; i < p->patches.n && !bad; i++) {
        char hex[65];
        bad = mtb_sha256_file(p->patches.v[i], hex) != 0;
        const char *rel = rel_path(p->patches.v[i]);
        mtb_hash_str(h, "patch", rel);
        mtb_hash_str(h, "patch-sha256", hex);
        json_array_append_new(p->jpatches, json_pack("{s:s,s:s}", "file", rel, "sha256", hex));
    }
    mtb_hash_final(h, p->key);
    if (bad) {
        snprintf(err, errlen, "cannot read an input of kernel %s (%s, its fragments or patches)", name,
                 p->script);
        goto fail;
    }
    return 0;
fail:
    kplan_free(p);
    return -1;
}

static char *kdir(const char *name, const char *source, const char *key)
{
    return mtb_asprintf("%s/kernels/%s-%s-%.12s", mtb_cache(), name, source, key);
}

/* Fill out from a finished build directory: dir (NULL: name's) */
static int load_built_dir(char *dir, const char *name, const char *source, const char *key, struct mtb_kernel *out)
{
    if (!dir)
        dir = kdir(name, source, key);
    char *image = mtb_asprintf("%s/Image", dir);
    char *infop = mtb_asprintf("%s/build.json", dir);
    json_error_t je;
    json_t *info = mtb_file_exists(image) ? json_load_file(infop, 0, &je) : NULL;
    free(infop);
    if (!info) {
        free(dir);
        free(image);
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    snprintf(out->source, sizeof out->source, "%s", source);
    memcpy(out->key, key, 65);
    out->dir = dir;
    out->image = image;
    struct mtb_build_view bv;
    mtb_build_view_read(info, &bv);
    out->release = bv.uname_r ? mtb_strdup(bv.uname_r) : NULL;
    out->info = info;
    return 0;
}

static int load_built(const char *name, const char *source, const char *key, struct mtb_kernel *out)
{
    return load_built_dir(NULL, name, source, key, out);
}

/* A git commit's kernel made for another commit of the same tree (the key is
 * the content's; the directory's name is the commit's label), filled in out. */
static int load_same_tree(const struct kplan *p, const char *source, struct mtb_kernel *out)
{
    if (p->t.kind != MTB_KTREE_GIT)
        return -1;
    char *pat = mtb_asprintf("%s/kernels/git-*-%s-%.12s", mtb_cache(), source, p->key);
    glob_t g;
    int rc = -1;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; rc && i < g.gl_pathc; i++)
            rc = load_built_dir(mtb_strdup(g.gl_pathv[i]), p->label, source, p->key, out);
        globfree(&g);
    }
    free(pat);
    return rc;
}

static int read_trimmed(const char *path, char **out)
{
    char *t = mtb_read_file(path, NULL);
    if (!t)
        return -1;
    t[strcspn(t, "\n")] = 0;
    *out = t;
    return 0;
}

static int ensure_path(const char *path, struct mtb_kernel *out, char *err, size_t errlen)
{
    char hex[65];
    if (mtb_sha256_file(path, hex) != 0) {
        snprintf(err, errlen, "kernel image %s cannot be read (KERNEL accepts %s, or the path of an arm64 Image)",
                 path, mtb_kernel_names());
        return -1;
    }
    const char *b = strrchr(path, '/') + 1;
    snprintf(out->name, sizeof out->name, "%s", *b ? b : "Image");
    memcpy(out->key, hex, 65);
    char rp[4096];
    out->image = mtb_strdup(realpath(path, rp) ? rp : path);
    out->cached = 1;
    out->info = json_pack("{s:s,s:s,s:s,s:n,s:[],s:s,s:s}", "name", out->name, "image", out->image,
                          "build_hash", hex, "config_hash", "patches", "source", "prebuilt",
                          "note", "a prebuilt Image given by path: build_hash is its sha256");
    return 0;
}

/* Build directories left by an interrupted build (<dir>.tmp.<pid> of a
 * process that is gone) hold a whole kernel tree: remove them. */
static void remove_stale_tmp(const char *dir)
{
    char *pat = mtb_asprintf("%s.tmp.*", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            long pid = atol(strrchr(g.gl_pathv[i], '.') + 1);
            if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
                fprintf(stderr, "mtebench: removing %s (left by an interrupted build)\n", g.gl_pathv[i]);
                mtb_rm_rf(g.gl_pathv[i]);
            }
        }
        globfree(&g);
    }
    free(pat);
}

/* The base kernel's tree to start from (incremental), when the base's
 * fragments are ours and it has no patches of its own; else NULLs. */
static void base_tree_of(const struct kplan *p, const char *name, const char *source, char **base_tree,
                         char **base_key)
{
    if (!p->c.base || !*p->c.base || !strcmp(p->c.base, name))
        return;
    struct kplan bp;
    char berr[MTB_ERRLEN];
    if (kplan_make(p->c.base, source, &bp, berr, sizeof berr) != 0)
        return;
    int same = bp.frags.n == p->frags.n && bp.patches.n == 0;
    for (int i = 0; same && i < p->frags.n; i++)
        same = !strcmp(bp.frags.v[i], p->frags.v[i]);
    char *bd = kdir(p->c.base, source, bp.key);
    char *bt = mtb_asprintf("%s/tree", bd);
    char *bi = mtb_asprintf("%s/build.json", bd);
    if (same && mtb_file_exists(bt) && mtb_file_exists(bi)) {
        *base_tree = bt;
        bt = NULL;
        *base_key = mtb_strdup(bp.key);
    }
    free(bt);
    free(bi);
    free(bd);
    kplan_free(&bp);
}

/* "a\nb\n" of an argv */
static char *lines_of(const struct mtb_argv *a)
{
    char *out = mtb_calloc(1, 1);
    for (int i = 0; i < a->n; i++) {
        char *n = mtb_asprintf("%s%s\n", out, a->v[i]);
        free(out);
        out = n;
    }
    return out;
}

/* A failed kernel build: the log's tail on stderr, the log kept. */
static void kernel_build_failed(const char *name, const char *source, const char *dir, const char *logp, int st,
                                char *err, size_t errlen)
{
    char desc[64];
    char *kept = mtb_proc_keep_failed_log(logp, dir);
    snprintf(err, errlen, "build of kernel %s (linux-source-%s) failed (%s); full log: %s", name, source,
             st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), kept);
    free(kept);
}

/* A git commit's tree made by kernel-git-tree.sh in TMP/gitprep (over a copy
 * of the base's tree when there is one), which kernel-build.sh then starts
 * from as its base tree. @return 0 or the script's wait status */
static int git_prep(const struct kplan *p, const char *tmp, const char *logp, char **base_tree)
{
    if (p->t.kind != MTB_KTREE_GIT)
        return 0;
    char *prep = mtb_asprintf("%s/gitprep", tmp), *script = mtb_asprintf("%s/harness/core/kernel-git-tree.sh", mtb_root());
    char *envv[] = { mtb_asprintf("MTB_GIT=%s", p->t.git), mtb_asprintf("MTB_GIT_COMMIT=%s", p->t.commit),
                     mtb_asprintf("MTB_BASE_TREE=%s", *base_tree ? *base_tree : ""), mtb_asprintf("MTB_PREP=%s", prep),
                     NULL };
    char *const argv[] = { "bash", script, NULL };
    struct mtb_spawn s = { .argv = argv, .env_add = envv, .log_path = logp };
    int st = mtb_proc_run(&s, 3600);
    for (char **e = envv; *e; e++)
        free(*e);
    free(script);
    free(*base_tree);
    *base_tree = prep;
    return st;
}

/* Trees a finished build in tmp does not keep: the prepared tree of a git
 * commit (hard links kernel-build.sh copied), and the build tree of a git
 * tree's or a series' kernel, which is no kernel's base (1.7 GB each). */
static void drop_trees(const struct kplan *p, const char *tmp)
{
    char *prep = mtb_asprintf("%s/gitprep", tmp), *tree = mtb_asprintf("%s/tree", tmp);
    mtb_rm_rf(prep);
    if (p->t.kind != MTB_KTREE_NAMED)
        mtb_rm_rf(tree);
    free(prep);
    free(tree);
}

/* a git tree's identity in the kernel's build.json (and so in every record) */
static void git_info(json_t *info, const struct mtb_ktree *t)
{
    if (t->kind == MTB_KTREE_GIT)
        json_object_set_new(info, "git", json_pack("{s:s,s:s,s:s,s:s}", "tree", t->git, "ref", t->ref, "commit",
                                                   t->commit, "tree_id", t->tree_id));
}

/* A cached build of p (used without waiting: it appears by a rename), else
 * one made by the build we waited for: 1 with out filled. Else 0, *lock the
 * held lock of kernel builds (one at a time: they share the unpacked source
 * and base trees, and a stale temporary tree is removed). */
static int find_cached(const char *name, const char *source, const struct kplan *p, int force, int quiet,
                       struct mtb_kernel *out, int *lock)
{
    *lock = -1;
    int cached = !force && (load_built(name, source, p->key, out) == 0 || load_same_tree(p, source, out) == 0);
    if (!cached) {
        char *kroot = mtb_asprintf("%s/kernels", mtb_cache()), *lockp = mtb_asprintf("%s/.lock", kroot);
        mtb_mkdir_p(kroot);
        *lock = mtb_lock_wait(lockp, "another kernel build", quiet);
        free(lockp);
        free(kroot);
        cached = !force && (load_built(name, source, p->key, out) == 0 ||
                            load_same_tree(p, source, out) == 0); /* made by the one we waited for */
    }
    if (!cached)
        return 0;
    out->cached = 1;
    json_object_set_new(out->info, "cached", json_true());
    git_info(out->info, &p->t); /* the commit asked for: the build may be another's of the same tree */
    if (!quiet)
        fprintf(stderr, "mtebench: kernel %s (%s): cached build %.12s\n", name, source, p->key);
    return 1;
}

/* kernel-build.sh for p into tmp (from base_tree when not NULL), its output
 * in log; *secs its time. @return its exit status */
static int run_build_script(const struct kplan *p, const char *source, const char *tmp, const char *base_tree,
                            const char *log, double *secs)
{
    char *fraglist = lines_of(&p->frags), *patchlist = lines_of(&p->patches);
    char *tb = tarball_of(source);
    char *envv[] = {
        mtb_asprintf("MTB_KSRC=%s", tb), mtb_asprintf("MTB_OUT=%s", tmp),
        mtb_asprintf("MTB_BASE_TREE=%s", base_tree ? base_tree : ""),
        mtb_asprintf("MTB_FRAGMENTS=%s", fraglist), mtb_asprintf("MTB_PATCHES=%s", patchlist),
        mtb_asprintf("MTB_LOCALVERSION=%s", p->c.localversion ? p->c.localversion : ""),
        mtb_asprintf("MTB_CROSS=%s", p->cross), mtb_asprintf("MTB_JOBS=%d", mtb_ncpus()), NULL,
    };
    char *const argv[] = { "bash", p->script, NULL };
    struct mtb_spawn s = { .argv = argv, .env_add = envv, .log_path = log };
    double t0 = mtb_mono();
    int st = mtb_proc_run(&s, 3600);
    *secs = mtb_mono() - t0;
    for (char **e = envv; *e; e++)
        free(*e);
    free(tb);
    free(fraglist);
    free(patchlist);
    return st;
}

/* What a finished build of plan p is: its build.json (the inputs and the
 * hashes; the kernel's release, its .config's hash, how long it took, the
 * kernel it was built incrementally from) */
static json_t *build_info(const char *name, const char *source, const struct kplan *p, const char *release,
                          const char *cfg_hex, double secs, const char *base_key)
{
    json_t *info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:O,s:s,s:s,s:f,s:s*,s:s*}",
                             "name", name, "summary", p->c.summary ? p->c.summary : "",
                             "source", source, "source_sha256", p->src_sha,
                             "build_hash", p->key, "config_hash", cfg_hex,
                             "patches", p->jpatches, "fragments", p->jfrags,
                             "uname_r", release, "toolchain", p->tc, "build_seconds", secs,
                             "incremental_from", base_key, "base", p->c.base);
    git_info(info, &p->t);
    return info;
}

/* A finished build in tmp: its build.json (info, taken), then tmp moved to
 * dir, where later runs find it. @return 0 or -1 (err) */
static int install_build(json_t *info, const char *tmp, const char *dir, char *err, size_t errlen)
{
    char *ip = mtb_asprintf("%s/build.json", tmp);
    json_dump_file(info, ip, JSON_INDENT(2) | JSON_SORT_KEYS);
    free(ip);
    json_decref(info);
    mtb_rm_rf(dir);
    if (rename(tmp, dir) != 0) {
        snprintf(err, errlen, "cannot move %s into place: %s", tmp, strerror(errno));
        mtb_rm_rf(tmp);
        return -1;
    }
    return 0;
}

int mtb_kernel_cached(const char *name)
{
    const char *source = mtb_kernel_source_default();
    struct kplan p;
    char err[MTB_ERRLEN];
    if (kplan_make(name, source, &p, err, sizeof err) != 0)
        return 0;
    struct mtb_kernel k;
    memset(&k, 0, sizeof k);
    int cached = load_built(p.label, source, p.key, &k) == 0 || load_same_tree(&p, source, &k) == 0;
    mtb_kernel_free(&k);
    kplan_free(&p);
    return cached;
}

int mtb_kernel_ensure(const char *name, const char *source, int force, int quiet,
                      struct mtb_kernel *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (name && strchr(name, '/') && !mtb_ktree_is(name))
        return ensure_path(name, out, err, errlen);
    if (!source)
        source = mtb_kernel_source_default();
    struct kplan p;
    if (kplan_make(name, source, &p, err, errlen) != 0)
        return -1;
    int rc = -1, lock = -1;
    if (find_cached(p.label, source, &p, force, quiet, out, &lock)) {
        json_object_set_new(out->info, "name", json_string(name)); /* as asked, as a build names it */
        kplan_free(&p);
        if (lock >= 0)
            close(lock);
        return 0;
    }

    /* an incremental start: the base kernel's tree, when its fragments match */
    char *base_tree = NULL, *base_key = NULL;
    base_tree_of(&p, p.label, source, &base_tree, &base_key);

    char *dir = kdir(p.label, source, p.key);
    remove_stale_tmp(dir);
    char *tmp = mtb_asprintf("%s.tmp.%d", dir, (int)getpid());
    char *logp = mtb_asprintf("%s/build.log", tmp);
    mtb_rm_rf(tmp);
    mtb_mkdir_p(tmp);
    if (!quiet)
        fprintf(stderr, "mtebench: building kernel %s from linux-source-%s (key %.12s%s%s%s; log %s/build.log)...\n",
                name, source, p.key, base_tree ? ", incrementally from " : "", base_tree ? p.c.base : "",
                base_tree ? "'s tree" : "", dir);
    double secs = 0;
    int st = git_prep(&p, tmp, logp, &base_tree);
    st = st ? st : run_build_script(&p, source, tmp, base_tree, logp, &secs);
    char *img = mtb_asprintf("%s/Image", tmp);
    char *cfg = mtb_asprintf("%s/config", tmp);
    char *relp = mtb_asprintf("%s/kernelrelease", tmp);
    char *release = NULL, cfg_hex[65] = "";
    if (st != 0 || !mtb_file_exists(img) || read_trimmed(relp, &release) != 0 ||
        mtb_sha256_file(cfg, cfg_hex) != 0) {
        kernel_build_failed(name, source, dir, logp, st, err, errlen);
        mtb_rm_rf(tmp);
        goto out;
    }
    drop_trees(&p, tmp);
    if (install_build(build_info(name, source, &p, release, cfg_hex, secs, base_key), tmp, dir, err, errlen) != 0)
        goto out;
    if (load_built(p.label, source, p.key, out) != 0) {
        snprintf(err, errlen, "kernel %s built but %s/build.json is unreadable", name, dir);
        goto out;
    }
    json_object_set_new(out->info, "cached", json_false());
    if (!quiet)
        fprintf(stderr, "mtebench: built kernel %s (%s) in %.0f s%s\n", name, release, secs,
                base_tree ? " (incremental)" : "");
    rc = 0;
out:
    free(release);
    free(img);
    free(cfg);
    free(relp);
    free(logp);
    free(tmp);
    free(dir);
    free(base_tree);
    free(base_key);
    kplan_free(&p);
    if (lock >= 0)
        close(lock);
    return rc;
}

void mtb_kernel_free(struct mtb_kernel *k)
{
    free(k->dir);
    free(k->image);
    free(k->release);
    json_decref(k->info);
    memset(k, 0, sizeof *k);
}

char *mtb_kernel_summary(const char *name)
{
    struct kconf c;
    char err[MTB_ERRLEN];
    if (load_conf(name, &c, err, sizeof err) != 0)
        return NULL;
    char *s = mtb_strdup(c.summary ? c.summary : "");
    kconf_free(&c);
    return s;
}
