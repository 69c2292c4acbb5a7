/* plan.c - running a plan (see plan.h): every build and kernel first, the
 * results directory claimed and checked (plan.json, --resume), then the
 * cells interleaved over the repetitions (a fixed count, or REPS=auto's
 * pairs until seqstop.c's rule stops) with one ETA. Making a plan is
 * plan_parse.c. */
#include "plan/plan.h"
#include "plan/plan_dir.h"
#include "plan/plan_work.h"
#include "common/duration.h"
#include "plan/plantime.h"
#include "plan/runlen.h"
#include "lib/jsonx.h"
#include "core/kernel.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/record_outcome.h"
#include "lib/proc.h"
#include "agent/remote.h"
#include "run/quiet.h"
#include "analysis/seqstop.h"
#include "lib/util.h"
#include "lib/files.h"
#include "lib/err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mtb_plan_note_failed(struct mtb_plan *p, const char *rundir, const json_t *rec);


/* ---- running -------------------------------------------------------------- */

/* Every build (one per service and variant) and, on a platform with named
 * kernels, every kernel, before the first run: the runs only start or boot. */
static int plan_prepare(struct mtb_plan *p, int force, struct mtb_err *e)
{
    char err[MTB_ERRLEN];
    const char *target = mtb_remote_target(p->machine, p->platform);
    for (size_t i = 0; i < p->ncells; i++) {
        struct mtb_plan_cell *c = &p->cells[i];
        /* one build per (service, variant): reuse an earlier cell's */
        int reused = 0;
        for (size_t j = 0; j < i && !reused; j++)
            if (p->cells[j].recipe == c->recipe && !strcmp(p->cells[j].variant, c->variant)) {
                c->build = p->cells[j].build;
                reused = 1;
            }
        if (!reused && mtb_build_ensure(c->recipe, c->variant, target, force, 0, &c->build, err, sizeof err) != 0)
            return mtb_err_set(e, MTB_ERR_FAIL, "%s", err);
    }
    for (size_t i = 0; p->platform->named_kernels && i < p->ncells; i++) {
        const char *k = mtb_plan_cell_kernel(p, &p->cells[i]);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(mtb_plan_cell_kernel(p, &p->cells[j]), k);
        struct mtb_kernel kk;
        if (!seen && mtb_kernel_ensure(k, NULL, 0, 0, &kk, err, sizeof err) != 0)
            return mtb_err_set(e, MTB_ERR_FAIL, "%s", err);
        if (!seen)
            mtb_kernel_free(&kk);
    }
    return 0;
}

const char *mtb_plan_cell_kernel(const struct mtb_plan *p, const struct mtb_plan_cell *c)
{
    return c->kernel ? c->kernel : p->kernel;
}

/* DIR/.mtebench-running: written when a plan starts running into DIR and
 * locked (flock) while it runs; removed when it ends. Found unlocked, it is
 * the mark of a harness that was killed (or interrupted) there; found
 * locked, another harness is running into DIR now, which is refused.
 * @return the locked descriptor (kept open until the plan ends), or -1. */
static char claim_old[512]; /* what the mark said before this harness claimed dir */
static void unclaim(const char *dir, int fd);

static int claim_dir(const char *dir, struct mtb_err *e)
{
    char *mp = mtb_asprintf("%s/.mtebench-running", dir);
    int fd = open(mp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        mtb_err_set(e, MTB_ERR_FAIL, "cannot write %s: %s", mp, mtb_errdesc(errno));
        free(mp);
        return -1;
    }
    char old[512] = "";
    ssize_t n = read(fd, old, sizeof old - 1);
    old[n > 0 ? n : 0] = 0;
    old[strcspn(old, "\n")] = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        mtb_err_set(e, MTB_ERR_INPUT, "%s is in use by another mtebench now (%s); give another --results", dir,
                    old[0] ? old : "no details");
        close(fd);
        free(mp);
        return -1;
    }
    if (old[0])
        fprintf(stderr, "mtebench: %s was left by an mtebench that did not finish (%s): its runs without a "
                        "record.json were cut short\n", dir, old);
    snprintf(claim_old, sizeof claim_old, "%s", old);
    char now[32], line[256];
    mtb_utc_iso(now, sizeof now);
    int len = snprintf(line, sizeof line, "pid %d, started %s\n", (int)getpid(), now);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len) {
        mtb_err_set(e, MTB_ERR_FAIL, "cannot write %s: %s", mp, mtb_errdesc(errno ? errno : ENOSPC));
        unclaim(dir, fd); /* the mark as it was */
        fd = -1;
    }
    free(mp);
    return fd;
}

