/* history.c - see history.h
 *
 * One history API over two backends: an SQLite file and a PostgreSQL
 * database. The SQL is written once, with placeholders ?N and the type
 * tokens @ID@, @INT@, @REAL@ and @C@ (a byte-wise collation for ORDER BY);
 * dialect() turns it into what each backend speaks. The backend table
 * (struct backend) holds what differs beyond that: connecting, running a
 * statement, the write transaction and its lock, where the schema version is
 * kept and how tables are listed. */
#include "jsonx.h"
#include "history.h"
#include "record.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef MTB_WITH_PG
#include <libpq-fe.h>
#endif

/* a statement parameter */
enum { P_NULL, P_INT, P_REAL, P_TEXT };
struct hp {
    int t;
    long long i;
    double d;
    const char *s;
};
#define PINT(x) ((struct hp){ .t = P_INT, .i = (x) })
#define PTEXT(x) ((struct hp){ .t = P_TEXT, .s = (x) })
#define PNULL ((struct hp){ .t = P_NULL })

/* the rows of a statement: cols = [names], rows = [[values]] (jansson) */
struct hres {
    json_t *cols, *rows;
    long long changes;
};

struct mtb_history;
struct backend {
    const char *name;
    int shared; /* one database for several machines: other programs' tables may live beside ours */
    const char *id, *integer, *real, *collate_c;
    int (*connect)(struct mtb_history *h, const char *where, int *existed, char *err, size_t errlen);
    void (*close)(struct mtb_history *h);
    /* one statement (already in the dialect) with parameters; res may be NULL */
    int (*query)(struct mtb_history *h, const char *sql, const struct hp *p, int np, struct hres *res, char *err,
                 size_t errlen);
    /* several statements, no parameters */
    int (*script)(struct mtb_history *h, const char *sql, char *err, size_t errlen);
    /* a write transaction that serialises writers of this history */
    const char *begin;
    /* schema version: 0 = none; -1 = a version store that is not ours */
    int (*get_version)(struct mtb_history *h, int *v, char *err, size_t errlen);
    int (*set_version)(struct mtb_history *h, int v, char *err, size_t errlen);
    /* SQL counting tables: all of them, or those named in ?1..?3 */
    const char *count_all, *count_ours;
    /* SQL counting the columns named ?2 of table ?1 */
    const char *count_column;
};

struct mtb_history {
    const struct backend *be;
    void *conn;      /* sqlite3 *, PGconn * */
    char *path;      /* as shown in messages: a URL without its password */
    char *secret[4]; /* the URL's passwords as written and decoded: never shown */
    int version;
};

/* ---- redaction ------------------------------------------------------------------- */

static int is_pg_url(const char *s)
{
    return !strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11);
}

#ifdef MTB_WITH_PG
static char *pct_decode(const char *s, size_t n)
{
    char *o = mtb_calloc(n + 1, 1), *q = o;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
            char hex[3] = { s[i + 1], s[i + 2], 0 };
            *q++ = (char)strtol(hex, NULL, 16);
            i += 2;
        } else
            *q++ = s[i];
    }
    return o;
}

/* the password of a postgresql:// URL: in the authority (user:PASSWORD@host)
 * and/or as a password= query parameter; raw receives it as written */
static void url_passwords(const char *url, char **auth, char **query)
{
    *auth = *query = NULL;
    const char *a = strstr(url, "://");
    if (!a)
        return;
    a += 3;
    size_t alen = strcspn(a, "/?#");
    const char *at = NULL;
    for (const char *c = a; c < a + alen; c++)
        if (*c == '@')
            at = c;
    if (at) {
        const char *colon = memchr(a, ':', (size_t)(at - a));
        if (colon)
            *auth = mtb_asprintf("%.*s", (int)(at - colon - 1), colon + 1);
    }
    const char *q = strchr(url, '?');
    while (q) {
        q++;
        if (!strncmp(q, "password=", 9)) {
            size_t n = strcspn(q + 9, "&#");
            free(*query);
            *query = mtb_asprintf("%.*s", (int)n, q + 9);
        }
        q = strchr(q, '&');
    }
}

#endif

