/* engine.c - per-thread epoll loops driving connections in closed or open loop. */
#include "engine.h"
#include "mtime.h"
#include "proto.h"
#include "schedule.h"
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

volatile sig_atomic_t mtl_stop_requested;

#define CHECK_PERIOD   (10 * MTL_NS_PER_MS)   /* timeouts and reconnects */
#define RETRY_DELAY    (100 * MTL_NS_PER_MS)  /* after a failed connect */
#define READ_BUF       (256 * 1024)
#define MAX_EVENTS     256

enum conn_state { CS_CLOSED, CS_CONNECTING, CS_OPEN };

struct slot {                 /* one outstanding request */
    mtl_time_t intended;      /* when it should have been sent */
    mtl_time_t sent;          /* when it was written */
    enum mtl_op op;
};

struct thread;

struct conn {
    struct thread *t;
    int fd;
    enum conn_state state;
    int want_out;             /* EPOLLOUT registered */
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
    int ep, tfd;
    int spinning;             /* open loop: a send is due within cfg->spin */
    mtl_time_t tfd_armed;
    struct conn *conns;
    unsigned nconns;
    struct mtl_gen gen;
    char *rbuf;
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
    struct rusage ru0, ru1;
    mtl_time_t cpu_t0, cpu_t1;
    int err;
    char errmsg[160];
};

void mtl_counters_add(struct mtl_counters *dst, const struct mtl_counters *src)
{
#define MTL_X(name) dst->name += src->name;
    MTL_COUNTERS(MTL_X)
#undef MTL_X
}

/* ---- time series ----------------------------------------------------- */

int mtl_series_reserve(struct mtl_series *s, size_t seconds)
{
    size_t cap = s->cap ? s->cap : 16, i;
    struct mtl_second *n;

    if (seconds <= s->cap)
        return 0;
    while (cap < seconds)
        cap *= 2;
    n = realloc(s->sec, cap * sizeof(*n));
    if (!n)
        return ENOMEM;
    s->sec = n;
    for (i = s->cap; i < cap; i++) {
        memset(&n[i], 0, sizeof(n[i]));
        if (mtl_hist_init(&n[i].hist, MTL_SERIES_SUB_BITS, MTL_HIST_HIGHEST)) {
            s->cap = i;
            return ENOMEM;
        }
    }
    s->cap = cap;
    return 0;
}

void mtl_series_free(struct mtl_series *s)
{
    size_t i;
    for (i = 0; i < s->cap; i++)
        mtl_hist_free(&s->sec[i].hist);
    free(s->sec);
    memset(s, 0, sizeof(*s));
}

/* the second (from the start of measurement) that time now falls in */
static struct mtl_second *second_of(struct thread *t, mtl_time_t now)
{
    size_t s = now > t->measure_start ? (size_t)((now - t->measure_start) / MTL_NS_PER_SEC) : 0;
    size_t last = (size_t)((t->cfg->duration + MTL_NS_PER_SEC - 1) / MTL_NS_PER_SEC);
    if (last && s >= last)
        s = last - 1;                      /* responses drained after the end */
    if (s >= t->series.cap && mtl_series_reserve(&t->series, s + 1))
        return NULL;                       /* out of memory: the second is not kept */
    if (s >= t->series.len)
        t->series.len = s + 1;
    return &t->series.sec[s];
}

static void count_error(struct thread *t, uint64_t *counter, uint64_t n, mtl_time_t now)
{
    struct mtl_second *sec;
    *counter += n;
    if (t->measuring && (sec = second_of(t, now)))
        sec->errors += n;
}

/* Count the measured requests still outstanding on c into *counter (before
 * a reset drops them): every measured request sent is answered or lost. */
static void conn_lose(struct conn *c, uint64_t *counter)
{
    unsigned cap = c->t->cfg->pipeline, k;
    for (k = 0; k < c->count; k++)
        if (c->slots[(c->head + k) % cap].intended >= c->t->measure_start)
            (*counter)++;
}

/* ---- connections ----------------------------------------------------- */

