/* mtload_exit.h - mtload's exit statuses (docs/MTLOAD.md "Exit status"),
 * shared with the harness that runs it. */
#ifndef MTB_MTLOAD_EXIT_H
#define MTB_MTLOAD_EXIT_H

/** The run measured, every result written, errors within --error-limit. */
#define MTL_EXIT_OK 0
/** Nothing trustworthy: the engine failed, a result file could not be
 *  written, or a --preload did not store every key. */
#define MTL_EXIT_FAILED 1
/** A bad command line. */
#define MTL_EXIT_USAGE 2
/** The run measured and its results are written, but more of its requests
 *  than --error-limit were answered with an error, lost or never sent, or
 *  none was answered at all (totals.errors_over_limit). */
#define MTL_EXIT_ERRORS 3

#endif
