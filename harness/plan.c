/* plan.c - see plan.h */
#include "plan.h"
#include "inifile.h"
#include "jsonx.h"
#include "kernel.h"
#include "proc.h"
#include "remote.h"
#include "quiet.h"
#include "seqstop.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mtb_plan_init(struct mtb_plan *p, const char *name, const struct mtb_opts *o)
{
    memset(p, 0, sizeof *p);
    p->name = mtb_strdup(name);
    p->reps = o->reps;
    p->precision = o->precision;
    p->max_time = o->max_time;
    p->max_reps = o->max_reps;
    p->platform = o->p;
    p->kernel = o->kernel;
    p->machine = &o->mach;
    p->cores = o->cores;
    p->strict = o->strict;
    p->skipped = json_array();
    p->failed = json_array();
    p->resume = o->resume;
}

/* The points of the core sweep; 0 when there is none. */
static int sweep_points(const struct mtb_plan *p, struct mtb_workload *pts)
{
    const struct mtb_machine *m = p->machine;
    int counts[MTB_MAX_CPUS], n = 0;
    if (p->cores) {
        n = mtb_cpulist_parse(p->cores, counts, MTB_MAX_CPUS);
        if (n <= 0 || n > MTB_MAX_SWEEP)
            mtb_die(2, "invalid CORES '%s' (accepted: core counts such as 8,64,128)", p->cores);
    } else if (m->ncores) {
        memcpy(counts, m->cores, (size_t)m->ncores * sizeof *counts);
        n = m->ncores;
    } else if (m->ntypes) {
        for (int i = 0; i < m->ntypes; i++) {
            memset(&pts[i], 0, sizeof pts[i]);
            pts[i].cores = 1;
            snprintf(pts[i].svc_cpus, sizeof pts[i].svc_cpus, "%d", m->type_cpu[i]);
            snprintf(pts[i].core_type, sizeof pts[i].core_type, "%s", m->type_name[i]);
        }
        return m->ntypes;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 1 || counts[i] > m->nswp) {
            char l[256];
            mtb_cpulist_format(m->swp_cpus, m->nswp, l, sizeof l);
            mtb_die(2, "CORES: %d server cores asked for, but machine profile %s sweeps over %d CPUs (%s)%s", counts[i],
                    m->name, m->nswp, l, m->path[0] ? "" : "; choose a profile with MACHINE= (see configs/machines/)");
        }
        memset(&pts[i], 0, sizeof pts[i]);
        pts[i].cores = counts[i];
        int c[MTB_MAX_CPUS];
        int k = mtb_machine_svc_slice(m, counts[i], c);
        mtb_cpulist_format(c, k, pts[i].svc_cpus, sizeof pts[i].svc_cpus);
        for (int a = 0; a < k; a++)
            for (int b = 0; b < m->ncli; b++)
                if (c[a] == m->cli_cpus[b] && !p->ncells) /* once, when the first entry is added */
                    fprintf(stderr, "mtebench: notice: at %d cores the service shares CPU %d with the client "
                            "(profile %s allows it)\n", counts[i], c[a], m->name);
    }
    return n;
}

static struct mtb_plan_cell *add_cell(struct mtb_plan *p)
{
    p->cells = realloc(p->cells, (p->ncells + 1) * sizeof *p->cells);
    if (!p->cells)
        mtb_die(1, "out of memory");
    struct mtb_plan_cell *c = &p->cells[p->ncells++];
    memset(c, 0, sizeof *c);
    return c;
}

struct measured {
    const char *const *v;
    size_t n;
};

static void add_point(struct mtb_plan *p, const char *entry, const struct mtb_recipe *r, const struct mtb_workload *wl,
                      const struct mtb_mode *const *modes, size_t nmodes, struct measured mv);

size_t mtb_plan_variants(const struct mtb_recipe *r, const char *list, const char **out, size_t max, char *err,
                         size_t errlen)
{
    size_t n = 0;
    char *copy = mtb_strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        const char *name = NULL; /* the recipe's own string: recipes are kept for the process */
        for (size_t i = 0; i < r->nvariants && !name; i++)
            if (!strcmp(r->variants[i], t))
                name = r->variants[i];
        if (!name) {
            char names[256];
            snprintf(err, errlen, "unknown variant '%s' of %s (accepted: %s)", t, r->name,
                     mtb_recipe_variant_names(r, names, sizeof names));
            free(copy);
            return 0;
        }
        if (mtb_recipe_variant_bugs(r, name)) { /* detection trials only */
            snprintf(err, errlen, "variant '%s' of %s carries re-introduced bugs: detection trials only "
                     "(mtebench detect), never in a plan", t, r->name);
            free(copy);
            return 0;
        }
        if (n < max)
            out[n++] = name;
    }
    free(copy);
    if (!n)
        snprintf(err, errlen, "no variant in '%s'", list);
    return n;
}

