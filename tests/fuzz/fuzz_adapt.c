/* fuzz_adapt.c - the output adapters of pgbench, db_bench and wrk
 * (loadgen/adapt.c): the first byte picks one, the rest is its output. */
#include "fuzz.h"
#include "loadgen/adapt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct mtl_adapt a;
    if (mtl_adapt_init(&a) != 0)
        return 0;
    char *text = fuzz_text(data + 1, size - 1);
    switch (data[0] % 3) {
    case 0: {
        FILE *f = fmemopen(text, size - 1 ? size - 1 : 1, "r");
        long bad = 0;
        if (f) {
            mtl_adapt_pgbench_log(&a, f, 0, &bad);
            fclose(f);
        }
        break;
    }
    case 1: {
        double ops = 0, secs = 0;
        uint64_t n = 0;
        mtl_adapt_dbbench(&a, text, "readrandom", &ops, &secs, &n);
        break;
    }
    default: {
        double secs = 0;
        json_t *errors = json_object();
        mtl_adapt_wrk(&a, text, &secs, errors);
        json_decref(errors);
        break;
    }
    }
    json_t *j = mtl_adapt_json(&a, "fuzz", 1.0, json_object(), json_object());
    json_decref(j);
    mtl_adapt_free(&a);
    free(text);
    return 0;
}
