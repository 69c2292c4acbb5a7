/* detect_sweep.c - `mtebench detect-sweep`: the law behind detection figures.
 * Runs the aarch64 program detectsweep (harness/probe/detectsweep.c) on a
 * platform once per mode, parses its cells and compares every catch rate
 * with the arithmetic, within the Wilson interval of its trials:
 *   - granules: a store k bytes past an n-byte glibc object is caught iff
 *     k > (-n mod 16) (it leaves the object's last granule and lands in the
 *     neighbour's chunk header, tag 0); never with tagging off;
 *   - a freed, not yet reused object is tag 0: a stale access always faults;
 *   - random-tag collisions: glibc (2.36, __libc_mtag_new_tag: `gmi` of the
 *     pointer's tag, then `irg`) excludes only the tag the chunk holds, which
 *     is 0 for a chunk coming off a free list; the kernel excludes 0 (include
 *     mask 0xfffe). A new tag may equal any earlier object's tag. How often
 *     depends on the tag generator: model "qemu" is the architecture's
 *     pseudo-random RandomTag that QEMU implements (GCR_EL1.RRND's
 *     deterministic choice: each IRG steps from the previous IRG's tag by a
 *     4-bit LFSR output 0..15 among the 15 allowed tags, so a step of 0 mod 15
 *     has probability 2/16); model "uniform" is an independent uniform choice
 *     among the 15 (what hardware with an unbiased generator gives; 1/15).
 *     Emulated platforms are judged against "qemu"; the other model is shown.
 * Writes DIR/sweep.json (schema mtebench-detect-sweep/1) atomically. */
#include "detect/detect.h"
#include "core/mode.h"
#include "core/platform.h"
#include "run/proof.h"
#include "core/record.h"
#include "analysis/stats.h"
#include "lib/util.h"
#include "core/detect_rows.h"
#include "lib/files.h"
#include "lib/argv.h"
#include "lib/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define Z95 1.959963985
#define Z999 3.290526731

/* P(the sum of `steps` IRG steps is 0 mod 15) under a model */
static double collide(int steps, int qemu)
{
    if (!qemu)
        return 1.0 / 15;
    double p[15] = { 1 }, q[15];
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < 15; i++)
            q[i] = 0;
        for (int i = 0; i < 15; i++)
            for (int o = 0; o < 16; o++)
                q[(i + o) % 15] += p[i] / 16;
        memcpy(p, q, sizeof p);
    }
    return p[0];
}

/* the allocator under test: NULL (glibc's), or Scudo's preload */
static const char *sweep_preload;

/* value of key=NUM in a cell line, or -1 */
static long field(const char *line, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *s = strstr(line, pat);
    return s ? atol(s + strlen(pat)) : -1;
}

/* the predicted catch rate of one cell line under a model; -1 if none.
 * kernel: 1 when a real kernel checks the user memory system calls are
 * handed (Linux in sync mode; never qemu-user), 0 when nothing does, -1
 * when not known (asymm) */
static double predict(const char *line, int tagged, int qemu, int kernel)
{
    if (!strncmp(line, "sys_", 4))
        return !tagged ? 0 : kernel;
    if (sweep_preload && tagged && !strncmp(line, "far ", 4))
        return -1; /* Scudo's neighbours: its own tag choice, not judged here */
    if (sweep_preload && tagged && !strncmp(line, "uaf_reuse ", 10))
        return 1; /* Scudo retags a freed chunk excluding its tag: a reuse it retagged never has the old one
                   * (judged over those: cell_json) */
    if (strncmp(line, "overflow ", 9) && strncmp(line, "far ", 4) && strncmp(line, "uaf_", 4))
        return -1;
    if (!tagged)
        return 0;
    if (!strncmp(line, "overflow ", 9)) {
        long n = field(line, "n"), k = field(line, "k");
        return k > (16 - n % 16) % 16 ? 1 : 0;
    }
    if (!strncmp(line, "far ", 4))
        return 1 - collide((int)field(line, "j"), qemu);
    if (!strncmp(line, "uaf_free ", 9))
        return 1;
    if (!strncmp(line, "uaf_reuse ", 10))
        return 1 - collide((int)field(line, "m") + 1, qemu);
    return -1;
}

