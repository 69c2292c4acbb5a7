/* fuzz_record.c - the record loader's check (harness/core/record.c) and the
 * summary built from what it accepts (harness/analysis/summary.c). */
#include "fuzz.h"
#include "core/record.h"
#include "analysis/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *rec = json_loadb((const char *)data, size, 0, NULL);
    if (!rec)
        return 0;
    char msg[256];
    if (mtb_record_check(rec, msg, sizeof msg) == MTB_REC_OK) {
        json_t *all = json_pack("[O,O]", rec, rec);
        json_t *sum = mtb_summary_build(all);
        json_decref(sum);
        json_decref(all);
    }
    json_decref(rec);
    return 0;
}