char *mtb_history_redact(const char *where)
{
    if (!where)
        return mtb_strdup("");
    if (!is_pg_url(where))
        return mtb_strdup(where);
    char *out = mtb_strdup(where);
    const char *a = strstr(where, "://") + 3;
    size_t alen = strcspn(a, "/?#");
    const char *at = NULL;
    for (const char *c = a; c < a + alen; c++)
        if (*c == '@')
            at = c;
    if (at) {
        const char *colon = memchr(a, ':', (size_t)(at - a));
        if (colon) {
            char *o = mtb_asprintf("%.*s:***%s", (int)(colon - where), where, at);
            free(out);
            out = o;
        }
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

/* replace every occurrence of the URL's password in a message by *** */
static void scrub(struct mtb_history *h, char *msg)
{
    for (int k = 0; k < 4; k++) {
        const char *s = h ? h->secret[k] : NULL;
        if (!s || !*s)
            continue;
        size_t n = strlen(s);
        char *p = msg;
        while ((p = strstr(p, s)) != NULL) {
            if (n >= 3) {
                memmove(p + 3, p + n, strlen(p + n) + 1);
                memcpy(p, "***", 3);
                p += 3;
            } else { /* a very short password: no room to grow the message, blank it */
                memset(p, '*', n);
                p += n;
            }
        }
    }
}

/* ---- the dialect ------------------------------------------------------------------- */

static char *dialect(struct mtb_history *h, const char *sql)
{
    const struct backend *be = h->be;
    size_t cap = strlen(sql) * 2 + 64, n = 0;
    char *o = mtb_calloc(cap, 1);
    for (const char *c = sql; *c;) {
        const char *tok = NULL;
        size_t skip = 0;
        if (!strncmp(c, "@ID@", 4))
            tok = be->id, skip = 4;
        else if (!strncmp(c, "@INT@", 5))
            tok = be->integer, skip = 5;
        else if (!strncmp(c, "@REAL@", 6))
            tok = be->real, skip = 6;
        else if (!strncmp(c, "@C@", 3))
            tok = be->collate_c, skip = 3;
        else if (*c == '?' && isdigit((unsigned char)c[1]) && be->shared)
            tok = "$", skip = 1;
        if (tok) {
            size_t t = strlen(tok);
            if (n + t + 1 >= cap)
                o = realloc(o, cap = cap * 2 + t);
            memcpy(o + n, tok, t);
            n += t;
            c += skip;
        } else {
            if (n + 2 >= cap)
                o = realloc(o, cap *= 2);
            o[n++] = *c++;
        }
    }
    o[n] = 0;
    return o;
}

static void hres_free(struct hres *r)
{
    json_decref(r->cols);
    json_decref(r->rows);
    r->cols = r->rows = NULL;
}

/* run one statement of our SQL */
static int q(struct mtb_history *h, const char *sql, const struct hp *p, int np, struct hres *res, char *err,
             size_t errlen)
{
    char *d = dialect(h, sql);
    if (res)
        memset(res, 0, sizeof *res);
    int rc = h->be->query(h, d, p, np, res, err, errlen);
    free(d);
    return rc;
}

static int exec(struct mtb_history *h, const char *sql, char *err, size_t errlen)
{
    char *d = dialect(h, sql);
    int rc = h->be->script(h, d, err, errlen);
    free(d);
    return rc;
}

static long long row_int(struct hres *r, size_t row, size_t col)
{
    return json_integer_value(json_array_get(json_array_get(r->rows, row), col));
}

static const char *row_str(struct hres *r, size_t row, size_t col)
{
    const char *s = json_string_value(json_array_get(json_array_get(r->rows, row), col));
    return s ? s : "";
}

/* the single integer a query returns */
static int q_int(struct mtb_history *h, const char *sql, const struct hp *p, int np, long long *v, char *err,
                 size_t errlen)
{
    struct hres r;
    int rc = q(h, sql, p, np, &r, err, errlen);
    if (!rc) {
        if (json_array_size(r.rows) == 1)
            *v = row_int(&r, 0, 0);
        else {
            snprintf(err, errlen, "history %s: no result from: %.80s", h->path, sql);
            rc = -EIO;
        }
    }
    hres_free(&r);
    return rc;
}

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
        hres_free(res);
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
    int rc = q_int(h, "PRAGMA user_version", NULL, 0, &n, err, errlen);
    *v = (int)n;
    return rc;
}

static int sq_set_version(struct mtb_history *h, int v, char *err, size_t errlen)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", v);
    return exec(h, sql, err, errlen);
}

