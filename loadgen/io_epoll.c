/* io_epoll.c - the epoll backend: non-blocking sockets, one send and one recv
 * system call per connection and event, a timerfd for open-loop wake-ups. */
#include "loadgen/engine_int.h"
#include "loadgen/mtime.h"
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define READ_BUF   (256 * 1024)
#define MAX_EVENTS 256

struct ep_state {
    int ep, tfd;
    mtl_time_t tfd_armed;
    char *rbuf;
};

static int ep_thread_init(struct thread *t)
{
    struct ep_state *s = calloc(1, sizeof(*s));
    struct epoll_event ev;

    if (!s || !(s->rbuf = malloc(READ_BUF))) {
        free(s);
        snprintf(t->errmsg, sizeof(t->errmsg), "out of memory");
        return ENOMEM;
    }
    s->tfd = -1;
    t->io = s;
    s->ep = epoll_create1(EPOLL_CLOEXEC);
    if (s->ep < 0) {
        snprintf(t->errmsg, sizeof(t->errmsg), "epoll_create1: %s", strerror(errno));
        return errno;
    }
    if (t->cfg->rate > 0) {
        s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        ev.events = EPOLLIN;
        ev.data.ptr = NULL;
        if (s->tfd < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->tfd, &ev) < 0) {
            snprintf(t->errmsg, sizeof(t->errmsg), "timerfd: %s", strerror(errno));
            return errno;
        }
    }
    return 0;
}

static void ep_thread_fini(struct thread *t)
{
    struct ep_state *s = t->io;
    if (!s)
        return;
    if (s->ep >= 0)
        close(s->ep);
    if (s->tfd >= 0)
        close(s->tfd);
    free(s->rbuf);
    free(s);
    t->io = NULL;
}

static void set_out(struct conn *c, int want)
{
    struct ep_state *s = c->t->io;
    struct epoll_event ev;
    if (c->want_out == want)
        return;
    ev.events = EPOLLIN | (want ? EPOLLOUT : 0);
    ev.data.ptr = c;
    epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want;
}

static int ep_connect(struct conn *c)
{
    const struct mtl_config *cfg = c->t->cfg;
    struct ep_state *s = c->t->io;
    struct epoll_event ev;
    int one = 1, fd, e;

    fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) < 0 &&
        errno != EINPROGRESS) {
        e = errno;
        close(fd);
        return e;
    }
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = c;
    if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        e = errno;
        close(fd);
        return e;
    }
    c->fd = fd;
    c->want_out = 1;
    return 0;
}

static void ep_close(struct conn *c)
{
    close(c->fd);               /* also leaves the epoll set */
    c->fd = -1;
}

static void ep_send(struct conn *c, mtl_time_t now)
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
            set_out(c, 1);
            return;
        }
        mtl_eng_reset(c, now, 0);
        return;
    }
    c->out_len = c->out_off = 0;
    set_out(c, 0);
}

static void readable(struct conn *c, mtl_time_t now)
{
    struct ep_state *s = c->t->io;
    for (;;) {
        ssize_t n = recv(c->fd, s->rbuf, READ_BUF, 0);
        if (n > 0) {
            if (mtl_eng_input(c, s->rbuf, (size_t)n, now))
                return;
            if ((size_t)n < READ_BUF)
                break;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        mtl_eng_reset(c, now, 0);                   /* closed by the server, or an error */
        return;
    }
    mtl_eng_fill(c, now);
}

static void conn_event(struct conn *c, uint32_t events, mtl_time_t now)
{
    if (c->state == CS_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            err = errno;
        if (!err && !(events & (EPOLLOUT | EPOLLIN)))
            return;
        if (!err)
            set_out(c, 0);
        mtl_eng_connected(c, err, now);
        return;
    }
    if (c->state != CS_OPEN)
        return;
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        readable(c, now);
        if (c->state != CS_OPEN)
            return;
    }
    if ((events & EPOLLOUT) && c->want_out) {
        ep_send(c, now);
        if (c->state == CS_OPEN && !c->want_out)
            mtl_eng_fill(c, now);
    }
}

static void ep_wait(struct thread *t, mtl_time_t wake_at, mtl_time_t max_wait, int spin)
{
    struct ep_state *s = t->io;
    struct epoll_event events[MAX_EVENTS];
    mtl_time_t now;
    int n, k;

    if (t->cfg->rate > 0 && wake_at != s->tfd_armed) {
        struct itimerspec its;
        memset(&its, 0, sizeof(its));
        if (wake_at != UINT64_MAX)
            its.it_value = mtl_timespec(wake_at);
        timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
        s->tfd_armed = wake_at;
    }
    n = epoll_wait(s->ep, events, MAX_EVENTS, spin ? 0 : (int)(max_wait / MTL_NS_PER_MS));
    now = mtl_eng_now(t);
    for (k = 0; k < n; k++) {
        if (events[k].data.ptr == NULL) {
            uint64_t ticks;
            if (read(s->tfd, &ticks, sizeof(ticks)) < 0) { /* nothing due */ }
            continue;
        }
        conn_event(events[k].data.ptr, events[k].events, now);
    }
}

const struct mtl_backend mtl_backend_epoll = {
    .name = "epoll",
    .thread_init = ep_thread_init,
    .thread_fini = ep_thread_fini,
    .connect = ep_connect,
    .close = ep_close,
    .send = ep_send,
    .wait = ep_wait,
};
