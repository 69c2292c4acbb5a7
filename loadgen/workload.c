/* workload.c - parsing the workload options and preparing shared buffers. */
#include "loadgen/workload.h"
#include "loadgen/units.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mtl_workload_defaults(struct mtl_workload *w)
{
    memset(w, 0, sizeof(*w));
    w->ratio_set = 1;                   /* memtier's default mix is 1:10 */
    w->ratio_get = 10;
    w->keys = 100000;                   /* key space */
    strcpy(w->prefix, "mtl:");          /* key prefix */
    w->prefix_len = 4;
    w->pattern = MTL_KEYS_UNIFORM;      /* key pattern */
    w->vkind = MTL_VSIZE_FIXED;         /* 100-byte values */
    w->vmin = w->vmax = 100;
    mtl_workload_set_paths(w, "/");     /* HTTP path */
}

/* parse a u64 from [s, s+len) */
static int parse_u64_n(const char *s, size_t len, uint64_t *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof(buf))
        return EINVAL;
    memcpy(buf, s, len);
    buf[len] = 0;
    return mtl_parse_u64(buf, out);
}

int mtl_workload_set_ratio(struct mtl_workload *w, const char *spec)
{
    const char *colon = strchr(spec, ':');
    uint64_t s, g;
    if (!colon || parse_u64_n(spec, (size_t)(colon - spec), &s) ||
        mtl_parse_u64(colon + 1, &g) || s > 1000000 || g > 1000000 || s + g == 0)
        return EINVAL;
    w->ratio_set = (uint32_t)s;
    w->ratio_get = (uint32_t)g;
    return 0;
}

int mtl_workload_set_pattern(struct mtl_workload *w, const char *spec)
{
    double s;
    if (strcmp(spec, "uniform") == 0) { w->pattern = MTL_KEYS_UNIFORM; return 0; }
    if (strcmp(spec, "seq") == 0) { w->pattern = MTL_KEYS_SEQ; return 0; }
    if (strncmp(spec, "zipf:", 5) == 0 && mtl_parse_double(spec + 5, &s) == 0 &&
        s > 0 && s <= 100) {
        w->pattern = MTL_KEYS_ZIPF;
        w->zipf.s = s;
        return 0;
    }
    return EINVAL;
}

/* "v:w,v:w,..." into a weighted list; values checked by the caller */
static int parse_wlist(struct mtl_wlist *l, const char *spec, char **texts)
{
    const char *p = spec;
    uint64_t sum = 0;

    l->n = 0;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        uint64_t v = 0, wt = 1;

        if (l->n == MTL_LIST_MAX || len == 0)
            return EINVAL;
        if (colon && parse_u64_n(colon + 1, len - (size_t)(colon - p) - 1, &wt))
            return EINVAL;
        if (wt == 0 || wt > 1000000)
            return EINVAL;
        if (texts) {
            size_t tl = colon ? (size_t)(colon - p) : len;
            if (tl == 0 || p[0] != '/' || memchr(p, ' ', tl) || !(texts[l->n] = strndup(p, tl)))
                return EINVAL;
            v = l->n;
        } else if (parse_u64_n(p, colon ? (size_t)(colon - p) : len, &v)) {
            return EINVAL;
        }
        sum += wt;
        l->value[l->n] = v;
        l->cum[l->n] = sum;
        l->n++;
        p += len;
        if (*p == ',' && !*++p)
            return EINVAL;
    }
    return l->n ? 0 : EINVAL;
}

