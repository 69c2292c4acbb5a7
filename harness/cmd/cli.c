/* cli.c - see cli.h */
#include "cmd/cli.h"
#include "analysis/seqstop.h"
#include "agent/transport_ssh.h"
#include "lib/files.h"
#include "lib/util.h"

#include <getopt.h>
#include <stdio.h>
#include "report/prom.h"
#include <stdlib.h>
#include <string.h>

/* the workload's options are O_WL + its field (workload.h) */
enum { O_WL = 100, O_MACHINE = 199, O_WORKLOAD = 200, O_SERVICE = 256, O_VARIANT, O_MODE, O_PLATFORM, O_KERNEL, O_RESULTS, O_TARGET,
       O_REPS, O_FORCE, O_QUIET, O_JSON, O_HELP, O_DRYRUN, O_BUILD, O_KERNELS, O_BASELINE, O_STRICT, O_CORES, O_RESUME,
       O_PRECISION, O_MAXTIME, O_MAXREPS, O_SERVER_HOST, O_CLIENT_HOSTS, O_SERVER_ADDR, O_EXTERNAL, O_SSH, O_PROM, O_DETECT,
       O_SLO, O_LOADS, O_BASE_VARIANT, O_CONFIDENCE, O_ALLOCATOR, O_BUG, O_BUG_TRIGGER, O_PARAM, O_COUNT, O_FAULT_REPORT, O_CORE };

static const struct option longopts[] = {
    { "machine", required_argument, 0, O_MACHINE },   { "workload", required_argument, 0, O_WORKLOAD }, { "service", required_argument, 0, O_SERVICE },   { "variant", required_argument, 0, O_VARIANT },
    { "mode", required_argument, 0, O_MODE },         { "platform", required_argument, 0, O_PLATFORM },
    { "allocator", required_argument, 0, O_ALLOCATOR },
    { "kernel", required_argument, 0, O_KERNEL },     { "results", required_argument, 0, O_RESULTS },
    { "target", required_argument, 0, O_TARGET },     { "reps", required_argument, 0, O_REPS },
#define X(f, kind, key, opt, ...) { opt, required_argument, 0, O_WL + MTB_WL_##f },
    MTB_WORKLOAD_FIELDS(X)
#undef X
    { "force", no_argument, 0, O_FORCE },             { "resume", required_argument, 0, O_RESUME },
    { "quiet", no_argument, 0, O_QUIET },             { "json", no_argument, 0, O_JSON },
    { "help", no_argument, 0, O_HELP },               { "dry-run", no_argument, 0, O_DRYRUN },
    { "build", required_argument, 0, O_BUILD },
    { "bug", required_argument, 0, O_BUG },           { "bug-trigger", required_argument, 0, O_BUG_TRIGGER },
    { "param", required_argument, 0, O_PARAM },
    { "kernels", required_argument, 0, O_KERNELS },   { "baseline", no_argument, 0, O_BASELINE },
    { "strict", no_argument, 0, O_STRICT },           { "cores", required_argument, 0, O_CORES },
    { "count", no_argument, 0, O_COUNT },             { "fault-report", no_argument, 0, O_FAULT_REPORT },
    { "core", no_argument, 0, O_CORE },
    { "precision", required_argument, 0, O_PRECISION }, { "max-time", required_argument, 0, O_MAXTIME },
    { "max-reps", required_argument, 0, O_MAXREPS },
    { "server-host", required_argument, 0, O_SERVER_HOST }, { "client-hosts", required_argument, 0, O_CLIENT_HOSTS },
    { "server-address", required_argument, 0, O_SERVER_ADDR }, { "external-load", required_argument, 0, O_EXTERNAL },
    { "ssh-config", required_argument, 0, O_SSH },    { "ssh-key", required_argument, 0, O_SSH },
    { "known-hosts", required_argument, 0, O_SSH },   { "trust-new-hosts", no_argument, 0, O_SSH },
    { "remote-dir", required_argument, 0, O_SSH },    { "ssh-alive", required_argument, 0, O_SSH },
    { "prom-textfile", required_argument, 0, O_PROM }, { "detect", required_argument, 0, O_DETECT },
    { "slo", required_argument, 0, O_SLO },           { "loads", required_argument, 0, O_LOADS },
    { "baseline-variant", required_argument, 0, O_BASE_VARIANT }, { "confidence", required_argument, 0, O_CONFIDENCE },
    { 0, 0, 0, 0 },
};

