/* fuzz_fault.c - a fault file's lines (run/fault_lines.c, run/faultrep.c):
 * libmtefault's and libmtealloc's lines, as a vm guest hands them back,
 * read into their structs, the report made and written as the record's
 * fault, then its text for people. The seeds name no file that exists, so
 * no addr2line runs. */
#include "fuzz.h"
#include "run/faultrep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    json_t *f = mtb_fault_parse(text);
    char *t = f ? mtb_fault_text(f) : NULL;
    free(t);
    json_decref(f);
    free(text);
    return 0;
}