/* Refused before running: the mark goes back to what it was. */
static void unclaim(const char *dir, int fd)
{
    char *mp = mtb_asprintf("%s/.mtebench-running", dir);
    if (!claim_old[0])
        unlink(mp);
    else if (ftruncate(fd, 0) != 0 || pwrite(fd, claim_old, strlen(claim_old), 0) < 0) { /* best effort */ }
    free(mp);
    close(fd);
}

/* --resume: the ok record of rundir; or the record its platform recovers
 * from where the attempt ran (a server host's run that finished there after
 * the connection was lost: platform.h's recover); or NULL after moving what
 * is there (a failed or cut-short attempt) to dir/.attempts/, so that the
 * run is redone in a fresh directory and no log is appended to. */
static json_t *resume_one(const char *dir, const char *rundir, const struct mtb_run *run, struct mtb_err *e)
{
    char *rp = mtb_asprintf("%s/record.json", rundir);
    json_t *rec = json_load_file(rp, 0, NULL);
    free(rp);
    if (rec && mtb_record_status(rec) == MTB_RUN_OK)
        return rec;
    json_t *got = NULL;
    if (rec && run->platform->recover && run->platform->recover(run, rec, &got) == MTB_RUN_OK) {
        json_decref(rec);
        return got;
    }
    json_decref(rec);
    if (!mtb_file_exists(rundir))
        return NULL;
    const char *base = strrchr(rundir, '/') + 1;
    char *att = mtb_asprintf("%s/.attempts", dir);
    mtb_mkdir_p(att);
    for (int k = 1;; k++) {
        char *to = mtb_asprintf("%s/%s-%d", att, base, k);
        if (!mtb_file_exists(to)) {
            if (rename(rundir, to) != 0)
                mtb_err_set(e, MTB_ERR_FAIL, "--resume: cannot move %s to %s: %s", rundir, to, mtb_errdesc(errno));
            free(to);
            break;
        }
        free(to);
    }
    free(att);
    return NULL;
}

/* dir/plan.json: the cells (with what makes a run that run: its load, for
 * --resume), the platform, the repetitions, what was skipped. A dir that
 * holds runs is used only as told (plan_dir.c). */
static int plan_write_json(const struct mtb_plan *p, const char *dir, int force, struct mtb_err *e)
{
    json_t *cells = json_array();
    for (size_t i = 0; i < p->ncells; i++) {
        json_t *cj = json_pack("{s:s,s:s,s:s,s:s,s:s}", "entry", p->cells[i].entry, "service", p->cells[i].recipe->name,
                               "workload", p->cells[i].wl.name, "variant", p->cells[i].variant, "mode",
                               p->cells[i].mode->name);
        if (p->cells[i].wl.cores)
            json_object_set_new(cj, "cores", json_integer(p->cells[i].wl.cores));
        if (p->cells[i].kernel)
            json_object_set_new(cj, "kernel", json_string(p->cells[i].kernel));
        if (p->cells[i].allocator && p->cells[i].allocator->preload) /* glibc's: plan.json as before the axis */
            json_object_set_new(cj, "allocator", json_string(p->cells[i].allocator->name));
        json_object_set_new(cj, "load", mtb_workload_json(&p->cells[i].wl));
        json_array_append_new(cells, cj);
    }
    json_t *skipped = json_array();
    for (size_t i = 0; i < p->nskipped; i++)
        json_array_append_new(skipped, json_pack("{s:s,s:s,s:s}", "entry", p->skipped[i].entry, "mode",
                                                 p->skipped[i].mode, "why", p->skipped[i].why));
    json_t *pj = json_pack("{s:s,s:s,s:s,s:s,s:I,s:b,s:o,s:o}", "schema", "mtebench-plan/1", "name", p->name,
                           "platform", p->platform->name, "kernel", p->kernel, "reps", (json_int_t)p->reps,
                           "emulated", mtb_platform_emulated(p->platform), "cells", cells, "skipped", skipped);
    int rc = mtb_plan_dir_write(dir, pj, p->resume, force, e);
    json_decref(pj);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < p->nskipped; i++)
        fprintf(stderr, "mtebench: plan %s: [%s] mode %s skipped: %s\n", p->name, p->skipped[i].entry,
                p->skipped[i].mode, p->skipped[i].why);
    return 0;
}

