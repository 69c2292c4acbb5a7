/* compare.c - see compare.h */
#include "jsonx.h"
#include "compare.h"
#include "seqstop.h"
#include "build.h"
#include "cli.h"
#include "kernel.h"
#include "plan.h"
#include "proc.h"
#include "record.h"
#include "run.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXK 8
#define MAXREP 1000

static int split_kernels(const char *list, char names[MAXK][128])
{
    int n = 0;
    char *copy = mtb_strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && n < MAXK; t = strtok_r(NULL, ",", &save))
        snprintf(names[n++], 128, "%s", t);
    free(copy);
    return n;
}

static const char *NOTE_TCG =
    "Measured under QEMU TCG (emulated: not hardware timing). TCG performs no tag checks "
    "while SCTLR_EL1.TCF says \"no faults\", so a kernel change such as TCMA1 cannot change "
    "the cost of kernel accesses here: no difference between the kernels is expected, and "
    "any difference shown is noise. The effect of TCMA1 (about 25% of memcached's "
    "throughput on AmpereOne in the 2026 study) shows only on MTE hardware, under KVM or "
    "on bare metal.";
static const char *NOTE_KVM =
    "Measured under KVM on MTE hardware: the kernels ran on the real tag-checking CPU, so "
    "a difference here is a hardware effect of the kernel change (within the intervals shown).";

/* the configurations (variant/mode) in order of appearance; whether any
 * record is emulated (its platform.emulated) and the first platform */
static json_t *configs_of(json_t *records, int *emulated, json_t **plat)
{
    json_t *configs = json_array();
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        json_t *c = json_object_get(rec, "config");
        char *cfg = mtb_asprintf("%s/%s", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"));
        mtb_jadd_unique(configs, cfg);
        free(cfg);
        json_t *p = json_object_get(rec, "platform");
        *emulated |= mtb_record_emulated(rec);
        if (!*plat && json_object_size(p))
            *plat = p;
    }
    return configs;
}

/* each kernel's identity, from its first record */
static json_t *kernel_identities(json_t *records, char names[MAXK][128], int nk)
{
    size_t i;
    json_t *rec;
    json_t *ks = json_array();
    for (int k = 0; k < nk; k++) {
        /* the kernel identity of its first record */
        json_t *id = NULL;
        json_array_foreach(records, i, rec)
        {
            if (!strcmp(mtb_jstr(json_object_get(rec, "config"), "kernel"), names[k])) {
                id = json_object_get(rec, "kernel");
                break;
            }
        }
        json_t *kernel = json_pack("{s:s}", "name", names[k]);
        if (id) {
            static const char *keys[] = { "uname_r", "build_hash", "config_hash", "source", "patches", NULL };
            for (const char **kk = keys; *kk; kk++)
                if (json_object_get(id, *kk))
                    json_object_set(kernel, *kk, json_object_get(id, *kk));
        }
        json_array_append_new(ks, kernel);
    }
    return ks;
}

