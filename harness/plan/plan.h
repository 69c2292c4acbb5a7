/* plan.h - a plan: a matrix of runs. Entries (service, workload, modes) each
 * expand to a baseline cell (plain, off) and a tagged cell per mode; the
 * runner interleaves all cells over the repetitions, alternating the order
 * (AB BA AB ...), ensures every build first, and returns the records.
 * `make bench` is the plan of one service and one mode; files under configs/ hold
 * larger ones (INI: a [plan] section and one section per entry). */
#ifndef MTB_PLAN_H
#define MTB_PLAN_H
#include <jansson.h>
#include <stdio.h>
#include "core/build.h"
#include "plan/opts.h"
#include "run/run.h"
#include "analysis/seqstop.h"
#include "analysis/capacity.h"
#include "plan/runlen.h"

struct mtb_plan_cell {
    const char *entry;                /* the plan section it came from */
    const struct mtb_recipe *recipe;
    struct mtb_workload wl;
    const char *variant;
    const struct mtb_mode *mode;
    const struct mtb_allocator *allocator; /* the allocator serving malloc (allocator.h; never NULL) */
    const char *kernel;               /* NULL: the plan's; else this cell's (compare-kernels' axis) */
    struct mtb_build build;
};

/* An entry that asks for the capacity at an SLO (its `slo` key): run as a
 * capacity search (cmd/capacity_cli.c, docs/CAPACITY.md), not in the
 * matrix; its configurations are the baseline (baseline_variant, default
 * plain, mode off) and each variant in each of its modes. */
struct mtb_plan_capacity {
    const char *entry;
    struct mtb_opts o;                /* the entry's options, resolved: recipe, workload (arrival poisson unless
                                       * given), slo, confidence, loads, baseline_variant, variant */
    const struct mtb_mode *modes[8];  /* the measured modes (off only for a variant other than the baseline's) */
    size_t nmodes;
};

struct mtb_plan {
    char *name;
    long reps;                        /* MTB_REPS_AUTO or a count */
    double precision, max_time;       /* REPS=auto */
    long max_reps;
    struct mtb_seq seq;               /* REPS=auto: the planned looks */
    struct mtb_seq_outcome seq_out;   /* ... and where the rule stopped */
    long reps_done;                   /* repetitions run */
    const struct mtb_platform *platform;
    const char *kernel;
    const struct mtb_machine *machine;
    const char *cores;                /* CORES / [plan] cores: sweep these core counts */
    const struct mtb_allocator *allocs[MTB_MAX_ALLOCATORS]; /* ALLOCATOR / [plan] allocators: each entry's
                                       * cells, its baseline included, once per allocator */
    size_t nallocs;
    int strict;                       /* refuse a machine that is not quiet */
    struct mtb_plan_cell *cells;
    size_t ncells;
    struct mtb_plan_skip {            /* a mode the platform lacks, by plan entry */
        char *entry, *why;
        const char *mode;
    } *skipped;
    size_t nskipped;
    struct mtb_plan_failure {         /* mtb_plan_run: the runs not ok */
        char *record, *status, *error;
    } *failed;
    size_t nfailed;
    int resume;                       /* --resume: keep the ok records found, redo the rest */
    int adapt_runlen;                 /* REPS=auto, DURATION not given: the run length is chosen after the
                                       * pilot pairs (runlen.c) */
    json_t *runlen;                   /* ... the choice (mtb_runlen_json), or NULL */
    struct mtb_runlen runlen_choice;  /* ... the same, as chosen */
    int tag_rate;                     /* run directories name the offered rate ("-r2500"): a search's probes */
    struct mtb_plan_capacity *caps;   /* the entries with an SLO (mtb_plan_load), run after the matrix */
    size_t ncaps;
    struct mtb_plan_file *file;       /* mtb_plan_load: the file's keys and values, which the cells and the
                                       * options it filled point into (freed by mtb_plan_free) */
    /* called once the results directory is the plan's (checked, claimed,
     * plan.json written) and the machine checked, before the first run:
     * bench's counted pair (cmd/bench_work.c); NULL: nothing */
    void (*before_runs)(const char *dir, void *arg);
    void *before_arg;
    int count;                        /* [plan] count: MTB_PLAN_COUNT_* (plan_work.c) */
    json_t *work, *work_files;        /* the counted runs' records and their paths (DIR/work/), or NULL */
};
/* [plan] count = no (default) | yes: each configuration's work counted once
 * on vm before the timed runs | only: counted, no timed runs (a nightly on
 * counts alone: docs/COUNTING.md) */
enum { MTB_PLAN_COUNT_NO, MTB_PLAN_COUNT_YES, MTB_PLAN_COUNT_ONLY };

/* A capacity search's options (resolved): the SLO parsed into slo, LOADS,
 * REPS (runs at a new rate), the service's offered rate checked; arrivals
 * Poisson unless given, MAX_TIME 4 h and CONFIDENCE 95% unless given.
 * @return 0, or -1 with why (plan_capacity.c) */