/* "-c8" / "-little" for a sweep point, "-tcma1" for a cell's own kernel */
static void cell_tag(const struct mtb_plan_cell *c, int tag_rate, char *tag, size_t n)
{
    tag[0] = 0;
    if (c->wl.core_type[0])
        snprintf(tag, n, "-%s", c->wl.core_type);
    else if (c->wl.cores)
        snprintf(tag, n, "-c%ld", c->wl.cores);
    if (c->kernel) {
        const char *b = strrchr(c->kernel, '/') ? strrchr(c->kernel, '/') + 1 : c->kernel;
        snprintf(tag + strlen(tag), n - strlen(tag), "-%s", b);
    }
    if (tag_rate) /* a search's probe: its offered rate ("-r2500"; closed loop "-closed") */
        snprintf(tag + strlen(tag), n - strlen(tag), c->wl.rate > 0 ? "-r%.0f" : "-closed", c->wl.rate);
}

/* The runs of a plan as they go: where they go, what they return, and the
 * progress the ETA is computed from. */
#define MAX_OVER 256
struct plan_loop {
    struct mtb_plan *p;
    const char *dir;
    json_t *env, *records, *files;
    int *failures;
    int idx, total;                     /* runs started; planned (REPS=auto: at most) */
    double t0, planned;                 /* start; planned seconds of all runs */
    size_t nover;
    size_t over[MAX_OVER][2];           /* REPS=auto: baseline cell, tagged cell */
    int claim;                          /* the results directory's mark, locked while the plan runs */
    struct mtb_err *e;                  /* why the plan stopped (not a run's failure: a run's is in its record) */
};

/* One run of a cell (the loop's next, x->idx): progress line, run
 * directory, mtb_run_one. total: the runs planned (0: a search's step). */
