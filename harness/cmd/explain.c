/*
 * explain.c - `mtebench explain PATH...`: the report of a tag-check fault
 * (run/faultrep.c; docs/DETECTION.md, "Fault reports") for a user whose
 * service died of one under mtebench. PATH is a run's directory (its
 * record's fault, or its fault.txt), a detect results directory (every
 * trial that faulted, by bug and trial), a fault file itself, or a core
 * file (an AArch64 Linux core with its memory tags, run/core.h: a vm trial
 * keeps one, slimmed, as `core`; or a server's own). A run's core is read
 * beside its fault file: the kernel's tags at the address against the
 * handler's.
 */
#include "cmd/commands.h"
#include "core/record_outcome.h"
#include "lib/opttab.h"
#include "run/faultrep.h"
#include "run/core.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "core/fault_rows.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* a core file's fault, its report made from the core alone (the address
 * given: a fault file's, else the core's own siginfo); NULL with err */
static json_t *fault_of_core(const char *path, uint64_t addr, char *err, size_t n)
{
    struct mtb_core k;
    if (mtb_core_open(path, &k, err, n) != 0)
        return NULL;
    char *lines = mtb_core_fault_lines(&k, addr);
    json_t *f = lines ? mtb_fault_parse(lines) : NULL;
    if (!f)
        snprintf(err, n, "%s: no thread's registers in it (no NT_PRSTATUS note)", path);
    else {
        uint64_t a = addr ? addr : k.si_addr;
        json_t *c = json_pack("{s:s,s:i,s:i,s:i,s:b}", "file", path, "tag_segments", mtb_core_tag_segments(&k), "signal",
                              k.signo, "si_code", k.si_code, "siginfo", k.has_siginfo);
        int t = a ? mtb_core_tag(&k, a) : -1;
        if (t >= 0)
            json_object_set_new(c, "memory_tag", json_integer(t));
        json_object_set_new(f, "core", c);
    }
    free(lines);
    mtb_core_close(&k);
    return f;
}

/* is path an ELF file (a core, to be read as one)? */
static int is_elf(const char *path)
{
    FILE *f = fopen(path, "rb");
    char m[4] = { 0 };
    int yes = f && fread(m, 1, 4, f) == 4 && !memcmp(m, "\177ELF", 4);
    if (f)
        fclose(f);
    return yes;
}

/* a run's core (the kernel's, slimmed: run --core) beside its fault: the
 * kernel's tag at the fault's address against the handler's */
static void core_beside(json_t *f, const char *core)
{
    char err[MTB_ERRLEN];
    struct mtb_fault_view fv, cv;
    mtb_fault_view_read(f, &fv);
    uint64_t addr = strtoull(fv.addr, NULL, 16);
    json_t *cf = fault_of_core(core, addr, err, sizeof err);
    mtb_fault_view_read(cf, &cv); /* the core's own view of the fault: its core block */
    json_t *c = cf ? json_incref(cv.core) : json_pack("{s:s,s:s}", "file", core, "error", err);
    int theirs = fv.has_memory_tag || fv.has_report_memory_tag;
    long long tag = fv.has_memory_tag ? fv.memory_tag : fv.report_memory_tag;
    if (cv.has_core_memory_tag && theirs)
        json_object_set_new(c, "agrees", json_boolean(cv.core_memory_tag == tag));
    mtb_fault_view_free(&cv);
    mtb_fault_view_free(&fv);
    json_object_set_new(f, "core", c);
    json_decref(cf);
}

/* the fault of one run's directory: made again from its fault.txt (this
 * version's analysis, the binaries' symbols now), else its record's; with
 * its core where the run kept one */
static json_t *fault_of_run(const char *dir)
{
    char *rp = mtb_asprintf("%s/record.json", dir), *fp = mtb_asprintf("%s/fault.txt", dir);
    json_t *rec = is_file(rp) ? json_load_file(rp, 0, NULL) : NULL, *f = NULL;
    struct mtb_rec_outcome ro;
    mtb_rec_outcome_read(rec, &ro);
    json_t *rf = ro.fault;
    if (is_file(fp))
        f = mtb_fault_read(fp);
    else { /* a vm guest's run: the fault file it handed back */
        free(fp);
        fp = NULL;
        f = mtb_fault_read_guest(dir, rec, &fp);
    }
    if (!f && rf)
        f = json_incref(rf);
    if (f && fp) { /* the core beside the fault file that came with it */
        char *cp = mtb_asprintf("%.*s/core", (int)(strrchr(fp, '/') - fp), fp);
        if (is_file(cp))
            core_beside(f, cp);
        free(cp);
    }
    json_decref(rec);
    free(rp);
    free(fp);
    return f;
}

struct out {
    int json, shown;
    json_t *all; /* --json: name -> fault */
};