/* run detectsweep under a mode; its output (to be freed) or NULL */
static char *sweep_run(const struct mtb_platform *p, const struct mtb_mode *m, long trials, int *st)
{
    char *prog = mtb_asprintf("%s/build/aarch64/detectsweep", mtb_root());
    char *tun = mtb_mode_env(m), *pre = sweep_preload ? mtb_asprintf("LD_PRELOAD=%s", sweep_preload) : NULL;
    char *env[] = { tun, pre, NULL };
    struct mtb_argv argv = { 0 }, envx = { 0 };
    p->wrap(&argv, &envx, prog, env);
    mtb_argv_pushf(&argv, "%ld", trials);
    for (int i = 0; i < envx.n; i++)
        putenv(envx.v[i]);
    char *out = mtb_capture(argv.v, 0, st);
    for (int i = 0; i < envx.n; i++) {
        char *eq = strchr(envx.v[i], '=');
        if (eq) {
            *eq = 0;
            unsetenv(envx.v[i]);
            *eq = '=';
        }
    }
    mtb_argv_free(&argv);
    mtb_argv_free(&envx);
    free(tun);
    free(pre);
    free(prog);
    return out;
}

struct tally { int cells, agree95, agree999, det, det_agree, codes_bad, tags_wrong; };

/* one cell: JSON with the interval, both models and the verdicts */
static json_t *cell_json(const char *line, const struct mtb_mode *m, int qemu, int kernel, struct tally *t)
{
    long trials = field(line, "trials"), caught = field(line, "caught"), same = field(line, "same");
    int tagged = m->write_code != 0;
    /* the kernel checks in sync mode only; asymm's is not known here */
    int sync = m->read_code == 9 && m->write_code == 9, asymm = m->read_code == 9 && m->write_code == 8;
    int kern = !kernel ? 0 : sync ? 1 : asymm ? -1 : 0;
    double pm = predict(line, tagged, qemu, kern), po = predict(line, tagged, !qemu, kern);
    if (pm < 0 || trials <= 0)
        return NULL;
    /* the architecture, exactly: a load through the stale pointer faults
     * when the reused object's tag differs from its own, and only then */
    int tags_exact = same < 0 || caught == trials - same;
    /* Scudo: a chunk whose memory was reclaimed (released to the system)
     * is prepared afresh with a tag that need not exclude the old one
     * (combined.h's allocate); its retag-on-free claim is judged over the
     * reuses that kept their free-time tag, and the others are reported */
    long fresh = sweep_preload && tagged && same > 0 ? same : 0;
    trials -= fresh;
    struct mtb_stats_ci ci, ci3;
    mtb_stats_wilson(caught, trials, Z95, &ci);
    mtb_stats_wilson(caught, trials, Z999, &ci3);
    int a95 = pm >= ci.lo - 1e-12 && pm <= ci.hi + 1e-12, a999 = pm >= ci3.lo - 1e-12 && pm <= ci3.hi + 1e-12;
    int det = pm == 0 || pm == 1;
    /* every catch carries the mode's si_code (a load's for uaf, a store's otherwise) */
    long want = !strncmp(line, "uaf", 3) ? m->read_code : m->write_code;
    long codes = !strncmp(line, "sys_", 4) ? field(line, "kernel") /* refused: no signal */
               : want == 9 ? field(line, "sync") : want == 8 ? field(line, "async") : 0;
    int codes_ok = codes == caught && field(line, "other") == 0;
    t->cells++;
    t->agree95 += a95;
    t->agree999 += a999;
    t->det += det;
    t->det_agree += det && caught == (pm == 1 ? trials : 0);
    t->codes_bad += !codes_ok;
    t->tags_wrong += !tags_exact;
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(strstr(line, " trials=") - line), line);
    json_t *c = json_pack("{s:s,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:b,s:b,s:b,s:b}", "cell", name, "trials",
                          (json_int_t)trials, "caught", (json_int_t)caught, "skipped", (json_int_t)field(line, "skipped"),
                          "rate", ci.est, "wilson95_lo", ci.lo, "wilson95_hi", ci.hi, "predicted", pm,
                          "predicted_other_model", po, "agree95", a95, "agree999", a999, "deterministic", det,
                          "si_codes_ok", codes_ok);
    if (same >= 0) {
        json_object_set_new(c, "same_tag", json_integer(same));
        json_object_set_new(c, "tags_exact", json_boolean(tags_exact));
        if (sweep_preload && tagged)
            json_object_set_new(c, "fresh_same_tag", json_integer(fresh));
    }
    return c;
}

