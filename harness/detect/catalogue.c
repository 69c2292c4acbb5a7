/* catalogue.c - the bug catalogue's entries (services/<svc>/bugs/<id>/:
 * manifest.ini, trigger.hex; the switches in bugs.patch), read and checked
 * (`mtebench detect --catalogue`, docs/DETECTION.md "The catalogue"). */
#include "detect/catalogue.h"
#include "drivers/driver.h"
#include "lib/files.h"
#include "lib/proc.h"
#include "lib/util.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* the words each key allows (memory: the kind before any " (...)", after an optional "service: ") */
static const char *const w_class[] = { "linear overflow", "intra-granule overflow", "far write", "out-of-bounds read",
                                       "use after free", "double free", "stack", "uninitialised read", NULL };
static const char *const w_memory[] = { "slab chunk", "pool", "AllocSet chunk", "glibc malloc", "stack", "Arena",
                                        "cache_t", NULL };
static const char *const w_access[] = { "read", "write", "free", NULL };
static const char *const w_port[] = { "revert", "live", "equivalent", "plant", NULL };
static const char *const w_pov[] = { "upstream", "constructed", NULL };
static const char *const w_access_in[] = { "user", "syscall", NULL };
static const char *const w_control[] = { "error reply", "closed connection", "normal answer", NULL };


static int in(const char *const *words, const char *v, size_t n)
{
    for (; *words; words++)
        if (strlen(*words) == n && !strncmp(*words, v, n))
            return 1;
    return 0;
}

static char *joined(const char *const *words)
{
    char *out = mtb_strdup("");
    for (const char *const *w = words; *w; w++) {
        char *x = mtb_asprintf("%s%s%s", out, w == words ? "" : ", ", *w);
        free(out);
        out = x;
    }
    return out;
}

/* the length of the commit hash (7 to 40 lowercase hex digits, then a space
 * or the end) a fix_commit begins with; 0: none (a PostgreSQL release note) */
static size_t hash_len(const char *fc)
{
    size_t n = strspn(fc, "0123456789abcdef");
    return n >= 7 && n <= 40 && (fc[n] == 0 || fc[n] == ' ') ? n : 0;
}

static const struct {
    const char *key;
    size_t off;
    int need;
} bug_keys[] = {
#define X(field, key, need) { key, offsetof(struct mtb_bug, field), need },
    MTB_BUG_KEYS(X)
#undef X
};
#define NBUG_KEYS (sizeof bug_keys / sizeof bug_keys[0])
#define BUG_FIELD(b, i) ((char **)((char *)(b) + bug_keys[i].off))

static int bug_key(const char *k)
{
    for (size_t i = 0; i < NBUG_KEYS; i++)
        if (!strcmp(bug_keys[i].key, k))
            return (int)i;
    return -1;
}

/* "key = value" lines of a manifest (no sections but [bug]) into b; the
 * first key it does not know into unknown (NULL: none) */
static int parse(const char *path, struct mtb_bug *b, char **unknown, char *why, size_t n)
{
    memset(b, 0, sizeof *b);
    *unknown = NULL;
    char *text = mtb_read_file(path, NULL);
    if (!text) {
        snprintf(why, n, "cannot read %s", path);
        return -1;
    }
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        while (*l == ' ' || *l == '\t')
            l++;
        char *eq = strchr(l, '=');
        if (*l == ';' || *l == '#' || *l == '[' || !eq)
            continue;
        char *k = l, *v = eq + 1, *e = eq;
        while (e > k && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        *e = 0;
        while (*v == ' ' || *v == '\t')
            v++;
        int i = bug_key(k);
        if (i >= 0) { /* a key given again: its last value */
            free(*BUG_FIELD(b, i));
            *BUG_FIELD(b, i) = mtb_strdup(v);
        } else if (!*unknown) {
            *unknown = mtb_strdup(k);
        }
    }
    free(text);
    return 0;
}

