/*
 * explain.c - `mtebench explain PATH...`: the report of a tag-check fault
 * (run/faultrep.c; docs/DETECTION.md, "Fault reports") for a user whose
 * service died of one under mtebench. PATH is a run's directory (its
 * record's fault, or its fault.txt), a detect results directory (every
 * trial that faulted, by bug and trial), or a fault file itself.
 */
#include "cmd/explain.h"
#include "run/faultrep.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <dirent.h>
#include <getopt.h>
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

/* the fault of one run's directory: made again from its fault.txt (this
 * version's analysis, the binaries' symbols now), else its record's */
static json_t *fault_of_run(const char *dir)
{
    char *rp = mtb_asprintf("%s/record.json", dir), *fp = mtb_asprintf("%s/fault.txt", dir);
    json_t *rec = is_file(rp) ? json_load_file(rp, 0, NULL) : NULL, *f = NULL;
    json_t *rf = json_object_get(rec, "fault");
    if (!is_file(fp)) { /* a far run's (vm, a server host): the fault file it handed back */
        free(fp);
        fp = NULL;
        char *gd = mtb_asprintf("%s/guest", dir);
        struct dirent **ents = NULL;
        int n = is_dir(gd) ? scandir(gd, &ents, NULL, alphasort) : 0;
        for (int i = 0; i < n; i++) {
            char *c = mtb_asprintf("%s/%s/fault.txt", gd, ents[i]->d_name);
            if (!fp && ents[i]->d_name[0] != '.' && is_file(c))
                fp = c;
            else
                free(c);
            free(ents[i]);
        }
        free(ents);
        free(gd);
    }
    if (fp)
        f = mtb_fault_read(fp);
    if (!f && rf)
        f = json_incref(rf);
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
    printf("%s== %s\n", o->shown > 1 ? "\n" : "", name);
    if (t)
        fputs(t, stdout);
    else
        printf("%s at %s (no report: the fault file has only the fault's line)\n", mtb_jstr(f, "kind"),
               mtb_jstr(f, "addr"));
    free(t);
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

int mtb_cmd_explain(int argc, char **argv)
{
    static const struct option lo[] = { { "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 } };
    struct out o = { 0 };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (c == 'j')
            o.json = 1;
        else {
            FILE *f = c == 'h' ? stdout : stderr;
            fprintf(f, "usage: mtebench explain [--json] PATH...\n"
                       "  the report of each tag-check fault found in PATH: a run's directory, a detect\n"
                       "  results directory (every trial that faulted) or a fault file (fault.txt)\n"
                       "  --json   the fault objects with their reports, by name, as JSON\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "mtebench explain: no PATH given (a run's directory, a detect results directory or a fault file)\n");
        return 2;
    }
    o.all = json_object();
    for (int i = optind; i < argc; i++) {
        const char *p = argv[i];
        if (is_dir(p))
            walk(&o, p, p, 0);
        else if (is_file(p)) {
            json_t *f = mtb_fault_read(p);
            if (f)
                show(&o, p, f);
            else
                fprintf(stderr, "mtebench explain: %s: no MTEBENCH-FAULT line in it\n", p);
            json_decref(f);
        } else {
            fprintf(stderr, "mtebench explain: %s: no such file or directory\n", p);
            json_decref(o.all);
            return 2;
        }
    }
    if (o.json && o.shown)
        json_dumpf(o.all, stdout, JSON_INDENT(2) | JSON_SORT_KEYS), fputc('\n', stdout);
    json_decref(o.all);
    if (!o.shown) {
        fprintf(stderr, "mtebench explain: no fault found in %s%s\n", argv[optind], argc - optind > 1 ? " ..." : "");
        return 1;
    }
    return 0;
}
