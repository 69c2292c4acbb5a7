/* io_uring.c - the io_uring backend: connects and receive re-arms of one
 * loop are queued as SQEs and go to the kernel with the wait for completions
 * in a single io_uring_enter; receives are multishot and land in a buffer
 * ring registered per thread (io_uring_register_buf_ring, kernel 5.19+;
 * multishot receive, 6.0+), so no request allocates memory.
 *
 * Requests go out with send(2) at once (MSG_DONTWAIT); only what the socket
 * does not take then becomes a SEND SQE. Sent as SQEs, every send's
 * completion made the next wait return at once, and the loop woke about 30%
 * more often per request than epoll's (docs/MTLOAD.md, "Engines").
 *
 * A connection closed while operations are pending (a timeout, a reset) gets
 * shutdown(2) so they complete, and a new generation number: completions that
 * carry an old one are dropped (their buffer goes back to the ring).
 */
#include "loadgen/engine_int.h"
#include "loadgen/mtime.h"
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#define BUF_SIZE   (16 * 1024)      /* one receive buffer */
#define BUFS_MIN   64
#define BUFS_MAX   2048             /* per thread: 32 MiB at most */
#define BGID       0

enum { OP_CONNECT = 1, OP_RECV = 2, OP_SEND = 3 };
#define GEN_MASK   0x3fffffffu

struct ur_state {
    struct io_uring ring;
    int ring_ok;
    struct io_uring_buf_ring *br;
    size_t br_len;
    char *bufs;
    unsigned nbufs, mask;
};

static uint64_t tag(const struct conn *c, unsigned op)
{
    return ((uint64_t)c->idx << 32) | ((uint64_t)(c->gen & GEN_MASK) << 2) | op;
}

static unsigned pow2_at_least(unsigned n)
{
    unsigned p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* ring flags from the cheapest to the most portable */
static int ring_init(struct io_uring *ring, unsigned entries)
{
    static const unsigned flags[] = {
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,   /* 6.1+ */
        IORING_SETUP_COOP_TASKRUN,                                  /* 5.19+ */
        0,
    };
    int rc = -EINVAL;
    size_t i;
    for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        struct io_uring_params p;
        memset(&p, 0, sizeof(p));
        p.flags = flags[i];
        rc = io_uring_queue_init_params(entries, ring, &p);
        if (rc != -EINVAL)
            return rc;
    }
    return rc;
}

static int buf_ring_setup(struct ur_state *s, unsigned nbufs)
{
    struct io_uring_buf_reg reg;
    unsigned i;
    int rc;

    s->nbufs = nbufs;
    s->mask = (unsigned)io_uring_buf_ring_mask(nbufs);
    s->br_len = nbufs * sizeof(struct io_uring_buf);
    s->br = mmap(NULL, s->br_len, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (s->br == MAP_FAILED) {
        s->br = NULL;
        return -errno;
    }
    if (!(s->bufs = malloc((size_t)nbufs * BUF_SIZE)))
        return -ENOMEM;
    memset(&reg, 0, sizeof(reg));
    reg.ring_addr = (unsigned long)s->br;
    reg.ring_entries = nbufs;
    reg.bgid = BGID;
    if ((rc = io_uring_register_buf_ring(&s->ring, &reg, 0)) < 0)
        return rc;
    io_uring_buf_ring_init(s->br);
    for (i = 0; i < nbufs; i++)
        io_uring_buf_ring_add(s->br, s->bufs + (size_t)i * BUF_SIZE, BUF_SIZE, (unsigned short)i,
                              (int)s->mask, (int)i);
    io_uring_buf_ring_advance(s->br, (int)nbufs);
    return 0;
}

static void ur_free(struct ur_state *s)
{
    if (s->ring_ok)
        io_uring_queue_exit(&s->ring);
    if (s->br)
        munmap(s->br, s->br_len);
    free(s->bufs);
    free(s);
}

int mtl_uring_probe(char *err, size_t errlen)
{
    struct ur_state *s = calloc(1, sizeof(*s));
    struct io_uring_probe *p;
    struct utsname u;
    int rc, major = 0, minor = 0;

    if (!s)
        return ENOMEM;
    if ((rc = ring_init(&s->ring, 8)) < 0) {
        snprintf(err, errlen, "io_uring_queue_init: %s%s", strerror(-rc),
                 rc == -EPERM ? " (kernel.io_uring_disabled or a seccomp filter)" :
                 rc == -ENOSYS ? " (kernel without io_uring, or a seccomp filter)" : "");
        free(s);
        return -rc;
    }
    s->ring_ok = 1;
    p = io_uring_get_probe_ring(&s->ring);
    if (!p || !io_uring_opcode_supported(p, IORING_OP_CONNECT) ||
        !io_uring_opcode_supported(p, IORING_OP_SEND) ||
        !io_uring_opcode_supported(p, IORING_OP_RECV)) {
        snprintf(err, errlen, "the kernel's io_uring lacks connect/send/recv");
        rc = -EOPNOTSUPP;
    } else if ((rc = buf_ring_setup(s, 8)) < 0) {
        snprintf(err, errlen, "io_uring_register_buf_ring: %s (kernel older than 5.19?)",
                 strerror(-rc));
    } else if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
               (major < 6)) {
        snprintf(err, errlen, "kernel %s has no multishot receive (6.0+)", u.release);
        rc = -EOPNOTSUPP;
    }
    if (p)
        io_uring_free_probe(p);
    ur_free(s);
    return rc < 0 ? -rc : 0;
}

