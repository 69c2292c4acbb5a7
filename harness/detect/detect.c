/* detect.c - `mtebench detect`: the bug catalogue of a service
 * (services/<svc>/bugs/<id>/: manifest.ini, trigger.hex) run as trials.
 * For each bug x variant (plain, tagged, objtag: their "-bugs" builds, the
 * bug switched on by MTEBENCH_BUG) x mode, N trials, each one whole run of
 * run.c (mode proved, a fresh service process, hence fresh tags; the trigger
 * driver sends the bug's bytes and checks the service still answers;
 * libmtefault's fault in the record), then classified:
 *   caught_sync    SIGSEGV, SEGV_MTESERR (with the address, and its offset
 *                  from the object the bug's variant logged)
 *   caught_async   SIGSEGV, SEGV_MTEAERR
 *   caught_kernel  the bug's system call refused by the kernel's tag check
 *                  (a real kernel in sync mode: EFAULT, or a short copy
 *                  with bytes left waiting; bugs.patch's "mtbbug: syscall"
 *                  line, logged as the call returns: before any fault the
 *                  trial's record may hold, which detect.json keeps)
 *   caught_other   another SIGSEGV/SIGBUS, or the service died otherwise
 *                  (a glibc abort)
 *   silent         reached and triggered, the service survived and answers
 *   not_triggered  reached, but the condition the fix refuses did not hold
 *   not_reached    the bug's code never ran (never counted as a miss)
 *   error          the run failed before the trigger (build, proof, start)
 * Each trial's classification is DIR/<bug>/<variant>-<mode>-<NNN>/detect.json
 * (schema mtebench-detect/1, written atomically) beside its run record; a
 * trial that has one is not run again (resumable). The matrix (detect_report.c)
 * goes to DIR/detect.json, detect.md. */
#include "detect/detect.h"
#include "run/faultrep.h"
#include "detect/catalogue.h"
#include "core/build.h"
#include "core/kernel.h"
#include "core/recipe.h"
#include "run/quiet.h"
#include "core/record.h"
#include "run/run.h"
#include "analysis/summary.h"
#include "lib/util.h"
#include "core/fault_rows.h"
#include "core/detect_rows.h"
#include "core/record_outcome.h"
#include "lib/files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the bugs of a service: a comma list, or every directory with a manifest */
static char **bug_list(const char *svc, const char *list, int *nb)
{
    char **out = NULL;
    *nb = 0;
    if (list && strcmp(list, "all") != 0) {
        char *copy = mtb_strdup(list), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            out = realloc(out, sizeof *out * (size_t)(*nb + 1));
            out[(*nb)++] = mtb_strdup(t);
        }
        free(copy);
        return out;
    }
    char *dir = mtb_asprintf("%s/services/%s/bugs", mtb_root(), svc);
    struct dirent **ents = NULL;
    int ne = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < ne; i++) {
        char *m = mtb_asprintf("%s/%s/manifest.ini", dir, ents[i]->d_name);
        if (ents[i]->d_name[0] != '.' && mtb_file_exists(m)) {
            out = realloc(out, sizeof *out * (size_t)(*nb + 1));
            out[(*nb)++] = mtb_strdup(ents[i]->d_name);
        }
        free(m);
        free(ents[i]);
    }
    free(ents);
    free(dir);
    return out;
}

/* the first "mtbbug: object 0xADDR size N" line of a service log */
static int object_of(const char *log, unsigned long long *addr, unsigned *size)
{
    char *t = mtb_read_file(log, NULL);
    const char *l = t ? strstr(t, "mtbbug: object ") : NULL;
    int ok = l && sscanf(l, "mtbbug: object %llx size %u", addr, size) == 2;
    free(t);
    return ok;
}

/* does the log hold the text? */
static int marked(const char *log, const char *text)
{
    char *t = mtb_read_file(log, NULL);
    int yes = t && strstr(t, text);
    free(t);
    return yes;
}

/* The bug's system call as bugs.patch logged it ("mtbbug: syscall ID CALL
 * asked A got G errno E pending P object O"), the first one that the
 * kernel's tag check refused (EFAULT, or a copy stopped at or before the
 * object's end with bytes left waiting), or else the first one; NULL when
 * none. *refused says which. */
static json_t *syscall_of(const char *log, const char *bug, int *refused)
{
    char *t = mtb_read_file(log, NULL), *pre = mtb_asprintf("mtbbug: syscall %s ", bug);
    json_t *first = NULL;
    *refused = 0;
    for (const char *l = t ? strstr(t, pre) : NULL; l; l = strstr(l + 1, pre)) {
        char call[32];
        unsigned long long asked, object;
        long long got;
        int err, pending;
        if (sscanf(l + strlen(pre), "%31s asked %llu got %lld errno %d pending %d object %llu", call, &asked, &got,
                   &err, &pending, &object) != 6)
            continue;
        int r = asked > object && ((got < 0 && err == 14 /* EFAULT */) ||
                                   (got >= 0 && (unsigned long long)got <= object && pending > 0));
        json_t *s = json_pack("{s:s,s:I,s:I,s:i,s:i,s:I,s:b}", "call", call, "asked", (json_int_t)asked, "got",
                              (json_int_t)got, "errno", err, "pending", pending, "object", (json_int_t)object,
                              "refused", r);
        if (r || !first) {
            json_decref(first);
            first = s;
        } else
            json_decref(s);
        if (r) {
            *refused = 1;
            break;
        }
    }
    free(pre);
    free(t);
    return first;
}

