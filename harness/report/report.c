/* report.c - see report.h: the writing of a report directory (the
 * `report` command's front is cmd/report_cli.c). Each format is a file of its own: report_html.c
 * (index.html), report_md.c (report.md), report_csv.c (runs.csv); the
 * summary's JSON (summary.json) is written here. */
#include "lib/jsonx.h"
#include "report/report.h"
#include "report/hgrm.h"
#include "report/hlog_import.h"
#include "report/work_table.h"
#include "core/capacity_rows.h"
#include "core/summary_rows.h"
#include "analysis/summary.h"
#include "report/summary_text.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- writing --------------------------------------------------------------- */

static int write_text(const char *dir, const char *file, const char *text, char *err, size_t errlen)
{
    char *p = mtb_asprintf("%s/%s", dir, file);
    int rc = text ? mtb_write_atomic(p, text, strlen(text)) : -ENOMEM;
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s", p, strerror(-rc));
    free(p);
    return rc == 0 ? 0 : -EIO;
}

/* the report's files into dir, from sum (taken: its fields added, written,
 * then freed or handed back in *summary_out); the first failure in err */
static int write_files(const struct mtb_record_set *set, json_t *sum, const char *summary_md, const char *name,
                       const char *dir, json_t **summary_out, char *err, size_t errlen)
{
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(sum, &sec);
    if (!sec.work) /* the counted runs among the results (DIR/work/) */
        json_object_set_new(sum, "work", sec.work = mtb_work_rows(set->dirs));
    char *wcsv = NULL;
    size_t wlen = 0;
    if (json_array_size(sec.work)) {
        FILE *wf = open_memstream(&wcsv, &wlen);
        if (wf) {
            mtb_work_rows_csv(wf, sec.work);
            fclose(wf);
        }
    }
    char *own_md = summary_md ? NULL : mtb_summary_markdown(sum);
    json_t *problems = json_array();
    char *html = mtb_report_html(set, sum, name, problems);
    char *md = mtb_report_md(set, sum, summary_md ? summary_md : own_md, name, problems);
    free(own_md);
    char *csv = mtb_report_csv(set);
    /* summary.json: the statistics, plus where they came from */
    json_object_set_new(sum, "name", json_string(name));
    json_object_set(sum, "sources", set->dirs);
    json_object_set(sum, "records", set->files);
    json_object_set(sum, "bad_records", set->bad);
    json_object_set(sum, "plot_problems", problems);
    json_object_set_new(sum, "report_version", json_string(MTEBENCH_VERSION));
    char *js = json_dumps(sum, JSON_INDENT(2) | JSON_SORT_KEYS);
    int rc = 0;
    if (!rc)
        rc = write_text(dir, "summary.json", js, err, errlen);
    if (!rc)
        rc = write_text(dir, "runs.csv", csv, err, errlen);
    if (!rc && wcsv) /* the counted runs' work per request (docs/FORMATS.md) */
        rc = write_text(dir, "work.csv", wcsv, err, errlen);
    if (!rc)
        rc = write_text(dir, "report.md", md, err, errlen);
    if (!rc) /* each configuration's percentile listing, its runs' histograms added (docs/FORMATS.md) */
        rc = mtb_hgrm_write_configs(set, dir, err, errlen);
    if (!rc)
        rc = write_text(dir, "index.html", html, err, errlen); /* last: its presence means complete */
    free(js);
    free(csv);
    free(wcsv);
    free(md);
    free(html);
    json_decref(problems);
    if (summary_out && !rc)
        *summary_out = sum;
    else
        json_decref(sum);
    return rc;
}

int mtb_report_write(const struct mtb_record_set *set, json_t *summary, const char *summary_md, const char *name,
                     const char *out, char **dir_out, json_t **summary_out, struct mtb_err *e)
{
    if (dir_out)
        *dir_out = NULL;
    if (summary_out)
        *summary_out = NULL;
    if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
        mtb_err_set(e, MTB_ERR_INPUT, "bad report name '%s' (one path component expected)", name ? name : "");
        return -EINVAL;
    }
    if (mtb_record_usable(set) == 0) {
        mtb_err_set(e, MTB_ERR_INPUT, "nothing usable: no record with status ok among %zu record(s) read",
                    json_array_size(set->records));
        return -ENODATA;
    }
    char *dir = mtb_asprintf("%s/%s", out, name);
    if (mtb_mkdir_p(dir) != 0) {
        mtb_err_set(e, MTB_ERR_FAIL, "cannot create %s: %s", dir, strerror(errno));
        free(dir);
        return -EIO;
    }
    /* the caller's summary (not modified: the report's fields go into a copy), else built here */
    json_t *sum = summary ? json_copy(summary) : mtb_summary_build(set->records);
    char err[MTB_ERRLEN] = "";
    int rc = write_files(set, sum, summary_md, name, dir, summary_out, err, sizeof err);
    if (rc)
        mtb_err_set(e, rc == -EIO ? MTB_ERR_FAIL : MTB_ERR_INPUT, "%s", err);
    if (dir_out && !rc)
        *dir_out = dir;
    else
        free(dir);
    return rc;
}


/* ---- capacity results beside the records ----------------------------------- */

/* one capacity.json into a (with "file" and "dir", the directory it is in), or named and left out */
static void find_one(json_t *a, const char *path, const char *who)
{
    json_t *r = json_load_file(path, 0, NULL);
    struct mtb_cap_rows c;
    mtb_cap_rows_read(r, &c);
    int ours = !strcmp(c.schema, "mtebench-capacity/1");
    mtb_cap_rows_free(&c);
    if (r && ours) {
        json_object_set_new(r, "file", json_string(path));
        json_object_set_new(r, "dir", json_stringn(path, (size_t)(strrchr(path, '/') - path)));
        json_array_append(a, r);
    } else if (r) {
        fprintf(stderr, "%s: %s: not mtebench-capacity/1: left out\n", who, path);
    }
    json_decref(r);
}

json_t *mtb_capacity_find(const char *dir, const char *who)
{
    json_t *a = json_array();
    char *own = mtb_asprintf("%s/capacity.json", dir), *pat = mtb_asprintf("%s/capacity-*/capacity.json", dir);
    find_one(a, own, who);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            find_one(a, g.gl_pathv[i], who);
        globfree(&g);
    }
    free(own);
    free(pat);
    return a;
}