/* the first problem of a parsed manifest, or 0 */
static int problem(const struct mtb_bug *m, const char *unknown, const char *path, char *why, size_t n)
{
    if (unknown && !strcmp(unknown, "allocator")) {
        snprintf(why, n, "%s: 'allocator' is now 'memory' (where the object lives; ALLOCATOR is the allocator axis)",
                 path);
        return -1;
    }
    if (unknown) {
        char *acc = mtb_strdup("");
        for (size_t i = 0; i < NBUG_KEYS; i++) {
            char *x = mtb_asprintf("%s%s%s", acc, i ? ", " : "", bug_keys[i].key);
            free(acc);
            acc = x;
        }
        snprintf(why, n, "%s: unknown key '%s' (accepted: %s)", path, unknown, acc);
        free(acc);
        return -1;
    }
    for (size_t i = 0; i < NBUG_KEYS; i++)
        if (bug_keys[i].need && !*BUG_FIELD(m, i)) {
            snprintf(why, n, "%s: no '%s'", path, bug_keys[i].key);
            return -1;
        }
    const struct {
        const char *key;
        const char *v;
        const char *const *words;
    } worded[] = { { "class", m->cls, w_class }, { "memory", m->memory, w_memory }, { "access", m->access, w_access },
                   { "port", m->port, w_port },  { "pov", m->pov, w_pov },          { "access_in", m->access_in, w_access_in } };
    for (size_t i = 0; i < sizeof worded / sizeof worded[0]; i++) {
        const char *v = worded[i].v;
        if (worded[i].words == w_memory && !strncmp(v, "service: ", 9))
            v += 9;
        size_t len = worded[i].words == w_memory ? strcspn(v, "(") : strlen(v);
        while (len && v[len - 1] == ' ')
            len--;
        if (!in(worded[i].words, v, len)) {
            char *acc = joined(worded[i].words);
            snprintf(why, n, "%s: %s '%s' is not one of: %s", path, worded[i].key, v, acc);
            free(acc);
            return -1;
        }
    }
    if (strcmp(m->port, "plant") && !m->fix_commit) {
        snprintf(why, n, "%s: no 'fix_commit' (the upstream fix's commit; for PostgreSQL its release and note)", path);
        return -1;
    }
    const char *fc = m->fix_commit, *ff = m->fix_files;
    if (fc && hash_len(fc) && (!ff || !ff[strspn(ff, " ,")])) {
        snprintf(why, n,
                 "%s: no 'fix_files' (the files its fix_commit changes, as paths in the upstream tree of that "
                 "commit: what --history checks the commit against)",
                 path);
        return -1;
    }
    const char *ce = m->control_expect;
    if (ce && !in(w_control, ce, strlen(ce))) {
        char *acc = joined(w_control);
        snprintf(why, n, "%s: control_expect '%s' is not one of: %s", path, ce, acc);
        free(acc);
        return -1;
    }
    return 0;
}

int mtb_bug_load(const char *path, struct mtb_bug *b, char *why, size_t n)
{
    char *unknown = NULL;
    int rc = parse(path, b, &unknown, why, n) == 0 ? problem(b, unknown, path, why, n) : -1;
    free(unknown);
    return rc;
}

json_t *mtb_bug_json(const struct mtb_bug *b)
{
    json_t *m = json_object();
    for (size_t i = 0; i < NBUG_KEYS; i++)
        if (*BUG_FIELD(b, i))
            json_object_set_new(m, bug_keys[i].key, json_string(*BUG_FIELD(b, i)));
    return m;
}

void mtb_bug_from_json(json_t *m, struct mtb_bug *b)
{
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < NBUG_KEYS; i++) {
        const char *v = json_string_value(json_object_get(m, bug_keys[i].key));
        *BUG_FIELD(b, i) = v ? mtb_strdup(v) : NULL;
    }
}

void mtb_bug_free(struct mtb_bug *b)
{
    for (size_t i = 0; i < NBUG_KEYS; i++)
        free(*BUG_FIELD(b, i));
    memset(b, 0, sizeof *b);
}

