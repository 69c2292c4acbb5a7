/* driver_trigger.c - the detection driver (`mtebench detect`, docs/DETECTION.md):
 * sends one bug's trigger to the service, reads what comes back for a
 * while, then checks the service still answers its readiness request.
 * The trigger is services/<svc>/bugs/<id>/trigger.hex (hex bytes; '#' starts
 * a comment; a line starting "--" is a pause: what came before is sent, the
 * answer read for a moment, then the rest sent, as a client's later
 * packet; a line "*N hex..." is its bytes N times), named by the run
 * (struct mtb_run's trigger, struct mtb_drive's here), which only `mtebench
 * detect` and a detect trial's far run (run --bug-trigger) set: the driver
 * refuses to run without it, so a bench never drives a service with it. Its "load" is mtload's format with one request and a
 * "trigger" object (bytes sent and received, alive after).
 * A bug whose trigger reaches the service through DNS has dns-answer.hex
 * beside trigger.hex: while the trigger runs, a child process answers every
 * query on UDP 127.0.0.1:<service port + 1> (where the service's detect
 * configuration puts its resolver) with the query's header and question and
 * that one answer record (RUNDIR/dns.log: the queries answered). */
#include "drivers/driver.h"
#include "lib/util.h"
#include "lib/files.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* one line's hex digits appended to b (at *k, room for cap); -1 with why */
static int hex_line(const char *s, const char *e, unsigned char *b, size_t *k, const char *path, char *why, size_t n)
{
    int half = -1;
    for (; s < e && *s != '#'; s++) {
        if (*s == ' ' || *s == '\t' || *s == '\r')
            continue;
        int v = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
              : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
        if (v < 0) {
            snprintf(why, n, "%s: '%c' is not a hex digit", path, *s);
            return -1;
        }
        if (half < 0)
            half = v;
        else {
            b[(*k)++] = (unsigned char)(half << 4 | v);
            half = -1;
        }
    }
    if (half >= 0) {
        snprintf(why, n, "%s: an odd number of hex digits on a line", path);
        return -1;
    }
    return 0;
}

#define MTB_TRIGGER_MAXREPEAT 1000000 /* "*N" at most */
#define MTB_TRIGGER_MAXBYTES (64u << 20)

/* Line by line (driver.h): hex digits ('#' to the end of the line a
 * comment), a line "--" a pause (cuts), and a line "*N hex..." the line's
 * bytes N times (a long request: 65536 keys). */
unsigned char *mtb_trigger_read(const char *path, size_t *len, size_t *cuts, int *ncuts, char *why, size_t n)
{
    if (ncuts)
        *ncuts = 0;
    char *text = mtb_read_file(path, NULL);
    if (!text) {
        snprintf(why, n, "cannot read the trigger %s", path);
        return NULL;
    }
    size_t cap = strlen(text) / 2 + 1, k = 0;
    unsigned char *b = mtb_calloc(1, cap);
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        e = e ? e : s + strlen(s);
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        if (s[0] == '-' && s[1] == '-' && ncuts && *ncuts < MTB_TRIGGER_MAXCUTS)
            cuts[(*ncuts)++] = k; /* a pause before byte k */
        else {
            long rep = 1;
            if (*s == '*') {
                char *end;
                rep = strtol(s + 1, &end, 10);
                if (end == s + 1 || rep < 1 || rep > MTB_TRIGGER_MAXREPEAT) {
                    snprintf(why, n, "%s: '*' wants a count of 1 to %d before the line's bytes", path,
                             MTB_TRIGGER_MAXREPEAT);
                    goto bad;
                }
                s = end;
            }
            size_t k0 = k;
            if (hex_line(s, e, b, &k, path, why, n) != 0)
                goto bad;
            size_t one = k - k0;
            if (rep > 1 && one > 0) {
                if (one * (size_t)rep > MTB_TRIGGER_MAXBYTES) {
                    snprintf(why, n, "%s: a repeated line makes more than %u bytes", path, MTB_TRIGGER_MAXBYTES);
                    goto bad;
                }
                cap += one * (size_t)(rep - 1);
                b = realloc(b, cap);
                if (!b)
                    mtb_oom("a trigger");
                for (long r = 1; r < rep; r++, k += one)
                    memcpy(b + k, b + k0, one);
            }
        }
        s = *e ? e + 1 : e;
    }
    free(text);
    if (k == 0) {
        snprintf(why, n, "%s: no bytes", path);
        free(b);
        return NULL;
    }
    *len = k;
    return b;
bad:
    free(text);
    free(b);
    return NULL;
}

static int connect_port(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* read until EOF, `expect` seen (if given), `secs`, or (quiet > 0) quiet
 * seconds with nothing more once something came: an answer that has ended
 * (a late fault is what the pause and the liveness check after it are
 * for); bytes read */
static int peer_closed; /* the last read_for saw the service close the connection */

static long read_for(int fd, double secs, double quiet, const char *expect, int *saw)
{
    char buf[4096], seen[8192];
    size_t sl = 0;
    long total = 0;
    double end = mtb_mono() + secs;
    *saw = 0;
    for (;;) {
        double left = end - mtb_mono();
        if (quiet > 0 && total > 0 && left > quiet)
            left = quiet;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            break;
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0) {
            peer_closed = r == 0;
            break;
        }
        total += r;
        size_t c = (size_t)r < sizeof seen - 1 - sl ? (size_t)r : sizeof seen - 1 - sl;
        memcpy(seen + sl, buf, c);
        sl += c;
        seen[sl] = 0;
        if (expect && memmem(seen, sl, expect, strlen(expect))) {
            *saw = 1;
            break;
        }
    }
    return total;
}

