/* build.c - see build.h */
#include "core/build.h"
#include "core/build_rows.h"
#include "core/hostfacts.h"
#include "core/workload.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/hash.h"
#include "lib/argv.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUILD_ABI "mtebench-build/1"
#define XSYSROOT "/opt/mtebench/sysroot-arm64"

/* Verified path of the pinned upstream source in the cache (downloads it
 * from Debian's archive with apt-get source when missing). */
static int mtb_build_source(const struct mtb_recipe *r, char **path, char *err, size_t errlen)
{
    const char *orig = r->orig;
    const char *pin = r->sha256;
    char *dir = mtb_asprintf("%s/src", mtb_cache());
    char *p = mtb_asprintf("%s/%s", dir, orig);
    mtb_mkdir_p(dir);
    /* one fetch of a source at a time: two mtebench processes building
     * different variants of a service meet here before the service's build
     * lock, and a half-downloaded file would fail the other's checksum */
    int lock = -1;
    if (!mtb_file_exists(p)) {
        char *lockp = mtb_asprintf("%s/.lock-%s", dir, r->source_package);
        char *what = mtb_asprintf("another fetch of %s", orig);
        lock = mtb_lock_wait(lockp, what, 0);
        free(what);
        free(lockp);
    }
    if (!mtb_file_exists(p)) {
        const char *pkg = r->source_package;
        const char *ver = r->source_version;
        fprintf(stderr, "mtebench: fetching %s=%s from Debian's archive (apt-get source)\n", pkg, ver);
        char *spec = mtb_asprintf("%s=%s", pkg, ver);
        char *log = mtb_asprintf("%s/apt-source.log", dir);
        char *const argv[] = { "apt-get", "source", "--download-only", "-q", spec, NULL };
        struct mtb_spawn s = { .argv = argv, .log_path = log, .cwd = dir };
        int st = mtb_proc_run(&s, 600);
        free(spec);
        if (st != 0 || !mtb_file_exists(p)) {
            snprintf(err, errlen, "could not fetch %s=%s with apt-get source (is the deb-src "
                     "entry there? run make deps); see %s", pkg, ver, log);
            if (lock >= 0)
                close(lock);
            free(log);
            free(dir);
            free(p);
            return -1;
        }
        free(log);
    }
    if (lock >= 0)
        close(lock);
    char hex[65];
    if (mtb_sha256_file(p, hex) != 0 || strcmp(hex, pin) != 0) {
        snprintf(err, errlen, "%s: checksum mismatch (sha256 %s, recipe %s pins %s); "
                 "the file was removed, run again to fetch it anew", p, hex, r->path, pin);
        unlink(p);
        free(dir);
        free(p);
        return -1;
    }
    free(dir);
    *path = p;
    return 0;
}

/* Expand glob patterns such as "dir/NN-*.patch" relative to the project root, sorted per glob. */
static void expand_patches(const char *spec, struct mtb_argv *out)
{
    if (!spec)
        return;
    struct mtb_argv words = { 0 };
    mtb_argv_split(&words, spec);
    for (int i = 0; i < words.n; i++) {
        char *pat = mtb_asprintf("%s/%s", mtb_root(), words.v[i]);
        glob_t g;
        if (glob(pat, GLOB_NOCHECK, NULL, &g) == 0)
            for (size_t j = 0; j < g.gl_pathc; j++)
                mtb_argv_push(out, g.gl_pathv[j]);
        globfree(&g);
        free(pat);
    }
    mtb_argv_free(&words);
}

static char *toolchain_id(const char *cc)
{
    char *const argv[] = { (char *)cc, "--version", NULL };
    int st;
    char *out = mtb_capture(argv, 0, &st);
    if (!out || st != 0) {
        free(out);
        return NULL;
    }
    out[strcspn(out, "\n")] = 0;
    return out;
}

/* What goes into a build (and its key). */
struct build_inputs {
    int cross;
    const char *cc;
    char *tc, *src, *cflags, *script;
    struct mtb_argv patches;
    json_t *jp;            /* [{file, sha256}] of the patches */
    const char *tree_from; /* [variant] tree_from: the base variant, or NULL */
    char *tree_in;         /* MTB_TREE: the base's object tree this build starts from */
    int overlay_from;      /* with tree_in: patches[overlay_from..] are applied on it */
    char *tree_out;        /* keep the built work tree here (a base of others) */
    int tree_only;         /* building for the tree: an existing build is kept */
    json_t *base;          /* with tree_in: {variant, key, tree} for build.json */
};

