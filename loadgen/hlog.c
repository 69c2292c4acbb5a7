/* hlog.c - HdrHistogram V2 encoding and interval logs (hlog.h). */
#include "loadgen/hlog.h"
#include "loadgen/engine.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef MTB_WITH_ZLIB
#include <zlib.h>
#endif

#define MAX_PAYLOAD (64u << 20)   /* an inflated histogram larger than this is corrupt */

int mtl_hlog_digits(unsigned sub_bits) { return mtl_hist_hdr_digits(sub_bits); }

double mtl_hlog_unit_ns(const char *unit)
{
    if (!strcmp(unit, "ns")) return 1;
    if (!strcmp(unit, "us")) return 1e3;
    if (!strcmp(unit, "ms")) return 1e6;
    if (!strcmp(unit, "s")) return 1e9;
    return 0;
}

/* ---- bytes ----------------------------------------------------------- */

struct buf { unsigned char *p; size_t len, cap; };

static int put(struct buf *b, const void *src, size_t n)
{
    if (n == 0) /* nothing to add: an empty buffer may still have no memory */
        return 0;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        unsigned char *np;
        while (cap < b->len + n)
            cap *= 2;
        if (!(np = realloc(b->p, cap)))
            return ENOMEM;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
    return 0;
}

static void be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

static void be64(unsigned char *p, uint64_t v)
{
    be32(p, (uint32_t)(v >> 32));
    be32(p + 4, (uint32_t)v);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) << 32 | rd32(p + 4); }

/* ZigZag, then LEB128 with at most 9 bytes: 8 groups of 7 bits, the 9th byte
 * carries the last 8 bits whole. */
static int put_varint(struct buf *b, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    unsigned char out[9];
    size_t n = 0;

    while (n < 8 && u >= 0x80) {
        out[n++] = (unsigned char)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    out[n++] = (unsigned char)u;
    return put(b, out, n);
}

/* @return bytes used, 0 when the buffer ends inside the number */
static size_t get_varint(const unsigned char *p, size_t len, int64_t *v)
{
    uint64_t u = 0;
    size_t n;

    for (n = 0; n < 9 && n < len; n++) {
        if (n == 8) {
            u |= (uint64_t)p[n] << 56;
            break;
        }
        u |= (uint64_t)(p[n] & 0x7f) << (7 * n);
        if (!(p[n] & 0x80))
            break;
    }
    if (n >= len)
        return 0;
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return n + 1;
}

/* ---- base64 ---------------------------------------------------------- */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *p, size_t n)
{
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    size_t i;

    if (!out)
        return NULL;
    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = b64chars[v >> 18]; *o++ = b64chars[(v >> 12) & 63];
        *o++ = b64chars[(v >> 6) & 63]; *o++ = b64chars[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *o++ = b64chars[v >> 18]; *o++ = b64chars[(v >> 12) & 63];
        *o++ = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = 0;
    return out;
}

static int b64_value(int c)
{
    const char *q = c ? strchr(b64chars, c) : NULL;
    return q ? (int)(q - b64chars) : -1;
}

/* @return 0, or EINVAL when s is not base64 */
static int b64_decode(const char *s, size_t len, struct buf *out)
{
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        int v;
        unsigned char c;
        if (s[i] == '=') {
            pad++;
            continue;
        }
        if (pad || (v = b64_value(s[i])) < 0)
            return EINVAL;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            c = (unsigned char)(acc >> bits);
            if (put(out, &c, 1))
                return ENOMEM;
        }
    }
    return len % 4 == 0 && pad <= 2 ? 0 : EINVAL;
}

/* ---- zlib ------------------------------------------------------------- */

#ifdef MTB_WITH_ZLIB
static int deflate_buf(const struct buf *in, struct buf *out)
{
    uLongf n = compressBound((uLong)in->len);
    struct buf tmp = { 0 };
    if (!(tmp.p = malloc(n)))
        return ENOMEM;
    if (compress2(tmp.p, &n, in->p, (uLong)in->len, Z_DEFAULT_COMPRESSION) != Z_OK) {
        free(tmp.p);
        return ENOMEM;
    }
    tmp.len = n;
    *out = tmp;
    return 0;
}

