/* prom.c - Prometheus textfiles (prom.h). */
#include "report/prom.h"
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

static void labels(FILE *f, json_t *c, const char *host, const char *extra)
{
    static const char *keys[] = { "service", "variant", "mode", "platform", "kernel" };
    size_t i;
    fputc('{', f);
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        fprintf(f, "%s=\"", keys[i]);
        esc(f, mtb_jstr(c, keys[i]));
        fputs("\",", f);
    }
    fputs("workload=\"", f);
    esc(f, mtb_jstr(json_object_get(c, "workload"), "name"));
    fputs("\",host=\"", f);
    esc(f, json_is_string(json_object_get(c, "host")) ? mtb_jstr(c, "host") : host);
    fputs("\",version=\"", f);
    esc(f, mtb_version);
    fputc('"', f);
    if (json_integer_value(json_object_get(c, "cores")) > 0)
        fprintf(f, ",cores=\"%lld\"", (long long)json_integer_value(json_object_get(c, "cores")));
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

/* one figure {median, lo, hi} as three samples stat="median|ci_low|ci_high" */
static void figure(FILE *f, const char *name, json_t *c, const char *host, const char *extra, json_t *fig, double scale)
{
    static const struct { const char *stat, *key; } st[] = { { "median", "median" }, { "ci_low", "lo" }, { "ci_high", "hi" } };
    size_t i;
    if (!json_is_object(fig))
        return;
    for (i = 0; i < 3; i++) {
        json_t *v = json_object_get(fig, st[i].key);
        char lab[96];
        if (!json_is_number(v))
            continue;
        snprintf(lab, sizeof lab, "%s%sstat=\"%s\"", extra ? extra : "", extra ? "," : "", st[i].stat);
        fputs(name, f);
        labels(f, c, host, lab);
        value(f, json_number_value(v) * scale);
    }
}

static const struct { const char *key, *pct; } lat[] = {
    { "p50_us", "50" }, { "p90_us", "90" }, { "p99_us", "99" }, { "p999_us", "99.9" }, { "p9999_us", "99.99" },
};
static const struct { const char *key, *metric; } pairm[] = {
    { "slowdown", "throughput" }, { "p99_ratio", "p99" }, { "p999_ratio", "p99.9" },
};

static void write_configs(FILE *f, json_t *sum, const char *host)
{
    json_t *c;
    size_t i, k;
    json_t *configs = json_object_get(sum, "configs");

    fputs("# HELP mtebench_ops_per_second Throughput of a configuration: median of its runs and the bounds of its "
          "confidence interval.\n# TYPE mtebench_ops_per_second gauge\n", f);
    json_array_foreach(configs, i, c) figure(f, "mtebench_ops_per_second", c, host, NULL,
                                             json_object_get(c, "ops_per_sec"), 1);
    fputs("# HELP mtebench_latency_seconds A latency percentile of a configuration (corrected for coordinated "
          "omission): median of its runs and its confidence interval's bounds.\n"
          "# TYPE mtebench_latency_seconds gauge\n", f);
    json_array_foreach(configs, i, c) for (k = 0; k < sizeof lat / sizeof lat[0]; k++) {
        char extra[48];
        snprintf(extra, sizeof extra, "percentile=\"%s\"", lat[k].pct);
        figure(f, "mtebench_latency_seconds", c, host, extra, json_object_get(c, lat[k].key), 1e-6);
    }
    fputs("# HELP mtebench_runs Runs measured of a configuration.\n# TYPE mtebench_runs gauge\n", f);
    json_array_foreach(configs, i, c) {
        fputs("mtebench_runs", f);
        labels(f, c, host, NULL);
        value(f, (double)json_integer_value(json_object_get(c, "runs")));
    }
}