static json_t *run_cell(struct plan_loop *x, const struct mtb_plan_cell *c, long rep, int total, const char *eta,
                        const char *of_text)
{
    const struct mtb_plan *p = x->p;
    const char *dir = x->dir;
    int idx = x->idx, tty = isatty(2);
    char cores[48] = "", kern[160] = "";
    if (c->wl.cores)
        snprintf(cores, sizeof cores, " %ld core%s%s%s", c->wl.cores, c->wl.cores == 1 ? "" : "s",
                 c->wl.core_type[0] ? " " : "", c->wl.core_type);
    if (c->kernel)
        snprintf(kern, sizeof kern, " kernel %s", c->kernel);
    char of[96];
    if (of_text) /* a step of a search (capacity.c): its own words */
        snprintf(of, sizeof of, "%s", of_text);
    else if (p->reps == MTB_REPS_AUTO) /* total and ETA are then upper bounds */
        snprintf(of, sizeof of, "pair %ld (auto)", rep);
    else
        snprintf(of, sizeof of, "rep %ld/%ld", rep, p->reps);
    char count[48]; /* a search's steps have no total */
    if (total > 0)
        snprintf(count, sizeof count, "%d/%s%d", idx, p->reps == MTB_REPS_AUTO ? "<=" : "", total);
    else
        snprintf(count, sizeof count, "%d", idx);
    char lab[128];
    mtb_variant_label(c->variant, c->allocator, lab, sizeof lab);
    fprintf(stderr, "%s[%s] %s %s%s%s %s/%s %s, ETA %s%s ...%s", tty ? "\r\033[K" : "", count, c->recipe->name,
            c->wl.name, cores, kern, lab, c->mode->name, of,
            p->reps == MTB_REPS_AUTO || total <= 0 ? "<= " : "", eta, tty ? "" : "\n");
    char tag[200];
    cell_tag(c, p->tag_rate, tag, sizeof tag);
    char *rundir = mtb_asprintf("%s/%03d-%s-%s%s-%s-%s-rep%ld", dir, idx, c->recipe->name, c->wl.name, tag,
                                lab, c->mode->name, rep);
    struct mtb_run run = { .environment = x->env, .recipe = c->recipe, .variant = c->variant, .mode = c->mode,
                           .allocator = c->allocator,
                           .platform = p->platform, .kernel = mtb_plan_cell_kernel(p, c), .wl = &c->wl,
                           .build = &c->build, .machine = p->machine, .rep = (int)rep, .index = idx,
                           .total = total > 0 ? total : idx,
                           .plan = p->name, .dir = rundir };
    json_t *kept = p->resume ? resume_one(dir, rundir, &run, x->e) : NULL;
    if (kept) { /* --resume: an ok run of the earlier attempt */
        fprintf(stderr, "%s  kept from the earlier attempt: %s/record.json\n", tty ? "\r\033[K" : "", rundir);
        if (x->files)
            json_array_append_new(x->files, json_sprintf("%s/record.json", rundir));
        free(rundir);
        return kept;
    }
    if (x->e->code) { /* the earlier attempt could not be moved aside: not run over it */
        free(rundir);
        return NULL;
    }
    json_t *rec = NULL;
    double t0 = mtb_mono();
    enum mtb_run_status st = mtb_run_one(&run, &rec);
    if (st == MTB_RUN_OK) /* its start-up cost, for the next --dry-run's time (plantime.c) */
        mtb_startup_note(c->recipe->name, p->platform->name, mtb_mono() - t0 - c->wl.duration - c->wl.warmup);
    if (st == MTB_RUN_OK && tty)
        fprintf(stderr, " %.0f ops/s", mtb_record_num(rec, "ops_per_sec"));
    int cut = st != MTB_RUN_OK && mtb_proc_interrupted && (p->reps == MTB_REPS_AUTO || total <= 0); /* or a search's */
    if (cut) /* REPS=auto stopped by Ctrl-C: this run is not a failure of the machine */
        json_object_set_new(rec, "error", json_string("stopped by the user (Ctrl-C) during this run"));
    else if (st != MTB_RUN_OK) {
        (*x->failures)++;
        mtb_plan_note_failed(x->p, rundir, rec);
    }
    if (p->reps == MTB_REPS_AUTO && rec) {
        /* the level every look's interval is built at: the summary reports the overhead at it */
        json_t *sq = json_pack("{s:s,s:f,s:f,s:f,s:I,s:i}", "rule", "bonferroni over planned looks", "look_conf",
                               p->seq.look_conf, "precision", p->seq.precision, "max_time_s", p->seq.max_time,
                               "max_reps", (json_int_t)p->seq.max_reps, "looks", (int)p->seq.nlooks);
        if (p->runlen)
            json_object_set(sq, "run_length", p->runlen);
        json_object_set_new(rec, "sequential", sq);
        char *rp = mtb_asprintf("%s/record.json", rundir);
        char *txt = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (txt)
            mtb_write_atomic(rp, txt, strlen(txt));
        free(txt);
        free(rp);
    }
    if (x->files)
        json_array_append_new(x->files, json_sprintf("%s/record.json", rundir));
    free(rundir);
    return rec;
}


/* The time left: from the runs so far, or the plan's own estimate before the first has ended */
static void plan_eta(const struct plan_loop *x, char *buf, size_t n)
{
    double left = x->idx > 1 ? (mtb_mono() - x->t0) / (x->idx - 1) * (x->total - x->idx + 1) : x->planned;
    mtb_duration_format(buf, n, left);
}

/* One repetition: every cell once, in alternating order (AB BA AB ...) so
 * that drift hits every cell alike. ops (if not NULL) receives each cell's
 * ops/s (NaN for a run not ok). @return 1 if interrupted, or stopped by x->e. */
