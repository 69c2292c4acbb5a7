/* cli.c - see cli.h */
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "analysis/seqstop.h"
#include "agent/transport_ssh.h"
#include "lib/argv.h"
#include "lib/files.h"
#include "lib/util.h"

#include "lib/opttab.h"
#include <stdarg.h>
#include <stdio.h>
#include "report/prom.h"
#include <stdlib.h>
#include <string.h>

/* the workload's options are O_WL + its field (core/workload.h) */
enum { O_WL = 100, O_MACHINE = 199, O_WORKLOAD = 200, O_SERVICE = 256, O_VARIANT, O_MODE, O_PLATFORM, O_KERNEL, O_RESULTS, O_TARGET,
       O_REPS, O_FORCE, O_QUIET, O_JSON, O_HELP, O_DRYRUN, O_BUILD, O_KERNELS, O_BASELINE, O_STRICT, O_CORES, O_RESUME,
       O_PRECISION, O_MAXTIME, O_MAXREPS, O_SERVER_HOST, O_CLIENT_HOSTS, O_SERVER_ADDR, O_EXTERNAL, O_PROM, O_DETECT,
       O_SLO, O_LOADS, O_BASE_VARIANT, O_CONFIDENCE, O_ALLOCATOR, O_BUG, O_BUG_TRIGGER, O_PARAM, O_COUNT, O_FAULT_REPORT, O_CORE };

#define WL(f) (O_WL + MTB_WL_##f)
/* The options of the commands that run services (bench, plan, nightly,
 * capacity, compare-kernels, run, build, proof, quiet, detect): the parser
 * and their --help are both made from this table (lib/opttab.h). A row
 * with cmds is refused by the other commands, by name. */
