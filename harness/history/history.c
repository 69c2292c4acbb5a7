/* history.c - see history.h
 *
 * One history API over two backends (history_db.h): an SQLite file
 * (history_sqlite.c) and a PostgreSQL database (history_pg.c). This file
 * holds the API: opening and closing, redaction, series keys, adding a night
 * and loading the series. The dialect of our SQL and the statement helpers
 * every part shares are history_sql.c; the schema, its checks and migrations
 * history_schema.c. */
#include "lib/jsonx.h"
#include "history/history.h"
#include "core/work.h"
#include "history/history_db.h"
#include "core/record.h"
#include "core/record_env.h"
#include "core/record_outcome.h"
#include "core/work_rows.h"
#include "core/capacity_rows.h"
#include "core/allocator.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- redaction ------------------------------------------------------------------- */

static int is_pg_url(const char *s)
{
    return !strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11);
}


char *mtb_history_redact(const char *where)
{
    if (!where)
        return mtb_strdup("");
    if (!is_pg_url(where))
        return mtb_strdup(where);
    char *out = mtb_strdup(where);
    size_t plen;
    const char *pw = mtb_hdb_url_password(where, &plen);
    if (pw) {
        char *o = mtb_asprintf("%.*s***%s", (int)(pw - where), where, pw + plen);
        free(out);
        out = o;
    }
    /* password=... in the query */
    char *q = strchr(out, '?');
    while (q) {
        q++;
        if (!strncmp(q, "password=", 9)) {
            size_t n = strcspn(q + 9, "&#");
            char *o = mtb_asprintf("%.*s***%s", (int)(q + 9 - out), out, q + 9 + n);
            q = o + (q - out);
            free(out);
            out = o;
        }
        q = strchr(q, '&');
    }
    return out;
}

void mtb_history_series_key(json_t *rec, char **key, char hash[13])
{
    char *k;
    mtb_hdb_config_key(rec, &k, hash);
    *key = mtb_hdb_key_on_host(k, mtb_hdb_host(rec));
    free(k);
}

/* ---- open / close ------------------------------------------------------------------------ */

int mtb_history_open(const char *where, struct mtb_history **out, int *created, char *err, size_t errlen)
{
    *out = NULL;
    if (created)
        *created = 0;
    if (!where || !*where) {
        snprintf(err, errlen, "no history given");
        return -EINVAL;
    }
    struct mtb_history *h = mtb_calloc(1, sizeof *h);
    h->path = mtb_history_redact(where);
    if (is_pg_url(where)) {
#ifdef MTB_WITH_PG
        h->be = &mtb_hdb_pg;
        mtb_hdb_pg_secrets(h, where);
#else
        snprintf(err, errlen, "history %s: PostgreSQL histories are not built in this mtebench (built without "
                 "libpq: install libpq-dev and rebuild; or use an SQLite file: --history PATH)", h->path);
        mtb_history_close(h);
        return -ENOTSUP;
#endif
    } else {
        h->be = &mtb_hdb_sqlite;
    }
    int existed = 0, rc = h->be->connect(h, where, &existed, err, errlen);
    if (!rc)
        rc = mtb_hdb_prepare_schema(h, created, err, errlen); /* checks the tables' shape too */
    if (rc) {
        mtb_hdb_scrub(h, err);
        mtb_history_close(h);
        return rc;
    }
    *out = h;
    return 0;
}

void mtb_history_close(struct mtb_history *h)
{
    if (!h)
        return;
    if (h->conn)
        h->be->close(h);
    free(h->path);
    for (int k = 0; k < 4; k++)
        free(h->secret[k]);
    free(h);
}

int mtb_history_schema(struct mtb_history *h) { return h->version; }

const char *mtb_history_backend(struct mtb_history *h) { return h->be->name; }

int mtb_history_write_script(struct mtb_history *h, const char *sql, char *err, size_t errlen)
{
    char *s = mtb_asprintf("%s; %s; COMMIT;", h->be->begin, sql);
    int rc = mtb_hdb_exec(h, s, err, errlen);
    free(s);
    if (rc)
        mtb_hdb_rollback(h);
    return rc;
}

