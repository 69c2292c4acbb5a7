/* history_bisect.h - bisections in the history (history.h): one row per
 * bisection and one per comparison step, with the samples it saw, so the
 * history that found a regression also holds the search for its commit.
 *
 * Tables (made in the first bisection written to a history, by CREATE TABLE
 * IF NOT EXISTS under the writers' lock: additive, the schema version is not
 * changed and an mtebench without them ignores them):
 *   bisections(id, started, host, mtebench_version, axis, repo, service,
 *        metric, better, good, bad, run_options (JSON array), outcome
 *        ('running' until it ends; then found | not reproduced | failed), why,
 *        culprits (JSON: bisect.json's), revisions_tested, builds, runs,
 *        seconds, report)
 *   bisect_steps(id, bisection, step (0, 1, ... in order), rev_a, sha_a,
 *        rev_b, sha_b, why, verdict (same | different | unknown), p, p_mwu,
 *        p_ks, high, magnitude_iqr, n_a, n_b, samples_a, samples_b (JSON
 *        arrays of the metric's values); UNIQUE(bisection, step))
 * Each step is written as it is decided, so a bisection stopped midway keeps
 * the steps it made. Functions return 0 or a negative errno value (err).
 */
#ifndef MTB_HISTORY_BISECT_H
#define MTB_HISTORY_BISECT_H
#include "history/history.h"

#include <jansson.h>
#include <stddef.h>

/**
 * A bisection begins: its row, outcome 'running'.
 * @param b   {"axis", "repo", "service", "metric", "better", "good", "bad",
 *            "run_options": [...]} (bisect.json's names)
 * @param id  receives the bisection's id
 */
int mtb_history_bisect_begin(struct mtb_history *h, json_t *b, long long *id, char *err, size_t errlen);
/**
 * One comparison: bisect.json's step {"a", "b", "sha_a", "sha_b", "why",
 * "verdict", "p", "p_mwu", "p_ks", "high", "magnitude_iqr", "samples_a",
 * "samples_b"}, the step-th of the bisection.
 */
int mtb_history_bisect_step(struct mtb_history *h, long long id, int step, json_t *s, char *err, size_t errlen);
/** The bisection ended: bisect.json's outcome, why, culprits, counts, seconds, and the report's path. */
int mtb_history_bisect_end(struct mtb_history *h, long long id, json_t *result, const char *report, char *err,
                           size_t errlen);
#endif
