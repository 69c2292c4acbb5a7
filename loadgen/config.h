/* config.h - mtload's options: one struct, defaults, and the command-line parser. */
#ifndef MTL_CONFIG_H
#define MTL_CONFIG_H
#include <netinet/in.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>
#include "loadgen/mtime.h"
#include "loadgen/proto.h"
#include "loadgen/schedule.h"
#include "loadgen/workload.h"

#define MTL_CPUS_MAX 1024

/* --engine: how the threads talk to the kernel */
enum mtl_engine_kind {
    MTL_ENGINE_AUTO,                    /* io_uring where the kernel allows it, else epoll */
    MTL_ENGINE_EPOLL,
    MTL_ENGINE_URING,
};
const char *mtl_engine_kind_name(enum mtl_engine_kind e);

struct mtl_config {
    char server[MTL_HOST_MAX];          /* --server as given */
    struct sockaddr_storage addr;       /* resolved server address */
    socklen_t addrlen;
    char host_header[MTL_HOST_MAX];     /* HTTP Host header (host:port) */
    const struct mtl_proto *proto;      /* --protocol */
    unsigned threads;                   /* --threads */
    unsigned conns;                     /* --conns: total over all threads */
    unsigned pipeline;                  /* --pipeline: outstanding per connection */
    unsigned ncpus;                     /* --cpus, threads pinned round-robin */
    int cpus[MTL_CPUS_MAX];
    char cpus_text[256];
    double rate;                        /* --rate total req/s; 0 = closed loop */
    enum mtl_arrival arrival;           /* --arrival */
    mtl_time_t warmup;                  /* --warmup */
    mtl_time_t duration;                /* --duration (0 when --requests alone) */
    uint64_t requests;                  /* --requests: total, 0 = by duration */
    mtl_time_t timeout;                 /* --timeout per request */
    mtl_time_t spin;                    /* --spin: open loop polls this close to a send */
    uint64_t seed;                      /* --seed */
    const char *json_path;              /* --json */
    const char *hgrm_path;              /* --hgrm */
    const char *hlog_path;              /* --hlog */
    int quiet;                          /* --quiet: no human table */
    enum mtl_engine_kind engine;        /* --engine */
    double error_limit;                 /* --error-limit: a run above this fraction of
                                         * requests in error or lost is marked */
    struct mtl_workload work;           /* mix, keys, values, paths, --preload */
    /* echo of the spec strings, for the JSON "config" */
    char ratio_text[64], pattern_text[64], vsize_text[512], paths_text[1024];
};

/* exit statuses: MTL_EXIT_USAGE for a bad command line, and the others */
#include "common/mtload_exit.h"

/**
 * Parse argv into cfg (defaults first). On a bad option writes a one-line
 * message naming it and what is accepted into err. @return 0; 1 when --help or
 * --version was printed; -1 on error.
 */
int mtl_config_parse(struct mtl_config *cfg, int argc, char **argv, char *err, size_t errlen);
void mtl_config_free(struct mtl_config *cfg);
void mtl_config_usage(FILE *f);

/** Parse "HOST:PORT" ([v6]:port, v4, localhost) into an address. @return 0 or EINVAL. */
int mtl_parse_server(const char *s, int default_port, struct sockaddr_storage *ss,
                     socklen_t *len, char *host_header, size_t hlen);
/** Parse a CPU list "0,2-3". @return the count, or -1. */
int mtl_parse_cpus(const char *s, int *cpus, int max);
#endif