void mtb_plan_add(struct mtb_plan *p, const char *entry, const struct mtb_recipe *r, const struct mtb_workload *wl,
                  const struct mtb_mode *const *modes, size_t nmodes, const char *const *variants, size_t nvariants)
{
    static const char *const tagged[] = { "tagged" };
    struct measured mv = { variants && nvariants ? variants : tagged, variants && nvariants ? nvariants : 1 };
    struct mtb_workload pts[MTB_MAX_SWEEP];
    int n = sweep_points(p, pts);
    if (n == 0) {
        add_point(p, entry, r, wl, modes, nmodes, mv);
        return;
    }
    for (int i = 0; i < n; i++) {
        struct mtb_workload w = *wl;
        w.cores = pts[i].cores;
        memcpy(w.svc_cpus, pts[i].svc_cpus, sizeof w.svc_cpus);
        memcpy(w.core_type, pts[i].core_type, sizeof w.core_type);
        w.service_threads = w.cores; /* memcached -t, nginx worker_processes; pgbench and db_bench in their drivers */
        add_point(p, entry, r, &w, modes, nmodes, mv);
    }
}

static void add_point(struct mtb_plan *p, const char *entry, const struct mtb_recipe *r, const struct mtb_workload *wl,
                      const struct mtb_mode *const *modes, size_t nmodes, struct measured mv)
{
    size_t skipped_before = json_array_size(p->skipped);
    struct mtb_plan_cell *b = add_cell(p);
    b->entry = entry;
    b->recipe = r;
    b->wl = *wl;
    b->variant = "plain";
    b->mode = mtb_mode_find("off");
    for (size_t i = 0; i < nmodes; i++) {
        char why[MTB_ERRLEN];
        if (!p->platform->mode_ok(modes[i], why, sizeof why)) {
            if (skipped_before && wl->cores) /* one note per mode, not per sweep point */
                continue;
            json_array_append_new(p->skipped, json_pack("{s:s,s:s,s:s}", "entry", entry, "mode", modes[i]->name, "why", why));
            continue;
        }
        for (size_t v = 0; v < mv.n; v++) {
            struct mtb_plan_cell *c = add_cell(p);
            c->entry = entry;
            c->recipe = r;
            c->wl = *wl;
            c->variant = mv.v[v];
            c->mode = modes[i];
        }
    }
}

/* ---- plan files ---------------------------------------------------------- */

struct mtb_plan_file {
    struct mtb_kv *kv;
    size_t n;
    char **sections;
    size_t nsec;
    int *lines;               /* the line of each kv, for messages naming file:line */
    struct mtb_inifile ini;
};

/* the line of sec/key in the plan file (0 when not there) */
static int line_of(const struct mtb_plan_file *l, const char *sec, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->kv[i].section, sec) && !strcmp(l->kv[i].key, key))
            return l->lines[i];
    return 0;
}

static int on_kv(void *user, const char *section, const char *name, const char *value)
{
    struct mtb_plan_file *l = user;
    if (!l->nsec || strcmp(l->sections[l->nsec - 1], section)) {
        l->sections = realloc(l->sections, (l->nsec + 1) * sizeof *l->sections);
        l->sections[l->nsec++] = mtb_strdup(section);
    }
    if (!name)
        return 1;
    l->kv = realloc(l->kv, (l->n + 1) * sizeof *l->kv);
    l->lines = realloc(l->lines, (l->n + 1) * sizeof *l->lines);
    l->lines[l->n] = l->ini.line;
    l->kv[l->n].section = mtb_strdup(section);
    l->kv[l->n].key = mtb_strdup(name);
    l->kv[l->n].value = mtb_strdup(value);
    l->n++;
    return 1;
}

static const char *get(const struct mtb_plan_file *l, const char *sec, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->kv[i].section, sec) && !strcmp(l->kv[i].key, key))
            return l->kv[i].value;
    return NULL;
}

/* an entry's keys: these and the workload's (workload.h) */
static const char *const entry_keys[] = { "service", "workload", "modes", "variants", NULL };

