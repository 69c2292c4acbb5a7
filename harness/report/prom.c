/* prom.c - Prometheus textfiles (prom.h). */
#include "report/prom.h"
#include "core/summary_rows.h"
#include "core/capacity_rows.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "common/version.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *mtb_prom_dir;

int mtb_prom_set_dir(const char *dir, struct mtb_err *e)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "--prom-textfile %s: %s (the textfile collector's directory must exist)",
                           dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mtb_err_set(e, MTB_ERR_INPUT, "--prom-textfile %s: not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return mtb_err_set(e, MTB_ERR_INPUT, "--prom-textfile %s: not writable: %s", dir, strerror(errno));
    mtb_prom_dir = dir;
    return 0;
}

/* a label value escaped as the exposition format wants: \\, \", \n */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f), fputc(*s, f);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

/* the labels of a series: who it is */
struct prom_who {
    const char *service, *variant, *mode, *platform, *kernel, *workload;
    const char *host;   /* NULL: this machine's */
    long long cores;    /* a point of a core sweep: its cores (else 0) */
};

static void labels(FILE *f, const struct prom_who *w, const char *host, const char *extra)
{
    const char *keys[] = { "service", "variant", "mode", "platform", "kernel" };
    const char *vals[] = { w->service, w->variant, w->mode, w->platform, w->kernel };
    size_t i;
    fputc('{', f);
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        fprintf(f, "%s=\"", keys[i]);
        esc(f, vals[i]);
        fputs("\",", f);
    }
    fputs("workload=\"", f);
    esc(f, w->workload);
    fputs("\",host=\"", f);
    esc(f, w->host ? w->host : host);
    fputs("\",version=\"", f);
    esc(f, mtb_version);
    fputc('"', f);
    if (w->cores > 0)
        fprintf(f, ",cores=\"%lld\"", w->cores);
    if (extra)
        fprintf(f, ",%s", extra);
    fputc('}', f);
}

static void value(FILE *f, double v)
{
    if (isnan(v))
        fputs(" NaN\n", f);
    else if (isinf(v))
        fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
    else
        fprintf(f, " %.17g\n", v);
}

/* one sample: name{labels of w, extra} v */
static void sample(FILE *f, const char *name, const struct prom_who *w, const char *host, const char *extra, double v)
{
    fputs(name, f);
    labels(f, w, host, extra);
    value(f, v);
}

/* one interval {estimate, lo, hi} as three samples stat="median|ci_low|ci_high" */
static void figure(FILE *f, const char *name, const struct prom_who *w, const char *host, const char *extra,
                   const struct mtb_ci *ci, double scale)
{
    static const char *stat[] = { "median", "ci_low", "ci_high" };
    const double v[] = { mtb_ci_estimate(ci), ci->lo, ci->hi };
    if (!ci->present)
        return;
    for (size_t i = 0; i < 3; i++) {
        char lab[96];
        if (isnan(v[i]))
            continue;
        snprintf(lab, sizeof lab, "%s%sstat=\"%s\"", extra ? extra : "", extra ? "," : "", stat[i]);
        sample(f, name, w, host, lab, v[i] * scale);
    }
}

/* the percentile each latency metric is (record.h's table: p50_us ... p9999_us) */
static const struct { enum mtb_run_metric_id m; const char *pct; } lat[] = {
    { MTB_M_p50_us, "50" }, { MTB_M_p90_us, "90" }, { MTB_M_p99_us, "99" }, { MTB_M_p999_us, "99.9" },
    { MTB_M_p9999_us, "99.99" },
};
static const struct { enum mtb_pair_metric_id m; const char *metric; } pairm[] = {
    { MTB_P_slowdown, "throughput" }, { MTB_P_p99_ratio, "p99" }, { MTB_P_p999_ratio, "p99.9" },
};

static struct prom_who config_who(const struct mtb_sum_config *c)
{
    return (struct prom_who){ c->service, c->variant, c->mode, c->platform, c->kernel, c->workload.name,
                              c->has_host ? c->host : NULL, c->workload.has_cores ? c->workload.cores : 0 };
}

static struct prom_who overhead_who(const struct mtb_sum_overhead *o)
{
    return (struct prom_who){ o->service, o->variant, o->mode, o->platform, o->kernel, o->workload.name,
                              o->has_host ? o->host : NULL, o->workload.has_cores ? o->workload.cores : 0 };
}