/* The usage text of the shared options. */
static void mtb_cli_usage(FILE *f)
{
    fprintf(f,
            "options (make variables in capitals):\n"
            "  --service NAME     SERVICE   memcached (see `mtebench list`)\n"
            "  --mode M           MODE      off, sync, async, asymm\n"
            "  --platform P       PLATFORM  host, emu, vm (default: host on MTE hardware, else emu)\n"
            "  --kernel K         KERNEL    host; with PLATFORM=vm a named kernel (stock, tcma1) or an Image path\n"
            "                               (kernel source: KERNEL_SOURCE=6.12 (default) or 6.1)\n"
            "  --kernels A,B      KERNELS   compare-kernels: the kernels to compare (default stock,tcma1)\n"
            "  --baseline                   compare-kernels: also run plain/off on each kernel\n"
            "  --detect DIR       DETECT    compare-kernels: mtebench detect's results (repeatable): each\n"
            "                               kernel's overhead beside the catch rate (what the price buys)\n"
            "  --workload W       WORKLOAD  a workload of the service's recipe (default: default)\n"
            "  --machine M        MACHINE   CPU/perf profile from configs/machines (default auto: CPU halves;\n"
            "                               `mtebench doctor` suggests one)\n"
            "  --cores LIST       CORES     server core counts to sweep, e.g. 8,64,128 (default: the profile's)\n"
            "  --prom-textfile DIR          bench, plan, nightly: the figures as a Prometheus textfile\n"
            "                               DIR/mtebench-JOB.prom (node_exporter's textfile collector)\n"
            "  --count            COUNT=1   run, proof on PLATFORM=vm: count MTE's work (instructions, tag\n"
            "                               instructions, bytes tagged, Tag Checked accesses, EL0 and EL1)\n"
            "                               with the plugin libmtecount.so; a counted run is never timed\n"
            "                               (docs/COUNTING.md)\n"
            "  --fault-report               run: a tag-check fault's report with its object and the\n"
            "                               allocation's and free's stacks (libmtealloc.so preloaded:\n"
            "                               not for timing; `mtebench explain DIR` prints it)\n"
            "  --core                       run: keep the faulting process's core with its memory tags,\n"
            "                               slimmed, as DIR/core (core_pattern must name a directory:\n"
            "                               PLATFORM=vm guests set it; a trial on vm keeps one)\n"
            "  --strict           STRICT=1  refuse to run when the machine is not quiet (governor, boost,\n"
            "                               SMT siblings, busy CPUs, swap, THP)\n"
            "  --variant V        VARIANT   build/run: one of the recipe's variants (plain, tagged, objtag, ...);\n"
            "                               bench: the variant(s) measured against plain/off, e.g. objtag or\n"
            "                               tagged,objtag (default tagged)\n"
            "  --allocator A      ALLOCATOR the allocator serving malloc: glibc (default) or scudo (preloaded;\n"
            "                               arm64 code: emu, host on arm64); bench/plan: a comma list,\n"
            "                               glibc,scudo, each with its own plain/off baseline\n"
            "  --duration T       DURATION  measured time per run, e.g. 30, 30s, 2m (default 30s)\n"
            "  --warmup T         WARMUP    unmeasured warm-up per run (default 3s)\n"
            "  --reps auto|N      REPS      repetitions of each configuration (default auto: interleaved pairs\n"
            "                               until the overhead's 95%% interval is within +-PRECISION, from 6\n"
            "                               pairs; sequential rule in docs/STATISTICS.md; N: exactly N;\n"
            "                               compare-kernels: 3)\n"
            "  --precision P      PRECISION REPS=auto: relative half-width to reach, e.g. 2%% or 0.02 (default 2%%;\n"
            "                               emulated platforms 5%%)\n"
            "  --max-time T       MAX_TIME  REPS=auto: at most this much time of runs (default 15m)\n"
            "  --max-reps N       MAX_REPS  REPS=auto: at most N pairs (default 100)\n"
            "  --mix S:G          MIX       SET:GET ratio, memtier syntax (default from the recipe, 1:10)\n"
            "  --threads N        THREADS   load generator threads (default 1)\n"
            "  --conns N          CONNS     total connections (default 16)\n"
            "  --pipeline N       PIPELINE  requests in flight per connection (default 1)\n"
            "  --keys N                     key space size (default 10000)\n"
            "  --value-size S               100 | 64-1024 | 100:8,4096:2\n"
            "  --service-threads N          service worker threads (default from the recipe)\n"
            "  --rate R                     open loop at R requests/s (default closed loop)\n"
            "  --arrival A        ARRIVAL   open loop's arrivals: uniform (evenly spaced; bench's default) or\n"
            "                               poisson (capacity's default; pgbench's --rate is always poisson)\n"
            "  --seed N           SEED      mtload's random seed (default 1; capacity draws one per run)\n"
            "  --slo S            SLO       capacity: the bounds, e.g. p99:1ms or p99:1ms,p99.9:5ms,errors:0.1%%\n"
            "  --loads L          LOADS     capacity: also sweep these loads, %% of the baseline's capacity\n"
            "                               (e.g. 10%%,50%%,90%%)\n"
            "  --baseline-variant V         capacity: the baseline's variant (default plain; its mode is off)\n"
            "  --confidence C     CONFIDENCE capacity: the intervals' level, 80%% to 99.9%% (default 95%%)\n"
            "  --results DIR                where run records go (default results/<timestamp>-...)\n"
            "  --force                      rebuild even when the cache has the build; and run into a\n"
            "                               --results DIR that holds other runs (moved to DIR/replaced-TIME/)\n"
            "  --resume DIR                 finish the interrupted bench/plan in DIR: ok runs kept, the\n"
            "                               missing and failed ones redone in their place\n"
            "  --dry-run                    (plan) list the runs a plan expands to, run nothing\n"
            "  --build DIR                  run: use this prebuilt service build (a cache directory)\n"
            "  --bug ID, --bug-trigger F    run: a detection trial's bug switched on (MTEBENCH_BUG) and its\n"
            "  --param KEY=VALUE            trigger, and a workload param (%%20 a space, %%25 a %%): the far run\n"
            "                               of `mtebench detect --platform vm`\n"
            "  --server-host H    HOSTS     run the service on [user@]host[:port] over ssh; its record is made there\n"
            "                               (default: the profile's server_host, else this machine)\n"
            "  --client-hosts L   CLIENT_HOSTS run mtload on these hosts (h1,h2), shares of conns and rate, merged\n"
            "  --server-address A           the address the client hosts reach the server at (default: ssh's)\n"
            "  --ssh-config F, --ssh-key F, --known-hosts F, --trust-new-hosts, --remote-dir D, --ssh-alive S\n"
            "                               (SSH_OPTS) how ssh reaches the hosts (see `mtebench hosts --help`)\n");
}