static int plan_round(struct plan_loop *x, long rep, double *ops)
{
    struct mtb_plan *p = x->p;
    for (size_t k = 0; k < p->ncells && !mtb_proc_interrupted && !x->e->code; k++) {
        size_t ci = rep % 2 ? k : p->ncells - 1 - k;
        char eta[32];
        x->idx++;
        plan_eta(x, eta, sizeof eta);
        json_t *rec = run_cell(x, &p->cells[ci], rep, x->total, eta, NULL);
        if (ops)
            ops[ci] = rec && mtb_record_status(rec) == MTB_RUN_OK ? mtb_record_num(rec, "ops_per_sec") : NAN;
        json_array_append_new(x->records, rec);
    }
    if (isatty(2))
        fprintf(stderr, "\n");
    return mtb_proc_interrupted || x->e->code ? 1 : 0;
}

/* REPS=auto without DURATION (bench): after the pilot pairs, the run length
 * that narrows the interval fastest (runlen.c) for the pairs after them, and
 * the looks planned again for it (before the first look: no interval has
 * been seen, only the noise); the pilot's records carry the new looks, at
 * which the summary builds the interval */
static void choose_runlen(struct plan_loop *x)
{
    struct mtb_plan *p = x->p;
    struct mtb_workload *w = &p->cells[0].wl;
    double t0 = w->duration, per_run = (mtb_mono() - x->t0) / (double)(MTB_RUNLEN_PILOT * p->ncells);
    double startup = per_run - t0 - w->warmup > 0 ? per_run - t0 - w->warmup : 0;
    struct mtb_runlen r;
    mtb_runlen_choose(x->records, t0, w->warmup, startup, MTB_RUNLEN_MIN, &r);
    p->runlen = mtb_runlen_json(&r);
    p->runlen_choice = r;
    double new_pair = 0;
    for (size_t k = 0; k < p->ncells; k++) {
        p->cells[k].wl.duration = r.chosen_s;
        new_pair += r.chosen_s + p->cells[k].wl.warmup + startup;
    }
    /* the looks for the pilot pairs plus as many new ones as the rest of MAX_TIME holds, at what a pair
     * costs as measured (the pilot's start-ups): a look planned beyond reach costs every look its level */
    double rest = p->max_time - (mtb_mono() - x->t0), pairs = MTB_RUNLEN_PILOT + (rest > 0 ? rest / new_pair : 0);
    mtb_seq_init(&p->seq, p->precision, p->max_time, p->max_reps, p->max_time / pairs);
    x->total = (int)(p->ncells * (size_t)p->seq.looks[p->seq.nlooks - 1]); /* the progress line's "at most" */
    size_t i;
    json_t *rec;
    json_array_foreach(x->records, i, rec) {
        struct mtb_rec_env re;
        mtb_rec_env_read(rec, &re);
        json_t *sq = re.sequential;
        mtb_rec_env_free(&re);
        const char *path = json_string_value(json_array_get(x->files, i));
        if (!json_is_object(sq))
            continue;
        json_object_set_new(sq, "look_conf", json_real(p->seq.look_conf));
        json_object_set_new(sq, "looks", json_integer((json_int_t)p->seq.nlooks));
        json_object_set(sq, "run_length", p->runlen);
        char *txt = path ? json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
        if (txt)
            mtb_write_atomic(path, txt, strlen(txt));
        free(txt);
    }
    char cands[512] = "";
    for (int k = 0; k < r.ncand; k++)
        snprintf(cands + strlen(cands), sizeof cands - strlen(cands), "%s%g s %.1f%%", k ? ", " : "", r.cand[k].len_s,
                 100 * r.cand[k].pair_sd);
    fprintf(stderr, "mtebench: REPS=auto: run length %g s -> %g s after %d pilot pairs (%s; pair SD by run length: %s; "
            "%.0f s of warm-up and start-up a run); %zu looks at %ld..%ld pairs, each at %.2f%%\n", t0, r.chosen_s,
            r.pilot_pairs, r.why, cands, r.overhead_s, p->seq.nlooks, p->seq.looks[0], p->seq.looks[p->seq.nlooks - 1],
            100 * p->seq.look_conf);
}