long long mtb_history_nights(struct mtb_history *h, char *err, size_t errlen)
{
    long long n = 0;
    int rc = mtb_hdb_q_int(h, "SELECT count(*) FROM nights", NULL, 0, &n, err, errlen);
    return rc ? rc : n;
}


/* ---- adding a night --------------------------------------------------------------------- */

static struct hp num(double v)
{
    if (isfinite(v))
        return (struct hp){ .t = P_REAL, .d = v };
    return PNULL;
}

/* a column of a row to insert, by name: the statement is generated from the
 * row, so names and values cannot drift apart */
struct hcol {
    const char *name;
    struct hp v;
};

/* INSERT INTO table(names) VALUES (?1, ...) ON CONFLICT DO NOTHING */
static int insert_row(struct mtb_history *h, const char *table, const struct hcol *cols, size_t n, struct hres *r,
                      char *err, size_t errlen)
{
    char *names = mtb_strdup(""), *vals = mtb_strdup("");
    struct hp *p = mtb_calloc(n ? n : 1, sizeof *p);
    for (size_t i = 0; i < n; i++) {
        char *a = mtb_asprintf("%s%s%s", names, i ? ", " : "", cols[i].name);
        char *b = mtb_asprintf("%s%s?%zu", vals, i ? ", " : "", i + 1);
        free(names);
        free(vals);
        names = a;
        vals = b;
        p[i] = cols[i].v;
    }
    char *sql = mtb_asprintf("INSERT INTO %s(%s) VALUES (%s) ON CONFLICT DO NOTHING", table, names, vals);
    int rc = mtb_hdb_q(h, sql, p, (int)n, r, err, errlen);
    free(sql);
    free(names);
    free(vals);
    free(p);
    return rc;
}

/* A record's identity in the history, shared by runs and counted runs: its
 * series key and hash, workload key, machine, kernel build (a hash of
 * uname -v) and record id (several machines write to a shared store: the
 * same path on two machines is two records, "host:path"). */
struct rec_ident {
    char *key, hash[13], kb[13], *wl, *mach, *recid;
    struct mtb_rec_config cfg; /* the record's configuration, typed (a set's records have theirs whole) */
    struct mtb_rec_env env;    /* where and how it ran */
};

static void ident_of(struct mtb_history *h, const char *host, json_t *rec, const char *file, struct rec_ident *id)
{
    char real[PATH_MAX];
    memset(id, 0, sizeof *id);
    mtb_rec_config_view(rec, &id->cfg); /* a counted record is not a set's (mtb_record_check): each key as it has it */
    mtb_history_series_key(rec, &id->key, id->hash);
    id->wl = mtb_workload_key(id->cfg.workload);
    id->mach = mtb_record_machine_text(rec);
    mtb_rec_env_read(rec, &id->env);
    if (*id->env.uname_v)
        mtb_hdb_short_hash(id->env.uname_v, id->kb);
    if (!file || !realpath(file, real))
        snprintf(real, sizeof real, "%s", file ? file : "");
    id->recid = h->be->shared ? mtb_asprintf("%s:%s", host, real) : mtb_strdup(real);
}

static void ident_free(struct rec_ident *id)
{
    free(id->key);
    free(id->wl);
    free(id->mach);
    free(id->recid);
    mtb_rec_env_free(&id->env);
}

#define IDENT_COLS 18
/* the identity and revision columns of record rec (IDENT_COLS of them) into cols */
static void ident_cols(struct hcol *cols, long long nid, const char *plan, json_t *rec, const struct rec_ident *id)
{
    const struct mtb_rec_config *c = &id->cfg;
    const struct hcol v[IDENT_COLS] = {
        { "night", PINT(nid) },
        { "plan", PTEXT(*c->plan ? c->plan : plan) },
        { "series", PTEXT(id->key) },
        { "config_hash", PTEXT(id->hash) },
        { "service", PTEXT(c->service) },
        { "workload", PTEXT(id->wl) },
        { "variant", PTEXT(c->variant) },
        { "mode", PTEXT(c->mode) },
        { "platform", PTEXT(c->platform) },
        { "kernel", PTEXT(c->kernel) },
        { "machine", PTEXT(id->mach) },
        { "host", PTEXT(mtb_hdb_host(rec)) },
        { "started", PTEXT(id->env.started ? id->env.started : "") },
        { "mtebench_version", PTEXT(id->env.mtebench_version) },
        { "build_key", PTEXT(id->env.build_key) },
        { "kernel_release", PTEXT(id->env.uname_r) },
        { "kernel_build", PTEXT(id->kb) },
        { "record", PTEXT(id->recid) },
    };
    memcpy(cols, v, sizeof v);
}

