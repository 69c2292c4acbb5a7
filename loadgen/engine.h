/* engine.h - the load engine: threads with their own event loops and connections
 * (I/O by io_uring or epoll, --engine; engine_int.h).
 *
 * Each thread owns its connections, generator, counters, histograms and time
 * series; nothing is shared while the load runs. mtl_engine_run() merges them
 * after pthread_join into struct mtl_results.
 */
#ifndef MTL_ENGINE_H
#define MTL_ENGINE_H
#include <signal.h>
#include <stdint.h>
#include "loadgen/config.h"
#include "loadgen/hist.h"
#include "loadgen/intervals.h"

/* Every counter, defined once: the per-thread struct, the merge and the report
 * are generated from this list. */
#define MTL_COUNTERS(X) \
    X(requests)      /* measured responses */                           \
    X(sets)          /* of which SET */                                 \
    X(gets)          /* of which GET (HTTP: every request) */           \
    X(hits)          /* GET found / HTTP 2xx-3xx */                     \
    X(misses)        /* GET not found / HTTP 404 */                     \
    X(err_server)    /* SERVER_ERROR, NOT_STORED.. / HTTP 5xx */         \
    X(err_protocol)  /* unparseable or CLIENT_ERROR / HTTP 4xx */        \
    X(err_timeout)   /* requests unanswered within --timeout */         \
    X(err_connect)   /* failed connection attempts */                   \
    X(reconnects)    /* connections re-opened after a reset or close */ \
    /* accounting of measured requests: sent = requests + lost_timeout + \
     * lost_closed + lost_garbled + in_flight_end */                    \
    X(sent)          /* measured requests written */                   \
    X(stored)        /* SET answered STORED */                          \
    X(lost_timeout)  /* outstanding when --timeout expired */           \
    X(lost_closed)   /* outstanding when the connection closed */       \
    X(lost_garbled)  /* outstanding when the stream became unparseable */ \
    X(in_flight_end) /* still unanswered when the run ended */          \
    X(unsent)        /* open loop: scheduled in the window, never sent */

struct mtl_counters {
#define MTL_X(name) uint64_t name;
    MTL_COUNTERS(MTL_X)
#undef MTL_X
};

void mtl_counters_add(struct mtl_counters *dst, const struct mtl_counters *src);

#define MTL_HIST_SUB_BITS   7               /* < 0.8% bucket width */
#define MTL_HIST_HIGHEST    (1ULL << 38)    /* ns: about 275 s */
#define MTL_SERIES_SUB_BITS 5               /* per-second histograms: < 3.2% */

/* one second of the time series */
struct mtl_second {
    uint64_t ops;
    uint64_t errors;
    struct mtl_hist hist;                   /* corrected latency, ns */
};

struct mtl_series {
    size_t len, cap;
    struct mtl_second *sec;
};

struct mtl_thread_cpu {
    double user_s, sys_s;                   /* over the measured window */
    double wall_s;
    double busy;                            /* (user + sys) / wall */
};

struct mtl_results {
    struct mtl_counters c;
    struct mtl_hist corrected;              /* from intended send time, ns */
    struct mtl_hist uncorrected;            /* from actual send time, ns */
    struct mtl_series series;
    struct mtl_intervals iv;                /* per second by operation (--hlog only) */
    double start_epoch;                     /* wall clock at the measured window's start */
    unsigned nthreads;
    struct mtl_thread_cpu *cpu;
    double user_s, sys_s;
    int client_bound;                       /* some thread was > 90% busy */
    double duration_s;                      /* measured window */
    const char *engine;                     /* the I/O backend that ran: "io_uring" or "epoll" */
    char engine_note[200];                  /* why auto fell back to epoll, or "" */
};

/** Set from a signal handler to end the run early (results are still reported). */
extern volatile sig_atomic_t mtl_stop_requested;

/**
 * Run the load described by cfg. @return 0, or an errno value with a message
 * in err (setup failures only: runtime errors are counted in res).
 */
int mtl_engine_run(const struct mtl_config *cfg, struct mtl_results *res,
                   char *err, size_t errlen);
void mtl_results_free(struct mtl_results *res);

/* --engine auto: epoll from this pipeline depth on, io_uring below it (where
 * usable). Measured on loopback, memcached on one CPU and mtload on another,
 * 16 connections, operations per client CPU-second (docs/MTLOAD.md, "Engines"):
 * io_uring against epoll 1.06x at pipeline 1, 1.01x at 4, 0.98x at 8, and at 16
 * 0.91x to 1.13x over five series, epoll ahead in four (0.99x over 14 rounds). */
#define MTL_AUTO_EPOLL_PIPELINE 8
/** io_uring usable here (ring, buffer ring, multishot receive)? 0, or errno with why in err. */
int mtl_uring_probe(char *err, size_t errlen);

/* Time series helpers (exposed for tests). @return 0 or ENOMEM. */
int mtl_series_reserve(struct mtl_series *s, size_t seconds);
void mtl_series_free(struct mtl_series *s);
#endif
