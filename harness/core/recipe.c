/* recipe.c - see recipe.h */
#include "core/recipe.h"
#include "lib/inifile.h"
#include "lib/util.h"
#include "core/workload_fields.h"
#include "lib/files.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the keys a recipe may have (docs/RECIPES.md) ------------------------ */

/* a workload's driver and setup parameters (MTB_P_<key> for setup scripts),
 * besides the workload's fields (workload_fields.h) */
static const char *const workload_params =
    "driver, protocol, ready, https, paths, key_pattern, script, scale, db_user, database, benchmark, "
    "db_bench_args, wrk_path";

static const struct {
    const char *section;   /* "variant" and "workload" also match "variant NAME" ... */
    const char *keys;
} recipe_keys[] = {
    { "service", "name, summary, source_package, source_version, version, orig, sha256" },
    { "build", "script, binary" },
#define X(key) #key ", "
    { "variant", MTB_RECIPE_VARIANT_KEYS(X) },
#undef X
#define X(key) #key ", "
    { "run", MTB_RECIPE_RUN_KEYS(X) },
#undef X
    { "workload", NULL },
};

static int in_list(const char *list, const char *key)
{
    size_t n = strlen(key);
    if (!n) /* an empty key ("= x", or a piece of a long line of ':') is in no list; strstr would not move */
        return 0;
    for (const char *p = list; (p = strstr(p, key)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

/* @return 1 when key is accepted in section, else 0 with why */
static int key_ok(const char *section, const char *key, char *why, size_t n)
{
    char accepted[512] = "";
    for (size_t i = 0; i < sizeof recipe_keys / sizeof recipe_keys[0]; i++) {
        size_t sl = strlen(recipe_keys[i].section);
        if (strncmp(section, recipe_keys[i].section, sl) || (section[sl] && section[sl] != ' '))
            continue;
        if (recipe_keys[i].keys) {
            if (in_list(recipe_keys[i].keys, key))
                return 1;
            snprintf(accepted, sizeof accepted, "%s", recipe_keys[i].keys);
            size_t al = strlen(accepted); /* the X-macro lists end with ", " */
            if (al >= 2 && !strcmp(accepted + al - 2, ", "))
                accepted[al - 2] = 0;
        } else {
#define X(f, kind, k, opt, json, rec, rsec, rkey, ...) if (!strcmp(rsec, "workload") && !strcmp(rkey, key)) return 1;
            MTB_WORKLOAD_FIELDS(X)
#undef X
            if (in_list(workload_params, key))
                return 1;
#define X(f, kind, k, opt, json, rec, rsec, rkey, ...)                                                        \
    if (!strcmp(rsec, "workload"))                                                                     \
        snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s, ", rkey);
            MTB_WORKLOAD_FIELDS(X)
#undef X
            snprintf(accepted + strlen(accepted), sizeof accepted - strlen(accepted), "%s", workload_params);
        }
        snprintf(why, n, "[%s] unknown key '%s' (accepted: %s; see docs/RECIPES.md)", section, key, accepted);
        return 0;
    }
    snprintf(why, n, "unknown section [%s] (accepted: [service], [build], [variant NAME], [run], [workload], "
             "[workload NAME]; see docs/RECIPES.md)", section);
    return 0;
}

/* inih with the line of each key (inifile.h) */
struct loader {
    struct mtb_recipe *r;
    struct mtb_inifile ini;
    char err[640];
    size_t *len, *cap;        /* per kv: its value's length and allocation (joins grow it geometrically) */
    size_t last;              /* the kv the previous line extended (a long line comes in many pieces) */
};

static int on_kv(void *user, const char *section, const char *name, const char *value)
{
    struct loader *l = user;
    struct mtb_recipe *r = l->r;
    if (!name) /* a section header alone */
        return 1;
    if (!key_ok(section, name, l->err, sizeof l->err))
        return 0;
    /* a key given again (or an indented continuation line) extends the value:
     * long command lines can be split under inih's line length limit */
    size_t i = l->last < r->nkv && !strcmp(r->kv[l->last].section, section) && !strcmp(r->kv[l->last].key, name)
                   ? l->last : r->nkv;
    for (size_t k = 0; k < r->nkv && i == r->nkv; k++)
        if (!strcmp(r->kv[k].section, section) && !strcmp(r->kv[k].key, name))
            i = k;
    if (i < r->nkv) { /* appended in place: linear in the length of the value, however many pieces */
        size_t add = strlen(value), need = l->len[i] + 1 + add + 1;
        if (need > l->cap[i]) {
            l->cap[i] = need * 2;
            char *grown = realloc(r->kv[i].value, l->cap[i]);
            if (!grown)
                return 0;
            r->kv[i].value = grown;
        }
        r->kv[i].value[l->len[i]] = ' ';
        memcpy(r->kv[i].value + l->len[i] + 1, value, add + 1);
        l->len[i] += 1 + add;
        l->last = i;
        return 1;
    }
    r->kv = realloc(r->kv, (r->nkv + 1) * sizeof *r->kv);
    l->len = realloc(l->len, (r->nkv + 1) * sizeof *l->len);
    l->cap = realloc(l->cap, (r->nkv + 1) * sizeof *l->cap);
    if (!r->kv || !l->len || !l->cap)
        return 0;
    l->len[r->nkv] = strlen(value);
    l->cap[r->nkv] = l->len[r->nkv] + 1;
    l->last = r->nkv;
    r->kv[r->nkv].section = mtb_strdup(section);
    r->kv[r->nkv].key = mtb_strdup(name);
    r->kv[r->nkv].value = mtb_strdup(value);
    r->nkv++;
    if (!strncmp(section, "variant ", 8)) {
        const char *v = section + 8;
        for (size_t j = 0; j < r->nvariants; j++)
            if (!strcmp(r->variants[j], v))
                return 1;
        r->variants = realloc(r->variants, (r->nvariants + 1) * sizeof *r->variants);
        if (!r->variants)
            return 0;
        r->variants[r->nvariants++] = mtb_strdup(v);
    }
    return 1;
}

/* The keys every recipe has, into r's fields. @return 0, or -1 naming the first missing */
static int typed_keys(struct mtb_recipe *r, char *err, size_t errlen)
{
    const struct {
        const char **field, *section, *key;
    } need[] = {
        { &r->source_package, "service", "source_package" }, { &r->source_version, "service", "source_version" },
        { &r->version, "service", "version" },               { &r->orig, "service", "orig" },
        { &r->sha256, "service", "sha256" },                 { &r->build_script, "build", "script" },
        { &r->build_binary, "build", "binary" },
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!(*need[i].field = mtb_recipe_get(r, need[i].section, need[i].key))) {
            snprintf(err, errlen, "%s: [%s] has no '%s' (every recipe names it; see docs/RECIPES.md)", r->path,
                     need[i].section, need[i].key);
            return -1;
        }
#define X(key) r->run.key = mtb_recipe_get(r, "run", #key);
    MTB_RECIPE_RUN_KEYS(X)
#undef X
    r->summary = mtb_recipe_get(r, "service", "summary");
    r->vars = mtb_calloc(r->nvariants + 1, sizeof *r->vars);
    for (size_t i = 0; i < r->nvariants; i++) {
        struct mtb_recipe_variant *v = &r->vars[i];
        char sec[160];
        snprintf(sec, sizeof sec, "variant %s", r->variants[i]);
        v->name = r->variants[i];
#define X(key) v->key = mtb_recipe_get(r, sec, #key);
        MTB_RECIPE_VARIANT_KEYS(X)
#undef X
    }
    return 0;
}

int mtb_recipe_load(const char *path, struct mtb_recipe *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    struct loader l = { .r = r };
    int rc = mtb_inifile_parse(path, &l.ini, on_kv, &l);
    if (rc == -1) {
        snprintf(err, errlen, "%s: cannot read recipe: %s", path, strerror(errno));
        return -1;
    }
    free(l.len);
    free(l.cap);
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: %s", path, rc, l.err[0] ? l.err : "malformed line");
        mtb_recipe_free(r);
        return -1;
    }
    r->path = mtb_strdup(path);
    char *tmp = mtb_strdup(path);
    r->dir = mtb_strdup(dirname(tmp));
    free(tmp);
    const char *name = mtb_recipe_get(r, "service", "name");
    if (!name) {
        snprintf(err, errlen, "%s: missing [service] name", path);
        mtb_recipe_free(r);
        return -1;
    }
    r->name = mtb_strdup(name);
    if (typed_keys(r, err, errlen) != 0) {
        mtb_recipe_free(r);
        return -1;
    }
    return 0;
}

void mtb_recipe_free(struct mtb_recipe *r)
{
    for (size_t i = 0; i < r->nkv; i++) {
        free(r->kv[i].section);
        free(r->kv[i].key);
        free(r->kv[i].value);
    }
    for (size_t i = 0; i < r->nvariants; i++)
        free(r->variants[i]);
    free(r->kv);
    free(r->variants);
    free(r->vars);
    free(r->name);
    free(r->dir);
    free(r->path);
    memset(r, 0, sizeof *r);
}

const char *mtb_recipe_get(const struct mtb_recipe *r, const char *section, const char *key)
{
    for (size_t i = 0; i < r->nkv; i++)
        if (!strcmp(r->kv[i].section, section) && !strcmp(r->kv[i].key, key))
            return r->kv[i].value;
    return NULL;
}

const char *mtb_recipe_variant_names(const struct mtb_recipe *r, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < r->nvariants && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", r->variants[i]);
    return buf;
}

const struct mtb_recipe_variant *mtb_recipe_variant(const struct mtb_recipe *r, const char *variant)
{
    for (size_t i = 0; i < r->nvariants && r->vars; i++)
        if (!strcmp(r->vars[i].name, variant))
            return &r->vars[i];
    return NULL;
}

int mtb_recipe_yes(const char *value) { return value && !strcmp(value, "yes"); }

int mtb_recipe_variant_bugs(const struct mtb_recipe *r, const char *variant)
{
    const struct mtb_recipe_variant *v = mtb_recipe_variant(r, variant);
    return v && mtb_recipe_yes(v->bugs);
}

int mtb_recipe_has_variant(const struct mtb_recipe *r, const char *variant)
{
    for (size_t i = 0; i < r->nvariants; i++)
        if (!strcmp(r->variants[i], variant))
            return 1;
    return 0;
}

int mtb_recipes_all(struct mtb_recipe **out, size_t *n, char *err, size_t errlen)
{
    char *pat = mtb_asprintf("%s/services/*/recipe.ini", mtb_root());
    glob_t g;
    *out = NULL;
    *n = 0;
    int grc = glob(pat, 0, NULL, &g);
    free(pat);
    if (grc != 0) {
        snprintf(err, errlen, "no recipes under %s/services", mtb_root());
        return -1;
    }
    *out = mtb_calloc(g.gl_pathc, sizeof **out);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (mtb_recipe_load(g.gl_pathv[i], &(*out)[*n], err, errlen) != 0) {
            /* the failed one freed itself; free those read before it */
            for (size_t j = 0; j < *n; j++)
                mtb_recipe_free(&(*out)[j]);
            free(*out);
            *out = NULL;
            *n = 0;
            globfree(&g);
            return -1;
        }
        (*n)++;
    }
    globfree(&g);
    return 0;
}

struct mtb_recipe *mtb_recipe_find(const char *name, char *err, size_t errlen)
{
    /* the recipes are read once per process: a plan of N entries (or a
     * fuzzer's every input) no longer parses every recipe N times and keeps
     * N copies of them */
    static struct mtb_recipe *all;
    static size_t n;
    if (!all && mtb_recipes_all(&all, &n, err, errlen) != 0) {
        all = NULL;
        return NULL;
    }
    char names[256] = "";
    for (size_t i = 0; i < n; i++) {
        if (name && !strcmp(all[i].name, name))
            return &all[i];
        if (names[0])
            strncat(names, ", ", sizeof names - strlen(names) - 1);
        strncat(names, all[i].name, sizeof names - strlen(names) - 1);
    }
    snprintf(err, errlen, "unknown SERVICE '%s' (accepted: %s)", name ? name : "", names);
    return NULL;
}

char *mtb_template(const char *tmpl, const char *const *pairs)
{
    size_t cap = strlen(tmpl) + 256, n = 0;
    char *out = mtb_calloc(1, cap);
    for (const char *p = tmpl; *p;) {
        const char *val = NULL;
        size_t klen = 0;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            if (end)
                for (const char *const *kv = pairs; kv && kv[0]; kv += 2)
                    if (strlen(kv[0]) == (size_t)(end - p - 1) && !strncmp(p + 1, kv[0], (size_t)(end - p - 1))) {
                        val = kv[1];
                        klen = (size_t)(end - p + 1);
                        break;
                    }
        }
        const char *chunk = val ? val : p;
        size_t clen = val ? strlen(val) : 1;
        if (n + clen + 1 > cap) {
            cap = (n + clen + 1) * 2;
            out = realloc(out, cap);
            if (!out)
                mtb_oom("a template");
        }
        memcpy(out + n, chunk, clen);
        n += clen;
        p += val ? klen : 1;
    }
    out[n] = 0;
    return out;
}

char *mtb_unescape(const char *s)
{
    char *out = mtb_calloc(1, strlen(s) + 1), *o = out;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'r' ? '\r' : *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return out;
}
