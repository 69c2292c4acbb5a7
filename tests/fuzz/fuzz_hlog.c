/* fuzz_hlog.c - HdrHistogram interval logs and V2 histograms (loadgen/hlog.c):
 * the first byte picks the log reader (the rest is a log) or the histogram
 * decoder (the rest is base64, or raw bytes base64-encoded first). */
#include "fuzz.h"
#include "loadgen/engine.h"
#include "loadgen/hlog.h"

static int count_cb(void *arg, const struct mtl_hlog_interval *iv)
{
    *(uint64_t *)arg += iv->hist->total;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    uint64_t n = 0;
    struct mtl_hist h;
    if (size < 1 || mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST))
        return 0;
    char *text = fuzz_text(data + 1, size - 1);
    switch (data[0] % 3) {
    case 0: {
        FILE *f = fmemopen(text, size - 1 ? size - 1 : 1, "r");
        if (f) {
            mtl_hlog_read(f, "fuzz", data[0] & 0x80 ? "us" : NULL, NULL, count_cb, &n, err, sizeof err);
            fclose(f);
        }
        break;
    }
    case 1:
        mtl_hlog_decode(text, size - 1, data[0] & 0x80 ? 1000.0 : 1.0, &h, err, sizeof err);
        break;
    default: { /* a histogram decoded, re-encoded and decoded again: the same counts */
        char *b64 = NULL;
        if (mtl_hlog_decode(text, size - 1, 1.0, &h, err, sizeof err) == 0 && mtl_hlog_encode(&h, &b64) == 0) {
            struct mtl_hist g;
            if (mtl_hist_init(&g, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST) == 0) {
                if (mtl_hlog_decode(b64, strlen(b64), 1.0, &g, err, sizeof err) != 0 || g.total != h.total)
                    __builtin_trap();
                mtl_hist_free(&g);
            }
        }
        free(b64);
        break;
    }
    }
    free(text);
    mtl_hist_free(&h);
    return 0;
}