json_t *mtb_compare_build(json_t *records, const char *kernels)
{
    char names[MAXK][128];
    int nk = split_kernels(kernels, names);
    size_t i;
    json_t *rec, *plat = NULL;
    int emulated = 0, any = 0;
    json_t *configs = configs_of(records, &emulated, &plat);
    json_t *rows = json_array();
    size_t ci;
    json_t *cfgv;
    json_array_foreach(configs, ci, cfgv)
    {
        const char *cfg = json_string_value(cfgv);
        /* per kernel, per rep: ops/s, p50, p99 */
        static double ops[MAXK][MAXREP], p50[MAXK][MAXREP], p99[MAXK][MAXREP];
        int byrep[MAXK][64];
        size_t n[MAXK] = { 0 };
        int failed[MAXK] = { 0 };
        for (int k = 0; k < MAXK; k++)
            for (int r = 0; r < 64; r++)
                byrep[k][r] = -1;
        json_array_foreach(records, i, rec)
        {
            json_t *c = json_object_get(rec, "config");
            char *rc = mtb_asprintf("%s/%s", mtb_jstr(c, "variant"), mtb_jstr(c, "mode"));
            int match = !strcmp(rc, cfg);
            free(rc);
            if (!match)
                continue;
            int k = -1;
            for (int t = 0; t < nk; t++)
                if (!strcmp(mtb_jstr(c, "kernel"), names[t]))
                    k = t;
            if (k < 0)
                continue;
            json_t *s = json_object_get(rec, "summary");
            if (strcmp(mtb_jstr(rec, "status"), "ok") != 0 || !s || n[k] >= MAXREP) {
                failed[k]++;
                continue;
            }
            int rep = mtb_record_rep(rec); /* kernels are paired by repetition */
            if (rep >= 0 && rep < 64)
                byrep[k][rep] = (int)n[k];
            ops[k][n[k]] = mtb_jnum(s, "ops_per_sec");
            p50[k][n[k]] = mtb_jnum(s, "p50_us");
            p99[k][n[k]] = mtb_jnum(s, "p99_us");
            n[k]++;
            any = 1;
        }
        for (int k = 0; k < nk; k++) {
            json_t *row = json_pack("{s:s,s:s,s:i,s:i}", "config", cfg, "kernel", names[k], "runs", (int)n[k],
                                    "failed", failed[k]);
            if (n[k] > 0) {
                struct stats_ci c;
                double ach = 0;
                json_t *o;
                if (stats_median_ci(ops[k], n[k], 0.95, &c, &ach) == 0)
                    o = json_pack("{s:f,s:f,s:f,s:f}", "median", c.est, "lo", c.lo, "hi", c.hi, "conf", ach);
                else {
                    double mn = ops[k][0], mx = ops[k][0];
                    for (size_t t = 1; t < n[k]; t++) {
                        mn = fmin(mn, ops[k][t]);
                        mx = fmax(mx, ops[k][t]);
                    }
                    o = json_pack("{s:f,s:f,s:f,s:n}", "median", stats_median(ops[k], n[k]), "lo", mn, "hi", mx,
                                  "conf");
                }
                json_object_set_new(row, "ops_per_sec", o);
                json_object_set_new(row, "p50_us", json_real(stats_median(p50[k], n[k])));
                json_object_set_new(row, "p99_us", json_real(stats_median(p99[k], n[k])));
            }
            /* throughput relative to the reference kernel, paired by repetition */
            if (k > 0 && n[k] > 0 && n[0] > 0) {
                double ratios[64];
                size_t nr = 0;
                for (int r = 0; r < 64; r++)
                    if (byrep[k][r] >= 0 && byrep[0][r] >= 0 && ops[0][byrep[0][r]] > 0)
                        ratios[nr++] = ops[k][byrep[k][r]] / ops[0][byrep[0][r]];
                if (nr > 0) {
                    double mn = ratios[0], mx = ratios[0];
                    for (size_t t = 1; t < nr; t++) {
                        mn = fmin(mn, ratios[t]);
                        mx = fmax(mx, ratios[t]);
                    }
                    json_object_set_new(row, "vs_reference", json_pack("{s:s,s:f,s:f,s:f,s:i}", "reference",
                                                                       names[0], "median", stats_median(ratios, nr),
                                                                       "min", mn, "max", mx, "pairs", (int)nr));
                }
            }
            json_array_append_new(rows, row);
        }
    }
    json_t *ks = kernel_identities(records, names, nk);
    json_t *out = json_pack("{s:s,s:o,s:o,s:b,s:s,s:b}", "schema", "mtebench-kernel-compare/1", "kernels", ks,
                            "rows", rows, "emulated", emulated, "note", emulated ? NOTE_TCG : NOTE_KVM,
                            "any_ok", any);
    json_object_set_new(out, "platform",
                        plat ? json_pack("{s:s,s:s,s:s}", "name", mtb_jstr(plat, "name"), "accel", mtb_jstr(plat, "accel"),
                                         "qemu", mtb_jstr(plat, "qemu"))
                             : json_null());
    json_decref(configs);
    return out;
}

static void fmt_ratio(char *buf, size_t n, json_t *row)
{
    json_t *v = json_object_get(row, "vs_reference");
    if (!v)
        snprintf(buf, n, "%s", json_object_get(row, "ops_per_sec") ? "reference" : "-");
    else
        snprintf(buf, n, "%.3f (%.3f-%.3f, %d pairs)", mtb_jnum(v, "median"), mtb_jnum(v, "min"), mtb_jnum(v, "max"),
                 (int)json_integer_value(json_object_get(v, "pairs")));
}