static void inputs_free(struct build_inputs *in)
{
    json_decref(in->base);
    free(in->tree_out);
    free(in->tree_in);
    json_decref(in->jp);
    mtb_argv_free(&in->patches);
    free(in->script);
    free(in->cflags);
    free(in->src);
    free(in->tc);
}

/* The compiler, the verified source, flags, patches and script of a
 * variant for a target. @return 0, or -1 with err. */
static int build_inputs(const struct mtb_recipe *r, const char *variant, const char *target,
                        struct build_inputs *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->cross = !strcmp(target, "aarch64") && !mtb_host_is_arm64();
    const struct mtb_recipe_variant *v = mtb_recipe_variant(r, variant);
    if (!v) {
        char names[256];
        snprintf(err, errlen, "%s has no variant %s (accepted: %s)", r->name, variant,
                 mtb_recipe_variant_names(r, names, sizeof names));
        return -1;
    }
    /* [variant] compiler: gcc (the default) or clang (Debian's, stack tagging's compiler) */
    const char *comp = v->compiler;
    int clang = comp && !strcmp(comp, "clang");
    if (comp && !clang && strcmp(comp, "gcc")) {
        snprintf(err, errlen, "%s: [variant %s] compiler %s: accepted gcc, clang", r->path, variant, comp);
        return -1;
    }
    if (mtb_recipe_yes(v->stack_tagging) && strcmp(target, "aarch64")) {
        snprintf(err, errlen, "variant %s of %s tags the stack (MTE): arm64 code only, and this host is not arm64 "
                 "(use PLATFORM=emu)", variant, r->name);
        return -1;
    }
    in->cc = clang ? (in->cross ? "clang --target=aarch64-linux-gnu" : "clang")
                   : in->cross ? "aarch64-linux-gnu-gcc" : "gcc";
    in->tc = toolchain_id(clang ? "clang" : in->cc);
    if (!in->tc) {
        snprintf(err, errlen, "compiler %s not found (make deps installs it)", in->cc);
        return -1;
    }
    if (mtb_build_source(r, &in->src, err, errlen) != 0)
        return -1;
    /* cflags, then the target's: cflags_aarch64 or cflags_native */
    const char *cf1 = v->cflags, *cf2 = !strcmp(target, "aarch64") ? v->cflags_aarch64
                                       : !strcmp(target, "native") ? v->cflags_native
                                                                   : NULL;
    in->cflags = mtb_asprintf("%s%s%s", cf1 ? cf1 : "", cf1 && cf2 ? " " : "", cf2 ? cf2 : "");
    expand_patches(v->patches, &in->patches);
    in->script = mtb_asprintf("%s/%s", r->dir, r->build_script);
    in->jp = json_array();
    in->tree_from = v->tree_from;
    return 0;
}

/* Every input of the build goes into its key. @return 0, or -1 with err. */
static int build_key(const struct mtb_recipe *r, const char *variant, const char *target,
                     struct build_inputs *in, char key[65], char *err, size_t errlen)
{
    struct mtb_hash *h = mtb_hash_new();
    mtb_hash_str(h, "abi", BUILD_ABI);
    mtb_hash_str(h, "service", r->name);
    mtb_hash_str(h, "version", r->version);
    mtb_hash_str(h, "source", r->sha256);
    mtb_hash_str(h, "target", target);
    mtb_hash_str(h, "cflags", in->cflags);
    mtb_hash_str(h, "toolchain", in->tc);
    if (in->tree_from)
        mtb_hash_str(h, "tree_from", in->tree_from);
    if (mtb_hash_file(h, "script", in->script) != 0) {
        snprintf(err, errlen, "cannot read build script %s", in->script);
        mtb_hash_final(h, key);
        return -1;
    }
    for (int i = 0; i < in->patches.n; i++) {
        char hex[65];
        if (mtb_sha256_file(in->patches.v[i], hex) != 0) {
            snprintf(err, errlen, "patch %s of variant %s not found", in->patches.v[i], variant);
            mtb_hash_final(h, key);
            return -1;
        }
        const char *rel = in->patches.v[i] + strlen(mtb_root()) + 1;
        mtb_hash_str(h, "patch", rel);
        mtb_hash_str(h, "patch-sha256", hex);
        json_array_append_new(in->jp, json_pack("{s:s,s:s}", "file", rel, "sha256", hex));
    }
    if (in->cross) {
        char *stamp = mtb_read_file(XSYSROOT "/.stamp", NULL);
        mtb_hash_str(h, "xsysroot", stamp ? stamp : "");
        free(stamp);
    }
    mtb_hash_final(h, key);
    return 0;
}

