/* report.c - human table, JSON and .hgrm output. */
#include "common/atomicfile.h"
#include "common/version.h"
#include "loadgen/report.h"
#include "loadgen/schedule.h"
#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { const char *name; double pct; } percentiles[] = {
    { "p50", 50.0 }, { "p90", 90.0 }, { "p99", 99.0 }, { "p99.9", 99.9 },
    { "p99.99", 99.99 }, { NULL, 0 }
};

static double us(uint64_t ns) { return (double)ns / 1e3; }

/* round to 0.001 so the JSON stays readable */
static json_t *jreal(double v)
{
    if (!isfinite(v) || fabs(v) > 1e15) /* found by fuzz_adapt: the cast overflowed (UBSan) */
        return json_real(isfinite(v) ? v : 0);
    return json_real((double)(long long)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5)) / 1000.0);
}

static void print_latency(FILE *f, const char *label, const struct mtl_hist *h)
{
    int i;
    fprintf(f, "  %-12s mean %10.1f", label, mtl_hist_mean(h) / 1e3);
    for (i = 0; percentiles[i].name; i++)
        fprintf(f, "  %s %10.1f", percentiles[i].name, us(mtl_hist_percentile(h, percentiles[i].pct)));
    fprintf(f, "  max %10.1f us\n", us(h->max));
}

double mtl_report_error_rate(const struct mtl_results *res, uint64_t *bad, uint64_t *total)
{
    const struct mtl_counters *c = &res->c;
    uint64_t all = c->sent + c->unsent, good = c->hits + c->misses + c->stored;
    *total = all;
    *bad = all > good ? all - good : 0;
    return all ? (double)*bad / (double)all : 0;
}

static void print_accounting(FILE *f, const struct mtl_config *cfg, const struct mtl_results *res)
{
    const struct mtl_counters *c = &res->c;
    uint64_t bad, total;
    double rate = mtl_report_error_rate(res, &bad, &total);
    fprintf(f, "  accounting   sent %llu = answered %llu + lost (timeout %llu, closed %llu, garbled %llu)"
               " + in flight at end %llu",
            (unsigned long long)c->sent, (unsigned long long)c->requests, (unsigned long long)c->lost_timeout,
            (unsigned long long)c->lost_closed, (unsigned long long)c->lost_garbled,
            (unsigned long long)c->in_flight_end);
    if (cfg->rate > 0)
        fprintf(f, "; scheduled but never sent %llu", (unsigned long long)c->unsent);
    fprintf(f, "\n  error rate   %.3f%% (%llu of %llu not answered well; limit %.3g%%)%s\n", rate * 100,
            (unsigned long long)bad, (unsigned long long)total, cfg->error_limit * 100,
            rate > cfg->error_limit ? "  ABOVE THE LIMIT" : "");
}

void mtl_report_print(FILE *f, const struct mtl_config *cfg, const struct mtl_results *res)
{
    const struct mtl_counters *c = &res->c;
    unsigned i;

    fprintf(f, "mtload %s %s: %u threads, %u conns, pipeline %u, %s",
            cfg->proto->name, cfg->server, cfg->threads, cfg->conns, cfg->pipeline,
            cfg->rate > 0 ? "open loop" : "closed loop");
    if (cfg->rate > 0)
        fprintf(f, " at %.0f req/s (%s)", cfg->rate, mtl_arrival_name(cfg->arrival));
    fprintf(f, "%s, %s engine\n", cfg->work.preload ? ", preload" : "", res->engine ? res->engine : "epoll");
    if (res->engine_note[0])
        fprintf(f, "  note: %s\n", res->engine_note);
    fprintf(f, "  duration     %.3f s\n", res->duration_s);
    fprintf(f, "  requests     %llu  (%.1f ops/s)\n", (unsigned long long)c->requests,
            res->duration_s > 0 ? (double)c->requests / res->duration_s : 0.0);
    fprintf(f, "  sets %llu  gets %llu  hits %llu  misses %llu\n",
            (unsigned long long)c->sets, (unsigned long long)c->gets,
            (unsigned long long)c->hits, (unsigned long long)c->misses);
    fprintf(f, "  errors       server %llu  protocol %llu  timeout %llu  connect %llu  reconnects %llu\n",
            (unsigned long long)c->err_server, (unsigned long long)c->err_protocol,
            (unsigned long long)c->err_timeout, (unsigned long long)c->err_connect,
            (unsigned long long)c->reconnects);
    print_accounting(f, cfg, res);
    fprintf(f, "  latency (us)\n");
    print_latency(f, "corrected", &res->corrected);
    print_latency(f, "uncorrected", &res->uncorrected);
    fprintf(f, "  client cpu   user %.3f s  sys %.3f s  busy", res->user_s, res->sys_s);
    for (i = 0; i < res->nthreads; i++)
        fprintf(f, " %.0f%%", res->cpu[i].busy * 100.0);
    fprintf(f, "\n");
    if (res->client_bound)
        fprintf(f, "client-bound: figures measure the client\n");
}