/* what each row of a night is added with: the history, the night's id,
 * plan and host (this machine's), the count of rows added (*added), and
 * where a failure is said */
struct night_add {
    struct mtb_history *h;
    long long nid;
    const char *plan, *host;
    int *added;
    char *err;
    size_t errlen;
};

/* one run of night nid: its identity, revisions, status, emulated, record
 * file and the history's run metrics. *added counts it unless known. */
static int add_run(const struct night_add *na, json_t *rec, const char *file)
{
    struct rec_ident id;
    ident_of(na->h, na->host, rec, file, &id);
    int ok = mtb_record_status(rec) == MTB_RUN_OK;
    struct hcol cols[IDENT_COLS + 5 + MTB_NRUN_METRICS];
    ident_cols(cols, na->nid, na->plan, rec, &id);
    size_t n = IDENT_COLS;
    cols[n++] = (struct hcol){ "rep", PINT(id.cfg.rep) };
    struct mtb_rec_outcome ro;
    mtb_rec_outcome_read(rec, &ro);
    cols[n++] = (struct hcol){ "status", PTEXT(ro.status ? ro.status : "") };
    cols[n++] = (struct hcol){ "emulated", PINT(mtb_record_emulated(rec)) };
    struct mtb_rec_env env;
    mtb_rec_env_read(rec, &env);
    cols[n++] = (struct hcol){ "steal", num(env.steal_share) };
    mtb_rec_env_free(&env);
    cols[n++] = (struct hcol){ "allocator", PTEXT(id.cfg.allocator) };
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_HISTORY)
            cols[n++] = (struct hcol){ mtb_run_metrics[m].key,
                                       ok ? num(mtb_record_metric(rec, (enum mtb_run_metric_id)m)) : PNULL };
    struct hres r;
    int rc = insert_row(na->h, "runs", cols, n, &r, na->err, na->errlen);
    if (!rc)
        *na->added += (int)r.changes;
    mtb_hdb_free(&r);
    ident_free(&id);
    return rc;
}

/* the overhead of a measured configuration at a bound, from a capacity result's overheads, or NULL */
static const struct mtb_cap_ci *cap_overhead(const struct mtb_cap_rows *r, const struct mtb_cap_config *c,
                                             const char *bound)
{
    for (size_t i = 0; i < r->noverheads; i++) {
        const struct mtb_cap_overhead *o = &r->overheads[i];
        if (!strcmp(o->variant, c->variant) && !strcmp(o->mode, c->mode) && !strcmp(o->bound, bound))
            return o->capacity.present ? &o->capacity : NULL;
    }
    return NULL;
}

/* A capacity series' key: "capacity:" and the configuration's run series
 * (its pilot's record: plan, service, workload with every parameter,
 * variant, mode, platform, kernel, machine, host), the bound and the
 * arrivals, with a hash of them all. Without the record (its file gone):
 * from the result's own fields, on this host. */
