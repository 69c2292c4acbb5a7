/* record.h - the run record: its schema, writing it, loading it (with the
 * named reasons a file is not used), the one rule that pairs a tagged run
 * with its baseline, and the metric table from which every view of the
 * figures (summary, text/HTML/Markdown tables, runs.csv, summary.json, the
 * history's columns, the nightly's series) is generated.
 *
 * Analysis code (summary, report, history, nightly, compare) reads records
 * through this header only; it never includes the run's headers. */
#ifndef MTB_RECORD_H
#define MTB_RECORD_H
#include <jansson.h>
#include <stddef.h>

/* The schema written; MTB_RECORD_SCHEMAS lists every schema read (oldest first). */
#define MTB_RECORD_SCHEMA "mtebench-run/1"
#define MTB_RECORD_SCHEMAS { "mtebench-run/1", NULL }

/* ---- the metric table ---------------------------------------------------------------
 *
 * Run metrics: one figure per run, summarised per configuration as a median
 * with its CI.
 *   key      the record's summary.<key>, the summary's configs[].<key>, the
 *            CSV column and (with H) the history's runs.<key> column
 *   label    as shown in tables
 *   unit     "ops/s", "µs"
 *   better   MTB_HIGHER or MTB_LOWER
 *   load     when summary.<key> is absent: load.latency_us.corrected.<load> (NULL: none)
 *   views    MTB_V_* flags: in the text/HTML/Markdown main table, in the history
 *   nightly  the nightly's metric name for its series, NULL if not analysed
 */
enum { MTB_LOWER = -1, MTB_HIGHER = 1 };
enum {
    MTB_V_TABLE = 1,   /* a column of the main text, HTML and Markdown tables */
    MTB_V_HISTORY = 2, /* a column of the history (runs or overheads) */
};
#define MTB_RUN_METRICS(X)                                                                          \
    X(ops_per_sec, "ops/s", "ops/s", MTB_HIGHER, NULL, MTB_V_TABLE | MTB_V_HISTORY, "throughput") \
    X(p50_us, "p50", "µs", MTB_LOWER, "p50", MTB_V_TABLE | MTB_V_HISTORY, NULL)                   \
    X(p90_us, "p90", "µs", MTB_LOWER, "p90", 0, NULL)                                              \
    X(p99_us, "p99", "µs", MTB_LOWER, "p99", MTB_V_TABLE | MTB_V_HISTORY, "p99")                  \
    X(p999_us, "p99.9", "µs", MTB_LOWER, "p99.9", MTB_V_TABLE | MTB_V_HISTORY, NULL)              \
    X(p9999_us, "p99.99", "µs", MTB_LOWER, "p99.99", 0, NULL)

/* Pair metrics: one value per pair of a tagged run and its baseline (see the
 * pairing rule below), summarised per tagged configuration as the median of
 * the pairs with its CI (order statistics of the pairwise ratios).
 *   key      the summary's overheads[].<key>, the CSV column (on the tagged
 *            run's row), the history's overheads.<key> column
 *   label    as shown in tables
 *   of       the run metric compared
 *   tagged_num 1: tagged / baseline; 0: baseline / tagged (throughput: a
 *            slowdown above 1 is worse either way)
 *   views, nightly as for run metrics; every pair metric is lower-is-better.
 *            The history derives a pair metric from its runs table: give
 *            the compared run metric MTB_V_HISTORY too (else it holds NULL). */
#define MTB_PAIR_METRICS(X)                                                            \
    X(slowdown, "overhead", ops_per_sec, 0, MTB_V_TABLE | MTB_V_HISTORY, "overhead") \
    X(p99_ratio, "p99 ratio", p99_us, 1, MTB_V_TABLE | MTB_V_HISTORY, NULL)              \
    X(p999_ratio, "p99.9 overhead", p999_us, 1, MTB_V_TABLE | MTB_V_HISTORY, "p99.9 overhead")

