/* xoshiro.h - xoshiro256** (Blackman & Vigna) seeded by splitmix64: the one
 * generator of mtload's load (loadgen/rng.h) and the harness's bootstrap
 * (harness/analysis/stats.c). Shared source, compiled into both programs. */
#ifndef MTB_XOSHIRO_H
#define MTB_XOSHIRO_H
#include <stdint.h>

/* Four splitmix64 outputs from seed: never all zero. */
void mtb_xoshiro_seed(uint64_t s[4], uint64_t seed);

static inline uint64_t mtb_xoshiro_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* The next 64 random bits. */
static inline uint64_t mtb_xoshiro_next(uint64_t s[4])
{
    uint64_t out = mtb_xoshiro_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = mtb_xoshiro_rotl(s[3], 45);
    return out;
}
#endif
