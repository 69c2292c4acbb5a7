/* loadlog.c - see loadlog.h */
#include "core/loadlog.h"
#include "core/load_rows.h"
#include "common/atomicfile.h"
#include "common/version.h"
#include "lib/jsonx.h"
#include "lib/util.h"
#include "loadgen/engine.h" /* MTL_HIST_HIGHEST */
#include "loadgen/hlog.h"
#include "lib/files.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mtb_hlog_acc_init(struct mtb_hlog_acc *a, int by_second)
{
    memset(a, 0, sizeof(*a));
    a->by_second = by_second;
    return !mtl_hist_init(&a->tmp, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST) ? 0 : ENOMEM;
}

/* a->tmp := slot i's histogram */
struct mtl_hist *mtb_hlog_acc_slot(struct mtb_hlog_acc *a, size_t i)
{
    mtl_hist_reset(&a->tmp);
    mtl_sparse_expand(&a->s[i].sp, &a->tmp);
    return &a->tmp;
}

static size_t slot_hash(const char *tag, long sec)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)sec * 0x9e3779b97f4a7c15ULL; /* FNV-1a over the tag */
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)h;
}

/* where (sec, tag) is in the index, or the empty place it would take */
static size_t *index_at(struct mtb_hlog_acc *a, const char *tag, long sec)
{
    size_t mask = a->nindex - 1, i = slot_hash(tag, sec) & mask;
    while (a->index[i] && (a->s[a->index[i] - 1].sec != sec || strcmp(a->s[a->index[i] - 1].key_tag, tag)))
        i = (i + 1) & mask;
    return &a->index[i];
}

/* the index grown to hold twice the slots (a power of two, at most half full) */
static int index_grow(struct mtb_hlog_acc *a)
{
    size_t n = a->nindex ? a->nindex * 2 : 64;
    size_t *old = a->index, nold = a->nindex;
    if (!(a->index = calloc(n, sizeof *a->index))) {
        a->index = old;
        return -1;
    }
    a->nindex = n;
    for (size_t i = 0; i < nold; i++)
        if (old[i])
            *index_at(a, a->s[old[i] - 1].key_tag, a->s[old[i] - 1].sec) = old[i];
    free(old);
    return 0;
}

/* The slot of (sec, tag): found by the whole tag, a new one at the end if none. */
static struct mtb_hlog_slot *slot_for(struct mtb_hlog_acc *a, const char *tag, long sec)
{
    if (2 * (a->n + 1) > a->nindex && index_grow(a) != 0)
        return NULL;
    size_t *at = index_at(a, tag, sec);
    if (*at)
        return &a->s[*at - 1];
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        struct mtb_hlog_slot *ns = realloc(a->s, cap * sizeof(*ns));
        if (!ns)
            return NULL;
        a->s = ns;
        a->cap = cap;
    }
    memset(&a->s[a->n], 0, sizeof(a->s[a->n]));
    snprintf(a->s[a->n].tag, sizeof(a->s[a->n].tag), "%s", tag);
    if (!(a->s[a->n].key_tag = strdup(tag)))
        return NULL;
    a->s[a->n].sec = sec;
    *at = a->n + 1;
    return &a->s[a->n++];
}

void mtb_hlog_acc_free(struct mtb_hlog_acc *a)
{
    size_t i;
    for (i = 0; i < a->n; i++) {
        mtl_sparse_free(&a->s[i].sp);
        free(a->s[i].key_tag);
    }
    free(a->s);
    free(a->index);
    mtl_hist_free(&a->tmp);
    memset(a, 0, sizeof(*a));
}

static int on_interval(void *arg, const struct mtl_hlog_interval *iv)
{
    struct mtb_hlog_acc *a = arg;
    long sec = a->by_second ? lround(iv->start) : 0;
    struct mtb_hlog_slot *s = slot_for(a, iv->tag, sec);

    if (!s)
        return ENOMEM;
    if (!s->intervals || iv->start < s->start)
        s->start = iv->start;
    if (!s->intervals || iv->start + iv->length > s->end)
        s->end = iv->start + iv->length;
    s->intervals++;
    mtl_hist_reset(&a->tmp);
    mtl_sparse_expand(&s->sp, &a->tmp);
    return mtl_hist_merge(&a->tmp, iv->hist) || mtl_sparse_compact(&a->tmp, &s->sp) ? ENOMEM : 0;
}

int mtb_hlog_acc_read(const char *path, const char *unit, struct mtb_hlog_acc *a, double *start_epoch,
                    char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    int rc;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    rc = mtl_hlog_read(f, path, unit, start_epoch, on_interval, a, err, errlen);
    fclose(f);
    if (rc && rc != EINVAL && rc != ENOTSUP)
        snprintf(err, errlen, "%s: %s", path, strerror(rc));
    return rc ? -1 : 0;
}

static int cmp_slot(const void *x, const void *y)
{
    const struct mtb_hlog_slot *a = x, *b = y;
    return a->sec != b->sec ? (a->sec < b->sec ? -1 : 1) : 0;
}

