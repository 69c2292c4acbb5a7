/* history_views.c - SQL views over the history for dashboards (history_views.h). */
#include "history/history_views.h"
#include "core/nightly_rows.h"
#include "lib/util.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a growing SQL text */
struct sql { char *s; size_t n, cap; };

static void add(struct sql *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct sql *q, const char *fmt, ...)
{
    va_list ap;
    int need;
    va_start(ap, fmt);
    need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (q->n + (size_t)need + 1 > q->cap) {
        q->cap = (q->n + (size_t)need + 1) * 2;
        q->s = realloc(q->s, q->cap);
        if (!q->s)
            mtb_oom("a query");
    }
    va_start(ap, fmt);
    vsnprintf(q->s + q->n, q->cap - q->n, fmt, ap);
    va_end(ap);
    q->n += (size_t)need;
}

/* a string literal: quotes doubled; '@' and '?' (the history's type tokens and
 * placeholders) written as char codes so no text can become a token */
static void lit(struct sql *q, const char *s, int pg)
{
    add(q, "'");
    for (; s && *s; s++) {
        if (*s == '\'')
            add(q, "''");
        else if (*s == '@' || *s == '?')
            add(q, "' || %s(%d) || '", pg ? "chr" : "char", *s);
        else
            add(q, "%c", *s);
    }
    add(q, "'");
}

static void num(struct sql *q, double d)
{
    if (!isfinite(d))
        add(q, "NULL");
    else
        add(q, "%.17g", d);
}

/* a series' readable name: its key up to the hash ("PLAN/SERVICE/WORKLOAD/... on HOST") */
static const char *label(const char *col, int pg)
{
    static char buf[2][160];
    static int k;
    k = !k;
    if (pg)
        snprintf(buf[k], sizeof buf[k], "split_part(%s, '#', 1)", col);
    else
        snprintf(buf[k], sizeof buf[k], "CASE WHEN instr(%s, '#') > 0 THEN substr(%s, 1, instr(%s, '#') - 1)"
                 " ELSE %s END", col, col, col, col);
    return buf[k];
}

/* the views' definitions: time as timestamptz (PostgreSQL) or ISO 8601 text
 * (SQLite, which its date functions and Grafana's SQLite source read) */