static int inflate_buf(const unsigned char *p, size_t n, struct buf *out, char *err, size_t errlen)
{
    z_stream z;
    int zr;

    memset(&z, 0, sizeof(z));
    if (inflateInit(&z) != Z_OK)
        return ENOMEM;
    z.next_in = (unsigned char *)p;
    z.avail_in = (uInt)n;
    do {
        unsigned char chunk[16384];
        z.next_out = chunk;
        z.avail_out = sizeof(chunk);
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END)
            break;
        if (put(out, chunk, sizeof(chunk) - z.avail_out) || out->len > MAX_PAYLOAD) {
            zr = Z_MEM_ERROR;
            break;
        }
    } while (zr != Z_STREAM_END && (z.avail_in || z.avail_out == 0));
    inflateEnd(&z);
    if (zr == Z_STREAM_END && z.avail_in == 0)
        return 0;
    if (zr == Z_STREAM_END) {
        snprintf(err, errlen, "corrupt compressed histogram: %u of its %zu bytes follow the end "
                 "of the zlib stream", z.avail_in, n);
        return EINVAL;
    }
    snprintf(err, errlen, "corrupt compressed histogram (zlib: %s)",
             zr == Z_OK || zr == Z_BUF_ERROR ? "stream ends early: truncated" :
             zr == Z_MEM_ERROR ? "larger than 64 MiB" : z.msg ? z.msg : "data error");
    return EINVAL;
}
#else
/* A zlib stream of stored (uncompressed) deflate blocks: what every inflater reads. */
static int deflate_buf(const struct buf *in, struct buf *out)
{
    struct buf tmp = { 0 };
    uint32_t a = 1, b = 0;
    unsigned char hdr[5], sum[4];
    size_t off = 0, i;

    if (put(&tmp, "\x78\x01", 2))
        return ENOMEM;
    do {
        size_t n = in->len - off > 65535 ? 65535 : in->len - off;
        hdr[0] = off + n == in->len;
        hdr[1] = (unsigned char)n; hdr[2] = (unsigned char)(n >> 8);
        hdr[3] = (unsigned char)~n; hdr[4] = (unsigned char)(~n >> 8);
        if (put(&tmp, hdr, 5) || put(&tmp, in->p + off, n))
            return free(tmp.p), ENOMEM;
        off += n;
    } while (off < in->len);
    for (i = 0; i < in->len; i++) {
        a = (a + in->p[i]) % 65521;
        b = (b + a) % 65521;
    }
    be32(sum, b << 16 | a);
    if (put(&tmp, sum, 4))
        return free(tmp.p), ENOMEM;
    *out = tmp;
    return 0;
}

static int inflate_buf(const unsigned char *p, size_t n, struct buf *out, char *err, size_t errlen)
{
    (void)p; (void)n; (void)out;
    snprintf(err, errlen, "compressed histograms need zlib, which this build lacks");
    return ENOTSUP;
}
#endif

/* ---- one histogram ----------------------------------------------------- */

int mtl_hlog_encode(const struct mtl_hist *h, char **b64)
{
    struct buf payload = { 0 }, z = { 0 }, out = { 0 };
    unsigned char hdr[MTL_HLOG_HEADER_BYTES], zh[8];
    int digits = mtl_hlog_digits(h->sub_bits), rc = 0;
    size_t i, last = 0, zeros = 0;
    union { double d; uint64_t u; } ratio = { 1.0 };

    *b64 = NULL;
    if (digits < 0)
        return EINVAL;
    for (i = 0; i < h->nbuckets; i++)
        if (h->counts[i])
            last = i + 1;
    memset(hdr, 0, sizeof(hdr));
    rc = put(&payload, hdr, sizeof(hdr));       /* filled in below */
    for (i = 0; i < last && !rc; i++) {
        if (!h->counts[i]) {
            zeros++;
            continue;
        }
        if (zeros > 1)
            rc = put_varint(&payload, -(int64_t)zeros);
        else if (zeros == 1)
            rc = put_varint(&payload, 0);
        zeros = 0;
        if (!rc)
            rc = put_varint(&payload, (int64_t)(h->counts[i] > INT64_MAX ? INT64_MAX : h->counts[i]));
    }
    if (rc)
        goto out;
    be32(payload.p, MTL_HLOG_COOKIE);
    be32(payload.p + 4, (uint32_t)(payload.len - MTL_HLOG_HEADER_BYTES));
    be32(payload.p + 8, 0);                      /* normalizingIndexOffset */
    be32(payload.p + 12, (uint32_t)digits);
    be64(payload.p + 16, 1);                     /* lowestDiscernibleValue */
    be64(payload.p + 24, h->highest);
    be64(payload.p + 32, ratio.u);               /* integerToDoubleValueConversionRatio */
    if ((rc = deflate_buf(&payload, &z)) != 0)
        goto out;
    be32(zh, MTL_HLOG_COMPRESSED);
    be32(zh + 4, (uint32_t)z.len);
    if ((rc = put(&out, zh, 8)) || (rc = put(&out, z.p, z.len)))
        goto out;
    if (!(*b64 = b64_encode(out.p, out.len)))
        rc = ENOMEM;
out:
    free(payload.p);
    free(z.p);
    free(out.p);
    return rc;
}

