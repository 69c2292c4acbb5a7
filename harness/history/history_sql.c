/* history_sql.c - what the history's parts share (history_db.h): our SQL's
 * dialect and its statements on the open backend, the rows they return, the
 * keys of series, and a URL's password kept out of every message. history.c,
 * history_schema.c, the backends and history_bisect.c use it. */
#include "history/history.h"
#include "history/history_db.h"
#include "core/record.h"
#include "core/summary_rows.h"
#include "core/allocator.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "lib/hash.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mtb_hdb_url_password(const char *url, size_t *len)
{
    const char *a = strstr(url, "://");
    if (!a)
        return NULL;
    a += 3;
    size_t alen = strcspn(a, "/?#");
    const char *at = NULL;
    for (const char *c = a; c < a + alen; c++)
        if (*c == '@')
            at = c;
    const char *colon = at ? memchr(a, ':', (size_t)(at - a)) : NULL;
    if (!colon)
        return NULL;
    *len = (size_t)(at - colon - 1);
    return colon + 1;
}

/* replace every occurrence of the URL's password in a message by *** */
void mtb_hdb_scrub(struct mtb_history *h, char *msg)
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
    const struct mtb_hdb_backend *be = h->be;
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

void mtb_hdb_free(struct hres *r)
{
    json_decref(r->cols);
    json_decref(r->rows);
    r->cols = r->rows = NULL;
}

/* run one statement of our SQL */
int mtb_hdb_q(struct mtb_history *h, const char *sql, const struct hp *p, int np, struct hres *res, char *err,
             size_t errlen)
{
    char *d = dialect(h, sql);
    if (res)
        memset(res, 0, sizeof *res);
    int rc = h->be->query(h, d, p, np, res, err, errlen);
    free(d);
    return rc;
}

int mtb_hdb_exec(struct mtb_history *h, const char *sql, char *err, size_t errlen)
{
    char *d = dialect(h, sql);
    int rc = h->be->script(h, d, err, errlen);
    free(d);
    return rc;
}

long long mtb_hdb_row_int(struct hres *r, size_t row, size_t col)
{
    return json_integer_value(json_array_get(json_array_get(r->rows, row), col));
}

const char *mtb_hdb_row_str(struct hres *r, size_t row, size_t col)
{
    const char *s = json_string_value(json_array_get(json_array_get(r->rows, row), col));
    return s ? s : "";
}

/* the single integer a query returns */
int mtb_hdb_q_int(struct mtb_history *h, const char *sql, const struct hp *p, int np, long long *v, char *err,
                 size_t errlen)
{
    struct hres r;
    int rc = mtb_hdb_q(h, sql, p, np, &r, err, errlen);
    if (!rc) {
        if (json_array_size(r.rows) == 1)
            *v = mtb_hdb_row_int(&r, 0, 0);
        else {
            snprintf(err, errlen, "history %s: no result from: %.80s", h->path, sql);
            rc = -EIO;
        }
    }
    mtb_hdb_free(&r);
    return rc;
}

int mtb_hdb_rollback(struct mtb_history *h)
{
    char ignore[MTB_ERRLEN];
    return mtb_hdb_exec(h, "ROLLBACK", ignore, sizeof ignore);
}

/* ---- series keys ---------------------------------------------------------------- */

void mtb_hdb_short_hash(const char *text, char out[13])
{
    struct mtb_hash *hs = mtb_hash_new();
    char hex[65];
    mtb_hash_str(hs, "series", text);
    mtb_hash_final(hs, hex);
    memcpy(out, hex, 12);
    out[12] = 0;
}

void mtb_hdb_config_key(json_t *rec, char **key, char hash[13])
{
    struct mtb_rec_config c;
    mtb_rec_config_view(rec, &c);
    json_t *w = c.workload;
    char *wl = mtb_workload_key(w), *mach = mtb_record_machine_text(rec);
    /* glibc's runs keep the key they had before the allocator axis */
    const char *alloc = c.allocator;
    int own = strcmp(alloc, "glibc") != 0;
    char *full = mtb_asprintf("plan=%s|service=%s|workload=%s|variant=%s|mode=%s|platform=%s|kernel=%s|machine=%s%s%s",
                              c.plan, c.service, wl, c.variant, c.mode, c.platform, c.kernel, mach,
                              own ? "|allocator=" : "", own ? alloc : "");
    mtb_hdb_short_hash(full, hash);
    const char *mname = mtb_record_machine_name(rec);
    struct mtb_sum_workload wv;
    mtb_sum_workload_read(w, &wv);
    *key = mtb_asprintf("%s/%s/%s mix %s/%s%s%s/%s/%s/%s/%s#%s", c.plan, c.service, wv.name, wv.mix, c.variant, own ? "+" : "", own ? alloc : "", c.mode, c.platform, c.kernel,
                        *mname ? mname : "-", hash);
    free(full);
    free(wl);
    free(mach);
}

const char *mtb_hdb_host(json_t *rec)
{
    const char *h = rec ? mtb_record_host(rec) : "";
    return *h ? h : MTB_HISTORY_UNKNOWN_HOST;
}

char *mtb_hdb_key_on_host(const char *key, const char *host)
{
    const char *hash = strrchr(key, '#');
    if (!hash)
        return mtb_asprintf("%s on %s", key, host);
    return mtb_asprintf("%.*s on %s%s", (int)(hash - key), key, host, hash);
}

