/* test_history_bisect.c - bisections in the history (history_bisect.h): the
 * tables appear in a history made by the nightly's code without a version
 * change, a bisection and its steps are written and read back (samples as
 * JSON arrays, p-values, the outcome), a second bisection gets its own id, and
 * a history written so still opens as an ordinary one. With MTB_TEST_HISTORY
 * set (a postgresql:// URL: tests/integration/history/history-postgresql.t) the same
 * against that database instead of a temporary SQLite file. */
#include "history/history.h"
#include "history/history_bisect.h"
#include "tap.h"
#include "lib/util.h"
#include "lib/files.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static json_t *step(int a, int b, const char *verdict, double p)
{
    return json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:[f,f,f], s:[f,f]}", "a", a, "b", b,
                     "sha_a", "aaaa", "sha_b", "bbbb", "why", "ends", "verdict", verdict, "p", p, "p_mwu", p, "p_ks",
                     p * 2, "high", 0.5, "magnitude_iqr", 1.25, "samples_a", 100.5, 101.25, 99.0, "samples_b", 50.0,
                     51.5);
}

int main(void)
{
    char tmp[] = "/tmp/mtebench-test-hbisect.XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    const char *env = getenv("MTB_TEST_HISTORY");
    char *where = env && *env ? mtb_strdup(env) : mtb_asprintf("%s/h.sqlite", tmp);
    char err[1024];
    struct mtb_history *h = NULL;
    int rc = mtb_history_open(where, &h, NULL, err, sizeof err);
    ok(rc == 0, "history opened (%s)", rc ? err : mtb_history_backend(h));
    if (rc) {
        done_testing();
        return 1;
    }
    int version = mtb_history_schema(h);
    json_t *b = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[s,s]}", "axis", "service", "repo", "/r", "service",
                          "memcached", "metric", "ops_per_sec", "better", "higher", "good", "g0", "bad", "b9",
                          "run_options", "--mode", "off");
    long long id = 0, id2 = 0;
    rc = mtb_history_bisect_begin(h, b, &id, err, sizeof err);
    ok(rc == 0 && id > 0, "a bisection begins: id %lld %s", id, rc ? err : "");
    json_t *s0 = step(0, 9, "different", 0.001), *s1 = step(0, 4, "same", 0.9);
    rc = mtb_history_bisect_step(h, id, 0, s0, err, sizeof err);
    ok(rc == 0, "step 0 stored %s", rc ? err : "");
    rc = mtb_history_bisect_step(h, id, 1, s1, err, sizeof err);
    ok(rc == 0, "step 1 stored %s", rc ? err : "");
    ok(mtb_history_bisect_step(h, id, 1, s1, err, sizeof err) != 0, "the same step twice: refused (UNIQUE)");
    json_t *res = json_pack("{s:s, s:s, s:[{s:s}], s:i, s:i, s:i, s:f}", "outcome", "found", "why", "", "culprits",
                            "sha", "c7", "revisions_tested", 4, "builds", 4, "runs", 30, "seconds", 12.5);
    rc = mtb_history_bisect_end(h, id, res, "/out/report.md", err, sizeof err);
    ok(rc == 0, "the outcome stored %s", rc ? err : "");
    ok(mtb_history_bisect_begin(h, b, &id2, err, sizeof err) == 0 && id2 > id, "a second bisection: its own id");
    ok(mtb_history_schema(h) == version && version == MTB_HISTORY_VERSION, "the schema version is unchanged (%d)",
       version);
    mtb_history_close(h);
    rc = mtb_history_open(where, &h, NULL, err, sizeof err);
    ok(rc == 0 && mtb_history_nights(h, err, sizeof err) == 0, "reopened as an ordinary history %s", rc ? err : "");
    mtb_history_close(h);
    if (!env || !*env) { /* read back with SQLite itself */
        sqlite3 *db;
        sqlite3_stmt *st;
        sqlite3_open(where, &db);
        sqlite3_prepare_v2(db, "SELECT s.step, s.verdict, s.p, s.p_ks, s.n_a, s.n_b, s.samples_a, s.samples_b, b.outcome,"
                               " b.culprits, b.runs, b.report, b.better, b.run_options FROM bisect_steps s JOIN bisections"
                               " b ON b.id = s.bisection ORDER BY s.step", -1, &st, NULL);
        int n = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *sa = (const char *)sqlite3_column_text(st, 6), *sb = (const char *)sqlite3_column_text(st, 7);
            json_t *ja = json_loads(sa, 0, NULL), *jb = json_loads(sb, 0, NULL);
            json_t *want = n ? s1 : s0;
            ok(sqlite3_column_int(st, 0) == n && !strcmp((const char *)sqlite3_column_text(st, 1), n ? "same" : "different") &&
                   sqlite3_column_double(st, 2) == (n ? 0.9 : 0.001) && sqlite3_column_double(st, 3) == (n ? 1.8 : 0.002),
               "step %d: verdict and p-values", n);
            ok(sqlite3_column_int(st, 4) == 3 && sqlite3_column_int(st, 5) == 2 &&
                   json_equal(ja, json_object_get(want, "samples_a")) && json_equal(jb, json_object_get(want, "samples_b")),
               "step %d: the samples, exactly (%s | %s)", n, sa, sb);
            ok(!strcmp((const char *)sqlite3_column_text(st, 8), "found") &&
                   strstr((const char *)sqlite3_column_text(st, 9), "\"c7\"") && sqlite3_column_int(st, 10) == 30 &&
                   !strcmp((const char *)sqlite3_column_text(st, 11), "/out/report.md") &&
                   !strcmp((const char *)sqlite3_column_text(st, 12), "higher") &&
                   !strcmp((const char *)sqlite3_column_text(st, 13), "[\"--mode\",\"off\"]"),
               "step %d: its bisection's outcome, culprits, runs, report, direction, options", n);
            json_decref(ja);
            json_decref(jb);
            n++;
        }
        sqlite3_finalize(st);
        ok(n == 2, "two steps read back");
        sqlite3_prepare_v2(db, "SELECT outcome FROM bisections WHERE id = ?1", -1, &st, NULL);
        sqlite3_bind_int64(st, 1, id2);
        ok(sqlite3_step(st) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "running"),
           "a bisection not ended says 'running'");
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
    json_decref(b);
    json_decref(s0);
    json_decref(s1);
    json_decref(res);
    free(where);
    mtb_rm_rf(tmp);
    return done_testing();
}