static const struct mtb_opt mtb_cli_opts[] = {
    MTB_OPT("service", "NAME", "SERVICE", O_SERVICE, NULL, "memcached (see `mtebench list`)"),
    MTB_OPT("mode", "M", "MODE", O_MODE, NULL, "off, sync, async, asymm"),
    MTB_OPT("platform", "P", "PLATFORM", O_PLATFORM, NULL, "host, emu, vm (default: host on MTE hardware, else emu)"),
    MTB_OPT("kernel", "K", "KERNEL", O_KERNEL, NULL,
      "host; with PLATFORM=vm a named kernel (stock, tcma1) or an Image path\n"
      "(kernel source: KERNEL_SOURCE=6.12 (default) or 6.1)"),
    MTB_OPT("kernels", "A,B", "KERNELS", O_KERNELS, "compare-kernels", "the kernels to compare (default stock,tcma1)"),
    MTB_OPT("baseline", NULL, "BASELINE=1", O_BASELINE, "compare-kernels", "also run plain/off on each kernel"),
    MTB_OPT("detect", "DIR", "DETECT", O_DETECT, "compare-kernels",
      "mtebench detect's results (repeatable): each kernel's overhead\n"
      "beside the catch rate (what the price buys)"),
    MTB_OPT("workload", "W", "WORKLOAD", O_WORKLOAD, NULL, "a workload of the service's recipe (default: default)"),
    MTB_OPT("machine", "M", "MACHINE", O_MACHINE, NULL,
      "CPU/perf profile from configs/machines (default auto: CPU halves;\n"
      "`mtebench doctor` suggests one)"),
    MTB_OPT("cores", "LIST", "CORES", O_CORES, NULL, "server core counts to sweep, e.g. 8,64,128 (default: the profile's)"),
    MTB_OPT("prom-textfile", "DIR", NULL, O_PROM, "bench plan",
      "the figures as a Prometheus textfile\n"
      "DIR/mtebench-JOB.prom (node_exporter's textfile collector)"),
    MTB_OPT("count", NULL, "COUNT=1", O_COUNT, "run proof",
      "on PLATFORM=vm: count MTE's work (instructions, tag instructions,\n"
      "bytes tagged, Tag Checked accesses, EL0 and EL1) with the plugin\n"
      "libmtecount.so; a counted run is never timed (docs/COUNTING.md)"),
    MTB_OPT("fault-report", NULL, NULL, O_FAULT_REPORT, "run",
      "a tag-check fault's report with its object and the allocation's and\n"
      "free's stacks (libmtealloc.so preloaded: not for timing;\n"
      "`mtebench explain DIR` prints it)"),
    MTB_OPT("core", NULL, NULL, O_CORE, "run",
      "keep the faulting process's core with its memory tags, slimmed, as\n"
      "DIR/core (core_pattern must name a directory: PLATFORM=vm guests set\n"
      "it; a trial on vm keeps one)"),
    MTB_OPT("strict", NULL, "STRICT=1", O_STRICT, NULL,
      "refuse to run when the machine is not quiet (governor, boost,\n"
      "SMT siblings, busy CPUs, swap, THP)"),
    MTB_OPT("variant", "V", "VARIANT", O_VARIANT, NULL,
      "build/run: one of the recipe's variants (plain, tagged, objtag, ...);\n"
      "bench: the variant(s) measured against plain/off, e.g. objtag or\n"
      "tagged,objtag (default tagged)"),
    MTB_OPT("allocator", "A", "ALLOCATOR", O_ALLOCATOR, NULL,
      "the allocator serving malloc: glibc (default) or scudo (preloaded;\n"
      "arm64 code: emu, host on arm64); bench/plan: a comma list,\n"
      "glibc,scudo, each with its own plain/off baseline"),
    /* the workload's fields: a row each, from their list (core/workload_fields.h) */
#define X(f, kind, key, opt, json, rec, rsec, rkey, dflt, lo, hi, mtl, meta, mk, help) \
    MTB_OPT(opt, meta, mk, WL(f), NULL, help),
    MTB_WORKLOAD_FIELDS(X)
#undef X
    MTB_OPT("reps", "auto|N", "REPS", O_REPS, NULL,
      "repetitions of each configuration (default auto: interleaved pairs\n"
      "until the overhead's 95% interval is within +-PRECISION, from 6\n"
      "pairs; sequential rule in docs/STATISTICS.md; N: exactly N;\n"
      "compare-kernels: 3)"),
    MTB_OPT("precision", "P", "PRECISION", O_PRECISION, NULL,
      "REPS=auto: relative half-width to reach, e.g. 2% or 0.02 (default 2%;\n"
      "emulated platforms 5%)"),
    MTB_OPT("max-time", "T", "MAX_TIME", O_MAXTIME, NULL, "REPS=auto: at most this much time of runs (default 15m)"),
    MTB_OPT("max-reps", "N", "MAX_REPS", O_MAXREPS, NULL, "REPS=auto: at most N pairs (default 100)"),
    MTB_OPT("slo", "S", "SLO", O_SLO, "capacity", "the bounds, e.g. p99:1ms or p99:1ms,p99.9:5ms,errors:0.1%"),
    MTB_OPT("loads", "L", "LOADS", O_LOADS, "capacity",
      "also sweep these loads, % of the baseline's capacity\n(e.g. 10%,50%,90%)"),
    MTB_OPT("baseline-variant", "V", "BASELINE_VARIANT", O_BASE_VARIANT, "capacity",
      "the baseline's variant (default plain; its mode is off)"),
    MTB_OPT("confidence", "C", "CONFIDENCE", O_CONFIDENCE, "capacity",
      "the intervals' level, 80% to 99.9% (default 95%)"),
    MTB_OPT("results", "DIR", "RESULTS", O_RESULTS, NULL, "where run records go (default results/<timestamp>-...)"),
    MTB_OPT("force", NULL, NULL, O_FORCE, NULL,
      "rebuild even when the cache has the build; and run into a\n"
      "--results DIR that holds other runs (moved to DIR/replaced-TIME/)"),
    MTB_OPT("resume", "DIR", "RESUME", O_RESUME, NULL,
      "finish the interrupted bench/plan in DIR: ok runs kept, the\n"
      "missing and failed ones redone in their place"),
    MTB_OPT("dry-run", NULL, NULL, O_DRYRUN, NULL, "(plan) list the runs a plan expands to, run nothing"),
    MTB_OPT("quiet", NULL, NULL, O_QUIET, NULL, "less on stderr"),
    MTB_OPT("json", NULL, NULL, O_JSON, NULL, "the result as JSON where the command has one"),
    MTB_OPT("target", "T", NULL, O_TARGET, NULL, "build: the target, aarch64 or native (default: the platform's)"),
    MTB_OPT("build", "DIR", NULL, O_BUILD, "run", "use this prebuilt service build (a cache directory)"),
    MTB_OPT("bug", "ID", NULL, O_BUG, "run", NULL),
    MTB_OPT("bug-trigger", "F", NULL, O_BUG_TRIGGER, "run", NULL),
    MTB_OPT_LABEL("param", "KEY=VALUE", NULL, O_PARAM, "run",
      "a detection trial's bug switched on (MTEBENCH_BUG), its trigger,\n"
      "and a workload param (%20 a space, %25 a %): the far run of\n"
      "`mtebench detect --platform vm`",
      "--bug ID, --bug-trigger F, --param KEY=VALUE"),
    MTB_OPT("server-host", "H", "HOSTS", O_SERVER_HOST, NULL,
      "run the service on [user@]host[:port] over ssh; its record is made there\n"
      "(default: the profile's server_host, else this machine)"),
    MTB_OPT("client-hosts", "L", "CLIENT_HOSTS", O_CLIENT_HOSTS, NULL,
      "run mtload on these hosts (h1,h2), shares of conns and rate, merged"),
    MTB_OPT("server-address", "A", NULL, O_SERVER_ADDR, NULL,
      "the address the client hosts reach the server at (default: ssh's)"),
    MTB_OPT("external-load", "DIR", NULL, O_EXTERNAL, "run",
      "(on a server host, set by the controller) the load comes from client\n"
      "hosts; the handshake's files in DIR"),
    MTB_OPT("help", NULL, NULL, O_HELP, NULL, "these options"),
    { 0 },
};
#undef WL