static void views(struct sql *q, int pg)
{
    const char *t0 = pg ? "CAST(" : "", *t1 = pg ? " AS timestamptz)" : "";
    add(q, "DROP VIEW IF EXISTS mtebench_runs_v;"
           "CREATE VIEW mtebench_runs_v AS SELECT %sr.started%s AS time, r.night, n.plan, r.service, r.workload,"
           " r.variant, r.mode, r.platform, r.kernel, r.machine, r.host, n.host AS night_host, r.rep, r.status,"
           " r.emulated,"
           " r.mtebench_version, r.series, r.config_hash,"
           " %s AS config, r.ops_per_sec, r.p50_us, r.p99_us, r.p999_us, r.steal, r.record"
           " FROM runs r JOIN nights n ON n.id = r.night;", t0, t1, label("r.series", pg));
    add(q, "DROP VIEW IF EXISTS mtebench_overheads_v;"
           "CREATE VIEW mtebench_overheads_v AS SELECT %sn.started%s AS time, o.night, o.series, o.service,"
           " o.workload, o.mode, o.platform, o.kernel, o.machine, o.host,"
           " %s AS config, count(*) AS pairs, avg(o.slowdown) AS slowdown, min(o.slowdown) AS slowdown_min,"
           " max(o.slowdown) AS slowdown_max, avg(o.p99_ratio) AS p99_ratio, max(o.emulated) AS emulated"
           " FROM overheads o JOIN nights n ON n.id = o.night"
           " GROUP BY n.started, o.night, o.series, o.service, o.workload, o.mode, o.platform, o.kernel,"
           " o.machine, o.host;", t0, t1, label("o.series", pg));
    add(q, "DROP VIEW IF EXISTS mtebench_capacity_v;"
           "CREATE VIEW mtebench_capacity_v AS SELECT %sn.started%s AS time, c.night, c.plan, c.series, c.service,"
           " c.workload, c.variant, c.mode, c.platform, c.kernel, c.machine, c.host, c.bound, c.arrival,"
           " %s AS config, c.status, c.capacity, c.lo AS capacity_lo, c.hi AS capacity_hi, c.closed_loop_ops,"
           " c.overhead AS capacity_overhead, c.overhead_lo, c.overhead_hi, c.baseline, c.emulated, c.result"
           " FROM capacity c JOIN nights n ON n.id = c.night;", t0, t1, label("c.series", pg));
    add(q, "CREATE TABLE IF NOT EXISTS mtebench_change_points(series TEXT NOT NULL, label TEXT, metric TEXT NOT NULL,"
           " night @INT@, night_started TEXT, kind TEXT, change @REAL@, ci_lo @REAL@, ci_hi @REAL@,"
           " before_value @REAL@, after_value @REAL@, p_value @REAL@, is_open @INT@, analysed TEXT);"
           "DROP VIEW IF EXISTS mtebench_change_points_v;"
           "CREATE VIEW mtebench_change_points_v AS SELECT %snight_started%s AS time, series, label, metric, night,"
           " kind, change, ci_lo, ci_hi, before_value, after_value, p_value, is_open, analysed"
           " FROM mtebench_change_points;", t0, t1);
    add(q, "CREATE TABLE IF NOT EXISTS mtebench_digests(id @ID@, generated TEXT NOT NULL, nights @INT@,"
           " open_regressions @INT@, new_regressions @INT@, digest TEXT);"
           "DROP VIEW IF EXISTS mtebench_digest_v;"
           "CREATE VIEW mtebench_digest_v AS SELECT %sgenerated%s AS time, id, nights, open_regressions,"
           " new_regressions, digest FROM mtebench_digests;", t0, t1);
}

static void changes(struct sql *q, const struct mtb_nightly_rows *r, const char *generated, int pg)
{
    add(q, "DELETE FROM mtebench_change_points;");
    for (size_t i = 0; i < r->nseries; i++)
        for (size_t k = 0; k < r->series[i].nchanges; k++) {
            const struct mtb_nightly_change *c = &r->series[i].changes[k];
            add(q, "INSERT INTO mtebench_change_points VALUES (");
            lit(q, c->series, pg);
            add(q, ", ");
            lit(q, c->label, pg);
            add(q, ", ");
            lit(q, c->metric, pg);
            add(q, ", %lld, ", c->night);
            lit(q, c->night_started, pg);
            add(q, ", ");
            lit(q, c->kind, pg);
            const double nums[] = { c->change, c->ci_lo, c->ci_hi, c->before, c->after, c->p_split };
            for (size_t n = 0; n < sizeof nums / sizeof nums[0]; n++) {
                add(q, ", ");
                num(q, nums[n]);
            }
            add(q, ", %d, ", c->open);
            lit(q, generated, pg);
            add(q, ");");
        }
}

int mtb_history_views_update(struct mtb_history *h, json_t *analysis, const char *digest, char *err, size_t errlen)
{
    struct sql q = { 0 };
    int pg = !strcmp(mtb_history_backend(h), "PostgreSQL"), rc;
    struct mtb_nightly_rows r;
    mtb_nightly_rows_read(analysis, &r);
    const char *gen = r.generated;

    views(&q, pg);
    changes(&q, &r, gen, pg);
    add(&q, "INSERT INTO mtebench_digests(generated, nights, open_regressions, new_regressions, digest) VALUES (");
    lit(&q, gen, pg);
    add(&q, ", %lld, %zu, %zu, ", r.nights_total, r.nopen, r.nfresh);
    lit(&q, digest ? digest : "", pg);
    add(&q, ")");
    rc = mtb_history_write_script(h, q.s, err, errlen);
    mtb_nightly_rows_free(&r);
    free(q.s);
    return rc;
}
