/* detect_rows.h - a detection matrix (detect.json, schema
 * mtebench-detect-matrix/1, as detect/detect_report.c makes it) read once
 * into typed rows: its headline per configuration (with the groupings by
 * class and by where the object lives, the bugs it explains and its cost),
 * its cells (bug x configuration, with a real kernel's answer beside a
 * cell tried again on vm), its classes, the catalogue's make-up and each
 * caught trial's fault report. The matrix's pages (text, Markdown, HTML)
 * read these fields, never the matrix by key.
 *
 * A key a matrix lacks reads as what its pages always showed for it: a
 * string "", a number or count 0, a flag 0 (a matrix of an earlier version
 * shows what it has; has_rate, has_explained and cost_measured say whether
 * those figures are there). Rows keep the matrix's order; the make-up's
 * classes (an object, its keys sorted in detect.json) the order of the
 * classes' rows, as the matrix met them. The strings are the matrix's own:
 * valid while it is.
 *
 *   struct mtb_det_rows r;
 *   mtb_det_rows_read(mx, &r);
 *   for (size_t i = 0; i < r.nhead; i++) ... r.head[i].config, r.head[i].caught ...
 *   mtb_det_rows_free(&r);
 */
#ifndef MTB_DETECT_ROWS_H
#define MTB_DETECT_ROWS_H
#include <jansson.h>
#include <stddef.h>

#define MTB_DET_SCHEMA "mtebench-detect-matrix/1"

/* A trial's outcomes, in the order the pages list them. */
#define MTB_DET_OUTCOMES(X)                                                                                     \
    X(caught_sync) X(caught_async) X(caught_kernel) X(caught_other) X(silent) X(not_triggered) X(not_reached) \
    X(error)
enum mtb_det_outcome {
#define X(o) MTB_DET_##o,
    MTB_DET_OUTCOMES(X)
#undef X
    MTB_DET_NOUTCOMES
};
/* "caught_sync", ... */
extern const char *const mtb_det_outcome_names[MTB_DET_NOUTCOMES];

/* A cell's, a class's or a kernel check's trials and catch rate. */
struct mtb_det_rate {
    long long counts[MTB_DET_NOUTCOMES];
    long long valid, caught_mte; /* caught + silent; caught by a tag check (sync, async, kernel) */
    int has_rate;                /* "rate" a number (no valid trial: null) */
    double rate, lo, hi;         /* with its Wilson 95% interval */
};

/* "cells": a bug in a configuration; "classes": a class in one (bug and memory "") */
struct mtb_det_cell {
    const char *bug, *cls, *memory, *variant, *mode;
    struct mtb_det_rate r;
    int unchecked;               /* kernel_access_unchecked: a system call's access under qemu-user */
    int has_kcheck;              /* tried again where a real kernel checks (kernel_check) */
    const char *kcheck_platform;
    struct mtb_det_rate kcheck;
};

/* a headline grouping's row (by_class: name is the class; by_memory: where the object lives) */
struct mtb_det_group {
    const char *name;
    long long caught, tested;
};

/* "headline": one configuration */
struct mtb_det_head {
    json_t *j;                   /* the row (borrowed): where a writer adds to it */
    const char *config;          /* "tagged/sync" */
    long long caught, tested;    /* bugs caught by a tag check in most trials, of the bugs tried */
    double fraction, lo, hi;
    struct mtb_det_group *by_class, *by_memory;
    size_t nby_class, nby_memory;
    int has_explained;           /* matrices before "Every catch explained" have none */
    long long explained;         /* bugs explained (cause and object) in most trials */
    double ex_fraction, ex_lo, ex_hi;
    /* "cost": the bench's overhead of the configuration (detect --cost) */
    int cost_baseline;           /* plain/off: 1 */
    int cost_measured;           /* an interval is there */
    double slowdown, cost_lo, cost_hi;
};