static long num(const char *what, const char *s, long lo, long hi)
{
    long v;
    if (mtb_parse_long(s, lo, hi, &v) != 0) {
        char acc[64];
        snprintf(acc, sizeof acc, "an integer from %ld to %ld", lo, hi);
        mtb_opts_bad(what, s, acc);
    }
    return v;
}

/* REPS: auto, or a count from 1 to 1000 */
static long parse_reps(const char *s)
{
    if (!strcmp(s, "auto"))
        return MTB_REPS_AUTO;
    if (strspn(s, "0123456789") != strlen(s) || !*s)
        mtb_opts_bad("REPS", s, "auto or an integer from 1 to 1000");
    return num("REPS", s, 1, 1000);
}

/* a fraction (mtb_opts_fraction) or the named refusal */
static double fraction(const char *what, const char *s, double lo, double hi, const char *acc)
{
    double v = 0;
    if (mtb_opts_fraction(s, lo, hi, &v) != 0)
        mtb_opts_bad(what, s, acc);
    return v;
}

/* CORES: core counts of a sweep */
static const char *check_cores(const char *s)
{
    int cc[MTB_MAX_CPUS];
    int n = mtb_cpulist_parse(s, cc, MTB_MAX_CPUS);
    if (n <= 0 || n > MTB_MAX_SWEEP || cc[0] < 1)
        mtb_opts_bad("CORES", s, "core counts such as 8,64,128 (at least 1 each)");
    return s;
}

