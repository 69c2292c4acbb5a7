/* catalogue.c - the bug catalogue's entries (services/<svc>/bugs/<id>/:
 * manifest.ini, trigger.hex; the switches in bugs.patch), read and checked
 * (`mtebench detect --catalogue`, docs/DETECTION.md "The catalogue"). */
#include "detect/catalogue.h"
#include "drivers/driver.h"
#include "lib/files.h"
#include "lib/proc.h"
#include "lib/util.h"

#include <dirent.h>
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

static const struct {
    const char *key;
    const char *const *words;
} keys[] = {
    { "class", w_class },   { "memory", w_memory },       { "access", w_access },
    { "port", w_port },     { "pov", w_pov },             { "access_in", w_access_in },
};

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

/* "key = value" lines of a manifest (no sections but [bug]) */
static json_t *parse(const char *path, char *why, size_t n)
{
    char *text = mtb_read_file(path, NULL);
    if (!text) {
        snprintf(why, n, "cannot read %s", path);
        return NULL;
    }
    json_t *m = json_object();
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
        json_object_set_new(m, k, json_string(v));
    }
    free(text);
    return m;
}

/* the first problem of a parsed manifest, or 0 */
static int problem(json_t *m, const char *path, char *why, size_t n)
{
    static const char *const need[] = { "id", "fix", "function", "class", "memory", "access", "port", "pov",
                                        "access_in", "caught_by", "missed_by", NULL };
    if (json_object_get(m, "allocator")) {
        snprintf(why, n, "%s: 'allocator' is now 'memory' (where the object lives; ALLOCATOR is the allocator axis)",
                 path);
        return -1;
    }
    for (const char *const *k = need; *k; k++)
        if (!json_object_get(m, *k)) {
            snprintf(why, n, "%s: no '%s'", path, *k);
            return -1;
        }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = json_string_value(json_object_get(m, keys[i].key));
        if (!strcmp(keys[i].key, "memory") && !strncmp(v, "service: ", 9))
            v += 9;
        size_t len = keys[i].words == w_memory ? strcspn(v, "(") : strlen(v);
        while (len && v[len - 1] == ' ')
            len--;
        if (!in(keys[i].words, v, len)) {
            char *acc = joined(keys[i].words);
            snprintf(why, n, "%s: %s '%s' is not one of: %s", path, keys[i].key, v, acc);
            free(acc);
            return -1;
        }
    }
    const char *port = json_string_value(json_object_get(m, "port"));
    if (strcmp(port, "plant") && !json_object_get(m, "fix_commit")) {
        snprintf(why, n, "%s: no 'fix_commit' (the upstream fix's commit; for PostgreSQL its release and note)", path);
        return -1;
    }
    const char *fc = json_string_value(json_object_get(m, "fix_commit"));
    const char *ff = json_string_value(json_object_get(m, "fix_files"));
    if (fc && hash_len(fc) && (!ff || !ff[strspn(ff, " ,")])) {
        snprintf(why, n,
                 "%s: no 'fix_files' (the files its fix_commit changes, as paths in the upstream tree of that "
                 "commit: what --history checks the commit against)",
                 path);
        return -1;
    }
    const char *ce = json_string_value(json_object_get(m, "control_expect"));
    if (ce && !in(w_control, ce, strlen(ce))) {
        char *acc = joined(w_control);
        snprintf(why, n, "%s: control_expect '%s' is not one of: %s", path, ce, acc);
        free(acc);
        return -1;
    }
    return 0;
}

json_t *mtb_catalogue_manifest(const char *path, char *why, size_t n)
{
    json_t *m = parse(path, why, n);
    if (m && problem(m, path, why, n) != 0) {
        json_decref(m);
        return NULL;
    }
    return m;
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

/* each of fix_files (space- or comma-separated) among the files the commit
 * changes: a finding 'fix_files' for each one it does not, naming what it does */
static int check_files(json_t *find, const char *history, const char *hash, const char *ff)
{
    char *files = commit_files(history, hash);
    if (!files) {
        json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "fix_files", "what",
                                              "git diff-tree could not list the files of the fix_commit"));
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
            char *what = mtb_asprintf("%.12s does not touch %.*s (a wrong citation?); it changes: %s", hash, (int)n,
                                      f, k ? got : "no file");
            free(got);
            json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "fix_files", "what", what));
            free(what);
            ok = 0;
        }
        f += n;
    }
    free(files);
    return ok;
}

