/* plan_dir.c - a plan's results directory (plan_dir.h): its plan.json
 * written, read back to tell --resume's plan from another, and a directory
 * that holds runs used only as told (--resume, or --force: its runs moved
 * aside). The writer and reader of plan.json (schema mtebench-plan/1). */
#include "plan/plan_dir.h"
#include "lib/files.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entries of dir other than hidden ones (".mtebench-running", ".attempts"). */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Move dir's entries (not hidden ones) into dir/replaced-TIME/. @return 0, or -1 with e set */
static int move_aside(const char *dir, struct mtb_err *e)
{
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    char *to = mtb_asprintf("%s/replaced-%s", dir, ts);
    int mrc = mtb_mkdir_p(to);
    if (mrc)
        mtb_err_set(e, MTB_ERR_FAIL, "cannot create %s: %s", to, mtb_errdesc(mrc));
    DIR *d = mrc ? NULL : opendir(dir);
    struct dirent *de;
    while (d && !e->code && (de = readdir(d))) {
        if (de->d_name[0] == '.' || !strncmp(de->d_name, "replaced-", 9))
            continue;
        char *a = mtb_asprintf("%s/%s", dir, de->d_name), *b = mtb_asprintf("%s/%s", to, de->d_name);
        if (rename(a, b) != 0)
            mtb_err_set(e, MTB_ERR_FAIL, "cannot move %s to %s: %s", a, b, mtb_errdesc(errno));
        free(a);
        free(b);
    }
    if (d)
        closedir(d);
    if (!e->code)
        fprintf(stderr, "mtebench: --force: the runs that were in %s are now in %s\n", dir, to);
    free(to);
    return e->code ? -1 : 0;
}

/* A results dir holding runs is used only as told: --resume (the same plan)
 * or --force (its runs moved aside); never mixed with a new attempt. */
static int check_dir(const char *dir, json_t *pj, int resume, int force, struct mtb_err *e)
{
    char why[2048] = "";
    char *pp = mtb_asprintf("%s/plan.json", dir);
    json_t *old = json_load_file(pp, 0, NULL);
    int n = dir_entries(dir);
    if (resume) {
        if (!old)
            snprintf(why, sizeof why, "--resume %s: no plan.json there: nothing to resume (a results directory of "
                     "bench or plan)", dir);
        else if (!json_equal(old, pj))
            snprintf(why, sizeof why, "--resume %s: it holds another plan (%s, %zu cells x %lld reps) than the one "
                     "given; give the same options or plan file, or --force without --resume to start afresh there",
                     dir, json_string_value(json_object_get(old, "name")), json_array_size(json_object_get(old, "cells")),
                     (long long)json_integer_value(json_object_get(old, "reps")));
    } else if (n && force) {
        move_aside(dir, e);
    } else if (n && old && json_equal(old, pj)) {
        snprintf(why, sizeof why, "%s already holds runs of this plan: --resume %s finishes it (ok runs kept, the "
                 "rest redone), --force starts afresh (its runs moved aside)", dir, dir);
    } else if (n) {
        snprintf(why, sizeof why, "%s holds %s: give another --results, or --force to move them aside and run there",
                 dir, old ? "the runs of another plan" : "other files");
    }
    if (why[0])
        mtb_err_set(e, MTB_ERR_INPUT, "%s", why);
    json_decref(old);
    free(pp);
    return e->code ? -1 : 0;
}

int mtb_plan_dir_write(const char *dir, json_t *pj, int resume, int force, struct mtb_err *e)
{
    /* a round trip, so that it compares equal to the file read back */
    char *pt = json_dumps(pj, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_t *back = json_loads(pt, 0, NULL);
    char *pp = mtb_asprintf("%s/plan.json", dir);
    int wrc = check_dir(dir, back, resume, force, e) != 0 ? 0 : mtb_write_atomic(pp, pt, strlen(pt));
    if (wrc != 0)
        mtb_err_set(e, MTB_ERR_FAIL, "cannot write %s: %s", pp, mtb_errdesc(wrc));
    free(pp);
    free(pt);
    json_decref(back);
    return e->code ? -1 : 0;
}
