/* Unit tests of the pairing rule (harness/core/record_pair.c): a tagged
 * run's baseline is plain/off of its repetition, host and workload, in C
 * and in the history's SQL of the same rule (SQLite). */
#include <sqlite3.h>
#include <stdlib.h>

#include "core/record.h"
#include "lib/jsonx.h"
#include "record_fixture.h"
#include "tap.h"

/* the pairing rule in C, and the history's SQL of it, on the same runs */
static void test_pairing(void)
{
    json_t *recs = json_array();
    json_array_append_new(recs, rec_of("plain", "off", 1, 1000, 100));   /* 0 */
    json_array_append_new(recs, rec_of("tagged", "async", 1, 900, 100)); /* 1: pairs 0 */
    json_array_append_new(recs, rec_of("tagged", "async", 2, 900, 100)); /* 2: no rep-2 baseline */
    json_array_append_new(recs, rec_of("plain", "off", 2, 1000, 100));   /* 3: on another host */
    json_object_set_new(json_array_get(recs, 3), "environment", json_pack("{s:s}", "hostname", "other"));
    json_t *w60 = rec_of("tagged", "sync", 1, 900, 100);                 /* 4: another workload */
    json_object_set_new(json_object_get(w60, "config"), "workload", workload(60));
    json_array_append_new(recs, w60);
    long *p = mtb_record_partners(recs);
    ok(p[0] == -1 && p[1] == 0 && p[2] == -1 && p[3] == -1 && p[4] == -1,
       "partners: a tagged run's baseline is plain/off of its repetition, host and workload (%ld %ld %ld %ld %ld)", p[0],
       p[1], p[2], p[3], p[4]);
    int same = 1;
    for (size_t i = 0; i < json_array_size(recs); i++)
        same &= mtb_record_partner(recs, json_array_get(recs, i)) == p[i];
    ok(same, "mtb_record_partner agrees with mtb_record_partners on each run");
    free(p);

    /* the SQL: a table of the same runs, their pair fields as the history keeps them */
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db, "CREATE TABLE runs (id INT, night INT, rep INT, variant TEXT, mode TEXT, plan TEXT, service TEXT,"
                     " workload TEXT, platform TEXT, kernel TEXT, machine TEXT, allocator TEXT, host TEXT)",
                 NULL, NULL, NULL);
    for (size_t i = 0; i < json_array_size(recs); i++) {
        json_t *r = json_array_get(recs, i), *c = json_object_get(r, "config");
        char *wk = mtb_workload_key(json_object_get(c, "workload")), *mt = mtb_record_machine_text(r);
        char *sql = sqlite3_mprintf("INSERT INTO runs VALUES (%d, 1, %d, %Q, %Q, %Q, %Q, %Q, %Q, %Q, %Q, 'glibc', %Q)",
                                    (int)i, (int)json_integer_value(json_object_get(c, "rep")), mtb_jstr(c, "variant"),
                                    mtb_jstr(c, "mode"), mtb_jstr(c, "plan"), mtb_jstr(c, "service"), wk,
                                    mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), mt, mtb_record_host(r));
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        sqlite3_free(sql);
        free(wk);
        free(mt);
    }
    char *on = mtb_record_pair_sql("t", "b");
    char *q = mtb_asprintf("SELECT group_concat(t.id || '-' || b.id) FROM runs t JOIN runs b ON %s", on);
    sqlite3_stmt *st;
    const char *got = NULL;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        got = (const char *)sqlite3_column_text(st, 0);
    ok(got && !strcmp(got, "1-0"), "the history's SQL pairs the same runs: %s", got ? got : "(none)");
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(q);
    free(on);
    json_decref(recs);
}

int main(void)
{
    test_pairing();
    return done_testing();
}
