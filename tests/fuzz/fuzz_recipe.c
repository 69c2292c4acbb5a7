/* fuzz_recipe.c - the recipe parser (harness/core/recipe.c) on any bytes; the
 * recipe is freed after each input (a refused one frees itself). */
#include "fuzz.h"
#include "core/recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".ini");
    static struct mtb_recipe r; /* static: what was filled in is still there after the longjmp */
    char err[512];
    fuzz_armed = 1;
    if (!setjmp(fuzz_jmp))
        mtb_recipe_load(path, &r, err, sizeof err);
    fuzz_armed = 0;
    mtb_recipe_free(&r);
    return 0;
}
