/* history_bisect.c - bisections and their steps in the history (history_bisect.h). */
#include "history/history_bisect.h"
#include "history/history_db.h"
#include "lib/jsonx.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char schema_bisect[] =
    "CREATE TABLE IF NOT EXISTS bisections(id @ID@, started TEXT NOT NULL, host TEXT NOT NULL DEFAULT '',"
    " mtebench_version TEXT NOT NULL DEFAULT '', axis TEXT NOT NULL, repo TEXT NOT NULL, service TEXT NOT NULL,"
    " metric TEXT NOT NULL, better TEXT NOT NULL, good TEXT NOT NULL, bad TEXT NOT NULL,"
    " run_options TEXT NOT NULL DEFAULT '[]', outcome TEXT NOT NULL DEFAULT 'running', why TEXT NOT NULL DEFAULT '',"
    " culprits TEXT NOT NULL DEFAULT '[]', revisions_tested @INT@, builds @INT@, runs @INT@, seconds @REAL@,"
    " report TEXT NOT NULL DEFAULT '');"
    "CREATE TABLE IF NOT EXISTS bisect_steps(id @ID@, bisection @INT@ NOT NULL REFERENCES bisections(id),"
    " step @INT@ NOT NULL, rev_a @INT@ NOT NULL, sha_a TEXT NOT NULL, rev_b @INT@ NOT NULL, sha_b TEXT NOT NULL,"
    " why TEXT NOT NULL, verdict TEXT NOT NULL, p @REAL@, p_mwu @REAL@, p_ks @REAL@, high @REAL@,"
    " magnitude_iqr @REAL@, n_a @INT@ NOT NULL, n_b @INT@ NOT NULL, samples_a TEXT NOT NULL,"
    " samples_b TEXT NOT NULL, UNIQUE(bisection, step));";

static struct hp real_of(json_t *o, const char *key)
{
    double v = json_number_value(json_object_get(o, key));
    return json_is_number(json_object_get(o, key)) && isfinite(v) ? (struct hp){ .t = P_REAL, .d = v } : PNULL;
}

/* a JSON value as compact text (a heap string) */
static char *jtext(json_t *v) { return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : mtb_strdup("null"); }

int mtb_history_bisect_begin(struct mtb_history *h, json_t *b, long long *id, char *err, size_t errlen)
{
    char now[32], host[256] = "";
    mtb_utc_iso(now, sizeof now);
    gethostname(host, sizeof host - 1);
    int rc = mtb_hdb_exec(h, h->be->begin, err, errlen);
    if (rc)
        return rc;
    if ((rc = mtb_hdb_exec(h, schema_bisect, err, errlen)) != 0) {
        mtb_hdb_rollback(h);
        return rc;
    }
    char *opts = jtext(json_object_get(b, "run_options"));
    struct hp p[11] = { PTEXT(now), PTEXT(host), PTEXT(MTEBENCH_VERSION), PTEXT(mtb_jstr(b, "axis")),
                        PTEXT(mtb_jstr(b, "repo")), PTEXT(mtb_jstr(b, "service")), PTEXT(mtb_jstr(b, "metric")),
                        PTEXT(mtb_jstr(b, "better")), PTEXT(mtb_jstr(b, "good")), PTEXT(mtb_jstr(b, "bad")),
                        PTEXT(opts) };
    struct hres r;
    rc = mtb_hdb_q(h, "INSERT INTO bisections(started, host, mtebench_version, axis, repo, service, metric, better,"
                      " good, bad, run_options) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
                   p, 11, &r, err, errlen);
    free(opts);
    if (!rc) {
        *id = mtb_hdb_row_int(&r, 0, 0);
        mtb_hdb_free(&r);
        rc = mtb_hdb_exec(h, "COMMIT", err, errlen);
    }
    if (rc)
        mtb_hdb_rollback(h);
    return rc;
}

int mtb_history_bisect_step(struct mtb_history *h, long long id, int step, json_t *s, char *err, size_t errlen)
{
    json_t *xa = json_object_get(s, "samples_a"), *xb = json_object_get(s, "samples_b");
    char *ta = jtext(xa), *tb = jtext(xb);
    struct hp p[17] = { PINT(id), PINT(step), PINT((long long)mtb_jnum(s, "a")), PTEXT(mtb_jstr(s, "sha_a")),
                        PINT((long long)mtb_jnum(s, "b")), PTEXT(mtb_jstr(s, "sha_b")), PTEXT(mtb_jstr(s, "why")),
                        PTEXT(mtb_jstr(s, "verdict")), real_of(s, "p"), real_of(s, "p_mwu"), real_of(s, "p_ks"),
                        real_of(s, "high"), real_of(s, "magnitude_iqr"), PINT((long long)json_array_size(xa)),
                        PINT((long long)json_array_size(xb)), PTEXT(ta), PTEXT(tb) };
    int rc = mtb_hdb_q(h, "INSERT INTO bisect_steps(bisection, step, rev_a, sha_a, rev_b, sha_b, why, verdict, p,"
                          " p_mwu, p_ks, high, magnitude_iqr, n_a, n_b, samples_a, samples_b) VALUES (?1, ?2, ?3, ?4,"
                          " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                       p, 17, NULL, err, errlen);
    free(ta);
    free(tb);
    return rc;
}

int mtb_history_bisect_end(struct mtb_history *h, long long id, json_t *result, const char *report, char *err,
                           size_t errlen)
{
    char *culprits = jtext(json_object_get(result, "culprits"));
    struct hp p[9] = { PINT(id), PTEXT(mtb_jstr(result, "outcome")), PTEXT(mtb_jstr(result, "why")),
                       PTEXT(culprits), PINT((long long)mtb_jnum(result, "revisions_tested")),
                       PINT((long long)mtb_jnum(result, "builds")), PINT((long long)mtb_jnum(result, "runs")),
                       real_of(result, "seconds"), PTEXT(report ? report : "") };
    int rc = mtb_hdb_q(h, "UPDATE bisections SET outcome = ?2, why = ?3, culprits = ?4, revisions_tested = ?5,"
                          " builds = ?6, runs = ?7, seconds = ?8, report = ?9 WHERE id = ?1",
                       p, 9, NULL, err, errlen);
    free(culprits);
    return rc;
}
