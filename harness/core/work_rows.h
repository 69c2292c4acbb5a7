/* work_rows.h - a counted run's work account (its record's `work`, as
 * core/work.c's mtb_work_account makes it) read once into a typed view:
 * per role (the service's request tasks, its vCPU, the load generator's,
 * all vCPUs, the service's tasks, interrupts) and per exception level,
 * every counter per request; the service's tasks by name; the requests
 * and where they were counted. The work tables (report/work_table.c) and
 * the history read these fields, never the account by key.
 *
 * A counter the account lacks reads 0 (as the plugin's absent counter
 * is); a role or an EL it lacks is not present. Strings are the record's
 * own, valid while it is. */
#ifndef MTB_WORK_ROWS_H
#define MTB_WORK_ROWS_H
#include <jansson.h>
#include <stddef.h>

/* The counters of an EL's account, as core/work.c writes them: what the
 * plugin counts (docs/COUNTING.md), then what wait loops' repeats held. */
#define MTB_WORK_COUNTERS(X)                                                                                   \
    X(insns) X(loads) X(stores) X(loads_checked) X(stores_checked) X(checked_unpriv) X(tag0_lower)             \
    X(unchecked_tco) X(unchecked_tcma) X(tag_bytes) X(irg) X(stg) X(st2g) X(stzg) X(stz2g) X(stgp) X(stgm)     \
    X(stzgm) X(dc_gva) X(dc_gzva) X(ldg) X(wfe) X(spin_insns) X(spin_loads) X(spin_stores) X(spin_loads_checked) \
    X(spin_stores_checked) X(spin_checked_unpriv) X(spin_wfe)
enum mtb_work_counter {
#define X(key) MTB_WC_##key,
    MTB_WORK_COUNTERS(X)
#undef X
    MTB_NWC
};
extern const char *const mtb_work_counter_keys[MTB_NWC];

/* The accounts of a counted run, by role (per_request.<role>). */
#define MTB_WORK_ROLES(X) X(workers) X(service) X(client) X(all) X(tasks) X(interrupts)
enum mtb_work_role_id {
#define X(key) MTB_WR_##key,
    MTB_WORK_ROLES(X)
#undef X
    MTB_NWR
};
extern const char *const mtb_work_role_keys[MTB_NWR];

/* one account per request: each EL's counters */
struct mtb_work_acct {
    int present;                   /* the account has the role's key */
    int object;                    /* ... and it holds an object (its counters) */
    int el_present[2];
    double c[2][MTB_NWC];          /* [el][counter] */
};

struct mtb_work_task {
    const char *name;              /* the task's comm */
    struct mtb_work_acct per_request;
};

struct mtb_work_view {
    int present;                   /* the record has a per-request account */
    double requests;               /* 0 when absent */
    int has_requests;              /* a number */
    const char *requests_from;     /* NULL when absent */
    const char *tasks_note;        /* why there is no work by task, or NULL */
    struct mtb_work_acct role[MTB_NWR];
    enum mtb_work_role_id main;    /* the account a table takes: workers when the kernel let the plugin
                                    * tell tasks apart, else service (its vCPU), else all */
    size_t ntasks;
    struct mtb_work_task *tasks;   /* by_task, in the record's order */
};
/* The plugin's output as core/work.c's mtb_work_load keeps it, read once
 * for the account: its header's windows and context switches, and each
 * line's place (window, vCPU, EL, task) and integer counts, in the line's
 * order. Strings and objects are the output's own (borrowed). */
struct mtb_work_kv {
    const char *key;
    long long v;
};
struct mtb_work_line {
    json_t *j;                     /* the line's object (what by_vcpu hands on) */
    long long window, vcpu, el, tid; /* 0 when the line has none */
    struct mtb_work_kv *kv;        /* its integer keys but vcpu, el and window */
    size_t n;
};
struct mtb_work_out {
    json_t *plugin;                /* the header's object */
    long long windows, context_switches;
    struct mtb_work_line *totals, *by_vcpu, *by_task; /* its "totals", "windows" and "tasks" lines */
    size_t ntotals, nby_vcpu, nby_task;
};
void mtb_work_out_read(const json_t *work, struct mtb_work_out *o);
void mtb_work_out_free(struct mtb_work_out *o);

/* the guest's list of the service's tasks (a record's work.tasks) */
struct mtb_svc_task {
    long long tid;
    const char *comm;              /* NULL when not a string */
};
/** the list into *out (n of them; free(*out)) */
void mtb_svc_tasks_read(const json_t *tasks, struct mtb_svc_task **out, size_t *n);
/** why a work account (mtb_work_account's) could not be made, or NULL */
const char *mtb_work_account_error(const json_t *acc);

/* where a run's service and load generator were pinned (a record's affinity) */
struct mtb_work_affinity {
    const char *service, *client;  /* CPU lists, or NULL */
    int shares;                    /* shares_cpus_with_client */
};
void mtb_work_affinity_read(const json_t *aff, struct mtb_work_affinity *a);

/** rec's work account into w (every key read here, once). Never fails */
void mtb_work_view_read(const json_t *rec, struct mtb_work_view *w);
void mtb_work_view_free(struct mtb_work_view *w);
/** the tag stores of one EL of an account: every tag store (STG.., STGM, STZGM, DC GVA/GZVA), IRG and LDG aside */
double mtb_work_tag_stores(const struct mtb_work_acct *a, int el);
#endif