static void conn_set_out(struct conn *c, int want)
{
    struct epoll_event ev;
    if (c->want_out == want)
        return;
    ev.events = EPOLLIN | (want ? EPOLLOUT : 0);
    ev.data.ptr = c;
    epoll_ctl(c->t->ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want;
}

static void conn_open(struct conn *c, mtl_time_t now);

/* Drop the connection; outstanding requests are lost (timed out when
 * timed_out). Reconnect at once, or after a delay when retry is set. */
static void conn_reset(struct conn *c, mtl_time_t now, int retry)
{
    struct thread *t = c->t;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->state = CS_CLOSED;
    c->count = 0;
    c->head = 0;
    c->out_len = c->out_off = 0;
    c->want_out = 0;
    if (retry) {
        c->retry_at = now + RETRY_DELAY;
        return;
    }
    t->c.reconnects++;
    conn_open(c, now);
}

static void conn_open(struct conn *c, mtl_time_t now)
{
    struct thread *t = c->t;
    const struct mtl_config *cfg = t->cfg;
    struct epoll_event ev;
    int one = 1, fd;

    fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        count_error(t, &t->c.err_connect, 1, now);
        c->retry_at = now + RETRY_DELAY;
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    t->proto->reset(&c->parser);
    if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) < 0 &&
        errno != EINPROGRESS) {
        close(fd);
        c->fd = -1;
        count_error(t, &t->c.err_connect, 1, now);
        c->retry_at = now + RETRY_DELAY;
        return;
    }
    c->state = CS_CONNECTING;
    c->retry_at = now;                 /* connect start, for the connect timeout */
    c->want_out = 1;
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = c;
    if (epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        close(fd);
        c->fd = -1;
        c->state = CS_CLOSED;
        count_error(t, &t->c.err_connect, 1, now);
        c->retry_at = now + RETRY_DELAY;
    }
}

static int may_issue(struct thread *t, mtl_time_t intended)
{
    if (t->stopping)
        return 0;
    if (t->quota && intended >= t->measure_start && t->issued >= t->quota)
        return 0;
    return 1;
}

static void conn_flush(struct conn *c, mtl_time_t now)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            conn_set_out(c, 1);
            return;
        }
        conn_lose(c, &c->t->c.lost_closed);
        conn_reset(c, now, 0);
        return;
    }
    c->out_len = c->out_off = 0;
    conn_set_out(c, 0);
}

/* Build as many requests as the pipeline and the schedule allow, then write. */
static void conn_fill(struct conn *c, mtl_time_t now)
{
    struct thread *t = c->t;
    const struct mtl_config *cfg = t->cfg;
    unsigned cap = cfg->pipeline;
    int built = 0;

    if (c->state != CS_OPEN)
        return;
    if (c->out_off) {
        memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
        c->out_len -= c->out_off;
        c->out_off = 0;
    }
    while (c->count < cap) {
        mtl_time_t intended = now;
        struct slot *s;

        if (cfg->rate > 0) {
            intended = mtl_sched_peek(&c->sched);
            if (intended > now)
                break;
        }
        if (!may_issue(t, intended))
            break;
        if (cfg->rate > 0)
            mtl_sched_advance(&c->sched, &t->gen.rng);
        if (intended >= t->measure_start) {
            t->issued++;
            t->c.sent++;
        }
        s = &c->slots[(c->head + c->count) % cap];
        s->intended = intended;
        s->sent = now;
        c->out_len += t->proto->build(&t->gen, c->out + c->out_len, &s->op);
        c->count++;
        built = 1;
    }
    if (built && !c->want_out)
        conn_flush(c, now);
}

static void complete(struct conn *c, enum mtl_result res, mtl_time_t now)
{
    struct thread *t = c->t;
    unsigned cap = t->cfg->pipeline;
    struct slot *s = &c->slots[c->head];
    struct mtl_second *sec;

    c->head = (c->head + 1) % cap;
    c->count--;
    if (!t->measuring || s->intended < t->measure_start)
        return;
    t->c.requests++;
    if (s->op == MTL_OP_SET)
        t->c.sets++;
    else
        t->c.gets++;
    sec = second_of(t, now);
    switch (res) {
    case MTL_RES_HIT: t->c.hits++; break;
    case MTL_RES_MISS: t->c.misses++; break;
    case MTL_RES_STORED: t->c.stored++; break;
    case MTL_RES_SERVER_ERROR: t->c.err_server++; if (sec) sec->errors++; break;
    case MTL_RES_CLIENT_ERROR: t->c.err_protocol++; if (sec) sec->errors++; break;
    }
    mtl_hist_record(&t->corr, now - s->intended);
    mtl_hist_record(&t->unc, now - s->sent);
    if (sec) {
        sec->ops++;
        mtl_hist_record(&sec->hist, now - s->intended);
    }
    t->last_done = now;
    t->last_progress = now;
}

