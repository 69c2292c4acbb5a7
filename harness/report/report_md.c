/* report_md.c - the report's report.md (see report.h): the summary's
 * Markdown under the report's title, then the runs and the records not used. */
#include "lib/jsonx.h"
#include "report/report.h"
#include "report/capacity_out.h"
#include "report/work_table.h"
#include "core/record.h"
#include "core/record_outcome.h"
#include "core/summary_rows.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *mtb_report_md(const struct mtb_record_set *set, json_t *sum, const char *body, const char *name,
                       json_t *problems)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f || !body) {
        if (f)
            fclose(f);
        free(buf);
        return NULL;
    }
    /* the summary's first line is its title: replace it by the report's */
    const char *rest = strchr(body, '\n');
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(sum, &sec);
    fprintf(f, "# mtebench report: %s%s\n", name, sec.emulated ? " (emulated: not hardware timing)" : "");
    fprintf(f, "\n%zu run records (%zu usable) from:", json_array_size(set->records), mtb_record_usable(set));
    size_t i;
    json_t *v;
    json_array_foreach(set->dirs, i, v) fprintf(f, " `%s`", json_string_value(v));
    fprintf(f, "\n%s", rest ? rest : "");
    mtb_report_protection_md(f, sec.protection, sec.emulated);
    mtb_work_rows_md(f, sec.work);
    json_t *cap;
    json_array_foreach(sec.capacity, i, cap) { /* its headings one level down */
        char *cm = mtb_capacity_markdown(cap);
        for (const char *l = cm; l && *l;) {
            const char *e = strchr(l, '\n');
            size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
            fprintf(f, "%s%.*s", l == cm ? "\n#" : *l == '#' ? "#" : "", (int)n, l);
            l += n;
        }
        free(cm);
    }
    if (json_array_size(problems)) {
        fprintf(f, "\n## Plot problems\n\n");
        json_array_foreach(problems, i, v) fprintf(f, "- %s\n", json_string_value(v));
    }
    fprintf(f, "\n## Runs\n\n| # | record | status | config | kernel | rep | ops/s | p99 µs | note |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
    json_array_foreach(set->records, i, v)
    {
        struct mtb_rec_config c;
        mtb_rec_config_view(v, &c);
        struct mtb_rec_figures fig;
        mtb_rec_figures_read(v, &fig);
        int ok = mtb_record_status(v) == MTB_RUN_OK;
        struct mtb_rec_outcome ro;
        mtb_rec_outcome_read(v, &ro);
        fprintf(f, "| %zu | %s | %s | %s %s/%s | %s | %lld | %.0f | %.0f | %s |\n", i + 1,
                json_string_value(json_array_get(set->files, i)), ro.status ? ro.status : "", c.service, c.variant,
                c.mode, c.kernel, (long long)c.rep, ok ? fig.metric[MTB_M_ops_per_sec] : NAN,
                ok ? fig.metric[MTB_M_p99_us] : NAN, ok || !ro.error ? "" : ro.error);
    }
    if (json_array_size(set->bad)) {
        fprintf(f, "\n## Records not used\n\n");
        for (i = 0; i < json_array_size(set->bad); i++) {
            struct mtb_record_bad b;
            mtb_record_bad_read(set, i, &b);
            fprintf(f, "- `%s`: %s\n", b.file, b.problem);
        }
    }
    fprintf(f, "\nPlots: see index.html beside this file.\n");
    fclose(f);
    return buf;
}

void mtb_report_protection_md(FILE *f, json_t *rows, int emulated)
{
    size_t n;
    if (!json_array_size(rows))
        return;
    struct mtb_sum_protection *v = mtb_sum_protection_read(rows, &n);
    fprintf(f, "\n## What the price buys\n\nDetection (mtebench detect) is exact under QEMU; timings under "
               "emulation are emulated.\n\n| configuration | overhead | bugs caught | fraction [95%%] | "
               "explained (cause and object) [95%%] | detection on |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        struct mtb_protection_text t;
        mtb_report_protection_text(&v[i], emulated, &t);
        fprintf(f, "| %s | %s | %s | %s | %s | %s |\n", t.config, t.cost, t.caught, t.fraction, t.explained, t.where);
    }
    free(v);
}