struct foreign {          /* the layout of the histogram being decoded */
    unsigned half_mag, unit_mag;
    double to_ns;
    struct mtl_hist *dst;
    uint64_t lo_ns, hi_ns;  /* extremes of the non-empty buckets */
    int any;
};

static void add_bucket(struct foreign *fh, uint64_t index, uint64_t count)
{
    struct mtl_hist *h = fh->dst;
    int64_t bucket = (int64_t)(index >> fh->half_mag) - 1;
    uint64_t half = 1ULL << fh->half_mag, sub = (index & (half - 1)) + half, lo, width;
    double lo_ns, hi_ns;

    if (bucket < 0) {
        sub -= half;
        bucket = 0;
    }
    if (bucket + (int64_t)fh->unit_mag + (int64_t)fh->half_mag + 1 > 62) {
        lo = UINT64_MAX >> 2;               /* beyond anything we track: clamped below */
        width = 1;
    } else {
        lo = sub << (bucket + fh->unit_mag);
        width = 1ULL << (bucket + fh->unit_mag);
    }
    lo_ns = (double)lo * fh->to_ns;
    hi_ns = (double)(lo + width - 1) * fh->to_ns;
    if (lo_ns > (double)h->highest) lo_ns = (double)h->highest + 1;
    if (hi_ns > (double)h->highest) hi_ns = (double)h->highest + 1;
    if (fh->half_mag == h->sub_bits && fh->unit_mag == 0 && fh->to_ns == 1.0 && index < h->nbuckets) {
        /* the same layout: the counts index is mtl_hist's bucket, exactly */
        h->counts[index] += count;
        h->total += count;
        h->sum += (double)mtl_hist_bucket_value(h, index) * (double)count;
        h->sumsq += pow((double)mtl_hist_bucket_value(h, index), 2) * (double)count;
    } else {
        double mid_ns = (double)(lo + width / 2) * fh->to_ns;
        mtl_hist_record_n(h, mid_ns > (double)h->highest ? h->highest + 1 : (uint64_t)mid_ns, count);
    }
    if (!fh->any || (uint64_t)lo_ns < fh->lo_ns) fh->lo_ns = (uint64_t)lo_ns;
    if (!fh->any || (uint64_t)hi_ns > fh->hi_ns) fh->hi_ns = (uint64_t)hi_ns;
    fh->any = 1;
}

static int decode_payload(const unsigned char *p, size_t n, double to_ns, struct mtl_hist *dst,
                          char *err, size_t errlen)
{
    uint32_t cookie, plen, digits;
    int32_t norm;
    uint64_t lowest, highest, index = 0;
    struct foreign fh = { 0 };
    size_t off = MTL_HLOG_HEADER_BYTES;

    if (n < MTL_HLOG_HEADER_BYTES) {
        snprintf(err, errlen, "truncated histogram: %zu bytes, its header alone has 40", n);
        return EINVAL;
    }
    cookie = rd32(p);
    plen = rd32(p + 4);
    norm = (int32_t)rd32(p + 8);
    digits = rd32(p + 12);
    lowest = rd64(p + 16);
    highest = rd64(p + 24);
    if ((cookie & ~0xf0u) != MTL_HLOG_COOKIE) {
        snprintf(err, errlen, "not an HdrHistogram V2 histogram (cookie 0x%08x, V2 is 0x%08x)",
                 cookie, MTL_HLOG_COOKIE);
        return EINVAL;
    }
    if (plen > n - MTL_HLOG_HEADER_BYTES) {
        snprintf(err, errlen, "truncated histogram: its header says %u bytes of counts, %zu follow",
                 plen, n - MTL_HLOG_HEADER_BYTES);
        return EINVAL;
    }
    if (digits > 5 || lowest < 1 || lowest > (1ULL << 40) || highest < 2 * lowest || norm != 0) {
        snprintf(err, errlen, "corrupt histogram header (digits %u, lowest %llu, highest %llu, "
                 "normalizing offset %d; mtebench reads 0..5 digits, unshifted)", digits,
                 (unsigned long long)lowest, (unsigned long long)highest, norm);
        return EINVAL;
    }
    fh.half_mag = (unsigned)ceil(log2(2.0 * pow(10.0, digits))) - 1;
    fh.unit_mag = (unsigned)floor(log2((double)lowest));
    fh.to_ns = to_ns;
    fh.dst = dst;
    while (off < MTL_HLOG_HEADER_BYTES + (size_t)plen) {
        int64_t v;
        size_t used = get_varint(p + off, MTL_HLOG_HEADER_BYTES + plen - off, &v);
        if (!used) {
            snprintf(err, errlen, "truncated histogram: the counts end inside a number");
            return EINVAL;
        }
        off += used;
        if (v < 0) {
            index += (uint64_t)-v;
        } else {
            if (v > 0)
                add_bucket(&fh, index, (uint64_t)v);
            index++;
        }
        if (index > (1ULL << 40)) {
            snprintf(err, errlen, "corrupt histogram: counts index beyond 2^40");
            return EINVAL;
        }
    }
    if (fh.any) {
        dst->min = fh.lo_ns < dst->min ? fh.lo_ns : dst->min;
        dst->max = fh.hi_ns;
    }
    return 0;
}

