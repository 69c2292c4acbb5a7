/* plantime.c - how long a plan will take, said before it runs (--dry-run),
 * as the Phoronix Test Suite does: each run's duration and warm-up, and its
 * start-up cost (service start, preload, proof, stop; under emu the
 * emulator's own start) as measured on this machine. The measurements are
 * kept in results/startup-costs.json, {"memcached/emu": {"mean_s", "runs",
 * "updated"}}, updated by every ok run of a plan (a running mean over the
 * last MAX_WEIGHT runs); a service/platform never measured here takes the
 * documented default of its platform (STARTUP_DEFAULTS below). */
#include "plan/plantime.h"
#include "common/duration.h"
#include "analysis/seqstop.h"

#include <jansson.h>
#include "lib/util.h"
#include "lib/files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WEIGHT 20 /* the mean follows the machine: the last ~20 runs weigh */

/* Without a measurement: emu 8 s (the ETA's old allowance: qemu-user start,
 * preload, proof), host 3 s, vm 30 s (a guest boot per run; rough). */
static double startup_default(const char *platform)
{
    if (!strcmp(platform, "emu"))
        return 8;
    if (!strcmp(platform, "vm"))
        return 30;
    return 3;
}

static char *costs_path(void)
{
    return mtb_asprintf("%s/startup-costs.json", mtb_results_dir());
}

/* The costs file's entry KEY ("service/platform": {"mean_s", "runs"}): its mean and runs (0, 0: none). */
static void cost_entry(json_t *all, const char *key, double *mean, long *runs)
{
    json_t *e = json_object_get(all, key);
    *mean = json_number_value(json_object_get(e, "mean_s"));
    *runs = (long)json_integer_value(json_object_get(e, "runs"));
}

/* A run's start-up cost in seconds for service on platform: the mean
 * measured here, or the platform's default; *runs (may be NULL) gets the
 * number of runs measured (0: the default). */
static double mtb_startup_cost(const char *service, const char *platform, long *runs)
{
    char *path = costs_path(), *key = mtb_asprintf("%s/%s", service, platform);
    json_t *all = json_load_file(path, 0, NULL);
    double v;
    long n;
    cost_entry(all, key, &v, &n);
    if (!(isfinite(v) && v >= 0 && n > 0)) {
        v = startup_default(platform);
        n = 0;
    }
    if (runs)
        *runs = n;
    json_decref(all);
    free(path);
    free(key);
    return v;
}

void mtb_startup_note(const char *service, const char *platform, double seconds)
{
    if (!(isfinite(seconds) && seconds >= 0 && seconds < 3600))
        return;
    char *path = costs_path(), *key = mtb_asprintf("%s/%s", service, platform);
    char *dir = mtb_strdup(mtb_results_dir());
    mtb_mkdir_p(dir);
    json_t *all = json_load_file(path, 0, NULL);
    if (!json_is_object(all)) {
        json_decref(all);
        all = json_object();
    }
    double m;
    long n;
    cost_entry(all, key, &m, &n);
    long w = n < MAX_WEIGHT ? n : MAX_WEIGHT;
    if (!(isfinite(m) && n > 0))
        m = seconds, n = 0, w = 0;
    m = (m * (double)w + seconds) / (double)(w + 1);
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    json_object_set_new(all, key, json_pack("{s:f,s:I,s:s}", "mean_s", m, "runs", (json_int_t)(n + 1), "updated", ts));
    char *txt = json_dumps(all, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (txt)
        mtb_write_atomic(path, txt, strlen(txt)); /* a lost update of two harnesses at once is harmless */
    free(txt);
    json_decref(all);
    free(path);
    free(key);
    free(dir);
}

void mtb_time_print(FILE *f, const char *platform, const struct mtb_time_cell *cells, size_t ncells, long reps,
                    long max_reps, double max_time)
{
    double runs_s = 0, start_s = 0;
    long measured = 0, defaulted = 0;
    /* each cell once: a repetition (a pair under REPS=auto) */
    for (size_t i = 0; i < ncells; i++) {
        long n = 0;
        runs_s += cells[i].run_s;
        start_s += mtb_startup_cost(cells[i].service, platform, &n);
        if (n > 0)
            measured++;
        else
            defaulted++;
    }
    double rep_s = runs_s + start_s;
    char a[32], b[32], c[32], d[32];
    mtb_duration_format(a, sizeof a, runs_s);
    mtb_duration_format(b, sizeof b, start_s);
    const char *src = !defaulted ? "measured on this machine (results/startup-costs.json)"
                      : !measured ? "the platform's default: not yet measured here"
                                  : "measured here where known, else the platform's default";
    if (reps == MTB_REPS_AUTO) {
        /* at least the first look's pairs, whatever MAX_TIME; at most MAX_REPS pairs or MAX_TIME (the
         * rule stops at a look when the next one would end after it) */
        double lo = MTB_SEQ_FIRST_LOOK * rep_s, hi = (double)max_reps * rep_s;
        if (hi > max_time)
            hi = max_time;
        if (hi < lo)
            hi = lo;
        mtb_duration_format(c, sizeof c, lo);
        mtb_duration_format(d, sizeof d, hi);
        char range[80];
        if (lo < hi)
            snprintf(range, sizeof range, "%s to %s", c, d);
        else
            snprintf(range, sizeof range, "%s", c);
        fprintf(f, "time: about %s: a pair is %s of runs (durations and warm-ups) + %s of start-ups (%s); from %d "
                   "pairs (the first look) to at most %ld pairs or MAX_TIME %g min\n",
                range, a, b, src, MTB_SEQ_FIRST_LOOK, max_reps, max_time / 60);
    } else {
        mtb_duration_format(c, sizeof c, rep_s * (double)reps);
        fprintf(f, "time: about %s: %ld repetitions x (%s of runs (durations and warm-ups) + %s of start-ups (%s))\n",
                c, reps, a, b, src);
    }
}
