/* build.c - see build.h */
#include "build.h"
#include "platform.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUILD_ABI "mtebench-build/1"
#define XSYSROOT "/opt/mtebench/sysroot-arm64"

int mtb_build_source(const struct mtb_recipe *r, char **path, char *err, size_t errlen)
{
    const char *orig = mtb_recipe_need(r, "service", "orig");
    const char *pin = mtb_recipe_need(r, "service", "sha256");
    char *dir = mtb_asprintf("%s/src", mtb_cache());
    char *p = mtb_asprintf("%s/%s", dir, orig);
    mtb_mkdir_p(dir);
    if (!mtb_file_exists(p)) {
        const char *pkg = mtb_recipe_need(r, "service", "source_package");
        const char *ver = mtb_recipe_need(r, "service", "source_version");
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
            free(log);
            free(dir);
            free(p);
            return -1;
        }
        free(log);
    }
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
    int cross = !strcmp(target, "aarch64") && !mtb_host_is_arm64();
    const char *cc = cross ? "aarch64-linux-gnu-gcc" : "gcc";
    char *tc = toolchain_id(cc);
    if (!tc) {
        snprintf(err, errlen, "compiler %s not found (make deps installs it)", cc);
        return -1;
    }
    char *src = NULL;
    if (mtb_build_source(r, &src, err, errlen) != 0) {
        free(tc);
        return -1;
    }

    char section[128];
    snprintf(section, sizeof section, "variant %s", variant);
    char cfkey[64];
    snprintf(cfkey, sizeof cfkey, "cflags_%s", target);
    const char *cf1 = mtb_recipe_get(r, section, "cflags");
    const char *cf2 = mtb_recipe_get(r, section, cfkey);
    char *cflags = mtb_asprintf("%s%s%s", cf1 ? cf1 : "", cf1 && cf2 ? " " : "", cf2 ? cf2 : "");
    struct mtb_argv patches = { 0 };
    expand_patches(mtb_recipe_get(r, section, "patches"), &patches);
    char *script = mtb_asprintf("%s/%s", r->dir, mtb_recipe_need(r, "build", "script"));

    /* every input of the build goes into its key */
    struct mtb_hash *h = mtb_hash_new();
    mtb_hash_str(h, "abi", BUILD_ABI);
    mtb_hash_str(h, "service", r->name);
    mtb_hash_str(h, "version", mtb_recipe_need(r, "service", "version"));
    mtb_hash_str(h, "source", mtb_recipe_need(r, "service", "sha256"));
    mtb_hash_str(h, "target", target);
    mtb_hash_str(h, "cflags", cflags);
    mtb_hash_str(h, "toolchain", tc);
    if (mtb_hash_file(h, "script", script) != 0) {
        snprintf(err, errlen, "cannot read build script %s", script);
        mtb_hash_final(h, out->key);
        return -1;
    }
    json_t *jp = json_array();
    for (int i = 0; i < patches.n; i++) {
        char hex[65];
        if (mtb_sha256_file(patches.v[i], hex) != 0) {
            snprintf(err, errlen, "patch %s of variant %s not found", patches.v[i], variant);
            mtb_hash_final(h, out->key);
            return -1;
        }
        const char *rel = patches.v[i] + strlen(mtb_root()) + 1;
        mtb_hash_str(h, "patch", rel);
        mtb_hash_str(h, "patch-sha256", hex);
        json_array_append_new(jp, json_pack("{s:s,s:s}", "file", rel, "sha256", hex));
    }
    if (cross) {
        char *stamp = mtb_read_file(XSYSROOT "/.stamp", NULL);
        mtb_hash_str(h, "xsysroot", stamp ? stamp : "");
        free(stamp);
    }
    mtb_hash_final(h, out->key);

    out->dir = mtb_asprintf("%s/builds/%s/%s-%s-%.12s", mtb_cache(), r->name, variant, target, out->key);
    out->binary = mtb_asprintf("%s/%s", out->dir, mtb_recipe_need(r, "build", "binary"));
    char *infopath = mtb_asprintf("%s/build.json", out->dir);
    int rc = -1;

    if (!force && mtb_file_exists(out->binary) && mtb_file_exists(infopath)) {
        json_error_t je;
        out->info = json_load_file(infopath, 0, &je);
        if (out->info) {
            out->cached = 1;
            json_object_set_new(out->info, "cached", json_true());
            if (!quiet)
                fprintf(stderr, "mtebench: %s %s (%s): cached build %.12s\n", r->name, variant, target, out->key);
            rc = 0;
            goto done;
        }
    }

    char *tmpdir = mtb_asprintf("%s.tmp.%d", out->dir, (int)getpid());
    char *work = mtb_asprintf("%s/work", tmpdir);
    char *logp = mtb_asprintf("%s/build.log", tmpdir);
    mtb_rm_rf(tmpdir);
    mtb_mkdir_p(work);
    if (!quiet)
        fprintf(stderr, "mtebench: building %s %s for %s (key %.12s; log %s/build.log)...\n",
                r->name, variant, target, out->key, out->dir);
    char *patchlist = mtb_calloc(1, 1);
    for (int i = 0; i < patches.n; i++) {
        char *n = mtb_asprintf("%s%s\n", patchlist, patches.v[i]);
        free(patchlist);
        patchlist = n;
    }
    char *envv[] = {
        mtb_asprintf("MTB_SRC=%s", src), mtb_asprintf("MTB_WORK=%s", work),
        mtb_asprintf("MTB_OUT=%s", tmpdir), mtb_asprintf("MTB_TARGET=%s", target),
        mtb_asprintf("MTB_CC=%s", cc), mtb_asprintf("MTB_CFLAGS=%s", cflags),
        mtb_asprintf("MTB_PATCHES=%s", patchlist),
        mtb_asprintf("MTB_HOST=%s", cross ? "aarch64-linux-gnu" : ""),
        mtb_asprintf("MTB_XSYSROOT=%s", XSYSROOT),
        mtb_asprintf("MTB_JOBS=%d", mtb_ncpus()), NULL,
    };
    char *const argv[] = { "bash", script, NULL };
    struct mtb_spawn s = { .argv = argv, .env_add = envv, .log_path = logp };
    double t0 = mtb_mono();
    int st = mtb_proc_run(&s, 3600);
    double secs = mtb_mono() - t0;
    char *tmpbin = mtb_asprintf("%s/%s", tmpdir, mtb_recipe_need(r, "build", "binary"));
    if (st != 0 || !mtb_file_exists(tmpbin)) {
        char desc[64];
        fprintf(stderr, "---- last lines of %s ----\n", logp);
        char *const tail[] = { "tail", "-n", "30", logp, NULL };
        struct mtb_spawn ts = { .argv = tail };
        mtb_proc_run(&ts, 10);
        /* keep the log where the next user can read it */
        char *kept = mtb_asprintf("%s.failed.log", out->dir);
        rename(logp, kept);
        snprintf(err, errlen, "build of %s %s for %s failed (%s); full log: %s", r->name, variant,
                 target, st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc), kept);
        free(kept);
        free(tmpbin);
        goto cleanup;
    }
    free(tmpbin);
    mtb_rm_rf(work);
    out->info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:s,s:f}",
                          "service", r->name, "version", mtb_recipe_need(r, "service", "version"),
                          "source_package", mtb_recipe_need(r, "service", "source_package"),
                          "source_sha256", mtb_recipe_need(r, "service", "sha256"),
                          "variant", variant, "target", target, "cflags", cflags,
                          "patches", json_incref(jp), "toolchain", tc, "key", out->key,
                          "build_seconds", secs);
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
    free(patchlist);
    free(logp);
    free(work);
    free(tmpdir);
done:
    json_decref(jp);
    mtb_argv_free(&patches);
    free(infopath);
    free(script);
    free(cflags);
    free(src);
    free(tc);
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
    const char *key = json_string_value(json_object_get(out->info, "key"));
    snprintf(out->key, sizeof out->key, "%s", key ? key : "");
    out->dir = mtb_strdup(dir);
    out->binary = mtb_asprintf("%s/%s", dir, mtb_recipe_need(r, "build", "binary"));
    out->cached = 1;
    json_object_set_new(out->info, "cached", json_true());
    if (!mtb_file_exists(out->binary)) {
        snprintf(err, errlen, "%s has no %s", dir, mtb_recipe_need(r, "build", "binary"));
        return -1;
    }
    return 0;
}