/* the trial's log: the manifest's (a plant's, an embedded service's) or
 * the service's, in the directory the record's service log is in (a vm
 * run's: under guest/) */
static char *trial_log(const char *dir, const char *sl, const char *lf)
{
    const char *slash = sl ? strrchr(sl, '/') : NULL;
    if (slash)
        return mtb_asprintf("%s/%.*s/%s", dir, (int)(slash - sl), sl, lf ? lf : slash + 1);
    return mtb_asprintf("%s/%s", dir, lf ? lf : sl ? sl : "service.log");
}

/* Is a caught trial explained (docs/DETECTION.md, "Diagnosability")? Its
 * fault report's cause is one the manifest's class allows, and where the
 * bug's log names the object (bugs.patch's "mtbbug: object"), the report's
 * object holds it (want: the log's object's address, or NULL). Sets
 * d.explained {ok, why}; nothing for a trial not caught by a tag check. */
static void explained(json_t *d, const struct mtb_bug *man, const char *out, json_t *fault, const char *want)
{
    static const struct { const char *cls, *causes; } fits[] = {
        { "linear overflow", "|buffer overflow|" },
        { "intra-granule overflow", "|buffer overflow|" },
        { "out-of-bounds read", "|buffer overflow|buffer underflow|" },
        { "far write", "|buffer overflow|buffer underflow|" },
        { "use after free", "|use after free|" },
        { "double free", "|double free|use after free|" }, /* the freed object read before the second free */
        { "stack", "|stack|" },
    };
    if (strncmp(out, "caught_", 7) != 0 || !strcmp(out, "caught_other"))
        return;
    struct mtb_fault_view fv;
    mtb_fault_view_read(fault, &fv);
    int rep = fv.has_report;
    const char *cls = man->cls, *cause = *fv.cause ? fv.cause : NULL;
    const char *allowed = NULL;
    for (size_t i = 0; cls && i < sizeof fits / sizeof *fits; i++)
        if (!strcmp(cls, fits[i].cls))
            allowed = fits[i].causes;
    char bar[80], why[256];
    int ok = 0;
    snprintf(bar, sizeof bar, "|%s|", cause ? cause : "");
    if (!rep)
        snprintf(why, sizeof why, "no fault report (%s)", !strcmp(out, "caught_kernel") ? "a system call refused: no fault"
                                                                                      : "the fault file has only its line");
    else if (cause && !strncmp(cause, "unknown", 7))
        snprintf(why, sizeof why, "the report names no cause (%s)", cause);
    else if (!allowed || !strstr(allowed, bar))
        snprintf(why, sizeof why, "the report's cause, %s, is not the manifest's class (%s)", cause ? cause : "none",
                 cls ? cls : "none");
    else {
        /* the log's object is the report's, or inside it (a pointer into a
         * pool allocation, a palloc chunk inside its malloc'd block) */
        const char *got = *fv.object.start ? fv.object.start : NULL;
        unsigned long long w = want ? strtoull(want, NULL, 16) : 0, g = got ? strtoull(got, NULL, 16) : 0;
        unsigned long long gs = (unsigned long long)fv.object.size;
        if (want && got && (w < g || w >= g + (gs ? gs : 1)))
            snprintf(why, sizeof why, "the report's object %s (%llu bytes) is not the one the bug's log names (%s)", got,
                     gs, want);
        else {
            ok = 1;
            snprintf(why, sizeof why, "%s, %s", cause, want ? "the object the bug's log names" : "no object named by the log to compare");
        }
    }
    json_object_set_new(d, "explained", json_pack("{s:b,s:s}", "ok", ok, "why", why));
    mtb_fault_view_free(&fv);
}

/* classify one trial from its run record and its service log; *outcome:
 * the trial's */
