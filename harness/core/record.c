/* record.c - see record.h */
#include "lib/jsonx.h"
#include "core/mode.h"
#include "core/record.h"
#include "core/allocator.h"
#include "lib/util.h"
#include "lib/files.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the metric table --------------------------------------------------------------- */

const struct mtb_run_metric mtb_run_metrics[MTB_NRUN_METRICS] = {
#define X(key, label, unit, better, load, views, nightly) { #key, label, unit, better, load, views, nightly },
    MTB_RUN_METRICS(X)
#undef X
};
const struct mtb_pair_metric mtb_pair_metrics[MTB_NPAIR_METRICS] = {
#define X(key, label, of, tagged_num, views, nightly) { #key, label, MTB_M_##of, tagged_num, views, nightly },
    MTB_PAIR_METRICS(X)
#undef X
};

double mtb_record_metric(json_t *rec, enum mtb_run_metric_id m)
{
    const struct mtb_run_metric *d = &mtb_run_metrics[m];
    double v = mtb_jnum(json_object_get(rec, "summary"), d->key);
    if (isnan(v) && d->load)
        v = mtb_jnum(json_object_get(json_object_get(json_object_get(rec, "load"), "latency_us"), "corrected"), d->load);
    return v;
}

double mtb_record_pair_metric(json_t *tagged, json_t *baseline, enum mtb_pair_metric_id p)
{
    const struct mtb_pair_metric *d = &mtb_pair_metrics[p];
    double t = mtb_record_metric(tagged, d->of), b = mtb_record_metric(baseline, d->of);
    double num = d->tagged_num ? t : b, den = d->tagged_num ? b : t;
    if (!isfinite(num) || !(den > 0) || !isfinite(den))
        return NAN;
    return num / den;
}

/* ---- writing ------------------------------------------------------------------------ */

int mtb_record_write(const char *path, json_t *rec)
{
    char *text = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text)
        return -ENOMEM;
    int rc = mtb_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}

/* ---- loading ------------------------------------------------------------------------ */

const char *mtb_record_problem_name(enum mtb_record_problem p)
{
    static const char *const names[] = { "ok", "not-json", "not-object", "no-schema", "other-schema", "no-service",
                                          "no-figures", "counted" };
    return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "unknown";
}

static int schema_known(const char *s)
{
    static const char *const known[] = MTB_RECORD_SCHEMAS;
    for (const char *const *k = known; *k; k++)
        if (!strcmp(*k, s))
            return 1;
    return 0;
}

enum mtb_record_problem mtb_record_check(json_t *rec, char *msg, size_t n)
{
    const char *schema = json_string_value(json_object_get(rec, "schema"));
    enum mtb_record_problem p = MTB_REC_OK;
    if (!json_is_object(rec))
        snprintf(msg, n, "not a run record: a JSON %s, not an object", json_is_array(rec) ? "array" : "scalar"),
            p = MTB_REC_NOT_OBJECT;
    else if (!schema)
        snprintf(msg, n, "not a run record: no \"schema\" field (expected %s)", MTB_RECORD_SCHEMA), p = MTB_REC_NO_SCHEMA;
    else if (!schema_known(schema))
        snprintf(msg, n, "schema version \"%.100s\" is not %s (written by another version of mtebench; "
                 "report it with that version)", schema, MTB_RECORD_SCHEMA), p = MTB_REC_OTHER_SCHEMA;
    else if (!json_is_object(json_object_get(rec, "config")) ||
             !json_is_string(json_object_get(json_object_get(rec, "config"), "service")))
        snprintf(msg, n, "incomplete record: no config.service"), p = MTB_REC_NO_SERVICE;
    else if (!strcmp(mtb_jstr(rec, "status"), "ok") && !(mtb_jnum(json_object_get(rec, "summary"), "ops_per_sec") >= 0))
        snprintf(msg, n, "incomplete record: status ok but no summary.ops_per_sec"), p = MTB_REC_NO_FIGURES;
    else if (json_is_string(json_object_get(rec, "timing")) && json_object_get(rec, "work"))
        snprintf(msg, n, "a counted run: the counting plugin slowed it, its figures are no timing (its work: "
                 "docs/COUNTING.md)"), p = MTB_REC_COUNTED;
    else if (n)
        msg[0] = 0;
    return p;
}

