/* config.c - command-line parsing for mtload. */
#include "common/version.h"
#include "loadgen/config.h"
#include "loadgen/engine.h"
#include "loadgen/units.h"
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    O_SERVER = 256, O_PROTOCOL, O_THREADS, O_CONNS, O_PIPELINE, O_CPUS, O_RATIO,
    O_KEYS, O_PREFIX, O_PATTERN, O_VSIZE, O_PATHS, O_PRELOAD, O_RATE, O_ARRIVAL,
    O_WARMUP, O_DURATION, O_REQUESTS, O_TIMEOUT, O_SEED, O_SPIN, O_JSON, O_HGRM, O_HLOG, O_QUIET, O_ERRLIMIT,
    O_HELP, O_VERSION, O_ENGINE, O_ENGINES
};

static const struct option options[] = {
    { "server", required_argument, NULL, O_SERVER },
    { "protocol", required_argument, NULL, O_PROTOCOL },
    { "threads", required_argument, NULL, O_THREADS },
    { "conns", required_argument, NULL, O_CONNS },
    { "pipeline", required_argument, NULL, O_PIPELINE },
    { "cpus", required_argument, NULL, O_CPUS },
    { "ratio", required_argument, NULL, O_RATIO },
    { "keys", required_argument, NULL, O_KEYS },
    { "key-prefix", required_argument, NULL, O_PREFIX },
    { "key-pattern", required_argument, NULL, O_PATTERN },
    { "value-size", required_argument, NULL, O_VSIZE },
    { "paths", required_argument, NULL, O_PATHS },
    { "preload", no_argument, NULL, O_PRELOAD },
    { "rate", required_argument, NULL, O_RATE },
    { "arrival", required_argument, NULL, O_ARRIVAL },
    { "warmup", required_argument, NULL, O_WARMUP },
    { "duration", required_argument, NULL, O_DURATION },
    { "requests", required_argument, NULL, O_REQUESTS },
    { "timeout", required_argument, NULL, O_TIMEOUT },
    { "seed", required_argument, NULL, O_SEED },
    { "spin", required_argument, NULL, O_SPIN },
    { "engine", required_argument, NULL, O_ENGINE },
    { "engines", no_argument, NULL, O_ENGINES },
    { "error-limit", required_argument, NULL, O_ERRLIMIT },
    { "json", required_argument, NULL, O_JSON },
    { "hgrm", required_argument, NULL, O_HGRM },
    { "hlog", required_argument, NULL, O_HLOG },
    { "quiet", no_argument, NULL, O_QUIET },
    { "help", no_argument, NULL, O_HELP },
    { "version", no_argument, NULL, O_VERSION },
    { NULL, 0, NULL, 0 }
};

const char *mtl_engine_kind_name(enum mtl_engine_kind e)
{
    return e == MTL_ENGINE_EPOLL ? "epoll" : e == MTL_ENGINE_URING ? "io_uring" : "auto";
}