static json_t *classify(const char *bug, const struct mtb_bug *man, const char *dir, json_t *rec, int st,
                        const char **outcome)
{
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read(rec, &o);
    /* a synthetic plant's marker (manifest: reach, log), else bugs.patch's */
    const char *lf = man->log, *reach = man->reach;
    char *log = trial_log(dir, o.service_log, lf);
    char *rm = reach ? mtb_strdup(reach) : mtb_asprintf("mtbbug: reached %s\n", bug);
    char *tm = reach ? mtb_strdup(reach) : mtb_asprintf("mtbbug: triggered %s\n", bug);
    int reached = marked(log, rm), triggered = marked(log, tm);
    free(rm);
    free(tm);
    /* a vm trial's fault made again here, its frames symbolised on this
     * machine's copy of the guest's build */
    json_t *gf = o.fault ? mtb_fault_read_guest(dir, rec, NULL) : NULL;
    if (gf) {
        json_object_set_new(rec, "fault", gf);
        o.fault = gf;
    }
    json_t *f = o.fault, *tr = o.trigger.j;
    const char *err = o.error;
    struct mtb_fault_view fv;
    mtb_fault_view_read(f, &fv);
    const char *out;
    int refused = 0;
    json_t *sc = syscall_of(log, bug, &refused);
    /* qemu-user never checks a system call's buffer: a short copy there is the network's, not a refusal */
    refused &= !o.platform_name || strcmp(o.platform_name, "emu") != 0;
    if (refused && triggered) /* the kernel refused the bad access; what came after is in fault and error */
        out = "caught_kernel";
    else if (f)
        out = !fv.tag_check ? "caught_other" : fv.si_code == 9 ? "caught_sync" : "caught_async"; else if (st != MTB_RUN_OK && err &&
               (strstr(err, "died during the run") || (triggered && strstr(err, "failed (signal "))))
        out = "caught_other"; /* a server died, or an embedded service's program was killed by a signal */
    else if (!reached)
        out = st == MTB_RUN_OK ? "not_reached" : "error";
    else if (!triggered)
        out = "not_triggered";
    else if (st == MTB_RUN_OK && (!o.trigger.present || o.trigger.alive_after))
        out = "silent";
    else
        out = st == MTB_RUN_OK ? "caught_other" : "error"; /* alive check failed: it stopped answering */
    json_t *d = json_pack("{s:s,s:b,s:b,s:O?,s:O?,s:s?,s:o?}", "outcome", out, "reached", reached, "triggered",
                          triggered, "fault", f, "trigger", tr, "error", err, "syscall", sc);
    unsigned long long oa = 0;
    unsigned osz = 0;
    char oas[32];
    int named = object_of(log, &oa, &osz);
    if (named) {
        snprintf(oas, sizeof oas, "0x%016llx", oa);
        json_object_set_new(d, "object", json_pack("{s:s,s:i}", "addr", oas, "size", osz));
        if (f && *fv.addr && strcmp(out, "caught_sync") == 0) {
            long long off = (long long)((strtoull(fv.addr, NULL, 16) & ((1ULL << 56) - 1)) - oa);
            json_object_set_new(d, "fault_offset", json_integer(off));
            json_object_set_new(d, "fault_in", json_string(off < 0 ? "before the object" : off < osz ? "the object"
                                                                   : "past the object (its neighbour)"));
        }
    }
    free(log);
    explained(d, man, out, f, named ? oas : NULL);
    mtb_fault_view_free(&fv);
    *outcome = out;
    return d;
}

/* what the trials share */
struct detect_ctx {
    const struct mtb_detect_req *q;
    const char *dir;            /* results */
    json_t *env;                /* provenance, shared */
    int total, index;
    struct mtb_err *e;          /* why detect stopped (not a trial's outcome: that is in its record) */
};

/* The workload of a bug's run into wl: a trigger's (the service's detect
 * workload), or for a synthetic plant or an embedded service's bug (manifest
 * `benchmark`: db_bench's benchmark that reaches it) the service's own
 * workload, with the manifest's keys and duration and no warm-up. @return
 * the params the run takes over the recipe's (the benchmark and its
 * db_bench_args; wl->params points at them: mtb_strmap_free after the
 * run), or NULL. */
static struct mtb_strmap *bug_workload(struct detect_ctx *c, const struct mtb_bug *man, struct mtb_workload *wl)
{
    const char *bench = man->benchmark;
    int own = man->plant || bench;
    *wl = own ? c->q->wl_plant : c->q->wl_trigger;
    if (!own)
        return NULL;
    const char *k = man->keys, *du = man->duration;
    if (k)
        wl->keys = atol(k);
    if (du)
        wl->duration = atof(du);
    wl->warmup = 0;
    if (!bench)
        return NULL;
    struct mtb_strmap *params = mtb_calloc(1, sizeof *params);
    mtb_strmap_set(params, "benchmark", bench);
    const char *extra = man->db_bench_args;
    if (extra)
        mtb_strmap_set(params, "db_bench_args", extra);
    wl->params = params;
    return params;
}

/* a trial's outcome (its detect.json's; "" when it has none) */
static const char *outcome_of(json_t *d)
{
    struct mtb_det_trial t;
    mtb_det_trial_read(d, &t);
    return t.outcome;
}

/* A trial's classification from an earlier run into dir (detect resumed:
 * counted, not run again), or NULL: run it. */