static char *cap_key(const struct mtb_cap_rows *r, const struct mtb_cap_config *c, json_t *rec, const char *bound,
                     const char *host, char hash[13])
{
    char *key, h0[13];
    if (rec) {
        mtb_history_series_key(rec, &key, h0);
    } else {
        char *full = mtb_asprintf("capacity|%s|%s|%s|%s|%s|%s|%s", r->plan, r->service, r->workload, c->variant,
                                  c->mode, r->platform, r->kernel);
        mtb_hdb_short_hash(full, h0);
        key = mtb_asprintf("%s/%s/%s/%s/%s/%s/%s on %s#%s", r->plan, r->service, r->workload, c->variant, c->mode,
                           r->platform, r->kernel, host, h0);
        free(full);
    }
    char *mix = mtb_asprintf("%s|%s|%s", h0, bound, r->arrival);
    mtb_hdb_short_hash(mix, hash);
    char *hs = strrchr(key, '#');
    char *out = mtb_asprintf("capacity:%.*s at %s, %s arrivals#%s", (int)(hs ? hs - key : (long)strlen(key)), key, bound,
                             r->arrival, hash);
    free(mix);
    free(key);
    return out;
}

/* one row per configuration and bound of a capacity result (file: its path) */
static int add_capacity(const struct night_add *na, json_t *result, const char *file)
{
    char real[PATH_MAX];
    if (!file || !realpath(file, real))
        snprintf(real, sizeof real, "%s", file ? file : "");
    char *resid = na->h->be->shared ? mtb_asprintf("%s:%s", na->host, real) : mtb_strdup(real);
    struct mtb_cap_rows res;
    mtb_cap_rows_read(result, &res);
    int rc = 0;
    for (size_t k = 0; k < res.nconfigs && !rc; k++)
        for (size_t b = 0; b < res.configs[k].nat && !rc; b++) {
            const struct mtb_cap_config *c = &res.configs[k];
            const struct mtb_cap_at *e = &c->at[b];
            json_t *rec = c->pilot_record ? json_load_file(c->pilot_record, 0, NULL) : NULL;
            struct mtb_rec_config cf;
            struct mtb_rec_env env;
            mtb_rec_config_view(rec, &cf);
            mtb_rec_env_read(rec, &env);
            char hash[13];
            const char *rhost = rec ? mtb_hdb_host(rec) : na->host;
            char *key = cap_key(&res, c, rec, e->bound, rhost, hash);
            char *wl = rec ? mtb_workload_key(cf.workload) : mtb_strdup(res.workload);
            char *mach = rec ? mtb_record_machine_text(rec) : mtb_strdup("");
            const struct mtb_cap_ci *ov = cap_overhead(&res, c, e->bound);
            struct hcol cols[] = {
                { "night", PINT(na->nid) },
                { "plan", PTEXT(*res.plan ? res.plan : na->plan) },
                { "series", PTEXT(key) },
                { "config_hash", PTEXT(hash) },
                { "service", PTEXT(res.service) },
                { "workload", PTEXT(wl) },
                { "variant", PTEXT(c->variant) },
                { "mode", PTEXT(c->mode) },
                { "platform", PTEXT(res.platform) },
                { "kernel", PTEXT(res.kernel) },
                { "machine", PTEXT(mach) },
                { "host", PTEXT(rhost) },
                { "started", rec ? PTEXT(env.started ? env.started : "") : PNULL },
                { "bound", PTEXT(e->bound) },
                { "arrival", PTEXT(res.arrival) },
                { "confidence", num(isnan(res.confidence) ? 0.95 : res.confidence) },
                { "status", PTEXT(e->status) },
                { "capacity", num(e->capacity) },
                { "lo", num(e->lo) },
                { "hi", num(e->hi) },
                { "closed_loop_ops", num(c->closed_loop_ops) },
                { "overhead", num(ov ? ov->est : NAN) },
                { "overhead_lo", num(ov ? ov->lo : NAN) },
                { "overhead_hi", num(ov ? ov->hi : NAN) },
                { "baseline", PINT(c->baseline) },
                { "emulated", PINT(res.emulated) },
                { "mtebench_version", rec ? PTEXT(env.mtebench_version) : PNULL },
                { "build_key", rec ? PTEXT(env.build_key) : PNULL },
                { "result", PTEXT(resid) },
            };
            struct hres r;
            rc = insert_row(na->h, "capacity", cols, sizeof cols / sizeof cols[0], &r, na->err, na->errlen);
            if (!rc)
                *na->added += (int)r.changes;
            mtb_hdb_free(&r);
            free(key);
            free(wl);
            free(mach);
            mtb_rec_env_free(&env);
            json_decref(rec);
        }
    mtb_cap_rows_free(&res);
    free(resid);
    return rc;
}

