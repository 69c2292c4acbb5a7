/* dashboard.h - the nightly's dashboard: OUT/index.html (self-contained:
 * inline CSS and SVG; one trend plot per series with its change points, the
 * open regressions, the nights with links to their run reports),
 * OUT/digest.md (short, for an e-mail) and OUT/analysis.json, written from
 * the analysis of mtb_nightly_analyse (nightly.h). */
#ifndef MTB_DASHBOARD_H
#define MTB_DASHBOARD_H
#include <jansson.h>
#include <stddef.h>

/**
 * mtb_dashboard_write - write the dashboard of an analysis.
 * @param analysis  from mtb_nightly_analyse, with "new" (the new
 *                  regressions) and "settings" added by the caller
 * @param digest    if not NULL, receives the digest's text (heap string;
 *                  what digest.md holds, not read back)
 * @return 0, or -EIO with err set
 */
int mtb_dashboard_write(json_t *analysis, const char *out, char **digest, char *err, size_t errlen);
#endif