void mtl_config_usage(FILE *f)
{
    fputs(
"usage: mtload [options]\n"
"  --server HOST:PORT      server (IPv4, [IPv6] or localhost; default 127.0.0.1 and the protocol's port)\n"
"  --protocol NAME         memcache | http (default memcache)\n"
"  --threads N             load threads, each with its own event loop (default 1)\n"
"  --conns N               connections in total, spread over threads (default 16)\n"
"  --pipeline N            outstanding requests per connection (default 1)\n"
"  --cpus LIST             pin threads round-robin to these CPUs, e.g. 0,2-3\n"
"  --ratio SET:GET         memcache mix in memtier syntax (default 1:10)\n"
"  --keys N                key space size (default 100000)\n"
"  --key-prefix P          key prefix (default mtl:)\n"
"  --key-pattern P         uniform | zipf:EXP | seq (default uniform)\n"
"  --value-size SPEC       N | MIN-MAX | N:W,N:W... bytes (default 100)\n"
"  --paths LIST            HTTP paths with weights, /a:3,/b:1 (default /)\n"
"  --preload               SET every key once, report and exit\n"
"  --rate R                open loop: R requests/s in total (default: closed loop)\n"
"  --arrival A             uniform | poisson inter-arrival times (default uniform)\n"
"  --warmup D              unmeasured warm-up, e.g. 2s (default 0s)\n"
"  --duration D            measured time, units us|ms|s|m|h (default 10s)\n"
"  --requests N            stop after N measured requests instead\n"
"  --timeout D             per-request timeout; the connection is reset (default 1s)\n"
"  --seed N                random seed (default 1)\n"
"  --spin D                open loop: poll instead of sleeping this close to a send\n"
"                          (default 100us; 0 = always sleep on a timer)\n"
"  --engine E              auto | io_uring | epoll: how the threads do I/O (default auto:\n"
"                          io_uring below pipeline 8 where the kernel allows it, else\n"
"                          epoll: the one that costs less CPU per request there)\n"
"  --engines               print the engines usable here (why not, on stderr) and exit\n"
"  --error-limit PCT       mark the run when more than PCT % of its requests were\n"
"                          answered with an error, lost or never sent (default 0.1)\n"
"  --json FILE             write the full results as JSON (schema mtload/1)\n"
"  --hgrm FILE             write the corrected latency distribution (.hgrm, ms)\n"
"  --hlog FILE             write an HdrHistogram interval log (.hlog): one interval per\n"
"                          second, tags request, GET, SET (+ -uncorrected), values in ns\n"
"  --quiet                 no human-readable table\n"
"  --help, --version\n", f);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int mtl_parse_cpus(const char *s, int *cpus, int max)
{
    int n = 0;
    const char *p = s;

    while (*p) {
        char *end;
        long a, b;
        if (*p < '0' || *p > '9')
            return -1;
        a = strtol(p, &end, 10);
        b = a;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return -1;
            b = strtol(end + 1, &end, 10);
        }
        if (a < 0 || b < a || b >= 4096)
            return -1;
        for (; a <= b; a++) {
            if (n == max)
                return -1;
            cpus[n++] = (int)a;
        }
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return n > 0 ? n : -1;
}

int mtl_parse_server(const char *s, int default_port, struct sockaddr_storage *ss,
                     socklen_t *len, char *host_header, size_t hlen)
{
    char host[MTL_HOST_MAX];
    const char *port_s = NULL;
    uint64_t port = (uint64_t)default_port;
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    size_t hl;

    if (strlen(s) >= sizeof(host) || !*s)
        return EINVAL;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close)
            return EINVAL;
        hl = (size_t)(close - s - 1);
        memcpy(host, s + 1, hl);
        host[hl] = 0;
        if (close[1] == ':')
            port_s = close + 2;
        else if (close[1])
            return EINVAL;
    } else {
        const char *colon = strrchr(s, ':');
        if (colon && strchr(s, ':') == colon) {       /* one colon: host:port */
            hl = (size_t)(colon - s);
            memcpy(host, s, hl);
            host[hl] = 0;
            port_s = colon + 1;
        } else {                                      /* no port, or a bare IPv6 */
            strcpy(host, s);
        }
    }
    if (port_s && (mtl_parse_u64(port_s, &port) || port < 1 || port > 65535))
        return EINVAL;
    memset(ss, 0, sizeof(*ss));
    if (strcmp(host, "localhost") == 0)
        strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof(*v4);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*v6);
    } else {
        return EINVAL;
    }
    if (ss->ss_family == AF_INET6)
        snprintf(host_header, hlen, "[%s]:%u", host, (unsigned)port);
    else
        snprintf(host_header, hlen, "%s:%u", host, (unsigned)port);
    return 0;
}