/* one counted run (a record with `work`; file: its path): its work per
 * request (its plan is "work": its series "work/SERVICE/...") */
static int add_work(const struct night_add *na, json_t *rec, const char *file)
{
    double v[MTB_NWORK];
    const char *role = "all";
    if (mtb_work_values(rec, v, &role) != 0)
        return 0; /* a counted run with no account (its error is in the record) */
    struct rec_ident id;
    ident_of(na->h, na->host, rec, file, &id);
    struct hcol cols[IDENT_COLS + 2 + MTB_NWORK];
    ident_cols(cols, na->nid, na->plan, rec, &id);
    size_t n = IDENT_COLS;
    cols[n++] = (struct hcol){ "role", PTEXT(role) };
    struct mtb_work_view wv;
    mtb_work_view_read(rec, &wv);
    cols[n++] = (struct hcol){ "requests", num(wv.has_requests ? wv.requests : NAN) };
    mtb_work_view_free(&wv);
    for (int q = 0; q < MTB_NWORK; q++)
        cols[n++] = (struct hcol){ mtb_work_quantities[q].key, num(v[q]) };
    struct hres r;
    int rc = insert_row(na->h, "work", cols, n, &r, na->err, na->errlen);
    if (!rc)
        *na->added += (int)r.changes;
    mtb_hdb_free(&r);
    ident_free(&id);
    return rc;
}

/* the night's rows, in the transaction mtb_history_add_night opened */
static int add_night(struct mtb_history *h, const struct mtb_night_in *in, long long *night, int *added, char *err,
                     size_t errlen);

/* a run's (or a search's) start and version into the night's: the earliest start, the first version */
static void night_stamp(const char *started, const char *version, const char **first, const char **night_version)
{
    if (*started && (!*first || strcmp(started, *first) < 0))
        *first = started;
    if (!**night_version)
        *night_version = version;
}

int mtb_history_add_night(struct mtb_history *h, const struct mtb_night_in *in, long long *night, int *added,
                          struct mtb_err *e)
{
    char err[MTB_ERRLEN] = "";
    int rc = add_night(h, in, night, added, err, sizeof err);
    if (rc)
        mtb_err_set(e, MTB_ERR_FAIL, "%s", err);
    return rc;
}

