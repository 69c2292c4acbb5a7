/* engine.c - the engine core: per-thread loops driving connections in closed or
 * open loop, measured the same whatever I/O backend (engine_int.h) moves the bytes. */
#include "loadgen/engine_int.h"
#include "loadgen/mtime.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

volatile sig_atomic_t mtl_stop_requested;

#define CHECK_PERIOD   (10 * MTL_NS_PER_MS)   /* timeouts and reconnects */
#define RETRY_DELAY    (100 * MTL_NS_PER_MS)  /* after a failed connect */

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

/* the second (from the start of measurement) that time now falls in; the
 * last one found and the times it covers are kept, so the responses of one
 * second (all but one a second) take no division */
static struct mtl_second *second_of(struct thread *t, mtl_time_t now)
{
    size_t s, last;

    if (now >= t->sec_from && now < t->sec_to)
        return t->sec_at;
    s = now > t->measure_start ? (size_t)((now - t->measure_start) / MTL_NS_PER_SEC) : 0;
    last = (size_t)((t->cfg->duration + MTL_NS_PER_SEC - 1) / MTL_NS_PER_SEC);
    if (last && s >= last)
        s = last - 1;                      /* responses drained after the end */
    if (s >= t->series.cap && mtl_series_reserve(&t->series, s + 1))
        return NULL;                       /* out of memory: the second is not kept */
    if (s >= t->series.len)
        t->series.len = s + 1;
    t->sec_at = &t->series.sec[s];         /* valid until the next reserve, which is here */
    t->sec_from = s ? t->measure_start + s * MTL_NS_PER_SEC : 0;
    t->sec_to = last && s == last - 1 ? UINT64_MAX : t->measure_start + (s + 1) * MTL_NS_PER_SEC;
    return t->sec_at;
}

static void count_error(struct thread *t, uint64_t *counter, uint64_t n, mtl_time_t now)
{
    struct mtl_second *sec;
    *counter += n;
    if (t->measuring && (sec = second_of(t, now)))
        sec->errors += n;
}

/* the ring index k places after the oldest outstanding request (k < pipeline) */
static inline unsigned slot_at(const struct conn *c, unsigned k)
{
    unsigned i = c->head + k, cap = c->t->cfg->pipeline;
    return i >= cap ? i - cap : i;
}

/* Count the measured requests still outstanding on c into *counter (before
 * a reset drops them): every measured request sent is answered or lost. */
static void conn_lose(struct conn *c, uint64_t *counter)
{
    unsigned k;
    for (k = 0; k < c->count; k++)
        if (c->slots[slot_at(c, k)].intended >= c->t->measure_start)
            (*counter)++;
}

/* ---- connections ----------------------------------------------------- */

static void conn_open(struct conn *c, mtl_time_t now);

/* Drop the connection; outstanding requests are lost (timed out when
 * timed_out). Reconnect at once, or after a delay when retry is set. */
static void conn_reset(struct conn *c, mtl_time_t now, int retry)
{
    struct thread *t = c->t;
    if (c->fd >= 0)
        t->be->close(c);
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

    t->proto->reset(&c->parser);
    c->want_out = 0;
    if (t->be->connect(c)) {
        c->fd = -1;
        c->state = CS_CLOSED;
        count_error(t, &t->c.err_connect, 1, now);
        c->retry_at = now + RETRY_DELAY;
        return;
    }
    c->state = CS_CONNECTING;
    c->retry_at = now;                 /* connect start, for the connect timeout */
}

void mtl_eng_reset(struct conn *c, mtl_time_t now, int retry)
{
    conn_lose(c, &c->t->c.lost_closed);     /* closed by the server, or an I/O error */
    conn_reset(c, now, retry);
}

static int may_issue(struct thread *t, mtl_time_t intended)
{
    if (t->stopping)
        return 0;
    if (t->quota && intended >= t->measure_start && t->issued >= t->quota)
        return 0;
    return 1;
}

/* Build as many requests as the pipeline and the schedule allow, then write. */
void mtl_eng_fill(struct conn *c, mtl_time_t now)
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
        s = &c->slots[slot_at(c, c->count)];
        s->intended = intended;
        s->sent = now;
        c->out_len += t->proto->build(&t->gen, c->out + c->out_len, &s->op);
        c->count++;
        built = 1;
    }
    if (built && !c->want_out)
        t->be->send(c, now);
}