static void fmt_ops(char *buf, size_t n, json_t *row)
{
    json_t *o = json_object_get(row, "ops_per_sec");
    if (!o)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.0f [%.0f-%.0f]%s", mtb_jnum(o, "median"), mtb_jnum(o, "lo"), mtb_jnum(o, "hi"),
                 !(mtb_jnum(o, "conf") >= 0.949) ? "*" : "");
}

static const char *platform_label(json_t *cmp, char *buf, size_t n)
{
    json_t *p = json_object_get(cmp, "platform");
    snprintf(buf, n, "vm (%s, %s)%s", mtb_jstr(p, "accel")[0] ? mtb_jstr(p, "accel") : "?", mtb_jstr(p, "qemu"),
             json_is_true(json_object_get(cmp, "emulated")) ? ", emulated: not hardware timing" : "");
    return buf;
}

void mtb_compare_print(json_t *cmp, FILE *out)
{
    char pl[512];
    fprintf(out, "\nkernel comparison on %s\n", platform_label(cmp, pl, sizeof pl));
    fprintf(out, "%-16s %-10s %5s %-26s %9s %9s  %s\n", "config", "kernel", "runs", "ops/s median [range/CI]",
            "p50 us", "p99 us", "throughput vs reference");
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(cmp, "rows"), i, row)
    {
        char ops[64], ratio[96];
        fmt_ops(ops, sizeof ops, row);
        fmt_ratio(ratio, sizeof ratio, row);
        fprintf(out, "%-16s %-10s %5d %-26s %9.0f %9.0f  %s\n", mtb_jstr(row, "config"), mtb_jstr(row, "kernel"),
                (int)json_integer_value(json_object_get(row, "runs")), ops, mtb_jnum(row, "p50_us"),
                mtb_jnum(row, "p99_us"), ratio);
    }
    fprintf(out, "note: %s\n", mtb_jstr(cmp, "note"));
}

char *mtb_compare_markdown(json_t *cmp)
{
    char pl[512];
    char *md = mtb_asprintf("# Kernel comparison\n\nPlatform: %s\n\n", platform_label(cmp, pl, sizeof pl));
#define APPEND(...)                                  \
    do {                                             \
        char *_a = mtb_asprintf(__VA_ARGS__);        \
        char *_n = mtb_asprintf("%s%s", md, _a);     \
        free(_a);                                    \
        free(md);                                    \
        md = _n;                                     \
    } while (0)
    APPEND("> %s\n\n", mtb_jstr(cmp, "note"));
    APPEND("| kernel | uname -r | build hash | config hash | patches |\n|---|---|---|---|---|\n");
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(cmp, "kernels"), i, k)
    {
        char patches[512] = "";
        size_t j;
        json_t *p;
        json_array_foreach(json_object_get(k, "patches"), j, p)
        {
            const char *f = mtb_jstr(p, "file");
            const char *b = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
            if (strlen(patches) + strlen(b) + 3 < sizeof patches) {
                if (patches[0])
                    strcat(patches, ", ");
                strcat(patches, b);
            }
        }
        APPEND("| %s | %s | %.12s | %.12s | %s |\n", mtb_jstr(k, "name"), mtb_jstr(k, "uname_r"), mtb_jstr(k, "build_hash"),
               mtb_jstr(k, "config_hash"), patches[0] ? patches : "none");
    }
    APPEND("\n| config | kernel | runs | ops/s median [range or 95%% CI] | p50 µs | p99 µs | throughput vs reference |\n"
           "|---|---|---|---|---|---|---|\n");
    json_t *row;
    json_array_foreach(json_object_get(cmp, "rows"), i, row)
    {
        char ops[64], ratio[96];
        fmt_ops(ops, sizeof ops, row);
        fmt_ratio(ratio, sizeof ratio, row);
        APPEND("| %s | %s | %d | %s | %.0f | %.0f | %s |\n", mtb_jstr(row, "config"), mtb_jstr(row, "kernel"),
               (int)json_integer_value(json_object_get(row, "runs")), ops, mtb_jnum(row, "p50_us"), mtb_jnum(row, "p99_us"),
               ratio);
    }
    APPEND("\n`*` too few runs for a 95%% interval (6 are needed): the interval shown is the range of the runs "
           "or has the lower confidence given in kernels.json. Ratios are medians of per-repetition pairs (kernels "
           "interleaved within each repetition; range in parentheses).\n");
#undef APPEND
    return md;
}