static json_t *earlier(struct detect_ctx *c, const char *dir)
{
    char *dp = mtb_asprintf("%s/detect.json", dir);
    json_t *d = json_load_file(dp, 0, NULL);
    free(dp);
    c->index++;
    if (d && *outcome_of(d))
        return d;
    json_decref(d);
    return NULL;
}

/* a trial's classification kept as dir/detect.json (what a resumed detect reads) */
static void keep(const char *dir, json_t *d)
{
    char *dp = mtb_asprintf("%s/detect.json", dir);
    if (mtb_record_write(dp, d) != 0)
        mtb_warn("detect: cannot write %s", dp);
    free(dp);
}

/* one trial (or its classification from an earlier, resumed run) on
 * platform p (the request's, or kernel_check's: then its directory says so,
 * <variant>-<mode>-vm-NNN, and its detect.json "kernel_check": true) */
/* a bug as its trials take it: its id, manifest and directory */
struct bug_at {
    const char *id;
    const struct mtb_bug *man;
    const char *dir;
};

static json_t *trial(struct detect_ctx *c, const struct bug_at *at, const char *base, const char *variant,
                     const struct mtb_build *b, const struct mtb_mode *m, int t, const struct mtb_platform *p)
{
    const char *bug = at->id, *bugdir = at->dir;
    const struct mtb_bug *man = at->man;
    char lab[128];
    int kc = p != c->q->platform;
    base = mtb_variant_label(base, c->q->allocator, lab, sizeof lab); /* "tagged+scudo" under Scudo */
    char *dir = mtb_asprintf("%s/%s/%s-%s-%s%03d", c->dir, bug, base, m->name, kc ? "vm-" : "", t);
    json_t *d = earlier(c, dir);
    if (d) {
        free(dir);
        return d;
    }
    char *trig = mtb_asprintf("%s/trigger.hex", bugdir);
    /* the switch: the bug the build turns on (several entries may share one);
     * a synthetic plant is switched by MTEBENCH_PLANT and runs the service's
     * own workload */
    const char *sw = man->bug_switch, *plant = man->plant;
    if (!sw || !*sw)
        sw = bug;
    struct mtb_workload wl;
    struct mtb_strmap *params = bug_workload(c, man, &wl);
    struct mtb_run run = { .environment = c->env, .recipe = c->q->recipe, .variant = variant, .mode = m,
                           .allocator = c->q->allocator, .platform = p, .kernel = kc ? c->q->check_kernel : c->q->kernel, .wl = &wl, .build = b,
                           .machine = c->q->machine, .rep = t, .index = c->index, .total = c->total, .plan = "detect",
                           .dir = dir, .quiet = 1, .fault_report = 1, .plant = plant, .bug_switch = plant ? NULL : sw,
                           /* an embedded service's bug runs its benchmark, not a trigger */
                           .trigger = plant || params ? NULL : trig };
    json_t *rec = NULL;
    enum mtb_run_status st = mtb_run_one(&run, &rec);
    mtb_strmap_free(params);
    const char *out;
    d = classify(sw, man, dir, rec, st, &out);
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read(rec, &o);
    json_object_update_missing_new(d, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:o,s:s,s:O?,s:b}", "schema",
                                            "mtebench-detect/1", "service", c->q->recipe->name, "bug", bug, "variant",
                                            base, "build_variant", variant, "mode", m->name, "trial", t, "manifest",
                                            mtb_bug_json(man), "record", "record.json", "proof_ok",
                                            o.proof_ok, "emulated",
                                            mtb_platform_emulated(p)));
    if (kc)
        json_object_set_new(d, "kernel_check", json_true());
    json_object_set_new(d, "allocator", json_string(c->q->allocator ? c->q->allocator->name : "glibc"));
    json_object_set(d, "platform", o.platform);
    json_object_set_new(d, "build", json_pack("{s:O?}", "key", o.build_key));
    keep(dir, d);
    printf("detect %d/%d: %s %s/%s%s trial %d: %s\n", c->index, c->total, bug, base, m->name, kc ? " on vm" : "", t, out);
    json_decref(rec);
    free(trig);
    free(dir);
    return d;
}

/* the matrix as Markdown (md 1) or HTML (2) into path, atomically */
static void write_page(const char *path, const struct mtb_det_rows *mx, int md)
{
    char *tmp = mtb_asprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f) {
        if (md == 2)
            mtb_detect_matrix_html(f, mx);
        else
            mtb_detect_matrix_print(f, mx, 1);
        if (fclose(f) == 0)
            rename(tmp, path);
    }
    free(tmp);
}

/* the overheads of the bench records under the comma list of dirs */
static void add_cost(json_t *mx, const char *dirs, const char *svc, const char *platform)
{
    char *copy = mtb_strdup(dirs), *save = NULL, *dv[32];
    int nd = 0;
    for (char *t = strtok_r(copy, ",", &save); t && nd < 32; t = strtok_r(NULL, ",", &save))
        dv[nd++] = t;
    struct mtb_record_set set;
    if (mtb_record_set_init(&set) == 0 && mtb_record_load(dv, nd, &set) == 0) {
        json_t *sum = mtb_summary_build(set.records);
        mtb_detect_cost(mx, sum, svc, platform);
        json_object_set_new(mx, "cost_from", json_string(dirs));
        json_decref(sum);
    }
    mtb_record_set_free(&set);
    free(copy);
}