void mtb_plan_load(struct mtb_plan *p, const char *path, struct mtb_opts *o)
{
    /* p owns the file's list from the start: a load cut short is freed with p */
    memset(p, 0, sizeof *p);
    struct mtb_plan_file *l = p->file = calloc(1, sizeof *p->file);
    if (!l)
        mtb_die(1, "out of memory");
    int rc = mtb_inifile_parse(path, &l->ini, on_kv, l);
    if (rc == -1)
        mtb_die(2, "plan %s: cannot read it: %s", path, strerror(errno));
    if (rc < 0)
        mtb_die(2, "plan %s: cannot read it", path);
    if (rc > 0)
        mtb_die(2, "plan %s:%d: malformed line", path, rc);
    const char *v;
    if (!o->reps_given && (v = get(l, "plan", "reps"))) {
        if (!strcmp(v, "auto"))
            o->reps = MTB_REPS_AUTO;
        else if (mtb_parse_long(v, 1, 1000, &o->reps) != 0)
            mtb_die(2, "plan %s:%d: [plan] reps '%s' is not auto or an integer from 1 to 1000", path,
                    line_of(l, "plan", "reps"), v);
    }
    if (!o->platform && (v = get(l, "plan", "platform")))
        o->platform = v;
    if (!o->cores && (v = get(l, "plan", "cores")))
        o->cores = v;
    /* [plan] duration and warmup hold for every entry unless given on the command line */
    static const char *const globals[] = { "duration", "warmup" };
    for (int g = 0; g < 2; g++) {
        char why[MTB_ERRLEN];
        if (!(o->wset.set & (1u << mtb_workload_field(globals[g]))) && (v = get(l, "plan", globals[g])) &&
            mtb_workload_set_parse(&o->wset, globals[g], v, why, sizeof why) != 0)
            mtb_die(2, "plan %s:%d: [plan] %s", path, line_of(l, "plan", globals[g]), why);
    }
    /* resolve the platform with the first entry's service */
    const char *first = NULL;
    for (size_t i = 0; i < l->nsec && !first; i++)
        if (strcmp(l->sections[i], "plan"))
            first = l->sections[i];
    if (!first)
        mtb_die(2, "plan %s: no entries (sections other than [plan])", path);
    o->service = get(l, first, "service");
    o->mode = NULL;
    mtb_cli_resolve(o);
    const char *name = get(l, "plan", "name");
    if (!name) {
        const char *b = strrchr(path, '/');
        name = b ? b + 1 : path;
    }
    mtb_plan_init(p, name, o);
    p->file = l;
    for (size_t i = 0; i < l->nsec; i++) {
        const char *sec = l->sections[i];
        if (!strcmp(sec, "plan"))
            continue;
        for (size_t k = 0; k < l->n; k++) {
            if (strcmp(l->kv[k].section, sec))
                continue;
            int known = mtb_workload_field(l->kv[k].key) >= 0;
            for (const char *const *e = entry_keys; *e; e++)
                known |= !strcmp(*e, l->kv[k].key);
            if (!known)
                mtb_die(2, "plan %s:%d: [%s] unknown key '%s' (accepted: service, workload, modes, variants, %s)", path,
                        l->lines[k], sec, l->kv[k].key, mtb_workload_keys());
        }
        /* each entry is resolved like the command line, with its values */
        struct mtb_opts eo = *o;
        eo.service = get(l, sec, "service");
        eo.workload = get(l, sec, "workload");
        eo.quiet = 1;
        eo.mode = NULL;
        if (!eo.service)
            mtb_die(2, "plan %s: [%s] has no service", path, sec);
        for (size_t k = 0; k < l->n; k++) {
            int f = mtb_workload_field(l->kv[k].key);
            char why[MTB_ERRLEN];
            /* the entry's values; duration and warmup only when not given for the whole plan */
            if (strcmp(l->kv[k].section, sec) || f < 0 || ((o->wset.set & (1u << f)) &&
                                                           (f == MTB_WL_duration || f == MTB_WL_warmup)))
                continue;
            if (mtb_workload_set_parse(&eo.wset, l->kv[k].key, l->kv[k].value, why, sizeof why) != 0)
                mtb_die(2, "plan %s:%d: [%s] %s", path, l->lines[k], sec, why);
        }
        mtb_cli_resolve(&eo);
        const struct mtb_mode *modes[8];
        size_t nm = 0;
        const char *ms = get(l, sec, "modes");
        char *copy = mtb_strdup(ms ? ms : "sync, async, asymm"), *save = NULL;
        for (char *t = strtok_r(copy, ", ", &save); t && nm < 8; t = strtok_r(NULL, ", ", &save)) {
            const struct mtb_mode *m = mtb_mode_find(t);
            if (!m) {
                char msg[MTB_ERRLEN];
                snprintf(msg, sizeof msg, "plan %s:%d: [%s] unknown mode '%s' (accepted: %s)", path,
                         line_of(l, sec, "modes"), sec, t, mtb_mode_names());
                free(copy); /* the fuzz target's mtb_die returns */
                mtb_die(2, "%s", msg);
            }
            if (strcmp(m->name, "off"))
                modes[nm++] = m;
        }
        free(copy);
        const char *vars[8];
        size_t nv = 0;
        char verr[MTB_ERRLEN];
        if ((v = get(l, sec, "variants")) && !(nv = mtb_plan_variants(eo.recipe, v, vars, 8, verr, sizeof verr)))
            mtb_die(2, "plan %s: [%s] variants: %s", path, sec, verr);
        mtb_plan_add(p, sec, eo.recipe, &eo.wl, modes, nm, vars, nv);
    }
}