/* A failed build: the log's tail on stderr, the log kept next to where the
 * build would have gone. */
static void build_failed(const struct mtb_recipe *r, const char *variant, const char *target, const char *dir,
                         const char *logp, int st, char *err, size_t errlen)
{
    char desc[64];
    char *kept = mtb_proc_keep_failed_log(logp, dir);
    snprintf(err, errlen, "build of %s %s for %s failed (%s); full log: %s", r->name, variant, target,
             st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), kept);
    free(kept);
}

/* A kept tree must work wherever it is copied: the symbolic links a build
 * made to absolute paths inside its work tree (PostgreSQL links its
 * generated headers so) are made relative. */
static const char *relink_root;

static int relink_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    char t[4096];
    size_t rl = strlen(relink_root);
    ssize_t n = type == FTW_SL ? readlink(path, t, sizeof t - 1) : -1;
    if (n <= 0)
        return 0;
    t[n] = 0;
    if (strncmp(t, relink_root, rl) != 0 || t[rl] != '/')
        return 0;
    char rel[4096] = "";
    for (const char *p = path + rl + 1; (p = strchr(p, '/')); p++)  /* a "../" per directory below the root */
        strncat(rel, "../", sizeof rel - strlen(rel) - 1);
    strncat(rel, t + rl + 1, sizeof rel - strlen(rel) - 1);
    if (unlink(path) == 0 && symlink(rel, path) != 0)
        return -1;
    return 0;
}

int mtb_build_relink_tree(const char *work)
{
    relink_root = work;
    return nftw(work, relink_one, 32, FTW_PHYS);
}

/* After a build whose tree is a base of others: its work tree moved to
 * in->tree_out (a rename in the cache's file system; the tree is there only
 * when complete), else removed. @return 0, or -1 with err. */
static int keep_tree(const struct build_inputs *in, const char *work, char *err, size_t errlen)
{
    if (!in->tree_out) {
        mtb_rm_rf(work);
        return 0;
    }
    char *parent = mtb_strdup(in->tree_out);
    *strrchr(parent, '/') = 0;
    mtb_mkdir_p(parent);
    free(parent);
    mtb_rm_rf(in->tree_out);
    if (mtb_build_relink_tree(work) != 0) {
        snprintf(err, errlen, "cannot make the links of %s relative: %s", work, strerror(errno));
        return -1;
    }
    if (rename(work, in->tree_out) != 0) {
        snprintf(err, errlen, "cannot keep the object tree %s: %s", in->tree_out, strerror(errno));
        return -1;
    }
    return 0;
}

/* Run build.sh in a temporary directory, write build.json, rename into
 * out->dir. @return 0, or -1 with err. */
