/* rng.c - seeding of the xoshiro256** generator (common/xoshiro.c). */
#include "loadgen/rng.h"

void mtl_rng_seed(struct mtl_rng *r, uint64_t seed)
{
    mtb_xoshiro_seed(r->s, seed);
}
