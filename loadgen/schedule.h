/* schedule.h - open-loop arrival schedule: the intended send times of requests.
 *
 * One schedule per connection. Intended times advance by a fixed period
 * (uniform) or by exponentially distributed gaps (Poisson arrivals), whatever
 * the server does: latency is then measured from these times, so a stalled
 * server is charged for every request it delayed (no coordinated omission).
 */
#ifndef MTL_SCHEDULE_H
#define MTL_SCHEDULE_H
#include "loadgen/mtime.h"
#include "loadgen/rng.h"

enum mtl_arrival { MTL_ARRIVAL_UNIFORM, MTL_ARRIVAL_POISSON };

struct mtl_sched {
    enum mtl_arrival kind;
    double period_ns;     /* mean gap */
    mtl_time_t next;      /* intended time of the next request */
    double frac;          /* sub-nanosecond remainder carried between gaps */
};

/**
 * Start a schedule of rate requests per second beginning at start; the first
 * request is at a random phase within the first gap so that connections don't
 * fire together. @return 0 or EINVAL for a rate <= 0.
 */
int mtl_sched_init(struct mtl_sched *s, enum mtl_arrival kind, double rate,
                   mtl_time_t start, struct mtl_rng *r);

/** Intended time of the next request. */
static inline mtl_time_t mtl_sched_peek(const struct mtl_sched *s) { return s->next; }

/** Move to the following request. */
void mtl_sched_advance(struct mtl_sched *s, struct mtl_rng *r);

/**
 * How many requests the schedule still holds with intended times in
 * [from, upto): scheduled, and not sent. Exact for uniform arrivals, the
 * expected number for Poisson ones.
 */
uint64_t mtl_sched_count_before(const struct mtl_sched *s, mtl_time_t from, mtl_time_t upto);

/** Parse "uniform" or "poisson". @return 0 or EINVAL. */
int mtl_arrival_parse(const char *name, enum mtl_arrival *out);
const char *mtl_arrival_name(enum mtl_arrival a);
#endif
