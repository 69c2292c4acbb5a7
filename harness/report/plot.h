/* plot.h - the report's plots: gnuplot scripts built from a summary or from
 * run records, rendered to SVG by gnuplot (`set terminal svg`) for inlining
 * into HTML.
 *
 * Script builders return a heap string (free() it), or NULL when there is
 * nothing to plot. Functions returning int return 0 or a negative errno value
 * and write a message into err; nothing aborts. */
#ifndef MTB_PLOT_H
#define MTB_PLOT_H
#include <jansson.h>
#include <stddef.h>

#define MTB_PLOT_EMU_LABEL "emulated: not hardware timing"

/* Script builders. emulated: add the "emulated: not hardware timing" label. */
/* Overhead bars (slowdown with CI error bars) per service, mode and kernel, from a summary. */
char *mtb_plot_overhead_script(json_t *summary);
/* What the price buys (report --detect): each configuration of the
 * summary's protection rows as a point, its overhead (slowdown, the
 * baseline at 1) against the fraction of its catalogue it catches, with
 * both intervals; NULL when there is no row. */
char *mtb_plot_protection_script(json_t *rows, int emulated);
/* Latency percentile spectra of the ok records whose group key (see
 * mtb_plot_group) equals group: one line per configuration, runs merged. */
char *mtb_plot_spectrum_script(json_t *records, const char *group, int emulated);
/* Throughput over time: each configuration of the group as the median of
 * its runs at every second and the band from the lowest to the highest. */
char *mtb_plot_timeseries_script(json_t *records, const char *group, int emulated);

/**
 * mtb_plot_trend_script - a series of the nightly history: every point
 * (x = night number, y = value), the nightly medians joined by a line, and
 * a vertical line at each change point (red: regression, green:
 * improvement, grey: other significant change) labelled with its size.
 * @param title   plot title
 * @param ylabel  y axis label
 * @param x, y    n points
 * @param cps     [{"x": night number of the first point after the change,
 *                "change": relative size, "kind": "regression"|"improvement"|"change"}]
 * @return the script, or NULL when n == 0
 */
char *mtb_plot_trend_script(const char *title, const char *ylabel, const double *x, const double *y, size_t n,
                            json_t *cps, int emulated);

/* The group a record is plotted in: "service, mix M, C conns, platform P"
 * (heap string). */
char *mtb_plot_group(json_t *rec);
/* Throughput against server cores, one line per configuration (the
 * summary's "cores" rows); NULL when there was no core sweep. */
char *mtb_plot_cores_script(json_t *summary);
/* Latency against offered load from a capacity result (mtebench-capacity/1):
 * each configuration's corrected p50, p99 and p99.9 (one colour, three dash
 * types), the SLO's bounds as horizontal lines, each configuration's
 * capacity at the first bound as a vertical line (the knee). NULL: no point. */
char *mtb_plot_capacity_script(json_t *result);


/**
 * mtb_plot_render - run gnuplot on a script and return the SVG, ready to be
 * inlined in HTML: the XML prolog and DOCTYPE removed, element ids prefixed
 * with id_prefix so that several plots can share a page.
 * @param script     gnuplot commands (without terminal/output settings)
 * @param id_prefix  e.g. "p1-"
 * @param svg        receives a heap string
 * @return 0, -ENOENT (gnuplot missing), -EIO (gnuplot failed; err says why)
 */
int mtb_plot_render(const char *script, const char *id_prefix, int width, int height, char **svg, char *err,
                    size_t errlen);
#endif
