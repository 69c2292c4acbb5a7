/* history_pg.c - the history's PostgreSQL backend (history_db.h): one
 * database for several machines, its schema version in a table
 * schema_version(program, version), writers serialised by a
 * transaction-scoped advisory lock. Built only with libpq (MTB_WITH_PG; the
 * Makefile leaves this file out otherwise, and out of the aarch64 guest's
 * mtebench). */
#include "history/history_db.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the URL's passwords (never shown) ----------------------------------------------- */

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
    size_t plen;
    const char *pw = mtb_hdb_url_password(url, &plen);
    if (pw)
        *auth = mtb_asprintf("%.*s", (int)plen, pw);
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

void mtb_hdb_pg_secrets(struct mtb_history *h, const char *url)
{
    /* the passwords, as written and decoded (a message may quote either) */
    url_passwords(url, &h->secret[0], &h->secret[2]);
    for (int k = 0; k < 4; k += 2)
        if (h->secret[k])
            h->secret[k + 1] = pct_decode(h->secret[k], strlen(h->secret[k]));
}

/* ---- PostgreSQL ---------------------------------------------------------------------- */

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
    mtb_hdb_scrub(h, out);
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
    int rc = mtb_hdb_q_int(h, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
                      " AND table_name = 'schema_version'", NULL, 0, &n, err, errlen);
    if (rc || n == 0)
        return rc;
    if ((rc = mtb_hdb_q_int(h, "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()"
                       " AND table_name = 'schema_version' AND column_name IN ('program', 'version')", NULL, 0, &n,
                    err, errlen)) != 0)
        return rc;
    if (n != 2) {
        *v = -1;
        return 0;
    }
    struct hres r;
    if ((rc = mtb_hdb_q(h, "SELECT version FROM schema_version WHERE program = 'mtebench'", NULL, 0, &r, err, errlen)) != 0)
        return rc;
    *v = json_array_size(r.rows) == 1 ? (int)mtb_hdb_row_int(&r, 0, 0) : -1;
    mtb_hdb_free(&r);
    return 0;
}

static int pg_set_version(struct mtb_history *h, int v, char *err, size_t errlen)
{
    int rc = mtb_hdb_exec(h, "CREATE TABLE IF NOT EXISTS schema_version(program TEXT PRIMARY KEY, version INTEGER NOT NULL);",
                  err, errlen);
    struct hp p[1] = { PINT(v) };
    if (!rc)
        rc = mtb_hdb_q(h, "INSERT INTO schema_version(program, version) VALUES ('mtebench', ?1)"
                  " ON CONFLICT (program) DO UPDATE SET version = excluded.version", p, 1, NULL, err, errlen);
    return rc;
}

/* Writers of one database take this transaction-scoped advisory lock: schema
 * creation and migration by one machine never interleave with another's. */
const struct mtb_hdb_backend mtb_hdb_pg = {
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
