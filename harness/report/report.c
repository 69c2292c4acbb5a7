/* report.c - see report.h: the `report` subcommand and the writing of a
 * report directory. Each format is a file of its own: report_html.c
 * (index.html), report_md.c (report.md), report_csv.c (runs.csv); the
 * summary's JSON (summary.json) is written here. */
#include "lib/jsonx.h"
#include "report/report.h"
#include "report/hgrm.h"
#include "report/hlog_import.h"
#include "report/work_table.h"
#include "analysis/summary.h"
#include "report/summary_text.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <glob.h>
#include <getopt.h>
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

int mtb_report_write(const struct mtb_record_set *set, json_t *summary, const char *summary_md, const char *name,
                     const char *out, char **dir_out, json_t **summary_out, char *err, size_t errlen)
{
    if (dir_out)
        *dir_out = NULL;
    if (summary_out)
        *summary_out = NULL;
    if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(err, errlen, "bad report name '%s' (one path component expected)", name ? name : "");
        return -EINVAL;
    }
    if (mtb_record_usable(set) == 0) {
        snprintf(err, errlen, "nothing usable: no record with status ok among %zu record(s) read",
                 json_array_size(set->records));
        return -ENODATA;
    }
    char *dir = mtb_asprintf("%s/%s", out, name);
    if (mtb_mkdir_p(dir) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        free(dir);
        return -EIO;
    }
    /* the caller's summary (not modified: the report's fields go into a copy), else built here */
    json_t *sum = summary ? json_copy(summary) : mtb_summary_build(set->records);
    if (!json_object_get(sum, "work")) /* the counted runs among the results (DIR/work/) */
        json_object_set_new(sum, "work", mtb_work_rows(set->dirs));
    char *wcsv = NULL;
    size_t wlen = 0;
    if (json_array_size(json_object_get(sum, "work"))) {
        FILE *wf = open_memstream(&wcsv, &wlen);
        if (wf) {
            mtb_work_rows_csv(wf, json_object_get(sum, "work"));
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
    if (dir_out && !rc)
        *dir_out = dir;
    else
        free(dir);
    return rc;
}


/* ---- the subcommand -------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: mtebench report [--name NAME] [--out DIR] RESULTS_DIR|FILE.hlog...\n"
               "  Reads DIR/record.json and DIR/*/record.json of every RESULTS_DIR and writes\n"
               "  OUT/NAME/{index.html,report.md,runs.csv,summary.json}.\n"
               "  An HdrHistogram interval log (FILE.hlog, another tool's too) is a run of\n"
               "  service \"peer\" (docs/FORMATS.md).\n"
               "  --hlog-unit U  the values' unit of logs without \"#[ValueUnit: U]\" (ns, us,\n"
               "                 ms, s; default ns, as HdrHistogram's own tools record)\n"
               "  --detect DIR  mtebench detect's results (DIR/detect.json; repeatable): each\n"
               "               configuration's catch rate beside its overhead (what the price buys)\n"
               "  --name NAME  report name (default: the first directory's basename)\n"
               "  --out DIR    where report directories go (default: reports/ of the checkout)\n"
               "Exit status: 0 report written, 2 nothing usable (or bad usage), 1 write error.\n");
}

/* basename of a directory argument, ignoring trailing slashes */
static char *dir_name(const char *p)
{
    char *s = mtb_strdup(p);
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = 0;
    const char *b = strrchr(s, '/');
    char *r = mtb_strdup(b && b[1] ? b + 1 : s);
    free(s);
    if (!*r || !strcmp(r, "/") || !strcmp(r, ".") || !strcmp(r, "..")) {
        free(r);
        r = mtb_strdup("report");
    }
    return r;
}

