/* plan_parse.c - making a plan (see plan.h): its cells from entries (the
 * baseline and measured cells of each, at each point of the core sweep),
 * from a plan file (INI: [plan] and one section per entry, every line
 * checked) or one by one (compare-kernels' kernel axis); printed for
 * --dry-run; freed. Running it is plan.c. */
#include "plan/plan.h"
#include "plan/plantime.h"
#include "lib/inifile.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* [plan]: reps, platform, cores, and the duration and warmup of every entry,
 * each unless given on the command line */
static void plan_globals(const struct mtb_plan_file *l, const char *path, struct mtb_opts *o)
{
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
    static const char *const globals[] = { "duration", "warmup" };
    for (int g = 0; g < 2; g++) {
        char why[MTB_ERRLEN];
        if (!(o->wset.set & (1u << mtb_workload_field(globals[g]))) && (v = get(l, "plan", globals[g])) &&
            mtb_workload_set_parse(&o->wset, globals[g], v, why, sizeof why) != 0)
            mtb_die(2, "plan %s:%d: [plan] %s", path, line_of(l, "plan", globals[g]), why);
    }
}

/* an entry's modes (default sync, async, asymm; off is the baseline's) */
static size_t entry_modes(const struct mtb_plan_file *l, const char *path, const char *sec,
                          const struct mtb_mode **modes, size_t max)
{
    size_t nm = 0;
    const char *ms = get(l, sec, "modes");
    char *copy = mtb_strdup(ms ? ms : "sync, async, asymm"), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t && nm < max; t = strtok_r(NULL, ", ", &save)) {
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
    return nm;
}

/* One entry [sec]: its keys checked, resolved like the command line with
 * its values, its cells added. */
static void load_entry(struct mtb_plan *p, const struct mtb_plan_file *l, const char *path,
                       const struct mtb_opts *o, const char *sec)
{
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
    mtb_opts_resolve(&eo);
    const struct mtb_mode *modes[8];
    size_t nm = entry_modes(l, path, sec, modes, 8);
    const char *vars[8], *v;
    size_t nv = 0;
    char verr[MTB_ERRLEN];
    if ((v = get(l, sec, "variants")) && !(nv = mtb_plan_variants(eo.recipe, v, vars, 8, verr, sizeof verr)))
        mtb_die(2, "plan %s: [%s] variants: %s", path, sec, verr);
    mtb_plan_add(p, sec, eo.recipe, &eo.wl, modes, nm, vars, nv);
}

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
    plan_globals(l, path, o);
    /* resolve the platform with the first entry's service */
    const char *first = NULL;
    for (size_t i = 0; i < l->nsec && !first; i++)
        if (strcmp(l->sections[i], "plan"))
            first = l->sections[i];
    if (!first)
        mtb_die(2, "plan %s: no entries (sections other than [plan])", path);
    o->service = get(l, first, "service");
    o->mode = NULL;
    mtb_opts_resolve(o);
    const char *name = get(l, "plan", "name");
    if (!name) {
        const char *b = strrchr(path, '/');
        name = b ? b + 1 : path;
    }
    mtb_plan_init(p, name, o);
    p->file = l;
    for (size_t i = 0; i < l->nsec; i++)
        if (strcmp(l->sections[i], "plan"))
            load_entry(p, l, path, o, l->sections[i]);
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
    json_decref(p->runlen);
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


/* ---- dry run --------------------------------------------------------------- */

void mtb_plan_print(const struct mtb_plan *p, FILE *f)
{
    if (p->reps == MTB_REPS_AUTO)
        fprintf(f, "plan %s on %s: %zu configurations x auto reps (%d to %ld pairs, until +-%g%%, at most %g min)\n",
                p->name, p->platform->name, p->ncells, MTB_SEQ_FIRST_LOOK, p->max_reps, 100 * p->precision, p->max_time / 60);
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
    struct mtb_time_cell *tc = mtb_calloc(p->ncells + 1, sizeof *tc);
    for (size_t i = 0; i < p->ncells; i++)
        tc[i] = (struct mtb_time_cell){ p->cells[i].recipe->name, p->cells[i].wl.duration + p->cells[i].wl.warmup };
    mtb_time_print(f, p->platform->name, tc, p->ncells, p->reps, p->max_reps, p->max_time);
    free(tc);
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
