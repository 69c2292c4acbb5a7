/* plan_cells.c - a plan's cells (see plan.h): made from entries (the
 * baseline and measured cells of each, at each point of the core sweep) or
 * one by one (compare-kernels' kernel axis), printed for --dry-run, freed.
 * Plan files: plan_parse.c; running a plan: plan.c. */
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
    p->nallocs = o->nallocs ? o->nallocs : 1;
    for (size_t i = 0; i < p->nallocs; i++)
        p->allocs[i] = o->nallocs ? o->allocs[i] : mtb_allocator_default();
    p->strict = o->strict;
    p->skipped = NULL;
    p->nskipped = 0;
    p->failed = NULL;
    p->nfailed = 0;
    p->resume = o->resume;
}

/* The points of the core sweep; 0 when there is none. */
static int sweep_points(const struct mtb_plan *p, struct mtb_workload *pts, struct mtb_err *e)
{
    const struct mtb_machine *m = p->machine;
    int counts[MTB_MAX_CPUS], n = 0;
    if (p->cores) {
        n = mtb_cpulist_parse(p->cores, counts, MTB_MAX_CPUS);
        if (n <= 0 || n > MTB_MAX_SWEEP)
            return mtb_err_set(e, MTB_ERR_INPUT, "invalid CORES '%s' (accepted: core counts such as 8,64,128)",
                               p->cores);
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
            return mtb_err_set(e, MTB_ERR_INPUT,
                               "CORES: %d server cores asked for, but machine profile %s sweeps over %d CPUs (%s)%s",
                               counts[i], m->name, m->nswp, l,
                               m->path[0] ? "" : "; choose a profile with MACHINE= (see configs/machines/)");
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
    p->cells = mtb_realloc(p->cells, (p->ncells + 1) * sizeof *p->cells);
    struct mtb_plan_cell *c = &p->cells[p->ncells++];
    memset(c, 0, sizeof *c);
    return c;
}

struct measured {
    const char *const *v;
    size_t n;
};

/* the cells of entry en at workload wl (a point of a core sweep, or the
 * entry's own): each allocator's baseline and measured variants */
static void add_point(struct mtb_plan *p, const struct mtb_plan_entry *en, const struct mtb_workload *wl,
                      struct measured mv);
static void add_allocator_point(struct mtb_plan *p, const struct mtb_plan_entry *en, const struct mtb_workload *wl,
                                struct measured mv, const struct mtb_allocator *alloc, int noted);

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

int mtb_plan_add(struct mtb_plan *p, const struct mtb_plan_entry *en, struct mtb_err *e)
{
    static const char *const tagged[] = { "tagged" };
    struct measured mv = { en->variants && en->nvariants ? en->variants : tagged,
                           en->variants && en->nvariants ? en->nvariants : 1 };
    struct mtb_workload pts[MTB_MAX_SWEEP];
    int n = sweep_points(p, pts, e);
    if (n < 0)
        return -1;
    if (n == 0) {
        add_point(p, en, en->wl, mv);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        struct mtb_workload w = *en->wl;
        w.cores = pts[i].cores;
        memcpy(w.svc_cpus, pts[i].svc_cpus, sizeof w.svc_cpus);
        memcpy(w.core_type, pts[i].core_type, sizeof w.core_type);
        w.service_threads = w.cores; /* memcached -t, nginx worker_processes; pgbench and db_bench in their drivers */
        add_point(p, en, &w, mv);
    }
    return 0;
}

static void add_point(struct mtb_plan *p, const struct mtb_plan_entry *en, const struct mtb_workload *wl,
                      struct measured mv)
{
    size_t skipped_before = p->nskipped;
    for (size_t a = 0; a < p->nallocs; a++)
        add_allocator_point(p, en, wl, mv, p->allocs[a], skipped_before || a);
}

static void add_allocator_point(struct mtb_plan *p, const struct mtb_plan_entry *en, const struct mtb_workload *wl,
                                struct measured mv, const struct mtb_allocator *alloc, int noted)
{
    const char *entry = en->name;
    const struct mtb_recipe *r = en->recipe;
    const struct mtb_mode *const *modes = en->modes;
    size_t nmodes = en->nmodes;
    struct mtb_plan_cell *b = add_cell(p);
    b->entry = entry;
    b->recipe = r;
    b->wl = *wl;
    b->variant = "plain";
    b->mode = mtb_mode_find("off");
    b->allocator = alloc;
    for (size_t i = 0; i < nmodes; i++) {
        char why[MTB_ERRLEN];
        if (!p->platform->mode_ok(modes[i], why, sizeof why)) {
            if (noted && (wl->cores || alloc != p->allocs[0])) /* one note per mode, not per sweep point */
                continue;
            p->skipped = mtb_realloc(p->skipped, (p->nskipped + 1) * sizeof *p->skipped);
            p->skipped[p->nskipped++] = (struct mtb_plan_skip){ mtb_strdup(entry), mtb_strdup(why), modes[i]->name };
            continue;
        }
        for (size_t v = 0; v < mv.n; v++) {
            struct mtb_plan_cell *c = add_cell(p);
            c->entry = entry;
            c->recipe = r;
            c->wl = *wl;
            c->variant = mv.v[v];
            c->mode = modes[i];
            c->allocator = alloc;
        }
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
    free(p->caps);
    free(p->name);
    for (size_t i = 0; i < p->nskipped; i++)
        free(p->skipped[i].entry), free(p->skipped[i].why);
    free(p->skipped);
    for (size_t i = 0; i < p->nfailed; i++)
        free(p->failed[i].record), free(p->failed[i].status), free(p->failed[i].error);
    free(p->failed);
    json_decref(p->runlen);
    json_decref(p->work);
    json_decref(p->work_files);
    mtb_plan_file_free(p->file);
    memset(p, 0, sizeof *p);
}


void mtb_plan_print(const struct mtb_plan *p, FILE *f)
{
    if (!p->ncells)
        fprintf(f, "plan %s on %s: %zu capacity search%s\n", p->name, p->platform->name, p->ncaps,
                p->ncaps == 1 ? "" : "es");
    else if (p->reps == MTB_REPS_AUTO)
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
        char lab[128];
        fprintf(f, "  %-20s %-10s %-10s %s/%s mix %s, %ld conns, pipeline %ld, %g s%s%s\n", p->cells[i].entry,
                p->cells[i].recipe->name, w->name, mtb_variant_label(p->cells[i].variant, p->cells[i].allocator, lab, sizeof lab),
                p->cells[i].mode->name, w->mix, w->conns,
                w->pipeline, w->duration, cores, kern);
    }
    if (p->count != MTB_PLAN_COUNT_NO)
        fprintf(f, "  count = %s: each configuration's MTE work counted once on vm%s (docs/COUNTING.md)\n",
                p->count == MTB_PLAN_COUNT_ONLY ? "only" : "yes",
                p->count == MTB_PLAN_COUNT_ONLY ? "; the runs above are not run" : ", before the runs above");
    for (size_t k = 0; k < p->nskipped; k++)
        fprintf(f, "  skipped: [%s] %s: %s\n", p->skipped[k].entry, p->skipped[k].mode, p->skipped[k].why);
    for (size_t i = 0; i < p->ncaps; i++) {
        const struct mtb_plan_capacity *c = &p->caps[i];
        fprintf(f, "  %-20s %-10s %-10s capacity at %s: baseline %s/off against %s in", c->entry, c->o.recipe->name,
                c->o.wl.name, c->o.slo, c->o.baseline_variant ? c->o.baseline_variant : "plain",
                c->o.variant ? c->o.variant : "tagged");
        for (size_t m = 0; m < c->nmodes; m++)
            fprintf(f, "%s %s", m ? "," : "", c->modes[m]->name);
        fprintf(f, ", %s arrivals, %g s runs (mtebench capacity --dry-run gives the time)\n", c->o.wl.arrival,
                c->o.wl.duration);
    }
    if (!p->ncells)
        return;
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
    c->allocator = p->nallocs ? p->allocs[0] : mtb_allocator_default();
    c->kernel = kernel;
    return c;
}