int mtl_workload_set_value_size(struct mtl_workload *w, const char *spec)
{
    const char *dash = strchr(spec, '-');
    size_t i;

    if (strchr(spec, ':') || strchr(spec, ',')) {
        if (parse_wlist(&w->vlist, spec, NULL))
            return EINVAL;
        w->vkind = MTL_VSIZE_LIST;
        w->vmin = UINT64_MAX;
        w->vmax = 0;
        for (i = 0; i < w->vlist.n; i++) {
            if (w->vlist.value[i] < 1 || w->vlist.value[i] > MTL_VALUE_MAX)
                return EINVAL;
            if (w->vlist.value[i] < w->vmin) w->vmin = w->vlist.value[i];
            if (w->vlist.value[i] > w->vmax) w->vmax = w->vlist.value[i];
        }
        return 0;
    }
    if (dash) {
        uint64_t lo, hi;
        if (parse_u64_n(spec, (size_t)(dash - spec), &lo) || mtl_parse_u64(dash + 1, &hi) ||
            lo < 1 || hi < lo || hi > MTL_VALUE_MAX)
            return EINVAL;
        w->vkind = MTL_VSIZE_RANGE;
        w->vmin = lo;
        w->vmax = hi;
        return 0;
    }
    if (mtl_parse_u64(spec, &w->vmin) || w->vmin < 1 || w->vmin > MTL_VALUE_MAX)
        return EINVAL;
    w->vkind = MTL_VSIZE_FIXED;
    w->vmax = w->vmin;
    return 0;
}

int mtl_workload_set_paths(struct mtl_workload *w, const char *spec)
{
    size_t i;
    for (i = 0; i < MTL_LIST_MAX; i++) {
        free(w->path_text[i]);
        w->path_text[i] = NULL;
    }
    return parse_wlist(&w->paths, spec, w->path_text);
}

int mtl_workload_set_prefix(struct mtl_workload *w, const char *prefix)
{
    size_t len = strlen(prefix), i;
    if (len > MTL_PREFIX_MAX)
        return EINVAL;
    for (i = 0; i < len; i++)
        if ((unsigned char)prefix[i] <= ' ' || prefix[i] == 0x7f)
            return EINVAL;
    memcpy(w->prefix, prefix, len + 1);
    w->prefix_len = len;
    return 0;
}

int mtl_workload_finish(struct mtl_workload *w, const char *host_header)
{
    size_t i;

    if (w->keys < 1)
        return EINVAL;
    if (w->pattern == MTL_KEYS_ZIPF && mtl_zipf_init(&w->zipf, w->keys, w->zipf.s))
        return EINVAL;
    w->value = malloc(w->vmax + 2);
    if (!w->value)
        return ENOMEM;
    for (i = 0; i < w->vmax; i++)
        w->value[i] = (char)('a' + i % 26);
    w->value[w->vmax] = '\r';
    w->value[w->vmax + 1] = '\n';
    /* "set <prefix><key> 0 0 <len>\r\n<value>\r\n" bounds every memcache request */
    w->req_max = 64 + w->prefix_len + 2 * 20 + w->vmax + 2;
    for (i = 0; i < w->paths.n; i++) {
        int n = asprintf(&w->reqs[i].text, "GET %s HTTP/1.1\r\nHost: %s\r\n"
                         "User-Agent: mtload\r\n\r\n", w->path_text[i], host_header);
        if (n < 0) {
            w->reqs[i].text = NULL;
            return ENOMEM;
        }
        w->reqs[i].len = (size_t)n;
        if ((size_t)n > w->req_max)
            w->req_max = (size_t)n;
    }
    return 0;
}

void mtl_workload_free(struct mtl_workload *w)
{
    size_t i;
    free(w->value);
    w->value = NULL;
    for (i = 0; i < MTL_LIST_MAX; i++) {
        free(w->path_text[i]);
        free(w->reqs[i].text);
        w->path_text[i] = NULL;
        w->reqs[i].text = NULL;
    }
}

void mtl_gen_init(struct mtl_gen *g, const struct mtl_workload *w, uint64_t seed,
                  uint64_t first, uint64_t end)
{
    g->w = w;
    mtl_rng_seed(&g->rng, seed);
    g->op_ctr = 0;
    g->seq = first < w->keys ? first : 0;
    g->seq_end = end;
}