enum mtb_run_metric_id {
#define X(key, label, unit, better, load, views, nightly) MTB_M_##key,
    MTB_RUN_METRICS(X)
#undef X
    MTB_NRUN_METRICS
};
enum mtb_pair_metric_id {
#define X(key, label, of, tagged_num, views, nightly) MTB_P_##key,
    MTB_PAIR_METRICS(X)
#undef X
    MTB_NPAIR_METRICS
};

struct mtb_run_metric {
    const char *key, *label, *unit;
    int better;
    const char *load; /* mtload's corrected-latency key, or NULL */
    int views;
    const char *nightly;
};
struct mtb_pair_metric {
    const char *key, *label;
    enum mtb_run_metric_id of;
    int tagged_num;
    int views;
    const char *nightly;
};
extern const struct mtb_run_metric mtb_run_metrics[MTB_NRUN_METRICS];
extern const struct mtb_pair_metric mtb_pair_metrics[MTB_NPAIR_METRICS];

/** @return the run metric m of a record (summary.<key>, else the load's
 *  corrected latency); NaN when the record lacks it */
double mtb_record_metric(json_t *rec, enum mtb_run_metric_id m);
/* A record's figures (its "summary": the run's metrics and its
 * error rate and flags), typed and read once. A figure the record lacks is NaN, a
 * flag 0: the record of a run that failed has none. */
struct mtb_rec_figures {
    int present;                     /* the record has a summary */
    double metric[MTB_NRUN_METRICS]; /* each run metric as mtb_record_metric reads it */
    double error_rate;               /* answered with an error, lost or never sent */
    int client_bound;                /* the load generator, not the service, was the limit */
    int errors_over_limit;           /* more errors than the plan allows */
};
void mtb_rec_figures_read(json_t *rec, struct mtb_rec_figures *f);
/** @return the pair metric p of a tagged run and its baseline; NaN when a
 *  figure is missing or a denominator is not positive */
double mtb_record_pair_metric(json_t *tagged, json_t *baseline, enum mtb_pair_metric_id p);

/* ---- making ------------------------------------------------------------------------- */

/* Who a run is: its configuration and its place in the plan. Set once, on
 * the record this machine makes (mtb_record_begin), whether the run is
 * performed here or elsewhere (the agent step: a far side's record takes
 * the controller's identity, mtb_record_identify). */
struct mtb_record_id {
    const char *service, *variant, *mode, *platform, *kernel, *plan;
    const char *allocator;          /* NULL: glibc */
    int rep, index, total;          /* repetition (1-based), position in the plan */
    json_t *workload;               /* config.workload (borrowed; copied in) */
    json_t *build;                  /* the build's record object (borrowed) */
};

/* The run's status as a record says it. */
enum mtb_run_status { MTB_RUN_OK = 0, MTB_RUN_FAULT = 1, MTB_RUN_ERROR = 2 };

/** A new record: schema, version, started (now), config from id, build.
 *  @return the record (status not yet set) */
json_t *mtb_record_begin(const struct mtb_record_id *id);
/** Set id over rec's config (every identity key, workload included), version
 *  and build; a far side's other config keys are kept */
void mtb_record_identify(json_t *rec, const struct mtb_record_id *id);
/** status "error" with err */
void mtb_record_fail(json_t *rec, const char *err);
/** @return the record's status (no status, or an unknown one: error) */
enum mtb_run_status mtb_record_status(json_t *rec);
/** The record ended: `finished` (now), written to DIR/record.json
 *  atomically; a record that could not be written is an error marked
 *  `not_written` (never listed as a result). @return its status */
enum mtb_run_status mtb_record_end(json_t *rec, const char *dir);
/** The record's `warnings` (replacing any): a tagged mode with zero `mt`
 *  mappings where smaps shows them (host, vm), NUMA unbound. @return their count */
int mtb_record_warnings_add(json_t *rec);

/* ---- writing ------------------------------------------------------------------------ */

/** mtb_record_write - PATH written atomically (rename of a temporary file),
 *  indented, keys sorted. @return 0, or a negative errno value */
int mtb_record_write(const char *path, json_t *rec);

/* ---- loading ------------------------------------------------------------------------ */