/* the services with a catalogue (services/ * /bugs/ * /manifest.ini) */
static json_t *services(void)
{
    json_t *a = json_array();
    char *dir = mtb_asprintf("%s/services", mtb_root());
    struct dirent **ents = NULL;
    int ne = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < ne; i++) {
        char *b = mtb_asprintf("%s/%s/bugs", dir, ents[i]->d_name);
        struct stat sb;
        if (ents[i]->d_name[0] != '.' && stat(b, &sb) == 0 && S_ISDIR(sb.st_mode))
            json_array_append_new(a, json_string(ents[i]->d_name));
        free(b);
        free(ents[i]);
    }
    free(ents);
    free(dir);
    return a;
}

/* is the commit in the git directory (a fetched history)? */
static int in_history(const char *gitdir, const char *commit)
{
    char spec[96];
    snprintf(spec, sizeof spec, "%s^{commit}", commit);
    char *argv[] = { "git", "--git-dir", (char *)gitdir, "cat-file", "-e", spec, NULL };
    int st = -1;
    free(mtb_proc_capture(argv, 1, 30, &st));
    return st == 0;
}

/* the files a commit of the history changes, one a line (NULL: git failed) */
static char *commit_files(const char *gitdir, const char *hash)
{
    char *argv[] = { "git",           "--git-dir",   (char *)gitdir, "diff-tree",   "-r", "--root",
                     "--no-commit-id", "--name-only", "--no-renames",  (char *)hash, NULL };
    int st = -1;
    char *out = mtb_proc_capture(argv, 0, 30, &st);
    if (out && st == 0)
        return out;
    free(out);
    return NULL;
}

/* is path one of the lines of list? */
static int has_line(const char *list, const char *path, size_t n)
{
    for (const char *l = list; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t len = strcspn(l, "\n");
        if (len == n && !strncmp(l, path, n))
            return 1;
    }
    return 0;
}

/* a finding of e */
static void finding(struct mtb_cat_entry *e, const char *kind, char *what)
{
    e->findings = mtb_realloc(e->findings, (e->nfindings + 1) * sizeof *e->findings);
    e->findings[e->nfindings].kind = kind;
    e->findings[e->nfindings++].what = what;
}

/* each of fix_files (space- or comma-separated) among the files the commit
 * changes: a finding 'fix_files' for each one it does not, naming what it does */
static int check_files(struct mtb_cat_entry *e, const char *history, const char *hash, const char *ff)
{
    char *files = commit_files(history, hash);
    if (!files) {
        finding(e, "fix_files", mtb_strdup("git diff-tree could not list the files of the fix_commit"));
        return 0;
    }
    int ok = 1;
    for (const char *f = ff + strspn(ff, " ,"); *f; f += strspn(f, " ,")) {
        size_t n = strcspn(f, " ,");
        if (!has_line(files, f, n)) {
            /* what it does change: the first few */
            char *got = mtb_strdup("");
            int k = 0;
            for (const char *l = files; *l; l += strcspn(l, "\n"), l += *l == '\n', k++) {
                char *x = k < 6 ? mtb_asprintf("%s%s%.*s", got, k ? ", " : "", (int)strcspn(l, "\n"), l)
                                : mtb_asprintf("%s%s", got, k == 6 ? ", ..." : "");
                free(got);
                got = x;
            }
            finding(e, "fix_files",
                    mtb_asprintf("%.12s does not touch %.*s (a wrong citation?); it changes: %s", hash, (int)n, f,
                                 k ? got : "no file"));
            free(got);
            ok = 0;
        }
        f += n;
    }
    free(files);
    return ok;
}

