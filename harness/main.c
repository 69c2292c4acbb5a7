/* mtebench - measure what ARM MTE costs real server workloads.
 * A table of subcommands; each lives in its own module. */
#include "version.h"
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "compare.h"
#include "detect.h"
#include "doctor.h"
#include "nightly.h"
#include "kernel.h"
#include "proc.h"
#include "report.h"
#include "transport_ssh.h"
#include "clients.h"

struct mtb_cmd {
    const char *name;
    const char *summary;
    int (*fn)(int argc, char **argv);
};

static int cmd_help(int argc, char **argv);

static const struct mtb_cmd cmds[] = {
    { "bench", "baseline (plain/off) vs tagged/MODE, interleaved; table + summary", mtb_cmd_bench },
    { "plan", "run a plan file (a matrix of runs, e.g. configs/paper.conf)", mtb_cmd_plan },
    { "nightly", "run the nightly plan, keep its history, find regressions, write the dashboard", mtb_cmd_nightly },
    { "report", "statistics, plots and HTML/Markdown/CSV/JSON from run records", mtb_cmd_report },
    { "compare-kernels", "the same workload and mode on two kernels (PLATFORM=vm), interleaved; kernel table",
      mtb_cmd_compare_kernels },
    { "run", "one run of one variant and mode; writes its record", mtb_cmd_run },
    { "build", "build a service's variants into the build cache", mtb_cmd_build },
    { "proof", "run the MTE mode probe on a platform and print the proof", mtb_cmd_proof },
    { "kernel", "build and list named arm64 kernels for PLATFORM=vm (stock, tcma1)", mtb_cmd_kernel },
    { "detect", "a service's bug catalogue as trials: caught sync/async/otherwise, silent, not reached; the matrix",
      mtb_cmd_detect },
    { "detect-sweep", "the synthetic detection sweep: granule and tag-collision arithmetic vs measured catch rates",
      mtb_cmd_detect_sweep },
    { "list", "services, variants, modes, platforms, kernels", mtb_cmd_list },
    { "doctor", "what this machine can measure, and why not; which machine profile suits it", mtb_cmd_doctor },
    { "hosts", "remote hosts over ssh: identity, clock offset, the agent put there; --exec runs mtebench there",
      mtb_cmd_hosts },
    { "load", "drive a server from several client hosts at once (ssh); histograms merged by adding", mtb_cmd_load },
    { "client-load", "(on a client host) wait for a start instant, run mtload, report", mtb_cmd_client_load },
    { "quiet", "is the machine quiet enough to measure on (governor, boost, SMT, busy CPUs, swap, THP)", mtb_cmd_quiet },
    { "help", "this text", cmd_help },
    { NULL, NULL, NULL },
};

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("usage: mtebench COMMAND [options]   (version %s)\n\ncommands:\n", MTEBENCH_VERSION);
    for (const struct mtb_cmd *c = cmds; c->name; c++)
        printf("  %-16s %s\n", c->name, c->summary);
    printf("\n`mtebench COMMAND --help` lists a command's options.\n");
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
    for (const struct mtb_cmd *c = cmds; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->fn(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return cmd_help(0, NULL);
    if (!strcmp(argv[1], "--version")) {
        printf("mtebench %s\n", MTEBENCH_VERSION);
        return 0;
    }
    fprintf(stderr, "mtebench: unknown command '%s' (accepted:", argv[1]);
    for (const struct mtb_cmd *c = cmds; c->name; c++)
        fprintf(stderr, " %s", c->name);
    fprintf(stderr, ")\n");
    return 2;
}
