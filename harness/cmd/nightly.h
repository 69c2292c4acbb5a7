/* nightly.h - `mtebench nightly`: run a fixed plan (or ingest result
 * directories), append the runs to the history, test every series
 * (configuration x metric: throughput, p99, overhead ratio) for change
 * points, write the dashboard and digest, and exit 3 when a new regression
 * is confirmed. The analysis itself: analysis/nightly_analyse.h. */
#ifndef MTB_NIGHTLY_H
#define MTB_NIGHTLY_H
/* Exit statuses of `mtebench nightly`. */
enum {
    MTB_NIGHTLY_OK = 0,         /* no new regression */
    MTB_NIGHTLY_ERROR = 1,      /* runs failed, a file could not be written */
    MTB_NIGHTLY_USAGE = 2,      /* bad option, unreadable plan, nothing to ingest */
    MTB_NIGHTLY_REGRESSION = 3, /* a new regression is confirmed */
    MTB_NIGHTLY_HISTORY = 4,    /* the history cannot be used (corrupt, foreign, newer, PostgreSQL) */
};

#endif
