/* rng.h - per-thread pseudo-random numbers: xoshiro256** seeded by splitmix64. */
#ifndef MTL_RNG_H
#define MTL_RNG_H
#include <stdint.h>
#include "common/xoshiro.h"

struct mtl_rng { uint64_t s[4]; };

/** Seed the generator; different seeds give independent-looking streams. */
void mtl_rng_seed(struct mtl_rng *r, uint64_t seed);

/** Next 64 random bits (common/xoshiro.h, shared with the harness). */
static inline uint64_t mtl_rng_next(struct mtl_rng *r) { return mtb_xoshiro_next(r->s); }

/** Uniform double in [0, 1). */
static inline double mtl_rng_double(struct mtl_rng *r)
{
    return (double)(mtl_rng_next(r) >> 11) * 0x1.0p-53;
}

/** Uniform integer in [0, n) (n > 0), by multiply-shift. */
static inline uint64_t mtl_rng_below(struct mtl_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)mtl_rng_next(r) * n) >> 64);
}
#endif