void mtb_plan_free(struct mtb_plan *p)
{
    for (size_t i = 0; i < p->ncells; i++) {
        struct mtb_build *b = &p->cells[i].build;
        int shared = 0; /* cells of one service and variant share a build (plan_prepare) */
        for (size_t j = 0; j < i && !shared; j++)
            shared = b->dir && p->cells[j].build.dir == b->dir;
        if (!shared) {
            free(b->dir);
            free(b->binary);
            json_decref(b->info);
        }
    }
    free(p->cells);
    free(p->name);
    json_decref(p->skipped);
    json_decref(p->failed);
    struct mtb_plan_file *l = p->file;
    if (l) {
        for (size_t i = 0; i < l->n; i++) {
            free(l->kv[i].section);
            free(l->kv[i].key);
            free(l->kv[i].value);
        }
        for (size_t i = 0; i < l->nsec; i++)
            free(l->sections[i]);
        free(l->kv);
        free(l->lines);
        free(l->sections);
        free(l);
    }
    memset(p, 0, sizeof *p);
}

/* ---- running -------------------------------------------------------------- */

static void fmt_eta(char *buf, size_t n, double secs)
{
    int s = (int)(secs < 0 ? 0 : secs + 0.5);
    if (s >= 3600)
        snprintf(buf, n, "%dh%02dm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        snprintf(buf, n, "%dm%02ds", s / 60, s % 60);
    else
        snprintf(buf, n, "%ds", s);
}

/* Every build (one per service and variant) and, on a platform with named
 * kernels, every kernel, before the first run: the runs only start or boot. */
static void plan_prepare(struct mtb_plan *p, int force)
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
            mtb_die(1, "%s", err);
    }
    for (size_t i = 0; p->platform->named_kernels && i < p->ncells; i++) {
        const char *k = mtb_plan_cell_kernel(p, &p->cells[i]);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(mtb_plan_cell_kernel(p, &p->cells[j]), k);
        struct mtb_kernel kk;
        if (!seen && mtb_kernel_ensure(k, NULL, 0, 0, &kk, err, sizeof err) != 0)
            mtb_die(1, "%s", err);
        if (!seen)
            mtb_kernel_free(&kk);
    }
}

const char *mtb_plan_cell_kernel(const struct mtb_plan *p, const struct mtb_plan_cell *c)
{
    return c->kernel ? c->kernel : p->kernel;
}

/* DIR/.mtebench-running: written when a plan starts running into DIR and
 * locked (flock) while it runs; removed when it ends. Found unlocked, it is
 * the mark of a harness that was killed (or interrupted) there; found
 * locked, another harness is running into DIR now, which is refused.
 * @return the locked descriptor (kept open until mtb_plan_release). */
static char claim_old[512]; /* what the mark said before this harness claimed dir */

static int claim_dir(const char *dir)
{
    char *mp = mtb_asprintf("%s/.mtebench-running", dir);
    int fd = open(mp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        mtb_die(1, "cannot write %s: %s", mp, mtb_errdesc(errno));
    char old[512] = "";
    ssize_t n = read(fd, old, sizeof old - 1);
    old[n > 0 ? n : 0] = 0;
    old[strcspn(old, "\n")] = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        mtb_die(2, "%s is in use by another mtebench now (%s); give another --results", dir, old[0] ? old : "no details");
    if (old[0])
        fprintf(stderr, "mtebench: %s was left by an mtebench that did not finish (%s): its runs without a "
                        "record.json were cut short\n", dir, old);
    snprintf(claim_old, sizeof claim_old, "%s", old);
    char now[32], line[256];
    mtb_utc_iso(now, sizeof now);
    int len = snprintf(line, sizeof line, "pid %d, started %s\n", (int)getpid(), now);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len)
        mtb_die(1, "cannot write %s: %s", mp, mtb_errdesc(errno ? errno : ENOSPC));
    free(mp);
    return fd;
}