json_t *mtl_buckets_json(const struct mtl_hist *h)
{
    json_t *a = json_array();
    for (size_t i = 0; i < h->nbuckets; i++)
        if (h->counts[i])
            json_array_append_new(a, json_pack("[f,I]", us(mtl_hist_bucket_value(h, i)), (json_int_t)h->counts[i]));
    return a;
}

json_t *mtl_latency_json(const struct mtl_hist *h)
{
    json_t *o = json_object();
    int i;
    json_object_set_new(o, "mean", jreal(mtl_hist_mean(h) / 1e3));
    for (i = 0; percentiles[i].name; i++)
        json_object_set_new(o, percentiles[i].name,
                            jreal(us(mtl_hist_percentile(h, percentiles[i].pct))));
    json_object_set_new(o, "max", jreal(us(h->max)));
    json_object_set_new(o, "count", json_integer((json_int_t)h->total));
    return o;
}

static json_t *config_json(const struct mtl_config *cfg)
{
    const struct mtl_workload *w = &cfg->work;
    json_t *o = json_object();

    json_object_set_new(o, "server", json_string(cfg->server));
    json_object_set_new(o, "protocol", json_string(cfg->proto->name));
    json_object_set_new(o, "threads", json_integer(cfg->threads));
    json_object_set_new(o, "conns", json_integer(cfg->conns));
    json_object_set_new(o, "pipeline", json_integer(cfg->pipeline));
    json_object_set_new(o, "cpus", json_string(cfg->cpus_text));
    json_object_set_new(o, "engine", json_string(mtl_engine_kind_name(cfg->engine)));
    json_object_set_new(o, "ratio", json_string(cfg->ratio_text));
    json_object_set_new(o, "keys", json_integer((json_int_t)w->keys));
    json_object_set_new(o, "key_prefix", json_string(w->prefix));
    json_object_set_new(o, "key_pattern", json_string(cfg->pattern_text));
    json_object_set_new(o, "value_size", json_string(cfg->vsize_text));
    json_object_set_new(o, "paths", json_string(cfg->paths_text));
    json_object_set_new(o, "preload", json_boolean(w->preload));
    json_object_set_new(o, "loop", json_string(cfg->rate > 0 ? "open" : "closed"));
    json_object_set_new(o, "rate", json_real(cfg->rate));
    json_object_set_new(o, "arrival", json_string(mtl_arrival_name(cfg->arrival)));
    json_object_set_new(o, "warmup_s", json_real(mtl_sec(cfg->warmup)));
    json_object_set_new(o, "duration_s", json_real(mtl_sec(cfg->duration)));
    json_object_set_new(o, "requests", json_integer((json_int_t)cfg->requests));
    json_object_set_new(o, "timeout_s", json_real(mtl_sec(cfg->timeout)));
    json_object_set_new(o, "spin_s", json_real(mtl_sec(cfg->spin)));
    json_object_set_new(o, "seed", json_integer((json_int_t)cfg->seed));
    json_object_set_new(o, "version", json_string(MTEBENCH_VERSION));
    return o;
}