static void show(struct out *o, const char *name, json_t *f)
{
    o->shown++;
    if (o->json) {
        json_object_set(o->all, name, f);
        return;
    }
    char *t = mtb_fault_text(f);
    struct mtb_fault_view v;
    mtb_fault_view_read(f, &v);
    printf("%s== %s\n", o->shown > 1 ? "\n" : "", name);
    if (t)
        fputs(t, stdout);
    else
        printf("%s at %s (no report: %s)\n", v.kind, v.addr,
               !v.tag_check ? "not a tag-check fault" : "the fault file has only the fault's line");
    free(t);
    if (v.has_core && v.core_error)
        printf("core: %s\n", v.core_error);
    else if (v.has_core) {
        printf("core: %s: %lld tag segment%s (PT_AARCH64_MEMTAG_MTE)", v.core_file, v.tag_segments,
               v.tag_segments == 1 ? "" : "s");
        if (v.has_core_memory_tag)
            printf("; the memory tag at the address 0x%llx", v.core_memory_tag);
        if (v.has_agrees)
            printf(" (%s the fault handler's)", v.agrees ? "as" : "NOT as");
        if (v.no_siginfo)
            printf("; no siginfo note: the address is not known from the core");
        printf("\n");
    }
    mtb_fault_view_free(&v);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* a directory: a run's, or one holding runs (a detect results directory:
 * BUG/TRIAL/), depth at most 2 */
static void walk(struct out *o, const char *dir, const char *name, int depth)
{
    char *rp = mtb_asprintf("%s/record.json", dir), *fp = mtb_asprintf("%s/fault.txt", dir);
    int run = is_file(rp) || is_file(fp);
    free(rp);
    free(fp);
    if (run) {
        json_t *f = fault_of_run(dir);
        if (f)
            show(o, name, f);
        json_decref(f);
        return;
    }
    if (depth >= 2)
        return;
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, by_name);
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        char *sub = mtb_asprintf("%s/%s", dir, e), *sn = mtb_asprintf("%s/%s", name, e);
        if (e[0] != '.' && is_dir(sub))
            walk(o, sub, sn, depth + 1);
        free(sub);
        free(sn);
        free(ents[i]);
    }
    free(ents);
}

enum { E_JSON = 1, E_HELP };
static const struct mtb_opt opts[] = {
    MTB_OPT("json", NULL, NULL, E_JSON, NULL, "the fault objects with their reports, by name, as JSON"),
    MTB_OPT("help", NULL, NULL, E_HELP, NULL, "this text"),
    { 0 },
};
static const struct mtb_opt *const tabs[] = { opts, NULL };

static void usage(FILE *f)
{
    fprintf(f, "usage: mtebench explain [--json] PATH...\n"
               "  the report of each tag-check fault found in PATH: a run's directory, a detect\n"
               "  results directory (every trial that faulted), a fault file (fault.txt) or a core\n"
               "  file (AArch64 Linux, its memory tags read from its PT_AARCH64_MEMTAG_MTE segments)\n");
    mtb_opt_help(f, tabs, "explain");
}

int mtb_cmd_explain(int argc, char **argv)
{
    struct out o = { 0 };
    struct mtb_optp op;
    mtb_opt_init(&op, argc, argv, "explain", 0);
    int c;
    while ((c = mtb_opt_next(&op, tabs)) > 0)
        if (c == E_JSON)
            o.json = 1;
        else
            return usage(stdout), mtb_opt_free(&op), 0;
    if (c == MTB_OPT_ERR) {
        fprintf(stderr, "mtebench explain: %s\n", op.err);
        usage(stderr);
        mtb_opt_free(&op);
        return 2;
    }
    if (!op.npos) {
        fprintf(stderr, "mtebench explain: no PATH given (a run's directory, a detect results directory or a fault file)\n");
        mtb_opt_free(&op);
        return 2;
    }
    argc = op.npos; /* the paths */
    argv = op.pos;
    o.all = json_object();
    for (int i = 0; i < argc; i++) {
        const char *p = argv[i];
        if (is_dir(p))
            walk(&o, p, p, 0);
        else if (is_file(p) && is_elf(p)) {
            char err[MTB_ERRLEN];
            json_t *f = fault_of_core(p, 0, err, sizeof err);
            if (f)
                show(&o, p, f);
            else
                fprintf(stderr, "mtebench explain: %s\n", err);
            json_decref(f);
        } else if (is_file(p)) {
            json_t *f = mtb_fault_read(p);
            if (f)
                show(&o, p, f);
            else
                fprintf(stderr, "mtebench explain: %s: no MTEBENCH-FAULT line in it\n", p);
            json_decref(f);
        } else {
            fprintf(stderr, "mtebench explain: %s: no such file or directory\n", p);
            json_decref(o.all);
            mtb_opt_free(&op);
            return 2;
        }
    }
    if (o.json && o.shown)
        json_dumpf(o.all, stdout, JSON_INDENT(2) | JSON_SORT_KEYS), fputc('\n', stdout);
    json_decref(o.all);
    int shown = o.shown;
    if (!shown)
        fprintf(stderr, "mtebench explain: no fault found in %s%s\n", argv[0], argc > 1 ? " ..." : "");
    mtb_opt_free(&op);
    return shown ? 0 : 1;
}
