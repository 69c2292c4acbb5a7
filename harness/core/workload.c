/* workload.c - see workload.h */
#include "core/workload.h"
#include "loadgen/workload.h"
#include "core/recipe.h"
#include "lib/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

enum kind { STR, LONG, DUR, RATE };

struct field {
    const char *key, *option, *json, *rsec, *rkey, *dflt, *mtload, *help;
    enum kind kind;
    enum mtb_wl_rec rec;
    long lo, hi;
    size_t off;
};

static const struct field fields[] = {
#define X(f, k, key, opt, json, rec, rsec, rkey, dflt, lo, hi, mtl, meta, mk, help)                              \
    { key, opt, json, rsec, rkey, dflt, mtl, help, k, MTB_WL_##rec, lo, hi, offsetof(struct mtb_workload, f) },
    MTB_WORKLOAD_FIELDS(X)
#undef X
};

#define FIELD(w, f, T) ((T *)((char *)(w) + (f)->off))
#define CFIELD(w, f, T) ((const T *)((const char *)(w) + (f)->off))

/* SET:GET as two counts of at most a million each (digits only: no sign,
 * no overflow of their sum, which a 19-digit count once gave) */
int mtb_workload_valid_mix(const char *s)
{
    if (!s || strspn(s, "0123456789:") != strlen(s))
        return 0;
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || !colon[1] || strchr(colon + 1, ':'))
        return 0;
    size_t la = (size_t)(colon - s), lb = strlen(colon + 1);
    if (la > 7 || lb > 7)
        return 0;
    long a = strtol(s, NULL, 10), b = strtol(colon + 1, NULL, 10);
    return a <= 1000000 && b <= 1000000 && a + b > 0;
}

int mtb_workload_field(const char *key)
{
    for (int i = 0; i < MTB_WL_NFIELDS; i++)
        if (key && (!strcmp(key, fields[i].key) || !strcmp(key, fields[i].option)))
            return i;
    return -1;
}

const char *mtb_workload_field_key(int i) { return i >= 0 && i < MTB_WL_NFIELDS ? fields[i].key : "?"; }

static int parse_field(const struct field *f, struct mtb_workload *w, const char *value, char *why, size_t n);

int mtb_workload_is_default(const struct mtb_workload *w, int i)
{
    const struct field *f = &fields[i];
    struct mtb_workload d;
    mtb_workload_init(&d); /* a rate's default is 0: the closed loop */
    switch (f->kind) {
    case STR: return !strcmp(CFIELD(w, f, char), CFIELD(&d, f, char));
    case LONG: return *CFIELD(w, f, long) == *CFIELD(&d, f, long);
    default: return *CFIELD(w, f, double) == *CFIELD(&d, f, double);
    }
}

const char *mtb_workload_field_text(const struct mtb_workload *w, int i, char *buf, size_t n)
{
    const struct field *f = &fields[i];
    switch (f->kind) {
    case STR: snprintf(buf, n, "%s", CFIELD(w, f, char)); break;
    case LONG: snprintf(buf, n, "%ld", *CFIELD(w, f, long)); break;
    case DUR: snprintf(buf, n, "%gs", *CFIELD(w, f, double)); break;
    case RATE: snprintf(buf, n, "%g", *CFIELD(w, f, double)); break;
    }
    return buf;
}

const char *mtb_workload_keys(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < MTB_WL_NFIELDS; i++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", fields[i].key);
    return buf;
}