/* REPS=auto: one round per call, the overheads' pairs out */
static int seq_pair(void *ctx, long rep, double *num, double *den)
{
    struct plan_loop *x = ctx;
    double *ops = mtb_calloc(x->p->ncells, sizeof *ops);
    int stop = plan_round(x, rep, ops);
    for (size_t i = 0; i < x->nover; i++) {
        num[i] = ops[x->over[i][0]];                   /* slowdown = baseline / tagged ops/s */
        den[i] = ops[x->over[i][1]];
    }
    free(ops);
    if (x->p->adapt_runlen && rep == MTB_RUNLEN_PILOT && !stop)
        choose_runlen(x);
    return stop;
}

/* REPS=auto: the overheads, each tagged cell against its baseline */
static void auto_pairs(struct plan_loop *x)
{
    struct mtb_plan *p = x->p;
    for (size_t k = 0; k < p->ncells; k++)
        for (size_t j = 0; strcmp(p->cells[k].variant, "plain") && j < p->ncells; j++)
            if (!strcmp(p->cells[j].variant, "plain") && !strcmp(p->cells[j].entry, p->cells[k].entry) &&
                p->cells[j].wl.cores == p->cells[k].wl.cores && p->cells[j].allocator == p->cells[k].allocator &&
                !strcmp(mtb_plan_cell_kernel(p, &p->cells[j]), mtb_plan_cell_kernel(p, &p->cells[k])) &&
                x->nover < MAX_OVER) {
                x->over[x->nover][0] = j;
                x->over[x->nover][1] = k;
                x->nover++;
                break;
            }
}

/* The repetitions: REPS rounds, or REPS=auto's pairs until seqstop.c's rule stops */
static void plan_rounds(struct plan_loop *x)
{
    struct mtb_plan *p = x->p;
    double round_s = 0, runs_s = 0; /* a round's planned time; its runs' own (no overheads) */
    for (size_t k = 0; k < p->ncells; k++) {
        runs_s += p->cells[k].wl.duration + p->cells[k].wl.warmup;
        round_s += p->cells[k].wl.duration + p->cells[k].wl.warmup + (mtb_platform_emulated(p->platform) ? 8 : 3);
    }
    long rounds = p->reps;
    if (p->reps == MTB_REPS_AUTO) {
        auto_pairs(x);
        /* the looks are planned from the runs' own time: more looks, if anything */
        mtb_seq_init(&p->seq, p->precision, p->max_time, p->max_reps, runs_s);
        rounds = p->seq.looks[p->seq.nlooks - 1];
        fprintf(stderr, "mtebench: REPS=auto: pairs until the overhead is within +-%.1f%% (95%%, %zu planned looks "
                "at %ld..%ld pairs, each at %.2f%%), at most %ld pairs or %g min of runs\n", 100 * p->precision,
                p->seq.nlooks, p->seq.looks[0], rounds, 100 * p->seq.look_conf, rounds, p->max_time / 60);
    }
    x->total = (int)(rounds * (long)p->ncells);
    x->planned = round_s * (double)rounds;
    x->t0 = mtb_mono();
    if (p->reps == MTB_REPS_AUTO) {
        mtb_proc_graceful(1); /* Ctrl-C: the report of the pairs done (a second one quits at once) */
        mtb_seq_run(&p->seq, x->nover, seq_pair, x, stderr, &p->seq_out);
        mtb_proc_graceful(0);
        p->reps_done = p->seq_out.pairs;
        return;
    }
    p->reps_done = p->reps;
    for (long rep = 1; rep <= p->reps && !plan_round(x, rep, NULL); rep++)
        ;
}

/* whether cell i is the first of its configuration: its entry (service
 * and workload; a core sweep's points count once), variant, mode,
 * allocator and kernel */
static int first_of_kind(const struct mtb_plan *p, size_t i)
{
    const struct mtb_plan_cell *c = &p->cells[i];
    const char *kc = mtb_plan_cell_kernel(p, c);
    for (size_t j = 0; j < i; j++) {
        const struct mtb_plan_cell *d = &p->cells[j];
        const char *kd = mtb_plan_cell_kernel(p, d);
        if (!strcmp(d->entry, c->entry) && !strcmp(d->variant, c->variant) && d->mode == c->mode &&
            d->allocator == c->allocator && !strcmp(kd ? kd : "", kc ? kc : ""))
            return 0;
    }
    return 1;
}

