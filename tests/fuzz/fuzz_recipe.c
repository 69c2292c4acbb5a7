/* fuzz_recipe.c - the recipe parser (harness/core/recipe.c) on any bytes; the
 * recipe is freed after each input (a refused one frees itself). */
#include "fuzz.h"
#include "core/recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".ini");
    struct mtb_recipe r;
    char err[512];
    mtb_recipe_load(path, &r, err, sizeof err);
    mtb_recipe_free(&r);
    return 0;
}