static void complete(struct conn *c, enum mtl_result res, mtl_time_t now)
{
    struct thread *t = c->t;
    unsigned cap = t->cfg->pipeline;
    struct slot *s = &c->slots[c->head];
    struct mtl_second *sec;

    c->head = c->head + 1 == cap ? 0 : c->head + 1;
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
    /* closed loop: every request is sent when it is due (sent == intended), so
     * its uncorrected latency is the corrected one; t->unc gets t->corr's
     * counts once, at the end (thread_main), instead of a second record here */
    if (t->cfg->rate > 0)
        mtl_hist_record(&t->unc, now - s->sent);
    if (sec) {
        sec->ops++;
        mtl_hist_record(&sec->hist, now - s->intended);
        if (t->iv.on)
            mtl_iv_record(&t->iv, (size_t)(sec - t->series.sec), s->op == MTL_OP_SET,
                          now - s->intended, now - s->sent);
    }
    t->last_done = now;
    t->last_progress = now;
}

/* Parse what was read; @return 0, or -1 when the connection was reset. */
int mtl_eng_input(struct conn *c, const char *buf, size_t len, mtl_time_t now)
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

void mtl_eng_connected(struct conn *c, int err, mtl_time_t now)
{
    if (err) {
        count_error(c->t, &c->t->c.err_connect, 1, now);
        conn_reset(c, now, 1);
        return;
    }
    c->state = CS_OPEN;
    c->t->last_progress = now;
    mtl_eng_fill(c, now);
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

/* Open loop: send what is due; @return when to wake for the next send
 * (UINT64_MAX: none, or spinning) */
static mtl_time_t open_loop_tick(struct thread *t, mtl_time_t now)
{
    mtl_time_t next = UINT64_MAX;
    unsigned i;

    for (i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        if (c->state != CS_OPEN)
            continue;
        if (mtl_sched_peek(&c->sched) <= now)
            mtl_eng_fill(c, now);
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
    return next;
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
    unsigned i;

    prctl(PR_SET_TIMERSLACK, 1UL);                  /* precise open-loop wake-ups */
    if (cfg->ncpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cfg->cpus[t->id % cfg->ncpus], &set);
        pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    if ((t->err = t->be->thread_init(t)) != 0) {
        t->be->thread_fini(t);
        mtl_stop_requested = 2;
        return NULL;
    }
    for (i = 0; i < t->nconns; i++)
        conn_open(&t->conns[i], mtl_now());
    t->next_check = mtl_now() + CHECK_PERIOD;
    t->last_progress = mtl_now();
    for (;;) {
        mtl_time_t now, wake = UINT64_MAX;

        t->spinning = 0;
        if (cfg->rate > 0 && !t->stopping)
            wake = open_loop_tick(t, mtl_now());
        t->be->wait(t, wake, CHECK_PERIOD, t->spinning);
        now = mtl_eng_now(t);
        if (!t->stopping && ((t->end && now >= t->end) || mtl_stop_requested ||
                             (t->quota && t->issued >= t->quota))) {
            t->stopping = 1;
            if (cfg->rate > 0) { /* due 1 ms or more before the end, and never sent */
                mtl_time_t upto = (t->end && t->end < now ? t->end : now) - MTL_NS_PER_MS;
                uint64_t due = 0;
                for (i = 0; i < t->nconns; i++)
                    due += mtl_sched_count_before(&t->conns[i].sched, t->measure_start, upto);
                /* a run bounded by --requests never meant to send beyond its count */
                if (t->quota && due > (t->issued < t->quota ? t->quota - t->issued : 0))
                    due = t->issued < t->quota ? t->quota - t->issued : 0;
                t->c.unsent += due;
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
    if (cfg->rate == 0)
        mtl_hist_merge(&t->unc, &t->corr);          /* the same values: complete() */
    if (!t->measuring) {
        t->ru0 = t->ru1;
        t->cpu_t0 = t->cpu_t1;
    }
    for (i = 0; i < t->nconns; i++)
        if (t->conns[i].fd >= 0)
            t->be->close(&t->conns[i]);
    t->be->thread_fini(t);
    return NULL;
}

mtl_time_t mtl_eng_now(struct thread *t)
{
    mtl_time_t now = mtl_now();
    if (!t->measuring && now >= t->measure_start) {
        t->measuring = 1;
        getrusage(RUSAGE_THREAD, &t->ru0);
        t->cpu_t0 = now;
    }
    return now;
}

/* ---- setup and merge ------------------------------------------------- */

static int thread_setup(struct thread *t, const struct mtl_config *cfg, unsigned id,
                        unsigned first_conn, mtl_time_t start)
{
    const struct mtl_workload *w = &cfg->work;
    unsigned i, total_conns = cfg->conns;
    uint64_t first = w->keys * id / cfg->threads, last = w->keys * (id + 1) / cfg->threads;
    struct mtl_rng seed_rng;

    t->id = id;
    t->cfg = cfg;
    t->proto = cfg->proto;
    t->start = start;
    t->measure_start = start + cfg->warmup;
    t->end = cfg->duration ? t->measure_start + cfg->duration : 0;
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
                           (size_t)(cfg->timeout / MTL_NS_PER_SEC) : 16) ||
        (cfg->hlog_path && mtl_iv_init(&t->iv)))
        return ENOMEM;
    t->nconns = total_conns / cfg->threads + (id < total_conns % cfg->threads);
    t->conns = calloc(t->nconns, sizeof(*t->conns));
    if (!t->conns)
        return ENOMEM;
    for (i = 0; i < t->nconns; i++) {
        struct conn *c = &t->conns[i];
        c->t = t;
        c->idx = i;
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
    mtl_hist_free(&t->corr);
    mtl_hist_free(&t->unc);
    mtl_series_free(&t->series);
    mtl_iv_free(&t->iv);
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
        if (t->iv.on && mtl_iv_add(&res->iv, &t->iv))
            return ENOMEM;
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
    const struct mtl_backend *be;
    char why[160];
    unsigned i, started = 0;
    int prc;
    mtl_time_t start;
    int rc = 0;

    memset(res, 0, sizeof(*res));
    res->nthreads = cfg->threads;
    res->cpu = calloc(cfg->threads, sizeof(*res->cpu));
    ts = calloc(cfg->threads, sizeof(*ts));
    if (!res->cpu || !ts ||
        mtl_hist_init(&res->corrected, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) ||
        mtl_hist_init(&res->uncorrected, MTL_HIST_SUB_BITS, MTL_HIST_HIGHEST) ||
        (cfg->hlog_path && mtl_iv_init(&res->iv))) {
        snprintf(err, errlen, "out of memory");
        free(ts);
        return ENOMEM;
    }
    if (cfg->engine == MTL_ENGINE_EPOLL) {
        be = &mtl_backend_epoll;
    } else if (cfg->engine == MTL_ENGINE_AUTO && cfg->pipeline >= MTL_AUTO_EPOLL_PIPELINE) {
        be = &mtl_backend_epoll;
        snprintf(res->engine_note, sizeof(res->engine_note),
                 "auto: epoll at pipeline %u (from pipeline %d epoll costs less client CPU per request "
                 "than io_uring; --engine io_uring to choose it)", cfg->pipeline, MTL_AUTO_EPOLL_PIPELINE);
    } else if ((prc = mtl_uring_probe(why, sizeof(why))) == 0) {
        be = &mtl_backend_uring;
    } else if (cfg->engine == MTL_ENGINE_URING) {
        snprintf(err, errlen, "--engine io_uring: %s (--engine epoll or auto works here)", why);
        mtl_results_free(res);
        free(ts);
        return prc;
    } else {
        be = &mtl_backend_epoll;
        snprintf(res->engine_note, sizeof(res->engine_note), "io_uring unavailable: %s", why);
    }
    res->engine = be->name;
    for (i = 0; i < cfg->threads; i++)
        ts[i].be = be;
    start = mtl_now();
    for (i = 0; i < cfg->threads && !rc; i++) {
        rc = thread_setup(&ts[i], cfg, i, 0, start);
        if (rc)
            snprintf(err, errlen, "thread %u setup: %s", i, strerror(rc));
    }
    /* the schedule starts now for everyone; setup time must not count as lateness */
    if (!rc) {
        struct timespec wall;
        start = mtl_now();
        clock_gettime(CLOCK_REALTIME, &wall);
        res->start_epoch = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9 + mtl_sec(cfg->warmup);
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
    for (i = 0; i < started && !rc; i++)
        if (ts[i].err) {
            rc = ts[i].err;
            snprintf(err, errlen, "%s engine, thread %u: %s", be->name, i, ts[i].errmsg);
        }
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
    mtl_iv_free(&res->iv);
    free(res->cpu);
    res->cpu = NULL;
}
