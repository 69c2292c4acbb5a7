/* history_views.h - SQL views over the nightly's history for dashboards and
 * change-point tools (Grafana's PostgreSQL or SQLite data source, Apache
 * Otava's PostgreSQL importer; contrib/grafana/, contrib/otava/,
 * docs/FORMATS.md). Each view has a `time` column:
 *   mtebench_runs_v             one row per run: labels and metrics
 *   mtebench_overheads_v        one row per nightly overhead series and night
 *   mtebench_change_points_v    one row per change point the last analysis found
 *   mtebench_digest_v           one row per nightly analysis: its digest text
 * The change points and digests are kept in two tables of their own
 * (mtebench_change_points, replaced by each analysis; mtebench_digests,
 * appended), outside the versioned schema of history.c. */
#ifndef MTB_HISTORY_VIEWS_H
#define MTB_HISTORY_VIEWS_H
#include <jansson.h>
#include <stddef.h>
#include "history/history.h"

/**
 * (Re)create the views and record one analysis (mtb_nightly_analyse's
 * object: its series' changes) and its digest, in one write transaction.
 * @return 0, or <0 with why in err.
 */
int mtb_history_views_update(struct mtb_history *h, json_t *analysis, const char *digest, char *err, size_t errlen);
#endif