/* one mode: proof, the program's cells, the tag-step counts; the tally */
static json_t *sweep_mode(const struct mtb_platform *p, const struct mtb_mode *m, long trials, int qemu, int kernel,
                          struct tally *t)
{
    json_t *o = json_pack("{s:s,s:i}", "mode", m->name, "tunable", m->tunable);
    char why[512], *tun = mtb_mode_env(m), *pre = sweep_preload ? mtb_asprintf("LD_PRELOAD=%s", sweep_preload) : NULL;
    char *env[] = { tun, pre, NULL };
    json_t *proof = NULL;
    int proved = mtb_proof_run(p, m, env, &proof, why, sizeof why);
    json_object_set_new(o, "proof", proof);
    free(tun);
    free(pre);
    int st = -1;
    char *out = sweep_run(p, m, trials, &st);
    json_t *cells = json_array();
    int done = 0;
    for (char *save = NULL, *l = out ? strtok_r(out, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        json_t *c = cell_json(l, m, qemu, kernel, t);
        if (c)
            json_array_append_new(cells, c);
        else if (!strncmp(l, "tags ", 5))
            json_object_set_new(o, "tag_steps", json_string(l + 5));
        else if (!strncmp(l, "prctl_ctrl=", 11))
            json_object_set_new(o, "prctl_ctrl", json_string(l + 11));
        done |= !strcmp(l, "done");
    }
    json_object_set_new(o, "cells", cells);
    json_object_set_new(o, "complete", json_boolean(st == 0 && done && proved));
    if (!(st == 0 && done))
        mtb_warn("detect-sweep: detectsweep under %s did not finish (status %d)", m->name, st);
    if (!proved)
        mtb_warn("detect-sweep: mode %s not proved: %s", m->name, why);
    free(out);
    return o;
}

/* the text table of one mode's random cells, and its deterministic summary */
static void print_mode(const struct mtb_sweep_mode *mo)
{
    int det = 0, det_ok = 0;
    printf("mode %s (prctl %s):\n", mo->mode, mo->prctl_ctrl);
    for (size_t i = 0; i < mo->ncells; i++) {
        const struct mtb_sweep_cell *c = &mo->cells[i];
        if (c->deterministic && c->cell && !strncmp(c->cell, "overflow", 8)) {
            det++;
            det_ok += c->rate == c->predicted;
            continue;
        }
        printf("  %-22s %5lld/%-5lld %.3f [%.3f, %.3f]  predicted %.3f (other model %.3f)  %s\n", c->cell, c->caught,
               c->trials, c->rate, c->lo, c->hi, c->predicted, c->predicted_other_model,
               c->agree95 ? "agrees" : "OUTSIDE 95%");
        if (c->fresh_same_tag > 0)
            printf("  %-22s + %lld reuse%s with the old tag back (a chunk Scudo prepared afresh), not caught\n", "",
                   c->fresh_same_tag, c->fresh_same_tag == 1 ? "" : "s");
        if (c->tags_known && !c->tags_exact)
            printf("  %-22s   NOT as the tags say: %lld of %lld reuses had the old tag, %lld caught\n", "", c->same_tag,
                   c->trials + c->fresh_same_tag, c->caught);
    }
    printf("  overflow n=16..31 x k (through the neighbour's header): %d/%d cells exactly as the granule predicts\n",
           det_ok, det);
    if (mo->tag_steps)
        printf("  tag steps: %s\n", mo->tag_steps);
}

int mtb_detect_sweep_finish(json_t *doc, const char *results, int json, struct mtb_err *e)
{
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    char *dir = results ? mtb_strdup(results) : mtb_asprintf("%s/%s-detect-sweep", mtb_results_dir(), ts);
    char *path = mtb_asprintf("%s/sweep.json", dir);
    int wrc = mtb_mkdir_p(dir);
    wrc = wrc ? wrc : mtb_record_write(path, doc);
    if (wrc != 0) {
        mtb_err_set(e, MTB_ERR_FAIL, "cannot write %s: %s", path, mtb_errdesc(wrc));
        free(path);
        free(dir);
        return -1;
    }
    struct mtb_sweep_rows r;
    mtb_sweep_rows_read(doc, &r);
    int pass = r.pass;
    if (json) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
    } else {
        printf("detect-sweep on %s, allocator %s (tag model %s; detection exact under QEMU, tag choice QEMU's):\n",
               r.platform, r.allocator ? r.allocator : "glibc", r.tag_model);
        for (size_t i = 0; i < r.nmodes; i++)
            print_mode(&r.modes[i]);
        printf("%lld cells: %lld within their Wilson 95%% interval, %lld within 99.9%%; deterministic %lld/%lld exact; "
               "si_codes wrong in %lld; catches not as the tags say in %lld: %s\n",
               r.cells, r.agree95, r.agree999, r.deterministic_exact, r.deterministic, r.si_codes_wrong, r.tags_wrong,
               pass ? "PASS" : "FAIL");
    }
    mtb_sweep_rows_free(&r);
    printf("sweep: %s\n", path);
    free(path);
    free(dir);
    return pass ? 0 : 1;
}

