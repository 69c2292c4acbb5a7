/* intervals.h - mtload's per-second latency histograms by operation, kept for
 * the HdrHistogram interval log (--hlog; hlog.h).
 *
 * Each thread records into four dense histograms of the current second (GET
 * and SET, corrected and uncorrected; sub_bits 7, the layout of an
 * HdrHistogram of 2 significant digits) and, when a response falls into a
 * later second, folds them into a sparse copy of their non-empty buckets: a
 * few kB per second instead of 4 x 32 kB. Responses of one thread come in
 * time order, so a second is folded once; nothing allocates per request.
 */
#ifndef MTL_INTERVALS_H
#define MTL_INTERVALS_H
#include <stddef.h>
#include <stdint.h>
#include "loadgen/hist.h"

enum mtl_iv_kind { MTL_IV_GET, MTL_IV_SET, MTL_IV_GET_UNC, MTL_IV_SET_UNC, MTL_IV_KINDS };

struct mtl_sparse {           /* the non-empty buckets of one histogram */
    size_t n;
    uint32_t *idx;
    uint64_t *cnt;
    uint64_t total, min, max;
    double sum, sumsq;
};

struct mtl_intervals {
    int on;                   /* set by mtl_iv_init: --hlog asked for them */
    size_t cur;               /* the second dense[] holds */
    struct mtl_hist dense[MTL_IV_KINDS];
    size_t len, cap;          /* seconds kept */
    struct mtl_sparse (*sec)[MTL_IV_KINDS];
};

/** Add sp's buckets into h (a histogram of sub_bits 7). */
void mtl_sparse_expand(const struct mtl_sparse *sp, struct mtl_hist *h);
/** Replace sp by h's non-empty buckets. @return 0 or ENOMEM (sp unchanged). */
int mtl_sparse_compact(const struct mtl_hist *h, struct mtl_sparse *sp);
void mtl_sparse_free(struct mtl_sparse *sp);

/** @return 0 or ENOMEM. */
int mtl_iv_init(struct mtl_intervals *iv);
void mtl_iv_free(struct mtl_intervals *iv);
/** Fold the current second into the sparse copies; then record into second s. @return 0 or ENOMEM. */
int mtl_iv_roll(struct mtl_intervals *iv, size_t s);

/** Record one response of second s (from the start of measurement). */
static inline void mtl_iv_record(struct mtl_intervals *iv, size_t s, int is_set,
                                 uint64_t corrected, uint64_t uncorrected)
{
    if (s != iv->cur && mtl_iv_roll(iv, s))
        return;                 /* out of memory: the second is not kept */
    mtl_hist_record(&iv->dense[is_set ? MTL_IV_SET : MTL_IV_GET], corrected);
    mtl_hist_record(&iv->dense[is_set ? MTL_IV_SET_UNC : MTL_IV_GET_UNC], uncorrected);
}

/** Add src's seconds (folded with mtl_iv_roll(src, src->cur) first) into dst. @return 0 or ENOMEM. */
int mtl_iv_add(struct mtl_intervals *dst, struct mtl_intervals *src);

/** Add second s's histogram of kind k into h (sub_bits 7). */
void mtl_iv_get(const struct mtl_intervals *iv, size_t s, enum mtl_iv_kind k, struct mtl_hist *h);

/**
 * Write the interval log (atomically: temporary file, then rename): one
 * interval per second for every tag with responses: "request" (GET and SET),
 * "GET", "SET", and the uncorrected ones as "request-uncorrected", ...
 * @param start_epoch  wall-clock time of the measured window's start
 * @param duration_s   the measured window (the last interval may be shorter)
 * @return 0 or errno.
 */
int mtl_iv_write_log(const char *path, const struct mtl_intervals *iv, double start_epoch,
                     double duration_s, const char *producer);
#endif