static int ur_thread_init(struct thread *t)
{
    struct ur_state *s = calloc(1, sizeof(*s));
    unsigned nbufs = pow2_at_least(4 * t->nconns);
    int rc;

    if (!s) {
        snprintf(t->errmsg, sizeof(t->errmsg), "out of memory");
        return ENOMEM;
    }
    t->io = s;
    if ((rc = ring_init(&s->ring, pow2_at_least(2 * t->nconns + 16))) < 0) {
        snprintf(t->errmsg, sizeof(t->errmsg), "io_uring_queue_init: %s", strerror(-rc));
        return -rc;
    }
    s->ring_ok = 1;
    if (nbufs < BUFS_MIN)
        nbufs = BUFS_MIN;
    if (nbufs > BUFS_MAX)
        nbufs = BUFS_MAX;
    if ((rc = buf_ring_setup(s, nbufs)) < 0) {
        snprintf(t->errmsg, sizeof(t->errmsg), "buffer ring of %u: %s", nbufs, strerror(-rc));
        return -rc;
    }
    return 0;
}

static void ur_thread_fini(struct thread *t)
{
    if (t->io)
        ur_free(t->io);
    t->io = NULL;
}

static struct io_uring_sqe *get_sqe(struct ur_state *s)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
    if (!sqe) {                     /* queue full: hand it over now */
        io_uring_submit(&s->ring);
        sqe = io_uring_get_sqe(&s->ring);
    }
    return sqe;
}

static int ur_connect(struct conn *c)
{
    const struct mtl_config *cfg = c->t->cfg;
    struct ur_state *s = c->t->io;
    struct io_uring_sqe *sqe;
    int one = 1, fd;

    /* blocking: io_uring waits for readiness itself instead of failing EAGAIN */
    fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (!(sqe = get_sqe(s))) {
        close(fd);
        return EBUSY;
    }
    io_uring_prep_connect(sqe, fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen);
    c->fd = fd;
    c->recv_armed = 0;
    sqe->user_data = tag(c, OP_CONNECT);
    return 0;
}

static void ur_close(struct conn *c)
{
    shutdown(c->fd, SHUT_RDWR);     /* pending receive/send/connect complete now */
    close(c->fd);
    c->fd = -1;
    c->gen++;
    c->recv_armed = 0;
    c->want_out = 0;
}

static int arm_recv(struct conn *c)
{
    struct ur_state *s = c->t->io;
    struct io_uring_sqe *sqe = get_sqe(s);
    if (!sqe)
        return -1;
    io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = BGID;
    sqe->user_data = tag(c, OP_RECV);
    c->recv_armed = 1;
    return 0;
}

static void ur_send(struct conn *c, mtl_time_t now)
{
    struct ur_state *s = c->t->io;
    struct io_uring_sqe *sqe;

    if (c->want_out || c->out_len == 0)
        return;
    ssize_t n = send(c->fd, c->out, c->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == (ssize_t)c->out_len) {
        c->out_len = 0;
        return;
    }
    if (n > 0) {
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        mtl_eng_reset(c, now, 0);
        return;
    }
    /* the rest when the socket takes it: a SEND the kernel retries on readiness */
    if (!(sqe = get_sqe(s))) {
        mtl_eng_reset(c, now, 0);
        return;
    }
    /* out[0..out_len) is the kernel's until the completion; later requests are
     * appended behind it (out_off stays 0, so the core never moves it) */
    io_uring_prep_send(sqe, c->fd, c->out, c->out_len, MSG_NOSIGNAL);
    sqe->user_data = tag(c, OP_SEND);
    c->want_out = 1;
}