static json_t *results_json(const struct mtl_config *cfg, const struct mtl_results *res)
{
    const struct mtl_counters *c = &res->c;
    json_t *root = json_object(), *tot = json_object(), *err = json_object();
    json_t *lat = json_object(), *hist = json_array(), *ts = json_array();
    json_t *cpu = json_object(), *threads = json_array();
    size_t i;

    json_object_set_new(root, "schema", json_string(MTL_JSON_SCHEMA));
    json_object_set_new(root, "config", config_json(cfg));
    json_object_set_new(root, "duration_s", jreal(res->duration_s));
    /* the I/O backend that ran (config.engine is what was asked for) */
    json_object_set_new(root, "engine", json_string(res->engine ? res->engine : "epoll"));
    if (res->engine_note[0])
        json_object_set_new(root, "engine_note", json_string(res->engine_note));

    json_object_set_new(tot, "requests", json_integer((json_int_t)c->requests));
    json_object_set_new(tot, "ops_per_sec",
                        jreal(res->duration_s > 0 ? (double)c->requests / res->duration_s : 0));
    json_object_set_new(tot, "sets", json_integer((json_int_t)c->sets));
    json_object_set_new(tot, "gets", json_integer((json_int_t)c->gets));
    json_object_set_new(tot, "hits", json_integer((json_int_t)c->hits));
    json_object_set_new(tot, "misses", json_integer((json_int_t)c->misses));
    json_object_set_new(err, "server", json_integer((json_int_t)c->err_server));
    json_object_set_new(err, "protocol", json_integer((json_int_t)c->err_protocol));
    json_object_set_new(err, "timeout", json_integer((json_int_t)c->err_timeout));
    json_object_set_new(err, "connect", json_integer((json_int_t)c->err_connect));
    json_object_set_new(err, "reconnects", json_integer((json_int_t)c->reconnects));
    json_object_set_new(tot, "errors", err);
    {
        uint64_t bad, total;
        double rate = mtl_report_error_rate(res, &bad, &total);
        json_object_set_new(tot, "accounting",
                            json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "sent", (json_int_t)c->sent, "answered",
                                      (json_int_t)c->requests, "stored", (json_int_t)c->stored, "lost_timeout",
                                      (json_int_t)c->lost_timeout, "lost_closed", (json_int_t)c->lost_closed,
                                      "lost_garbled", (json_int_t)c->lost_garbled, "in_flight_end",
                                      (json_int_t)c->in_flight_end, "unsent", (json_int_t)c->unsent));
        json_object_set_new(tot, "error_rate", json_real(rate));
        json_object_set_new(tot, "error_limit", json_real(cfg->error_limit));
        json_object_set_new(tot, "errors_over_limit", json_boolean(rate > cfg->error_limit));
    }
    json_object_set_new(root, "totals", tot);

    json_object_set_new(lat, "corrected", mtl_latency_json(&res->corrected));
    json_object_set_new(lat, "uncorrected", mtl_latency_json(&res->uncorrected));
    json_object_set_new(root, "latency_us", lat);

    json_decref(hist);
    json_object_set_new(root, "histogram", mtl_buckets_json(&res->corrected));
    json_object_set_new(root, "histogram_uncorrected", mtl_buckets_json(&res->uncorrected));

    for (i = 0; i < res->series.len; i++) {
        const struct mtl_second *s = &res->series.sec[i];
        json_t *o = json_object();
        json_object_set_new(o, "t", json_integer((json_int_t)i + 1));
        json_object_set_new(o, "ops", json_integer((json_int_t)s->ops));
        json_object_set_new(o, "p50_us", jreal(us(mtl_hist_percentile(&s->hist, 50))));
        json_object_set_new(o, "p99_us", jreal(us(mtl_hist_percentile(&s->hist, 99))));
        json_object_set_new(o, "errors", json_integer((json_int_t)s->errors));
        json_array_append_new(ts, o);
    }
    json_object_set_new(root, "timeseries", ts);

    for (i = 0; i < res->nthreads; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "user_s", jreal(res->cpu[i].user_s));
        json_object_set_new(o, "sys_s", jreal(res->cpu[i].sys_s));
        json_object_set_new(o, "busy", jreal(res->cpu[i].busy));
        json_array_append_new(threads, o);
    }
    json_object_set_new(cpu, "threads", threads);
    json_object_set_new(cpu, "user_s", jreal(res->user_s));
    json_object_set_new(cpu, "sys_s", jreal(res->sys_s));
    json_object_set_new(cpu, "client_bound", json_boolean(res->client_bound));
    json_object_set_new(root, "cpu", cpu);
    return root;
}

int mtl_report_write_json(const char *path, const struct mtl_config *cfg,
                          const struct mtl_results *res)
{
    char *tmp;
    FILE *f;
    json_t *root;
    int rc = 0;

    if (!(f = mtb_af_fopen(path, &tmp)))
        return errno ? errno : ENOMEM;
    root = results_json(cfg, res);
    errno = 0;
    if (!root || json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) != 0)
        rc = errno ? errno : EIO;   /* ENOSPC from the write, not a made-up EIO */
    fputc('\n', f);
    json_decref(root);
    return mtb_af_fclose(f, tmp, path, rc);
}

int mtl_report_write_hgrm(const char *path, const struct mtl_results *res)
{
    char *tmp;
    FILE *f;

    if (!(f = mtb_af_fopen(path, &tmp)))
        return errno ? errno : ENOMEM;
    return mtb_af_fclose(f, tmp, path, mtl_hist_write_hgrm(&res->corrected, f, 1e6));
}
