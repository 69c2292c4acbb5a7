/* plan_parse.c - a plan file (INI: [plan] and one section per entry, every
 * line checked, errors naming file:line) loaded into a plan's cells
 * (plan_cells.c). Running it is plan.c. */
#include "plan/plan.h"
#include "plan/plan_work.h"
#include "plan/plantime.h"
#include "lib/inifile.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        l->sections = mtb_realloc(l->sections, (l->nsec + 1) * sizeof *l->sections);
        l->sections[l->nsec++] = mtb_strdup(section);
    }
    if (!name)
        return 1;
    l->kv = mtb_realloc(l->kv, (l->n + 1) * sizeof *l->kv);
    l->lines = mtb_realloc(l->lines, (l->n + 1) * sizeof *l->lines);
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
static const char *const entry_keys[] = { "service", "workload", "modes", "variants", "slo", "confidence",
                                           "loads", "baseline_variant", "reps", NULL };

/* [plan]: reps, platform, cores, allocators, and the duration and warmup of every entry,
 * each unless given on the command line */
static int plan_globals(const struct mtb_plan_file *l, const char *path, struct mtb_opts *o, struct mtb_err *e)
{
    const char *v;
    if (!o->reps_given && (v = get(l, "plan", "reps"))) {
        if (!strcmp(v, "auto"))
            o->reps = MTB_REPS_AUTO;
        else if (mtb_parse_long(v, 1, 1000, &o->reps) != 0)
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [plan] reps '%s' is not auto or an integer from 1 to "
                               "1000", path, line_of(l, "plan", "reps"), v);
    }
    if (!o->platform && (v = get(l, "plan", "platform")))
        o->platform = v;
    if (!o->cores && (v = get(l, "plan", "cores")))
        o->cores = v;
    if (!o->allocator && (v = get(l, "plan", "allocators"))) /* every entry under each (allocator.h) */
        o->allocator = v;
    static const char *const globals[] = { "duration", "warmup" };
    for (int g = 0; g < 2; g++) {
        char why[MTB_ERRLEN];
        if (!(o->wset.set & (1u << mtb_workload_field(globals[g]))) && (v = get(l, "plan", globals[g])) &&
            mtb_workload_set_parse(&o->wset, globals[g], v, why, sizeof why) != 0)
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [plan] %s", path, line_of(l, "plan", globals[g]), why);
    }
    return 0;
}

/* an entry's modes (default sync, async, asymm; off is the baseline's): how many, or -1 with e */
static long entry_modes(const struct mtb_plan_file *l, const char *path, const char *sec,
                        const struct mtb_mode **modes, size_t max, int keep_off, struct mtb_err *e)
{
    size_t nm = 0;
    const char *ms = get(l, sec, "modes");
    char *copy = mtb_strdup(ms ? ms : "sync, async, asymm"), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t && nm < max; t = strtok_r(NULL, ", ", &save)) {
        const struct mtb_mode *m = mtb_mode_find(t);
        if (!m) {
            mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [%s] unknown mode '%s' (accepted: %s)", path,
                        line_of(l, sec, "modes"), sec, t, mtb_mode_names());
            free(copy);
            return -1;
        }
        if (keep_off || strcmp(m->name, "off"))
            modes[nm++] = m;
    }
    free(copy);
    return (long)nm;
}

/* An entry with an slo: a capacity search of its configurations, checked as
 * the command checks its options (plan_capacity.c), run after the matrix. */
