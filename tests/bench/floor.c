/* floor.c - the floor of client cost for tests/bench/loadgen.sh: the least a
 * memcached client must do to keep CONNS connections with PIPELINE requests
 * each in flight. Requests are prebuilt (the same text mtload sends: SET:GET
 * 1:10 over preloaded keys "mtl:N", VALUE-byte values); responses are not
 * parsed, only counted off by their known lengths (every GET hits, every SET
 * answers STORED); no clock per request, no histogram, no timeouts.
 *
 *   floor epoll|io_uring PORT CONNS PIPELINE SECONDS KEYS VALUE
 *   floor epoll|io_uring PORT CONNS PIPELINE SECONDS http PATH
 *
 * HTTP: the same GET as mtload's (HTTP/1.1, keep-alive); the length of the
 * response is learnt from one request before the run (a static file: every
 * response is as long) and responses are then counted off by it.
 *
 * epoll: non-blocking sockets, send/recv per connection and event, like
 * mtload's epoll engine. io_uring: multishot receives into a buffer ring,
 * every connection's sends and the wait in one io_uring_enter, like mtload's
 * io_uring engine. Prints the responses counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NREQ    1100                /* prebuilt requests, reused cyclically */
#define BUFSZ   (16 * 1024)

static char *reqs;                  /* NREQ requests back to back */
static size_t req_off[NREQ + 1];
static size_t resp_len[NREQ];       /* expected response bytes */

struct fconn {
    int fd;
    unsigned next;                  /* next request to send */
    unsigned head, count;           /* outstanding requests: head..head+count */
    size_t got;                     /* bytes of the head response received */
    char *out;
    size_t out_len;
    int sending;
    int dead;                       /* io_uring: closed by the server while a send was in flight */
};

static unsigned pipeline;
static uint64_t done;
static int g_port;

static int dial(int port, int nonblock);

/* the server closed the connection (nginx after keepalive_requests): open a
 * new one; the requests in flight are lost, as they are for any client */
static void redial(struct fconn *c, int nonblock)
{
    close(c->fd);
    c->fd = dial(g_port, nonblock);
    c->count = 0;
    c->got = 0;
    c->head = c->next;
    c->out_len = 0;
    c->sending = 0;
    c->dead = 0;
}

static void arm_recv(struct io_uring *ring, struct fconn *c, uint64_t tag)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->user_data = tag;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void build(unsigned keys, unsigned vlen)
{
    size_t cap = (size_t)NREQ * (vlen + 128), len = 0;
    char *value = malloc(vlen + 1);
    uint64_t x = 88172645463325252ULL;
    unsigned i;

    memset(value, 'x', vlen);
    reqs = malloc(cap);
    for (i = 0; i < NREQ; i++) {
        unsigned key;
        int n, klen;
        char kbuf[32];
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        key = (unsigned)(x % keys);
        klen = snprintf(kbuf, sizeof(kbuf), "mtl:%u", key);
        req_off[i] = len;
        if (i % 11 == 0) {
            n = snprintf(reqs + len, cap - len, "set %s 0 0 %u\r\n", kbuf, vlen);
            memcpy(reqs + len + n, value, vlen);
            memcpy(reqs + len + n + vlen, "\r\n", 2);
            len += (size_t)n + vlen + 2;
            resp_len[i] = 8;                          /* STORED\r\n */
        } else {
            len += (size_t)snprintf(reqs + len, cap - len, "get %s\r\n", kbuf);
            /* VALUE <key> 0 <vlen>\r\n<data>\r\nEND\r\n */
            resp_len[i] = 6 + (size_t)klen + 3 + (size_t)snprintf(NULL, 0, "%u", vlen) + 2 + vlen + 2 + 5;
        }
    }
    req_off[NREQ] = len;
    free(value);
}

/* queue requests until the pipeline is full; @return bytes queued */
static size_t fill(struct fconn *c)
{
    size_t n = 0;
    while (c->count < pipeline) {
        size_t len = req_off[c->next + 1] - req_off[c->next];
        memcpy(c->out + c->out_len, reqs + req_off[c->next], len);
        c->out_len += len;
        n += len;
        c->next = (c->next + 1) % NREQ;
        c->count++;
    }
    return n;
}