/* "reports": a caught trial's fault report */
struct mtb_det_report {
    const char *bug, *config, *headline, *text, *why;
    long long trial;
    int explained;               /* explained.ok */
};

/* "makeup": the catalogue's bugs by class */
struct mtb_det_makeup {
    const char *cls;
    long long bugs;
};

/* "mix": the bugs tried beside ARVO's crash mix, a row per kind */
struct mtb_det_mix {
    const char *kind;
    long long catalogue;         /* the catalogue's bugs of the kind */
    double catalogue_share;
    int has_arvo;                /* ARVO gives a count of the kind */
    long long arvo;
    double arvo_share;
};

struct mtb_det_rows {
    const char *schema, *service, *platform, *headline_counts; /* headline_counts: "real bugs" or "entries" */
    int emulated;
    struct mtb_det_head *head;
    struct mtb_det_cell *cells, *classes;
    struct mtb_det_report *reports;
    struct mtb_det_makeup *makeup;
    struct mtb_det_mix *mix;
    size_t nhead, ncells, nclasses, nreports, nmakeup, nmix;
};

/* One trial as detect/detect.c keeps it (a trial's detect.json) and the
 * matrix reads it. The JSON values handed on as they are stay the trial's. */
struct mtb_det_trial {
    const char *bug, *variant, *mode, *outcome;
    const char *cls, *memory;      /* the manifest's class; where the object lives ("memory"; before it "allocator") */
    const char *access_in, *bug_switch, *port; /* the manifest's ("" when it has none) */
    int plant;                     /* the manifest has a plant: a synthetic entry */
    const char *platform;          /* the platform's name (its record's object, or a string), or NULL */
    int kernel_check;              /* the cell tried again where a real kernel checks (--kernel-check) */
    int explained;                 /* its fault report explains the bug (explained.ok) */
    int has_report;                /* its fault has a report (fault.report) */
    const char *report_headline;
    json_t *manifest, *fault, *number, *explained_j; /* the matrix's bugs and reports copy these */
};
void mtb_det_trial_read(json_t *t, struct mtb_det_trial *r);

/* A detection sweep (detect-sweep's sweep.json, detect/detect_sweep.c's):
 * per mode its cells, each a catch rate against the granule and tag
 * arithmetic's prediction, and the verdict. Strings the document lacks are
 * NULL here (the printed text says "(null)" as it did). */
struct mtb_sweep_cell {
    const char *cell;            /* "overflow n=16 k=1", "uaf", ... */
    int deterministic, agree95;
    int tags_known, tags_exact;  /* tags_exact given (a sweep under Scudo), and its value */
    long long caught, trials, same_tag, fresh_same_tag;
    double rate, lo, hi, predicted, predicted_other_model;
};
struct mtb_sweep_mode {
    const char *mode, *prctl_ctrl, *tag_steps;
    struct mtb_sweep_cell *cells;
    size_t ncells;
};
struct mtb_sweep_rows {
    const char *platform, *allocator, *tag_model;
    struct mtb_sweep_mode *modes;
    size_t nmodes;
    int pass;                    /* the verdict */
    long long cells, agree95, agree999, deterministic_exact, deterministic, si_codes_wrong, tags_wrong;
};
void mtb_sweep_rows_read(json_t *doc, struct mtb_sweep_rows *r);
void mtb_sweep_rows_free(struct mtb_sweep_rows *r);

/* The matrix file of path: DIR/detect.json for a directory, else path
 * itself (a new string). */
char *mtb_det_path(const char *path);

/* Read mx into r (r zeroed first). A schema other than MTB_DET_SCHEMA
 * reads too (r->schema tells); NULL reads as an empty matrix. */
void mtb_det_rows_read(json_t *mx, struct mtb_det_rows *r);
void mtb_det_rows_free(struct mtb_det_rows *r);
/* The cell of bug in configuration "variant/mode", or NULL. */
const struct mtb_det_cell *mtb_det_cell_of(const struct mtb_det_rows *r, const char *bug, const char *config);
#endif