/* The entries of dir other than hidden ones (".mtebench-running", ".attempts"). */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Move dir's entries (not hidden ones) into dir/replaced-TIME/. */
static void move_aside(const char *dir)
{
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    char *to = mtb_asprintf("%s/replaced-%s", dir, ts);
    int mrc = mtb_mkdir_p(to);
    if (mrc)
        mtb_die(1, "cannot create %s: %s", to, mtb_errdesc(mrc));
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !strncmp(e->d_name, "replaced-", 9))
            continue;
        char *a = mtb_asprintf("%s/%s", dir, e->d_name), *b = mtb_asprintf("%s/%s", to, e->d_name);
        if (rename(a, b) != 0)
            mtb_die(1, "cannot move %s to %s: %s", a, b, mtb_errdesc(errno));
        free(a);
        free(b);
    }
    if (d)
        closedir(d);
    fprintf(stderr, "mtebench: --force: the runs that were in %s are now in %s\n", dir, to);
    free(to);
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

/* A results dir holding runs is used only as told: --resume (the same plan)
 * or --force (its runs moved aside); never mixed with a new attempt. */
static void check_dir(const struct mtb_plan *p, const char *dir, json_t *pj, int force, int claim)
{
    char why[2048] = "";
    char *pp = mtb_asprintf("%s/plan.json", dir);
    json_t *old = json_load_file(pp, 0, NULL);
    int n = dir_entries(dir);
    if (p->resume) {
        if (!old)
            snprintf(why, sizeof why, "--resume %s: no plan.json there: nothing to resume (a results directory of "
                     "bench or plan)", dir);
        else if (!json_equal(old, pj))
            snprintf(why, sizeof why, "--resume %s: it holds another plan (%s, %zu cells x %lld reps) than the one "
                     "given; give the same options or plan file, or --force without --resume to start afresh there",
                     dir, json_string_value(json_object_get(old, "name")), json_array_size(json_object_get(old, "cells")),
                     (long long)json_integer_value(json_object_get(old, "reps")));
    } else if (n && force) {
        move_aside(dir);
    } else if (n && old && json_equal(old, pj)) {
        snprintf(why, sizeof why, "%s already holds runs of this plan: --resume %s finishes it (ok runs kept, the "
                 "rest redone), --force starts afresh (its runs moved aside)", dir, dir);
    } else if (n) {
        snprintf(why, sizeof why, "%s holds %s: give another --results, or --force to move them aside and run there",
                 dir, old ? "the runs of another plan" : "other files");
    }
    if (why[0]) {
        unclaim(dir, claim);
        mtb_die(2, "%s", why);
    }
    json_decref(old);
    free(pp);
}

/* --resume: the ok record of rundir, or NULL after moving what is there
 * (a failed or cut-short attempt) to dir/.attempts/, so that the run is
 * redone in a fresh directory and no log is appended to. */
static json_t *resume_one(const char *dir, const char *rundir)
{
    char *rp = mtb_asprintf("%s/record.json", rundir);
    json_t *rec = json_load_file(rp, 0, NULL);
    free(rp);
    if (rec && json_is_string(json_object_get(rec, "status")) && !strcmp(json_string_value(json_object_get(rec, "status")), "ok"))
        return rec;
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
                mtb_die(1, "cannot move %s to %s: %s", rundir, to, mtb_errdesc(errno));
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
 * holds runs is used only as told (check_dir). */
static void plan_write_json(const struct mtb_plan *p, const char *dir, int force, int claim)
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
        json_object_set_new(cj, "load", mtb_workload_json(&p->cells[i].wl));
        json_array_append_new(cells, cj);
    }
    json_t *pj = json_pack("{s:s,s:s,s:s,s:s,s:I,s:b,s:o,s:O}", "schema", "mtebench-plan/1", "name", p->name,
                           "platform", p->platform->name, "kernel", p->kernel, "reps", (json_int_t)p->reps,
                           "emulated", mtb_platform_emulated(p->platform), "cells", cells, "skipped", p->skipped);
    /* a round trip, so that it compares equal to the file read back */
    char *pt = json_dumps(pj, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(pj);
    pj = json_loads(pt, 0, NULL);
    check_dir(p, dir, pj, force, claim);
    char *pp = mtb_asprintf("%s/plan.json", dir);
    int wrc = mtb_write_atomic(pp, pt, strlen(pt));
    if (wrc != 0)
        mtb_die(1, "cannot write %s: %s", pp, mtb_errdesc(wrc));
    free(pp);
    free(pt);
    json_decref(pj);
    size_t i;
    json_t *sk;
    json_array_foreach(p->skipped, i, sk) fprintf(stderr, "mtebench: plan %s: [%s] mode %s skipped: %s\n", p->name,
                                                  json_string_value(json_object_get(sk, "entry")),
                                                  json_string_value(json_object_get(sk, "mode")),
                                                  json_string_value(json_object_get(sk, "why")));
}