int mtb_hlog_merge(char *const paths[], size_t n, const char *out, char *err, size_t errlen)
{
    struct mtb_hlog_acc a;
    double base = 0, start;
    size_t i;
    char *tmp, who[200];
    FILE *f;
    int rc = 0;

    err[0] = 0;
    if (mtb_hlog_acc_init(&a, 1)) {
        snprintf(err, errlen, "out of memory");
        mtb_hlog_acc_free(&a);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (mtb_hlog_acc_read(paths[i], NULL, &a, &start, err, errlen)) {
            mtb_hlog_acc_free(&a);
            return -1;
        }
        if (!i || start < base)
            base = start;
    }
    /* stable order: by second, tags in first-seen order (qsort is not stable: insertion sort) */
    for (i = 1; i < a.n; i++) {
        struct mtb_hlog_slot s = a.s[i];
        size_t j = i;
        while (j > 0 && cmp_slot(&a.s[j - 1], &s) > 0) {
            a.s[j] = a.s[j - 1];
            j--;
        }
        a.s[j] = s;
    }
    free(a.index); /* the slots moved: no more lookups */
    a.index = NULL;
    a.nindex = 0;
    if (!(f = mtb_af_fopen(out, &tmp))) {
        snprintf(err, errlen, "%s: cannot write: %s", out, strerror(errno));
        mtb_hlog_acc_free(&a);
        return -1;
    }
    snprintf(who, sizeof who, "mtebench %s: %zu hosts' logs merged bucket by bucket", mtb_version, n);
    rc = mtl_hlog_write_header(f, base, who);
    for (i = 0; i < a.n && !rc; i++)
        rc = mtl_hlog_write_interval(f, a.s[i].tag, (double)a.s[i].sec, a.s[i].end - a.s[i].start, mtb_hlog_acc_slot(&a, i));
    mtb_hlog_acc_free(&a);
    if ((rc = mtb_af_fclose(f, tmp, out, rc)) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", out, strerror(rc));
        return -1;
    }
    return 0;
}

int mtb_hlog_merge_hosts(json_t *clients, const char *dir)
{
    char **paths = calloc(json_array_size(clients) + 1, sizeof(*paths)), err[MTB_ERRLEN];
    size_t i, n = 0;
    json_t *c;
    int rc = -1;

    if (!paths)
        return -1;
    json_array_foreach(clients, i, c) {
        struct mtb_client_entry ce;
        mtb_client_entry_read(c, &ce);
        char *p = mtb_asprintf("%s/load.hlog", ce.dir);
        if (!strcmp(ce.status, "ok") && mtb_file_exists(p))
            paths[n++] = p;
        else
            free(p);
    }
    if (n && n == json_array_size(clients)) {
        char *out = mtb_asprintf("%s/load.hlog", dir);
        if ((rc = mtb_hlog_merge(paths, n, out, err, sizeof err)) != 0)
            fprintf(stderr, "mtebench: merged interval log not written: %s\n", err);
        free(out);
    } else if (json_array_size(clients)) {
        fprintf(stderr, "mtebench: merged interval log not written: %zu of %zu hosts' load.hlog came back\n", n,
                json_array_size(clients));
    }
    for (i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

void mtb_hlog_from_load(const char *dir, json_t *load)
{
    struct mtb_load_view l;
    mtb_load_view_read(load, &l);
    json_t *hist = l.histogram;
    struct mtl_hist h;
    double dur = l.duration_s;
    char *path, *tmp;
    FILE *f;
    int rc;

    if (!l.present || l.has_hlog || !json_array_size(hist) ||
        mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST))
        return;
    mtb_hlog_add_histogram(&h, hist);
    path = mtb_asprintf("%s/driver.hlog", dir);
    if ((f = mtb_af_fopen(path, &tmp)) != NULL) {
        char who[160];
        snprintf(who, sizeof who, "mtebench %s: the driver's latency histogram, one interval over the measured "
                 "window, tag request", mtb_version);
        rc = mtl_hlog_write_header(f, (double)time(NULL) - (isfinite(dur) && dur > 0 ? dur : 0), who);
        if (!rc)
            rc = mtl_hlog_write_interval(f, "request", 0.0, isfinite(dur) && dur > 0 ? dur : 0, &h);
        if (mtb_af_fclose(f, tmp, path, rc) == 0)
            json_object_set_new(load, "hlog", json_string("driver.hlog"));
    }
    free(path);
    path = mtb_asprintf("%s/driver.hgrm", dir);
    if ((f = mtb_af_fopen(path, &tmp)) != NULL)
        mtb_af_fclose(f, tmp, path, mtl_hist_write_hgrm(&h, f, 1e6));
    free(path);
    mtl_hist_free(&h);
}

/* a record's load histogram ([[value_us, count], ...]) added into h */
void mtb_hlog_add_histogram(struct mtl_hist *h, json_t *hist)
{
    size_t i;
    json_t *b;
    json_array_foreach(hist, i, b) {
        double us = json_number_value(json_array_get(b, 0));
        json_int_t n = json_integer_value(json_array_get(b, 1));
        if (us >= 0 && n > 0)
            mtl_hist_record_n(h, (uint64_t)llround(us * 1000.0), (uint64_t)n);
    }
}

