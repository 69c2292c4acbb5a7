/* bisect_report.c - a bisection's outcome as bisect.json, report.md and index.html */
#include "bisect/bisect.h"
#include "bisect/bisect_int.h"
#include "lib/jsonx.h"
#include "analysis/stats.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the report -------------------------------------------------------------------- */

/* a number, or null when it is not finite (jansson refuses NaN) */
static json_t *jnum(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *mtb_bisect_result_json(struct mtb_bisect_ctx *c, const struct mtb_bisect_result *res, double secs)
{
    struct mtb_bisect_opts *o = c->o;
    json_t *revs = json_array(), *culprits = json_array(), *pass = json_array();
    for (int k = 0; k < o->pass.n; k++)
        json_array_append_new(pass, json_string(o->pass.v[k]));
    for (size_t i = 0; i < c->n; i++) {
        json_t *x = json_array();
        for (size_t k = 0; k < c->revs[i].n; k++)
            json_array_append_new(x, json_real(c->revs[i].x[k]));
        json_t *median = c->revs[i].n ? json_real(mtb_stats_median(c->revs[i].x, c->revs[i].n)) : json_null();
        json_array_append_new(revs, json_pack("{s:i, s:s, s:s, s:s, s:b, s:s?, s:o, s:o}", "rev", (int)i, "sha",
                                              c->r[i].sha, "subject", c->r[i].subject, "build",
                                              c->revs[i].built > 0 ? "ok" : c->revs[i].built < 0 ? "failed" : "not tested",
                                              "new_build", c->r[i].new_build, "build_key", c->r[i].build_key, "samples", x,
                                              "median", median));
    }
    for (size_t k = 0; k < res->nculprits; k++) {
        const struct mtb_bisect_culprit *u = &res->culprits[k];
        json_array_append_new(culprits,
                              json_pack("{s:i, s:s, s:s, s:i, s:i, s:o, s:o, s:o, s:o, s:s}", "rev", (int)u->bad, "sha",
                                        c->r[u->bad].sha, "subject", c->r[u->bad].subject, "good_rev", (int)u->good,
                                        "skipped_between", (int)u->skipped, "effect", jnum(u->effect), "effect_lo",
                                        jnum(u->lo), "effect_hi", jnum(u->hi), "p", jnum(u->c.p), "verdict", mtb_pinpoint_verdict_name(u->c.v)));
    }
    const char *outcome = c->err[0] ? "failed" : res->outcome == BS_FOUND ? "found" : res->outcome == BS_NOT_REPRODUCED ? "not reproduced" : "failed";
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:{s:i, s:i, s:i, s:i, s:f}, s:s, s:s, "
                     "s:o, s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:o, s:o, s:o}",
                     "schema", "mtebench-bisect/1", "repo", o->repo, "axis", o->axis, "service", o->service, "good",
                     c->r[0].sha, "bad", c->r[c->n - 1].sha, "metric", mtb_run_metrics[o->metric].key, "unit",
                     mtb_run_metrics[o->metric].unit, "better", o->cfg.better, "run_options", pass, "rule", "reps",
                     o->cfg.reps, "add_reps", o->cfg.add_reps, "max_reps", o->cfg.max_reps, "refresh", o->cfg.refresh,
                     "min_change", o->cfg.min_change, "outcome", outcome, "why", c->err[0] ? c->err : res->why,
                     "end_effect", jnum(res->end_effect), "culprits", culprits, "revisions_in_range", (int)c->n,
                     "revisions_tested", res->tested, "builds", res->builds, "new_builds", c->new_builds, "skipped",
                     res->skipped, "runs", res->runs, "seconds", secs, "revisions", revs, "steps", json_incref(c->steps),
                     "run_list", json_incref(c->runs));
}

static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