/* A detection trial's far run (run only): --bug, --bug-trigger, and
 * --param KEY=VALUE into o->params, %20 (a space) and %25 (%) decoded
 * (agent.c encodes them so: the vm's console passes arguments on the
 * kernel's command line, split at spaces) */
static void far_option(struct mtb_opts *o, const char *cmd, int c, const char *kv)
{
    if (strcmp(cmd, "run") || c != O_PARAM) {
        *(strcmp(cmd, "run") ? &o->far_elsewhere : c == O_BUG ? &o->bug : &o->bug_trigger) = kv;
        return;
    }
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        mtb_die(2, "--param %s: KEY=VALUE", kv);
        return; /* the fuzz target's mtb_die returns */
    }
    char *v = mtb_strdup(eq + 1), *w = v;
    for (const char *s = v; *s; s++)
        if (!strncmp(s, "%20", 3) || !strncmp(s, "%25", 3)) {
            *w++ = s[2] == '0' ? ' ' : '%';
            s += 2;
        } else
            *w++ = *s;
    *w = 0;
    if (!o->params)
        o->params = json_object();
    char *k = mtb_asprintf("%.*s", (int)(eq - kv), kv);
    json_object_set_new(o->params, k, json_string(v));
    free(k);
    free(v);
}

/* --count: run's and proof's (docs/COUNTING.md); --fault-report: run's
 * (docs/DETECTION.md, "Fault reports") */
static void run_flag(struct mtb_opts *o, const char *cmd, int c)
{
    if (c == O_COUNT) {
        if (strcmp(cmd, "run") != 0 && strcmp(cmd, "proof") != 0)
            mtb_die(2, "--count is an option of run and proof (PLATFORM=vm), not of %s", cmd);
        o->count = 1;
    } else if (c == O_CORE) {
        if (strcmp(cmd, "run") != 0)
            mtb_die(2, "--core is an option of run (a vm trial's guest run keeps its core), not of %s", cmd);
        o->core = 1;
    } else {
        if (strcmp(cmd, "run") != 0)
            mtb_die(2, "--fault-report is an option of run (detect's trials always make one), not of %s", cmd);
        o->fault_report = 1;
    }
}

