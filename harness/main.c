/* mtebench - measure what ARM MTE costs real server workloads.
 * A table of subcommands; each lives in its own module. */
#include "common/version.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/proc.h"

/* The subcommands: the one list of them. help, `mtebench help COMMAND`,
 * the unknown-command message and `COMMAND --help` of a command without
 * options of its own are generated from it. A new subcommand: its front in
 * a file of cmd/ (declared in cmd/commands.h, its options a table of
 * lib/opttab.h), one row here, and a line in README.md's or docs' command
 * list. */
struct mtb_cmd {
    const char *name;
    const char *summary;
    const char *usage;   /* after "mtebench NAME ": the synopsis */
    int own_help;        /* the command answers --help itself (its options) */
    int (*fn)(int argc, char **argv);
};

static int cmd_help(int argc, char **argv);

static const struct mtb_cmd cmds[] = {
    { "bench", "baseline (plain/off) vs tagged/MODE, interleaved; table + summary",
      "--service NAME --mode MODE [options]", 1, mtb_cmd_bench },
    { "capacity", "the load each configuration carries within a tail-latency SLO, and the capacity overhead",
      "--service NAME --mode MODE --slo p99:1ms [--loads 10%,...] [options]", 1, mtb_cmd_capacity },
    { "plan", "run a plan file (a matrix of runs, e.g. configs/paper.conf)", "FILE [bench options] [--dry-run]", 0,
      mtb_cmd_plan },
    { "nightly", "run the nightly plan, keep its history, find regressions, write the dashboard",
      "[--plan FILE] [--history WHERE] [--out DIR] [--ingest DIR...] [options]", 1, mtb_cmd_nightly },
    { "report", "statistics, plots and HTML/Markdown/CSV/JSON from run records",
      "[--name NAME] [--out DIR] RESULTS_DIR...", 1, mtb_cmd_report },
    { "compare-kernels", "the same workload and mode on two kernels (PLATFORM=vm), interleaved; kernel table",
      "--service NAME --mode MODE [--kernels A,B] [--baseline] [options]", 1, mtb_cmd_compare_kernels },
    { "bisect", "the commit of a service's patch history that changed a metric (Pinpoint's rule, interleaved runs)",
      "--good REF --bad REF --service NAME [run options] [options]", 1, mtb_cmd_bisect },
    { "run", "one run of one variant and mode; writes its record", "--service NAME --variant V --mode M [options]", 1,
      mtb_cmd_run },
    { "build", "build a service's variants into the build cache", "--service NAME [--variant V] [options]", 1,
      mtb_cmd_build },
    { "proof", "run the MTE mode probe on a platform and print the proof", "--mode M [--platform P] [options]", 1,
      mtb_cmd_proof },
    { "kernel", "build and list named arm64 kernels for PLATFORM=vm (stock, tcma1)",
      "build NAME... [--source V] [--force] | info NAME | list", 1, mtb_cmd_kernel },
    { "detect", "a service's bug catalogue as trials: caught sync/async/otherwise, silent, not reached; the matrix",
      "--service NAME [--bugs ID,...] [--configs V/M,...] [--trials N] [--cost DIR] [options]", 1, mtb_cmd_detect },
    { "explain", "the report of a tag-check fault: cause, object, stacks, memory tags (a run's or detect's directory, a fault file)",
      "[--json] PATH...", 1, mtb_cmd_explain },
    { "detect-sweep", "the synthetic detection sweep: granule and tag-collision arithmetic vs measured catch rates",
      "[--platform P] [--modes M,...] [--trials N] [--results DIR] [--json]", 1, mtb_cmd_detect_sweep },
    { "list", "services, variants, modes, platforms, kernels", "", 0, mtb_cmd_list },
    { "doctor", "what this machine can measure, and why not; which machine profile suits it", "[--json]", 0,
      mtb_cmd_doctor },
    { "hosts", "remote hosts over ssh: identity, clock offset, the agent put there; --exec runs mtebench there",
      "[ssh options] HOST... | --exec DIR HOST -- COMMAND", 1, mtb_cmd_hosts },
    { "load", "drive a server from several client hosts at once (ssh); histograms merged by adding",
      "--client-hosts H1,H2 --server HOST:PORT --out DIR [options]", 1, mtb_cmd_load },
    { "client-load", "(on a client host) wait for a start instant, run mtload, report",
      "--start-at=EPOCH --out=DIR -- MTLOAD-ARGS", 0, mtb_cmd_client_load },
    { "hlog-merge", "merge HdrHistogram interval logs of several hosts bucket by bucket", "OUT.hlog IN.hlog...", 1,
      mtb_cmd_hlog_merge },
    { "quiet", "is the machine quiet enough to measure on (governor, boost, SMT, busy CPUs, swap, THP)", "[options]",
      1, mtb_cmd_quiet },
    { "help", "this text, or one command's usage", "[COMMAND]", 0, cmd_help },
    { NULL, NULL, NULL, 0, NULL },
};