/* Parse what was read; @return 0, or -1 when the connection was reset. */
static int conn_consume(struct conn *c, const char *buf, size_t len, mtl_time_t now)
{
    struct thread *t = c->t;
    size_t off = 0;

    while (off < len) {
        size_t used = 0;
        enum mtl_result res = MTL_RES_HIT;
        enum mtl_parse_rc rc = t->proto->parse(&c->parser, buf + off, len - off, &used, &res);

        if (rc == MTL_PARSE_MORE)
            break;
        if (rc == MTL_PARSE_ERROR || c->count == 0) {
            count_error(t, &t->c.err_protocol, 1, now);
            conn_lose(c, &t->c.lost_garbled);
            conn_reset(c, now, 0);
            return -1;
        }
        off += used;
        complete(c, res, now);
        if (c->parser.flags & MTL_PF_CLOSE) {
            conn_lose(c, &t->c.lost_closed);
            conn_reset(c, now, 0);
            return -1;
        }
    }
    return 0;
}

static void conn_readable(struct conn *c, mtl_time_t now)
{
    struct thread *t = c->t;
    for (;;) {
        ssize_t n = recv(c->fd, t->rbuf, READ_BUF, 0);
        if (n > 0) {
            if (conn_consume(c, t->rbuf, (size_t)n, now))
                return;
            if ((size_t)n < READ_BUF)
                break;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        conn_lose(c, &t->c.lost_closed);
        conn_reset(c, now, 0);                      /* closed by the server, or an error */
        return;
    }
    conn_fill(c, now);
}

static void conn_event(struct conn *c, uint32_t events, mtl_time_t now)
{
    if (c->state == CS_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            err = errno;
        if (err) {
            count_error(c->t, &c->t->c.err_connect, 1, now);
            conn_reset(c, now, 1);
            return;
        }
        if (!(events & (EPOLLOUT | EPOLLIN)))
            return;
        c->state = CS_OPEN;
        c->t->last_progress = now;
        conn_set_out(c, 0);
        conn_fill(c, now);
        return;
    }
    if (c->state != CS_OPEN)
        return;
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        conn_readable(c, now);
        if (c->state != CS_OPEN)
            return;
    }
    if ((events & EPOLLOUT) && c->want_out) {
        conn_flush(c, now);
        if (c->state == CS_OPEN && !c->want_out)
            conn_fill(c, now);
    }
}

/* Time out stale requests and retry closed connections. */
static void periodic(struct thread *t, mtl_time_t now)
{
    unsigned i;
    for (i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        if (c->state == CS_CLOSED) {
            if (!t->stopping && now >= c->retry_at) {
                t->c.reconnects++;
                conn_open(c, now);
            }
            continue;
        }
        if (c->count && now - c->slots[c->head].sent > t->cfg->timeout) {
            count_error(t, &t->c.err_timeout, c->count, now);
            conn_lose(c, &t->c.lost_timeout);
            conn_reset(c, now, 0);
        } else if (c->state == CS_CONNECTING && now - c->retry_at > t->cfg->timeout) {
            count_error(t, &t->c.err_connect, 1, now);
            conn_reset(c, now, 1);
        }
    }
}

static unsigned outstanding(const struct thread *t)
{
    unsigned i, n = 0;
    for (i = 0; i < t->nconns; i++)
        n += t->conns[i].count;
    return n;
}