static void write_configs(FILE *f, const struct mtb_sum_rows *r, const char *host)
{
    size_t i, k;
    fputs("# HELP mtebench_ops_per_second Throughput of a configuration: median of its runs and the bounds of its "
          "confidence interval.\n# TYPE mtebench_ops_per_second gauge\n", f);
    for (i = 0; i < r->nconfigs; i++) {
        struct prom_who w = config_who(&r->configs[i]);
        figure(f, "mtebench_ops_per_second", &w, host, NULL, &r->configs[i].metric[MTB_M_ops_per_sec], 1);
    }
    fputs("# HELP mtebench_latency_seconds A latency percentile of a configuration (corrected for coordinated "
          "omission): median of its runs and its confidence interval's bounds.\n"
          "# TYPE mtebench_latency_seconds gauge\n", f);
    for (i = 0; i < r->nconfigs; i++)
        for (k = 0; k < sizeof lat / sizeof lat[0]; k++) {
            char extra[48];
            struct prom_who w = config_who(&r->configs[i]);
            snprintf(extra, sizeof extra, "percentile=\"%s\"", lat[k].pct);
            figure(f, "mtebench_latency_seconds", &w, host, extra, &r->configs[i].metric[lat[k].m], 1e-6);
        }
    fputs("# HELP mtebench_runs Runs measured of a configuration.\n# TYPE mtebench_runs gauge\n", f);
    for (i = 0; i < r->nconfigs; i++) {
        struct prom_who w = config_who(&r->configs[i]);
        sample(f, "mtebench_runs", &w, host, NULL, (double)r->configs[i].runs);
    }
}

static void write_overheads(FILE *f, const struct mtb_sum_rows *r, const char *host)
{
    size_t i, k;
    fputs("# HELP mtebench_overhead_ratio The cost of a tagged configuration against its baseline, median of the "
          "pairwise ratios and its confidence interval's bounds (metric throughput: baseline / tagged ops/s; "
          "p99, p99.9: tagged / baseline latency; 1 is no cost).\n# TYPE mtebench_overhead_ratio gauge\n", f);
    for (i = 0; i < r->noverheads; i++)
        for (k = 0; k < sizeof pairm / sizeof pairm[0]; k++) {
            char extra[48];
            struct prom_who w = overhead_who(&r->overheads[i]);
            snprintf(extra, sizeof extra, "metric=\"%s\"", pairm[k].metric);
            figure(f, "mtebench_overhead_ratio", &w, host, extra, &r->overheads[i].metric[pairm[k].m], 1);
        }
    fputs("# HELP mtebench_overhead_pairs Interleaved pairs (tagged run, baseline run) behind an overhead.\n"
          "# TYPE mtebench_overhead_pairs gauge\n", f);
    for (i = 0; i < r->noverheads; i++) {
        struct prom_who w = overhead_who(&r->overheads[i]);
        sample(f, "mtebench_overhead_pairs", &w, host, NULL, (double)r->overheads[i].pairs);
    }
    fputs("# HELP mtebench_overhead_geomean_ratio Geometric mean of a variant and mode's throughput overheads over "
          "the workloads, and its confidence interval's bounds.\n# TYPE mtebench_overhead_geomean_ratio gauge\n", f);
    for (i = 0; i < r->ngeomeans; i++) {
        const struct mtb_sum_geomean *g = &r->geomeans[i];
        struct prom_who w = { "all", g->variant, g->mode, g->platform, g->kernel, "geomean", NULL, 0 };
        /* the geometric mean's estimate, never a median it may also carry */
        struct mtb_ci gm = g->slowdown;
        gm.median = NAN;
        figure(f, "mtebench_overhead_geomean_ratio", &w, host, "metric=\"throughput\"", &gm, 1);
    }
}

/* one capacity figure (estimate, lo, hi) as stat="estimate|ci_low|ci_high" */
static void cap_figure(FILE *f, const char *name, const struct prom_who *w, const char *host, const char *slo,
                       const double v[3])
{
    static const char *stat[3] = { "estimate", "ci_low", "ci_high" };
    for (int i = 0; i < 3; i++) {
        if (isnan(v[i]))
            continue;
        char lab[160];
        snprintf(lab, sizeof lab, "slo=\"%s\",stat=\"%s\"", slo, stat[i]);
        sample(f, name, w, host, lab, v[i]);
    }
}