/* the shared options, then the ssh options (SSH_OPTS) */
static const struct mtb_opt *const cli_tabs[] = { mtb_cli_opts, mtb_ssh_opts, NULL };

void mtb_cli_help(FILE *f, const char *cmd, const struct mtb_opt *own)
{
    const struct mtb_opt *const mine[] = { own, NULL };
    if (own) {
        fprintf(f, "options of %s:\n", cmd);
        mtb_opt_help(f, mine, cmd);
    }
    /* the shared rows but those the command's own table replaces (its --help) */
    size_t n = sizeof mtb_cli_opts / sizeof mtb_cli_opts[0], k = 0;
    struct mtb_opt *shared = mtb_calloc(n, sizeof *shared);
    for (const struct mtb_opt *o = mtb_cli_opts; o->name; o++)
        if (!own || !mtb_opt_find(mine, o->name, cmd))
            shared[k++] = *o;
    const struct mtb_opt *const rest[] = { shared, mtb_ssh_opts, NULL };
    fprintf(f, "options (make variables in capitals):\n");
    mtb_opt_help(f, rest, cmd);
    free(shared);
}

/* Refuse a value: "invalid WHAT 'VAL' (accepted: ...)", exit 2. */
static void bad(const char *what, const char *val, const char *accepted)
{
    mtb_die(2, "invalid %s '%s' (accepted: %s)", what, val, accepted);
}

static long num(const char *what, const char *s, long lo, long hi)
{
    long v;
    if (mtb_parse_long(s, lo, hi, &v) != 0) {
        char acc[64];
        snprintf(acc, sizeof acc, "an integer from %ld to %ld", lo, hi);
        bad(what, s, acc);
    }
    return v;
}

/* REPS: auto, or a count from 1 to 1000 */
static long parse_reps(const char *s)
{
    if (!strcmp(s, "auto"))
        return MTB_REPS_AUTO;
    if (strspn(s, "0123456789") != strlen(s) || !*s)
        bad("REPS", s, "auto or an integer from 1 to 1000");
    return num("REPS", s, 1, 1000);
}

/* a fraction (mtb_opts_fraction) or the named refusal */
static double fraction(const char *what, const char *s, double lo, double hi, const char *acc)
{
    double v = 0;
    if (mtb_opts_fraction(s, lo, hi, &v) != 0)
        bad(what, s, acc);
    return v;
}