static void add_bad(struct mtb_record_set *set, const char *file, const char *problem, enum mtb_record_problem p)
{
    json_array_append_new(set->bad, json_pack("{s:s,s:s,s:s}", "file", file, "problem", problem, "reason",
                                              mtb_record_problem_name(p)));
}

/* Check one record file; keep it or list it as bad. */
static void load_one(struct mtb_record_set *set, const char *path, json_t *seen)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    if (json_object_get(seen, real))
        return;
    json_object_set_new(seen, real, json_true());
    json_error_t e;
    json_t *rec = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    char msg[400];
    if (!rec) {
        snprintf(msg, sizeof msg, "corrupt record: not valid JSON (line %d: %s)", e.line, e.text);
        add_bad(set, path, msg, MTB_REC_NOT_JSON);
        return;
    }
    enum mtb_record_problem p = mtb_record_check(rec, msg, sizeof msg);
    if (p != MTB_REC_OK) {
        add_bad(set, path, msg, p);
        json_decref(rec);
        return;
    }
    json_array_append_new(set->records, rec);
    json_array_append_new(set->files, json_string(path));
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int mtb_record_set_init(struct mtb_record_set *set)
{
    set->records = json_array();
    set->files = json_array();
    set->bad = json_array();
    set->dirs = json_array();
    if (!set->records || !set->files || !set->bad || !set->dirs) {
        mtb_record_set_free(set);
        return -ENOMEM;
    }
    return 0;
}

/* DIR/record.json and DIR/<any>/record.json of one directory */
static void load_dir(struct mtb_record_set *set, const char *dir, json_t *seen)
{
    json_array_append_new(set->dirs, json_string(dir));
    if (!is_dir(dir)) {
        add_bad(set, dir, errno == ENOENT || !mtb_file_exists(dir) ? "no such directory" : "not a directory",
                MTB_REC_NOT_JSON);
        return;
    }
    size_t before = json_array_size(set->records) + json_array_size(set->bad);
    char *top = mtb_asprintf("%s/record.json", dir);
    if (mtb_file_exists(top))
        load_one(set, top, seen);
    free(top);
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.') {
            char *p = mtb_asprintf("%s/%s/record.json", dir, ents[i]->d_name);
            if (mtb_file_exists(p))
                load_one(set, p, seen);
            free(p);
        }
        free(ents[i]);
    }
    free(ents);
    if (json_array_size(set->records) + json_array_size(set->bad) == before)
        add_bad(set, dir, "no records (looked for DIR/record.json and DIR/*/record.json)", MTB_REC_NOT_JSON);
}

int mtb_record_load(char *const dirs[], int ndirs, struct mtb_record_set *set)
{
    if (mtb_record_set_init(set) != 0)
        return -ENOMEM;
    json_t *seen = json_object();
    if (!seen)
        return -ENOMEM;
    for (int d = 0; d < ndirs; d++)
        load_dir(set, dirs[d], seen);
    json_decref(seen);
    return 0;
}

int mtb_record_set_from(json_t *records, json_t *files, const char *dir, struct mtb_record_set *set)
{
    if (mtb_record_set_init(set) != 0)
        return -ENOMEM;
    json_array_append_new(set->dirs, json_string(dir));
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        char msg[400];
        const char *file = json_string_value(json_array_get(files, i));
        enum mtb_record_problem p = mtb_record_check(rec, msg, sizeof msg);
        if (p != MTB_REC_OK) {
            add_bad(set, file ? file : dir, msg, p);
        } else {
            json_array_append(set->records, rec);
            json_array_append_new(set->files, json_string(file ? file : dir));
        }
    }
    return 0;
}