static const struct backend sqlite_backend = {
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

/* ---- PostgreSQL ---------------------------------------------------------------------- */

#ifdef MTB_WITH_PG
/* the server's message, one line, without the password */
static void pg_msg(struct mtb_history *h, const char *raw, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", raw && *raw ? raw : "unknown error");
    size_t n = strlen(out);
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = 0;
    /* libpq's messages span lines ("...failed: Connection refused\n\tIs the server running..."): one line */
    char *w = out;
    for (char *c = out; *c; c++) {
        if (*c == '\n' || *c == '\t' || *c == ' ') {
            if (w > out && w[-1] != ' ')
                *w++ = ' ';
        } else
            *w++ = *c;
    }
    *w = 0;
    scrub(h, out);
}

static void pg_quiet(void *arg, const char *message) { (void)arg, (void)message; }

static int pg_connect(struct mtb_history *h, const char *where, int *existed, char *err, size_t errlen)
{
    /* the URL comes last, so that what it says wins over these defaults */
    const char *kw[] = { "connect_timeout", "application_name", "dbname", NULL };
    const char *val[] = { "10", "mtebench", where, NULL };
    PGconn *c = PQconnectdbParams(kw, val, 1);
    h->conn = c;
    *existed = 1;
    if (!c) {
        snprintf(err, errlen, "history %s: out of memory", h->path);
        return -ENOMEM;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        char msg[MTB_ERRLEN];
        pg_msg(h, PQerrorMessage(c), msg, sizeof msg);
        const char *why = strstr(msg, "password authentication failed") || strstr(msg, "no password supplied") ||
                                  strstr(msg, "authentication failed")
                              ? "authentication failed: "
                              : "";
        snprintf(err, errlen, "history %s: cannot connect to PostgreSQL: %s%s; not starting a new history",
                 h->path, why, msg);
        return -EIO;
    }
    PQsetNoticeProcessor(c, pg_quiet, NULL);
    return 0;
}

static void pg_close(struct mtb_history *h)
{
    PQfinish(h->conn);
}

static json_t *pg_col(PGresult *r, int row, int i)
{
    if (PQgetisnull(r, row, i))
        return json_null();
    const char *v = PQgetvalue(r, row, i);
    switch (PQftype(r, i)) {
    case 20: /* int8 */
    case 21: /* int2 */
    case 23: /* int4 */ return json_integer(strtoll(v, NULL, 10));
    case 700: /* float4 */
    case 701: /* float8 */
    case 1700: /* numeric */ return json_real(strtod(v, NULL));
    case 16: /* bool */ return json_boolean(*v == 't');
    default: return json_string(v);
    }
}

static int pg_result(struct mtb_history *h, PGresult *r, const char *sql, char *err, size_t errlen)
{
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return 0;
    char msg[MTB_ERRLEN];
    pg_msg(h, r ? PQresultErrorMessage(r) : PQerrorMessage(h->conn), msg, sizeof msg);
    snprintf(err, errlen, "history %s: %s (in: %.80s)", h->path, msg, sql);
    return -EIO;
}

static int pg_query(struct mtb_history *h, const char *sql, const struct hp *p, int np, struct hres *res, char *err,
                    size_t errlen)
{
    const char **vals = mtb_calloc((size_t)np + 1, sizeof *vals);
    char(*buf)[40] = mtb_calloc((size_t)np + 1, sizeof *buf);
    for (int i = 0; i < np; i++) {
        switch (p[i].t) {
        case P_INT: snprintf(buf[i], sizeof buf[i], "%lld", p[i].i), vals[i] = buf[i]; break;
        case P_REAL: snprintf(buf[i], sizeof buf[i], "%.17g", p[i].d), vals[i] = buf[i]; break;
        case P_TEXT: vals[i] = p[i].s; break;
        default: vals[i] = NULL;
        }
    }
    PGresult *r = PQexecParams(h->conn, sql, np, NULL, vals, NULL, NULL, 0);
    free(vals);
    free(buf);
    int rc = pg_result(h, r, sql, err, errlen);
    if (!rc && res) {
        int nf = PQnfields(r), nt = PQntuples(r);
        res->cols = json_array();
        res->rows = json_array();
        for (int i = 0; i < nf; i++)
            json_array_append_new(res->cols, json_string(PQfname(r, i)));
        for (int t = 0; t < nt; t++) {
            json_t *row = json_array();
            for (int i = 0; i < nf; i++)
                json_array_append_new(row, pg_col(r, t, i));
            json_array_append_new(res->rows, row);
        }
        res->changes = atoll(PQcmdTuples(r));
    }
    PQclear(r);
    return rc;
}

static int pg_script(struct mtb_history *h, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexec(h->conn, sql);
    int rc = pg_result(h, r, sql, err, errlen);
    PQclear(r);
    return rc;
}

/* PostgreSQL keeps the version in a table of its own: schema_version(program,
 * version), one row per program, ours 'mtebench' */
static int pg_get_version(struct mtb_history *h, int *v, char *err, size_t errlen)
{
    long long n = 0;
    *v = 0;
    int rc = q_int(h, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
                      " AND table_name = 'schema_version'", NULL, 0, &n, err, errlen);
    if (rc || n == 0)
        return rc;
    if ((rc = q_int(h, "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()"
                       " AND table_name = 'schema_version' AND column_name IN ('program', 'version')", NULL, 0, &n,
                    err, errlen)) != 0)
        return rc;
    if (n != 2) {
        *v = -1;
        return 0;
    }
    struct hres r;
    if ((rc = q(h, "SELECT version FROM schema_version WHERE program = 'mtebench'", NULL, 0, &r, err, errlen)) != 0)
        return rc;
    *v = json_array_size(r.rows) == 1 ? (int)row_int(&r, 0, 0) : -1;
    hres_free(&r);
    return 0;
}

static int pg_set_version(struct mtb_history *h, int v, char *err, size_t errlen)
{
    int rc = exec(h, "CREATE TABLE IF NOT EXISTS schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);",
                  err, errlen);
    struct hp p[1] = { PINT(v) };
    if (!rc)
        rc = q(h, "INSERT INTO schema_version(program, version) VALUES ('mtebench', ?1)"
                  " ON CONFLICT (program) DO UPDATE SET version = excluded.version", p, 1, NULL, err, errlen);
    return rc;
}

/* Writers of one database take this transaction-scoped advisory lock: schema
 * creation and migration by one machine never interleave with another's. */
static const struct backend pg_backend = {
    .name = "PostgreSQL",
    .shared = 1,
    .id = "BIGSERIAL PRIMARY KEY",
    .integer = "BIGINT",
    .real = "DOUBLE PRECISION",
    .collate_c = " COLLATE \"C\"",
    .connect = pg_connect,
    .close = pg_close,
    .query = pg_query,
    .script = pg_script,
    .begin = "BEGIN; SELECT pg_advisory_xact_lock(7887040320715514728);", /* "mtebench" */
    .get_version = pg_get_version,
    .set_version = pg_set_version,
    .count_all = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()",
    .count_ours = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
                  " AND table_name IN (?1, ?2, ?3)",
    .count_column = "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()"
                    " AND table_name = ?1 AND column_name = ?2",
};
#endif

/* ---- schema ------------------------------------------------------------------ */

/* Version 2, the current layout. Version 1 was the runs table alone, with the
 * columns id, plan, service, workload, variant, mode, platform, kernel,
 * started, rep, mtebench_version, build_key, status, ops_per_sec, p50_us,
 * p99_us, p999_us and record (see migrate_1_to_2). */
static const char schema_nights[] =
    "CREATE TABLE nights(id @ID@, plan TEXT NOT NULL, started TEXT NOT NULL,"
    " results_dir TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', mtebench_version TEXT NOT NULL DEFAULT '',"
    " report TEXT NOT NULL DEFAULT '');";
/* The history's metrics of one kind (runs: run metrics, overheads: pair
 * metrics, those of record.h's table marked MTB_V_HISTORY), each written
 * with fmt (%1$s the key, %2$s arg) and joined: the metric columns of
 * every statement are generated from the table. */
static char *metric_join(int pairs, const char *fmt, const char *arg)
{
    char *out = mtb_strdup("");
    size_t n = pairs ? MTB_NPAIR_METRICS : MTB_NRUN_METRICS;
    for (size_t m = 0; m < n; m++) {
        int views = pairs ? mtb_pair_metrics[m].views : mtb_run_metrics[m].views;
        if (!(views & MTB_V_HISTORY))
            continue;
        char *one = mtb_asprintf(fmt, pairs ? mtb_pair_metrics[m].key : mtb_run_metrics[m].key, arg ? arg : "");
        char *x = mtb_asprintf("%s%s", out, one);
        free(one);
        free(out);
        out = x;
    }
    return out;
}
static char *metric_columns(int pairs) { return metric_join(pairs, " %1$s @REAL@,", NULL); }

static char *schema_runs(void)
{
    char *m = metric_columns(0);
    char *s = mtb_asprintf(
        "CREATE TABLE runs(id @ID@, night @INT@ REFERENCES nights(id), plan TEXT NOT NULL,"
        " series TEXT NOT NULL DEFAULT '', config_hash TEXT NOT NULL DEFAULT '', service TEXT, workload TEXT,"
        " variant TEXT, mode TEXT, platform TEXT, kernel TEXT, machine TEXT NOT NULL DEFAULT '', started TEXT,"
        " rep @INT@, mtebench_version TEXT, build_key TEXT, kernel_release TEXT NOT NULL DEFAULT '',"
        " kernel_build TEXT NOT NULL DEFAULT '', status TEXT,%s emulated @INT@ NOT NULL DEFAULT 0,"
        " record TEXT UNIQUE);", m);
    free(m);
    return s;
}

static char *schema_overheads(void)
{
    char *m = metric_columns(1);
    char *s = mtb_asprintf(
        "CREATE TABLE overheads(id @ID@, night @INT@ NOT NULL REFERENCES nights(id), plan TEXT,"
        " series TEXT NOT NULL, config_hash TEXT NOT NULL, service TEXT, workload TEXT, mode TEXT, platform TEXT,"
        " kernel TEXT, machine TEXT, rep @INT@, started TEXT,%s base_build TEXT, tagged_build TEXT,"
        " emulated @INT@ NOT NULL DEFAULT 0, UNIQUE(series, night, rep));", m);
    free(m);
    return s;
}

static const char schema_indexes[] =
    "CREATE INDEX IF NOT EXISTS runs_series ON runs(series, night);"
    "CREATE INDEX IF NOT EXISTS overheads_series ON overheads(series, night);";
/* every column of schema 2 (runs and overheads gain "emulated" in 3): a
 * table named like ours that lacks one is not ours */
static const char *const shape[][2] = {
    { "nights", "id, plan, started, results_dir, host, mtebench_version, report" },
    { "runs", "id, night, plan, series, config_hash, service, workload, variant, mode, platform, kernel, machine,"
              " started, rep, mtebench_version, build_key, kernel_release, kernel_build, status, ops_per_sec, p50_us,"
              " p99_us, p999_us, record" },
    { "overheads", "id, night, plan, series, config_hash, service, workload, mode, platform, kernel, machine, rep,"
                   " started, slowdown, p99_ratio, base_build, tagged_build" },
};
/* ---- series keys ---------------------------------------------------------------- */

static void short_hash(const char *text, char out[13])
{
    struct mtb_hash *hs = mtb_hash_new();
    char hex[65];
    mtb_hash_str(hs, "series", text);
    mtb_hash_final(hs, hex);
    memcpy(out, hex, 12);
    out[12] = 0;
}

void mtb_history_series_key(json_t *rec, char **key, char hash[13])
{
    json_t *c = json_object_get(rec, "config"), *w = json_object_get(c, "workload");
    char *wl = mtb_workload_key(w), *mach = mtb_record_machine_text(rec);
    char *full = mtb_asprintf("plan=%s|service=%s|workload=%s|variant=%s|mode=%s|platform=%s|kernel=%s|machine=%s",
                              mtb_jstr(c, "plan"), mtb_jstr(c, "service"), wl, mtb_jstr(c, "variant"), mtb_jstr(c, "mode"),
                              mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"), mach);
    short_hash(full, hash);
    const char *mname = mtb_jstr(json_object_get(rec, "machine"), "name");
    *key = mtb_asprintf("%s/%s/%s mix %s/%s/%s/%s/%s/%s#%s", mtb_jstr(c, "plan"), mtb_jstr(c, "service"), mtb_jstr(w, "name"),
                        mtb_jstr(w, "mix"), mtb_jstr(c, "variant"), mtb_jstr(c, "mode"), mtb_jstr(c, "platform"), mtb_jstr(c, "kernel"),
                        *mname ? mname : "-", hash);
    free(full);
    free(wl);
    free(mach);
}

/* ---- overheads ---------------------------------------------------------------------- */

/* The pairs of one night, under record.h's pairing rule (the join
 * condition is generated from it): each tagged run with the plain/off run of
 * the same night, repetition, plan, service, workload, platform, kernel and
 * machine; one column per pair metric of the table. */
static int derive_overheads(struct mtb_history *h, long long night, char *err, size_t errlen)
{
    char *cols = mtb_strdup(""), *vals = mtb_strdup("");
    for (size_t m = 0; m < MTB_NPAIR_METRICS; m++) {
        const struct mtb_pair_metric *d = &mtb_pair_metrics[m];
        if (!(d->views & MTB_V_HISTORY))
            continue;
        /* the runs table holds the compared figure only if its run metric is in the history */
        const char *of = mtb_run_metrics[d->of].key;
        int have = mtb_run_metrics[d->of].views & MTB_V_HISTORY;
        char *c = mtb_asprintf("%s %s,", cols, d->key);
        char *v = have ? mtb_asprintf("%s CASE WHEN %s.%s > 0 THEN %s.%s / %s.%s END,", vals, d->tagged_num ? "b" : "t",
                                      of, d->tagged_num ? "t" : "b", of, d->tagged_num ? "b" : "t", of)
                       : mtb_asprintf("%s NULL,", vals);
        free(cols);
        free(vals);
        cols = c;
        vals = v;
    }
    char *join = mtb_record_pair_sql("t", "b");
    char *sql = mtb_asprintf(
        "INSERT INTO overheads(night, plan, series, config_hash, service, workload, mode, platform, kernel,"
        " machine, rep, started,%s base_build, tagged_build, emulated)"
        " SELECT t.night, t.plan, 'overhead:' || t.series, t.config_hash, t.service, t.workload, t.mode, t.platform,"
        " t.kernel, t.machine, t.rep, t.started,%s b.build_key, t.build_key, t.emulated"
        " FROM runs t JOIN runs b ON %s"
        " WHERE t.night = ?1 AND t.status = 'ok' AND b.status = 'ok'"
        " AND t.ops_per_sec > 0 AND b.ops_per_sec > 0 ORDER BY t.id ON CONFLICT DO NOTHING", cols, vals, join);
    struct hp p[1] = { PINT(night) };
    int rc = q(h, sql, p, 1, NULL, err, errlen);
    free(sql);
    free(join);
    free(cols);
    free(vals);
    return rc;
}

/* ---- migrations ------------------------------------------------------------------------ */

/* ALTER TABLE table ADD COLUMN col type, unless the table has it already */
static int add_column(struct mtb_history *h, const char *table, const char *col, const char *type, char *err,
                      size_t errlen)
{
    struct hp p[2] = { PTEXT(table), PTEXT(col) };
    long long n = 0;
    int rc = q_int(h, h->be->count_column, p, 2, &n, err, errlen);
    if (rc || n)
        return rc;
    char *sql = mtb_asprintf("ALTER TABLE %s ADD COLUMN %s %s;", table, col, type);
    rc = exec(h, sql, err, errlen);
    free(sql);
    return rc;
}

/* Every metric column of record.h's table that the history lacks is added
 * (additive, no version change: older nights hold NULL there, which the
 * nightly skips; an older mtebench ignores the column). */
static int ensure_metric_columns(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t m = 0; !rc && m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_HISTORY)
            rc = add_column(h, "runs", mtb_run_metrics[m].key, "@REAL@", err, errlen);
    for (size_t m = 0; !rc && m < MTB_NPAIR_METRICS; m++)
        if (mtb_pair_metrics[m].views & MTB_V_HISTORY)
            rc = add_column(h, "overheads", mtb_pair_metrics[m].key, "@REAL@", err, errlen);
    return rc;
}

/* The record a runs row names (its file, "host:path" in a shared store), or NULL */
static json_t *row_record(struct mtb_history *h, const char *file)
{
    if (h->be->shared && *file != '/' && strchr(file, ':'))
        file = strchr(file, ':') + 1;
    json_t *rec = *file ? json_load_file(file, 0, NULL) : NULL;
    if (!json_is_object(rec) || !json_is_object(json_object_get(rec, "config"))) {
        json_decref(rec);
        return NULL;
    }
    return rec;
}

/* Version 3 adds runs.emulated and overheads.emulated: the record's
 * platform.emulated, read from the record file where it still exists, else
 * what version 2's nightly assumed (platform "emu"). */
static int migrate_2_to_3(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = add_column(h, "runs", "emulated", "@INT@ NOT NULL DEFAULT 0", err, errlen);
    if (!rc)
        rc = add_column(h, "overheads", "emulated", "@INT@ NOT NULL DEFAULT 0", err, errlen);
    struct hres sel;
    if (rc || (rc = q(h, "SELECT id, record, platform FROM runs ORDER BY id", NULL, 0, &sel, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(sel.rows); r++) {
        json_t *rec = row_record(h, row_str(&sel, r, 1));
        int emu = rec ? mtb_record_emulated(rec) : !strcmp(row_str(&sel, r, 2), "emu");
        struct hp p[2] = { PINT(row_int(&sel, r, 0)), PINT(emu) };
        rc = q(h, "UPDATE runs SET emulated = ?2 WHERE id = ?1", p, 2, NULL, err, errlen);
        json_decref(rec);
    }
    hres_free(&sel);
    if (!rc)
        rc = exec(h, "UPDATE overheads SET emulated = coalesce((SELECT max(r.emulated) FROM runs r WHERE"
                     " 'overhead:' || r.series = overheads.series AND r.night = overheads.night"
                     " AND r.rep = overheads.rep), 0);", err, errlen);
    return rc;
}

static int migrate_1_to_2(struct mtb_history *h, char *err, size_t errlen)
{
    int rc = exec(h, schema_nights, err, errlen);
    static const char *const alters[] = {
        "ALTER TABLE runs ADD COLUMN night @INT@ REFERENCES nights(id);",
        "ALTER TABLE runs ADD COLUMN series TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN config_hash TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN machine TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN kernel_release TEXT NOT NULL DEFAULT '';",
        "ALTER TABLE runs ADD COLUMN kernel_build TEXT NOT NULL DEFAULT '';",
        /* version 1 had no nights: one night per plan and UTC day */
        "INSERT INTO nights(plan, started, results_dir) SELECT plan, min(started), 'migrated from schema 1'"
        " FROM runs GROUP BY plan, substr(started, 1, 10) ORDER BY min(started);",
        "UPDATE runs SET night = (SELECT n.id FROM nights n WHERE n.plan = runs.plan"
        " AND substr(n.started, 1, 10) = substr(runs.started, 1, 10));",
        NULL,
    };
    for (int i = 0; !rc && alters[i]; i++)
        rc = exec(h, alters[i], err, errlen);
    if (!rc)
        rc = add_column(h, "runs", "emulated", "@INT@ NOT NULL DEFAULT 0", err, errlen); /* derive_overheads reads it */
    if (!rc)
        rc = add_column(h, "runs", "p999_us", "@REAL@", err, errlen);
    if (!rc) {
        char *so = schema_overheads();
        rc = exec(h, so, err, errlen);
        free(so);
    }
    if (rc)
        return rc;
    /* series keys: from the record file where it still exists, else from the
     * columns version 1 kept (such runs form series of their own) */
    struct hres sel;
    if ((rc = q(h, "SELECT id, record, plan, service, workload, variant, mode, platform, kernel FROM runs ORDER BY id",
                NULL, 0, &sel, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(sel.rows); r++) {
        const char *col[9];
        for (int i = 1; i < 9; i++)
            col[i] = row_str(&sel, r, (size_t)i);
        /* a shared store keys records by host: host:/path */
        json_t *rec = row_record(h, col[1]);
        char *key = NULL, hash[13], *mach = NULL, kb[13] = "", *wl = NULL;
        const char *krel = "";
        if (rec) {
            mtb_history_series_key(rec, &key, hash);
            mach = mtb_record_machine_text(rec);
            wl = mtb_workload_key(json_object_get(json_object_get(rec, "config"), "workload"));
            json_t *k = json_object_get(rec, "kernel");
            krel = mtb_jstr(k, "uname_r");
            if (*mtb_jstr(k, "uname_v"))
                short_hash(mtb_jstr(k, "uname_v"), kb);
        } else {
            char *full = mtb_asprintf("v1|%s|%s|%s|%s|%s|%s|%s", col[2], col[3], col[4], col[5], col[6], col[7],
                                      col[8]);
            short_hash(full, hash);
            key = mtb_asprintf("%s/%s/%s/%s/%s/%s/%s/schema-1#%s", col[2], col[3], col[4], col[5], col[6], col[7],
                               col[8], hash);
            mach = mtb_strdup("");
            free(full);
        }
        struct hp p[7] = { PINT(row_int(&sel, r, 0)), PTEXT(key), PTEXT(hash), PTEXT(mach), PTEXT(krel), PTEXT(kb),
                           wl ? PTEXT(wl) : PNULL };
        rc = q(h, "UPDATE runs SET series = ?2, config_hash = ?3, machine = ?4, kernel_release = ?5,"
                  " kernel_build = ?6, workload = coalesce(?7, workload) WHERE id = ?1", p, 7, NULL, err, errlen);
        free(key);
        free(mach);
        free(wl);
        json_decref(rec);
    }
    hres_free(&sel);
    if (rc)
        return rc;
    struct hres nights;
    if ((rc = q(h, "SELECT id FROM nights ORDER BY id", NULL, 0, &nights, err, errlen)) != 0)
        return rc;
    for (size_t r = 0; !rc && r < json_array_size(nights.rows); r++)
        rc = derive_overheads(h, row_int(&nights, r, 0), err, errlen);
    hres_free(&nights);
    return rc;
}

/* migrations[v] takes version v to v + 1 */
static int (*const migrations[])(struct mtb_history *, char *, size_t) = { NULL, migrate_1_to_2, migrate_2_to_3 };

/* ---- open / close ------------------------------------------------------------------------ */

static int rollback(struct mtb_history *h)
{
    char ignore[MTB_ERRLEN];
    return exec(h, "ROLLBACK", ignore, sizeof ignore);
}

/* the tables must be ours: each has every column of its schema version (2 or later) */
static int check_shape(struct mtb_history *h, int version, char *err, size_t errlen)
{
    struct hp names[3] = { PTEXT("nights"), PTEXT("runs"), PTEXT("overheads") };
    long long ours = 0;
    int rc = q_int(h, h->be->count_ours, names, 3, &ours, err, errlen);
    if (rc)
        return rc;
    if (ours != 3) {
        snprintf(err, errlen, "history %s: schema version %d but %lld of its 3 tables (nights, runs, overheads); "
                 "not an mtebench history, or damaged", h->path, version, ours);
        return -EIO;
    }
    for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++) {
        int v3 = version >= 3 && strcmp(shape[i][0], "nights");
        char *sql = mtb_asprintf("SELECT %s%s FROM %s WHERE 1 = 0", shape[i][1], v3 ? ", emulated" : "", shape[i][0]);
        char why[MTB_ERRLEN];
        rc = q(h, sql, NULL, 0, NULL, why, sizeof why);
        free(sql);
        if (rc) {
            const char *m = strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
            snprintf(err, errlen, "history %s: table %s is not shaped like an mtebench history's (%.200s); not an "
                     "mtebench history, or damaged: refusing to write into it", h->path, shape[i][0], m);
            return -EIO;
        }
    }
    return 0;
}

/* Create or migrate the schema, in one write transaction (SQLite: BEGIN
 * IMMEDIATE; PostgreSQL: an advisory lock), so that two machines opening a
 * new or old history at once never both create or migrate it. */
static int prepare_schema(struct mtb_history *h, int *created, char *err, size_t errlen)
{
    int rc = exec(h, h->be->begin, err, errlen);
    if (rc)
        return rc;
    if ((rc = h->be->get_version(h, &h->version, err, errlen)) != 0)
        goto fail;
    if (h->version < 0) {
        snprintf(err, errlen, "history %s: its schema_version table belongs to another program (no mtebench row); "
                 "not an mtebench history, refusing to write into it", h->path);
        rc = -EIO;
        goto fail;
    }
    if (h->version > MTB_HISTORY_VERSION) {
        snprintf(err, errlen, "history %s has schema version %d, newer than this mtebench's %d: use a newer "
                 "mtebench", h->path, h->version, MTB_HISTORY_VERSION);
        rc = -EPROTO;
        goto fail;
    }
    if (h->version == 0) {
        /* nothing of ours yet: SQLite files must be empty; a PostgreSQL
         * database may hold other programs' tables, but none named like ours */
        struct hp names[3] = { PTEXT("nights"), PTEXT("runs"), PTEXT("overheads") };
        long long ntab = 0;
        if (h->be->shared)
            rc = q_int(h, h->be->count_ours, names, 3, &ntab, err, errlen);
        else
            rc = q_int(h, h->be->count_all, NULL, 0, &ntab, err, errlen);
        if (rc)
            goto fail;
        if (ntab) {
            if (h->be->shared)
                snprintf(err, errlen, "history %s: the database has tables named like an mtebench history's "
                         "(nights, runs, overheads) but no mtebench schema version; not an mtebench history, "
                         "refusing to write into it", h->path);
            else
                snprintf(err, errlen, "history %s is an SQLite database but not an mtebench history (it has tables "
                         "and no schema version); refusing to write into it", h->path);
            rc = -EIO;
            goto fail;
        }
        char *sr = schema_runs(), *so = schema_overheads();
        char *sql = mtb_asprintf("%s%s%s%s", schema_nights, sr, so, schema_indexes);
        rc = exec(h, sql, err, errlen);
        free(sql);
        free(sr);
        free(so);
        if (rc || (rc = h->be->set_version(h, MTB_HISTORY_VERSION, err, errlen)) != 0)
            goto fail;
        if (created)
            *created = 1;
    } else if (h->version < MTB_HISTORY_VERSION) {
        /* from schema 2 on, the tables must be ours before they are migrated */
        if (h->version >= 2 && (rc = check_shape(h, h->version, err, errlen)) != 0)
            goto fail;
        for (int v = h->version; !rc && v < MTB_HISTORY_VERSION; v++) {
            rc = migrations[v](h, err, errlen);
            if (!rc)
                rc = h->be->set_version(h, v + 1, err, errlen);
        }
        if (!rc)
            rc = exec(h, schema_indexes, err, errlen);
        if (rc)
            goto fail;
    }
    /* the tables are ours (never alter another program's), then the metric columns */
    if ((rc = check_shape(h, MTB_HISTORY_VERSION, err, errlen)) != 0 ||
        (rc = ensure_metric_columns(h, err, errlen)) != 0)
        goto fail;
    if ((rc = exec(h, "COMMIT", err, errlen)) != 0)
        goto fail;
    h->version = MTB_HISTORY_VERSION;
    return 0;
fail:
    rollback(h);
    return rc;
}


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
        h->be = &pg_backend;
        /* the passwords, as written and decoded (a message may quote either) */
        url_passwords(where, &h->secret[0], &h->secret[2]);
        for (int k = 0; k < 4; k += 2)
            if (h->secret[k])
                h->secret[k + 1] = pct_decode(h->secret[k], strlen(h->secret[k]));
#else
        snprintf(err, errlen, "history %s: PostgreSQL histories are not built in this mtebench (built without "
                 "libpq: install libpq-dev and rebuild; or use an SQLite file: --history PATH)", h->path);
        mtb_history_close(h);
        return -ENOTSUP;
#endif
    } else {
        h->be = &sqlite_backend;
    }
    int existed = 0, rc = h->be->connect(h, where, &existed, err, errlen);
    if (!rc)
        rc = prepare_schema(h, created, err, errlen); /* checks the tables' shape too */
    if (rc) {
        scrub(h, err);
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
    int rc = exec(h, s, err, errlen);
    free(s);
    if (rc) {
        char ignored[MTB_ERRLEN];
        exec(h, "ROLLBACK", ignored, sizeof ignored);
    }
    return rc;
}

long long mtb_history_nights(struct mtb_history *h, char *err, size_t errlen)
{
    long long n = 0;
    int rc = q_int(h, "SELECT count(*) FROM nights", NULL, 0, &n, err, errlen);
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
    int rc = q(h, sql, p, (int)n, r, err, errlen);
    free(sql);
    free(names);
    free(vals);
    free(p);
    return rc;
}

/* one run of night nid: its identity, revisions, status, emulated, record
 * file and the history's run metrics. *added counts it unless known. */
static int add_run(struct mtb_history *h, long long nid, const char *plan, const char *host, json_t *rec,
                   const char *file, int *added, char *err, size_t errlen)
{
    json_t *c = json_object_get(rec, "config"), *k = json_object_get(rec, "kernel");
    char *key, hash[13], kb[13] = "", real[PATH_MAX];
    mtb_history_series_key(rec, &key, hash);
    char *wl = mtb_workload_key(json_object_get(c, "workload")), *mach = mtb_record_machine_text(rec);
    if (*mtb_jstr(k, "uname_v"))
        short_hash(mtb_jstr(k, "uname_v"), kb);
    if (!file || !realpath(file, real))
        snprintf(real, sizeof real, "%s", file ? file : "");
    /* several machines write to a shared store: the same path on two machines is two records */
    char *recid = h->be->shared ? mtb_asprintf("%s:%s", host, real) : mtb_strdup(real);
    int ok = !strcmp(mtb_jstr(rec, "status"), "ok");
    struct hcol cols[20 + MTB_NRUN_METRICS] = {
        { "night", PINT(nid) },
        { "plan", PTEXT(*mtb_jstr(c, "plan") ? mtb_jstr(c, "plan") : plan) },
        { "series", PTEXT(key) },
        { "config_hash", PTEXT(hash) },
        { "service", PTEXT(mtb_jstr(c, "service")) },
        { "workload", PTEXT(wl) },
        { "variant", PTEXT(mtb_jstr(c, "variant")) },
        { "mode", PTEXT(mtb_jstr(c, "mode")) },
        { "platform", PTEXT(mtb_jstr(c, "platform")) },
        { "kernel", PTEXT(mtb_jstr(c, "kernel")) },
        { "machine", PTEXT(mach) },
        { "started", PTEXT(mtb_jstr(rec, "started")) },
        { "rep", PINT(json_integer_value(json_object_get(c, "rep"))) },
        { "mtebench_version", PTEXT(mtb_jstr(rec, "mtebench_version")) },
        { "build_key", PTEXT(mtb_jstr(json_object_get(rec, "build"), "key")) },
        { "kernel_release", PTEXT(mtb_jstr(k, "uname_r")) },
        { "kernel_build", PTEXT(kb) },
        { "status", PTEXT(mtb_jstr(rec, "status")) },
        { "emulated", PINT(mtb_record_emulated(rec)) },
        { "record", PTEXT(recid) },
    };
    size_t n = 20;
    for (size_t m = 0; m < MTB_NRUN_METRICS; m++)
        if (mtb_run_metrics[m].views & MTB_V_HISTORY)
            cols[n++] = (struct hcol){ mtb_run_metrics[m].key,
                                       ok ? num(mtb_record_metric(rec, (enum mtb_run_metric_id)m)) : PNULL };
    struct hres r;
    int rc = insert_row(h, "runs", cols, n, &r, err, errlen);
    if (!rc)
        *added += (int)r.changes;
    hres_free(&r);
    free(key);
    free(wl);
    free(mach);
    free(recid);
    return rc;
}

int mtb_history_add_night(struct mtb_history *h, const char *plan, const char *results_dir, const char *report,
                          json_t *records, json_t *files, long long *night, int *added, char *err, size_t errlen)
{
    *night = 0;
    *added = 0;
    if (!json_is_array(records) || !json_is_array(files) || json_array_size(records) != json_array_size(files)) {
        snprintf(err, errlen, "history: records and files do not match");
        return -EINVAL;
    }
    /* the night starts with its earliest run */
    const char *first = NULL, *version = "";
    size_t i;
    json_t *rec;
    json_array_foreach(records, i, rec)
    {
        const char *s = mtb_jstr(rec, "started");
        if (*s && (!first || strcmp(s, first) < 0))
            first = s;
        if (!*version)
            version = mtb_jstr(rec, "mtebench_version");
    }
    char now[32];
    mtb_utc_iso(now, sizeof now);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int rc = exec(h, h->be->begin, err, errlen);
    if (rc)
        return rc;
    struct hres r;
    struct hp pn[6] = { PTEXT(plan), PTEXT(first ? first : now), PTEXT(results_dir ? results_dir : ""), PTEXT(host),
                        PTEXT(version), PTEXT(report ? report : "") };
    if ((rc = q(h, "INSERT INTO nights(plan, started, results_dir, host, mtebench_version, report)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id", pn, 6, &r, err, errlen)) != 0)
        goto out;
    long long nid = row_int(&r, 0, 0);
    hres_free(&r);
    json_array_foreach(records, i, rec)
    {
        if ((rc = add_run(h, nid, plan, host, rec, json_string_value(json_array_get(files, i)), added, err,
                          errlen)) != 0)
            goto out;
    }
    if (*added == 0)
        goto out; /* all known: no empty night (rolled back below) */
    if ((rc = derive_overheads(h, nid, err, errlen)) != 0)
        goto out;
    rc = exec(h, "COMMIT", err, errlen);
    if (!rc)
        *night = nid;
out:
    if (rc || *added == 0)
        rollback(h);
    return rc;
}

/* ---- loading ------------------------------------------------------------------------------- */

/* Rows of sql (ordered by series, then time) into series objects: the first
 * nhead columns describe the series, the rest go into its points. */
static int load_rows(struct mtb_history *h, const char *sql, const char *kind, size_t nhead, json_t *out, char *err,
                     size_t errlen)
{
    struct hres r;
    int rc = q(h, sql, NULL, 0, &r, err, errlen);
    if (rc)
        return rc;
    json_t *cur = NULL;
    size_t ncol = json_array_size(r.cols);
    for (size_t row = 0; row < json_array_size(r.rows); row++) {
        json_t *vals = json_array_get(r.rows, row);
        const char *series = row_str(&r, row, 0);
        if (!cur || strcmp(mtb_jstr(cur, "series"), series)) {
            cur = json_object();
            json_object_set_new(cur, "kind", json_string(kind));
            for (size_t i = 0; i < nhead; i++)
                json_object_set(cur, json_string_value(json_array_get(r.cols, i)), json_array_get(vals, i));
            json_object_set_new(cur, "points", json_array());
            json_array_append_new(out, cur);
        }
        json_t *p = json_object();
        for (size_t i = nhead; i < ncol; i++)
            json_object_set(p, json_string_value(json_array_get(r.cols, i)), json_array_get(vals, i));
        json_array_append_new(json_object_get(cur, "points"), p);
    }
    hres_free(&r);
    return 0;
}

/* "<alias>.<key> AS <key>," for the history's metrics of one kind */
static char *metric_select(const char *alias, int pairs) { return metric_join(pairs, " %2$s.%1$s AS %1$s,", alias); }

int mtb_history_load(struct mtb_history *h, json_t **out, char *err, size_t errlen)
{
    *out = json_array();
    char *rm = metric_select("r", 0), *om = metric_select("o", 1);
    char *runs_sql = mtb_asprintf(
        "SELECT r.series AS series, r.config_hash AS hash, r.plan AS plan, r.service AS service, r.workload AS"
        " workload, r.variant AS variant, r.mode AS mode, r.platform AS platform, r.kernel AS kernel, r.machine AS"
        " machine, r.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS results_dir,"
        " r.started AS started, r.rep AS rep, r.status AS status,%s r.emulated AS emulated,"
        " r.mtebench_version AS mtebench_version, r.build_key AS build_key, r.kernel_release AS kernel_release,"
        " r.kernel_build AS kernel_build, r.record AS record"
        " FROM runs r JOIN nights n ON n.id = r.night ORDER BY r.series@C@, n.started@C@, n.id, r.rep, r.id", rm);
    char *ovh_sql = mtb_asprintf(
        "SELECT o.series AS series, o.config_hash AS hash, o.plan AS plan, o.service AS service, o.workload AS"
        " workload, 'tagged' AS variant, o.mode AS mode, o.platform AS platform, o.kernel AS kernel, o.machine AS"
        " machine, o.night AS night, n.started AS night_started, n.report AS report, n.results_dir AS results_dir,"
        " o.started AS started, o.rep AS rep, 'ok' AS status,%s o.emulated AS emulated,"
        " n.mtebench_version AS mtebench_version, o.tagged_build AS build_key, '' AS kernel_release,"
        " '' AS kernel_build, o.base_build AS base_build"
        " FROM overheads o JOIN nights n ON n.id = o.night ORDER BY o.series@C@, n.started@C@, n.id, o.rep, o.id", om);
    int rc = load_rows(h, runs_sql, "run", 10, *out, err, errlen);
    if (!rc)
        rc = load_rows(h, ovh_sql, "overhead", 10, *out, err, errlen);
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