/* one entry's checks beyond its manifest: what it runs, its switch, its control, its fix in the history */
static void check_entry(json_t *e, const char *bugdir, const char *patch, const char *history)
{
    json_t *find = json_object_get(e, "findings");
    const char *id = json_string_value(json_object_get(e, "id"));
    json_t *m = json_object_get(e, "manifest");
    const char *plant = json_string_value(json_object_get(m, "plant"));
    const char *sw = json_string_value(json_object_get(m, "switch"));
    char *trig = mtb_asprintf("%s/trigger.hex", bugdir);
    const char *bench = json_string_value(json_object_get(m, "benchmark"));
    if (plant ? !json_object_get(m, "reach") : !bench && !mtb_file_exists(trig))
        json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "trigger", "what",
                                              plant ? "a plant without 'reach'" : "no trigger.hex (nor a benchmark)"));
    else if (bench) /* an embedded service's bug: the db_bench benchmark that reaches it */
        json_object_set_new(e, "trigger_benchmark", json_string(bench));
    else if (!plant) { /* the bytes the driver would send */
        char why[512];
        size_t len = 0, cuts[MTB_TRIGGER_MAXCUTS];
        int ncuts = 0;
        unsigned char *b = mtb_trigger_read(trig, &len, cuts, &ncuts, why, sizeof why);
        if (b)
            json_object_set_new(e, "trigger_bytes", json_integer((json_int_t)len));
        else
            json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "trigger", "what", why));
        free(b);
    }
    char *on = mtb_asprintf("mtbbug_on(\"%s\")", sw && *sw ? sw : id);
    char *ref = mtb_asprintf("mtbbug_mark(\"refused\", \"%s\")", sw && *sw ? sw : id);
    if (!plant && !(patch && strstr(patch, on)))
        json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "switch", "what", on));
    int control = plant || (patch && strstr(patch, ref) && json_object_get(m, "control_expect"));
    json_object_set_new(e, "control", json_boolean(control));
    if (!control)
        json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "control",
                                              "what", "no fixed-build control (bugs.patch marks no 'refused' for "
                                                      "it where the fix refuses, or no control_expect)"));
    const char *fc = json_string_value(json_object_get(m, "fix_commit"));
    const char *ff = json_string_value(json_object_get(m, "fix_files"));
    if (history && fc && !plant) {
        char hash[41];
        snprintf(hash, sizeof hash, "%.*s", (int)hash_len(fc), fc);
        if (!*hash || !in_history(history, hash))
            json_array_append_new(find, json_pack("{s:s,s:s}", "kind", "fix_commit", "what",
                                                  "not found in the history given"));
        else {
            json_object_set_new(e, "fix_commit_found", json_true());
            /* there, and the fix of the files the manifest names (a commit of
             * the same history that changed other files is a wrong citation) */
            if (ff && check_files(find, history, hash, ff))
                json_object_set_new(e, "fix_files_touched", json_true());
        }
    }
    free(trig);
    free(on);
    free(ref);
}

/* the entries of one service */
static void service_entries(const char *svc, const char *history, json_t *out)
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
            char why[MTB_ERRLEN];
            json_t *m = parse(mp, why, sizeof why);
            json_t *e = json_pack("{s:s,s:s,s:o,s:[]}", "service", svc, "id", ents[i]->d_name, "manifest",
                                  m ? m : json_object(), "findings");
            if (!m || problem(m, mp, why, sizeof why) != 0)
                json_array_append_new(json_object_get(e, "findings"),
                                      json_pack("{s:s,s:s}", "kind", "manifest", "what", why));
            check_entry(e, bugdir, patch, history);
            json_array_append_new(out, e);
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

static const char *mstr(json_t *e, const char *k)
{
    const char *v = json_string_value(json_object_get(json_object_get(e, "manifest"), k));
    return v ? v : "-";
}

json_t *mtb_catalogue_check(const char *service, const char *history)
{
    json_t *all = json_array(), *svcs = service ? json_pack("[s]", service) : services();
    size_t i;
    json_t *s;
    json_array_foreach(svcs, i, s) service_entries(json_string_value(s), history, all);
    json_decref(svcs);
    return all;
}

void mtb_catalogue_print(FILE *f, json_t *entries)
{
    size_t i, k, real = 0, bad = 0, controls = 0;
    json_t *e, *x;
    fprintf(f, "%-10s %-24s %-22s %-16s %-6s %-10s %-11s %-9s %s\n", "service", "id", "class", "memory", "in",
            "port", "pov", "control", "fix_commit");
    json_array_foreach(entries, i, e) {
        char mem[17];
        snprintf(mem, sizeof mem, "%s", mstr(e, "memory"));
        const char *fc = mstr(e, "fix_commit");
        fprintf(f, "%-10s %-24s %-22s %-16s %-6s %-10s %-11s %-9s %.*s%s\n", json_string_value(json_object_get(e, "service")),
                json_string_value(json_object_get(e, "id")), mstr(e, "class"), mem, mstr(e, "access_in"),
                mstr(e, "port"), mstr(e, "pov"), json_is_true(json_object_get(e, "control")) ? "yes" : "no",
                (int)(strcspn(fc, " ") < 12 ? strcspn(fc, " ") : 12), fc,
                !json_is_true(json_object_get(e, "fix_commit_found")) ? ""
                : json_is_true(json_object_get(e, "fix_files_touched")) ? " (found)"
                                                                          : " (found: not its fix_files)");
        /* a real bug: not a plant, and not a second trigger of another entry's (its switch) */
        const char *sw = mstr(e, "switch");
        int is_real = strcmp(mstr(e, "port"), "plant") &&
                      (!strcmp(sw, "-") || !strcmp(sw, json_string_value(json_object_get(e, "id"))));
        real += is_real;
        controls += is_real && json_is_true(json_object_get(e, "control"));
        json_array_foreach(json_object_get(e, "findings"), k, x) {
            fprintf(f, "  ! %s: %s\n", json_string_value(json_object_get(x, "kind")),
                    json_string_value(json_object_get(x, "what")));
            bad++;
        }
    }
    json_t *mans = json_object();
    json_array_foreach(entries, i, e) {
        char key[160];
        snprintf(key, sizeof key, "%s", json_string_value(json_object_get(e, "id")));
        json_object_set(mans, key, json_object_get(e, "manifest"));
    }
    json_t *mix = mtb_catalogue_mix(mans);
    mtb_catalogue_mix_print(f, mix, 0);
    json_decref(mix);
    json_decref(mans);
    fprintf(f, "\n%zu entries, %zu real bugs (plants and second triggers are not counted), %zu of them with a fixed-build "
               "control; "
               "%zu findings\n",
            json_array_size(entries), real, controls, bad);
}