/* one entry's checks beyond its manifest: what it runs, its switch, its control, its fix in the history */
static void check_entry(struct mtb_cat_entry *e, const char *bugdir, const char *patch, const char *history)
{
    const struct mtb_bug *m = &e->m;
    const char *id = e->id, *plant = m->plant, *sw = m->bug_switch, *bench = m->benchmark;
    char *trig = mtb_asprintf("%s/trigger.hex", bugdir);
    e->trigger_bytes = -1;
    if (plant ? !m->reach : !bench && !mtb_file_exists(trig))
        finding(e, "trigger", mtb_strdup(plant ? "a plant without 'reach'" : "no trigger.hex (nor a benchmark)"));
    else if (bench) /* an embedded service's bug: the db_bench benchmark that reaches it */
        e->trigger_benchmark = bench;
    else if (!plant) { /* the bytes the driver would send */
        char why[512];
        size_t len = 0, cuts[MTB_TRIGGER_MAXCUTS];
        int ncuts = 0;
        unsigned char *b = mtb_trigger_read(trig, &len, cuts, &ncuts, why, sizeof why);
        if (b)
            e->trigger_bytes = (long long)len;
        else
            finding(e, "trigger", mtb_strdup(why));
        free(b);
    }
    char *on = mtb_asprintf("mtbbug_on(\"%s\")", sw && *sw ? sw : id);
    char *ref = mtb_asprintf("mtbbug_mark(\"refused\", \"%s\")", sw && *sw ? sw : id);
    if (!plant && !(patch && strstr(patch, on)))
        finding(e, "switch", mtb_strdup(on));
    e->control = plant || (patch && strstr(patch, ref) && m->control_expect);
    if (!e->control)
        finding(e, "control", mtb_strdup("no fixed-build control (bugs.patch marks no 'refused' for it where the fix "
                                          "refuses, or no control_expect)"));
    const char *fc = m->fix_commit, *ff = m->fix_files;
    if (history && fc && !plant) {
        char hash[41];
        snprintf(hash, sizeof hash, "%.*s", (int)hash_len(fc), fc);
        if (!*hash || !in_history(history, hash))
            finding(e, "fix_commit", mtb_strdup("not found in the history given"));
        else {
            e->fix_commit_found = 1;
            /* there, and the fix of the files the manifest names (a commit of
             * the same history that changed other files is a wrong citation) */
            if (ff && check_files(e, history, hash, ff))
                e->fix_files_touched = 1;
        }
    }
    free(trig);
    free(on);
    free(ref);
}

/* the entries of one service */
static void service_entries(const char *svc, const char *history, struct mtb_catalogue *c)
{
    char *dir = mtb_asprintf("%s/services/%s/bugs", mtb_root(), svc);
    char *pp = mtb_asprintf("%s/bugs.patch", dir);
    char *patch = mtb_read_file(pp, NULL);
    struct dirent **ents = NULL;
    int ne = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < ne; i++) {
        char *bugdir = mtb_asprintf("%s/%s", dir, ents[i]->d_name);
        char *mp = mtb_asprintf("%s/manifest.ini", bugdir);
        if (ents[i]->d_name[0] != '.' && mtb_file_exists(mp)) {
            c->v = mtb_realloc(c->v, (c->n + 1) * sizeof *c->v);
            struct mtb_cat_entry *e = &c->v[c->n++];
            memset(e, 0, sizeof *e);
            e->service = mtb_strdup(svc);
            e->id = mtb_strdup(ents[i]->d_name);
            char why[MTB_ERRLEN];
            if (mtb_bug_load(mp, &e->m, why, sizeof why) != 0)
                finding(e, "manifest", mtb_strdup(why));
            check_entry(e, bugdir, patch, history);
        }
        free(mp);
        free(bugdir);
        free(ents[i]);
    }
    free(ents);
    free(patch);
    free(pp);
    free(dir);
}

void mtb_catalogue_check(const char *service, const char *history, struct mtb_catalogue *c)
{
    memset(c, 0, sizeof *c);
    json_t *svcs = service ? json_pack("[s]", service) : services();
    size_t i;
    json_t *s;
    json_array_foreach(svcs, i, s) service_entries(json_string_value(s), history, c);
    json_decref(svcs);
}

void mtb_catalogue_free(struct mtb_catalogue *c)
{
    for (size_t i = 0; i < c->n; i++) {
        struct mtb_cat_entry *e = &c->v[i];
        for (size_t k = 0; k < e->nfindings; k++)
            free(e->findings[k].what);
        free(e->findings);
        mtb_bug_free(&e->m);
        free(e->service);
        free(e->id);
    }
    free(c->v);
    memset(c, 0, sizeof *c);
}

size_t mtb_catalogue_findings(const struct mtb_catalogue *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += c->v[i].nfindings;
    return n;
}

