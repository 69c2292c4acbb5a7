/* floor.c - see floor.h */
#include "run/floor.h"
#include "core/load_rows.h"
#include "lib/files.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "common/mtload_exit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define FLOOR_SERVER "/usr/bin/memcached"
#define FLOOR_CONNS "16"

/* the rates and each one's run length (s) at scale 1: enough requests at the
 * low rate for a p99 (150), and the high rate long enough to keep CPUs busy */
static const double floor_rates[MTB_FLOOR_RATES] = { 50, 500, 5000 };
static const double floor_secs[MTB_FLOOR_RATES] = { 3, 1.5, 1 };

int mtb_floor_pct_index(const char *pct)
{
    for (int i = 0; i < MTB_FLOOR_NPCT; i++)
        if (!strcmp(mtb_floor_pct_names[i], pct))
            return i;
    return -1;
}

/* a loopback port nobody listens on now */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t l = sizeof a;
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &l) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* "version" answered on port within limit seconds: the version, else NULL */
static char *server_version(int port, double limit)
{
    double end = mtb_mono() + limit;
    while (mtb_mono() < end) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return NULL;
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct timeval tv = { .tv_sec = 1 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char buf[128];
        ssize_t r = -1;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && write(fd, "version\r\n", 9) == 9)
            r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r > 8 && !strncmp(buf, "VERSION ", 8)) {
            buf[r] = 0;
            buf[strcspn(buf, "\r\n")] = 0;
            return mtb_strdup(buf + 8);
        }
        usleep(20000);
    }
    return NULL;
}

/* one rate: mtload's corrected percentiles into p */
static int floor_point(int port, double rate, double secs, struct mtb_floor_point *p, char *why, size_t n)
{
    char path[] = "/tmp/mtebench-floor-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(why, n, "floor: a temporary file: %s", strerror(errno));
        return -1;
    }
    close(fd);
    char *tool = mtb_asprintf("%s/build/mtload", mtb_root());
    char *server = mtb_asprintf("--server=127.0.0.1:%d", port);
    char *r = mtb_asprintf("--rate=%g", rate);
    char *d = mtb_asprintf("--duration=%gms", secs * 1000);
    char *j = mtb_asprintf("--json=%s", path);
    char *argv[] = { tool, server, "--protocol=memcache", "--conns=" FLOOR_CONNS, "--threads=1", r,
                     "--arrival=uniform", d, "--keys=100", j, NULL };
    struct mtb_spawn s = { .argv = argv, .log_path = "/dev/null" };
    int st = mtb_proc_run(&s, secs + 30);
    int rc = -1;
    /* exit 3: measured, with errors above mtload's limit (requests past its
     * 1 s timeout on a machine that busy): the latencies are still the floor */
    if (st > 0 && WIFEXITED(st) && WEXITSTATUS(st) == MTL_EXIT_ERRORS)
        st = 0;
    if (st != 0) {
        char desc[64];
        snprintf(why, n, "floor: %s at %g/s failed (%s)", tool, rate,
                 st == -ETIMEDOUT ? "timed out" : mtb_proc_describe(st, desc, sizeof desc));
    } else {
        json_error_t je;
        json_t *o = json_load_file(path, 0, &je);
        struct mtb_load_view l;
        mtb_load_view_read(o, &l);
        const struct mtb_load_lat *lat = &l.lat[MTB_LAT_CORRECTED];
        p->rate = rate;
        p->seconds = secs;
        p->count = (long)lat->count;
        rc = lat->present && p->count > 0 ? 0 : -1;
        static const enum mtb_load_stat pcts[MTB_FLOOR_NPCT] = { MTB_LOAD_P50, MTB_LOAD_P90, MTB_LOAD_P99,
                                                                 MTB_LOAD_P999 };
        for (int i = 0; i < MTB_FLOOR_NPCT; i++)
            p->pct[i] = lat->v[pcts[i]];
        if (rc)
            snprintf(why, n, "floor: mtload at %g/s measured no request (%s)", rate, o ? "no latencies" : je.text);
        json_decref(o);
    }
    unlink(path);
    free(tool);
    free(server);
    free(r);
    free(d);
    free(j);
    return rc;
}

