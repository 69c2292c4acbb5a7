/* detect.h - what MTE buys: detection of memory-safety bugs.
 * `mtebench detect-sweep` (detect_sweep.c): the synthetic sweep of granule
 * and tag-collision arithmetic; `mtebench detect` (detect.c): the bug
 * catalogue of services/<svc>/bugs/ run as trials. docs/DETECTION.md. */
#ifndef MTB_DETECT_H
#define MTB_DETECT_H
#include <jansson.h>
#include <stdio.h>
#include "core/allocator.h"
#include "core/detect_rows.h"
#include "core/machine.h"
#include "core/platform.h"
#include "core/recipe.h"
#include "core/workload.h"
#include "lib/err.h"

/* the sweep on p (host or emu) for each mode of the comma list, trials per
 * random cell; DIR/sweep.json (results NULL: results/<time>-detect-sweep);
 * the table or the JSON printed. tag_model "qemu" or "uniform" judges the
 * random cells (NULL: qemu when p is emulated). The system-call cells are
 * predicted caught by a real kernel in sync mode (host), never by
 * qemu-user (emu). @return 0 every cell agrees, 1 not */
/* allocator: NULL or "glibc" (glibc's malloc), "scudo" (preloaded: it tags
 * once the mode's tunable has made ld.so enable tagged addresses and a check
 * mode; its policy: a freed chunk retagged excluding its tag, so a use after
 * reuse is always caught) */
struct mtb_sweep_req {
    const struct mtb_platform *platform;
    const char *modes;     /* comma list */
    long trials;           /* each random cell's */
    const char *results;   /* NULL: a timestamped results directory */
    int json;              /* the JSON printed, not the table */
    const char *tag_model; /* "qemu", "uniform" */
    const char *allocator; /* "glibc" or NULL, "scudo" */
};
/* @return as mtb_detect_sweep_finish's; -1 with e set: a mode refused, the
 * Scudo library missing (before any cell runs), sweep.json not written */
int mtb_detect_sweep(const struct mtb_sweep_req *r, struct mtb_err *e);
/* a sweep's document into DIR/sweep.json (results NULL: a timestamped
 * results directory), then printed (the JSON or the text table); detect-sweep
 * on vm brings the guest's here. @return 0 when its verdict passes, else 1;
 * -1 with e set when sweep.json could not be written */
int mtb_detect_sweep_finish(json_t *doc, const char *results, int json, struct mtb_err *e);

/* What a detection asks for, resolved: the catalogue's bugs x variants x
 * modes x trials of one service on one platform of this machine. */
struct mtb_detect_req {
    const struct mtb_recipe *recipe;
    const struct mtb_platform *platform;     /* host, emu or vm */
    const char *kernel;                       /* vm: the guest's kernel (and kernel_check's) */
    const struct mtb_platform *kernel_check;  /* --kernel-check vm: a bug whose bad access is a system call's
                                               * (access_in syscall) also runs its sync cells there, where a
                                               * real kernel checks it; NULL: not */
    const char *check_kernel;                 /* kernel_check's kernel (stock by default) */
    const struct mtb_machine *machine;
    const struct mtb_allocator *allocator;    /* serving malloc in every trial (NULL: glibc's); a trial's
                                               * variant is named with it ("tagged+scudo") */
    struct mtb_workload wl_trigger, wl_plant; /* [workload detect]; the default (a plant's) */
    int has_trigger;                          /* the recipe has [workload detect] */
    const char *bugs, *variants, *modes;      /* comma lists ("all": every bug) */
    const char *configs;                      /* V/M,... or NULL: every pair */
    const char *cost;                         /* bench results dirs, or NULL */
    const char *results;                      /* NULL: results/<time>-detect-<service> */
    long trials;
    int json;
    int controls;                             /* --controls: each bug's fixed-build control instead */
};
/* Run the trials (resumable in q->results), write DIR/detect.{json,md,html}
 * and print the matrix. @return 0, or 1 when a trial did not reach its bug
 * or ended in error. With q->controls: each bug's fixed-build control
 * instead (its trigger with the bug off, the first variant's bug build,
 * mode off): DIR/controls.json; @return 1 when a control failed. -1 with
 * e set when detect could not run on: bad input (a mode, --configs, a
 * manifest, no trigger), a build or kernel that failed. */
int mtb_detect_run(const struct mtb_detect_req *q, struct mtb_err *e);
/* detect_report.c: the matrix of an array of trials (detect.json objects):
 * cells per bug x configuration, per class, the headline and the
 * catalogue's make-up (schema MTB_DET_SCHEMA); its rows (core/detect_rows.h)
 * printed as text or Markdown (md). */
json_t *mtb_detect_matrix(json_t *trials);
void mtb_detect_matrix_print(FILE *f, const struct mtb_det_rows *mx, int md);
/* The same as a self-contained HTML page (detect.html). */
void mtb_detect_matrix_html(FILE *f, const struct mtb_det_rows *mx);
/* Cost beside protection: each headline configuration's overhead (the
 * slowdown median and CI of summary.c's overheads of the same service,
 * variant, mode and platform; plain/off is 1) as its "cost". */
void mtb_detect_cost(json_t *mx, json_t *summary, const char *service, const char *platform);
#endif
