/* work.h - MTE's work counted by the vm platform's plugin (libmtecount.so,
 * harness/probe/mtecount.c; docs/COUNTING.md): its output read into JSON,
 * and the work account of a counted run. */
#ifndef MTEBENCH_WORK_H
#define MTEBENCH_WORK_H
#include <jansson.h>
#include <stddef.h>

/* 1 when the plugin (build/native/libmtecount.so of this checkout) is built
 * here and can count (TCG, not KVM); 0 with why. */
int mtb_work_plugin_ready(char *why, size_t n);
/* The qemu -plugin argument writing the counts to out. */
char *mtb_work_plugin_arg(const char *out);

/* The plugin's output file read: {"plugin": {header keys}, "totals":
 * [{vcpu, el, counters...}], "windows": [{window, vcpu, el, counters...}]}.
 * NULL with err when the file is missing or not the plugin's. */
json_t *mtb_work_load(const char *path, char *err, size_t errlen);

/* The requests the service counted over a run's measured window, from its
 * record: the recipe's [run] counted sum over service_counters.delta, less
 * what the closing counter query added ([run] counters_self); else the load
 * generator's requests. *from says which. -1 unknown. */
struct mtb_recipe;
double mtb_work_requests(const struct mtb_recipe *r, const json_t *rec, const char **from);

/* The work account of a counted run (svc_tasks: the guest's list of the
 * service's tasks, {tid, pid, comm}; with the plugin's task lines the
 * service's own work on any vCPU, "tasks", by task name, "by_task", that of
 * the tasks named in workers (the recipe's [run] request_tasks; NULL: all),
 * "workers", and the kernel's for interrupts, "interrupts"): the plugin's counts of its last two
 * windows (idle, then the load) per EL, over all vCPUs and, when the
 * record's affinity keeps them apart, over the service's and the load
 * generator's vCPUs; the load's less the idle one's; per vCPU; and that
 * difference per request (divided by requests; <= 0: not divided), with
 * where they come from. An error in the account when there are not two. */
json_t *mtb_work_account(const json_t *work, double requests, const char *requests_from, const json_t *affinity,
                         const json_t *svc_tasks, const char *workers);

/* The counted runs of a results directory (DIR/work/NNN-.../record.json:
 * bench's counted pair, a plan's `count`): each record with `work`
 * appended to recs and its path to files, in name order. */
void mtb_work_records(const char *dir, json_t *recs, json_t *files);

/* The quantities the history keeps of a counted run and the nightly tests
 * (docs/NIGHTLY.md), each per request at one exception level: instructions,
 * tag instructions (IRG, LDG and every tag store: STG.., STGM, STZGM, DC
 * GVA/GZVA), bytes tagged, Tag Checked loads and stores. */
struct mtb_work_quantity {
    const char *key;   /* the history's column, the series' metric: el0_checked */
    const char *label; /* "EL1 Tag Checked accesses" */
};
#define MTB_NWORK 8
extern const struct mtb_work_quantity mtb_work_quantities[MTB_NWORK];
/* A counted record's quantities into v (NAN where absent), on the account
 * a table takes (core/work_rows.h's `main`: the service's request tasks,
 * else its vCPU, else all vCPUs; *role says which, "workers", "service" or
 * "all"). @return 0, or -1 when the record has no
 * per-request account. */
int mtb_work_values(const json_t *rec, double v[MTB_NWORK], const char **role);
#endif
