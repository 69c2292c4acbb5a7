/* load_rows.h - a load generator's result (mtload's JSON, schema mtload/1,
 * which the drivers' adapters and the far clients' merge write too; a
 * record keeps it as `load`) read once into a struct: the totals, the
 * error account, the latency percentiles (corrected for coordinated
 * omission, and not), whether the client was the limit, and the engine
 * that ran. The record's summary (core/run_request.c), the run's warnings,
 * the work account's requests, the latency floor and capacity's points read
 * these fields, never the result by key.
 *
 * A number the result lacks, or does not hold as a number, reads as NaN
 * (has_ says whether its key was there); a string or an array as NULL,
 * valid while the result is.
 *
 *   struct mtb_load_view l;
 *   mtb_load_view_read(load, &l);
 *   ... l.ops_per_sec, l.lat[MTB_LAT_CORRECTED].v[MTB_LOAD_P99] ...
 */
#ifndef MTB_LOAD_ROWS_H
#define MTB_LOAD_ROWS_H
#include <jansson.h>

/* the statistics of a latency block (latency_us.corrected, .uncorrected), in us */
#define MTB_LOAD_STATS(X)                                                                             \
    X(MEAN, "mean") X(P50, "p50") X(P90, "p90") X(P99, "p99") X(P999, "p99.9") X(P9999, "p99.99") X(MAX, "max")
enum mtb_load_stat {
#define X(id, key) MTB_LOAD_##id,
    MTB_LOAD_STATS(X)
#undef X
    MTB_LOAD_NSTATS
};

enum { MTB_LAT_CORRECTED, MTB_LAT_UNCORRECTED, MTB_LAT_N };

/* totals' counts, totals.errors by kind, and mtload's account of every
 * request scheduled (totals.accounting) */
#define MTB_LOAD_COUNTS(X) X(REQUESTS, "requests") X(SETS, "sets") X(GETS, "gets") X(HITS, "hits") X(MISSES, "misses")
#define MTB_LOAD_ERRKINDS(X)                                                                          \
    X(SERVER, "server") X(PROTOCOL, "protocol") X(TIMEOUT, "timeout") X(CONNECT, "connect") X(RECONNECTS, "reconnects")
#define MTB_LOAD_ACCOUNT(X)                                                                           \
    X(SENT, "sent") X(ANSWERED, "answered") X(STORED, "stored") X(LOST_TIMEOUT, "lost_timeout")      \
    X(LOST_CLOSED, "lost_closed") X(LOST_GARBLED, "lost_garbled") X(IN_FLIGHT_END, "in_flight_end")   \
    X(UNSENT, "unsent")
enum mtb_load_count {
#define X(id, key) MTB_LOAD_C_##id,
    MTB_LOAD_COUNTS(X)
#undef X
    MTB_LOAD_NCOUNTS
};
enum mtb_load_errkind {
#define X(id, key) MTB_LOAD_E_##id,
    MTB_LOAD_ERRKINDS(X)
#undef X
    MTB_LOAD_NERRKINDS
};
enum mtb_load_account {
#define X(id, key) MTB_LOAD_A_##id,
    MTB_LOAD_ACCOUNT(X)
#undef X
    MTB_LOAD_NACCOUNT
};
extern const char *const mtb_load_count_keys[MTB_LOAD_NCOUNTS], *const mtb_load_errkind_keys[MTB_LOAD_NERRKINDS],
    *const mtb_load_account_keys[MTB_LOAD_NACCOUNT];

struct mtb_load_lat {
    int present;                 /* the block is there */
    int has[MTB_LOAD_NSTATS];    /* each statistic's key is there */
    double v[MTB_LOAD_NSTATS];   /* NaN: absent or not a number */
    long long count;             /* requests it holds */
    json_t *j;                   /* the block (borrowed), or NULL: what a writer hands on as it is */
};

struct mtb_load_view {
    int present;                 /* a result object */
    const char *engine;          /* the I/O engine that ran (mtload's), or NULL */
    /* totals */
    json_t *totals;              /* the block (borrowed), or NULL */
    int has_requests, has_ops_per_sec;
    double requests, ops_per_sec;
    long long errors;            /* totals.errors summed, reconnects aside (they are not failed requests) */
    int has_error_rate;          /* mtload's account: answered with an error, lost or never sent */
    double error_rate, error_limit;
    int has_errors_over_limit, errors_over_limit;
    double count[MTB_LOAD_NCOUNTS];        /* NaN: absent or not a number */
    double errors_by[MTB_LOAD_NERRKINDS];  /* NaN: absent or not a number */
    int has_accounting;          /* totals.accounting: mtload's account of every request scheduled */
    int accounting_whole;        /* ... and it is an object */
    double account[MTB_LOAD_NACCOUNT];     /* NaN: absent or not a number */
    int has_setup;               /* totals.setup: the transactions the clients' own setup made (pgbench) */
    long long setup;
    struct mtb_load_lat lat[MTB_LAT_N];
    int has_client_bound, client_bound; /* cpu.client_bound */
    double cpu_user_s, cpu_sys_s;        /* the client's CPU time; NaN: not said */
    json_t *config;              /* what the load generator was told (borrowed), or NULL */
    json_t *histogram_uncorrected; /* the same without the correction (borrowed), or NULL */
    double duration_s;           /* the measured period; NaN: not said */
    json_t *histogram;           /* the corrected latencies' buckets ([[us, count], ...]; borrowed), or NULL */
    json_t *timeseries;          /* each second's operations ([{t, ops, ...}]; borrowed), or NULL */
    size_t nseconds;             /* its length (mtb_load_second reads each) */
    int has_hlog;                /* an hlog key: the latencies' log was written (core/loadlog.c) */
    const char *hlog;            /* its file, relative to the run's directory (a string), or NULL */
    json_t *clients;             /* the far clients merged (agent/clients.c's "clients"; borrowed), or NULL */
    size_t nclients;             /* how many (0: one load) */
};

void mtb_load_view_read(json_t *load, struct mtb_load_view *l);
/** the same of a record's load (its "load"; none: not present) */
void mtb_load_view_of_record(json_t *rec, struct mtb_load_view *l);
/* second j of the load's timeseries: when (t, 1-based), its operations
 * and errors (NaN: not said) */
struct mtb_load_sec {
    double t, ops, errors;
};
void mtb_load_second(const struct mtb_load_view *l, size_t j, struct mtb_load_sec *s);
/** totals.KEY of a load set to value (stolen): an adapter's own figure
 *  over the one it parsed (db_bench's throughput), pgbench's setup; not a
 *  load with totals: value freed */
void mtb_load_set_total(json_t *load, const char *key, json_t *value);

/* A far client's own account of its load (client.json beside load.json,
 * which the agent writes on a client host): how its load generator exited,
 * how late it started, the CPU it used. A number it lacks reads as 0, the
 * exit text as NULL. */
struct mtb_client_outcome {
    int present;                 /* a client.json object */
    long long exit;              /* the load generator's exit status */
    const char *exit_text;       /* what it said of it, or NULL */
    double late_s, cpu_user_s, cpu_sys_s;
};
void mtb_client_outcome_read(json_t *client, struct mtb_client_outcome *c);

/* A client host's entry of a merged load's "clients" (agent/clients.c's):
 * its directory here and whether its load ended ok; "" when absent. */
struct mtb_client_entry {
    const char *dir, *status;
};
void mtb_client_entry_read(json_t *entry, struct mtb_client_entry *c);

/** the load's latency log (its "hlog") set to path (a string, stolen); not
 *  a load object: path freed */
void mtb_load_set_hlog(json_t *load, json_t *path);
#endif