/* CORES: core counts of a sweep */
static const char *check_cores(const char *s)
{
    int cc[MTB_MAX_CPUS];
    int n = mtb_cpulist_parse(s, cc, MTB_MAX_CPUS);
    if (n <= 0 || n > MTB_MAX_SWEEP || cc[0] < 1)
        bad("CORES", s, "core counts such as 8,64,128 (at least 1 each)");
    return s;
}

/* --param KEY=VALUE (run: a detection trial's far run) into o->params,
 * %20 (a space) and %25 (%) decoded (agent.c encodes them so: the vm's
 * console passes arguments on the kernel's command line, split at spaces) */
static void param(struct mtb_opts *o, const char *kv)
{
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
    char *k = mtb_asprintf("%.*s", (int)(eq - kv), kv);
    json_t *utf8 = json_pack("{s:s}", k, v); /* the record keeps it: a key or value JSON cannot hold is refused */
    if (!utf8) {
        free(k);
        free(v);
        mtb_die(2, "--param %s: not UTF-8 text", kv);
        return;
    }
    json_decref(utf8);
    if (!o->params)
        o->params = mtb_calloc(1, sizeof *o->params);
    mtb_strmap_set(o->params, k, v);
    free(k);
    free(v);
}

/* one of the table's options, with its value */
static void take(struct mtb_opts *o, const char *cmd, int c, const char *name, const char *val, const struct mtb_opt *own)
{
    switch (c) {
    case O_SERVICE: o->service = val; break;
    case O_WORKLOAD: o->workload = val; break;
    case O_MACHINE: o->machine = val; break;
    case O_VARIANT: o->variant = val; break;
    case O_ALLOCATOR: o->allocator = val; break;
    case O_MODE: o->mode = val; break;
    case O_PLATFORM: o->platform = val; break;
    case O_KERNEL: o->kernel = val; break;
    case O_RESULTS: o->results = val; break;
    case O_TARGET:
        if (strcmp(val, "aarch64") && strcmp(val, "native"))
            bad("target", val, "aarch64, native");
        o->target = val;
        break;
    case O_REPS:
        o->reps = parse_reps(val);
        o->reps_given = 1;
        break;
    case O_PRECISION:
        o->precision = fraction("PRECISION", val, 0.001, 0.5, "a relative half-width such as 2% or 0.02 (0.1% to 50%)");
        o->precision_given = 1;
        break;
    case O_MAXTIME:
        if (mtb_parse_duration(val, &o->max_time) != 0 || o->max_time <= 0)
            bad("MAX_TIME", val, "a positive duration such as 15m, 900s");
        o->max_time_given = 1;
        break;
    case O_MAXREPS: o->max_reps = num("MAX_REPS", val, MTB_SEQ_MIN_PAIRS, 1000); break;
    case O_FORCE: o->force = 1; break;
    case O_RESUME: o->results = val; o->resume = 1; break;
    case O_QUIET: o->quiet = 1; break;
    case O_JSON: o->json = 1; break;
    case O_DRYRUN: o->dry_run = 1; break;
    case O_BUILD: o->build_dir = val; break;
    case O_BUG: o->bug = val; break;
    case O_BUG_TRIGGER: o->bug_trigger = val; break;
    case O_PARAM: param(o, val); break;
    case O_KERNELS: o->kernels = val; break;
    case O_BASELINE: o->baseline = 1; break;
    case O_DETECT:
        if (o->ndetect == MTB_MAX_DETECT)
            mtb_die(2, "--detect given more than %d times", MTB_MAX_DETECT);
        o->detect[o->ndetect++] = (char *)val;
        break;
    case O_SLO: o->slo = val; break;
    case O_LOADS: o->loads = val; break;
    case O_BASE_VARIANT: o->baseline_variant = val; break;
    case O_CONFIDENCE:
        o->confidence = fraction("CONFIDENCE", val, 0.8, 0.999, "a level from 80% to 99.9%, e.g. 95% or 0.99");
        break;
    case O_STRICT: o->strict = 1; break;
    case O_COUNT: o->count = 1; break;
    case O_CORE: o->core = 1; break;
    case O_FAULT_REPORT: o->fault_report = 1; break;
    case O_PROM: {
        struct mtb_err e = { 0 };
        if (mtb_prom_set_dir(val, &e) != 0)
            mtb_err_exit(&e);
        break;
    }
    case O_CORES: o->cores = check_cores(val); break;
    case O_SERVER_HOST: o->server_host = val; break;
    case O_CLIENT_HOSTS: o->client_hosts = val; break;
    case O_SERVER_ADDR: o->server_address = val; break;
    case O_EXTERNAL: o->external_load = val; break;
    case MTB_OPT_SSH: {
        struct mtb_err e = { 0 };
        if (mtb_ssh_option(name, val, &e) < 0)
            mtb_err_exit(&e);
        break;
    }
    case O_HELP:
        printf("usage: mtebench %s [options]\n", cmd);
        mtb_cli_help(stdout, cmd, own);
        exit(0);
    default: {
        char why[MTB_ERRLEN];
        if (mtb_workload_set_parse(&o->wset, name, val, why, sizeof why) != 0)
            mtb_die(2, "%s", why);
    }
    }
}