/* "-c8" / "-little" for a sweep point, "-tcma1" for a cell's own kernel */
static void cell_tag(const struct mtb_plan_cell *c, char *tag, size_t n)
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
}

/* One run of a cell: progress line, run directory, mtb_run_one. */
static json_t *run_cell(const struct mtb_plan *p, const struct mtb_plan_cell *c, long rep, int idx, int total,
                        const char *eta, const char *dir, json_t *env, int *failures, json_t *files)
{
    int tty = isatty(2);
    char cores[48] = "", kern[160] = "";
    if (c->wl.cores)
        snprintf(cores, sizeof cores, " %ld core%s%s%s", c->wl.cores, c->wl.cores == 1 ? "" : "s",
                 c->wl.core_type[0] ? " " : "", c->wl.core_type);
    if (c->kernel)
        snprintf(kern, sizeof kern, " kernel %s", c->kernel);
    char of[48];
    if (p->reps == MTB_REPS_AUTO) /* total and ETA are then upper bounds */
        snprintf(of, sizeof of, "pair %ld (auto)", rep);
    else
        snprintf(of, sizeof of, "rep %ld/%ld", rep, p->reps);
    fprintf(stderr, "%s[%d/%s%d] %s %s%s%s %s/%s %s, ETA %s%s ...%s", tty ? "\r\033[K" : "", idx,
            p->reps == MTB_REPS_AUTO ? "<=" : "", total, c->recipe->name, c->wl.name, cores, kern, c->variant,
            c->mode->name, of, p->reps == MTB_REPS_AUTO ? "<= " : "", eta, tty ? "" : "\n");
    char tag[200];
    cell_tag(c, tag, sizeof tag);
    char *rundir = mtb_asprintf("%s/%03d-%s-%s%s-%s-%s-rep%ld", dir, idx, c->recipe->name, c->wl.name, tag,
                                c->variant, c->mode->name, rep);
    json_t *kept = p->resume ? resume_one(dir, rundir) : NULL;
    if (kept) { /* --resume: an ok run of the earlier attempt */
        fprintf(stderr, "%s  kept from the earlier attempt: %s/record.json\n", tty ? "\r\033[K" : "", rundir);
        if (files)
            json_array_append_new(files, json_sprintf("%s/record.json", rundir));
        free(rundir);
        return kept;
    }
    struct mtb_run run = { .environment = env, .recipe = c->recipe, .variant = c->variant, .mode = c->mode,
                           .platform = p->platform, .kernel = mtb_plan_cell_kernel(p, c), .wl = &c->wl,
                           .build = &c->build, .machine = p->machine, .rep = (int)rep, .index = idx, .total = total,
                           .plan = p->name, .dir = rundir };
    json_t *rec = NULL;
    enum mtb_run_status st = (enum mtb_run_status)mtb_run_anywhere(&run, &rec);
    if (st == MTB_RUN_OK && tty)
        fprintf(stderr, " %.0f ops/s", mtb_record_num(rec, "ops_per_sec"));
    if (st != MTB_RUN_OK) {
        (*failures)++;
        mtb_plan_note_failed(p->failed, rundir, rec);
    }
    if (p->reps == MTB_REPS_AUTO && rec) {
        /* the level every look's interval is built at: the summary reports the overhead at it */
        json_object_set_new(rec, "sequential",
                            json_pack("{s:s,s:f,s:f,s:f,s:I,s:i}", "rule", "bonferroni over planned looks",
                                      "look_conf", p->seq.look_conf, "precision", p->seq.precision,
                                      "max_time_s", p->seq.max_time, "max_reps", (json_int_t)p->seq.max_reps,
                                      "looks", (int)p->seq.nlooks));
        char *rp = mtb_asprintf("%s/record.json", rundir);
        char *txt = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (txt)
            mtb_write_atomic(rp, txt, strlen(txt));
        free(txt);
        free(rp);
    }
    if (files)
        json_array_append_new(files, json_sprintf("%s/record.json", rundir));
    free(rundir);
    return rec;
}

/* REPS=auto: one repetition of every cell per call, the overheads' pairs out */
#define MAX_OVER 256
struct seq_ctx {
    struct mtb_plan *p;
    const char *dir;
    json_t *env, *records, *files;
    int *failures;
    int idx, total;
    double t0;
    size_t nover;
    size_t over[MAX_OVER][2];           /* baseline cell, tagged cell */
};