static int build_run(const struct mtb_recipe *r, const char *variant, const char *target, struct build_inputs *in,
                     int quiet, struct mtb_build *out, char *err, size_t errlen)
{
    char *tmpdir = mtb_asprintf("%s.tmp.%d", out->dir, (int)getpid());
    char *work = mtb_asprintf("%s/work", tmpdir);
    char *logp = mtb_asprintf("%s/build.log", tmpdir);
    mtb_rm_rf(tmpdir);
    mtb_mkdir_p(work);
    if (!quiet)
        fprintf(stderr, "mtebench: building %s %s for %s (key %.12s; log %s/build.log)...\n",
                r->name, variant, target, out->key, out->dir);
    char *patchlist = mtb_calloc(1, 1);
    for (int i = in->tree_in ? in->overlay_from : 0; i < in->patches.n; i++) {
        char *n = mtb_asprintf("%s%s\n", patchlist, in->patches.v[i]);
        free(patchlist);
        patchlist = n;
    }
    char *envv[] = {
        mtb_asprintf("MTB_SRC=%s", in->src), mtb_asprintf("MTB_WORK=%s", work),
        mtb_asprintf("MTB_OUT=%s", tmpdir), mtb_asprintf("MTB_TARGET=%s", target),
        mtb_asprintf("MTB_CC=%s", in->cc), mtb_asprintf("MTB_CFLAGS=%s", in->cflags),
        mtb_asprintf("MTB_PATCHES=%s", patchlist),
        mtb_asprintf("MTB_HOST=%s", in->cross ? "aarch64-linux-gnu" : ""),
        mtb_asprintf("MTB_XSYSROOT=%s", XSYSROOT),
        mtb_asprintf("MTB_JOBS=%d", mtb_ncpus()),
        mtb_asprintf("MTB_TREE=%s", in->tree_in ? in->tree_in : ""), NULL,
    };
    char *const argv[] = { "bash", in->script, NULL };
    struct mtb_spawn s = { .argv = argv, .env_add = envv, .log_path = logp };
    double t0 = mtb_mono();
    int st = mtb_proc_run(&s, 3600);
    double secs = mtb_mono() - t0;
    char *tmpbin = mtb_asprintf("%s/%s", tmpdir, r->build_binary);
    int rc = -1;
    if (st != 0 || !mtb_file_exists(tmpbin)) {
        build_failed(r, variant, target, out->dir, logp, st, err, errlen);
        goto cleanup;
    }
    if (keep_tree(in, work, err, errlen) != 0)
        goto cleanup;
    if (in->tree_only && mtb_file_exists(out->binary)) {
        mtb_rm_rf(tmpdir);  /* the base's build was there: only its tree was wanted */
        rc = 0;
        goto cleanup;
    }
    out->info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:s,s:f}",
                          "service", r->name, "version", r->version,
                          "source_package", r->source_package,
                          "source_sha256", r->sha256,
                          "variant", variant, "target", target, "cflags", in->cflags,
                          "patches", in->jp, "toolchain", in->tc, "key", out->key,
                          "build_seconds", secs);
    if (in->base)
        json_object_set(out->info, "tree_from", in->base);
    char *ip = mtb_asprintf("%s/build.json", tmpdir);
    json_dump_file(out->info, ip, JSON_INDENT(2) | JSON_SORT_KEYS);
    free(ip);
    mtb_rm_rf(out->dir);
    if (rename(tmpdir, out->dir) != 0) {
        snprintf(err, errlen, "cannot move %s into place: %s", tmpdir, strerror(errno));
        goto cleanup;
    }
    json_object_set_new(out->info, "cached", json_false());
    if (!quiet)
        fprintf(stderr, "mtebench: built %s %s for %s in %.0f s\n", r->name, variant, target, secs);
    rc = 0;
cleanup:
    if (rc != 0)
        mtb_rm_rf(tmpdir);
    for (char **e = envv; *e; e++)
        free(*e);
    free(tmpbin);
    free(patchlist);
    free(logp);
    free(work);
    free(tmpdir);
    return rc;
}

/* Under the service's build lock no other build of it runs, so a build's
 * temporary tree left in its directory (DIR.tmp.PID: the harness was killed
 * while building) is abandoned: hundreds of MB for PostgreSQL. Removed, and
 * said. */
static void sweep_abandoned(const char *ldir, int quiet)
{
    char *pat = mtb_asprintf("%s/*.tmp.*", ldir);
    glob_t g;
    if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            if (!quiet)
                fprintf(stderr, "mtebench: removing %s (a build cut short)\n", g.gl_pathv[i]);
            mtb_rm_rf(g.gl_pathv[i]);
        }
        globfree(&g);
    }
    free(pat);
}

/* The build in out->dir, when it is complete (its binary and build.json).
 * @return 0 (out->info loaded, out->cached set) or -1. */
static int load_cached(const struct mtb_recipe *r, const char *variant, const char *target, int quiet,
                       struct mtb_build *out)
{
    char *infopath = mtb_asprintf("%s/build.json", out->dir);
    json_error_t je;
    out->info = mtb_file_exists(out->binary) ? json_load_file(infopath, 0, &je) : NULL;
    free(infopath);
    if (!out->info)
        return -1;
    out->cached = 1;
    json_object_set_new(out->info, "cached", json_true());
    if (!quiet)
        fprintf(stderr, "mtebench: %s %s (%s): cached build %.12s\n", r->name, variant, target, out->key);
    return 0;
}

