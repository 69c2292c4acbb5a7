/* main.c - mtload: parse options, run the engine, report. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "loadgen/config.h"
#include "loadgen/engine.h"
#include "loadgen/report.h"

static void on_signal(int sig)
{
    (void)sig;
    mtl_stop_requested = mtl_stop_requested ? 2 : 1;
}

int main(int argc, char **argv)
{
    static struct mtl_config cfg;
    struct mtl_results res;
    struct sigaction sa;
    char err[512];
    int rc, over = 0;

    rc = mtl_config_parse(&cfg, argc, argv, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "mtload: %s\n", err);
        return MTL_EXIT_USAGE;
    }
    if (rc > 0)
        return 0;                       /* --help or --version printed */
    signal(SIGPIPE, SIG_IGN);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (mtl_engine_run(&cfg, &res, err, sizeof(err)) != 0) {
        fprintf(stderr, "mtload: %s\n", err);
        mtl_config_free(&cfg);
        return MTL_EXIT_FAILED;
    }
    rc = 0;
    if (!cfg.quiet)
        mtl_report_print(stdout, &cfg, &res);
    else if (res.client_bound)
        fprintf(stderr, "client-bound: figures measure the client\n");
    if (cfg.json_path && (rc = mtl_report_write_json(cfg.json_path, &cfg, &res)) != 0)
        fprintf(stderr, "mtload: --json %s: cannot write: %s (%s)\n", cfg.json_path, strerror(rc), strerrorname_np(rc));
    if (cfg.hgrm_path && (rc = mtl_report_write_hgrm(cfg.hgrm_path, &res)) != 0)
        fprintf(stderr, "mtload: --hgrm %s: cannot write: %s (%s)\n", cfg.hgrm_path, strerror(rc), strerrorname_np(rc));
    if (cfg.hlog_path) {
        int wrc = mtl_iv_write_log(cfg.hlog_path, &res.iv, res.start_epoch, res.duration_s, NULL);
        if (wrc) {
            fprintf(stderr, "mtload: --hlog %s: cannot write: %s (%s)\n", cfg.hlog_path, strerror(wrc), strerrorname_np(wrc));
            rc = wrc;
        }
    }
    {
        uint64_t bad, total;
        double erate = mtl_report_error_rate(&res, &bad, &total);
        const struct mtl_counters *c = &res.c;
        if (cfg.work.preload && c->stored != cfg.work.keys) {
            /* a preload that did not store every key leaves misses where hits were meant */
            fprintf(stderr, "mtload: --preload stored %llu of %llu keys (server errors %llu, protocol errors %llu; "
                            "lost: timeout %llu, closed %llu, garbled %llu; unanswered at the end %llu)\n",
                    (unsigned long long)c->stored, (unsigned long long)cfg.work.keys,
                    (unsigned long long)c->err_server, (unsigned long long)c->err_protocol,
                    (unsigned long long)c->lost_timeout, (unsigned long long)c->lost_closed,
                    (unsigned long long)c->lost_garbled, (unsigned long long)c->in_flight_end);
            rc = rc ? rc : 1;
        } else if (!cfg.work.preload && erate > cfg.error_limit) {
            fprintf(stderr, "mtload: %llu of %llu requests (%.3f%%) were answered with an error, lost or never sent: "
                            "above the limit of %.3g%% (see \"accounting\" in the results): exit %d\n",
                    (unsigned long long)bad, (unsigned long long)total, erate * 100, cfg.error_limit * 100,
                    MTL_EXIT_ERRORS);
            over = 1;
        } else if (!cfg.work.preload && c->hits + c->misses + c->stored == 0) {
            fprintf(stderr, "mtload: no request was answered (connect errors %llu): nothing measured: exit %d\n",
                    (unsigned long long)c->err_connect, MTL_EXIT_ERRORS);
            over = 1;
        }
    }
    mtl_results_free(&res);
    mtl_config_free(&cfg);
    /* a failure first; then a measurement the errors make untrustworthy */
    return rc ? MTL_EXIT_FAILED : over ? MTL_EXIT_ERRORS : MTL_EXIT_OK;
}
