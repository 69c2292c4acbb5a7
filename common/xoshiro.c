/* xoshiro.c - see xoshiro.h */
#include "common/xoshiro.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void mtb_xoshiro_seed(uint64_t s[4], uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64(&seed);
    /* splitmix64 is a bijection of its counter, so four consecutive outputs
     * are never all zero; the guard is belt and braces */
    if (!(s[0] | s[1] | s[2] | s[3]))
        s[0] = 1;
}
