/* history.h - the results history of the nightly: an SQLite database
 * (default results/history.sqlite), or a PostgreSQL database given by a
 * postgresql:// URL (one store for several machines), holding one row per
 * run and one per overhead pair, grouped into nights. Both backends share the
 * schema, its versions and migrations; the callers see one API.
 *
 * A series is one configuration on one host: plan, service, workload with
 * every parameter, variant, mode, platform, kernel and machine profile, run on
 * the host the record names (record.h's mtb_record_host: a server host, the
 * machine itself; "unknown" when the record does not say). Its key ends in
 * " on HOST#" and a hash of that configuration, so a plan whose configuration
 * changes starts new series instead of mixing old and new runs, and two
 * machines running the same plan into one history keep a series each.
 *
 * Schema (version MTB_HISTORY_VERSION: SQLite keeps it in PRAGMA user_version,
 * PostgreSQL in a table schema_version(program, version), row 'mtebench'):
 *   nights(id, plan, started, results_dir, host, mtebench_version, report)
 *   runs(id, night, plan, series, config_hash, service, workload, variant,
 *        mode, platform, kernel, machine, started, rep, mtebench_version,
 *        build_key, kernel_release, kernel_build, status, <run metrics>,
 *        emulated, host, record UNIQUE, steal)
 *   overheads(id, night, plan, series, config_hash, service, workload, mode,
 *        platform, kernel, machine, rep, started, <pair metrics>, base_build,
 *        tagged_build, emulated, host; UNIQUE(series, night, rep))
 *   capacity(id, night, plan, series, config_hash, service, workload,
 *        variant, mode, platform, kernel, machine, host, started, bound,
 *        arrival, confidence, status, capacity, lo, hi, closed_loop_ops,
 *        overhead, overhead_lo, overhead_hi, baseline, emulated,
 *        mtebench_version, build_key, result; UNIQUE(series, night),
 *        UNIQUE(result, series)): a capacity search's result per
 *        configuration and bound (a plan entry with an slo); its series key
 *        is "capacity:" and the configuration's run series, the bound and
 *        the arrivals
 *   work(id, night, plan, series, config_hash, service, workload, variant,
 *        mode, platform, kernel, machine, host, started, role, requests,
 *        el0_insns, el1_insns, el0_tag_insns, el1_tag_insns, el0_tag_bytes,
 *        el1_tag_bytes, el0_checked, el1_checked, mtebench_version,
 *        build_key, kernel_release, kernel_build, record UNIQUE): MTE's
 *        work per request of a counted run (a plan's `count`; core/work.h's
 *        quantities); its series key is the counted run's configuration
 *        key (its plan is "work": "work/SERVICE/...")
 * The metric columns are those of record.h's metric table marked
 * MTB_V_HISTORY (runs: ops_per_sec, p50_us, p99_us, p999_us; overheads:
 * slowdown, p99_ratio, ...); a column the table gained is added to an
 * existing history when it is opened (additive: older nights hold NULL).
 * Overheads pair runs by record.h's pairing rule (the join is generated
 * from it). emulated is the record's platform.emulated; steal the
 * hypervisor's share of the run's CPUs (record.steal.share, NULL where the
 * record has none; added like a metric column, no version change).
 * Version 1 (the first layout) had only runs, without nights, series,
 * machine or kernel build; version 2 had no emulated columns (migrating
 * reads each record file that still exists, else assumes platform "emu" is
 * emulated); version 3 had no host: its series keys lacked " on HOST", so
 * two hosts' runs of one configuration shared a series (migrating reads
 * each record file that still exists for its host, else says "unknown",
 * and derives the overheads again, never pairing runs of two hosts);
 * version 4 had no capacity table, version 5 no work table (migrating
 * creates each empty).
 * Opening an older history migrates it in one transaction.
 *
 * In PostgreSQL, runs.record is "host:path" (two machines may use the same
 * paths), creation and migration run under a transaction-scoped advisory
 * lock, and every append is one transaction under the same lock.
 *
 * Functions return 0 or a negative errno value and write a message into
 * err; they never exit. A database that cannot be read or reached, fails
 * PRAGMA integrity_check, or is not an mtebench history (tables named like
 * ours but shaped otherwise) is refused (-EIO): a broken history is never
 * silently replaced by a new one. Messages never contain the URL's password.
 */
#ifndef MTB_HISTORY_H
#define MTB_HISTORY_H
#include <jansson.h>
#include "lib/err.h"
#include <stddef.h>