/* A plan's counted runs (p->count): each configuration of its cells counted
 * once (plan_work.c), before the timed runs, on the plan's kernel when the
 * plan runs on vm, else on the stock kernel, its load as long as the cell's
 * runs up to MTB_WORK_SECONDS, into p->work and p->work_files. @return how
 * many failed. */
static int plan_count(struct mtb_plan *p, const char *dir)
{
    int total = 0, index = 0, failed = 0;
    for (size_t i = 0; i < p->ncells; i++)
        total += first_of_kind(p, i);
    json_decref(p->work);
    json_decref(p->work_files);
    p->work = json_array();
    p->work_files = json_array();
    int on_vm = !strcmp(p->platform->name, "vm");
    for (size_t i = 0; i < p->ncells; i++) {
        if (!first_of_kind(p, i))
            continue;
        const struct mtb_plan_cell *c = &p->cells[i];
        const char *k = mtb_plan_cell_kernel(p, c);
        const char *kernel = on_vm && k && strcmp(k, "host") ? k : "stock";
        char *file = NULL; /* a plan of short runs counts as long as its runs (at most MTB_WORK_SECONDS) */
        double secs = c->wl.duration > 0 && c->wl.duration < MTB_WORK_SECONDS ? c->wl.duration : MTB_WORK_SECONDS;
        struct mtb_work_req q = { .recipe = c->recipe, .wl = &c->wl, .seconds = secs, .variant = c->variant,
                                  .mode = c->mode, .allocator = c->allocator, .kernel = kernel, .machine = p->machine,
                                  .dir = dir, .index = ++index, .total = total, .quiet = 1 };
        json_t *rec = mtb_work_count_one(&q, &file);
        if (!rec) {
            failed++;
            continue;
        }
        json_array_append_new(p->work_files, json_string(file));
        free(file);
        json_array_append_new(p->work, rec);
    }
    return failed;
}

/* Every build, the results directory claimed, plan.json written, the
 * machine's provenance taken: what comes before the first run. @return 0,
 * or -1 with e set (the directory's mark as it was) */
static int plan_begin(struct plan_loop *x, struct mtb_plan *p, const char *dir, int force, int *failures,
                      json_t *files, struct mtb_err *e)
{
    if (plan_prepare(p, force, e) != 0)
        return -1;
    int mrc = mtb_mkdir_p(dir);
    if (mrc != 0)
        return mtb_err_set(e, MTB_ERR_FAIL, "cannot create %s: %s", dir, mtb_errdesc(mrc));
    int claim = claim_dir(dir, e);
    if (claim < 0)
        return -1;
    /* provenance and the quiet-machine check, before any run (refused with --strict) */
    json_t *env = plan_write_json(p, dir, force, e) == 0 ? mtb_quiet_environment(p->machine, p->strict, 0, 1, e) : NULL;
    if (!env) {
        unclaim(dir, claim);
        return -1;
    }
    if (p->before_runs)
        p->before_runs(dir, p->before_arg);
    *failures = 0;
    if (p->count != MTB_PLAN_COUNT_NO && p->resume) /* counted when the plan began; resuming redoes timed runs */
        fprintf(stderr, "mtebench: a resumed plan: its work was counted when it began (%s/work/)\n", dir);
    else if (p->count != MTB_PLAN_COUNT_NO) /* each configuration's work, counted on vm (a failed count: a failure) */
        *failures += plan_count(p, dir);
    *x = (struct plan_loop){ .p = p, .dir = dir, .env = env, .records = json_array(), .files = files,
                             .failures = failures, .claim = claim, .t0 = mtb_mono(), .e = e };
    return 0;
}

/* After the last run: the machine as it was, the directory's mark removed
 * unless interrupted or stopped by an error (then it says the plan did not
 * finish). @return the records. */
static json_t *plan_end(struct plan_loop *x)
{
    json_decref(x->env);
    mtb_quiet_restore();
    char *mp = mtb_asprintf("%s/.mtebench-running", x->dir);
    if (!mtb_proc_interrupted && !x->e->code)
        unlink(mp); /* every run of the plan ended (ok or not) */
    free(mp);
    close(x->claim);
    return x->records;
}