/* is variant/mode in the comma list (NULL: every pair)? */
static int wanted(const char *configs, const char *v, const char *m)
{
    if (!configs)
        return 1;
    char pair[96];
    snprintf(pair, sizeof pair, "%s/%s", v, m);
    size_t pl = strlen(pair);
    for (const char *s = configs; (s = strstr(s, pair)) != NULL; s += pl)
        if ((s == configs || s[-1] == ',') && (s[pl] == 0 || s[pl] == ','))
            return 1;
    return 0;
}

/* the build a bug runs in for a variant: the manifest's `builds`
 * ("tagged:tagged-plant, objtag:objtag-plant": a synthetic plant's test-only
 * builds), else <variant>-bugs; NULL when there is none (to be freed) */
static char *build_of(const struct mtb_recipe *r, const struct mtb_bug *man, const char *v)
{
    const char *map = man->builds;
    char *name = NULL;
    if (map) {
        char *copy = mtb_strdup(map), *save = NULL;
        for (char *t = strtok_r(copy, ", ", &save); t && !name; t = strtok_r(NULL, ", ", &save)) {
            char *colon = strchr(t, ':');
            if (colon && (size_t)(colon - t) == strlen(v) && !strncmp(t, v, strlen(v)))
                name = mtb_strdup(colon + 1);
        }
        free(copy);
    } else
        name = mtb_asprintf("%s-bugs", v);
    if (name && !mtb_recipe_has_variant(r, name)) {
        free(name);
        name = NULL;
    }
    return name;
}

/* a control's outcome: the fix refused the trigger, nothing of the bug ran,
 * the service lives and answered as control_expect says */
static const char *control_outcome(const char *log, const char *sw, const struct mtb_bug *man,
                                   const struct mtb_rec_trigger *tr, char *why, size_t n)
{
    char *ref = mtb_asprintf("mtbbug: refused %s\n", sw), *rm = mtb_asprintf("mtbbug: reached %s\n", sw);
    char *tm = mtb_asprintf("mtbbug: triggered %s\n", sw);
    int refused = marked(log, ref), ran = marked(log, rm) || marked(log, tm);
    free(ref);
    free(rm);
    free(tm);
    const char *exp = man->control_expect;
    long got = (long)tr->received;
    int closed = tr->closed, alive = tr->alive_after;
    int answer = !strcmp(exp, "closed connection") ? closed && got == 0 : got > 0;
    if (tr->embedded) /* the service is the program: did it run to its end? */
        snprintf(why, n, "refused %s, the bug's code %s, %s (expected: %s)", refused ? "yes" : "no",
                 ran ? "ran" : "did not run", alive ? "the run ended normally" : "the run failed", exp);
    else
        snprintf(why, n, "refused %s, the bug's code %s, %ld bytes answered%s, %s (expected: %s)", refused ? "yes" : "no",
                 ran ? "ran" : "did not run", got, closed ? " then closed" : "", alive ? "alive after" : "dead after",
                 exp);
    return !tr->present ? "error" : !refused ? "not_refused" : ran ? "bug_ran" : !alive ? "died" : !answer ? "unexpected_answer"
                                                                                             : "refused";
}

/* One bug's fixed-build control: its trigger sent with the bug off (no
 * switch) to a variant's bug build (variant: its name, e.g.
 * plain-bugs) in mode off; resumable like a trial
 * (DIR/<bug>/control/detect.json). */
