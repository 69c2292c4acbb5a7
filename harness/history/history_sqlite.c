/* history_sqlite.c - the history's SQLite backend (history_db.h): a file,
 * its schema version in PRAGMA user_version, writers serialised by BEGIN
 * IMMEDIATE; a file that fails PRAGMA integrity_check is refused. */
#include "history/history_db.h"
#include "lib/util.h"
#include "lib/files.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- SQLite ------------------------------------------------------------------------ */

static int sq_fail(struct mtb_history *h, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "history %s: %s", h->path, what);
    return -EIO;
}

static int sq_corrupt(struct mtb_history *h, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "history %s is corrupt (%s); not starting a new history: restore it from a backup, "
             "or move it away to start a new one", h->path, what);
    return -EIO;
}

static int sq_connect(struct mtb_history *h, const char *where, int *existed, char *err, size_t errlen)
{
    struct stat sb;
    int there = stat(where, &sb) == 0;
    if (there && sb.st_size == 0) { /* never start a new history in a file someone made */
        snprintf(err, errlen, "history %s: an empty file, not an mtebench history (the nightly never starts a new "
                 "history in an existing file: remove it, or give another --history, to start one)", where);
        return -ENODATA;
    }
    *existed = there;
    if (!*existed) {
        char *dir = mtb_strdup(where), *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = 0;
            mtb_mkdir_p(dir);
        }
        free(dir);
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(where, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "history %s: cannot open: %s", where, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -EIO;
    }
    h->conn = db;
    sqlite3_busy_timeout(db, 30000);
    if (*existed) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
            return sq_corrupt(h, sqlite3_errmsg(db), err, errlen);
        int s = sqlite3_step(st);
        const char *res = s == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (s != SQLITE_ROW || !res || strcmp(res, "ok")) {
            char what[300];
            snprintf(what, sizeof what, "integrity check: %.250s", res ? res : sqlite3_errmsg(db));
            for (char *c = what; *c; c++)
                if (*c == '\n')
                    *c = ';';
            sqlite3_finalize(st);
            return sq_corrupt(h, what, err, errlen);
        }
        sqlite3_finalize(st);
    }
    return 0;
}

static void sq_close(struct mtb_history *h)
{
    sqlite3_close(h->conn);
}

static json_t *sq_col(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT: return json_string((const char *)sqlite3_column_text(st, i));
    default: return json_null();
    }
}

static int sq_query(struct mtb_history *h, const char *sql, const struct hp *p, int np, struct hres *res, char *err,
                    size_t errlen)
{
    sqlite3 *db = h->conn;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sq_fail(h, sqlite3_errmsg(db), err, errlen);
    for (int i = 0; i < np; i++) {
        switch (p[i].t) {
        case P_INT: sqlite3_bind_int64(st, i + 1, p[i].i); break;
        case P_REAL: sqlite3_bind_double(st, i + 1, p[i].d); break;
        case P_TEXT: sqlite3_bind_text(st, i + 1, p[i].s, -1, SQLITE_TRANSIENT); break;
        default: sqlite3_bind_null(st, i + 1);
        }
    }
    int s, ncol = sqlite3_column_count(st);
    if (res) {
        res->cols = json_array();
        res->rows = json_array();
        for (int i = 0; i < ncol; i++)
            json_array_append_new(res->cols, json_string(sqlite3_column_name(st, i)));
    }
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (!res)
            continue;
        json_t *row = json_array();
        for (int i = 0; i < ncol; i++)
            json_array_append_new(row, sq_col(st, i));
        json_array_append_new(res->rows, row);
    }
    int rc = 0;
    if (s != SQLITE_DONE)
        rc = sq_fail(h, sqlite3_errmsg(db), err, errlen);
    else if (res)
        res->changes = sqlite3_changes(db);
    sqlite3_finalize(st);
    if (rc && res)
        mtb_hdb_free(res);
    return rc;
}

static int sq_script(struct mtb_history *h, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(h->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "history %s: %s (in: %.80s)", h->path, msg ? msg : sqlite3_errmsg(h->conn), sql);
        sqlite3_free(msg);
        return -EIO;
    }
    return 0;
}

/* SQLite keeps the version in the file header: PRAGMA user_version */
static int sq_get_version(struct mtb_history *h, int *v, char *err, size_t errlen)
{
    long long n = 0;
    int rc = mtb_hdb_q_int(h, "PRAGMA user_version", NULL, 0, &n, err, errlen);
    *v = (int)n;
    return rc;
}

static int sq_set_version(struct mtb_history *h, int v, char *err, size_t errlen)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", v);
    return mtb_hdb_exec(h, sql, err, errlen);
}

const struct mtb_hdb_backend mtb_hdb_sqlite = {
    .name = "SQLite",
    .shared = 0,
    .id = "INTEGER PRIMARY KEY",
    .integer = "INTEGER",
    .real = "REAL",
    .collate_c = "",
    .connect = sq_connect,
    .close = sq_close,
    .query = sq_query,
    .script = sq_script,
    .begin = "BEGIN IMMEDIATE",
    .get_version = sq_get_version,
    .set_version = sq_set_version,
    .count_all = "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
    .count_ours = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?1, ?2, ?3)",
    .count_column = "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2",
};