/* one capacity.json into a (with "file" and "dir", the directory it is in), or named and left out */
static void find_one(json_t *a, const char *path, const char *who)
{
    json_t *r = json_load_file(path, 0, NULL);
    if (r && !strcmp(mtb_jstr(r, "schema"), "mtebench-capacity/1")) {
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

/* the capacity results of each results directory (mtb_capacity_find) */
static json_t *capacity_results(char **dirs, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *one = mtb_capacity_find(dirs[i], "mtebench report");
        json_array_extend(a, one);
        json_decref(one);
    }
    return a;
}

int mtb_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "name", required_argument, 0, 'n' },
        { "out", required_argument, 0, 'o' },
        { "hlog-unit", required_argument, 0, 'u' },
        { "detect", required_argument, 0, 'd' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *name = NULL, *out = NULL, *hlog_unit = NULL;
    char *detect[16];
    int c, ndetect = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'u': hlog_unit = optarg; break;
        case 'd':
            if (ndetect == 16) {
                fprintf(stderr, "mtebench report: at most 16 --detect\n");
                return 2;
            }
            detect[ndetect++] = optarg;
            break;
        case 'n': name = optarg; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "mtebench report: no RESULTS_DIR given\n");
        usage(stderr);
        return 2;
    }
    struct mtb_record_set set;
    int ndirs = mtb_hlog_split(argv + optind, argc - optind);  /* .hlog files last */
    if (mtb_record_load(argv + optind, ndirs, &set) != 0) {
        fprintf(stderr, "mtebench report: out of memory\n");
        return 1;
    }
    if (mtb_hlog_add_records(argv + optind + ndirs, argc - optind - ndirs, hlog_unit, &set) != 0) {
        mtb_record_set_free(&set);
        return 2;
    }
    size_t i;
    json_t *b;
    json_array_foreach(set.bad, i, b) fprintf(stderr, "mtebench report: %s: %s\n", mtb_jstr(b, "file"), mtb_jstr(b, "problem"));
    char *defname = dir_name(argv[optind]);
    char *defout = mtb_strdup(mtb_reports_dir());
    char err[MTB_ERRLEN], *dir = NULL;
    json_t *sum = NULL, *own = NULL;
    int rc = 0;
    if (ndetect && mtb_record_usable(&set)) { /* the summary with the detection beside its overheads */
        own = mtb_summary_build(set.records);
        json_t *rows = mtb_report_protection(own, detect, ndetect, err, sizeof err);
        rc = rows ? 0 : -EINVAL;
        json_object_set_new(own, "protection", rows ? rows : json_array());
    }
    json_t *caps = capacity_results(argv + optind, ndirs);
    if (rc == 0 && json_array_size(caps) && mtb_record_usable(&set)) { /* a capacity search's result, as it is */
        if (!own)
            own = mtb_summary_build(set.records);
        json_object_set(own, "capacity", caps);
    }
    json_decref(caps);
    if (rc == 0)
        rc = mtb_report_write(&set, own, NULL, name ? name : defname, out ? out : defout, &dir, &sum, err, sizeof err);
    json_decref(own);
    if (rc == 0) {
        mtb_summary_print(sum, stdout);
        mtb_report_protection_print(stdout, json_object_get(sum, "protection"), json_is_true(json_object_get(sum, "emulated")));
        json_t *p;
        json_array_foreach(json_object_get(sum, "plot_problems"), i, p)
            fprintf(stderr, "mtebench report: plot: %s\n", json_string_value(p));
        printf("\n%zu records used (%zu runs ok)%s", json_array_size(set.records), mtb_record_usable(&set),
               json_array_size(set.bad) ? "" : "\n");
        if (json_array_size(set.bad))
            printf(", %zu not used (listed in the report)\n", json_array_size(set.bad));
        printf("report: %s/index.html\n        %s/report.md, runs.csv, summary.json\n", dir, dir);
    } else {
        fprintf(stderr, "mtebench report: %s\n", err);
    }
    json_decref(sum);
    free(dir);
    free(defname);
    free(defout);
    mtb_record_set_free(&set);
    return rc == 0 ? 0 : (rc == -ENODATA || rc == -EINVAL) ? 2 : 1;
}