/* Why a file is not used as a record. */
enum mtb_record_problem {
    MTB_REC_OK = 0,
    MTB_REC_NOT_JSON,     /* not valid JSON */
    MTB_REC_NOT_OBJECT,   /* a JSON array or scalar */
    MTB_REC_NO_SCHEMA,    /* no "schema" field */
    MTB_REC_OTHER_SCHEMA, /* a schema this version does not read */
    MTB_REC_NO_SERVICE,   /* no config.service */
    MTB_REC_NO_FIGURES,   /* status ok but no summary.ops_per_sec */
    MTB_REC_COUNTED,      /* a counted run (--count): its figures are no timing */
    MTB_REC_BAD_CONFIG,   /* a config key missing or of the wrong type (named) */
};
/* A record's configuration, its identity, typed and checked once
 * (mtb_rec_config_get): the strings and the workload are the record's own
 * (valid while it is), a key it lacks is named, never read as "". Records
 * of earlier versions load: plan, allocator, index and total may be absent
 * (plan "", allocator "glibc", index and total 0). */
struct mtb_rec_config {
    const char *service, *variant, *mode, *platform, *kernel, *plan, *allocator;
    int rep, index, total;
    json_t *workload;
};
/** rec's config into c. @return 0, or -1 with why naming the key
 *  ("config.rep: a string, not an integer"; why may be NULL) */
int mtb_rec_config_get(json_t *rec, struct mtb_rec_config *c, char *why, size_t n);
/** rec's configuration into c: typed (mtb_rec_config_get) when whole, as
 *  every record of a set is (mtb_record_check); else each key as the record
 *  has it ("" when absent, allocator "glibc", workload NULL when absent):
 *  for a view that shows any record as it is */
void mtb_rec_config_view(json_t *rec, struct mtb_rec_config *c);
/** @return 1 if c is a baseline's (plain/off) */
int mtb_rec_config_is_baseline(const struct mtb_rec_config *c);
/** @return the problem's short name ("not-json", "other-schema", ...) */
const char *mtb_record_problem_name(enum mtb_record_problem p);
/** mtb_record_check - is rec a usable record? msg receives the reason in words.
 *  @return MTB_REC_OK or the problem */
enum mtb_record_problem mtb_record_check(json_t *rec, char *msg, size_t msglen);

struct mtb_record_set {
    json_t *records; /* every valid record, any status */
    json_t *files;   /* the path of each record, parallel to records */
    json_t *bad;     /* [{"file", "problem" (words), "reason" (a problem name)}] */
    json_t *dirs;    /* the result directories read */
};

/** mtb_record_set_init - an empty set. @return 0, or -ENOMEM */
int mtb_record_set_init(struct mtb_record_set *set);
/**
 * mtb_record_load - add DIR/record.json and DIR/<any>/record.json of each dir.
 * A record is kept if mtb_record_check accepts it; anything else goes into
 * set->bad with the reason (never fatal). The same file reached twice is
 * read once.
 * @return 0, or -ENOMEM
 */
int mtb_record_load(char *const dirs[], int ndirs, struct mtb_record_set *set);
/** mtb_record_set_from - a set of records already in memory (a plan just
 *  run, nothing read back): those mtb_record_check accepts, with their
 *  files (parallel to records), from the results directory dir.
 *  @return 0, -ENOMEM */
int mtb_record_set_from(json_t *records, json_t *files, const char *dir, struct mtb_record_set *set);
void mtb_record_set_free(struct mtb_record_set *set);
/* A file the set did not use (set->bad's entry i): the file, the problem in
 * words, its short name (mtb_record_problem_name); "" when absent. */
struct mtb_record_bad {
    const char *file, *problem, *reason;
};
void mtb_record_bad_read(const struct mtb_record_set *set, size_t i, struct mtb_record_bad *b);
/** @return the number of records with status ok (usable for statistics) */
size_t mtb_record_usable(const struct mtb_record_set *set);

/* ---- the record's facts ------------------------------------------------------------- */

