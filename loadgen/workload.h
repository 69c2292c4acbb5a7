/* workload.h - what to send: SET:GET mix, key space, value sizes, HTTP paths.
 *
 * A struct mtl_workload is built once from the options and then only read;
 * each thread draws from it through its own struct mtl_gen (RNG and counters),
 * so generating a request takes no lock and no allocation.
 */
#ifndef MTL_WORKLOAD_H
#define MTL_WORKLOAD_H
#include <stddef.h>
#include <stdint.h>
#include "loadgen/rng.h"
#include "loadgen/zipf.h"

#define MTL_PREFIX_MAX 64      /* key prefix bytes */
#define MTL_LIST_MAX   64      /* entries of a weighted list (values, paths) */
#define MTL_VALUE_MAX  (1u << 20)
#define MTL_HOST_MAX   300

enum mtl_op { MTL_OP_GET, MTL_OP_SET };
enum mtl_key_pattern { MTL_KEYS_UNIFORM, MTL_KEYS_ZIPF, MTL_KEYS_SEQ };
enum mtl_vsize_kind { MTL_VSIZE_FIXED, MTL_VSIZE_RANGE, MTL_VSIZE_LIST };

struct mtl_wlist {                 /* weighted list: pick i with weight[i]/total */
    size_t n;
    uint64_t value[MTL_LIST_MAX];
    uint64_t cum[MTL_LIST_MAX];    /* running sum of weights */
};

struct mtl_http_req {
    char *text;                    /* the whole preformatted request */
    size_t len;
};

struct mtl_workload {
    uint32_t ratio_set, ratio_get;          /* --ratio SET:GET */
    uint64_t keys;                          /* --keys */
    char prefix[MTL_PREFIX_MAX + 1];        /* --key-prefix */
    size_t prefix_len;
    enum mtl_key_pattern pattern;           /* --key-pattern */
    struct mtl_zipf zipf;
    enum mtl_vsize_kind vkind;              /* --value-size */
    uint64_t vmin, vmax;
    struct mtl_wlist vlist;
    char *value;                            /* vmax filler bytes followed by "\r\n" */
    struct mtl_wlist paths;                 /* --paths: value = index into reqs */
    char *path_text[MTL_LIST_MAX];
    struct mtl_http_req reqs[MTL_LIST_MAX];
    size_t req_max;                         /* longest request any protocol may build */
    int preload;                            /* SET every key once, in order */
};

struct mtl_gen {
    const struct mtl_workload *w;
    struct mtl_rng rng;
    uint64_t op_ctr;                        /* position in the SET:GET cycle */
    uint64_t seq;                           /* next key for seq / preload */
    uint64_t seq_end;
};

/** Defaults: 1:10, 100000 keys, "mtl:", uniform, 100-byte values, path "/". */
void mtl_workload_defaults(struct mtl_workload *w);
/* Spec parsers: 0, or EINVAL when the text is not in the accepted syntax. */
int mtl_workload_set_ratio(struct mtl_workload *w, const char *spec);        /* "1:10" */
int mtl_workload_set_pattern(struct mtl_workload *w, const char *spec);      /* uniform|zipf:S|seq */
int mtl_workload_set_value_size(struct mtl_workload *w, const char *spec);   /* 100 | 64-1024 | 100:8,4096:2 */
int mtl_workload_set_paths(struct mtl_workload *w, const char *spec);        /* /a:3,/b:1 */
int mtl_workload_set_prefix(struct mtl_workload *w, const char *prefix);
/**
 * Finish after all options: allocate the value filler, preformat the HTTP
 * requests with this Host header. @return 0, EINVAL or ENOMEM.
 */
int mtl_workload_finish(struct mtl_workload *w, const char *host_header);
void mtl_workload_free(struct mtl_workload *w);

/** Start a generator; seq keys start at first and (in preload) stop at end. */
void mtl_gen_init(struct mtl_gen *g, const struct mtl_workload *w, uint64_t seed,
                  uint64_t first, uint64_t end);

static inline uint64_t mtl_wlist_pick(const struct mtl_wlist *l, struct mtl_rng *r)
{
    uint64_t x;
    size_t i = 0;
    if (l->n == 1)
        return l->value[0];
    x = mtl_rng_below(r, l->cum[l->n - 1]);
    while (x >= l->cum[i])
        i++;
    return l->value[i];
}

static inline enum mtl_op mtl_gen_op(struct mtl_gen *g)
{
    const struct mtl_workload *w = g->w;
    uint64_t c;
    if (w->preload)
        return MTL_OP_SET;
    c = g->op_ctr++;
    if (g->op_ctr == (uint64_t)w->ratio_set + w->ratio_get)
        g->op_ctr = 0;
    return c < w->ratio_set ? MTL_OP_SET : MTL_OP_GET;
}

static inline uint64_t mtl_gen_key(struct mtl_gen *g)
{
    const struct mtl_workload *w = g->w;
    uint64_t k;
    switch (w->preload ? MTL_KEYS_SEQ : w->pattern) {
    case MTL_KEYS_ZIPF:
        return mtl_zipf_sample(&w->zipf, &g->rng);
    case MTL_KEYS_SEQ:
        k = g->seq++;
        if (g->seq >= w->keys)
            g->seq = 0;
        return k;
    default:
        return mtl_rng_below(&g->rng, w->keys);
    }
}

static inline uint64_t mtl_gen_value_size(struct mtl_gen *g)
{
    const struct mtl_workload *w = g->w;
    switch (w->vkind) {
    case MTL_VSIZE_RANGE:
        return w->vmin + mtl_rng_below(&g->rng, w->vmax - w->vmin + 1);
    case MTL_VSIZE_LIST:
        return mtl_wlist_pick(&w->vlist, &g->rng);
    default:
        return w->vmin;
    }
}

/** Write v in decimal at p; @return the number of bytes written (no NUL).
 *  Two digits per step from a table, written in place from the end (the
 *  request builder's one conversion per request). */
static inline size_t mtl_utoa(char *p, uint64_t v)
{
    static const char d2[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    uint64_t x = 10;
    size_t n = 1;
    char *q;

    while (n < 20 && v >= x) {               /* 10^19 is the last power below 2^64 */
        n++;
        x *= 10;
    }
    q = p + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = d2[2 * r];
        q[1] = d2[2 * r + 1];
    }
    if (v >= 10) {
        q[-2] = d2[2 * v];
        q[-1] = d2[2 * v + 1];
    } else {
        q[-1] = (char)('0' + v);
    }
    return n;
}
#endif