/* Parse one value of field f into w. @return 0, or -1 with why. */
static int parse_field(const struct field *f, struct mtb_workload *w, const char *value, char *why, size_t n)
{
    switch (f->kind) {
    case STR:
        if (!strcmp(f->key, "mix") && !mtb_workload_valid_mix(value)) {
            snprintf(why, n, "invalid %s '%s' (accepted: SET:GET ratio such as 1:10, 1:1, 5:1)", f->key, value);
            return -1;
        }
        if (!strcmp(f->key, "arrival") && strcmp(value, "uniform") && strcmp(value, "poisson")) {
            snprintf(why, n, "invalid %s '%s' (accepted: uniform, poisson)", f->key, value);
            return -1;
        }
        if (!*value || strlen(value) >= 64) {
            snprintf(why, n, "invalid %s '%s' (accepted: %s, 1 to 63 characters)", f->key, value, f->help);
            return -1;
        }
        if (!strcmp(f->key, "value_size")) { /* what mtload accepts, checked here rather than in every run */
            struct mtl_workload tmp;
            memset(&tmp, 0, sizeof tmp);
            if (mtl_workload_set_value_size(&tmp, value) != 0) {
                snprintf(why, n, "invalid %s '%s' (accepted: N, MIN-MAX or N:W,N:W... with sizes in 1..%u bytes)",
                         f->key, value, MTL_VALUE_MAX);
                return -1;
            }
        }
        snprintf(FIELD(w, f, char), 64, "%s", value);
        return 0;
    case LONG:
        if (mtb_parse_long(value, f->lo, f->hi, FIELD(w, f, long)) != 0) {
            snprintf(why, n, "invalid %s '%s' (accepted: an integer from %ld to %ld)", f->key, value, f->lo, f->hi);
            return -1;
        }
        return 0;
    case DUR: {
        double *d = FIELD(w, f, double);
        if (mtb_parse_duration(value, d) != 0 || *d * 1000 < f->lo || (f->hi > 0 && *d * 1000 > f->hi)) {
            char range[64] = "";
            if (f->lo > 0 || f->hi > 0)
                snprintf(range, sizeof range, f->hi > 0 ? "; %ldms to %ldms" : "; at least %ldms", f->lo, f->hi);
            snprintf(why, n, "invalid %s '%s' (accepted: a duration such as 30, 30s, 500ms, 2m%s)", f->key, value,
                     range);
            return -1;
        }
        return 0;
    }
    case RATE: {
        char *end;
        double v = strtod(value, &end);
        if (end == value || *end || !(v > 0) || !isfinite(v)) { /* "nan", "inf" too */
            snprintf(why, n, "invalid %s '%s' (accepted: a positive number of requests per second)", f->key, value);
            return -1;
        }
        *FIELD(w, f, double) = v;
        return 0;
    }
    }
    return -1;
}

int mtb_workload_set_parse(struct mtb_workload_set *s, const char *key, const char *value, char *why, size_t n)
{
    int i = mtb_workload_field(key);
    if (i < 0) {
        snprintf(why, n, "unknown workload key '%s' (accepted: %s)", key, mtb_workload_keys());
        return -2;
    }
    if (parse_field(&fields[i], &s->v, value, why, n) != 0)
        return -1;
    s->set |= 1u << i;
    return 0;
}

void mtb_workload_set_apply(const struct mtb_workload_set *s, struct mtb_workload *w)
{
    for (int i = 0; i < MTB_WL_NFIELDS; i++) {
        if (!(s->set & (1u << i)))
            continue;
        const struct field *f = &fields[i];
        if (f->kind == STR)
            memcpy(FIELD(w, f, char), CFIELD(&s->v, f, char), 64);
        else if (f->kind == LONG)
            *FIELD(w, f, long) = *CFIELD(&s->v, f, long);
        else
            *FIELD(w, f, double) = *CFIELD(&s->v, f, double);
    }
}

static const char *wl_get(const struct mtb_recipe *r, const char *name, const char *key)
{
    char sec[96];
    snprintf(sec, sizeof sec, "workload %s", name);
    const char *v = strcmp(name, "default") ? mtb_recipe_get(r, sec, key) : NULL;
    return v ? v : mtb_recipe_get(r, "workload", key);
}

const char *mtb_workload_param(const struct mtb_workload *w, const char *key)
{
    const char *o = mtb_strmap_get(w->params, key);
    return o ? o : wl_get(w->recipe, w->name, key);
}

/* "default, ro, rw": the recipe's workloads (heap string) */
static char *mtb_workload_names(const struct mtb_recipe *r)
{
    char *out = mtb_strdup("default");
    for (size_t i = 0; i < r->nkv; i++) {
        const char *s = r->kv[i].section;
        if (strncmp(s, "workload ", 9) != 0)
            continue;
        char *needle = mtb_asprintf(", %s,", s + 9), *hay = mtb_asprintf(", %s,", out);
        if (!strstr(hay, needle)) {
            char *n = mtb_asprintf("%s, %s", out, s + 9);
            free(out);
            out = n;
        }
        free(needle);
        free(hay);
    }
    return out;
}

void mtb_workload_init(struct mtb_workload *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "default");
    char why[MTB_ERRLEN];
    for (int i = 0; i < MTB_WL_NFIELDS; i++)
        if (fields[i].kind != RATE)
            parse_field(&fields[i], w, fields[i].dflt, why, sizeof why);
}