json_t *mtb_plan_run(struct mtb_plan *p, const char *dir, int force, int *failures, json_t *files, struct mtb_err *e)
{
    struct plan_loop x;
    if (plan_begin(&x, p, dir, force, failures, files, e) != 0)
        return NULL;
    if (p->count != MTB_PLAN_COUNT_ONLY)
        plan_rounds(&x);
    json_t *records = plan_end(&x);
    if (!e->code)
        return records;
    json_decref(records);
    return NULL;
}

struct mtb_plan_session {
    struct plan_loop x;
    int failures;
    struct mtb_err e;
};

struct mtb_plan_session *mtb_plan_begin(struct mtb_plan *p, const char *dir, int force, json_t *files,
                                        struct mtb_err *e)
{
    struct mtb_plan_session *s = mtb_calloc(1, sizeof *s);
    if (plan_begin(&s->x, p, dir, force, &s->failures, files, &s->e) == 0)
        return s;
    *e = s->e;
    free(s);
    return NULL;
}

json_t *mtb_plan_step(struct mtb_plan_session *s, size_t cell, long rep, const char *what, double left_s)
{
    struct plan_loop *x = &s->x;
    if (s->e.code) /* stopped: no more runs */
        return NULL;
    char eta[32];
    mtb_duration_format(eta, sizeof eta, left_s);
    x->idx++;
    json_t *rec = run_cell(x, &x->p->cells[cell], rep, 0, eta, what);
    if (isatty(2))
        fprintf(stderr, "\n");
    json_array_append_new(x->records, rec); /* the session's: the caller borrows it */
    return rec;
}

int mtb_plan_stopped(const struct mtb_plan_session *s) { return s->e.code != 0; }

json_t *mtb_plan_end(struct mtb_plan_session *s, int *failures, struct mtb_err *e)
{
    json_t *records = plan_end(&s->x);
    *failures = s->failures;
    if (s->e.code)
        *e = s->e;
    free(s);
    return records;
}

/* Note a run that was not ok in p's failed. */
static void mtb_plan_note_failed(struct mtb_plan *p, const char *rundir, const json_t *rec)
{
    struct mtb_rec_outcome o;
    mtb_rec_outcome_read((json_t *)rec, &o);
    p->failed = mtb_realloc(p->failed, (p->nfailed + 1) * sizeof *p->failed);
    p->failed[p->nfailed++] = (struct mtb_plan_failure){ .record = mtb_asprintf("%s/record.json", rundir),
                                                         .status = mtb_strdup(o.status ? o.status : "error"),
                                                         .error = mtb_strdup(o.error ? o.error : "(no reason recorded)") };
}

void mtb_plan_banner(const char *who, const struct mtb_plan *p, const char *dir)
{
    char nreps[32];
    mtb_reps_text(nreps, sizeof nreps, p->reps);
    fprintf(stderr, "%s: plan %s: %zu configurations x %s reps and %zu capacity searches on %s%s, results in %s\n", who,
            p->name, p->ncells, nreps, p->ncaps, p->platform->name,
            mtb_platform_emulated(p->platform) ? " (emulated: not hardware timing)" : "", dir);
    if (p->count != MTB_PLAN_COUNT_NO)
        fprintf(stderr, "%s: count = %s: each configuration's MTE work counted once on vm%s\n", who,
                p->count == MTB_PLAN_COUNT_ONLY ? "only" : "yes",
                p->count == MTB_PLAN_COUNT_ONLY ? ", no timed runs" : ", before the timed runs");
}

void mtb_plan_print_failed(const char *who, const struct mtb_plan *p, int total)
{
    if (!p->nfailed)
        return;
    fprintf(stderr, "%s: %zu of %d runs did not finish cleanly (exit 1):\n", who, p->nfailed, total);
    for (size_t i = 0; i < p->nfailed; i++)
        fprintf(stderr, "  %s: %s: %s\n", p->failed[i].record, p->failed[i].status, p->failed[i].error);
}