int mtb_detect_sweep(const struct mtb_sweep_req *r, struct mtb_err *e)
{
    const struct mtb_platform *p = r->platform;
    long trials = r->trials;
    char why[512];
    sweep_preload = NULL;
    if (r->allocator && !strcmp(r->allocator, "scudo")) {
        if (!mtb_file_exists(MTB_SCUDO_LIB))
            return mtb_err_set(e, MTB_ERR_INPUT, "--allocator scudo: %s is missing (make deps installs "
                               "libclang-rt-16-dev:arm64)", MTB_SCUDO_LIB);
        sweep_preload = MTB_SCUDO_LIB;
    }
    /* every mode known before the first cell runs */
    char *copy = mtb_strdup(r->modes), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (!mtb_mode_find(tok)) {
            mtb_err_set(e, MTB_ERR_INPUT, "mode %s: accepted %s", tok, mtb_mode_names());
            free(copy);
            return -1;
        }
    free(copy);
    int qemu = r->tag_model ? !strcmp(r->tag_model, "qemu") : mtb_platform_emulated(p);
    /* a real kernel under the program (host; the vm guest's host) checks the
     * memory system calls are handed; qemu-user (emu) never does */
    int kernel = strcmp(p->name, "emu") != 0;
    json_t *doc = json_pack("{s:s,s:s,s:s,s:s,s:b,s:s,s:i,s:s}", "schema", "mtebench-detect-sweep/1", "platform", p->name,
                            "allocator", sweep_preload ? "scudo" : "glibc",
                            "tag_model", qemu ? "qemu" : "uniform", "emulated", qemu, "qemu",
                            mtb_qemu_user_version() ? mtb_qemu_user_version() : "", "trials_random", (json_int_t)trials,
                            "note", "detection follows the architecture's tag checks under QEMU; tag choice follows "
                                    "QEMU's RandomTag, not a hardware generator (docs/DETECTION.md)");
    json_t *jm = json_array();
    struct tally t = { 0 };
    copy = mtb_strdup(r->modes);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const struct mtb_mode *m = mtb_mode_find(tok);
        if (!p->mode_ok(m, why, sizeof why)) {
            fprintf(stderr, "mtebench: detect-sweep: mode %s skipped on %s: %s\n", tok, p->name, why);
            continue;
        }
        json_array_append_new(jm, sweep_mode(p, m, trials, qemu, kernel, &t));
    }
    free(copy);
    json_object_set_new(doc, "modes", jm);
    int pass = t.det == t.det_agree && t.agree999 == t.cells && t.codes_bad == 0 && t.tags_wrong == 0 && t.cells > 0;
    json_object_set_new(doc, "verdict",
                        json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:b}", "cells", t.cells, "agree95", t.agree95,
                                  "agree999", t.agree999, "deterministic", t.det, "deterministic_exact", t.det_agree,
                                  "si_codes_wrong", t.codes_bad, "tags_wrong", t.tags_wrong, "pass", pass));
    int rc = mtb_detect_sweep_finish(doc, r->results, r->json, e);
    json_decref(doc);
    return rc;
}