static const struct mtb_cmd *cmd_find(const char *name)
{
    for (const struct mtb_cmd *c = cmds; c->name; c++)
        if (!strcmp(name, c->name))
            return c;
    return NULL;
}

static void cmd_usage(const struct mtb_cmd *c, FILE *f)
{
    fprintf(f, "usage: mtebench %s%s%s\n  %s\n", c->name, *c->usage ? " " : "", c->usage, c->summary);
    if (c->own_help)
        fprintf(f, "`mtebench %s --help` lists its options.\n", c->name);
}

static int cmd_help(int argc, char **argv)
{
    if (argc > 1) {
        const struct mtb_cmd *c = cmd_find(argv[1]);
        if (!c) {
            fprintf(stderr, "mtebench help: unknown command '%s'; `mtebench help` lists them\n", argv[1]);
            return 2;
        }
        cmd_usage(c, stdout);
        return 0;
    }
    printf("usage: mtebench COMMAND [options]   (version %s)\n\ncommands:\n", MTEBENCH_VERSION);
    for (const struct mtb_cmd *c = cmds; c->name; c++)
        printf("  %-16s %s\n", c->name, c->summary);
    printf("\n`mtebench help COMMAND` shows a command's usage, `mtebench COMMAND --help` its options.\n");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* started from make (make test, make bench): the service builds run
     * their own make, which must not see ours. PostgreSQL's makefiles skip
     * generating headers when MAKELEVEL says they are a sub-make, and a
     * jobserver in MAKEFLAGS names descriptors we do not pass on */
    static const char *const makevars[] = { "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", NULL };
    for (const char *const *v = makevars; *v; v++)
        unsetenv(*v);
    /* the mode sets glibc.mem.tagging wherever a run needs it (the service,
     * its setup, the probe); one inherited from the user's shell would reach
     * builds, drivers and, under emu, qemu-aarch64's own environment, where on
     * an arm64 MTE host Debian's static-pie qemu-user crashes at start-up */
    const char *tun = getenv("GLIBC_TUNABLES");
    if (tun && *tun)
        fprintf(stderr, "mtebench: GLIBC_TUNABLES=%s from the environment is ignored "
                        "(the mode sets glibc.mem.tagging for each run)\n", tun);
    unsetenv("GLIBC_TUNABLES");
    if (argc < 2)
        return cmd_help(0, NULL), 2;
    mtb_proc_init();
    const struct mtb_cmd *c = cmd_find(argv[1]);
    if (c && !c->own_help && argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
        cmd_usage(c, stdout);
        return 0;
    }
    if (c)
        return c->fn(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return cmd_help(0, NULL);
    if (!strcmp(argv[1], "--version")) {
        printf("mtebench %s\n", MTEBENCH_VERSION);
        return 0;
    }
    fprintf(stderr, "mtebench: unknown command '%s' (accepted:", argv[1]);
    for (c = cmds; c->name; c++)
        fprintf(stderr, " %s", c->name);
    fprintf(stderr, "); `mtebench help` says what each does\n");
    return 2;
}
