/* hlog.h - HdrHistogram's formats for mtload's histograms: the V2 encoding of
 * one histogram and the interval log (.hlog, "Histogram log format version
 * 1.3") that holds one encoded histogram per interval. Written from the
 * format's published facts (docs/FORMATS.md), no HdrHistogram code.
 *
 * The mapping is exact: an mtl_hist with sub_bits S has the bucket layout of an
 * HdrHistogram with lowestDiscernibleValue 1 and subBucketHalfCount 2^S, so
 * mtl_hist_index() equals HdrHistogram's counts index. HdrHistogram's
 * subBucketCount is 2^ceil(log2(2 * 10^digits)), so S = 7 (mtload's latency
 * histograms) is 2 significant digits; S = 4, 10, 14 are 1, 3 and 4 digits.
 * Histograms of other layouts (another tool's log) are read by recording each
 * of their buckets' middle value into an mtl_hist: within one bucket of both.
 *
 * Compressed histograms need zlib (native builds, MTB_WITH_ZLIB); a build
 * without it (the aarch64 guest's) writes zlib streams of stored blocks, which
 * any reader inflates, and cannot read compressed histograms (ENOTSUP).
 */
#ifndef MTL_HLOG_H
#define MTL_HLOG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "loadgen/hist.h"

#define MTL_HLOG_COOKIE           0x1c849303u  /* V2 encoding (low nibble 3) */
#define MTL_HLOG_COMPRESSED       0x1c849304u  /* V2 compressed (low nibble 4) */
#define MTL_HLOG_HEADER_BYTES     40
#define MTL_HLOG_SUB_BITS         7            /* mtload's layout: 2 significant digits */

/** Significant digits of the HdrHistogram whose layout an mtl_hist of
 *  sub_bits has; -1 when no HdrHistogram has that layout. */
int mtl_hlog_digits(unsigned sub_bits);

/**
 * Encode h as an HdrHistogram V2 compressed histogram, base64 (standard
 * alphabet, padded), NUL-terminated, into *b64 (free() it).
 * @return 0, EINVAL when h's layout has no HdrHistogram (mtl_hlog_digits), ENOMEM.
 */
int mtl_hlog_encode(const struct mtl_hist *h, char **b64);

/**
 * Decode a base64 V2 histogram (compressed or not) and add it to dst, values
 * multiplied by to_ns (the log's unit in ns: 1 for ns, 1000 for us, ...).
 * dst's min and max become the lowest and highest values its buckets can
 * hold, as HdrHistogram reports them.
 * @return 0, or EINVAL (not base64, not V2, truncated, corrupt; why in err),
 *         ENOTSUP (compressed, built without zlib), ENOMEM.
 */
int mtl_hlog_decode(const char *b64, size_t len, double to_ns, struct mtl_hist *dst,
                    char *err, size_t errlen);

/** Nanoseconds per unit name ("ns", "us", "ms", "s"); 0 for anything else. */
double mtl_hlog_unit_ns(const char *unit);

/**
 * Write the log's header: format version, a comment naming the producer and
 * the value unit, "#[ValueUnit: ns]", StartTime and BaseTime (start_epoch,
 * seconds since the epoch; interval starts are relative to it), the legend.
 */
int mtl_hlog_write_header(FILE *f, double start_epoch, const char *producer);

/**
 * Write one interval line "Tag=TAG,START,LENGTH,MAX,HISTOGRAM" (tag NULL:
 * none; START relative to BaseTime, seconds; MAX in ms as HdrHistogram's
 * writer puts it, values being ns). @return 0 or errno.
 */
int mtl_hlog_write_interval(FILE *f, const char *tag, double start, double length,
                            const struct mtl_hist *h);

/** One interval read from a log, handed to the reader's callback. */
struct mtl_hlog_interval {
    const char *tag;          /* "" when untagged */
    double start, length;     /* seconds; start relative to BaseTime/StartTime */
    struct mtl_hist *hist;    /* ns, sub_bits 7; the callback may merge it, not keep it */
    unsigned line;
};

typedef int (*mtl_hlog_cb)(void *arg, const struct mtl_hlog_interval *iv);

/**
 * Read an interval log. Values are converted to ns from the log's
 * "#[ValueUnit: X]" line, or from default_unit when it has none (HdrHistogram's
 * own tools record ns). Every interval is decoded into a fresh histogram
 * handed to cb (a non-zero return stops the read and is returned).
 * @param start_epoch receives the log's StartTime (0 when it has none); may be NULL
 * @return 0; EINVAL with why in err (named: the file and line) for a truncated
 *         or corrupt log, a unit that is not a time unit, a log without intervals;
 *         or an errno value from reading.
 */
int mtl_hlog_read(FILE *f, const char *name, const char *default_unit, double *start_epoch,
                  mtl_hlog_cb cb, void *arg, char *err, size_t errlen);
#endif