/** @return 1 if the record was measured on an emulated platform (its
 *  platform.emulated; never guessed from the platform's name) */
int mtb_record_emulated(json_t *rec);
/* A canonical text of a workload object (sorted keys, numbers by value, so
 * 2 and 2.0 are equal): what identifies a workload. Heap string. */
char *mtb_workload_key(json_t *workload);
/* @return 1 if two workload objects are the same workload */
int mtb_workload_equal(json_t *a, json_t *b);
/** @return the machine profile as canonical text (what the runs were pinned
 *  to), "" without one; part of the series key and of the pairing rule */
char *mtb_record_machine_text(json_t *rec);
/* A record's hosts block (a run on a server host, or with client hosts; a
 * vm run's controller): the strings "" when absent. */
struct mtb_rec_hosts {
    json_t *j;                   /* the block (borrowed), or NULL */
    const char *server_host;     /* the server host the plan named */
    const char *far_out;         /* where the far run's output stays there (until it is brought back) */
};
void mtb_rec_hosts_read(json_t *rec, struct mtb_rec_hosts *h);
/** hosts.KEY set to value (stolen); a record without a hosts block is left as it is */
void mtb_record_hosts_set(json_t *rec, const char *key, json_t *value);
/** the file of the load's latency log (load.hlog) set to path (a string,
 *  stolen): where a far side's run directory came back to */
void mtb_record_load_hlog(json_t *rec, json_t *path);
/** the kernel's identity as the record has it (kernel.uname_r, build_hash,
 *  config_hash, source, patches: those it has) set into the object into */
void mtb_record_kernel_identity(json_t *rec, json_t *into);
/** @return 1 if rec has a config block (an object), whole or not */
int mtb_record_has_config(json_t *rec);
/** @return the machine profile's name (machine.name), "" without one */
const char *mtb_record_machine_name(json_t *rec);

/* ---- the pairing rule --------------------------------------------------------------
 *
 * A run is a baseline when its variant is "plain" and its mode "off"; every
 * other run is tagged. A tagged run pairs with the baseline run of the same
 * repetition and the same pair key: plan, service, workload (every
 * parameter), platform, kernel and machine profile, made on the same host
 * (mtb_record_host; the history's runs.host); the history adds "of the same
 * night" (a results directory is one night). One list of fields,
 * rendered as a key in C and as a join condition in SQL. */
#define MTB_PAIR_FIELDS(X) X(plan) X(service) X(workload) X(platform) X(kernel) X(machine) X(allocator)

/** @return the host a record's run ran on: a server host's name
 *  (hosts.server.hostname), on vm the machine that booted the guest
 *  (hosts.controller.hostname), else the environment's hostname (this
 *  machine's, for a run here); "" in records from before they kept it. The
 *  pairing rule, the reports' per-host rows and the history's series use it. */
const char *mtb_record_host(json_t *rec);
/** @return 1 if config (a record's "config") is a baseline (plain/off) */
int mtb_record_is_baseline(json_t *config);
/** @return the pair key of a record (heap string): equal for a tagged run and
 *  its baseline, whatever their variant, mode and repetition; NULL when its
 *  config is incomplete (mtb_rec_config_get: such a record pairs with none) */
char *mtb_record_pair_key(json_t *rec);
/** @return 1 if baseline is the partner of tagged under the rule above */
int mtb_record_pairs(json_t *tagged, json_t *baseline);
/** @return the index in records of rec's baseline partner (status ok), or -1 */
long mtb_record_partner(json_t *records, json_t *rec);
/** @return for each record (status ok, tagged) the index of its baseline
 *  partner, else -1: a heap array parallel to records (each pair key built
 *  once; for a whole set, as runs.csv needs) */
long *mtb_record_partners(json_t *records);
/** @return the SQL condition joining a tagged run t to its baseline b in the
 *  history's runs table (heap string), repetition, night and host included */
char *mtb_record_pair_sql(const char *t, const char *b);
/* The record's headline figures (from its "summary"); 0 if absent. */
double mtb_record_num(json_t *rec, const char *key);
#endif