/* one writer for both formats: md 1 Markdown, 0 HTML */
static void write_doc(FILE *f, json_t *j, int md)
{
    const char *unit = mtb_jstr(j, "unit");
    if (!md)
        fputs("<!doctype html><html><head><meta charset=\"utf-8\"><title>mtebench bisect</title><style>body{font-family:"
              "sans-serif;max-width:70em;margin:auto}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
              ".culprit{background:#fdd}</style></head><body>\n", f);
    fprintf(f, md ? "# bisect: %s\n\n" : "<h1>bisect: ", mtb_jstr(j, "outcome"));
    if (!md) {
        html_text(f, mtb_jstr(j, "outcome"));
        fputs("</h1>\n<p>", f);
    }
    char line[2048];
    snprintf(line, sizeof line, "%s, %s of services/%s and patches/%s in %s, %.12s (good) .. %.12s (bad); metric %s",
             mtb_jstr(j, "why")[0] ? mtb_jstr(j, "why") : "culprit named", mtb_jstr(j, "axis"), mtb_jstr(j, "service"),
             mtb_jstr(j, "service"), mtb_jstr(j, "repo"), mtb_jstr(j, "good"), mtb_jstr(j, "bad"), mtb_jstr(j, "metric"));
    md ? fputs(line, f) : html_text(f, line);
    snprintf(line, sizeof line, ". %d revisions in the range, %d tested, %d builds (%d new, %d did not build), %d runs, %.0f s.",
             (int)mtb_jnum(j, "revisions_in_range"), (int)mtb_jnum(j, "revisions_tested"), (int)mtb_jnum(j, "builds"),
             (int)mtb_jnum(j, "new_builds"), (int)mtb_jnum(j, "skipped"), (int)mtb_jnum(j, "runs"), mtb_jnum(j, "seconds"));
    md ? fputs(line, f) : html_text(f, line);
    fputs(md ? "\n\nRun options:" : "</p><p>Run options:", f);
    size_t k;
    json_t *v;
    json_array_foreach(json_object_get(j, "run_options"), k, v)
    {
        fputc(' ', f);
        md ? fputs(json_string_value(v), f) : html_text(f, json_string_value(v));
    }
    fputs(md ? "\n\n## Culprits\n\n| revision | commit | subject | effect | 95% interval | p |\n|---|---|---|---|---|---|\n"
             : "</p><h2>Culprits</h2><table><tr><th>revision</th><th>commit</th><th>subject</th><th>effect</th><th>95% "
               "interval</th><th>p</th></tr>\n",
          f);
    json_array_foreach(json_object_get(j, "culprits"), k, v)
    {
        fprintf(f, md ? "| r%02d%s | %.12s | " : "<tr class=\"culprit\"><td>r%02d%s</td><td>%.12s</td><td>",
                (int)mtb_jnum(v, "rev"), mtb_jnum(v, "skipped_between") > 0 ? " (or one before it that did not build)" : "",
                mtb_jstr(v, "sha"));
        md ? fputs(mtb_jstr(v, "subject"), f) : html_text(f, mtb_jstr(v, "subject"));
        fprintf(f, md ? " | %+.1f%% | %+.1f%% .. %+.1f%% | %.3g |\n" : "</td><td>%+.1f%%</td><td>%+.1f%% .. %+.1f%%</td><td>%.3g</td></tr>\n",
                100 * mtb_jnum(v, "effect"), 100 * mtb_jnum(v, "effect_lo"), 100 * mtb_jnum(v, "effect_hi"), mtb_jnum(v, "p"));
    }
    fprintf(f, md ? "\n## Revisions\n\n| revision | commit | subject | build | runs | median %s |\n|---|---|---|---|---|---|\n"
                  : "</table><h2>Revisions</h2><table><tr><th>revision</th><th>commit</th><th>subject</th><th>build</th>"
                    "<th>runs</th><th>median %s</th></tr>\n",
            unit);
    json_array_foreach(json_object_get(j, "revisions"), k, v)
    {
        size_t n = json_array_size(json_object_get(v, "samples"));
        fprintf(f, md ? "| r%02zu | %.12s | " : "<tr><td>r%02zu</td><td>%.12s</td><td>", k, mtb_jstr(v, "sha"));
        md ? fputs(mtb_jstr(v, "subject"), f) : html_text(f, mtb_jstr(v, "subject"));
        if (n)
            fprintf(f, md ? " | %s | %zu | %.6g |\n" : "</td><td>%s</td><td>%zu</td><td>%.6g</td></tr>\n", mtb_jstr(v, "build"), n,
                    mtb_jnum(v, "median"));
        else
            fprintf(f, md ? " | %s | 0 | |\n" : "</td><td>%s</td><td>0</td><td></td></tr>\n", mtb_jstr(v, "build"));
    }
    fputs(md ? "\nEvery comparison, its samples and each run: `bisect.json` (steps, run_list).\n"
             : "</table><p>Every comparison, its samples and each run: <code>bisect.json</code> (steps, run_list).</p></body></html>\n",
          f);
}

int mtb_bisect_write_report(struct mtb_bisect_ctx *c, json_t *j)
{
    char *pj = mtb_asprintf("%s/bisect.json", c->outdir), *pm = mtb_asprintf("%s/report.md", c->outdir),
         *ph = mtb_asprintf("%s/index.html", c->outdir);
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
    int rc = s ? mtb_write_atomic(pj, s, strlen(s)) : -ENOMEM;
    free(s);
    for (int md = 1; md >= 0 && !rc; md--) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            return -ENOMEM;
        write_doc(f, j, md);
        fclose(f);
        rc = mtb_write_atomic(md ? pm : ph, buf, len);
        free(buf);
    }
    if (!rc)
        printf("bisect: report %s, %s, %s\n", pm, ph, pj);
    free(pj);
    free(pm);
    free(ph);
    return rc;
}