void mtb_record_set_free(struct mtb_record_set *set)
{
    json_decref(set->records);
    json_decref(set->files);
    json_decref(set->bad);
    json_decref(set->dirs);
    memset(set, 0, sizeof *set);
}

size_t mtb_record_usable(const struct mtb_record_set *set)
{
    size_t i, n = 0;
    json_t *rec;
    json_array_foreach(set->records, i, rec) n += !strcmp(mtb_jstr(rec, "status"), "ok");
    return n;
}

/* ---- the record's facts ------------------------------------------------------------- */

int mtb_record_emulated(json_t *rec) { return json_is_true(json_object_get(json_object_get(rec, "platform"), "emulated")); }

/** @return the record's repetition (config.rep, 1-based; 0 if absent) */
static int mtb_record_rep(json_t *rec) { return (int)json_integer_value(json_object_get(json_object_get(rec, "config"), "rep")); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

char *mtb_workload_key(json_t *w)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return mtb_strdup("");
    const char **keys = mtb_calloc(json_object_size(w) + 1, sizeof *keys);
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach(w, k, v) keys[n++] = k;
    qsort(keys, n, sizeof *keys, cmp_str);
    for (size_t i = 0; i < n; i++) {
        v = json_object_get(w, keys[i]);
        fprintf(f, "%s%s=", i ? "," : "", keys[i]);
        if (json_is_number(v)) {
            fprintf(f, "%.17g", json_number_value(v)); /* 2 and 2.0 are the same workload */
        } else {
            char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
            fprintf(f, "%s", d ? d : "");
            free(d);
        }
    }
    fclose(f);
    free(keys);
    return buf;
}

int mtb_workload_equal(json_t *a, json_t *b)
{
    char *x = mtb_workload_key(a), *y = mtb_workload_key(b);
    int eq = !strcmp(x, y);
    free(x);
    free(y);
    return eq;
}

/* The profile's first keys always; the later ones (NUMA node, sweep, raw
 * events, ...) only when set, so that series recorded before they existed
 * keep their keys; never the file's path. */
char *mtb_record_machine_text(json_t *rec)
{
    json_t *m = json_object_get(rec, "machine");
    if (!json_is_object(m))
        return mtb_strdup("");
    static const char *const base[] = { "name", "service_cpus", "client_cpus", "service_threads", "loadgen_threads",
                                        "perf_events", NULL };
    json_t *k = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v)
    {
        int keep = 0;
        for (const char *const *b = base; *b && !keep; b++)
            keep = !strcmp(*b, key);
        if (!keep && strcmp(key, "file"))
            keep = !(json_is_null(v) || json_is_false(v) || (json_is_string(v) && !*json_string_value(v)) ||
                     (json_is_array(v) && !json_array_size(v)) || (json_is_object(v) && !json_object_size(v)) ||
                     (!strcmp(key, "sweep_cpus") && json_equal(v, json_object_get(m, "service_cpus"))));
        if (keep)
            json_object_set(k, key, v);
    }
    char *d = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(k);
    return d ? d : mtb_strdup("");
}

/* ---- the pairing rule -------------------------------------------------------------- */

const char *mtb_record_host(json_t *rec)
{
    json_t *hosts = json_object_get(rec, "hosts");
    /* a server host's run: the host it ran on, as the transport saw it */
    const char *s = mtb_jstr(json_object_get(hosts, "server"), "hostname");
    if (*s)
        return s;
    /* a vm guest's own name ("(none)") says nothing of the machine: the one that booted it ("" before it was kept) */
    if (!strcmp(mtb_jstr(json_object_get(rec, "config"), "platform"), "vm"))
        return mtb_jstr(json_object_get(hosts, "controller"), "hostname");
    return mtb_jstr(json_object_get(rec, "environment"), "hostname");
}

int mtb_record_is_baseline(json_t *c) { return !strcmp(mtb_jstr(c, "variant"), "plain") && !strcmp(mtb_jstr(c, "mode"), "off"); }

