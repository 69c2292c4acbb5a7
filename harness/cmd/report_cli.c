/* report_cli.c - `mtebench report [options] RESULTS_DIR|FILE.hlog...`: a
 * report of run records (report/report.c writes it). */
#include "cmd/commands.h"
#include "core/summary_rows.h"
#include "analysis/summary.h"
#include "report/hlog_import.h"
#include "report/protection.h"
#include "report/report.h"
#include "report/summary_text.h"
#include "lib/jsonx.h"
#include "lib/files.h"
#include "lib/opttab.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_NAME = 1, O_OUT, O_HLOG_UNIT, O_DETECT, O_HELP };
static const struct mtb_opt opts[] = {
    MTB_OPT("name", "NAME", NULL, O_NAME, NULL, "report name (default: the first directory's basename)"),
    MTB_OPT("out", "DIR", NULL, O_OUT, NULL, "where report directories go (default: reports/ of the checkout)"),
    MTB_OPT("detect", "DIR", NULL, O_DETECT, NULL,
            "mtebench detect's results (DIR/detect.json; repeatable): each\n"
            "configuration's catch rate beside its overhead (what the price buys)"),
    MTB_OPT("hlog-unit", "U", NULL, O_HLOG_UNIT, NULL,
            "the values' unit of logs without \"#[ValueUnit: U]\" (ns, us,\n"
            "ms, s; default ns, as HdrHistogram's own tools record)"),
    MTB_OPT("help", NULL, NULL, O_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const tabs[] = { opts, NULL };

static void usage(FILE *f)
{
    fprintf(f, "usage: mtebench report [options] RESULTS_DIR|FILE.hlog...\n"
               "  Reads DIR/record.json and DIR/*/record.json of every RESULTS_DIR and writes\n"
               "  OUT/NAME/{index.html,report.md,runs.csv,summary.json}.\n"
               "  An HdrHistogram interval log (FILE.hlog, another tool's too) is a run of\n"
               "  service \"peer\" (docs/FORMATS.md).\n");
    mtb_opt_help(f, tabs, "report");
    fprintf(f, "Exit status: 0 report written, 2 nothing usable (or bad usage), 1 write error.\n");
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
    const char *name = NULL, *out = NULL, *hlog_unit = NULL;
    char *detect[16];
    int c, ndetect = 0;
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, "report", 0);
    while ((c = mtb_opt_next(&p, tabs)) > 0) {
        switch (c) {
        case O_HLOG_UNIT: hlog_unit = p.val; break;
        case O_DETECT:
            if (ndetect == 16) {
                fprintf(stderr, "mtebench report: at most 16 --detect\n");
                mtb_opt_free(&p);
                return 2;
            }
            detect[ndetect++] = (char *)p.val;
            break;
        case O_NAME: name = p.val; break;
        case O_OUT: out = p.val; break;
        case O_HELP: usage(stdout); mtb_opt_free(&p); return 0;
        }
    }
    if (c == MTB_OPT_ERR || p.npos == 0) {
        fprintf(stderr, "mtebench report: %s\n", c == MTB_OPT_ERR ? p.err : "no RESULTS_DIR given");
        usage(stderr);
        mtb_opt_free(&p);
        return 2;
    }
    char **args = p.pos; /* RESULTS_DIR... then FILE.hlog... */
    int nargs = p.npos;
    struct mtb_record_set set;
    int ndirs = mtb_hlog_split(args, nargs);  /* .hlog files last */
    if (mtb_record_load(args, ndirs, &set) != 0) {
        fprintf(stderr, "mtebench report: out of memory\n");
        mtb_opt_free(&p);
        return 1;
    }
    if (mtb_hlog_add_records(args + ndirs, nargs - ndirs, hlog_unit, &set) != 0) {
        mtb_record_set_free(&set);
        mtb_opt_free(&p);
        return 2;
    }
    for (size_t i = 0; i < json_array_size(set.bad); i++) {
        struct mtb_record_bad b;
        mtb_record_bad_read(&set, i, &b);
        fprintf(stderr, "mtebench report: %s: %s\n", b.file, b.problem);
    }
    char *defname = dir_name(args[0]);
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
    json_t *caps = capacity_results(args, ndirs);
    if (rc == 0 && json_array_size(caps) && mtb_record_usable(&set)) { /* a capacity search's result, as it is */
        if (!own)
            own = mtb_summary_build(set.records);
        json_object_set(own, "capacity", caps);
    }
    json_decref(caps);
    struct mtb_err re = { 0 };
    if (rc == 0)
        rc = mtb_report_write(&set, own, NULL, name ? name : defname, out ? out : defout, &dir, &sum, &re);
    json_decref(own);
    if (rc == 0) {
        mtb_summary_print(sum, stdout);
        struct mtb_sum_sections sec;
        mtb_sum_sections_read(sum, &sec);
        mtb_report_protection_print(stdout, sec.protection, sec.emulated);
        size_t i;
        json_t *pp;
        json_array_foreach(sec.plot_problems, i, pp)
            fprintf(stderr, "mtebench report: plot: %s\n", json_string_value(pp));
        printf("\n%zu records used (%zu runs ok)%s", json_array_size(set.records), mtb_record_usable(&set),
               json_array_size(set.bad) ? "" : "\n");
        if (json_array_size(set.bad))
            printf(", %zu not used (listed in the report)\n", json_array_size(set.bad));
        printf("report: %s/index.html\n        %s/report.md, runs.csv, summary.json\n", dir, dir);
    } else {
        fprintf(stderr, "mtebench report: %s\n", re.code ? re.msg : err);
    }
    json_decref(sum);
    free(dir);
    free(defname);
    free(defout);
    mtb_record_set_free(&set);
    mtb_opt_free(&p);
    return rc == 0 ? 0 : (rc == -ENODATA || rc == -EINVAL) ? 2 : 1;
}