int mtl_hlog_decode(const char *b64, size_t len, double to_ns, struct mtl_hist *dst,
                    char *err, size_t errlen)
{
    struct buf raw = { 0 }, inflated = { 0 };
    uint32_t cookie;
    int rc;

    if ((rc = b64_decode(b64, len, &raw)) != 0) {
        snprintf(err, errlen, rc == EINVAL ? "not base64" : "out of memory");
        goto out;
    }
    rc = EINVAL;
    if (raw.len < 8) {
        snprintf(err, errlen, "truncated histogram: %zu bytes", raw.len);
        goto out;
    }
    cookie = rd32(raw.p) & ~0xf0u;
    if (cookie == MTL_HLOG_COMPRESSED) {
        uint32_t zlen = rd32(raw.p + 4);
        if (zlen > raw.len - 8) {
            snprintf(err, errlen, "truncated histogram: %u compressed bytes announced, %zu present",
                     zlen, raw.len - 8);
            goto out;
        }
        if ((rc = inflate_buf(raw.p + 8, zlen, &inflated, err, errlen)) != 0)
            goto out;
        rc = decode_payload(inflated.p, inflated.len, to_ns, dst, err, errlen);
    } else if (cookie == MTL_HLOG_COOKIE) {
        rc = decode_payload(raw.p, raw.len, to_ns, dst, err, errlen);
    } else {
        snprintf(err, errlen, "not an HdrHistogram V2 histogram (cookie 0x%08x%s)", rd32(raw.p),
                 cookie == 0x1c849301u || cookie == 0x1c849302u ? ": V1, which mtebench does not read" : "");
    }
out:
    free(raw.p);
    free(inflated.p);
    return rc;
}

/* ---- the log ------------------------------------------------------------- */

int mtl_hlog_write_header(FILE *f, double start_epoch, const char *producer)
{
    char date[64] = "";
    time_t t = (time_t)start_epoch;
    struct tm tm;

    if (gmtime_r(&t, &tm))
        strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
    fprintf(f, "#[Histogram log format version 1.3]\n");
    fprintf(f, "#[%s; values in nanoseconds (ns), Interval_Max in milliseconds]\n", producer);
    fprintf(f, "#[ValueUnit: ns]\n");
    fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch, date);
    fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch);
    fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
    return ferror(f) ? EIO : 0;
}

int mtl_hlog_write_interval(FILE *f, const char *tag, double start, double length,
                            const struct mtl_hist *h)
{
    char *b64;
    int rc = mtl_hlog_encode(h, &b64);
    uint64_t max = 0;
    size_t i;

    if (rc)
        return rc;
    for (i = h->nbuckets; i-- > 0;)
        if (h->counts[i]) {      /* the bucket's highest value, as HdrHistogram reports it */
            uint64_t w, lo = mtl_hist_bucket_low(h, i, &w);
            max = lo + w - 1;
            break;
        }
    if (tag)
        fprintf(f, "Tag=%s,", tag);
    fprintf(f, "%.3f,%.3f,%.3f,%s\n", start, length, (double)max / 1e6, b64);
    free(b64);
    return ferror(f) ? EIO : 0;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return EINVAL;
}