static int add_night(struct mtb_history *h, const struct mtb_night_in *in, long long *night, int *added, char *err,
                     size_t errlen)
{
    const char *plan = in->plan, *results_dir = in->results_dir, *report = in->report;
    json_t *records = in->records, *files = in->files, *capacity = in->capacity, *work = in->work,
           *work_files = in->work_files;
    *night = 0;
    *added = 0;
    if (!json_is_array(records) || !json_is_array(files) || json_array_size(records) != json_array_size(files)) {
        snprintf(err, errlen, "history: records and files do not match");
        return -EINVAL;
    }
    /* the night starts with its earliest run; a counted run's or a search's start and version are the
     * night's when it has no timed runs */
    const char *first = NULL, *version = "";
    size_t i;
    json_t *rec;
    for (int k = 0; k < 2; k++)
        json_array_foreach(k ? work : records, i, rec)
        {
            struct mtb_rec_env e;
            mtb_rec_env_read(rec, &e);
            night_stamp(e.started ? e.started : "", e.mtebench_version, &first, &version);
            mtb_rec_env_free(&e);
        }
    json_array_foreach(capacity, i, rec)
    {
        struct mtb_cap_rows c;
        mtb_cap_rows_read(rec, &c);
        night_stamp(c.started, c.mtebench_version, &first, &version);
        mtb_cap_rows_free(&c);
    }
    char now[32];
    mtb_utc_iso(now, sizeof now);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int rc = mtb_hdb_exec(h, h->be->begin, err, errlen);
    if (rc)
        return rc;
    struct hres r;
    struct hp pn[6] = { PTEXT(plan), PTEXT(first ? first : now), PTEXT(results_dir ? results_dir : ""), PTEXT(host),
                        PTEXT(version), PTEXT(report ? report : "") };
    if ((rc = mtb_hdb_q(h, "INSERT INTO nights(plan, started, results_dir, host, mtebench_version, report)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id", pn, 6, &r, err, errlen)) != 0)
        goto out;
    long long nid = mtb_hdb_row_int(&r, 0, 0);
    mtb_hdb_free(&r);
    const struct night_add ctx = { h, nid, plan, host, added, err, errlen };
    json_array_foreach(records, i, rec)
    {
        if ((rc = add_run(&ctx, rec, json_string_value(json_array_get(files, i)))) != 0)
            goto out;
    }
    json_array_foreach(capacity, i, rec)
    {
        struct mtb_cap_rows c;
        mtb_cap_rows_read(rec, &c);
        rc = add_capacity(&ctx, rec, c.file);
        mtb_cap_rows_free(&c);
        if (rc != 0)
            goto out;
    }
    json_array_foreach(work, i, rec)
    {
        if ((rc = add_work(&ctx, rec, json_string_value(json_array_get(work_files, i)))) != 0)
            goto out;
    }
    if (*added == 0)
        goto out; /* all known: no empty night (rolled back below) */
    if ((rc = mtb_hdb_derive_overheads(h, nid, err, errlen)) != 0)
        goto out;
    rc = mtb_hdb_exec(h, "COMMIT", err, errlen);
    if (!rc)
        *night = nid;
out:
    if (rc || *added == 0)
        mtb_hdb_rollback(h);
    return rc;
}

/* ---- loading ------------------------------------------------------------------------------- */

/* Rows of sql (ordered by series, then time) into series objects: the first
 * nhead columns describe the series, the rest go into its points. */
static int load_rows(struct mtb_history *h, const char *sql, const char *kind, size_t nhead, json_t *out, char *err,
                     size_t errlen)
{
    struct hres r;
    int rc = mtb_hdb_q(h, sql, NULL, 0, &r, err, errlen);
    if (rc)
        return rc;
    json_t *cur = NULL, *points = NULL; /* the series being filled, and its points */
    const char *cur_series = NULL;
    size_t ncol = json_array_size(r.cols);
    for (size_t row = 0; row < json_array_size(r.rows); row++) {
        json_t *vals = json_array_get(r.rows, row);
        const char *series = mtb_hdb_row_str(&r, row, 0);
        if (!cur || strcmp(cur_series, series)) {
            cur_series = series;
            cur = json_object();
            json_object_set_new(cur, "kind", json_string(kind));
            for (size_t i = 0; i < nhead; i++)
                json_object_set(cur, json_string_value(json_array_get(r.cols, i)), json_array_get(vals, i));
            points = json_array();
            json_object_set_new(cur, "points", points);
            json_array_append_new(out, cur);
        }
        json_t *p = json_object();
        for (size_t i = nhead; i < ncol; i++)
            json_object_set(p, json_string_value(json_array_get(r.cols, i)), json_array_get(vals, i));
        json_array_append_new(points, p);
    }
    mtb_hdb_free(&r);
    return 0;
}

/* "<alias>.<key> AS <key>," for the history's metrics of one kind */
static char *metric_select(const char *alias, int pairs) { return mtb_hdb_metric_join(pairs, " %2$s.%1$s AS %1$s,", alias); }

