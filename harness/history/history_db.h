/* history_db.h - inside the history (history.h): what history.c, its schema
 * (history_schema.c) and its two backends (history_sqlite.c, history_pg.c)
 * share. Not for callers of the history: they include history.h.
 *
 * The SQL is written once, with placeholders ?N and the type tokens @ID@,
 * @INT@, @REAL@ and @C@ (a byte-wise collation for ORDER BY); mtb_hdb_q and
 * mtb_hdb_exec turn it into what the open backend speaks. A backend (struct
 * mtb_hdb_backend) holds what differs beyond that: connecting, running a
 * statement, the write transaction and its lock, where the schema version is
 * kept and how tables are listed. */
#ifndef MTB_HISTORY_DB_H
#define MTB_HISTORY_DB_H
struct mtb_history; /* defined below; history.h declares it for callers */

#include <jansson.h>
#include <stddef.h>

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

struct mtb_hdb_backend {
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
    const struct mtb_hdb_backend *be;
    void *conn;      /* sqlite3 *, PGconn * */
    char *path;      /* as shown in messages: a URL without its password */
    char *secret[4]; /* the URL's passwords as written and decoded: never shown */
    int version;
};

/* the backends: an SQLite file (history_sqlite.c); a PostgreSQL database
 * (history_pg.c, only in builds with libpq: MTB_WITH_PG) */
extern const struct mtb_hdb_backend mtb_hdb_sqlite;
#ifdef MTB_WITH_PG
extern const struct mtb_hdb_backend mtb_hdb_pg;
/* the passwords of a postgresql:// URL into h->secret (as written, decoded) */
void mtb_hdb_pg_secrets(struct mtb_history *h, const char *url);
#endif

/* ---- statements (history_sql.c) ---- */
/* one statement of our SQL; res may be NULL (else freed by mtb_hdb_free) */
int mtb_hdb_q(struct mtb_history *h, const char *sql, const struct hp *p, int np, struct hres *res, char *err,
              size_t errlen);
/* several statements of our SQL, no parameters */
int mtb_hdb_exec(struct mtb_history *h, const char *sql, char *err, size_t errlen);
/* the single integer a query returns */
int mtb_hdb_q_int(struct mtb_history *h, const char *sql, const struct hp *p, int np, long long *v, char *err,
                  size_t errlen);
int mtb_hdb_rollback(struct mtb_history *h);
void mtb_hdb_free(struct hres *r);
long long mtb_hdb_row_int(struct hres *r, size_t row, size_t col);
const char *mtb_hdb_row_str(struct hres *r, size_t row, size_t col); /* "" for NULL */
/* the password in a URL's authority (user:PASSWORD@host), *len its length; NULL if none */
const char *mtb_hdb_url_password(const char *url, size_t *len);
/* replace every occurrence of the URL's password in a message by *** */
void mtb_hdb_scrub(struct mtb_history *h, char *msg);
/* the 12 hex digits naming a text (series keys, kernel builds) */
void mtb_hdb_short_hash(const char *text, char out[13]);
/* a record's configuration as schema 3 keyed it: "readable#hash" without the
 * host (*key a heap string), and the hash; the series key is this on its host */
void mtb_hdb_config_key(json_t *rec, char **key, char hash[13]);
/* the host a record's run ran on (mtb_record_host), or "unknown" (also for rec NULL) */
const char *mtb_hdb_host(json_t *rec);
/* a key "readable#hash" with " on HOST" before its hash (heap string) */
char *mtb_hdb_key_on_host(const char *key, const char *host);

/* ---- schema (history_schema.c) ---- */
/* the history's metrics of one kind (pairs: overheads, else runs), each
 * written with fmt (%1$s the key, %2$s arg) and joined; a heap string */
char *mtb_hdb_metric_join(int pairs, const char *fmt, const char *arg);
/* create, check or migrate the schema, in one write transaction */
int mtb_hdb_prepare_schema(struct mtb_history *h, int *created, char *err, size_t errlen);
/* the overhead pairs of one night, derived from its runs */
int mtb_hdb_derive_overheads(struct mtb_history *h, long long night, char *err, size_t errlen);
#endif