char *mtb_build_dir_of(const char *service, const char *variant, const char *target, const char *key)
{
    return mtb_asprintf("%s/builds/%s/%s-%s-%.12s", mtb_cache(), service, variant, target, key);
}

static char *build_dir(const struct mtb_recipe *r, const char *variant, const char *target, const char *key)
{
    return mtb_build_dir_of(r->name, variant, target, key);
}

/* Where a base variant's built work tree is kept: beside the builds, never
 * inside one (a build directory travels into the vm guest). */
static char *tree_path(const struct mtb_recipe *r, const char *variant, const char *target, const char *key)
{
    return mtb_asprintf("%s/obj/trees/%s/%s-%s-%.12s", mtb_cache(), r->name, variant, target, key);
}

/* 1 when another variant of the recipe is built from this one's tree. */
static int is_tree_base(const struct mtb_recipe *r, const char *variant)
{
    for (size_t i = 0; i < r->nvariants; i++)
        if (r->vars[i].tree_from && !strcmp(r->vars[i].tree_from, variant))
            return 1;
    return 0;
}

/* Why a variant cannot start from its base's tree (its flags must be the
 * base's and its patches begin with the base's), or NULL. */
static const char *tree_mismatch(const struct build_inputs *b, const struct build_inputs *in)
{
    if (strcmp(b->cflags, in->cflags) != 0)
        return "the flags differ";
    if (b->patches.n > in->patches.n)
        return "the base has more patches";
    for (int i = 0; i < b->patches.n; i++)
        if (strcmp(b->patches.v[i], in->patches.v[i]) != 0)
            return "its patches do not begin with the base's";
    return NULL;
}

/* tree_from may chain (objtag from tagged's tree, objtag-bugs from
 * objtag's): at most this many bases deep, which also ends a cycle */
#define TREE_CHAIN_MAX 4

/* For a variant with tree_from, under the service's build lock: the base's
 * object tree (made first when missing: the base's build, itself from its
 * own base's tree when it has one, its tree kept, its build installed
 * unless already there), then in->tree_in, overlay_from and base.
 * @return 0, or -1 with err. */
static int prepare_tree(const struct mtb_recipe *r, const char *variant, const char *target,
                        struct build_inputs *in, int quiet, int depth, char *err, size_t errlen)
{
    const char *bv = in->tree_from;
    if (depth >= TREE_CHAIN_MAX) {
        snprintf(err, errlen, "%s: [variant %s] tree_from: more than %d bases deep (a cycle?)", r->path, variant,
                 TREE_CHAIN_MAX);
        return -1;
    }
    if (!mtb_recipe_has_variant(r, bv)) {
        snprintf(err, errlen, "%s: [variant %s] tree_from names no variant ('%s')", r->path, variant, bv);
        return -1;
    }
    struct build_inputs b;
    struct mtb_build bo = { 0 };
    int rc = -1;
    if (build_inputs(r, bv, target, &b, err, errlen) != 0 ||
        build_key(r, bv, target, &b, bo.key, err, errlen) != 0)
        goto out;
    const char *why = tree_mismatch(&b, in);
    if (why) {
        snprintf(err, errlen, "%s: variant %s cannot be built from %s's tree: %s", r->path, variant, bv, why);
        goto out;
    }
    b.tree_out = tree_path(r, bv, target, bo.key);
    rc = 0;
    if (!mtb_file_exists(b.tree_out)) {
        bo.dir = build_dir(r, bv, target, bo.key);
        bo.binary = mtb_asprintf("%s/%s", bo.dir, r->build_binary);
        b.tree_only = 1;
        if (!quiet)
            fprintf(stderr, "mtebench: %s %s starts from %s's object tree: building it first\n",
                    r->name, variant, bv);
        if (b.tree_from)
            rc = prepare_tree(r, bv, target, &b, quiet, depth + 1, err, errlen);
        if (rc == 0)
            rc = build_run(r, bv, target, &b, quiet, &bo, err, errlen);
    }
    if (rc == 0) {
        in->tree_in = mtb_strdup(b.tree_out);
        in->overlay_from = b.patches.n;
        in->base = json_pack("{s:s,s:s,s:s}", "variant", bv, "key", bo.key, "tree", b.tree_out);
    }
out:
    json_decref(bo.info);
    free(bo.binary);
    free(bo.dir);
    inputs_free(&b);
    return rc;
}