int mtb_floor_measure(struct mtb_floor *f, double scale, char *why, size_t n)
{
    memset(f, 0, sizeof *f);
    if (access(FLOOR_SERVER, X_OK) != 0) {
        snprintf(why, n, "floor: no %s (Debian's memcached, which make deps installs)", FLOOR_SERVER);
        return -1;
    }
    char *tool = mtb_asprintf("%s/build/mtload", mtb_root());
    int have = access(tool, X_OK) == 0;
    if (!have)
        snprintf(why, n, "floor: no %s (make builds it)", tool);
    free(tool);
    if (!have)
        return -1;
    int port = free_port();
    if (port <= 0) {
        snprintf(why, n, "floor: no free loopback port");
        return -1;
    }
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    char *argv[] = { FLOOR_SERVER, "-p", ps, "-l", "127.0.0.1", "-t", "1", "-U", "0", "-m", "64",
                     geteuid() == 0 ? "-u" : NULL, "nobody", NULL };
    struct mtb_proc srv = { 0 };
    struct mtb_spawn s = { .argv = argv, .log_path = "/dev/null" };
    int rc = mtb_proc_spawn(&srv, &s);
    if (rc != 0) {
        snprintf(why, n, "floor: cannot start %s: %s", FLOOR_SERVER, strerror(-rc));
        return -1;
    }
    char *ver = server_version(port, 5);
    if (!ver) {
        snprintf(why, n, "floor: %s on port %d did not answer within 5 s", FLOOR_SERVER, port);
        mtb_proc_stop(&srv, SIGTERM, 1);
        return -1;
    }
    snprintf(f->server, sizeof f->server, "memcached %s (%s), 1 thread, " FLOOR_CONNS " connections", ver,
             FLOOR_SERVER);
    free(ver);
    rc = 0;
    for (int i = 0; i < MTB_FLOOR_RATES && rc == 0 && !mtb_proc_interrupted; i++) {
        rc = floor_point(port, floor_rates[i], floor_secs[i] * scale, &f->pt[f->n], why, n);
        f->n += rc == 0;
    }
    mtb_proc_stop(&srv, SIGTERM, 1);
    return rc == 0 && f->n == MTB_FLOOR_RATES ? 0 : -1;
}

double mtb_floor_best(const struct mtb_floor *f, int pct, double *rate)
{
    double best = NAN;
    for (int i = 0; i < f->n; i++)
        if (pct >= 0 && pct < MTB_FLOOR_NPCT && isfinite(f->pt[i].pct[pct]) && !(f->pt[i].pct[pct] >= best)) {
            best = f->pt[i].pct[pct];
            if (rate)
                *rate = f->pt[i].rate;
        }
    return best;
}

static json_t *mtb_floor_json(const struct mtb_floor *f)
{
    json_t *pts = json_array(), *best = json_object();
    for (int i = 0; i < f->n; i++) {
        const struct mtb_floor_point *p = &f->pt[i];
        json_t *o = json_pack("{s:f,s:f,s:I}", "rate", p->rate, "seconds", p->seconds, "count", (json_int_t)p->count);
        for (int k = 0; k < MTB_FLOOR_NPCT; k++)
            json_object_set_new(o, mtb_floor_pct_names[k], isfinite(p->pct[k]) ? json_real(p->pct[k]) : json_null());
        json_array_append_new(pts, o);
    }
    for (int k = 0; k < MTB_FLOOR_NPCT; k++) {
        double rate = 0, v = mtb_floor_best(f, k, &rate);
        if (isfinite(v))
            json_object_set_new(best, mtb_floor_pct_names[k], json_pack("{s:f,s:f}", "us", v, "rate", rate));
    }
    return json_pack("{s:s,s:o,s:o}", "server", f->server, "points", pts, "best", best);
}

static void fmt_us(char *b, size_t n, double us)
{
    if (!isfinite(us))
        snprintf(b, n, "-");
    else if (us >= 1000)
        snprintf(b, n, "%.2f ms", us / 1000);
    else
        snprintf(b, n, "%.0f us", us);
}

void mtb_floor_print(const struct mtb_floor *f, FILE *out, const char *indent)
{
    for (int i = 0; i < f->n; i++) {
        char v[MTB_FLOOR_NPCT][24];
        for (int k = 0; k < MTB_FLOOR_NPCT; k++)
            fmt_us(v[k], sizeof v[k], f->pt[i].pct[k]);
        fprintf(out, "%sat %g/s: p50 %s, p90 %s, p99 %s, p99.9 %s (%ld requests)\n", indent, f->pt[i].rate, v[0], v[1], v[2],
               v[3], f->pt[i].count);
    }
}

int mtb_floor_enabled(struct mtb_err *e)
{
    const char *v = getenv("MTEBENCH_FLOOR");
    if (v && *v && strcmp(v, "0") && strcmp(v, "1"))
        return mtb_err_set(e, MTB_ERR_INPUT, "MTEBENCH_FLOOR=%s: 0 (skip the floor) or 1 expected", v);
    return !(v && !strcmp(v, "0"));
}

json_t *mtb_floor_check(struct mtb_err *e)
{
    int on = mtb_floor_enabled(e);
    if (on < 0)
        return NULL;
    if (!on)
        return json_pack("{s:s}", "skipped", "MTEBENCH_FLOOR=0");
    struct mtb_floor f;
    char why[MTB_ERRLEN];
    if (mtb_floor_measure(&f, 1, why, sizeof why) != 0)
        return json_pack("{s:s}", "error", why);
    return mtb_floor_json(&f);
}

int mtb_floor_describe(const struct mtb_floor_view *v, char *buf, size_t n)
{
    const struct mtb_floor_best *p99 = &v->best[MTB_FLOOR_P99];
    if (!p99->present) {
        snprintf(buf, n, "%s", (v->error ? v->error : v->skipped) ?: "?");
        return 0;
    }
    snprintf(buf, n, "p99 %.0f us at best (at %g/s), loopback to %s", p99->us, p99->rate, v->server ?: "?");
    return 1;
}
