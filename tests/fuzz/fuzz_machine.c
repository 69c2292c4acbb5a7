/* fuzz_machine.c - the machine profile parser (harness/core/machine.c). */
#include "fuzz.h"
#include "core/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".conf");
    struct mtb_machine m;
    char err[512];
    mtb_machine_parse(path, &m, err, sizeof err);
    return 0;
}