static void write_overheads(FILE *f, json_t *sum, const char *host)
{
    json_t *o, *g;
    size_t i, k;

    fputs("# HELP mtebench_overhead_ratio The cost of a tagged configuration against its baseline, median of the "
          "pairwise ratios and its confidence interval's bounds (metric throughput: baseline / tagged ops/s; "
          "p99, p99.9: tagged / baseline latency; 1 is no cost).\n# TYPE mtebench_overhead_ratio gauge\n", f);
    json_array_foreach(json_object_get(sum, "overheads"), i, o) for (k = 0; k < sizeof pairm / sizeof pairm[0]; k++) {
        char extra[48];
        snprintf(extra, sizeof extra, "metric=\"%s\"", pairm[k].metric);
        figure(f, "mtebench_overhead_ratio", o, host, extra, json_object_get(o, pairm[k].key), 1);
    }
    fputs("# HELP mtebench_overhead_pairs Interleaved pairs (tagged run, baseline run) behind an overhead.\n"
          "# TYPE mtebench_overhead_pairs gauge\n", f);
    json_array_foreach(json_object_get(sum, "overheads"), i, o) {
        fputs("mtebench_overhead_pairs", f);
        labels(f, o, host, NULL);
        value(f, (double)json_integer_value(json_object_get(o, "pairs")));
    }
    fputs("# HELP mtebench_overhead_geomean_ratio Geometric mean of a variant and mode's throughput overheads over "
          "the workloads, and its confidence interval's bounds.\n# TYPE mtebench_overhead_geomean_ratio gauge\n", f);
    json_array_foreach(json_object_get(sum, "geomeans"), i, g) {
        json_t *s = json_object_get(g, "slowdown"), *fig;
        json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s}}", "service", "all", "variant", mtb_jstr(g, "variant"),
                              "mode", mtb_jstr(g, "mode"), "platform", mtb_jstr(g, "platform"), "kernel",
                              mtb_jstr(g, "kernel"), "workload", "name", "geomean");
        if (!s || !c) {
            json_decref(c);
            continue;
        }
        fig = json_pack("{s:O?,s:O?,s:O?}", "median", json_object_get(s, "geomean"), "lo", json_object_get(s, "lo"),
                        "hi", json_object_get(s, "hi"));
        figure(f, "mtebench_overhead_geomean_ratio", c, host, "metric=\"throughput\"", fig, 1);
        json_decref(fig);
        json_decref(c);
    }
}

/* one capacity figure (est, lo, hi of o) as stat="estimate|ci_low|ci_high" */
static void cap_figure(FILE *f, const char *name, json_t *c, const char *host, const char *slo, json_t *o,
                       const char *est)
{
    const char *stat[3] = { "estimate", "ci_low", "ci_high" }, *key[3] = { est, "lo", "hi" };
    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(o, key[i]);
        if (!json_is_number(v))
            continue;
        char lab[160];
        snprintf(lab, sizeof lab, "slo=\"%s\",stat=\"%s\"", slo, stat[i]);
        fputs(name, f);
        labels(f, c, host, lab);
        value(f, json_number_value(v));
    }
}

/* a plan's capacity searches (summary "capacity": mtebench-capacity/1 results) */
static void write_capacity(FILE *f, json_t *sum, const char *host)
{
    json_t *caps = json_object_get(sum, "capacity"), *r, *c, *e;
    size_t i, k, b;
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
        json_array_foreach(caps, i, r) json_array_foreach(json_object_get(r, pass ? "overheads" : "configs"), k, c)
        {
            json_t *lab = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s}}", "service", mtb_jstr(r, "service"), "variant",
                                    mtb_jstr(c, "variant"), "mode", mtb_jstr(c, "mode"), "platform",
                                    mtb_jstr(r, "platform"), "kernel", mtb_jstr(r, "kernel"), "workload", "name",
                                    mtb_jstr(r, "workload"));
            if (pass)
                cap_figure(f, "mtebench_capacity_overhead_ratio", lab, host, mtb_jstr(c, "bound"),
                           json_object_get(c, "capacity"), "est");
            else
                json_array_foreach(json_object_get(c, "capacity"), b, e) cap_figure(
                    f, "mtebench_capacity_requests_per_second", lab, host, mtb_jstr(e, "bound"), e, "capacity");
            json_decref(lab);
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
    write_configs(f, sum, host);
    write_overheads(f, sum, host);
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