static int seq_pair(void *ctx, long rep, double *num, double *den)
{
    struct seq_ctx *x = ctx;
    struct mtb_plan *p = x->p;
    double *ops = mtb_calloc(p->ncells, sizeof *ops);
    for (size_t k = 0; k < p->ncells && !mtb_proc_interrupted; k++) {
        size_t ci = rep % 2 ? k : p->ncells - 1 - k;   /* AB BA ...: drift hits every cell alike */
        char eta[32];
        x->idx++;
        fmt_eta(eta, sizeof eta, (mtb_mono() - x->t0) / (x->idx > 1 ? x->idx - 1 : 1) * (x->total - x->idx + 1));
        json_t *rec = run_cell(p, &p->cells[ci], rep, x->idx, x->total, eta, x->dir, x->env, x->failures, x->files);
        ops[ci] = rec && !strcmp(mtb_jstr(rec, "status"), "ok") ? mtb_record_num(rec, "ops_per_sec") : NAN;
        json_array_append_new(x->records, rec);
    }
    if (isatty(2))
        fprintf(stderr, "\n");
    for (size_t i = 0; i < x->nover; i++) {
        num[i] = ops[x->over[i][0]];                   /* slowdown = baseline / tagged ops/s */
        den[i] = ops[x->over[i][1]];
    }
    free(ops);
    return mtb_proc_interrupted ? 1 : 0;
}

/* REPS=auto: pairs until seqstop.c's rule stops */
static void run_auto(struct mtb_plan *p, const char *dir, json_t *env, json_t *records, int *failures, json_t *files)
{
    struct seq_ctx x = { .p = p, .dir = dir, .env = env, .records = records, .files = files, .failures = failures };
    /* the overheads: each tagged cell against its baseline */
    for (size_t k = 0; k < p->ncells; k++)
        for (size_t j = 0; strcmp(p->cells[k].variant, "plain") && j < p->ncells; j++)
            if (!strcmp(p->cells[j].variant, "plain") && !strcmp(p->cells[j].entry, p->cells[k].entry) &&
                p->cells[j].wl.cores == p->cells[k].wl.cores &&
                !strcmp(mtb_plan_cell_kernel(p, &p->cells[j]), mtb_plan_cell_kernel(p, &p->cells[k])) &&
                x.nover < MAX_OVER) {
                x.over[x.nover][0] = j;
                x.over[x.nover][1] = k;
                x.nover++;
                break;
            }
    /* the looks are planned from the runs' own time (no overheads): more looks, if anything */
    double pair_s = 0;
    for (size_t k = 0; k < p->ncells; k++)
        pair_s += p->cells[k].wl.duration + p->cells[k].wl.warmup;
    mtb_seq_init(&p->seq, p->precision, p->max_time, p->max_reps, pair_s);
    long cap = p->seq.looks[p->seq.nlooks - 1];
    x.total = (int)(cap * (long)p->ncells);
    fprintf(stderr, "mtebench: REPS=auto: pairs until the overhead is within +-%.1f%% (95%%, %zu planned looks "
            "at %ld..%ld pairs, each at %.2f%%), at most %ld pairs or %g min of runs\n", 100 * p->precision,
            p->seq.nlooks, p->seq.looks[0], cap, 100 * p->seq.look_conf, cap, p->max_time / 60);
    x.t0 = mtb_mono();
    mtb_seq_run(&p->seq, x.nover, seq_pair, &x, stderr, &p->seq_out);
    p->reps_done = p->seq_out.pairs;
}