/* a plan's capacity searches (summary "capacity": mtebench-capacity/1 results) */
static void write_capacity(FILE *f, json_t *sum, const char *host)
{
    struct mtb_sum_sections sec;
    mtb_sum_sections_read(sum, &sec);
    json_t *caps = sec.capacity, *cap;
    size_t i;
    if (!json_array_size(caps))
        return;
    fputs("# HELP mtebench_capacity_requests_per_second The offered rate a configuration carries while a latency "
          "percentile stays within its bound (a capacity search: docs/CAPACITY.md): the estimate and its "
          "interval's bounds.\n# TYPE mtebench_capacity_requests_per_second gauge\n", f);
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            fputs("# HELP mtebench_capacity_overhead_ratio Baseline capacity / this configuration's at the same "
                  "bound: the estimate and its interval's bounds (1 is no cost).\n"
                  "# TYPE mtebench_capacity_overhead_ratio gauge\n", f);
        json_array_foreach(caps, i, cap)
        {
            struct mtb_cap_rows r;
            mtb_cap_rows_read(cap, &r);
            size_t n = pass ? r.noverheads : r.nconfigs;
            for (size_t k = 0; k < n; k++) {
                const char *variant = pass ? r.overheads[k].variant : r.configs[k].variant;
                const char *mode = pass ? r.overheads[k].mode : r.configs[k].mode;
                struct prom_who w = { r.service, variant, mode, r.platform, r.kernel, r.workload, NULL, 0 };
                if (pass) {
                    const struct mtb_cap_ci *ci = &r.overheads[k].capacity;
                    const double v[3] = { ci->est, ci->lo, ci->hi };
                    cap_figure(f, "mtebench_capacity_overhead_ratio", &w, host, r.overheads[k].bound, v);
                } else
                    for (size_t b = 0; b < r.configs[k].nat; b++) {
                        const struct mtb_cap_at *e = &r.configs[k].at[b];
                        const double v[3] = { e->capacity, e->lo, e->hi };
                        cap_figure(f, "mtebench_capacity_requests_per_second", &w, host, e->bound, v);
                    }
            }
            mtb_cap_rows_free(&r);
        }
    }
}

/**
 * Write DIR/mtebench-<job>.prom from a summary (mtb_summary_build): per
 * configuration ops/s and latency percentiles (median, CI bounds), per tagged
 * configuration the overheads (median, CI bounds, pairs), the geometric means,
 * and the time written.
 * @return 0, or -1 with why in err (named: the file, the reason); nothing is
 *         left behind on error.
 */
static int mtb_prom_write(const char *dir, const char *job, json_t *sum, char *err, size_t errlen)
{
    char host[256] = "", *path = NULL, *tmp = NULL;
    FILE *f;
    int rc = 0;

    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    path = mtb_asprintf("%s/mtebench-%s.prom", dir, job);
    tmp = mtb_asprintf("%s/.mtebench-%s.prom.tmp.%ld", dir, job, (long)getpid());
    if (!(f = fopen(tmp, "w"))) {
        snprintf(err, errlen, "--prom-textfile: cannot write %s: %s", tmp, strerror(errno));
        free(path);
        free(tmp);
        return -1;
    }
    struct mtb_sum_rows rows;
    mtb_sum_rows_read(sum, &rows);
    write_configs(f, &rows, host);
    write_overheads(f, &rows, host);
    mtb_sum_rows_free(&rows);
    write_capacity(f, sum, host);
    fputs("# HELP mtebench_written_timestamp_seconds When mtebench wrote this file (seconds since the epoch).\n"
          "# TYPE mtebench_written_timestamp_seconds gauge\nmtebench_written_timestamp_seconds{version=\"", f);
    esc(f, mtb_version);
    fprintf(f, "\"} %lld\n", (long long)time(NULL));
    if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0)
        rc = errno ? errno : EIO;
    if (fclose(f) != 0 && !rc)
        rc = errno;
    if (!rc && rename(tmp, path) != 0)
        rc = errno;
    if (rc) {
        unlink(tmp);
        snprintf(err, errlen, "--prom-textfile: cannot write %s: %s", path, strerror(rc));
    }
    free(path);
    free(tmp);
    return rc ? -1 : 0;
}

int mtb_prom_after(const char *job, json_t *sum)
{
    char err[MTB_ERRLEN], name[128];
    size_t i;
    if (!mtb_prom_dir)
        return 0;
    /* a file name of safe characters only */
    snprintf(name, sizeof name, "%s", job);
    for (i = 0; name[i]; i++)
        if (!(name[i] == '-' || name[i] == '_' || (name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9')))
            name[i] = '_';
    if (mtb_prom_write(mtb_prom_dir, name, sum, err, sizeof err) != 0) {
        fprintf(stderr, "mtebench: %s\n", err);
        return 1;
    }
    printf("prometheus: %s/mtebench-%s.prom\n", mtb_prom_dir, name);
    return 0;
}
