/* summary_rows.h - a summary (summary.json, as analysis/summary.h makes it)
 * read once into typed rows: its configurations, overheads, geometric
 * means, allocators, kernel comparisons, core sweep points, warnings and
 * environment, each interval a struct mtb_ci. The text table, the Markdown
 * and the HTML report read these fields, never the summary by key.
 *
 * A key a summary lacks reads as what it means there: a string "", a
 * number NaN, a count 0, a flag 0, an interval not present (a summary of
 * an earlier version shows what it has). The strings and arrays are the
 * summary's own: valid while it is.
 *
 *   struct mtb_sum_rows r;
 *   mtb_sum_rows_read(sum, &r);
 *   for (size_t i = 0; i < r.nconfigs; i++) ... r.configs[i].metric[MTB_M_p99_us].median ...
 *   mtb_sum_rows_free(&r);
 */
#ifndef MTB_SUMMARY_ROWS_H
#define MTB_SUMMARY_ROWS_H
#include "core/record.h"
#include "core/work.h"

#include <jansson.h>
#include <stddef.h>

/* An interval: {"median" or "geomean", "lo", "hi", "conf", "rel_halfwidth", "method"} */
struct mtb_ci {
    int present;                 /* the summary holds it (an object) */
    double median, geomean;      /* the estimate: median, or geomean (NaN when absent) */
    double lo, hi, conf, rel_halfwidth;
    const char *method;          /* "order statistics", ... ("" when absent) */
    json_t *j;                   /* the value as the summary holds it (borrowed; NULL: absent): what a
                                  * writer hands on as it is */
};
/** @return the estimate: the median, else the geometric mean (NaN if neither) */
double mtb_ci_estimate(const struct mtb_ci *ci);
/** @return 1 if the interval reaches less than the nominal 95% confidence */
int mtb_ci_low_conf(const struct mtb_ci *ci);
/** ci from an interval object (absent or not an object: not present) */
void mtb_ci_read(json_t *obj, struct mtb_ci *ci);

/* A row's workload (config.workload as the summary carries it). */
struct mtb_sum_workload {
    json_t *j;                   /* the object: what identifies it (mtb_workload_equal) */
    const char *name, *mix, *value_size;
    double conns, pipeline, keys, duration_s;
    int has_cores;               /* a point of a core sweep */
    long long cores;
    const char *service_cpus, *core_type; /* the sweep point's CPUs and their type ("" when absent) */
};

/* The figures per request a configuration may carry, by summary key. */
#define MTB_SUM_PER_REQUEST(X) X(perf, "perf_per_request") X(tag_ops, "tag_ops_per_request")
enum mtb_sum_per_request {
#define X(id, key) MTB_PR_##id,
    MTB_SUM_PER_REQUEST(X)
#undef X
    MTB_NPR
};

struct mtb_sum_overhead;

/* summary "configs": one configuration's runs */
struct mtb_sum_config {
    const char *service, *platform, *kernel, *variant, *mode, *host;
    int has_host;                /* made on a named host (the reports say " on HOST") */
    int baseline;                /* plain/off */
    int emulated, client_bound, errors_over_limit, noisy;
    long long runs;
    struct mtb_sum_workload workload;
    int has_run_length;          /* REPS=auto chose the run length: */
    double pilot_s, pilot_pairs, chosen_s;
    struct mtb_ci metric[MTB_NRUN_METRICS];
    json_t *per_request[MTB_NPR]; /* an object of event: figure, or NULL */
    const struct mtb_sum_overhead *overhead; /* its overhead row (same service, variant,
                                               mode, platform, kernel, host, workload), or NULL */
};

/* summary "overheads": a tagged configuration against its baseline */
struct mtb_sum_overhead {
    const char *service, *platform, *kernel, *variant, *mode, *host, *baseline; /* baseline "": plain/off */
    int has_host;
    struct mtb_sum_workload workload;
    long long pairs;
    struct mtb_ci metric[MTB_NPAIR_METRICS];
    double mann_whitney_p;       /* NaN: none */
    int sequential;              /* REPS=auto's sequential stop: */
    int stopped_by_user, reached;
    double max_time_s;
};

/* summary "geomeans" */
struct mtb_sum_geomean {
    const char *variant, *mode, *platform, *kernel;
    long long n;
    struct mtb_ci slowdown;
    json_t *of;                  /* the array of what it is over ("memcached 1:10") */
};

/* summary "allocators": an allocator alone, and tagging under it */
struct mtb_sum_tagging {
    const char *variant, *mode;
    struct mtb_ci slowdown, slowdown_glibc, difference;
    long long pairs;
};
struct mtb_sum_allocator {
    const char *service, *allocator;
    struct mtb_ci alone;         /* allocator_alone.slowdown */
    long long alone_pairs;
    size_t ntagging;
    struct mtb_sum_tagging *tagging;
};

