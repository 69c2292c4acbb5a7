/* fuzz_recipe.c - the recipe parser (harness/recipe.c) on any bytes. */
#include "fuzz.h"
#include "recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".ini");
    struct mtb_recipe r;
    char err[512];
    fuzz_armed = 1;
    if (!setjmp(fuzz_jmp))
        mtb_recipe_load(path, &r, err, sizeof err);
    fuzz_armed = 0;
    return 0;
}
