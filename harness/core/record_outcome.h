/* record_outcome.h - how a record's run ended, read once into a struct:
 * its error, the fault it took, what a trigger saw (load.trigger: the bytes
 * answered, the connection closed, the service alive after), the proof's
 * verdict, and where its service log is. detect reads a trial's and a
 * control's run through these fields, never the record by key.
 *
 * A string the record lacks reads as NULL; a count or flag as 0. The json_t
 * pointers are the record's own (borrowed, NULL when absent), kept for
 * copying into a trial's detect.json as they are. Valid while the record is.
 *
 *   struct mtb_rec_outcome o;
 *   mtb_rec_outcome_read(rec, &o);
 *   ... o.error, o.trigger.alive_after, o.fault ...
 */
#ifndef MTB_RECORD_OUTCOME_H
#define MTB_RECORD_OUTCOME_H
#include <jansson.h>

/* what the load's trigger saw (load.trigger) */
struct mtb_rec_trigger {
    int present;
    int embedded;                /* the service is the program: its run is the answer */
    int closed, alive_after;     /* the connection closed; the service answered after it */
    long long received;          /* bytes answered */
    json_t *j;                   /* the record's object (borrowed) */
};

struct mtb_rec_outcome {
    const char *status;          /* "ok", "error", "fault" (core/record.h), or NULL */
    int not_written;             /* the record could not be written (core/record.c) */
    const char *error;           /* why the run failed, or NULL */
    const char *service_log;     /* logs.service: the service's log, from the run's directory */
    const char *platform_name;   /* platform.name */
    json_t *platform;            /* the record's platform object (borrowed) */
    json_t *fault;               /* the fault it took (run/faultrep.c's), or NULL */
    json_t *proof_ok;            /* proof.ok (true, false), or NULL */
    json_t *build_key;           /* build.key, or NULL */
    json_t *warnings;            /* the run's own warnings (an array of strings), or NULL */
    json_t *perf;                /* the perf block (borrowed), or NULL */
    int has_work;                /* a counted run's work account (core/work.h) is there */
    json_t *work_tasks;          /* work.tasks: the guest's list of the service's tasks (borrowed), or NULL */
    json_t *perf_per_request;    /* perf.per_request: each event per request (borrowed), or NULL */
    /* the service's own counters over the window (service_counters.delta) */
    int has_objtag;              /* objtag_ops and objtag_granules are integers (the objtag variants) */
    long long objtag_ops, objtag_granules;
    json_t *counters_delta;      /* service_counters.delta (borrowed), or NULL */
    double counted_requests;     /* the requests it counted: cmd_get + cmd_set (memcached), else requests
                                  * (nginx, RocksDB), else xact_commit + xact_rollback (PostgreSQL); NaN: none */
    struct mtb_rec_trigger trigger;
};

void mtb_rec_outcome_read(json_t *rec, struct mtb_rec_outcome *o);
/** the service's counters over a window (a record's service_counters.delta):
 *  after - before of each counter both give as a whole number. @return a new object */
json_t *mtb_counters_delta(json_t *before, json_t *after);
/** the sum of the counters named in what ("cmd_get + cmd_set": a recipe's
 *  [run] counted) in counters (a delta). @return it, or -1 when what or
 *  counters is NULL or a counter is not a whole number there */
long long mtb_counters_sum(json_t *counters, const char *what);
/** the record's error (why its run failed), or NULL */
const char *mtb_rec_outcome_error(json_t *rec);
#endif