static void recycle(struct ur_state *s, unsigned bid)
{
    io_uring_buf_ring_add(s->br, s->bufs + (size_t)bid * BUF_SIZE, BUF_SIZE, (unsigned short)bid,
                          (int)s->mask, 0);
    io_uring_buf_ring_advance(s->br, 1);
}

static void completion(struct thread *t, const struct io_uring_cqe *cqe, mtl_time_t now)
{
    struct ur_state *s = t->io;
    uint64_t ud = cqe->user_data;
    unsigned op = (unsigned)(ud & 3), gen = (unsigned)(ud >> 2) & GEN_MASK;
    unsigned idx = (unsigned)(ud >> 32);
    int has_buf = (cqe->flags & IORING_CQE_F_BUFFER) != 0;
    unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
    struct conn *c;

    if (op == 0 || idx >= t->nconns) {
        if (has_buf)
            recycle(s, bid);
        return;
    }
    c = &t->conns[idx];
    if (gen != (c->gen & GEN_MASK) || c->fd < 0) {      /* from a closed connection */
        if (has_buf)
            recycle(s, bid);
        return;
    }
    switch (op) {
    case OP_CONNECT:
        if (cqe->res == 0 && arm_recv(c) < 0) {
            mtl_eng_connected(c, EBUSY, now);
            return;
        }
        mtl_eng_connected(c, cqe->res < 0 ? -cqe->res : 0, now);
        return;
    case OP_RECV:
        if (!(cqe->flags & IORING_CQE_F_MORE))
            c->recv_armed = 0;
        if (cqe->res > 0 && has_buf) {
            int reset = mtl_eng_input(c, s->bufs + (size_t)bid * BUF_SIZE, (size_t)cqe->res, now);
            recycle(s, bid);
            if (reset)
                return;
        } else if (has_buf) {
            recycle(s, bid);
        }
        if (cqe->res == 0 || (cqe->res < 0 && cqe->res != -ENOBUFS)) {
            mtl_eng_reset(c, now, 0);                   /* closed by the server, or an error */
            return;
        }
        if (!c->recv_armed && arm_recv(c) < 0) {
            mtl_eng_reset(c, now, 0);
            return;
        }
        mtl_eng_fill(c, now);
        return;
    case OP_SEND:
        c->want_out = 0;
        if (cqe->res <= 0) {
            mtl_eng_reset(c, now, 0);
            return;
        }
        if ((size_t)cqe->res < c->out_len)
            memmove(c->out, c->out + cqe->res, c->out_len - (size_t)cqe->res);
        c->out_len -= (size_t)cqe->res;
        ur_send(c, now);                                /* what was appended meanwhile */
        return;
    }
}

static void ur_wait(struct thread *t, mtl_time_t wake_at, mtl_time_t max_wait, int spin)
{
    struct ur_state *s = t->io;
    struct io_uring_cqe *cqe;
    unsigned head, n = 0;
    mtl_time_t now;

    if (spin || io_uring_cq_ready(&s->ring)) {
        io_uring_submit_and_get_events(&s->ring);
    } else {
        mtl_time_t wait = max_wait;
        struct __kernel_timespec ts;
        if (wake_at != UINT64_MAX) {            /* open loop: the clock only then */
            now = mtl_now();
            wait = wake_at <= now ? 0 : wake_at - now < wait ? wake_at - now : wait;
        }
        ts.tv_sec = (long long)(wait / MTL_NS_PER_SEC);
        ts.tv_nsec = (long long)(wait % MTL_NS_PER_SEC);
        /* submit everything queued and wait, in one io_uring_enter */
        io_uring_submit_and_wait_timeout(&s->ring, &cqe, wait ? 1 : 0, &ts, NULL);
    }
    now = mtl_eng_now(t);
    io_uring_for_each_cqe(&s->ring, head, cqe) {
        completion(t, cqe, now);
        n++;
    }
    io_uring_cq_advance(&s->ring, n);
}

const struct mtl_backend mtl_backend_uring = {
    .name = "io_uring",
    .thread_init = ur_thread_init,
    .thread_fini = ur_thread_fini,
    .connect = ur_connect,
    .close = ur_close,
    .send = ur_send,
    .wait = ur_wait,
};
