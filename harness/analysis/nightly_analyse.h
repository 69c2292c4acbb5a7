/* nightly_analyse.h - the nightly's analysis of its history: the nights
 * (busy or quiet), each series' change points, the open regressions and
 * what a bisection of each would search. Statistics only: the nightly
 * command (cmd/nightly.c) runs the plan, keeps the history and proposes
 * the bisections. */
#ifndef MTB_NIGHTLY_ANALYSE_H
#define MTB_NIGHTLY_ANALYSE_H
#include <jansson.h>
#include "analysis/changepoint.h"

/**
 * mtb_nightly_analyse - test every series of a history for change points.
 * @param history  as returned by mtb_history_load
 * @param o        detection options
 * @param exclude  night ids to leave out (an array of integers), or NULL:
 *                 what the history looked like before them
 * Busy nights (a record's environment.quiet.quiet false, or the
 * hypervisor's share of the runs' CPUs, the median of their steal, more than
 * MTB_NIGHT_STEAL_EXCESS above the typical night's: the lower median of the
 * nights') are kept out of the change-point test when some night was quiet
 * (on a machine never quiet they are compared: there is nothing else), and
 * are listed. A machine whose steal is high every night is compared as it
 * is: only a night unlike the others is a busy one.
 * @return {"nights": [{id, started, report, results_dir, x, quiet (true,
 *                      false, null: no record here), busy_why, busy,
 *                      steal (median of its runs, absent if unknown)}],
 *          "busy_nights": [ids], "busy_excluded": bool,
 *          "series": [{id, key, label, metric, unit, better, platform,
 *                      emulated, x: [...], y: [...], changes: [...]}],
 *          "open": [the open regressions: the last change of a series, when
 *                   it is a regression]}
 *         A change: {night, night_started, x, index, kind (regression |
 *         improvement | change | machine: a regression with no revision
 *         changed across it and the nights after it at
 *         MTB_NIGHT_STEAL_EXCESS more steal than those before, machine_why;
 *         never open), change, ci_lo, ci_hi, before, after,
 *         n_before, n_after, p_split, p_mwu, from_newest, open,
 *         revisions_before{}, revisions_after{}, report_before,
 *         report_after, series, label, metric, and for a regression that
 *         is not the machine's, of a series bisect can measure (not a
 *         capacity), between two known revisions: bisect_from{good, bad,
 *         service, variant, mode, platform, workload, metric}, which
 *         cmd/nightly.c makes the change's `bisect` command}.
 */
json_t *mtb_nightly_analyse(json_t *history, const struct mtb_cp_opts *o, json_t *exclude);
/* A night whose runs lost this much more of their CPUs to the hypervisor
 * than the typical night's (0.10: ten points of steal, e.g. 31% against
 * 21%) measured a slower machine. CI on a97a1f6 (a shared 2-core VM)
 * reported a night of nightly-e2e.t's 0.5 s emulated runs at -54% with
 * nothing changed; steal was not recorded then, so its cause is not known. */
#define MTB_NIGHT_STEAL_EXCESS 0.10
#endif
