/* engine_int.h - what the engine core shares with its I/O backends.
 *
 * The core (engine.c) owns the measurement: connections' request slots, the
 * open-loop schedules, timeouts, counters and histograms. A backend
 * (io_epoll.c, io_uring.c) owns only how bytes and connection events reach
 * the kernel: it creates and closes sockets, writes out[out_off..out_len),
 * waits for events and hands them back to the core through the mtl_eng_*
 * calls below. Private to loadgen/.
 */
#ifndef MTL_ENGINE_INT_H
#define MTL_ENGINE_INT_H
#include "loadgen/engine.h"
#include "loadgen/proto.h"
#include "loadgen/schedule.h"
#include "loadgen/workload.h"
#include <pthread.h>
#include <sys/resource.h>

enum conn_state { CS_CLOSED, CS_CONNECTING, CS_OPEN };

struct slot {                 /* one outstanding request */
    mtl_time_t intended;      /* when it should have been sent */
    mtl_time_t sent;          /* when it was written */
    enum mtl_op op;
};

struct thread;

struct conn {
    struct thread *t;
    unsigned idx;             /* in t->conns */
    int fd;
    enum conn_state state;
    int want_out;             /* a write is pending (epoll: EPOLLOUT armed; io_uring: SEND in flight) */
    unsigned gen;             /* io_uring: bumped on close, stale completions are dropped */
    int recv_armed;           /* io_uring: a multishot receive is in flight */
    struct mtl_parser parser;
    struct mtl_sched sched;   /* open loop only */
    struct slot *slots;       /* ring of cfg->pipeline entries */
    unsigned head, count;
    char *out;
    size_t out_len, out_off, out_cap;
    mtl_time_t retry_at;
};

struct thread {
    unsigned id;
    pthread_t tid;
    const struct mtl_config *cfg;
    const struct mtl_proto *proto;
    const struct mtl_backend *be;
    void *io;                 /* the backend's per-thread state */
    int spinning;             /* open loop: a send is due within cfg->spin */
    struct conn *conns;
    unsigned nconns;
    struct mtl_gen gen;
    uint64_t quota;           /* measured requests to issue; 0 = unlimited */
    uint64_t issued;          /* measured requests issued */
    mtl_time_t start, measure_start, end;
    int measuring, stopping;
    mtl_time_t drain_until;
    mtl_time_t next_check;
    mtl_time_t last_done;
    mtl_time_t last_progress; /* last response or successful connect */
    struct mtl_counters c;
    struct mtl_hist corr, unc;
    struct mtl_series series;
    struct mtl_second *sec_at;     /* second_of's last answer, for times in [sec_from, sec_to) */
    mtl_time_t sec_from, sec_to;
    struct mtl_intervals iv;  /* --hlog: per second by operation */
    struct rusage ru0, ru1;
    mtl_time_t cpu_t0, cpu_t1;
    int err;
    char errmsg[160];
};

/* An I/O backend. Every call runs on the thread that owns t / c->t. */
struct mtl_backend {
    const char *name;
    /* per-thread setup inside the thread, before any connect; 0 or errno with t->errmsg */
    int (*thread_init)(struct thread *t);
    void (*thread_fini)(struct thread *t);
    /* create c->fd and start connecting to cfg->addr: 0 or errno */
    int (*connect)(struct conn *c);
    /* close c->fd; pending operations on it must never reach the core again */
    void (*close)(struct conn *c);
    /* write out[out_off..out_len) (now or at the next wait); errors reset c */
    void (*send)(struct conn *c, mtl_time_t now);
    /* wait until an event, wake_at (absolute; UINT64_MAX = none) or at most
     * max_wait, then hand the events to the core; spin: do not wait at all */
    void (*wait)(struct thread *t, mtl_time_t wake_at, mtl_time_t max_wait, int spin);
};

extern const struct mtl_backend mtl_backend_epoll;
extern const struct mtl_backend mtl_backend_uring;


/* ---- the core, called by backends ---- */
/** The time of the events just reaped; starts the measured window when due. */
mtl_time_t mtl_eng_now(struct thread *t);
/** A connect finished: err 0 (open) or an errno value. */
void mtl_eng_connected(struct conn *c, int err, mtl_time_t now);
/** Bytes arrived. @return 0, or -1 when the connection was reset. */
int mtl_eng_input(struct conn *c, const char *buf, size_t len, mtl_time_t now);
/** Issue what the pipeline and the schedule allow. */
void mtl_eng_fill(struct conn *c, mtl_time_t now);
/** Drop the connection (closed by the peer, an error). */
void mtl_eng_reset(struct conn *c, mtl_time_t now, int retry);
#endif
