/* catalogue.h - the bug catalogue's entries read and checked (catalogue.c;
 * docs/DETECTION.md "The catalogue"). */
#ifndef MTB_DETECT_CATALOGUE_H
#define MTB_DETECT_CATALOGUE_H
#include "core/detect_rows.h"

#include <jansson.h>
#include <stdio.h>

/* A manifest's keys (manifest.ini, docs/DETECTION.md): X(field, key,
 * required). A key not in the list is refused by name; each of these is a
 * field of struct mtb_bug, NULL when the manifest does not give it. */
#define MTB_BUG_KEYS(X)                                                                                            \
    X(id, "id", 1) X(cve, "cve", 0) X(summary, "summary", 0) X(fix, "fix", 1) X(function, "function", 1)         \
    X(cls, "class", 1) X(memory, "memory", 1) X(access, "access", 1) X(port, "port", 1) X(pov, "pov", 1)           \
    X(access_in, "access_in", 1) X(caught_by, "caught_by", 1) X(missed_by, "missed_by", 1)                       \
    X(fix_commit, "fix_commit", 0) X(fix_files, "fix_files", 0) X(control_expect, "control_expect", 0)           \
    X(log, "log", 0) X(keys, "keys", 0) X(duration, "duration", 0) X(bug_switch, "switch", 0)                    \
    X(builds, "builds", 0) X(reach, "reach", 0) X(plant, "plant", 0) X(benchmark, "benchmark", 0)                \
    X(db_bench_args, "db_bench_args", 0)

/* A bug's manifest: each key's value (its own copy), or NULL. */
struct mtb_bug {
#define X(field, key, need) char *field;
    MTB_BUG_KEYS(X)
#undef X
};

/* A manifest.ini read, with every key it must have (and fix_files when its
 * fix_commit begins with a commit hash), no key it does not know, and each
 * word from its list (class, memory, access, port, pov, access_in,
 * control_expect). @return 0, or -1 with why (b then holds what was read). */
int mtb_bug_load(const char *path, struct mtb_bug *b, char *why, size_t n);
/* A manifest as a trial's detect.json carries it (an object of strings),
 * and back; keys it does not know are left out. */
json_t *mtb_bug_json(const struct mtb_bug *b);
void mtb_bug_from_json(json_t *m, struct mtb_bug *b);
void mtb_bug_free(struct mtb_bug *b);

/* A finding of the catalogue's check. */
struct mtb_cat_finding {
    const char *kind;            /* "manifest", "trigger", "switch", "control", "fix_commit", "fix_files" */
    char *what;
};
/* One entry of a catalogue, checked. */
struct mtb_cat_entry {
    char *service, *id;
    struct mtb_bug m;            /* what its manifest gave (a refused one too) */
    int control;                 /* a fixed-build control: a plant, or bugs.patch's 'refused' and control_expect */
    int fix_commit_found, fix_files_touched; /* in the history given (--history) */
    long long trigger_bytes;     /* the bytes its trigger.hex sends (-1: none read) */
    const char *trigger_benchmark; /* an embedded service's: the benchmark that reaches it (m's), or NULL */
    struct mtb_cat_finding *findings;
    size_t nfindings;
};
struct mtb_catalogue {
    struct mtb_cat_entry *v;
    size_t n;
};
/* Every entry of service's catalogue (NULL: every service's): a manifest
 * that mtb_bug_load refuses, no trigger, no switch in bugs.patch, no
 * fixed-build control, a fix_commit not in history (a git directory, a
 * fetched upstream history; NULL: not looked up), or there but changing none
 * of a file of its manifest's fix_files (a wrong citation; `fix_files`),
 * each a finding. */
void mtb_catalogue_check(const char *service, const char *history, struct mtb_catalogue *c);
void mtb_catalogue_free(struct mtb_catalogue *c);
/* The findings of every entry. */
size_t mtb_catalogue_findings(const struct mtb_catalogue *c);
/* The entries as JSON ({service, id, manifest, control, findings: [{kind,
 * what}], ...}), and as a table with their findings and a count. */
json_t *mtb_catalogue_json(const struct mtb_catalogue *c);
void mtb_catalogue_print(FILE *f, const struct mtb_catalogue *c);
/* The catalogue's make-up beside ARVO's crash mix: of n bugs (ids[i]'s
 * manifest bugs[i]; plants and second triggers left out), a row per kind
 * into rows[MTB_MIX_KINDS]: heap overflows (read, write), uninitialised
 * reads, use-after-frees (with ARVO's counts), stack and double free (no
 * ARVO count). The rows as JSON (the matrix's "mix"), and printed as text or
 * Markdown (md). */
#define MTB_MIX_KINDS 6
void mtb_catalogue_mix(const char *const *ids, const struct mtb_bug *bugs, size_t n, struct mtb_det_mix *rows);
json_t *mtb_catalogue_mix_json(const struct mtb_det_mix *rows, size_t n);
void mtb_catalogue_mix_print(FILE *f, const struct mtb_det_mix *rows, size_t n, int md);
#endif
