/* workload.h - the workload of a run: what load, how long. One field list
 * (MTB_WORKLOAD_FIELDS) generates the struct's fields, the recipe defaults,
 * the record's JSON, the command-line options, the plan keys, the vm/agent
 * guest's arguments and mtload's flags: adding a parameter is one row. */
#ifndef MTB_WORKLOAD_H
#define MTB_WORKLOAD_H
#include "lib/err.h"
#include "lib/strmap.h"
#include <jansson.h>
#include <stddef.h>
#include "lib/util.h"

struct mtb_recipe;

#include "core/workload_fields.h"
#include "lib/argv.h"

#define MTB_WL_STR_T char
#define MTB_WL_LONG_T long
#define MTB_WL_DUR_T double
#define MTB_WL_RATE_T double
#define MTB_WL_STR_DIM [64]
#define MTB_WL_LONG_DIM
#define MTB_WL_DUR_DIM
#define MTB_WL_RATE_DIM

enum mtb_workload_field {
#define X(f, kind, ...) MTB_WL_##f,
    MTB_WORKLOAD_FIELDS(X)
#undef X
    MTB_WL_NFIELDS
};

struct mtb_workload {
    const struct mtb_recipe *recipe;
    char name[64];         /* "default" or a [workload NAME] section */
#define X(f, kind, ...) MTB_WL_##kind##_T f MTB_WL_##kind##_DIM;
    MTB_WORKLOAD_FIELDS(X)
#undef X
    /* a point of a core sweep (0: none): the service runs on svc_cpus, with
     * `cores` threads/workers/clients; core_type names a big.LITTLE type */
    long cores;
    char svc_cpus[256];
    char core_type[24];
    /* params over the recipe's (not owned; NULL: none): a bug's own
     * benchmark for an embedded service's detection trial */
    const struct mtb_strmap *params; /* --param KEY=VALUE; a bug's benchmark and db_bench_args */
};


/* Values given on the command line or in a plan, over the recipe's. */
struct mtb_workload_set {
    struct mtb_workload v;
    unsigned set;          /* bit MTB_WL_<field> */
};

/* The field of a key ("value_size" or "value-size"), or -1. */
int mtb_workload_field(const char *key);
/* The plan/recipe key of field i ("value_size"). */
const char *mtb_workload_field_key(int i);
/* Whether field i of w holds the field list's default (a rate: 0, closed
 * loop); what a driver that does not honour the field accepts. */
int mtb_workload_is_default(const struct mtb_workload *w, int i);
/* Field i of w as text ("64-512", "1000", "2.5s"), into buf. */
const char *mtb_workload_field_text(const struct mtb_workload *w, int i, char *buf, size_t n);
/* "mix, keys, value_size, ..." */
const char *mtb_workload_keys(void);
/* Parse value for key into s. @return 0; -1 with why (what is accepted);
 * -2 when key is not a workload key. */
int mtb_workload_set_parse(struct mtb_workload_set *s, const char *key, const char *value, char *why, size_t n);
/* The values set in s over w. */
void mtb_workload_set_apply(const struct mtb_workload_set *s, struct mtb_workload *w);

/* The field list's defaults (no recipe): a load given by its fields only
 * (`mtebench load`). */
void mtb_workload_init(struct mtb_workload *w);
/* Defaults from the recipe's [workload NAME] (or [workload]) and [run]
 * sections. @return 0, or -1 with e (may be NULL) naming an unknown
 * workload with the recipe's, or the recipe's value that is invalid. */
int mtb_workload_defaults(const struct mtb_recipe *r, const char *name, struct mtb_workload *w, struct mtb_err *e);
/* A driver parameter of the workload: [workload NAME], then [workload]. */
const char *mtb_workload_param(const struct mtb_workload *w, const char *key);
/* The record's config.workload: name, every field, params, sweep point. */
json_t *mtb_workload_json(const struct mtb_workload *w);
/* --option=value for every field (the agent's far `mtebench run`). */
void mtb_workload_args(const struct mtb_workload *w, struct mtb_argv *a);
/* mtload's flags: measure 0: the data set's (keys, value-size, threads,
 * conns: preload and measurement); 1: the measurement's others. */
void mtb_workload_mtload_flags(const struct mtb_workload *w, int measure, struct mtb_argv *a);
/* A SET:GET ratio in memtier syntax. */
int mtb_workload_valid_mix(const char *s);
/* The workload's recipe parameters ([workload] and [workload NAME] keys) as
 * a JSON object of strings (new reference). */
json_t *mtb_workload_params(const struct mtb_workload *w);
#endif