#define MTB_HISTORY_VERSION 6
/* the host of runs whose records do not say it (records from before they
 * kept it; runs of older histories whose record files are gone) */
#define MTB_HISTORY_UNKNOWN_HOST "unknown"

struct mtb_history;

/**
 * mtb_history_open - open (or create) a history.
 * @param where  a file path, or a postgresql:// (postgres://) URL as libpq reads it
 * @param h      receives the handle
 * @param created if not NULL, set to 1 when a new history was created
 * @return 0; -ENOTSUP (a PostgreSQL URL, but built without libpq);
 *         -EIO (unreadable, unreachable or corrupt database, authentication
 *         failed, or not an mtebench history);
 *         -EPROTO (written by a newer mtebench: schema version above ours);
 *         -ENOMEM
 */
int mtb_history_open(const char *where, struct mtb_history **h, int *created, char *err, size_t errlen);
void mtb_history_close(struct mtb_history *h);
/** @return the schema version of the open database */
int mtb_history_schema(struct mtb_history *h);
/** @return "SQLite" or "PostgreSQL" */
const char *mtb_history_backend(struct mtb_history *h);
/**
 * Run a script of statements (type tokens @INT@, @REAL@, ... mapped) in one
 * write transaction of the history (SQLite BEGIN IMMEDIATE; PostgreSQL under
 * the writers' advisory lock), rolled back on error. For history_views.c.
 * @return 0, or <0 with why in err.
 */
int mtb_history_write_script(struct mtb_history *h, const char *sql, char *err, size_t errlen);
/**
 * mtb_history_redact - where, fit to print: a postgresql:// URL with its
 * password (user:PASSWORD@ and password=...) replaced by ***; a path as is.
 * @return a heap string
 */
char *mtb_history_redact(const char *where);

/**
 * mtb_history_series_key - the series of a run record: a readable key
 * ("plan/service/default mix 1:10/tagged/async/emu/host/auto on HOST") and
 * the hash of its configuration (12 hex digits; the same on every host).
 * @param key   receives a heap string "<readable>#<hash>"
 * @param hash  receives the hash
 */
void mtb_history_series_key(json_t *rec, char **key, char hash[13]);

/**
 * mtb_history_add_night - append one night: its records (with the paths of
 * their files) and the overhead pairs derived from them. Records already in
 * the history (same file) are skipped, so ingesting a directory twice adds
 * nothing. All or nothing (one transaction).
 * @param in     the night (struct mtb_night_in)
 * @param night  receives the night's id (0 if every record and result was a duplicate)
 * @param added  receives the number of runs and capacity rows added
 * @return 0, or -EINVAL, -EIO with e set
 */
struct mtb_night_in {
    const char *plan;        /* plan name (records carry their own too) */
    const char *results_dir; /* where the night's records are */
    const char *report;      /* path of the night's HTML report, or NULL */
    json_t *records, *files; /* run records, and their paths, parallel */
    json_t *capacity;        /* capacity search results (mtebench-capacity/1, each with "file": its
                              * capacity.json) or NULL: a row per configuration and bound into the
                              * capacity table */
    json_t *work, *work_files; /* counted runs' records (with `work`), and their paths, or NULL: a row
                                * each into the work table */
};
int mtb_history_add_night(struct mtb_history *h, const struct mtb_night_in *in, long long *night, int *added,
                          struct mtb_err *e);

/**
 * mtb_history_load - every series with its points, oldest night first.
 * @param out  receives [{"series", "hash", "kind": "run"|"overhead"|"capacity"|"work", "plan",
 *             "service", "workload", "variant", "mode", "platform", "kernel",
 *             "machine", "host", "points": [{"night", "night_started", "report",
 *             "results_dir", "started", "rep", "status", "ops_per_sec",
 *             "p99_us", "slowdown", "p99_ratio", "mtebench_version",
 *             "build_key", "kernel_release", "kernel_build", "record"}]}]
 *             (capacity points: one a night, "bound", "capacity",
 *             "capacity_lo", "capacity_hi", "capacity_overhead" with
 *             "_lo"/"_hi", "closed_loop_ops"; status "ok" when found)
 *             (caller decrefs)
 * @return 0, -EIO
 */
int mtb_history_load(struct mtb_history *h, json_t **out, char *err, size_t errlen);

/** @return the number of nights, or a negative errno value */
long long mtb_history_nights(struct mtb_history *h, char *err, size_t errlen);
#endif
