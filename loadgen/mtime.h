/* mtime.h - monotonic time in nanoseconds (CLOCK_MONOTONIC), never wall-clock. */
#ifndef MTL_MTIME_H
#define MTL_MTIME_H
#include <stdint.h>
#include <time.h>

/* A point or interval on CLOCK_MONOTONIC, in nanoseconds. */
typedef uint64_t mtl_time_t;

#define MTL_NS_PER_US  1000ULL
#define MTL_NS_PER_MS  1000000ULL
#define MTL_NS_PER_SEC 1000000000ULL

static inline mtl_time_t mtl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mtl_time_t)ts.tv_sec * MTL_NS_PER_SEC + (mtl_time_t)ts.tv_nsec;
}

static inline struct timespec mtl_timespec(mtl_time_t t)
{
    struct timespec ts = { (time_t)(t / MTL_NS_PER_SEC), (long)(t % MTL_NS_PER_SEC) };
    return ts;
}

static inline double mtl_sec(mtl_time_t t) { return (double)t / 1e9; }
#endif