/* Open loop: send what is due and arm the timer for the next intended time. */
static void open_loop_tick(struct thread *t, mtl_time_t now)
{
    mtl_time_t next = UINT64_MAX;
    unsigned i;

    for (i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        if (c->state != CS_OPEN)
            continue;
        if (mtl_sched_peek(&c->sched) <= now)
            conn_fill(c, now);
        if (c->state == CS_OPEN && c->count < t->cfg->pipeline &&
            mtl_sched_peek(&c->sched) < next)
            next = mtl_sched_peek(&c->sched);
    }
    if (t->stopping)
        next = UINT64_MAX;
    /* within the spin window of the next send: poll instead of sleeping, so
     * the wake-up latency of a timer does not delay the send */
    t->spinning = next != UINT64_MAX && next <= now + t->cfg->spin;
    if (t->spinning)
        next = UINT64_MAX;
    else if (next != UINT64_MAX)
        next -= t->cfg->spin;
    if (next != t->tfd_armed) {
        struct itimerspec its;
        memset(&its, 0, sizeof(its));
        if (next != UINT64_MAX)
            its.it_value = mtl_timespec(next);
        timerfd_settime(t->tfd, TFD_TIMER_ABSTIME, &its, NULL);
        t->tfd_armed = next;
    }
}

#define STALL_MIN (5 * MTL_NS_PER_SEC)
static mtl_time_t stall_limit(const struct mtl_config *cfg)
{
    return 5 * cfg->timeout > STALL_MIN ? 5 * cfg->timeout : STALL_MIN;
}