static int parse_uint(const char *arg, uint64_t lo, uint64_t hi, unsigned *out)
{
    uint64_t v;
    if (mtl_parse_u64(arg, &v) || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
}

/* mtload without options */
static void config_defaults(struct mtl_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->proto = &mtl_proto_memcache;       /* memcached text protocol */
    cfg->threads = 1;                       /* one event loop */
    cfg->conns = 16;                        /* connections in total */
    cfg->pipeline = 1;                      /* one outstanding request per connection */
    cfg->arrival = MTL_ARRIVAL_UNIFORM;     /* open loop: evenly spaced sends */
    cfg->warmup = 0;                        /* no unmeasured warm-up */
    cfg->duration = 10 * MTL_NS_PER_SEC;    /* 10 s measured */
    cfg->timeout = MTL_NS_PER_SEC;          /* 1 s per request */
    cfg->error_limit = 0.001;               /* 0.1% of requests */
    cfg->seed = 1;
    cfg->spin = 100 * MTL_NS_PER_US;        /* poll the last 100 us before a send */
    strcpy(cfg->ratio_text, "1:10");
    strcpy(cfg->pattern_text, "uniform");
    strcpy(cfg->vsize_text, "100");
    strcpy(cfg->paths_text, "/");
    mtl_workload_defaults(&cfg->work);
}

/* The workload's options. @return 0, -1 with a message in err, or 2 when c
 * is not one of them. */
static int workload_option(struct mtl_config *cfg, int c, const char *a, char *err, size_t errlen)
{
    struct mtl_workload *w = &cfg->work;
    switch (c) {
    case O_RATIO:
        if (mtl_workload_set_ratio(w, a))
            return fail(err, errlen, "--ratio: '%s' is not SET:GET with integers, e.g. 1:10", a);
        copy(cfg->ratio_text, sizeof(cfg->ratio_text), a);
        break;
    case O_KEYS:
        if (mtl_parse_u64(a, &w->keys) || w->keys < 1)
            return fail(err, errlen, "--keys: '%s' is not a positive integer", a);
        break;
    case O_PREFIX:
        if (mtl_workload_set_prefix(w, a))
            return fail(err, errlen, "--key-prefix: '%s' must be at most %d printable bytes without spaces", a, MTL_PREFIX_MAX);
        break;
    case O_PATTERN:
        if (mtl_workload_set_pattern(w, a))
            return fail(err, errlen, "--key-pattern: '%s' is not uniform, zipf:EXP (0 < EXP <= 100) or seq", a);
        copy(cfg->pattern_text, sizeof(cfg->pattern_text), a);
        break;
    case O_VSIZE:
        if (mtl_workload_set_value_size(w, a))
            return fail(err, errlen, "--value-size: '%s' is not N, MIN-MAX or N:W,N:W... with sizes in 1..%u", a, MTL_VALUE_MAX);
        copy(cfg->vsize_text, sizeof(cfg->vsize_text), a);
        break;
    case O_PATHS:
        if (mtl_workload_set_paths(w, a))
            return fail(err, errlen, "--paths: '%s' is not a list like /a:3,/b:1 (paths start with /, at most %d)", a, MTL_LIST_MAX);
        copy(cfg->paths_text, sizeof(cfg->paths_text), a);
        break;
    case O_PRELOAD:
        w->preload = 1;
        break;
    default:
        return 2;
    }
    return 0;
}

/* The run's options (the server, the load, its timing, the output).
 * @return 0, -1 with a message in err, or 2 when c is not one of them. */
static int run_option(struct mtl_config *cfg, int c, const char *a, const char **server, int *duration_given,
                      char *err, size_t errlen)
{
    switch (c) {
    case O_SERVER:
        *server = a;
        break;
    case O_PROTOCOL:
        if (!(cfg->proto = mtl_proto_find(a)))
            return fail(err, errlen, "--protocol: unknown protocol '%s' (accepted: memcache, http)", a);
        break;
    case O_THREADS:
        if (parse_uint(a, 1, 1024, &cfg->threads))
            return fail(err, errlen, "--threads: '%s' is not an integer in 1..1024", a);
        break;
    case O_CONNS:
        if (parse_uint(a, 1, 100000, &cfg->conns))
            return fail(err, errlen, "--conns: '%s' is not an integer in 1..100000", a);
        break;
    case O_PIPELINE:
        if (parse_uint(a, 1, 1024, &cfg->pipeline))
            return fail(err, errlen, "--pipeline: '%s' is not an integer in 1..1024", a);
        break;
    case O_CPUS: {
        int n = mtl_parse_cpus(a, cfg->cpus, MTL_CPUS_MAX);
        if (n < 0)
            return fail(err, errlen, "--cpus: '%s' is not a CPU list like 0,2-3", a);
        cfg->ncpus = (unsigned)n;
        copy(cfg->cpus_text, sizeof(cfg->cpus_text), a);
        break;
    }
    case O_RATE:
        if (mtl_parse_double(a, &cfg->rate) || cfg->rate <= 0 || cfg->rate > 1e9)
            return fail(err, errlen, "--rate: '%s' is not a request rate in (0, 1e9] per second", a);
        break;
    case O_ARRIVAL:
        if (mtl_arrival_parse(a, &cfg->arrival))
            return fail(err, errlen, "--arrival: '%s' is not uniform or poisson", a);
        break;
    case O_WARMUP:
        if (mtl_parse_duration(a, &cfg->warmup))
            return fail(err, errlen, "--warmup: '%s' is not a duration like 2s, 500ms, 1m", a);
        break;
    case O_DURATION:
        if (mtl_parse_duration(a, &cfg->duration) || cfg->duration == 0)
            return fail(err, errlen, "--duration: '%s' is not a positive duration like 10s, 500ms, 1m", a);
        *duration_given = 1;
        break;
    case O_REQUESTS:
        if (mtl_parse_u64(a, &cfg->requests) || cfg->requests < 1)
            return fail(err, errlen, "--requests: '%s' is not a positive integer", a);
        break;
    case O_TIMEOUT:
        if (mtl_parse_duration(a, &cfg->timeout) || cfg->timeout < MTL_NS_PER_MS)
            return fail(err, errlen, "--timeout: '%s' is not a duration of at least 1ms", a);
        break;
    case O_SEED:
        if (mtl_parse_u64(a, &cfg->seed))
            return fail(err, errlen, "--seed: '%s' is not an unsigned integer", a);
        break;
    case O_ERRLIMIT: {
        char *end;
        double v = strtod(a, &end);
        if (end == a || *end || !(v >= 0 && v <= 100))
            return fail(err, errlen, "--error-limit: '%s' is not a percentage in 0..100", a);
        cfg->error_limit = v / 100;
        break;
    }
    case O_SPIN:
        if (mtl_parse_duration(a, &cfg->spin) || cfg->spin > 10 * MTL_NS_PER_MS)
            return fail(err, errlen, "--spin: '%s' is not a duration in 0..10ms", a);
        break;
    case O_ENGINE:
        if (!strcmp(a, "auto"))
            cfg->engine = MTL_ENGINE_AUTO;
        else if (!strcmp(a, "epoll"))
            cfg->engine = MTL_ENGINE_EPOLL;
        else if (!strcmp(a, "io_uring") || !strcmp(a, "uring"))
            cfg->engine = MTL_ENGINE_URING;
        else
            return fail(err, errlen, "--engine: unknown engine '%s' (accepted: auto, io_uring, epoll)", a);
        break;
    case O_JSON:
        cfg->json_path = a;
        break;
    case O_HGRM:
        cfg->hgrm_path = a;
        break;
    case O_HLOG:
        cfg->hlog_path = a;
        break;
    case O_QUIET:
        cfg->quiet = 1;
        break;
    default:
        return 2;
    }
    return 0;
}

/* The options that answer and end (--help, --engines, --version).
 * @return 1, or 2 when c is not one of them. */
static int answer_option(int c)
{
    switch (c) {
    case O_HELP:
        mtl_config_usage(stdout);
        return 1;
    case O_ENGINES: {
        char why[160];
        puts("epoll");
        if (mtl_uring_probe(why, sizeof(why)) == 0)
            puts("io_uring");
        else
            fprintf(stderr, "io_uring: %s\n", why);
        return 1;
    }
    case O_VERSION:
        printf("mtload %s\n", MTEBENCH_VERSION);
        return 1;
    default:
        return 2;
    }
}

/* What needs every option: the checks between them, the server's address,
 * the workload's tables. */
static int config_finish(struct mtl_config *cfg, const char *server, int duration_given, char *err, size_t errlen)
{
    struct mtl_workload *w = &cfg->work;
    if (cfg->conns < cfg->threads)
        return fail(err, errlen, "--conns: %u is fewer than --threads %u (each thread needs a connection)", cfg->conns, cfg->threads);
    if (cfg->requests && !duration_given)
        cfg->duration = 0;
    if (w->preload) {
        cfg->duration = 0;
        cfg->warmup = 0;
        cfg->rate = 0;
        cfg->requests = w->keys;
        if (cfg->proto != &mtl_proto_memcache)
            return fail(err, errlen, "--preload: only with --protocol memcache");
    }
    if (w->pattern == MTL_KEYS_ZIPF && mtl_zipf_init(&w->zipf, w->keys, w->zipf.s))
        return fail(err, errlen, "--key-pattern: zipf needs --keys >= 1");
    copy(cfg->server, sizeof(cfg->server), server ? server : "127.0.0.1");
    if (mtl_parse_server(cfg->server, cfg->proto->default_port, &cfg->addr, &cfg->addrlen,
                         cfg->host_header, sizeof(cfg->host_header)))
        return fail(err, errlen, "--server: '%s' is not HOST:PORT with an IPv4 address, [IPv6] or localhost", cfg->server);
    if (mtl_workload_finish(w, cfg->host_header))
        return fail(err, errlen, "out of memory preparing the workload");
    return 0;
}

int mtl_config_parse(struct mtl_config *cfg, int argc, char **argv, char *err, size_t errlen)
{
    const char *server = NULL;
    int duration_given = 0, c;

    config_defaults(cfg);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        int rc = workload_option(cfg, c, optarg, err, errlen);
        if (rc == 2)
            rc = run_option(cfg, c, optarg, &server, &duration_given, err, errlen);
        if (rc == 2)
            rc = answer_option(c);
        if (rc == 2) {
            if (c == ':' || optopt >= O_SERVER)
                return fail(err, errlen, "%s: needs a value", argv[optind - 1]);
            return fail(err, errlen, "%s: unknown option (see mtload --help)", argv[optind - 1]);
        }
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return fail(err, errlen, "%s: unexpected argument (options start with --)", argv[optind]);
    return config_finish(cfg, server, duration_given, err, errlen);
}

void mtl_config_free(struct mtl_config *cfg)
{
    mtl_workload_free(&cfg->work);
}