/* count off n received bytes against the outstanding responses */
static void received(struct fconn *c, size_t n)
{
    while (n) {
        size_t need = resp_len[c->head] - c->got;
        if (n < need) {
            c->got += n;
            return;
        }
        n -= need;
        c->got = 0;
        c->head = (c->head + 1) % NREQ;
        c->count--;
        done++;
    }
}

static int dial(int port, int nonblock)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        perror("floor: connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (nonblock)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

static void run_epoll(struct fconn *cs, unsigned n, double end)
{
    int ep = epoll_create1(0);
    static char buf[256 * 1024];
    struct epoll_event ev[256];
    unsigned i;

    for (i = 0; i < n; i++) {
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = &cs[i] };
        epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &e);
        fill(&cs[i]);
        if (send(cs[i].fd, cs[i].out, cs[i].out_len, MSG_NOSIGNAL) != (ssize_t)cs[i].out_len)
            exit(1);
        cs[i].out_len = 0;
    }
    while (now_s() < end) {
        int k, m = epoll_wait(ep, ev, 256, 10);
        for (k = 0; k < m; k++) {
            struct fconn *c = ev[k].data.ptr;
            ssize_t r = recv(c->fd, buf, sizeof(buf), 0);
            if (r <= 0) {
                struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
                if (r < 0 && errno == EAGAIN)
                    continue;
                redial(c, 1);
                epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
                r = 0;
            }
            received(c, (size_t)r);
            if (fill(c) && send(c->fd, c->out, c->out_len, MSG_NOSIGNAL) != (ssize_t)c->out_len)
                exit(1);                            /* a short send: never at these sizes */
            c->out_len = 0;
        }
    }
}

static void run_uring(struct fconn *cs, unsigned n, double end)
{
    struct io_uring ring;
    struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN };
    struct io_uring_buf_ring *br;
    struct io_uring_buf_reg reg = { 0 };
    unsigned nb = 64, i;
    char *bufs;

    while (nb < 4 * n)
        nb <<= 1;
    if (io_uring_queue_init_params(2 * n + 16 < 64 ? 64 : 4 * n, &ring, &p) < 0) {
        fprintf(stderr, "floor: io_uring_queue_init failed\n");
        exit(1);
    }
    br = mmap(NULL, nb * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE,
              MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    bufs = malloc((size_t)nb * BUFSZ);
    reg.ring_addr = (unsigned long)br;
    reg.ring_entries = nb;
    if (io_uring_register_buf_ring(&ring, &reg, 0) < 0)
        exit(1);
    io_uring_buf_ring_init(br);
    for (i = 0; i < nb; i++)
        io_uring_buf_ring_add(br, bufs + (size_t)i * BUFSZ, BUFSZ, (unsigned short)i,
                              io_uring_buf_ring_mask(nb), (int)i);
    io_uring_buf_ring_advance(br, (int)nb);

    for (i = 0; i < n; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        io_uring_prep_recv_multishot(sqe, cs[i].fd, NULL, 0, 0);
        sqe->flags |= IOSQE_BUFFER_SELECT;
        sqe->user_data = (uint64_t)i << 1;
        fill(&cs[i]);
        sqe = io_uring_get_sqe(&ring);
        io_uring_prep_send(sqe, cs[i].fd, cs[i].out, cs[i].out_len, MSG_NOSIGNAL);
        sqe->user_data = ((uint64_t)i << 1) | 1;
        cs[i].sending = 1;
    }
    while (now_s() < end) {
        struct io_uring_cqe *cqe;
        struct __kernel_timespec ts = { 0, 10000000 };
        unsigned head, seen = 0;
        io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts, NULL);
        io_uring_for_each_cqe(&ring, head, cqe) {
            struct fconn *c = &cs[cqe->user_data >> 1];
            seen++;
            if (cqe->user_data & 1) {               /* send done */
                if (c->dead) {                      /* the server had closed: reconnect now */
                    redial(c, 0);
                    arm_recv(&ring, c, cqe->user_data & ~1ULL);
                } else if (cqe->res != (int)c->out_len) {
                    fprintf(stderr, "floor: short send\n");
                    exit(1);
                }
                c->out_len = 0;
                c->sending = 0;
            } else {
                unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
                if (cqe->res > 0)
                    received(c, (size_t)cqe->res);
                if (cqe->flags & IORING_CQE_F_BUFFER) {
                    io_uring_buf_ring_add(br, bufs + (size_t)bid * BUFSZ, BUFSZ, (unsigned short)bid,
                                          io_uring_buf_ring_mask(nb), 0);
                    io_uring_buf_ring_advance(br, 1);
                }
                if (cqe->res <= 0 && cqe->res != -ENOBUFS) {
                    /* closed by the server: a new connection, once a send in flight is done */
                    if (c->sending) {
                        c->dead = 1;
                        continue;
                    }
                    redial(c, 0);
                }
                if (!(cqe->flags & IORING_CQE_F_MORE) || cqe->res <= 0) {
                    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
                    io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
                    sqe->flags |= IOSQE_BUFFER_SELECT;
                    sqe->user_data = cqe->user_data;
                }
            }
            if (!c->sending && fill(c)) {
                struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
                io_uring_prep_send(sqe, c->fd, c->out, c->out_len, MSG_NOSIGNAL);
                sqe->user_data = ((uint64_t)(c - cs) << 1) | 1;
                c->sending = 1;
            }
        }
        io_uring_cq_advance(&ring, seen);
    }
}