int mtb_plan_capacity_check(struct mtb_opts *o, struct mtb_slo *slo, char *why, size_t n);

/* Start an empty plan for the resolved options (platform, kernel, reps). */
void mtb_plan_init(struct mtb_plan *p, const char *name, const struct mtb_opts *o);
/* An entry of a plan: its cells' service, workload, modes and measured
 * variants (NULL: "tagged"). */
struct mtb_plan_entry {
    const char *name;
    const struct mtb_recipe *recipe;
    const struct mtb_workload *wl;
    const struct mtb_mode *const *modes;
    size_t nmodes;
    const char *const *variants;
    size_t nvariants;
};
/* Add an entry: its baseline (plain/off) and one cell per measured variant
 * and mode (modes missing on the platform are listed in p->skipped, not
 * fatal), for each allocator of the plan, at each point of the core sweep
 * (CORES, else the profile's cores or core_types) if any.
 * @return 0, or -1 with e (CORES that the profile cannot sweep) */
int mtb_plan_add(struct mtb_plan *p, const struct mtb_plan_entry *entry, struct mtb_err *e);
/* Split a comma list of variants of r ("tagged,objtag") into out (at most
 * max); 0 and a message naming the accepted ones in err when one is unknown. */
size_t mtb_plan_variants(const struct mtb_recipe *r, const char *list, const char **out, size_t max, char *err,
                         size_t errlen);
/* Add one cell (a kernel axis: compare-kernels). */
struct mtb_plan_cell *mtb_plan_add_cell(struct mtb_plan *p, const char *entry, const struct mtb_recipe *r,
                                        const struct mtb_workload *wl, const char *variant,
                                        const struct mtb_mode *mode, const char *kernel);
/* The kernel a cell runs on. */
const char *mtb_plan_cell_kernel(const struct mtb_plan *p, const struct mtb_plan_cell *c);
/* --dry-run: the configurations and the number of runs; runs nothing. */
void mtb_plan_print(const struct mtb_plan *p, FILE *f);
/* Load a plan file; command-line options override its [plan] values.
 * @return 0, or -1 with e naming the file and line of the bad input. From
 * its first step p owns all that the load allocates, so that
 * mtb_plan_free releases a plan whose load stopped. o's strings from the
 * file point into p. */
int mtb_plan_load(struct mtb_plan *p, const char *path, struct mtb_opts *o, struct mtb_err *e);
/* Free what p holds (cells, lists, a loaded file, the cells' builds);
 * p is then empty. The options mtb_plan_load filled point into it. */
void mtb_plan_free(struct mtb_plan *p);
/* Build everything (and, on vm, ensure every kernel), write plan.json,
 * check the machine is quiet and take provenance, run all cells REPS times interleaved into dir, showing
 * progress. @return the records (array); *failures counts runs not ok;
 * files (if not NULL) receives the path of each record, parallel. NULL
 * with e set: the plan could not start (a build, the directory refused,
 * --strict on a machine not quiet) or had to stop (--resume could not move
 * an earlier attempt aside); a run that fails is in its record, not here. */
json_t *mtb_plan_run(struct mtb_plan *p, const char *dir, int force, int *failures, json_t *files,
                     struct mtb_err *e);
/* A plan run one cell at a time, as a search chooses (capacity):
 * mtb_plan_begin does what mtb_plan_run does before its first run (builds,
 * the directory claimed, plan.json, provenance); mtb_plan_step runs one cell
 * (its workload as the caller set it) as repetition rep, showing what and
 * the time left, and returns the record (the session keeps a reference;
 * files receives its path; NULL once the session has stopped on an error);
 * mtb_plan_end returns every record and the number not ok, sets e if the
 * session stopped (as mtb_plan_run's), and frees the session.
 * mtb_plan_begin: NULL with e set as mtb_plan_run's. */
struct mtb_plan_session;
struct mtb_plan_session *mtb_plan_begin(struct mtb_plan *p, const char *dir, int force, json_t *files,
                                        struct mtb_err *e);
json_t *mtb_plan_step(struct mtb_plan_session *s, size_t cell, long rep, const char *what, double left_s);
/* 1 once the session has stopped on an error (no step runs; mtb_plan_end says why) */
int mtb_plan_stopped(const struct mtb_plan_session *s);
json_t *mtb_plan_end(struct mtb_plan_session *s, int *failures, struct mtb_err *e);
/* Print, to stderr, what a plan file is about to run: "WHO: plan NAME: N
 * configurations x R reps and C capacity searches on PLATFORM (emulated:
 * not hardware timing), results in DIR", and its counting (plan and
 * nightly alike). */
void mtb_plan_banner(const char *who, const struct mtb_plan *p, const char *dir);
/* Print "WHO: N of TOTAL runs did not finish cleanly (exit 1):" and each
 * failed record with its status and error, to stderr. Nothing if none. */
void mtb_plan_print_failed(const char *who, const struct mtb_plan *p, int total);
/* A plan file's keys and values (mtb_plan_load's), freed; NULL: nothing. */
void mtb_plan_file_free(struct mtb_plan_file *l);
#endif