/* ARVO's crash mix (OSS-Fuzz reproducers, as the issue and REFERENCES.md
 * give it): 1,802 heap overflows, 77% of them reads (1,388 rounded), 1,015
 * uninitialised reads, 389 use-after-frees */
static const struct {
    const char *kind;
    long arvo;
} arvo[] = { { "heap overflow (read)", 1388 }, { "heap overflow (write)", 414 }, { "uninitialised read", 1015 },
             { "use after free", 389 }, { "stack", -1 }, { "double free", -1 } };
#define NARVO (sizeof arvo / sizeof arvo[0])

/* the mix's kind of a manifest (NULL: a plant, or a second trigger of another entry's bug) */
static const char *kind_of(const char *id, json_t *m)
{
    const char *port = json_string_value(json_object_get(m, "port")), *sw = json_string_value(json_object_get(m, "switch"));
    const char *cl = json_string_value(json_object_get(m, "class")), *acc = json_string_value(json_object_get(m, "access"));
    if ((port && !strcmp(port, "plant")) || (sw && *sw && strcmp(sw, id)) || !cl)
        return NULL;
    if (!strcmp(cl, "linear overflow") || !strcmp(cl, "intra-granule overflow") || !strcmp(cl, "far write") ||
        !strcmp(cl, "out-of-bounds read"))
        return acc && !strcmp(acc, "read") ? arvo[0].kind : arvo[1].kind;
    return cl;
}

json_t *mtb_catalogue_mix(json_t *manifests)
{
    long n[NARVO] = { 0 }, total = 0, atotal = 0;
    const char *id;
    json_t *m;
    json_object_foreach(manifests, id, m) {
        const char *k = kind_of(id, m);
        for (size_t i = 0; k && i < NARVO; i++)
            if (!strcmp(k, arvo[i].kind)) {
                n[i]++;
                total++;
            }
    }
    for (size_t i = 0; i < NARVO; i++)
        atotal += arvo[i].arvo > 0 ? arvo[i].arvo : 0;
    json_t *rows = json_array();
    for (size_t i = 0; i < NARVO; i++) {
        json_t *r = json_pack("{s:s,s:I,s:f}", "kind", arvo[i].kind, "catalogue", (json_int_t)n[i], "catalogue_share",
                              total ? (double)n[i] / (double)total : 0.0);
        if (arvo[i].arvo > 0)
            json_object_update_new(r, json_pack("{s:I,s:f}", "arvo", (json_int_t)arvo[i].arvo, "arvo_share",
                                                (double)arvo[i].arvo / (double)atotal));
        json_array_append_new(rows, r);
    }
    return rows;
}

void mtb_catalogue_mix_print(FILE *f, json_t *rows, int md)
{
    size_t i;
    json_t *r;
    fprintf(f, md ? "\n| kind | catalogue | share | ARVO (OSS-Fuzz) | share |\n|---|---|---|---|---|\n"
                  : "\n%-22s %9s %6s %16s %6s\n", "kind", "catalogue", "share", "ARVO (OSS-Fuzz)", "share");
    json_array_foreach(rows, i, r) {
        char a[32] = "-", as[16] = "-";
        if (json_object_get(r, "arvo")) {
            snprintf(a, sizeof a, "%lld", (long long)json_integer_value(json_object_get(r, "arvo")));
            snprintf(as, sizeof as, "%.0f%%", 100 * json_real_value(json_object_get(r, "arvo_share")));
        }
        fprintf(f, md ? "| %s | %lld | %.0f%% | %s | %s |\n" : "%-22s %9lld %5.0f%% %16s %6s\n",
                json_string_value(json_object_get(r, "kind")), (long long)json_integer_value(json_object_get(r, "catalogue")),
                100 * json_real_value(json_object_get(r, "catalogue_share")), a, as);
    }
    fprintf(f, md ? "\nARVO's shares are of its heap overflows (77%% reads), uninitialised reads and use-after-frees;"
                    " it gives no stack or double-free count here. Tag checks never see an uninitialised read.\n"
                  : "(ARVO's shares: of its heap overflows (77%% reads), uninitialised reads and use-after-frees; "
                    "tag checks never see an uninitialised read)\n");
}