int mtb_history_load(struct mtb_history *h, json_t **out, char *err, size_t errlen)
{
    *out = json_array();
    char *rm = metric_select("r", 0), *om = metric_select("o", 1);
    char *runs_sql = mtb_asprintf(
        "SELECT r.series AS series, r.config_hash AS hash, r.plan AS plan, r.service AS service, r.workload AS"
        " workload, r.variant AS variant, r.mode AS mode, r.platform AS platform, r.kernel AS kernel, r.machine AS"
        " machine, r.host AS host, r.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS results_dir,"
        " r.started AS started, r.rep AS rep, r.status AS status,%s r.emulated AS emulated,"
        " r.mtebench_version AS mtebench_version, r.build_key AS build_key, r.kernel_release AS kernel_release,"
        " r.kernel_build AS kernel_build, r.record AS record, r.steal AS steal"
        " FROM runs r JOIN nights n ON n.id = r.night ORDER BY r.series@C@, n.started@C@, n.id, r.rep, r.id", rm);
    char *ovh_sql = mtb_asprintf(
        "SELECT o.series AS series, o.config_hash AS hash, o.plan AS plan, o.service AS service, o.workload AS"
        " workload, 'tagged' AS variant, o.mode AS mode, o.platform AS platform, o.kernel AS kernel, o.machine AS"
        " machine, o.host AS host, o.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS results_dir,"
        " o.started AS started, o.rep AS rep, 'ok' AS status,%s o.emulated AS emulated,"
        " n.mtebench_version AS mtebench_version, o.tagged_build AS build_key, '' AS kernel_release,"
        " '' AS kernel_build, o.base_build AS base_build"
        " FROM overheads o JOIN nights n ON n.id = o.night ORDER BY o.series@C@, n.started@C@, n.id, o.rep, o.id", om);
    /* a capacity point is one search's estimate a night ("ok" when found); the overhead NULL for a baseline */
    const char *cap_sql =
        "SELECT c.series AS series, c.config_hash AS hash, c.plan AS plan, c.service AS service, c.workload AS"
        " workload, c.variant AS variant, c.mode AS mode, c.platform AS platform, c.kernel AS kernel, c.machine AS"
        " machine, c.host AS host, c.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS"
        " results_dir, c.started AS started, 0 AS rep, CASE WHEN c.status = 'found' THEN 'ok' ELSE c.status END AS"
        " status, c.bound AS bound, c.capacity AS capacity, c.lo AS capacity_lo, c.hi AS capacity_hi, c.overhead AS"
        " capacity_overhead, c.overhead_lo AS capacity_overhead_lo, c.overhead_hi AS capacity_overhead_hi,"
        " c.closed_loop_ops AS closed_loop_ops, c.emulated AS emulated, c.mtebench_version AS mtebench_version,"
        " c.build_key AS build_key, '' AS kernel_release, '' AS kernel_build, c.result AS record"
        " FROM capacity c JOIN nights n ON n.id = c.night ORDER BY c.series@C@, n.started@C@, n.id, c.id";
    /* a work point is one counted run's quantities per request */
    char *wm = mtb_strdup("");
    for (int q = 0; q < MTB_NWORK; q++) {
        char *x = mtb_asprintf("%s w.%s AS %s,", wm, mtb_work_quantities[q].key, mtb_work_quantities[q].key);
        free(wm);
        wm = x;
    }
    char *work_sql = mtb_asprintf(
        "SELECT w.series AS series, w.config_hash AS hash, w.plan AS plan, w.service AS service, w.workload AS"
        " workload, w.variant AS variant, w.mode AS mode, w.platform AS platform, w.kernel AS kernel, w.machine AS"
        " machine, w.host AS host, w.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS"
        " results_dir, w.started AS started, 1 AS rep, 'ok' AS status, w.role AS role, w.requests AS requests,%s"
        " 0 AS emulated, w.mtebench_version AS mtebench_version, w.build_key AS build_key, w.kernel_release AS"
        " kernel_release, w.kernel_build AS kernel_build, w.record AS record"
        " FROM work w JOIN nights n ON n.id = w.night ORDER BY w.series@C@, n.started@C@, n.id, w.id", wm);
    int rc = load_rows(h, runs_sql, "run", 11, *out, err, errlen);
    if (!rc)
        rc = load_rows(h, ovh_sql, "overhead", 11, *out, err, errlen);
    if (!rc)
        rc = load_rows(h, cap_sql, "capacity", 11, *out, err, errlen);
    if (!rc)
        rc = load_rows(h, work_sql, "work", 11, *out, err, errlen);
    free(wm);
    free(work_sql);
    free(rm);
    free(om);
    free(runs_sql);
    free(ovh_sql);
    if (rc) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}