/* one field of the pair key, as text */
static char *pair_field(json_t *rec, const char *field)
{
    json_t *c = json_object_get(rec, "config");
    json_t *rl = json_object_get(json_object_get(rec, "sequential"), "run_length");
    if (!strcmp(field, "workload") && json_is_number(json_object_get(rl, "pilot_s"))) {
        /* REPS=auto chose the run length after its pilot pairs (runlen.c): one configuration, runs of two
         * lengths, keyed by the configured (pilot) one */
        json_t *w = json_deep_copy(json_object_get(c, "workload"));
        json_object_set(w, "duration_s", json_object_get(rl, "pilot_s"));
        char *k = mtb_workload_key(w);
        json_decref(w);
        return k;
    }
    if (!strcmp(field, "workload"))
        return mtb_workload_key(json_object_get(c, "workload"));
    if (!strcmp(field, "machine"))
        return mtb_record_machine_text(rec);
    if (!strcmp(field, "allocator")) /* records from before the axis ran glibc's */
        return mtb_strdup(mtb_config_allocator(c));
    return mtb_strdup(mtb_jstr(c, field));
}

char *mtb_record_pair_key(json_t *rec)
{
    static const char *const fields[] = {
#define X(f) #f,
        MTB_PAIR_FIELDS(X)
#undef X
    };
    char *key = mtb_strdup("");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char *v = pair_field(rec, fields[i]), *k = mtb_asprintf("%s%s%s=%s", key, i ? "|" : "", fields[i], v);
        free(v);
        free(key);
        key = k;
    }
    return key;
}

int mtb_record_pairs(json_t *tagged, json_t *baseline)
{
    if (mtb_record_is_baseline(json_object_get(tagged, "config")) ||
        !mtb_record_is_baseline(json_object_get(baseline, "config")) || mtb_record_rep(tagged) != mtb_record_rep(baseline) ||
        strcmp(mtb_record_host(tagged), mtb_record_host(baseline))) /* never a baseline of another machine */
        return 0;
    char *a = mtb_record_pair_key(tagged), *b = mtb_record_pair_key(baseline);
    int same = !strcmp(a, b);
    free(a);
    free(b);
    return same;
}

long mtb_record_partner(json_t *records, json_t *rec)
{
    size_t i;
    json_t *b;
    json_array_foreach(records, i, b) if (!strcmp(mtb_jstr(b, "status"), "ok") && mtb_record_pairs(rec, b)) return (long)i;
    return -1;
}

long *mtb_record_partners(json_t *records)
{
    size_t n = json_array_size(records);
    long *out = mtb_calloc(n ? n : 1, sizeof *out);
    char **keys = mtb_calloc(n ? n : 1, sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(records, i);
        keys[i] = strcmp(mtb_jstr(r, "status"), "ok") ? NULL : mtb_record_pair_key(r); /* each key built once */
        out[i] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(records, i);
        if (!keys[i] || mtb_record_is_baseline(json_object_get(t, "config")))
            continue;
        for (size_t j = 0; j < n && out[i] < 0; j++) {
            json_t *b = json_array_get(records, j);
            if (keys[j] && mtb_record_is_baseline(json_object_get(b, "config")) &&
                mtb_record_rep(b) == mtb_record_rep(t) && !strcmp(keys[i], keys[j]) &&
                !strcmp(mtb_record_host(b), mtb_record_host(t)))
                out[i] = (long)j;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    return out;
}

char *mtb_record_pair_sql(const char *t, const char *b)
{
    char *sql = mtb_asprintf("%s.night = %s.night AND %s.rep = %s.rep", b, t, b, t);
#define X(f)                                                                       \
    {                                                                              \
        char *s = mtb_asprintf("%s AND %s.%s = %s.%s", sql, b, #f, t, #f);        \
        free(sql);                                                                 \
        sql = s;                                                                   \
    }
    MTB_PAIR_FIELDS(X)
#undef X
    /* never a baseline of another machine: the history keeps mtb_record_host as runs.host */
    char *s = mtb_asprintf("%s AND %s.host = %s.host AND %s.variant = 'plain' AND %s.mode = 'off'"
                           " AND NOT (%s.variant = 'plain' AND %s.mode = 'off')", sql, b, t, b, b, t, t);
    free(sql);
    return s;
}

/* ---- making ------------------------------------------------------------------------- */

static json_t *id_config(const struct mtb_record_id *id)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:O?}", "service", id->service, "variant", id->variant,
                     "mode", id->mode, "allocator", id->allocator ? id->allocator : "glibc", "platform", id->platform,
                     "kernel", id->kernel, "plan", id->plan ? id->plan : "", "rep", id->rep, "index", id->index,
                     "total", id->total, "workload", id->workload);
}