void mtb_cli_parse(int argc, char **argv, struct mtb_opts *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->reps = MTB_REPS_AUTO;
    o->precision = 0.02;
    o->max_time = 900;
    o->max_reps = 100;
    o->kernel = "host";
    optind = 1;
    opterr = 0;
    int c, li = 0;
    while ((c = getopt_long(argc, argv, "", longopts, &li)) != -1) {
        switch (c) {
        case O_SERVICE: o->service = optarg; break;
        case O_WORKLOAD: o->workload = optarg; break;
        case O_MACHINE: o->machine = optarg; break;
        case O_VARIANT: o->variant = optarg; break;
        case O_ALLOCATOR: o->allocator = optarg; break;
        case O_MODE: o->mode = optarg; break;
        case O_PLATFORM: o->platform = optarg; break;
        case O_KERNEL: o->kernel = optarg; break;
        case O_RESULTS: o->results = optarg; break;
        case O_TARGET:
            if (strcmp(optarg, "aarch64") && strcmp(optarg, "native"))
                mtb_opts_bad("target", optarg, "aarch64, native");
            o->target = optarg;
            break;
        case O_REPS:
            o->reps = parse_reps(optarg);
            o->reps_given = 1;
            break;
        case O_PRECISION:
            o->precision = fraction("PRECISION", optarg, 0.001, 0.5,
                                          "a relative half-width such as 2% or 0.02 (0.1% to 50%)");
            o->precision_given = 1;
            break;
        case O_MAXTIME:
            if (mtb_parse_duration(optarg, &o->max_time) != 0 || o->max_time <= 0)
                mtb_opts_bad("MAX_TIME", optarg, "a positive duration such as 15m, 900s");
            o->max_time_given = 1;
            break;
        case O_MAXREPS: o->max_reps = num("MAX_REPS", optarg, MTB_SEQ_MIN_PAIRS, 1000); break;
        case O_FORCE: o->force = 1; break;
        case O_RESUME: o->results = optarg; o->resume = 1; break;
        case O_QUIET: o->quiet = 1; break;
        case O_JSON: o->json = 1; break;
        case O_DRYRUN: o->dry_run = 1; break;
        case O_BUILD: o->build_dir = optarg; break;
        case O_BUG: case O_BUG_TRIGGER: case O_PARAM: far_option(o, cmd, c, optarg); break;
        case O_KERNELS: o->kernels = optarg; break;
        case O_BASELINE: o->baseline = 1; break;
        case O_DETECT:
            if (strcmp(cmd, "compare-kernels") != 0)
                mtb_die(2, "--detect is an option of compare-kernels (and of report), not of %s", cmd);
            if (o->ndetect == MTB_MAX_DETECT)
                mtb_die(2, "--detect given more than %d times", MTB_MAX_DETECT);
            o->detect[o->ndetect++] = optarg;
            break;
        case O_SLO:
        case O_LOADS:
        case O_BASE_VARIANT:
        case O_CONFIDENCE:
            if (strcmp(cmd, "capacity") != 0)
                mtb_die(2, "--%s is an option of capacity, not of %s", longopts[li].name, cmd);
            if (c == O_CONFIDENCE)
                o->confidence = fraction("CONFIDENCE", optarg, 0.8, 0.999, "a level from 80% to 99.9%, e.g. 95% or 0.99");
            else
                *(c == O_SLO ? &o->slo : c == O_LOADS ? &o->loads : &o->baseline_variant) = optarg;
            break;
        case O_STRICT: o->strict = 1; break;
        case O_COUNT: case O_FAULT_REPORT: case O_CORE: run_flag(o, cmd, c); break;
        case O_PROM: mtb_prom_set_dir(optarg); break;
        case O_CORES: o->cores = check_cores(optarg); break;
        case O_SERVER_HOST: o->server_host = optarg; break;
        case O_CLIENT_HOSTS: o->client_hosts = optarg; break;
        case O_SERVER_ADDR: o->server_address = optarg; break;
        case O_EXTERNAL: o->external_load = optarg; break;
        case O_SSH: mtb_ssh_option(longopts[li].name, optarg); break;
        case O_HELP:
            printf("usage: mtebench %s [options]\n", cmd);
            mtb_cli_usage(stdout);
            exit(0);
        default:
            if (c >= O_WL && c < O_WL + MTB_WL_NFIELDS) {
                char why[MTB_ERRLEN];
                if (mtb_workload_set_parse(&o->wset, longopts[li].name, optarg, why, sizeof why) != 0)
                    mtb_die(2, "%s", why);
                break;
            }
            if (optopt)
                mtb_die(2, "%s: option '%s' needs a value", cmd, argv[optind - 1]);
            mtb_die(2, "%s: unknown option '%s' (see mtebench %s --help)", cmd, argv[optind - 1], cmd);
        }
    }
    if (optind < argc)
        mtb_die(2, "%s: unexpected argument '%s' (options start with --)", cmd, argv[optind]);
}

const char *mtb_cli_target(const struct mtb_opts *o) { return o->target ? o->target : o->p->target(); }

char *mtb_cli_results_dir(const char *what)
{
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    return mtb_asprintf("%s/%s-%s", mtb_results_dir(), ts, what);
}