int mtb_build_ensure(const struct mtb_recipe *r, const char *variant, const char *target,
                     int force, int quiet, struct mtb_build *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!mtb_recipe_has_variant(r, variant)) {
        char names[256];
        snprintf(err, errlen, "unknown variant '%s' of %s (accepted: %s)", variant, r->name,
                 mtb_recipe_variant_names(r, names, sizeof names));
        return -1;
    }
    struct build_inputs in;
    if (build_inputs(r, variant, target, &in, err, errlen) != 0 ||
        build_key(r, variant, target, &in, out->key, err, errlen) != 0) {
        inputs_free(&in);
        return -1;
    }
    out->dir = build_dir(r, variant, target, out->key);
    out->binary = mtb_asprintf("%s/%s", out->dir, r->build_binary);
    int rc = force ? -1 : load_cached(r, variant, target, quiet, out);
    if (rc != 0) {
        /* one build of a service at a time: another mtebench may be making
         * this very build (then it is cached once the lock is ours), and the
         * build scripts share the service's unpacked sources and object trees;
         * a cached build is used without waiting (it appears by a rename) */
        char *ldir = mtb_asprintf("%s/builds/%s", mtb_cache(), r->name);
        char *lockp = mtb_asprintf("%s/.lock", ldir), *what = mtb_asprintf("another build of %s", r->name);
        mtb_mkdir_p(ldir);
        int lock = mtb_lock_wait(lockp, what, quiet);
        free(what);
        free(lockp);
        rc = force ? -1 : load_cached(r, variant, target, quiet, out);
        if (rc != 0) {
            if (lock >= 0)
                sweep_abandoned(ldir, quiet);
            if (is_tree_base(r, variant))
                in.tree_out = tree_path(r, variant, target, out->key);
            rc = in.tree_from ? prepare_tree(r, variant, target, &in, quiet, 0, err, errlen) : 0;
            if (rc == 0)
                rc = build_run(r, variant, target, &in, quiet, out, err, errlen);
        }
        if (lock >= 0)
            close(lock);
        free(ldir);
    }
    inputs_free(&in);
    return rc;
}

int mtb_build_load_dir(const struct mtb_recipe *r, const char *dir, struct mtb_build *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *infop = mtb_asprintf("%s/build.json", dir);
    json_error_t je;
    out->info = json_load_file(infop, 0, &je);
    free(infop);
    if (!out->info) {
        snprintf(err, errlen, "%s is not a build directory (no readable build.json)", dir);
        return -1;
    }
    struct mtb_build_view bv;
    mtb_build_view_read(out->info, &bv);
    snprintf(out->key, sizeof out->key, "%s", bv.key ? bv.key : "");
    out->dir = mtb_strdup(dir);
    out->binary = mtb_asprintf("%s/%s", dir, r->build_binary);
    out->cached = 1;
    json_object_set_new(out->info, "cached", json_true());
    if (!mtb_file_exists(out->binary)) {
        snprintf(err, errlen, "%s has no %s", dir, r->build_binary);
        return -1;
    }
    return 0;
}

char *mtb_build_setup_dir(const struct mtb_build *b, const struct mtb_recipe *r, const struct mtb_workload *wl,
                          const char *user, const char *mode_env)
{
    const char *setup = r->run.setup;
    if (!setup || !r->run.setup_reuse)
        return NULL;
    char *script = mtb_asprintf("%s/%s", r->dir, setup);
    json_t *params = mtb_workload_params(wl);
    struct mtb_hash *h = mtb_hash_new();
    char hex[65];
    /* the build's content key, not its path: a server host or a vm guest,
     * whose copy of the build lies elsewhere, computes the same key (the
     * path where a build has no key) */
    mtb_hash_str(h, "build", b->key[0] ? b->key : b->dir);
    mtb_hash_file(h, "script", script);
    mtb_hash_str(h, "user", user ? user : "");
    mtb_hash_str(h, "mode", mode_env);
    const char *pk;
    json_t *pv;
    json_object_foreach(params, pk, pv) mtb_hash_str(h, pk, json_string_value(pv));
    mtb_hash_final(h, hex);
    json_decref(params);
    free(script);
    return mtb_asprintf("%s/setup/%s-%.16s", mtb_cache(), r->name, hex);
}