json_t *mtb_record_begin(const struct mtb_record_id *id)
{
    char started[32];
    mtb_utc_iso(started, sizeof started);
    json_t *rec = json_pack("{s:s,s:s}", "schema", MTB_RECORD_SCHEMA, "started", started);
    mtb_record_identify(rec, id);
    return rec;
}

void mtb_record_identify(json_t *rec, const struct mtb_record_id *id)
{
    json_t *c = json_object_get(rec, "config");
    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(rec, "config", c);
    }
    json_t *idc = id_config(id);
    json_object_update(c, idc);
    json_decref(idc);
    json_object_set_new(rec, "mtebench_version", json_string(MTEBENCH_VERSION));
    if (id->build)
        json_object_set(rec, "build", id->build);
}

void mtb_record_fail(json_t *rec, const char *err)
{
    json_object_set_new(rec, "status", json_string("error"));
    json_object_set_new(rec, "error", json_string(err));
}

enum mtb_run_status mtb_record_status(json_t *rec)
{
    const char *s = json_string_value(json_object_get(rec, "status"));
    return s && !strcmp(s, "ok") ? MTB_RUN_OK : s && !strcmp(s, "fault") ? MTB_RUN_FAULT : MTB_RUN_ERROR;
}

int mtb_record_warnings_add(json_t *rec)
{
    json_object_del(rec, "warnings");
    json_t *w = json_array();
    json_t *cfg = json_object_get(rec, "config"), *proof = json_object_get(rec, "proof");
    const struct mtb_mode *m = mtb_mode_find(json_string_value(json_object_get(cfg, "mode")));
    json_t *mt = json_object_get(proof, "smaps_mt");
    /* null: smaps cannot show tags here (emu, or no MTE); an integer was read */
    if (m && m->tagged && json_is_integer(mt) && json_integer_value(mt) == 0)
        json_array_append_new(w, json_sprintf("tagging not seen: MODE=%s on %s, yet the service has no `mt` (PROT_MTE) "
                                              "mapping in /proc/PID/smaps; its memory was not tagged",
                                              m->name, json_string_value(json_object_get(cfg, "platform"))));
    const char *nw = json_string_value(json_object_get(json_object_get(rec, "machine"), "numa_warning"));
    if (nw && *nw)
        json_array_append_new(w, json_string(nw));
    int n = (int)json_array_size(w);
    if (n)
        json_object_set_new(rec, "warnings", w);
    else
        json_decref(w);
    return n;
}

enum mtb_run_status mtb_record_end(json_t *rec, const char *dir)
{
    char finished[32];
    mtb_utc_iso(finished, sizeof finished);
    json_object_set_new(rec, "finished", json_string(finished));
    char *recp = mtb_asprintf("%s/record.json", dir);
    int wrc = mtb_record_write(recp, rec);
    if (wrc != 0) { /* not on disk, so not a result */
        char *m = mtb_asprintf("cannot write %s: %s", recp, mtb_errdesc(wrc));
        mtb_record_fail(rec, m);
        json_object_set_new(rec, "not_written", json_true());
        free(m);
    }
    free(recp);
    return mtb_record_status(rec);
}

double mtb_record_num(json_t *rec, const char *key)
{
    json_t *v = json_object_get(json_object_get(rec, "summary"), key);
    return json_is_number(v) ? json_number_value(v) : 0;
}