static json_t *control_trial(struct detect_ctx *c, const char *bug, const struct mtb_bug *man, const char *bugdir,
                             const char *variant,
                             const struct mtb_build *b)
{
    char *dir = mtb_asprintf("%s/%s/control", c->dir, bug);
    json_t *d = earlier(c, dir);
    if (d) {
        free(dir);
        return d;
    }
    char *trig = mtb_asprintf("%s/trigger.hex", bugdir);
    const char *sw = man->bug_switch && *man->bug_switch ? man->bug_switch : bug;
    struct mtb_workload wl;
    struct mtb_strmap *params = bug_workload(c, man, &wl);
    /* the control: the trigger with the bug's switch off */
    struct mtb_run run = { .environment = c->env, .recipe = c->q->recipe, .variant = variant,
                           .mode = mtb_mode_find("off"), .platform = c->q->platform, .kernel = c->q->kernel, .wl = &wl,
                           .build = b, .machine = c->q->machine, .rep = 1, .index = c->index, .total = c->total,
                           .plan = "detect", .dir = dir, .quiet = 1, .trigger = params ? NULL : trig };
    json_t *rec = NULL;
    enum mtb_run_status st = mtb_run_one(&run, &rec);
    char *log = mtb_asprintf("%s/%s", dir, man->log ? man->log : "service.log"), why[512];
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read(rec, &o);
    struct mtb_rec_trigger t = o.trigger;
    if (params) /* an embedded service: its run is the answer */
        t = (struct mtb_rec_trigger){ .present = 1, .embedded = 1, .alive_after = st == MTB_RUN_OK,
                                      .received = st == MTB_RUN_OK, .closed = 0 };
    json_t *tr = params ? json_pack("{s:b,s:b,s:i,s:b}", "embedded", 1, "alive_after", t.alive_after, "received",
                                    (int)t.received, "closed", 0)
                        : json_incref(o.trigger.j);
    mtb_strmap_free(params);
    const char *out = control_outcome(log, sw, man, &t, why, sizeof why);
    d = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O?,s:s?,s:s}", "schema", "mtebench-detect-control/1", "service",
                  c->q->recipe->name, "bug", bug, "outcome", out, "expect",
                  man->control_expect, "why", why, "trigger", tr, "error",
                  o.error, "record", "record.json");
    keep(dir, d);
    printf("control %d/%d: %s: %s (%s)\n", c->index, c->total, bug, out, why);
    json_decref(tr);
    json_decref(rec);
    free(log);
    free(trig);
    free(dir);
    return d;
}

/* a bug's directory, manifest path and manifest (mtb_bug_free it after);
 * -1 with c->e set (bad input, naming why; *bugdir and *mp then NULL) */
static int bug_manifest(struct detect_ctx *c, const char *bug, char **bugdir, char **mp, struct mtb_bug *man)
{
    char why[MTB_ERRLEN];
    *bugdir = mtb_asprintf("%s/services/%s/bugs/%s", mtb_root(), c->q->recipe->name, bug);
    *mp = mtb_asprintf("%s/manifest.ini", *bugdir);
    if (mtb_bug_load(*mp, man, why, sizeof why) != 0) {
        mtb_bug_free(man);
        mtb_err_set(c->e, MTB_ERR_INPUT, "%s", why);
        free(*bugdir);
        free(*mp);
        *bugdir = *mp = NULL;
        return -1;
    }
    return 0;
}

/* every wanted bug's manifest read, and a trigger for those that need one,
 * before anything is built or run. @return 0, or -1 with c->e set */
static int check_bugs(struct detect_ctx *c, char **bugs, int nb)
{
    for (int i = 0; i < nb && !c->e->code; i++) {
        char *bugdir, *mp;
        struct mtb_bug man;
        if (bug_manifest(c, bugs[i], &bugdir, &mp, &man) == 0 && !c->q->controls && !man.plant && !man.benchmark &&
            !c->q->has_trigger)
            mtb_err_set(c->e, MTB_ERR_INPUT, "%s: %s has no [workload detect] for its trigger", mp,
                        c->q->recipe->name);
        mtb_bug_free(&man);
        free(mp);
        free(bugdir);
    }
    return c->e->code ? -1 : 0;
}

/* every wanted bug's control in variant's bug build; @return 1 when one
 * failed (stopped on c->e: a build that failed, a manifest refused) */
static int run_controls(struct detect_ctx *c, char **bugs, int nb, const char *variant, json_t *all)
{
    char why[MTB_ERRLEN];
    int bad = 0;
    for (int i = 0; i < nb && !c->e->code; i++) {
        char *bugdir, *mp;
        struct mtb_bug man;
        if (bug_manifest(c, bugs[i], &bugdir, &mp, &man) != 0)
            break;
        char *bv = man.plant ? NULL : build_of(c->q->recipe, &man, variant);
        if (!man.control_expect || !bv) {
            printf("control: %s: %s\n", bugs[i], bv ? "no control yet (no control_expect)" : "a plant: no control");
            json_array_append_new(all, json_pack("{s:s,s:s}", "bug", bugs[i], "outcome", "no_control"));
        } else {
            struct mtb_build b;
            if (mtb_build_ensure(c->q->recipe, bv, c->q->platform->target(), 0, 0, &b, why, sizeof why) != 0) {
                mtb_err_set(c->e, MTB_ERR_FAIL, "%s", why);
            } else {
                json_t *d = control_trial(c, bugs[i], &man, bugdir, bv, &b);
                bad |= strcmp(outcome_of(d), "refused") != 0;
                json_array_append_new(all, d);
            }
        }
        free(bv);
        mtb_bug_free(&man);
        free(mp);
        free(bugdir);
    }
    return bad;
}

/* is this bug's cell in mode m one a real kernel checks (a system call's bad access, sync mode)? */
static int kernel_checks(const struct mtb_bug *man, const struct mtb_mode *m)
{
    return !strcmp(m->name, "sync") && man->access_in && !strcmp(man->access_in, "syscall");
}