/* "#[ValueUnit: X]", "#[StartTime: S ...", "#[BaseTime: S ..." */
static int header_line(const char *line, const char *name, unsigned ln, double *unit_ns,
                       double *start, double *base, char *err, size_t errlen)
{
    char unit[32];
    if (sscanf(line, "#[ValueUnit: %31[^]]", unit) == 1) {
        if (!(*unit_ns = mtl_hlog_unit_ns(unit)))
            return fail(err, errlen, "%s:%u: unit '%s' is not a time unit mtebench reads "
                        "(ns, us, ms, s)", name, ln, unit);
    } else if (!strncmp(line, "#[StartTime: ", 13)) {
        *start = strtod(line + 13, NULL);
    } else if (!strncmp(line, "#[BaseTime: ", 12)) {
        *base = strtod(line + 12, NULL);
    }
    return 0;
}

/* split "Tag=X,start,length,max,b64" in place */
static int interval_fields(char *line, struct mtl_hlog_interval *iv, char **b64, const char *name, unsigned ln,
                           char *err, size_t errlen)
{
    char *fld[4], *p = line, *end;
    int n = 0, i = 0;

    iv->tag = "";
    if (!strncmp(p, "Tag=", 4)) {
        iv->tag = p + 4;
        if (!(p = strchr(p, ',')))
            return fail(err, errlen, "%s:%u: truncated interval line (a tag and nothing else)", name, ln);
        *p++ = 0;
    }
    while (n < 4 && p) {
        fld[n++] = p;
        if ((p = strchr(p, ',')))
            *p++ = 0;
    }
    if (n < 4 || !*fld[3])
        return fail(err, errlen, "%s:%u: truncated interval line (%d of 4 fields: start, length, "
                    "max, histogram)", name, ln, n - (n == 4));
    if (p)
        return fail(err, errlen, "%s:%u: interval line with more than 4 fields", name, ln);
    for (i = 0; i < 3; i++) {
        strtod(fld[i], &end);
        if (end == fld[i] || *end)
            return fail(err, errlen, "%s:%u: field %d '%s' is not a number", name, ln, i + 1, fld[i]);
    }
    iv->start = strtod(fld[0], NULL);
    iv->length = strtod(fld[1], NULL);
    *b64 = fld[3];
    return 0;
}

int mtl_hlog_read(FILE *f, const char *name, const char *default_unit, double *start_epoch,
                  mtl_hlog_cb cb, void *arg, char *err, size_t errlen)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned ln = 0, intervals = 0;
    double unit_ns = mtl_hlog_unit_ns(default_unit ? default_unit : "ns");
    double start = 0, base = -1;
    int rc = 0;
    struct mtl_hist h;

    if (!unit_ns)
        return fail(err, errlen, "%s: unit '%s' is not a time unit mtebench reads (ns, us, ms, s)",
                    name, default_unit);
    if ((rc = mtl_hist_init(&h, 7, MTL_HIST_HIGHEST)) != 0)
        return rc;
    while (!rc && (n = getline(&line, &cap, f)) >= 0) {
        int complete = n > 0 && line[n - 1] == '\n';
        struct mtl_hlog_interval iv;
        char *b64 = NULL;

        ln++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (n == 0)
            continue;
        if (line[0] == '#') {
            rc = header_line(line, name, ln, &unit_ns, &start, &base, err, errlen);
            continue;
        }
        if (line[0] == '"')
            continue;                               /* the legend */
        if ((rc = interval_fields(line, &iv, &b64, name, ln, err, errlen)) != 0)
            break;
        mtl_hist_reset(&h);
        if ((rc = mtl_hlog_decode(b64, strlen(b64), unit_ns, &h, err, errlen)) != 0) {
            char why[200];
            snprintf(why, sizeof(why), "%s", err);
            snprintf(err, errlen, "%s:%u: %s%s", name, ln, why,
                     complete ? "" : " (the last line has no newline: the log was cut short)");
            rc = rc == ENOTSUP || rc == ENOMEM ? rc : EINVAL;
            break;
        }
        iv.hist = &h;
        iv.line = ln;
        intervals++;
        rc = cb(arg, &iv);
    }
    if (!rc && ferror(f))
        rc = errno ? errno : EIO;
    if (!rc && !intervals)
        rc = fail(err, errlen, "%s: no intervals (an empty or cut-short HdrHistogram log)", name);
    if (start_epoch)
        *start_epoch = base >= 0 ? base : start;
    free(line);
    mtl_hist_free(&h);
    return rc;
}