json_t *mtb_plan_run(struct mtb_plan *p, const char *dir, int force, int *failures, json_t *files)
{
    plan_prepare(p, force);
    int mrc = mtb_mkdir_p(dir);
    if (mrc != 0)
        mtb_die(1, "cannot create %s: %s", dir, mtb_errdesc(mrc));
    int claim = claim_dir(dir);
    plan_write_json(p, dir, force, claim);
    int total = (int)(p->reps * (long)p->ncells), idx = 0;
    double planned = 0;
    for (size_t k = 0; k < p->ncells; k++)
        planned += p->cells[k].wl.duration + p->cells[k].wl.warmup + (mtb_platform_emulated(p->platform) ? 8 : 3);
    planned *= (double)p->reps;
    /* provenance and the quiet-machine check, before any run (refused with --strict) */
    json_t *env = mtb_quiet_environment(p->machine, p->strict, 0);
    json_t *records = json_array();
    *failures = 0;
    double t0 = mtb_mono();
    if (p->reps == MTB_REPS_AUTO)
        run_auto(p, dir, env, records, failures, files);
    else
        p->reps_done = p->reps;
    for (long rep = 1; p->reps != MTB_REPS_AUTO && rep <= p->reps && !mtb_proc_interrupted; rep++) {
        for (size_t k = 0; k < p->ncells; k++) {
            /* alternate the order so that drift hits every cell alike */
            struct mtb_plan_cell *c = &p->cells[rep % 2 ? k : p->ncells - 1 - k];
            idx++;
            char eta[32];
            fmt_eta(eta, sizeof eta, idx > 1 ? (mtb_mono() - t0) / (idx - 1) * (total - idx + 1) : planned);
            json_array_append_new(records, run_cell(p, c, rep, idx, total, eta, dir, env, failures, files));
        }
    }
    if (isatty(2))
        fprintf(stderr, "\n");
    json_decref(env);
    mtb_quiet_restore();
    char *mp = mtb_asprintf("%s/.mtebench-running", dir);
    if (!mtb_proc_interrupted)
        unlink(mp); /* every run of the plan ended (ok or not) */
    free(mp);
    close(claim);
    return records;
}

void mtb_plan_print(const struct mtb_plan *p, FILE *f)
{
    if (p->reps == MTB_REPS_AUTO)
        fprintf(f, "plan %s on %s: %zu configurations x auto reps (6 to %ld pairs, until +-%g%%, at most %g min)\n",
                p->name, p->platform->name, p->ncells, p->max_reps, 100 * p->precision, p->max_time / 60);
    else
        fprintf(f, "plan %s on %s: %zu configurations x %ld reps = %ld runs\n", p->name, p->platform->name,
                p->ncells, p->reps, (long)p->ncells * p->reps);
    for (size_t i = 0; i < p->ncells; i++) {
        const struct mtb_workload *w = &p->cells[i].wl;
        char cores[384] = "", kern[160] = "";
        if (w->cores)
            snprintf(cores, sizeof cores, ", %ld core%s%s%s on CPUs %s", w->cores, w->cores == 1 ? "" : "s",
                     w->core_type[0] ? " " : "", w->core_type, w->svc_cpus);
        if (p->platform->named_kernels)
            snprintf(kern, sizeof kern, ", kernel %s", mtb_plan_cell_kernel(p, &p->cells[i]));
        fprintf(f, "  %-20s %-10s %-10s %s/%s mix %s, %ld conns, pipeline %ld, %g s%s%s\n", p->cells[i].entry,
                p->cells[i].recipe->name, w->name, p->cells[i].variant, p->cells[i].mode->name, w->mix, w->conns,
                w->pipeline, w->duration, cores, kern);
    }
    size_t k;
    json_t *sk;
    json_array_foreach(p->skipped, k, sk) fprintf(f, "  skipped: [%s] %s: %s\n",
                                                  json_string_value(json_object_get(sk, "entry")),
                                                  json_string_value(json_object_get(sk, "mode")),
                                                  json_string_value(json_object_get(sk, "why")));
}

struct mtb_plan_cell *mtb_plan_add_cell(struct mtb_plan *p, const char *entry, const struct mtb_recipe *r,
                                        const struct mtb_workload *wl, const char *variant,
                                        const struct mtb_mode *mode, const char *kernel)
{
    struct mtb_plan_cell *c = add_cell(p);
    c->entry = entry;
    c->recipe = r;
    c->wl = *wl;
    c->variant = variant;
    c->mode = mode;
    c->kernel = kernel;
    return c;
}

void mtb_plan_note_failed(json_t *failed, const char *rundir, const json_t *rec)
{
    const char *st = json_string_value(json_object_get(rec, "status"));
    const char *why = json_string_value(json_object_get(rec, "error"));
    char *recp = mtb_asprintf("%s/record.json", rundir);
    json_array_append_new(failed, json_pack("{s:s,s:s,s:s}", "record", recp, "status", st ? st : "error", "error",
                                            why ? why : "(no reason recorded)"));
    free(recp);
}

void mtb_plan_print_failed(const char *who, const json_t *failed, int total)
{
    size_t n = json_array_size(failed), i;
    if (!n)
        return;
    fprintf(stderr, "%s: %zu of %d runs did not finish cleanly (exit 1):\n", who, n, total);
    const json_t *f;
    json_array_foreach(failed, i, f) fprintf(stderr, "  %s: %s: %s\n", json_string_value(json_object_get(f, "record")),
                                             json_string_value(json_object_get(f, "status")),
                                             json_string_value(json_object_get(f, "error")));
}