/* does this bug's cell in mode m also run on kernel_check (tried elsewhere than there)? */
static int kernel_checked(const struct detect_ctx *c, const struct mtb_bug *man, const struct mtb_mode *m)
{
    return c->q->kernel_check && c->q->kernel_check != c->q->platform && kernel_checks(man, m);
}

/* every bug x variant x mode x trial wanted; 1 if a trial did not reach its
 * bug or ended in error (stopped on c->e: a build that failed, a manifest
 * refused) */
static int run_all(struct detect_ctx *c, char **bugs, int nb, const char **vs, int nv, const struct mtb_mode **ms, int nm,
                   json_t *all)
{
    const char *configs = c->q->configs;
    char why[MTB_ERRLEN];
    int bad = 0;
    for (int i = 0; i < nb && !c->e->code; i++) {
        char *bugdir, *mp;
        struct mtb_bug man;
        if (bug_manifest(c, bugs[i], &bugdir, &mp, &man) != 0)
            break;
        for (int v = 0; v < nv && !c->e->code; v++) {
            int any = 0;
            for (int m = 0; m < nm; m++)
                any |= wanted(configs, vs[v], ms[m]->name);
            char *bv = any ? build_of(c->q->recipe, &man, vs[v]) : NULL;
            if (!bv) {
                if (any)
                    fprintf(stderr, "mtebench: detect: %s has no build of variant %s: skipped\n", bugs[i], vs[v]);
                continue;
            }
            struct mtb_build b;
            if (mtb_build_ensure(c->q->recipe, bv, c->q->platform->target(), 0, 0, &b, why, sizeof why) != 0)
                mtb_err_set(c->e, MTB_ERR_FAIL, "%s", why);
            for (int m = 0; m < nm && !c->e->code; m++)
                for (int k = 0; k < 1 + kernel_checked(c, &man, ms[m]); k++) /* k 1: the same cell on kernel_check */
                    for (int t = 1; t <= c->q->trials && wanted(configs, vs[v], ms[m]->name); t++) {
                        json_t *d = trial(c, &(struct bug_at){ bugs[i], &man, bugdir }, vs[v], bv, &b, ms[m], t,
                                          k ? c->q->kernel_check : c->q->platform);
                        const char *out = outcome_of(d);
                        bad |= !strcmp(out, "not_reached") || !strcmp(out, "error");
                        json_array_append_new(all, d);
                    }
            free(bv);
        }
        mtb_bug_free(&man);
        free(mp);
        free(bugdir);
    }
    return bad;
}

/* the trials to run: every wanted pair's, and the cells tried again on
 * kernel_check; a note for a system call's bug tried under emu alone */
static int count_trials(struct detect_ctx *c, char **bugs, int nb, const char **vs, int nv, const struct mtb_mode **ms,
                        int nm, int npairs)
{
    const struct mtb_detect_req *q = c->q;
    int total = nb * npairs * (int)q->trials;
    for (int i = 0; i < nb; i++) { /* and the cells tried again on kernel_check */
        char *bugdir, *mp;
        struct mtb_bug man;
        if (bug_manifest(c, bugs[i], &bugdir, &mp, &man) != 0)
            return total;
        int unchecked = 0;
        for (int v = 0; v < nv; v++)
            for (int m = 0; m < nm; m++) {
                int w = wanted(q->configs, vs[v], ms[m]->name);
                total += (int)q->trials * (w && kernel_checked(c, &man, ms[m]));
                unchecked |= w && !q->kernel_check && !strcmp(q->platform->name, "emu") && kernel_checks(&man, ms[m]);
            }
        if (unchecked)
            fprintf(stderr, "mtebench: detect: %s's bad access is a system call's, which qemu-user never checks: "
                            "--kernel-check vm also runs its sync cells in a guest of a real kernel\n", bugs[i]);
        mtb_bug_free(&man);
        free(mp);
        free(bugdir);
    }
    return total;
}

/* The configurations: --variants x --modes, each mode the platform can run
 * (the others skipped, saying why), at least one pair --configs wants.
 * vcopy and mcopy: the lists' copies vs and ms point into (freed by the
 * caller). @return the pairs wanted, or -1 with e set */
static int configurations(const struct mtb_detect_req *q, const char **vs, int *nv, const struct mtb_mode **ms,
                          int *nm, char **vcopy, char **mcopy, struct mtb_err *e)
{
    char why[MTB_ERRLEN], *save = NULL;
    *vcopy = mtb_strdup(q->variants);
    *mcopy = mtb_strdup(q->modes);
    *nv = *nm = 0;
    for (char *t = strtok_r(*vcopy, ",", &save); t && *nv < 8; t = strtok_r(NULL, ",", &save))
        vs[(*nv)++] = t;
    for (char *t = strtok_r(*mcopy, ",", &save); t && *nm < 8; t = strtok_r(NULL, ",", &save)) {
        const struct mtb_mode *m = mtb_mode_find(t);
        if (!m)
            return mtb_err_set(e, MTB_ERR_INPUT, "MODE %s: accepted %s", t, mtb_mode_names());
        if (!q->platform->mode_ok(m, why, sizeof why)) {
            fprintf(stderr, "mtebench: detect: mode %s skipped on %s: %s\n", t, q->platform->name, why);
            continue;
        }
        ms[(*nm)++] = m;
    }
    int npairs = 0;
    for (int v = 0; v < *nv; v++)
        for (int m = 0; m < *nm; m++)
            npairs += wanted(q->configs, vs[v], ms[m]->name);
    if (npairs == 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "--configs %s: no variant/mode pair of --variants x --modes", q->configs);
    return npairs;
}