/* summary "kernels": one configuration under two kernels */
struct mtb_sum_kernel {
    const char *service, *variant, *mode, *platform, *kernel_a, *kernel_b, *note;
    int emulated, significant;
    long long runs_a, runs_b;
    double ops_a, ops_b, mann_whitney_p; /* p NaN: none */
    struct mtb_ci delta, slowdown_a, slowdown_b;
    long long pairs;             /* runs of the same repetition on both kernels */
    struct mtb_ci ops_ratio;     /* kernel_b's throughput over kernel_a's, median of the pairs */
    struct mtb_ci metric[MTB_NPAIR_METRICS]; /* each pair metric, kernel_a as the baseline */
};

/* summary "cores": a point of a core sweep */
struct mtb_sum_cores {
    const char *service, *workload, *platform, *kernel, *variant, *mode, *core_type, *service_cpus;
    double cores;
    struct mtb_ci ops_per_sec, slowdown;
};

/* summary "environment": each list's key and label */
#define MTB_SUM_ENV(X)                                                                                   \
    X(cpu_model, "CPU model") X(midr, "MIDR") X(microcode, "microcode") X(cpus, "cores")                \
    X(kernels, "kernel") X(kernel_cmdline, "kernel command line") X(mte, "MTE") X(platforms, "platform") \
    X(qemu, "QEMU") X(glibc, "glibc") X(compilers, "compilers") X(builds, "builds")                      \
    X(pinning, "pinning (read back)") X(quiet, "quiet-machine check") X(mtebench_versions, "mtebench version")
enum mtb_sum_env {
#define X(key, label) MTB_ENV_##key,
    MTB_SUM_ENV(X)
#undef X
    MTB_NENV
};
extern const char *const mtb_sum_env_labels[MTB_NENV];

/* summary "protection" (report --detect; compare-kernels --detect has the
 * same rows): a configuration's overhead beside the bugs its detection
 * matrix says it catches */
struct mtb_sum_protection {
    const char *service, *variant, *mode, *kernel, *cost_platform, *detect_platform;
    int baseline;                /* plain/off: its cost is 1 */
    struct mtb_ci slowdown;
    long long bugs_caught, bugs_tested;
    double fraction, lo, hi;     /* NaN when absent */
    int has_explained;           /* matrices before "Every catch explained" have none */
    long long explained;
    double ex_fraction, ex_lo, ex_hi;
};
/** rows (an array of such rows) into a new array of *n structs (never NULL) */
struct mtb_sum_protection *mtb_sum_protection_read(json_t *rows, size_t *n);

/* summary "work": a counted run's work per request, against plain/off of
 * the same service and kernel (report/work_table.c's mtb_work_rows) */
struct mtb_sum_work {
    const char *service, *variant, *mode, *kernel, *role, *record; /* "" when absent */
    double requests;             /* NaN: absent */
    int baseline;                /* plain/off */
    double values[MTB_NWORK];    /* core/work.h's quantities per request; NaN: none */
    int has_ratio[MTB_NWORK];    /* a ratio to the baseline (none without one, or a 0 there) */
    double ratio[MTB_NWORK];
};
/** the rows of a summary's "work" array into *out (n of them; free(*out)) */
void mtb_sum_work_read(json_t *rows, struct mtb_sum_work **out, size_t *n);

struct mtb_sum_rows {
    int emulated;
    size_t nconfigs, noverheads, ngeomeans, nallocators, nkernels, ncores;
    struct mtb_sum_config *configs;
    struct mtb_sum_overhead *overheads;
    struct mtb_sum_geomean *geomeans;
    struct mtb_sum_allocator *allocators;
    struct mtb_sum_kernel *kernels;
    struct mtb_sum_cores *cores;
    json_t *warnings;            /* an array of strings (empty when absent) */
    int has_environment;
    json_t *env[MTB_NENV];       /* each an array of strings, or NULL */
    const char *first_started, *last_finished;
};
/** sum's rows into r (every key read here, once). Never fails: see above */
/* The summary's sections the report adds and hands on (borrowed arrays,
 * NULL when absent): the protection rows, the work rows, the capacity
 * searches, the plots that could not be drawn; and whether it is emulated. */
struct mtb_sum_sections {
    int emulated;
    json_t *protection, *work, *capacity, *plot_problems;
};
void mtb_sum_sections_read(json_t *sum, struct mtb_sum_sections *s);

/** one configuration's row, one overhead row (as the summary writes them: a
 *  row the summary is making is read the same way) */
void mtb_sum_config_read(json_t *c, struct mtb_sum_config *r);
void mtb_sum_overhead_read(json_t *o, struct mtb_sum_overhead *r);
void mtb_sum_rows_read(json_t *sum, struct mtb_sum_rows *r);
/** a workload object (a row's, or a record's config.workload) into r */
void mtb_sum_workload_read(json_t *w, struct mtb_sum_workload *r);
/** the one thing said of a summary after it is built: REPS=auto was stopped
 *  by the user (Ctrl-C), on each overhead's sequential block */
void mtb_sum_overheads_stopped_by_user(json_t *sum);
void mtb_sum_rows_free(struct mtb_sum_rows *r);
#endif