static void write_file(const char *path, const char *text)
{
    if (mtb_write_atomic(path, text, strlen(text)) != 0)
        mtb_warn("cannot write %s", path);
}

int mtb_cmd_compare_kernels(int argc, char **argv)
{
    struct mtb_opts o;
    mtb_cli_parse(argc, argv, &o, "compare-kernels");
    if (o.reps == MTB_REPS_AUTO)
        o.reps = 3; /* REPS=auto is for bench and plans; the kernel comparison keeps a fixed count */
    if (!o.mode)
        mtb_die(2, "no MODE given (accepted: %s)", mtb_mode_names());
    if (o.platform && strcmp(o.platform, "vm") != 0)
        mtb_die(2, "compare-kernels runs on PLATFORM=vm (got '%s'): only there is the kernel chosen", o.platform);
    o.platform = "vm";
    if (!o.kernels)
        o.kernels = "stock,tcma1";
    char names[MAXK][128];
    int nk = split_kernels(o.kernels, names);
    if (nk < 2)
        mtb_die(2, "invalid KERNELS '%s' (accepted: two or more of %s, comma-separated)", o.kernels,
                mtb_kernel_names());
    for (int k = 0; k < nk; k++) {
        if (!strchr(names[k], '/') && !mtb_kernel_known(names[k]))
            mtb_die(2, "invalid KERNELS entry '%s' (accepted: %s, or the path of an arm64 Image)", names[k],
                    mtb_kernel_names());
        for (int j = 0; j < k; j++)
            if (!strcmp(names[j], names[k]))
                mtb_die(2, "KERNELS names '%s' twice", names[k]);
    }
    o.kernel = names[0];
    o.quiet = 1;
    mtb_cli_resolve(&o);
    o.quiet = 0;

    /* a plan with a kernel axis, run by plan.c: builds and kernels first,
     * plan.json, the quiet check and provenance, cells interleaved */
    struct mtb_plan plan;
    mtb_plan_init(&plan, "compare-kernels", &o);
    const struct mtb_mode *off = mtb_mode_find("off");
    for (int k = 0; k < nk; k++) {
        mtb_plan_add_cell(&plan, "compare-kernels", o.recipe, &o.wl, "tagged", o.m, names[k]);
        if (o.baseline)
            mtb_plan_add_cell(&plan, "compare-kernels", o.recipe, &o.wl, "plain", off, names[k]);
    }
    if (o.dry_run) {
        mtb_plan_print(&plan, stdout);
        return 0;
    }
    char ts[32];
    mtb_utc_compact(ts, sizeof ts);
    char *dir = o.results ? mtb_strdup(o.results)
                          : mtb_asprintf("%s/results/%s-kernels-%s-%s", mtb_root(), ts, o.recipe->name, o.m->name);
    int total = (int)o.reps * (int)plan.ncells, failures = 0;
    fprintf(stderr, "mtebench: compare-kernels: %s tagged/%s%s on kernels %s (vm), %ld reps x %g s, results in %s\n",
            o.recipe->name, o.m->name, o.baseline ? " and plain/off" : "", o.kernels, o.reps, o.wl.duration, dir);
    json_t *records = mtb_plan_run(&plan, dir, o.force, &failures, NULL);
    json_t *cmp = mtb_compare_build(records, o.kernels);
    mtb_compare_print(cmp, stdout);
    char *cj = json_dumps(cmp, JSON_INDENT(2) | JSON_SORT_KEYS);
    char *cjp = mtb_asprintf("%s/kernels.json", dir);
    write_file(cjp, cj);
    char *md = mtb_compare_markdown(cmp);
    char *mdp = mtb_asprintf("%s/kernels.md", dir);
    write_file(mdp, md);
    char *repdir = mtb_asprintf("%s/reports", mtb_root());
    mtb_mkdir_p(repdir);
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    char *rmd = mtb_asprintf("%s/%s.md", repdir, base);
    write_file(rmd, md);
    printf("\nrecords: %s/*/record.json\ntable:   %s, %s\nreport:  %s\n", dir, cjp, mdp, rmd);
    mtb_plan_print_failed("mtebench", plan.failed, total);
    free(cj);
    free(cjp);
    free(md);
    free(mdp);
    free(rmd);
    free(repdir);
    json_decref(cmp);
    json_decref(records);
    free(dir);
    return failures ? 1 : 0;
}
