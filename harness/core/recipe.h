/* recipe.h - service recipes (services/<name>/recipe.ini), read with libinih.
 * The harness has no per-service code: everything a service needs is here. */
#ifndef MTB_RECIPE_H
#define MTB_RECIPE_H
#include <stddef.h>

struct mtb_kv {
    char *section, *key, *value;
};

/* The keys of a recipe's [run] (docs/RECIPES.md): how a run starts, readies,
 * counts and stops the service. One list: the keys [run] accepts and the
 * fields of struct mtb_recipe_run. */
#define MTB_RECIPE_RUN_KEYS(X)                                                                                   \
    X(args) X(setup) X(setup_reuse) X(ready_cmd) X(ready_send) X(ready_expect) X(stop_signal) X(stop_wake)         \
    X(driver) X(protocol) X(counters) X(counters_settle) X(counted) X(counters_self) X(request_tasks) X(listen_in) \
    X(clients_allow) X(threads) X(user)
/* [run], typed: each key's value (pointing into the recipe's kv), NULL
 * when the recipe does not give it */
struct mtb_recipe_run {
#define X(key) const char *key;
    MTB_RECIPE_RUN_KEYS(X)
#undef X
};

/* The keys of a [variant NAME] section (docs/RECIPES.md), each a field of
 * struct mtb_recipe_variant. */
#define MTB_RECIPE_VARIANT_KEYS(X)                                                                               \
    X(summary) X(cflags) X(cflags_aarch64) X(cflags_native) X(patches) X(test_only) X(based_on) X(bugs) X(tree_from) \
    X(compiler) X(stack_tagging)
/* A variant, typed: its name and each key's value (NULL when not given) */
struct mtb_recipe_variant {
    const char *name;
#define X(key) const char *key;
    MTB_RECIPE_VARIANT_KEYS(X)
#undef X
};

struct mtb_recipe {
    char *name;
    char *dir;        /* services/<name> */
    char *path;       /* its recipe.ini */
    struct mtb_kv *kv;
    size_t nkv;
    char **variants;  /* from [variant NAME] sections, in file order */
    size_t nvariants;
    struct mtb_recipe_variant *vars; /* each variant's section typed, parallel to variants */
    /* the keys every recipe has (docs/RECIPES.md), checked at load: a
     * recipe without one is refused, naming the file and the key. They
     * point into kv. */
    const char *source_package, *source_version; /* [service]: Debian's source package and its version */
    const char *summary;                          /* [service] summary (`mtebench list`), or NULL */
    const char *version, *orig, *sha256;          /* [service]: upstream's version, the orig tarball, its SHA-256 */
    const char *build_script, *build_binary;      /* [build] script (in dir), binary (in the build's tree) */
    struct mtb_recipe_run run;                    /* [run]; run.args, the server's command line, NULL: none
                                                   * (an embedded program, run by its driver) */
};

/* Load one recipe file. @return 0 or -1 with a message in err (r then
 * holds nothing): a line malformed, a key unknown, a needed key missing. */
int mtb_recipe_load(const char *path, struct mtb_recipe *r, char *err, size_t errlen);
/* Free what a loaded recipe holds; r is then empty. */
void mtb_recipe_free(struct mtb_recipe *r);
/* Value of key in section, or NULL. Section "variant tagged" etc. */
const char *mtb_recipe_get(const struct mtb_recipe *r, const char *section, const char *key);
/* The variant named variant, typed, or NULL when the recipe has none */
const struct mtb_recipe_variant *mtb_recipe_variant(const struct mtb_recipe *r, const char *variant);
/* 1 if a variant's key says yes (NULL variant or key: no) */
int mtb_recipe_yes(const char *value);
/* 1 if the variant carries the bug catalogue ([variant V] bugs = yes):
 * detection trials only (mtebench detect), never measured or planned. */
int mtb_recipe_variant_bugs(const struct mtb_recipe *r, const char *variant);
int mtb_recipe_has_variant(const struct mtb_recipe *r, const char *variant);
/* The recipe's variants as "plain, tagged, ..." in buf (for messages). */
const char *mtb_recipe_variant_names(const struct mtb_recipe *r, char *buf, size_t n);

/* All recipes under <root>/services, sorted by name; on failure (-1, err)
 * nothing is kept: *out is NULL and *n 0. */
int mtb_recipes_all(struct mtb_recipe **out, size_t *n, char *err, size_t errlen);
/* Find one by service name; NULL and a message listing the accepted names. */
struct mtb_recipe *mtb_recipe_find(const char *name, char *err, size_t errlen);
/* Replace {key} placeholders using a NULL-terminated list of key,value pairs. */
char *mtb_template(const char *tmpl, const char *const *pairs);
/* Turn the escapes \r \n \t \\ into bytes (readiness strings). */
char *mtb_unescape(const char *s);
#endif