void mtb_cli_parse_own(int argc, char **argv, struct mtb_opts *o, const char *cmd, const struct mtb_cli_own *mine)
{
    const struct mtb_opt *own = mine ? mine->opts : NULL;
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->reps = MTB_REPS_AUTO;
    o->precision = 0.02;
    o->max_time = 900;
    o->max_reps = 100;
    o->kernel = "host";
    const struct mtb_opt *const with_own[] = { own, mtb_cli_opts, mtb_ssh_opts, NULL };
    struct mtb_optp p;
    mtb_opt_init(&p, argc, argv, cmd, 0);
    int c;
    while ((c = mtb_opt_next(&p, own ? with_own : cli_tabs)) > 0) {
        if (mtb_opt_in(own, p.opt))
            mine->take(mine->ctx, c, p.val);
        else
            take(o, cmd, c, p.name, p.val, own);
    }
    if (c == MTB_OPT_ERR) {
        char err[sizeof p.err];
        snprintf(err, sizeof err, "%s", p.err);
        mtb_opt_free(&p);
        mtb_die(2, "%s: %s", cmd, err);
    }
    if (p.npos) {
        char *arg = p.pos[0];
        mtb_opt_free(&p);
        mtb_die(2, "%s: unexpected argument '%s' (options start with --)", cmd, arg);
    }
    mtb_opt_free(&p);
}

void mtb_cli_resolve(struct mtb_opts *o)
{
    struct mtb_err e = { 0 };
    if (mtb_opts_resolve(o, &e) != 0)
        mtb_err_exit(&e);
}

int mtb_cli_pass_on(struct mtb_optp *p, const char *cmd, struct mtb_argv *out)
{
    const struct mtb_opt *r = mtb_opt_find(cli_tabs, p->name, cmd);
    if (!r) {
        const struct mtb_opt *other = mtb_opt_find(cli_tabs, p->name, NULL);
        snprintf(p->err, sizeof p->err, other ? "--%s is not an option of %s" : "unknown option '--%s' (see mtebench %s --help)",
                 p->name, cmd);
        return -1;
    }
    const char *v = NULL;
    if (r->meta && !(v = mtb_opt_take(p))) {
        snprintf(p->err, sizeof p->err, "option '--%s' needs a value (%s)", p->name, r->meta);
        return -1;
    }
    if (!r->meta && p->val) {
        snprintf(p->err, sizeof p->err, "option '--%s' takes no value (given '%s')", p->name, p->val);
        return -1;
    }
    mtb_argv_pushf(out, "--%s", p->name);
    if (v)
        mtb_argv_push(out, v);
    return 0;
}

void mtb_cli_parse(int argc, char **argv, struct mtb_opts *o, const char *cmd)
{
    mtb_cli_parse_own(argc, argv, o, cmd, NULL);
}

const char *mtb_cli_target(const struct mtb_opts *o) { return o->target ? o->target : o->p->target(); }

char *mtb_cli_results_dir(const char *what)
{
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    return mtb_asprintf("%s/%s-%s", mtb_results_dir(), ts, what);
}

void mtb_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mtb_vwarn(fmt, ap);
    va_end(ap);
    exit(code);
}
