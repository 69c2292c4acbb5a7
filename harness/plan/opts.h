/* opts.h - what a bench, a plan entry or a detection asks for (service,
 * variants, mode, platform, kernel, workload, machine, hosts, REPS...), as
 * the command line (cmd/cli.c) or a plan file (plan_parse.c) gives it, and
 * what it resolves to: the recipe, the mode, the platform (placed on a
 * server host when there is one), the workload and the machine profile. */
#ifndef MTB_OPTS_H
#define MTB_OPTS_H
#include "core/allocator.h"
#include "core/machine.h"
#include "core/mode.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "core/workload.h"
#include "lib/err.h"

#define MTB_MAX_DETECT 16

struct mtb_opts {
    const char *cmd;         /* the subcommand parsed for ("build", "run", ...) */
    const char *service, *variant, *mode, *platform, *kernel, *results, *target;
    const char *workload, *machine;
    const char *allocator;   /* ALLOCATOR / --allocator: glibc (default), scudo, or a comma list (bench) */
    const char *build_dir;   /* run: a prebuilt service build (the vm guest's agent) */
    const char *bug, *bug_trigger; /* run: a detection trial's bug and trigger (detect's far run) */
    struct mtb_strmap *params;  /* run: workload params set by --param KEY=VALUE (detect's far run) */
    const char *kernels;     /* compare-kernels: "stock,tcma1" */
    int baseline;            /* compare-kernels: also plain/off */
    char *detect[MTB_MAX_DETECT]; /* compare-kernels: detection results (--detect DIR, repeatable) */
    int ndetect;
    long reps;               /* MTB_REPS_AUTO (0) or a count */
    int reps_given;          /* --reps on the command line (overrides a plan file's) */
    double precision;        /* REPS=auto: relative half-width to reach (0.02; under emulation
                              * MTB_EMU_PRECISION unless given) */
    int precision_given;     /* --precision on the command line */
    int emu_aims;            /* set by mtb_opts_resolve: the emulated default precision holds */
    double max_time;         /* REPS=auto: seconds of runs at most (900) */
    int max_time_given;      /* --max-time on the command line */
    long max_reps;           /* REPS=auto: pairs at most (100) */
    struct mtb_workload_set wset;  /* workload values given (--mix, --duration, ...) */
    int force, quiet, json, dry_run;
    int resume;                       /* --resume DIR: finish the plan in results DIR */
    int strict;              /* refuse to run on a machine that is not quiet */
    int core;                /* --core: run: keep the faulting process's core (run/core.h) */
    int fault_report;        /* --fault-report: run: the allocation record preloaded (probe/mtealloc.c) */
    int count;               /* --count: run, proof on vm: MTE's work counted (docs/COUNTING.md) */
    const char *server_host, *client_hosts, *server_address; /* override the profile's hosts */
    const char *external_load; /* run (on a server host): the load comes from client hosts; handshake files here */
    const char *cores;       /* CORES: server core counts to sweep, "1,2" (default: the profile's) */
    const char *slo, *loads, *baseline_variant; /* capacity: SLO, LOADS, the baseline's variant */
    double confidence;       /* capacity: CONFIDENCE, the intervals' level (0: 95%) */
    /* set by mtb_opts_resolve */
    struct mtb_recipe *recipe;
    const struct mtb_mode *m;
    const struct mtb_platform *p;
    struct mtb_workload wl;
    struct mtb_machine mach;
    const struct mtb_allocator *allocs[MTB_MAX_ALLOCATORS]; /* the allocators, glibc's alone by default */
    size_t nallocs;
};

/* Look up service/mode/platform/kernel, check the platform is usable and
 * the mode exists there, fill the workload. @return 0, or -1 with e (bad
 * input, named with what is accepted: MTB_ERR_INPUT). */
int mtb_opts_resolve(struct mtb_opts *o, struct mtb_err *e);
/* Under emulation REPS=auto aims at what emulation can give: its pair noise
 * (about 7% per pair ratio on the 2-core machine, docs/STATISTICS.md) puts
 * +-2% beyond MAX_TIME, so the default precision there is this. */
#define MTB_EMU_PRECISION 0.05
/* Say so on stderr when it holds (bench, plan): what is aimed at and why. */
void mtb_opts_note_emu(const struct mtb_opts *o, long reps);
/* PLATFORM=vm: build the named kernel now (cached), so runs only boot it.
 * @return 0, or -1 with e */
int mtb_opts_kernel_ensure(const struct mtb_opts *o, struct mtb_err *e);
/* A fraction written as a percent or a decimal (2% or 0.02; 1 and more is a
 * percent) into *out, when it lies in [lo, hi]. @return 0, or -1 */
int mtb_opts_fraction(const char *s, double lo, double hi, double *out);
#endif