json_t *mtb_catalogue_json(const struct mtb_catalogue *c)
{
    json_t *all = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const struct mtb_cat_entry *e = &c->v[i];
        json_t *find = json_array();
        for (size_t k = 0; k < e->nfindings; k++)
            json_array_append_new(find, json_pack("{s:s,s:s}", "kind", e->findings[k].kind, "what", e->findings[k].what));
        json_t *j = json_pack("{s:s,s:s,s:o,s:o,s:b}", "service", e->service, "id", e->id, "manifest",
                              mtb_bug_json(&e->m), "findings", find, "control", e->control);
        if (e->trigger_benchmark)
            json_object_set_new(j, "trigger_benchmark", json_string(e->trigger_benchmark));
        if (e->trigger_bytes >= 0)
            json_object_set_new(j, "trigger_bytes", json_integer(e->trigger_bytes));
        if (e->fix_commit_found)
            json_object_set_new(j, "fix_commit_found", json_true());
        if (e->fix_files_touched)
            json_object_set_new(j, "fix_files_touched", json_true());
        json_array_append_new(all, j);
    }
    return all;
}

/* a manifest's value, or "-" */
static const char *mstr(const char *v) { return v ? v : "-"; }

void mtb_catalogue_print(FILE *f, const struct mtb_catalogue *c)
{
    size_t real = 0, bad = 0, controls = 0;
    fprintf(f, "%-10s %-24s %-22s %-16s %-6s %-10s %-11s %-9s %s\n", "service", "id", "class", "memory", "in",
            "port", "pov", "control", "fix_commit");
    for (size_t i = 0; i < c->n; i++) {
        const struct mtb_cat_entry *e = &c->v[i];
        const struct mtb_bug *m = &e->m;
        char mem[17];
        snprintf(mem, sizeof mem, "%s", mstr(m->memory));
        const char *fc = mstr(m->fix_commit);
        fprintf(f, "%-10s %-24s %-22s %-16s %-6s %-10s %-11s %-9s %.*s%s\n", e->service, e->id, mstr(m->cls), mem,
                mstr(m->access_in), mstr(m->port), mstr(m->pov), e->control ? "yes" : "no",
                (int)(strcspn(fc, " ") < 12 ? strcspn(fc, " ") : 12), fc,
                !e->fix_commit_found ? "" : e->fix_files_touched ? " (found)" : " (found: not its fix_files)");
        /* a real bug: not a plant, and not a second trigger of another entry's (its switch) */
        const char *sw = mstr(m->bug_switch);
        int is_real = strcmp(mstr(m->port), "plant") && (!strcmp(sw, "-") || !strcmp(sw, e->id));
        real += is_real;
        controls += is_real && e->control;
        for (size_t k = 0; k < e->nfindings; k++) {
            fprintf(f, "  ! %s: %s\n", e->findings[k].kind, e->findings[k].what);
            bad++;
        }
    }
    const char **ids = mtb_calloc(c->n + 1, sizeof *ids);
    struct mtb_bug *bugs = mtb_calloc(c->n + 1, sizeof *bugs);
    for (size_t i = 0; i < c->n; i++) {
        ids[i] = c->v[i].id;
        bugs[i] = c->v[i].m; /* borrowed: not freed here */
    }
    struct mtb_det_mix mix[MTB_MIX_KINDS];
    mtb_catalogue_mix(ids, bugs, c->n, mix);
    mtb_catalogue_mix_print(f, mix, MTB_MIX_KINDS, 0);
    free(ids);
    free(bugs);
    fprintf(f, "\n%zu entries, %zu real bugs (plants and second triggers are not counted), %zu of them with a fixed-build "
               "control; "
               "%zu findings\n",
            c->n, real, controls, bad);
}

/* ARVO's crash mix (OSS-Fuzz reproducers, as the issue and REFERENCES.md
 * give it): 1,802 heap overflows, 77% of them reads (1,388 rounded), 1,015
 * uninitialised reads, 389 use-after-frees */