static double tv_sec(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static void *thread_main(void *arg)
{
    struct thread *t = arg;
    const struct mtl_config *cfg = t->cfg;
    struct epoll_event events[MAX_EVENTS];
    unsigned i;

    prctl(PR_SET_TIMERSLACK, 1UL);                  /* precise open-loop wake-ups */
    if (cfg->ncpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cfg->cpus[t->id % cfg->ncpus], &set);
        pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    for (i = 0; i < t->nconns; i++)
        conn_open(&t->conns[i], mtl_now());
    t->next_check = mtl_now() + CHECK_PERIOD;
    t->last_progress = mtl_now();
    for (;;) {
        int n, k, timeout_ms = (int)(CHECK_PERIOD / MTL_NS_PER_MS);
        mtl_time_t now;

        if (cfg->rate > 0 && !t->stopping)
            open_loop_tick(t, mtl_now());
        n = epoll_wait(t->ep, events, MAX_EVENTS, t->spinning ? 0 : timeout_ms);
        now = mtl_now();
        if (!t->measuring && now >= t->measure_start) {
            t->measuring = 1;
            getrusage(RUSAGE_THREAD, &t->ru0);
            t->cpu_t0 = now;
        }
        for (k = 0; k < n; k++) {
            if (events[k].data.ptr == NULL) {
                uint64_t ticks;
                if (read(t->tfd, &ticks, sizeof(ticks)) < 0) { /* nothing due */ }
                continue;
            }
            conn_event(events[k].data.ptr, events[k].events, now);
        }
        if (!t->stopping && ((t->end && now >= t->end) || mtl_stop_requested ||
                             (t->quota && t->issued >= t->quota))) {
            t->stopping = 1;
            if (cfg->rate > 0) { /* due 1 ms or more before the end, and never sent */
                mtl_time_t upto = (t->end && t->end < now ? t->end : now) - MTL_NS_PER_MS;
                for (i = 0; i < t->nconns; i++)
                    t->c.unsent += mtl_sched_count_before(&t->conns[i].sched, t->measure_start, upto);
            }
            t->drain_until = now + cfg->timeout;
        }
        /* a run bounded only by a request count gives up when nothing happens */
        if (!t->end && !t->stopping && now - t->last_progress > stall_limit(cfg)) {
            t->stopping = 1;
            t->drain_until = now;
        }
        if (now >= t->next_check) {
            periodic(t, now);
            t->next_check = now + CHECK_PERIOD;
        }
        if (t->stopping) {
            unsigned left = outstanding(t);
            if (left == 0)
                break;
            if (now >= t->drain_until || mtl_stop_requested > 1) {
                count_error(t, &t->c.err_timeout, left, now);
                for (i = 0; i < t->nconns; i++)
                    conn_lose(&t->conns[i], &t->c.in_flight_end);
                break;
            }
        }
    }
    getrusage(RUSAGE_THREAD, &t->ru1);
    t->cpu_t1 = mtl_now();
    if (!t->measuring) {
        t->ru0 = t->ru1;
        t->cpu_t0 = t->cpu_t1;
    }
    for (i = 0; i < t->nconns; i++)
        if (t->conns[i].fd >= 0)
            close(t->conns[i].fd);
    return NULL;
}

/* ---- setup and merge ------------------------------------------------- */

static int thread_setup(struct thread *t, const struct mtl_config *cfg, unsigned id,
                        unsigned first_conn, mtl_time_t start)
{
    const struct mtl_workload *w = &cfg->work;
    struct epoll_event ev;
    unsigned i, total_conns = cfg->conns;
    uint64_t first = w->keys * id / cfg->threads, last = w->keys * (id + 1) / cfg->threads;
    struct mtl_rng seed_rng;

    t->id = id;
    t->cfg = cfg;
    t->proto = cfg->proto;
    t->start = start;
    t->measure_start = start + cfg->warmup;
    t->end = cfg->duration ? t->measure_start + cfg->duration : 0;
    t->tfd_armed = 0;
    if (cfg->requests)
        t->quota = cfg->requests / cfg->threads + (id < cfg->requests % cfg->threads);
    if (w->preload)
        t->quota = last - first;
    mtl_gen_init(&t->gen, w, cfg->seed * 0x9e3779b97f4a7c15ULL + id, first, last);
    if (w->pattern == MTL_KEYS_SEQ || w->preload)
        t->gen.seq = first;
    mtl_rng_seed(&seed_rng, cfg->seed + 1000003ULL * (id + 1));
    if (mtl_hist_init(&t->corr, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) ||
        mtl_hist_init(&t->unc, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) ||
        mtl_series_reserve(&t->series, cfg->duration ?
                           (size_t)(cfg->duration / MTL_NS_PER_SEC) + 2 +
                           (size_t)(cfg->timeout / MTL_NS_PER_SEC) : 16))
        return ENOMEM;
    t->rbuf = malloc(READ_BUF);
    t->nconns = total_conns / cfg->threads + (id < total_conns % cfg->threads);
    t->conns = calloc(t->nconns, sizeof(*t->conns));
    if (!t->rbuf || !t->conns)
        return ENOMEM;
    t->ep = epoll_create1(EPOLL_CLOEXEC);
    if (t->ep < 0)
        return errno;
    if (cfg->rate > 0) {
        t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (t->tfd < 0)
            return errno;
        ev.events = EPOLLIN;
        ev.data.ptr = NULL;
        if (epoll_ctl(t->ep, EPOLL_CTL_ADD, t->tfd, &ev) < 0)
            return errno;
    }
    for (i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        c->t = t;
        c->fd = -1;
        c->out_cap = cfg->pipeline * w->req_max;
        c->out = malloc(c->out_cap);
        c->slots = calloc(cfg->pipeline, sizeof(*c->slots));
        if (!c->out || !c->slots)
            return ENOMEM;
        if (cfg->rate > 0 && mtl_sched_init(&c->sched, cfg->arrival,
                                            cfg->rate / total_conns, start, &seed_rng))
            return EINVAL;
    }
    (void)first_conn;
    return 0;
}

static void thread_free(struct thread *t)
{
    unsigned i;
    if (t->conns) {
        for (i = 0; i < t->nconns; i++) {
            free(t->conns[i].out);
            free(t->conns[i].slots);
        }
    }
    free(t->conns);
    free(t->rbuf);
    if (t->ep >= 0)
        close(t->ep);
    if (t->tfd >= 0)
        close(t->tfd);
    mtl_hist_free(&t->corr);
    mtl_hist_free(&t->unc);
    mtl_series_free(&t->series);
}

static int merge(struct mtl_results *res, struct thread *ts, unsigned n,
                 const struct mtl_config *cfg)
{
    mtl_time_t last = 0, measure_start = ts[0].measure_start;
    size_t maxlen = 0, s;
    unsigned i;

    for (i = 0; i < n; i++)
        if (ts[i].series.len > maxlen)
            maxlen = ts[i].series.len;
    if (mtl_series_reserve(&res->series, maxlen ? maxlen : 1))
        return ENOMEM;
    res->series.len = maxlen;
    for (i = 0; i < n; i++) {
        struct thread *t = &ts[i];
        struct mtl_thread_cpu *cpu = &res->cpu[i];

        mtl_counters_add(&res->c, &t->c);
        mtl_hist_merge(&res->corrected, &t->corr);
        mtl_hist_merge(&res->uncorrected, &t->unc);
        for (s = 0; s < t->series.len; s++) {
            res->series.sec[s].ops += t->series.sec[s].ops;
            res->series.sec[s].errors += t->series.sec[s].errors;
            mtl_hist_merge(&res->series.sec[s].hist, &t->series.sec[s].hist);
        }
        cpu->user_s = tv_sec(t->ru1.ru_utime) - tv_sec(t->ru0.ru_utime);
        cpu->sys_s = tv_sec(t->ru1.ru_stime) - tv_sec(t->ru0.ru_stime);
        cpu->wall_s = mtl_sec(t->cpu_t1 - t->cpu_t0);
        cpu->busy = cpu->wall_s > 0 ? (cpu->user_s + cpu->sys_s) / cpu->wall_s : 0;
        res->user_s += cpu->user_s;
        res->sys_s += cpu->sys_s;
        if (cpu->busy > 0.9)
            res->client_bound = 1;
        if (t->last_done > last)
            last = t->last_done;
    }
    /* a full second of wall time or more with at least one response defines the window */
    if (cfg->duration && !mtl_stop_requested)
        res->duration_s = mtl_sec(cfg->duration);
    else
        res->duration_s = last > measure_start ? mtl_sec(last - measure_start) : 0;
    return 0;
}

int mtl_engine_run(const struct mtl_config *cfg, struct mtl_results *res,
                   char *err, size_t errlen)
{
    struct thread *ts;
    unsigned i, started = 0;
    mtl_time_t start;
    int rc = 0;

    memset(res, 0, sizeof(*res));
    res->nthreads = cfg->threads;
    res->cpu = calloc(cfg->threads, sizeof(*res->cpu));
    ts = calloc(cfg->threads, sizeof(*ts));
    if (!res->cpu || !ts ||
        mtl_hist_init(&res->corrected, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) ||
        mtl_hist_init(&res->uncorrected, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST)) {
        snprintf(err, errlen, "out of memory");
        free(ts);
        return ENOMEM;
    }
    for (i = 0; i < cfg->threads; i++)
        ts[i].ep = ts[i].tfd = -1;
    start = mtl_now();
    for (i = 0; i < cfg->threads && !rc; i++) {
        rc = thread_setup(&ts[i], cfg, i, 0, start);
        if (rc)
            snprintf(err, errlen, "thread %u setup: %s", i, strerror(rc));
    }
    /* the schedule starts now for everyone; setup time must not count as lateness */
    if (!rc) {
        start = mtl_now();
        for (i = 0; i < cfg->threads; i++) {
            unsigned k;
            struct mtl_rng r;
            ts[i].start = start;
            ts[i].measure_start = start + cfg->warmup;
            ts[i].end = cfg->duration ? ts[i].measure_start + cfg->duration : 0;
            mtl_rng_seed(&r, cfg->seed + 7919ULL * (i + 1));
            for (k = 0; cfg->rate > 0 && k < ts[i].nconns; k++)
                mtl_sched_init(&ts[i].conns[k].sched, cfg->arrival,
                               cfg->rate / cfg->conns, start, &r);
        }
    }
    for (i = 0; i < cfg->threads && !rc; i++) {
        rc = pthread_create(&ts[i].tid, NULL, thread_main, &ts[i]);
        if (rc)
            snprintf(err, errlen, "pthread_create: %s", strerror(rc));
        else
            started++;
    }
    if (rc)
        mtl_stop_requested = 2;
    for (i = 0; i < started; i++)
        pthread_join(ts[i].tid, NULL);
    if (!rc && (rc = merge(res, ts, cfg->threads, cfg)))
        snprintf(err, errlen, "out of memory merging results");
    for (i = 0; i < cfg->threads; i++)
        thread_free(&ts[i]);
    free(ts);
    return rc;
}

void mtl_results_free(struct mtl_results *res)
{
    mtl_hist_free(&res->corrected);
    mtl_hist_free(&res->uncorrected);
    mtl_series_free(&res->series);
    free(res->cpu);
    res->cpu = NULL;
}