int mtb_detect_run(const struct mtb_detect_req *q, struct mtb_err *e)
{
    struct detect_ctx ctx = { .q = q, .e = e }, *c = &ctx;
    char why[MTB_ERRLEN], ts[32];
    int nb = 0, nv, nm, bad = 0;
    char **bugs = bug_list(q->recipe->name, q->bugs, &nb), *vcopy = NULL, *mcopy = NULL, *dir = NULL;
    const char *vs[8];
    const struct mtb_mode *ms[8];
    json_t *all = json_array(), *mx = NULL;
    if (nb == 0)
        mtb_err_set(e, MTB_ERR_INPUT, "%s has no bug catalogue (services/%s/bugs/*/manifest.ini)", q->recipe->name,
                    q->recipe->name);
    int npairs = e->code ? -1 : configurations(q, vs, &nv, ms, &nm, &vcopy, &mcopy, e);
    if (npairs < 0 || check_bugs(c, bugs, nb) != 0)
        goto out;
    mtb_utc_compact(ts, sizeof ts);
    dir = q->results ? mtb_strdup(q->results) : mtb_asprintf("%s/%s-detect-%s", mtb_results_dir(), ts, q->recipe->name);
    c->dir = dir;
    mtb_mkdir_p(dir);
    c->total = q->controls ? nb : count_trials(c, bugs, nb, vs, nv, ms, nm, npairs);
    if (!q->controls && q->kernel_check && c->total > nb * npairs * (int)q->trials) {
        /* cells to try on kernel_check: its kernel built now (cached, minutes cold), saying so */
        struct mtb_kernel k;
        if (mtb_kernel_ensure(q->check_kernel, NULL, 0, 0, &k, why, sizeof why) != 0) {
            mtb_err_set(e, MTB_ERR_FAIL, "%s", why);
            goto out;
        }
        mtb_kernel_free(&k);
    }
    c->env = mtb_quiet_environment(q->machine, 0, 1, 0, e);
    if (!c->env)
        goto out;
    if (q->controls) { /* each bug's fixed-build control, not the trials */
        bad = run_controls(c, bugs, nb, vs[0], all); /* the first variant's bug build (default plain) */
        char *cp = mtb_asprintf("%s/controls.json", dir);
        if (!e->code && mtb_record_write(cp, all) != 0)
            mtb_warn("detect: cannot write %s", cp);
        if (!e->code)
            printf("detect: %s\n", cp);
        free(cp);
        goto out;
    }
    bad = run_all(c, bugs, nb, vs, nv, ms, nm, all);
    if (e->code)
        goto out;
    mx = mtb_detect_matrix(all);
    json_object_set_new(mx, "service", json_string(q->recipe->name));
    json_object_set_new(mx, "platform", json_string(q->platform->name));
    json_object_set_new(mx, "emulated", json_boolean(mtb_platform_emulated(q->platform)));
    json_object_set_new(mx, "trials_per_cell", json_integer(q->trials));
    json_object_set(mx, "environment", c->env);
    if (q->cost)
        add_cost(mx, q->cost, q->recipe->name, q->platform->name);
    char *jp = mtb_asprintf("%s/detect.json", dir), *mdp = mtb_asprintf("%s/detect.md", dir);
    if (mtb_record_write(jp, mx) != 0)
        mtb_warn("detect: cannot write %s", jp);
    struct mtb_det_rows rows;
    mtb_det_rows_read(mx, &rows);
    write_page(mdp, &rows, 1);
    char *hp = mtb_asprintf("%s/detect.html", dir);
    write_page(hp, &rows, 2);
    free(hp);
    if (q->json) {
        json_dumpf(mx, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("\n");
    } else
        mtb_detect_matrix_print(stdout, &rows, 0);
    mtb_det_rows_free(&rows);
    printf("detect: %s\n", jp);
    free(jp);
    free(mdp);
out:
    if (c->env) {
        mtb_quiet_restore();
        json_decref(c->env);
    }
    json_decref(mx);
    json_decref(all);
    free(vcopy);
    free(mcopy);
    for (int i = 0; i < nb; i++)
        free(bugs[i]);
    free(bugs);
    free(dir);
    return e->code ? -1 : bad ? 1 : 0;
}