static const struct {
    const char *kind;
    long arvo;
} arvo[MTB_MIX_KINDS] = { { "heap overflow (read)", 1388 }, { "heap overflow (write)", 414 },
                          { "uninitialised read", 1015 },  { "use after free", 389 },
                          { "stack", -1 },                 { "double free", -1 } };

/* the mix's kind of a manifest (NULL: a plant, or a second trigger of another entry's bug) */
static const char *kind_of(const char *id, const struct mtb_bug *m)
{
    const char *port = m->port, *sw = m->bug_switch, *cl = m->cls, *acc = m->access;
    if ((port && !strcmp(port, "plant")) || (sw && *sw && strcmp(sw, id)) || !cl)
        return NULL;
    if (!strcmp(cl, "linear overflow") || !strcmp(cl, "intra-granule overflow") || !strcmp(cl, "far write") ||
        !strcmp(cl, "out-of-bounds read"))
        return acc && !strcmp(acc, "read") ? arvo[0].kind : arvo[1].kind;
    return cl;
}

void mtb_catalogue_mix(const char *const *ids, const struct mtb_bug *bugs, size_t n, struct mtb_det_mix *rows)
{
    long long k[MTB_MIX_KINDS] = { 0 }, total = 0, atotal = 0;
    for (size_t b = 0; b < n; b++) {
        const char *kind = kind_of(ids[b], &bugs[b]);
        for (size_t i = 0; kind && i < MTB_MIX_KINDS; i++)
            if (!strcmp(kind, arvo[i].kind)) {
                k[i]++;
                total++;
            }
    }
    for (size_t i = 0; i < MTB_MIX_KINDS; i++)
        atotal += arvo[i].arvo > 0 ? arvo[i].arvo : 0;
    for (size_t i = 0; i < MTB_MIX_KINDS; i++)
        rows[i] = (struct mtb_det_mix){ .kind = arvo[i].kind, .catalogue = k[i],
                                        .catalogue_share = total ? (double)k[i] / (double)total : 0.0,
                                        .has_arvo = arvo[i].arvo > 0, .arvo = arvo[i].arvo > 0 ? arvo[i].arvo : 0,
                                        .arvo_share = arvo[i].arvo > 0 ? (double)arvo[i].arvo / (double)atotal : 0 };
}

json_t *mtb_catalogue_mix_json(const struct mtb_det_mix *rows, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_pack("{s:s,s:I,s:f}", "kind", rows[i].kind, "catalogue", (json_int_t)rows[i].catalogue,
                              "catalogue_share", rows[i].catalogue_share);
        if (rows[i].has_arvo)
            json_object_update_new(r, json_pack("{s:I,s:f}", "arvo", (json_int_t)rows[i].arvo, "arvo_share",
                                                rows[i].arvo_share));
        json_array_append_new(a, r);
    }
    return a;
}

void mtb_catalogue_mix_print(FILE *f, const struct mtb_det_mix *rows, size_t n, int md)
{
    fprintf(f, md ? "\n| kind | catalogue | share | ARVO (OSS-Fuzz) | share |\n|---|---|---|---|---|\n"
                  : "\n%-22s %9s %6s %16s %6s\n", "kind", "catalogue", "share", "ARVO (OSS-Fuzz)", "share");
    for (size_t i = 0; i < n; i++) {
        const struct mtb_det_mix *r = &rows[i];
        char a[32] = "-", as[16] = "-";
        if (r->has_arvo) {
            snprintf(a, sizeof a, "%lld", r->arvo);
            snprintf(as, sizeof as, "%.0f%%", 100 * r->arvo_share);
        }
        fprintf(f, md ? "| %s | %lld | %.0f%% | %s | %s |\n" : "%-22s %9lld %5.0f%% %16s %6s\n", r->kind, r->catalogue,
                100 * r->catalogue_share, a, as);
    }
    fprintf(f, md ? "\nARVO's shares are of its heap overflows (77%% reads), uninitialised reads and use-after-frees;"
                    " it gives no stack or double-free count here. Tag checks never see an uninitialised read.\n"
                  : "(ARVO's shares: of its heap overflows (77%% reads), uninitialised reads and use-after-frees; "
                    "tag checks never see an uninitialised read)\n");
}