static int capacity_entry(struct mtb_plan *p, const struct mtb_plan_file *l, const char *path, struct mtb_opts *eo,
                          const char *sec, struct mtb_err *e)
{
    eo->slo = get(l, sec, "slo");
    eo->loads = get(l, sec, "loads");
    eo->baseline_variant = get(l, sec, "baseline_variant");
    eo->variant = get(l, sec, "variants");
    /* the plan's reps are its matrix's: a search runs the entry's reps at a new rate, else 3 */
    const char *v = get(l, sec, "reps");
    eo->reps_given = v != NULL;
    if (v && mtb_parse_long(v, 1, MTB_CAP_MAXREP - 2, &eo->reps) != 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [%s] reps '%s' is not a number of runs at a new rate from "
                           "1 to %d", path, line_of(l, sec, "reps"), sec, v, MTB_CAP_MAXREP - 2);
    v = get(l, sec, "confidence");
    char why[MTB_ERRLEN];
    if (v && mtb_opts_fraction(v, 0.8, 0.999, &eo->confidence) != 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [%s] confidence '%s' is not a level from 80%% to 99.9%% "
                           "(e.g. 95%% or 0.99)", path, line_of(l, sec, "confidence"), sec, v);
    struct mtb_slo slo;
    if (mtb_plan_capacity_check(eo, &slo, why, sizeof why) != 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: [%s] %s", path, sec, why);
    const char *vars[8];
    if (eo->variant && !mtb_plan_variants(eo->recipe, eo->variant, vars, 8, why, sizeof why))
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: [%s] variants: %s", path, sec, why);
    if (eo->baseline_variant && mtb_plan_variants(eo->recipe, eo->baseline_variant, vars, 1, why, sizeof why) != 1)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: [%s] baseline_variant: %s", path, sec, why);
    p->caps = mtb_realloc(p->caps, (p->ncaps + 1) * sizeof *p->caps);
    struct mtb_plan_capacity *c = &p->caps[p->ncaps++];
    memset(c, 0, sizeof *c);
    c->entry = sec;
    c->o = *eo;
    long nm = entry_modes(l, path, sec, c->modes, 8, 1, e);
    if (nm < 0)
        return -1;
    c->nmodes = (size_t)nm;
    if (!c->nmodes)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: [%s] no modes", path, sec);
    return 0;
}

/* One entry [sec]: its keys checked, resolved like the command line with
 * its values, its cells added. */
static int load_entry(struct mtb_plan *p, const struct mtb_plan_file *l, const char *path,
                      const struct mtb_opts *o, const char *sec, struct mtb_err *e)
{
    for (size_t k = 0; k < l->n; k++) {
        if (strcmp(l->kv[k].section, sec))
            continue;
        int known = mtb_workload_field(l->kv[k].key) >= 0;
        for (const char *const *ek = entry_keys; *ek; ek++)
            known |= !strcmp(*ek, l->kv[k].key);
        if (!known)
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [%s] unknown key '%s' (accepted: service, workload, "
                               "modes, variants, slo, confidence, loads, baseline_variant, reps, %s)", path,
                               l->lines[k], sec, l->kv[k].key, mtb_workload_keys());
    }
    struct mtb_opts eo = *o;
    eo.service = get(l, sec, "service");
    eo.workload = get(l, sec, "workload");
    eo.quiet = 1;
    eo.mode = NULL;
    if (!eo.service)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: [%s] has no service", path, sec);
    for (size_t k = 0; k < l->n; k++) {
        int f = mtb_workload_field(l->kv[k].key);
        char why[MTB_ERRLEN];
        /* the entry's values; duration and warmup only when not given for the whole plan */
        if (strcmp(l->kv[k].section, sec) || f < 0 || ((o->wset.set & (1u << f)) &&
                                                       (f == MTB_WL_duration || f == MTB_WL_warmup)))
            continue;
        if (mtb_workload_set_parse(&eo.wset, l->kv[k].key, l->kv[k].value, why, sizeof why) != 0)
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [%s] %s", path, l->lines[k], sec, why);
    }
    if (mtb_opts_resolve(&eo, e) != 0)
        return mtb_err_prefix(e, "plan %s: [%s]", path, sec);
    if (get(l, sec, "slo"))
        return capacity_entry(p, l, path, &eo, sec, e);
    static const char *const cap_keys[] = { "confidence", "loads", "baseline_variant", "reps" };
    for (int k = 0; k < 4; k++)
        if (get(l, sec, cap_keys[k]))
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [%s] %s is a key of an entry with an slo (a capacity "
                               "search)", path, line_of(l, sec, cap_keys[k]), sec, cap_keys[k]);
    const struct mtb_mode *modes[8];
    long nm = entry_modes(l, path, sec, modes, 8, 0, e);
    if (nm < 0)
        return -1;
    const char *vars[8], *v;
    size_t nv = 0;
    char verr[MTB_ERRLEN];
    if ((v = get(l, sec, "variants")) && !(nv = mtb_plan_variants(eo.recipe, v, vars, 8, verr, sizeof verr)))
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: [%s] variants: %s", path, sec, verr);
    struct mtb_plan_entry en = { sec, eo.recipe, &eo.wl, modes, (size_t)nm, vars, nv };
    if (mtb_plan_add(p, &en, e) != 0)
        return mtb_err_prefix(e, "plan %s: [%s]", path, sec);
    return 0;
}

int mtb_plan_load(struct mtb_plan *p, const char *path, struct mtb_opts *o, struct mtb_err *e)
{
    /* p owns the file's list from the start: a load cut short is freed with p */
    memset(p, 0, sizeof *p);
    struct mtb_plan_file *l = p->file = mtb_calloc(1, sizeof *p->file);
    int rc = mtb_inifile_parse(path, &l->ini, on_kv, l);
    if (rc == -1)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: cannot read it: %s", path, strerror(errno));
    if (rc < 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: cannot read it", path);
    if (rc > 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: malformed line", path, rc);
    if (plan_globals(l, path, o, e) != 0)
        return -1;
    /* resolve the platform with the first entry's service */
    const char *first = NULL;
    for (size_t i = 0; i < l->nsec && !first; i++)
        if (strcmp(l->sections[i], "plan"))
            first = l->sections[i];
    if (!first)
        return mtb_err_set(e, MTB_ERR_INPUT, "plan %s: no entries (sections other than [plan])", path);
    o->service = get(l, first, "service");
    o->mode = NULL;
    if (mtb_opts_resolve(o, e) != 0)
        return mtb_err_prefix(e, "plan %s: [%s]", path, first);
    const char *name = get(l, "plan", "name");
    if (!name) {
        const char *b = strrchr(path, '/');
        name = b ? b + 1 : path;
    }
    mtb_plan_init(p, name, o);
    p->file = l;
    const char *cv = get(l, "plan", "count");
    if (cv) {
        p->count = !strcmp(cv, "no") ? MTB_PLAN_COUNT_NO : !strcmp(cv, "yes") ? MTB_PLAN_COUNT_YES
                 : !strcmp(cv, "only") ? MTB_PLAN_COUNT_ONLY : -1;
        if (p->count < 0)
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [plan] count '%s': no, yes (each configuration's MTE "
                               "work counted on vm before the timed runs) or only (counted, no timed runs)", path,
                               line_of(l, "plan", "count"), cv);
        char why[MTB_ERRLEN];
        if (p->count != MTB_PLAN_COUNT_NO && !mtb_work_countable(why, sizeof why))
            return mtb_err_set(e, MTB_ERR_INPUT, "plan %s:%d: [plan] count = %s: MTE's work cannot be counted here: %s",
                               path, line_of(l, "plan", "count"), cv, why);
    }
    for (size_t i = 0; i < l->nsec; i++)
        if (strcmp(l->sections[i], "plan") && load_entry(p, l, path, o, l->sections[i], e) != 0)
            return -1;
    return 0;
}

void mtb_plan_file_free(struct mtb_plan_file *l)
{
    if (!l)
        return;
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