/* HTTP: one request, and the response length learnt from a first exchange */
static void build_http(int port, const char *path)
{
    char req[512], buf[65536];
    size_t got = 0, hdr = 0, clen = 0;
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUser-Agent: mtload\r\n\r\n", path, port);
    int fd = dial(port, 0);
    unsigned i;
    if (send(fd, req, (size_t)n, 0) != n)
        exit(1);
    for (;;) {
        ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        char *e, *cl;
        if (r <= 0) {
            fprintf(stderr, "floor: no HTTP response\n");
            exit(1);
        }
        got += (size_t)r;
        buf[got] = 0;
        if (!hdr && (e = strstr(buf, "\r\n\r\n"))) {
            hdr = (size_t)(e - buf) + 4;
            cl = strcasestr(buf, "Content-Length:");
            if (!cl || cl > e) {
                fprintf(stderr, "floor: the response has no Content-Length\n");
                exit(1);
            }
            clen = strtoul(cl + 15, NULL, 10);
        }
        if (hdr && got >= hdr + clen)
            break;
    }
    close(fd);
    reqs = malloc((size_t)NREQ * (size_t)n);
    for (i = 0; i < NREQ; i++) {
        req_off[i] = (size_t)i * (size_t)n;
        memcpy(reqs + req_off[i], req, (size_t)n);
        resp_len[i] = hdr + clen;
    }
    req_off[NREQ] = (size_t)NREQ * (size_t)n;
}

int main(int argc, char **argv)
{
    unsigned conns, keys, vlen, i;
    double secs;
    struct fconn *cs;
    int port, uring;

    if (argc != 8) {
        fprintf(stderr, "usage: floor epoll|io_uring PORT CONNS PIPELINE SECONDS KEYS VALUE\n"
                        "       floor epoll|io_uring PORT CONNS PIPELINE SECONDS http PATH\n");
        return 2;
    }
    uring = !strcmp(argv[1], "io_uring");
    port = g_port = atoi(argv[2]);
    conns = (unsigned)atoi(argv[3]);
    pipeline = (unsigned)atoi(argv[4]);
    secs = atof(argv[5]);
    if (!strcmp(argv[6], "http")) {
        build_http(port, argv[7]);
        vlen = (unsigned)(req_off[1] - req_off[0]);
    } else {
        keys = (unsigned)atoi(argv[6]);
        vlen = (unsigned)atoi(argv[7]);
        build(keys, vlen);
    }
    cs = calloc(conns, sizeof(*cs));
    for (i = 0; i < conns; i++) {
        cs[i].fd = dial(port, !uring);
        cs[i].next = cs[i].head = (i * 97) % NREQ;
        cs[i].out = malloc(pipeline * (vlen + 128));
    }
    if (uring)
        run_uring(cs, conns, now_s() + secs);
    else
        run_epoll(cs, conns, now_s() + secs);
    printf("%llu responses\n", (unsigned long long)done);
    return 0;
}
