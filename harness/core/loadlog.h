/* loadlog.h - a load's latency as HdrHistogram interval logs (.hlog;
 * loadgen/hlog.h writes and reads the format): logs read into histograms
 * by tag (and second), several hosts' logs merged bucket by bucket, and the
 * log of a driver that writes none made from its load's histogram. The run
 * (run/), the client hosts (agent/) and the report (report/hlog_import.c,
 * which makes report runs of logs) share it. */
#ifndef MTB_LOADLOG_H
#define MTB_LOADLOG_H
#include <jansson.h>
#include <stddef.h>
#include "loadgen/hist.h"
#include "loadgen/intervals.h" /* struct mtl_sparse */

/* one (tag, interval) histogram, its non-empty buckets only (an hour of
 * seconds x 6 tags stays a few MB): a tag's whole run when sec is unused */
struct mtb_hlog_slot {
    char tag[64];
    char *key_tag;            /* the whole tag, as the slot is found by */
    long sec;
    double start, end;
    unsigned intervals;
    struct mtl_sparse sp;
};

struct mtb_hlog_acc {
    struct mtb_hlog_slot *s;
    size_t n, cap;
    size_t *index, nindex;    /* (second, tag) -> slot + 1, open addressing (0: empty) */
    int by_second;            /* merge: one slot per (tag, second); import: per tag */
    struct mtl_hist tmp;      /* a slot expanded */
};

/* An empty accumulator: one slot per (tag, second) when by_second (a
 * merge), else per tag. @return 0 or ENOMEM */
int mtb_hlog_acc_init(struct mtb_hlog_acc *a, int by_second);
void mtb_hlog_acc_free(struct mtb_hlog_acc *a);
/* Add every interval of the log at path (values in unit when it says none;
 * NULL: ns); *start_epoch: its start. @return 0, or -1 with why in err */
int mtb_hlog_acc_read(const char *path, const char *unit, struct mtb_hlog_acc *a, double *start_epoch,
                      char *err, size_t errlen);
/* Slot i's histogram (expanded into the accumulator's own, valid until the next call). */
struct mtl_hist *mtb_hlog_acc_slot(struct mtb_hlog_acc *a, size_t i);
/* A record's load histogram ([[value_us, count], ...]) added into h. */
void mtb_hlog_add_histogram(struct mtl_hist *h, json_t *hist);

/**
 * Merge the interval logs of several hosts into out: intervals of the same tag
 * and the same second (rounded start relative to each log's start time) are
 * added bucket by bucket; written atomically (temporary file, rename).
 * @return 0, or -1 with why in err.
 */
int mtb_hlog_merge(char *const paths[], size_t n, const char *out, char *err, size_t errlen);

/** Merge DIR/<host>/load.hlog of every ok client of a multi-host load
 *  ("clients" of its merged result) into DIR/load.hlog; says on stderr why not.
 *  @return 0 when DIR/load.hlog was written. */
int mtb_hlog_merge_hosts(json_t *clients, const char *dir);

/**
 * For a driver that writes no interval log itself (wrk, pgbench, db_bench):
 * DIR/driver.hlog from the load's histogram ([[value_us, count], ...]) as one
 * interval over the measured window, tag "request", and "hlog" named in load;
 * its percentile listing as DIR/driver.hgrm.
 * Nothing when the load already names one or has no histogram.
 */
void mtb_hlog_from_load(const char *dir, json_t *load);

#endif