int mtb_workload_defaults(const struct mtb_recipe *r, const char *name, struct mtb_workload *w, struct mtb_err *e)
{
    memset(w, 0, sizeof *w);
    w->recipe = r;
    if (!name || !*name)
        name = "default";
    char sec[96];
    snprintf(sec, sizeof sec, "workload %s", name);
    int known = !strcmp(name, "default");
    for (size_t i = 0; i < r->nkv && !known; i++)
        known = !strcmp(r->kv[i].section, sec);
    if (!known) {
        char *names = mtb_workload_names(r);
        mtb_err_set(e, MTB_ERR_INPUT, "invalid WORKLOAD '%s' (accepted: %s)", name, names);
        free(names);
        return -1;
    }
    snprintf(w->name, sizeof w->name, "%s", name);
    for (int i = 0; i < MTB_WL_NFIELDS; i++) {
        const struct field *f = &fields[i];
        const char *v = !strcmp(f->rsec, "workload") ? wl_get(r, name, f->rkey) : mtb_recipe_get(r, f->rsec, f->rkey);
        char why[MTB_ERRLEN];
        if (v && parse_field(f, w, v, why, sizeof why) != 0)
            return mtb_err_set(e, MTB_ERR_INPUT, "%s: [%s] %s", r->path,
                               !strcmp(f->rsec, "workload") && mtb_recipe_get(r, sec, f->rkey) ? sec
                               : !strcmp(f->rsec, "workload")                                 ? "workload"
                                                                                              : f->rsec,
                               why);
        if (!v && f->kind != RATE)
            parse_field(f, w, f->dflt, why, sizeof why);
    }
    return 0;
}

json_t *mtb_workload_params(const struct mtb_workload *w)
{
    json_t *params = json_object();
    const struct mtb_recipe *r = w->recipe;
    char sec[96];
    snprintf(sec, sizeof sec, "workload %s", w->name);
    for (size_t i = 0; r && i < r->nkv; i++)
        if (!strcmp(r->kv[i].section, "workload") || !strcmp(r->kv[i].section, sec))
            json_object_set_new(params, r->kv[i].key, json_string(r->kv[i].value));
    for (size_t i = 0; w->params && i < w->params->n; i++)
        json_object_set_new(params, w->params->kv[i].key, json_string(w->params->kv[i].value));
    return params;
}

json_t *mtb_workload_json(const struct mtb_workload *w)
{
    json_t *params = mtb_workload_params(w);
    json_t *o = json_pack("{s:s}", "name", w->name);
    for (int i = 0; i < MTB_WL_NFIELDS; i++) {
        const struct field *f = &fields[i];
        if (f->rec == MTB_WL_NEVER || (f->rec == MTB_WL_NONDEFAULT && mtb_workload_is_default(w, i)))
            continue; /* a run's own draw (the seed); a field at its default keeps the keys of series recorded before it */
        if (i == MTB_WL_arrival && !(w->rate > 0))
            continue; /* a closed loop has no arrivals */
        json_object_set_new(o, f->json, f->kind == STR    ? json_string(CFIELD(w, f, char))
                                        : f->kind == LONG ? json_integer(*CFIELD(w, f, long))
                                                          : json_real(*CFIELD(w, f, double)));
    }
    json_object_set_new(o, "params", params);
    if (w->cores > 0) { /* a point of a core sweep (absent otherwise: series keys stay as they were) */
        json_object_set_new(o, "cores", json_integer(w->cores));
        json_object_set_new(o, "service_cpus", json_string(w->svc_cpus));
        if (w->core_type[0])
            json_object_set_new(o, "core_type", json_string(w->core_type));
    }
    return o;
}

/* --NAME=value of field f (durations with "s"; a rate of 0 is left out) */
static void push_flag(struct mtb_argv *a, const char *name, const struct field *f, const struct mtb_workload *w)
{
    switch (f->kind) {
    case STR: mtb_argv_pushf(a, "--%s=%s", name, CFIELD(w, f, char)); break;
    case LONG: mtb_argv_pushf(a, "--%s=%ld", name, *CFIELD(w, f, long)); break;
    case DUR: mtb_argv_pushf(a, "--%s=%gs", name, *CFIELD(w, f, double)); break;
    case RATE:
        if (*CFIELD(w, f, double) > 0)
            mtb_argv_pushf(a, "--%s=%g", name, *CFIELD(w, f, double));
        break;
    }
}

void mtb_workload_args(const struct mtb_workload *w, struct mtb_argv *a)
{
    if (w->name[0])
        mtb_argv_pushf(a, "--workload=%s", w->name);
    for (int i = 0; i < MTB_WL_NFIELDS; i++)
        push_flag(a, fields[i].option, &fields[i], w);
}

void mtb_workload_mtload_flags(const struct mtb_workload *w, int measure, struct mtb_argv *a)
{
    static const unsigned dataset = 1u << MTB_WL_keys | 1u << MTB_WL_value_size | 1u << MTB_WL_threads |
                                    1u << MTB_WL_conns;
    for (int i = 0; i < MTB_WL_NFIELDS; i++)
        if (fields[i].mtload && !measure == !!(dataset & (1u << i)))
            push_flag(a, fields[i].mtload, &fields[i], w);
}