/* the recipe's readiness request answered on a new connection */
static int alive(const struct mtb_drive *d, double secs)
{
    const char *send = d->recipe->run.ready_send;
    const char *expect = d->recipe->run.ready_expect;
    int fd = connect_port(d->port), saw = 0;
    if (fd < 0)
        return 0;
    if (!send || !expect) { /* a listener that accepts is all the recipe says */
        close(fd);
        return 1;
    }
    char *s = mtb_unescape(send);
    ssize_t w = write(fd, s, strlen(s));
    free(s);
    if (w > 0)
        read_for(fd, secs, 0, expect, &saw);
    close(fd);
    return saw;
}

/* the DNS answerer (a child, killed by the caller); -1 if it cannot bind */
static pid_t dns_serve(int port, const unsigned char *ans, size_t alen, const char *logp, double secs)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    pid_t pid = fork();
    if (pid != 0) {
        close(fd);
        return pid;
    }
    FILE *log = fopen(logp, "a");
    double end = mtb_mono() + secs;
    unsigned char q[512], r[1024];
    while (mtb_mono() < end) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 200) <= 0)
            continue;
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fd, q, sizeof q, 0, (struct sockaddr *)&from, &fl);
        if (n < 12 || (size_t)n + alen > sizeof r)
            continue;
        memcpy(r, q, (size_t)n); /* id, then the question as asked */
        r[2] = 0x81;             /* QR, RD */
        r[3] = 0x80;             /* RA, no error */
        r[6] = 0, r[7] = 1;      /* one answer */
        r[8] = r[9] = r[10] = r[11] = 0;
        memcpy(r + n, ans, alen);
        sendto(fd, r, (size_t)n + alen, 0, (struct sockaddr *)&from, fl);
        if (log) {
            fprintf(log, "answered a query of %zd bytes (id %02x%02x)\n", n, q[0], q[1]);
            fflush(log);
        }
    }
    _exit(0);
}

static json_t *trigger_measure(const struct mtb_drive *d, char *why, size_t n)
{
    const char *path = d->trigger;
    if (!path || !*path || !d->port) {
        snprintf(why, n, "the trigger driver runs only under `mtebench detect` (its run names no trigger)%s",
                 d->port ? "" : " and needs a server");
        return NULL;
    }
    size_t len = 0, cuts[MTB_TRIGGER_MAXCUTS];
    int ncuts = 0;
    unsigned char *b = mtb_trigger_read(path, &len, cuts, &ncuts, why, n);
    if (!b)
        return NULL;
    double slow = mtb_platform_emulated(d->platform) ? 3 : 1, t0 = mtb_mono();
    /* a DNS answer beside the trigger: answered while the trigger runs */
    char *ansp = mtb_asprintf("%.*s/dns-answer.hex", (int)(strrchr(path, '/') - path), path);
    pid_t dns = 0;
    if (mtb_file_exists(ansp)) {
        size_t alen = 0;
        unsigned char *ans = mtb_trigger_read(ansp, &alen, NULL, NULL, why, n);
        char *logp = mtb_asprintf("%s/dns.log", d->rundir);
        dns = ans ? dns_serve(d->port + 1, ans, alen, logp, 8 * slow) : -1;
        free(logp);
        free(ans);
        if (dns < 0) {
            if (ans)
                snprintf(why, n, "cannot answer DNS on 127.0.0.1:%d (udp)", d->port + 1);
            free(ansp);
            free(b);
            return NULL;
        }
    }
    free(ansp);
    int fd = connect_port(d->port), saw = 0;
    if (fd < 0) {
        snprintf(why, n, "cannot connect to port %d: %s", d->port, strerror(errno));
        free(b);
        if (dns > 0)
            kill(dns, SIGKILL), waitpid(dns, NULL, 0);
        return NULL;
    }
    ssize_t w = 0;
    long got = 0;
    peer_closed = 0;
    for (int i = 0; i <= ncuts; i++) {  /* the segments, a pause after each but the last */
        size_t from = i ? cuts[i - 1] : 0, to = i < ncuts ? cuts[i] : len;
        ssize_t wi = to > from ? write(fd, b + from, to - from) : 0;
        w += wi > 0 ? wi : 0;
        if (i < ncuts)
            got += read_for(fd, 0.3 * slow, 0, NULL, &saw);
    }
    /* the answer: until the service closes, 2 s, or 0.5 s after its last
     * bytes (each 3x under emulation) */
    got += read_for(fd, 2 * slow, 0.5 * slow, NULL, &saw);
    int closed = peer_closed; /* the service closed the connection (a fix's refusal may) */
    close(fd);
    free(b);
    /* an asynchronous fault or a late crash needs the service to run on */
    usleep((useconds_t)(500000 * slow));
    int up = alive(d, 5 * slow);
    if (dns > 0)
        kill(dns, SIGKILL), waitpid(dns, NULL, 0);
    double secs = mtb_mono() - t0;
    return json_pack("{s:{s:i,s:f,s:{}},s:{s:s,s:i,s:i,s:b,s:b,s:f}}", "totals", "requests", 1, "ops_per_sec",
                     1 / (secs > 0 ? secs : 1), "errors", "trigger", "file", path, "sent", (json_int_t)w, "received",
                     (json_int_t)got, "closed", closed, "alive_after", up, "seconds", secs);
}

const struct mtb_driver mtb_driver_trigger = {
    .name = "trigger",
    .summary = "one bug's trigger bytes, then a liveness check (mtebench detect only)",
    .preload = mtb_driver_no_preload,
    .measure = trigger_measure,
};
