/* Unit tests of loadlog (harness/core/loadlog.c): HdrHistogram interval
 * logs of several hosts merged bucket by bucket (never a percentile
 * averaged), logs read by tag and second, a record's histogram added, and
 * the log made for a driver that writes none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/loadlog.h"
#include "lib/files.h"
#include "lib/util.h"
#include "loadgen/engine.h"
#include "loadgen/hlog.h"
#include "tap.h"

static char tmp[] = "/tmp/mtb-test-loadlog-XXXXXX";

/* a log of `secs` one-second intervals of tag "request", n values of v ns each; its path */
static char *log_of(const char *name, double start_epoch, int secs, uint64_t n, uint64_t v)
{
    char *path = mtb_asprintf("%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    struct mtl_hist h;
    mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST);
    mtl_hlog_write_header(f, start_epoch, "test");
    for (int s = 0; s < secs; s++) {
        mtl_hist_reset(&h);
        mtl_hist_record_n(&h, v, n);
        mtl_hlog_write_interval(f, "request", s, 1.0, &h);
    }
    mtl_hist_free(&h);
    fclose(f);
    return path;
}

/* a log of `secs` one-second intervals of each of ntags tags, one value each; its path */
static char *log_tags(const char *name, int secs, const char *const *tags, int ntags)
{
    char *path = mtb_asprintf("%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    struct mtl_hist h;
    mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST);
    mtl_hlog_write_header(f, 1700000000.0, "test");
    for (int s = 0; s < secs; s++)
        for (int t = 0; t < ntags; t++) {
            mtl_hist_reset(&h);
            mtl_hist_record_n(&h, 1000, 1);
            mtl_hlog_write_interval(f, tags[t], s, 1.0, &h);
        }
    mtl_hist_free(&h);
    fclose(f);
    return path;
}

/* the log at path read per (tag, second): slots, total count, and the p50 of slot 0 in ns */
static void read_back(const char *path, size_t *slots, uint64_t *total, uint64_t *p50)
{
    struct mtb_hlog_acc a;
    char err[256];
    double start = 0;
    *slots = 0, *total = 0, *p50 = 0;
    mtb_hlog_acc_init(&a, 1);
    if (mtb_hlog_acc_read(path, NULL, &a, &start, err, sizeof err) == 0) {
        *slots = a.n;
        for (size_t i = 0; i < a.n; i++) {
            struct mtl_hist *h = mtb_hlog_acc_slot(&a, i);
            *total += h->total;
            if (i == 0)
                *p50 = mtl_hist_percentile(h, 50);
        }
    } else {
        diag("%s", err);
    }
    mtb_hlog_acc_free(&a);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return perror("mkdtemp"), 1;
    char err[256];
    size_t slots;
    uint64_t total, p50;
    /* many (second, tag) slots, two tags alike in their first 63 characters: each its own slot, found
     * again when a second log of the same seconds is read into the accumulator */
    {
        static const char *const tags[] = {
            "request", "long-tag-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-1",
            "long-tag-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-2" };
        char *m = log_tags("many.hlog", 500, tags, 3);
        struct mtb_hlog_acc acc;
        double st = 0;
        mtb_hlog_acc_init(&acc, 1);
        int rc = mtb_hlog_acc_read(m, NULL, &acc, &st, err, sizeof err);
        size_t n1 = acc.n;
        rc |= mtb_hlog_acc_read(m, NULL, &acc, &st, err, sizeof err);
        uint64_t all = 0, most = 0;
        for (size_t i = 0; i < acc.n; i++) {
            uint64_t t = mtb_hlog_acc_slot(&acc, i)->total;
            all += t;
            most = t > most ? t : most;
        }
        ok(rc == 0 && n1 == 1500 && acc.n == 1500 && all == 3000 && most == 2,
           "500 seconds of 3 tags (two alike to 63 characters): 1500 slots, each found again by a second log (%zu, %zu, %llu)",
           n1, acc.n, (unsigned long long)all);
        mtb_hlog_acc_free(&acc);
        unlink(m);
        free(m);
    }
    /* two hosts: the same three seconds, one fast (1 us) and one slow (1 ms) */
    char *a = log_of("a.hlog", 1700000000.0, 3, 900, 1000), *b = log_of("b.hlog", 1700000000.0, 3, 100, 1000000);
    read_back(a, &slots, &total, &p50);
    ok(slots == 3 && total == 2700, "a log read by second: 3 slots, 2700 values (%zu, %llu)", slots,
       (unsigned long long)total);
    char *out = mtb_asprintf("%s/merged.hlog", tmp);
    char *paths[] = { a, b };
    ok(mtb_hlog_merge(paths, 2, out, err, sizeof err) == 0, "two hosts' logs merged");
    read_back(out, &slots, &total, &p50);
    ok(slots == 3 && total == 3000, "merged: the same 3 seconds, counts added (%zu, %llu)", slots,
       (unsigned long long)total);
    ok(p50 >= 990 && p50 <= 1010, "merged: the p50 is the fast host's (90%% of values), not an average (%llu ns)",
       (unsigned long long)p50);
    /* a host whose log starts a second later (its clock, or its start): its
     * seconds are counted from its own start, as each host's load is */
    char *c = log_of("c.hlog", 1700000001.0, 3, 10, 1000);
    char *paths2[] = { a, c };
    ok(mtb_hlog_merge(paths2, 2, out, err, sizeof err) == 0, "a log started a second later merged");
    read_back(out, &slots, &total, &p50);
    ok(slots == 3 && total == 2730, "... second by second from each log's own start (3 seconds, %zu; %llu values)",
       slots, (unsigned long long)total);
    /* refusals */
    char *bad = mtb_asprintf("%s/bad.hlog", tmp);
    mtb_write_atomic(bad, "#[StartTime: 1]\nTag=request,0,1,1,HIST!!!!\n", 40);
    char *paths3[] = { a, bad };
    ok(mtb_hlog_merge(paths3, 2, out, err, sizeof err) != 0 && strstr(err, "bad.hlog"),
       "a corrupt log: the merge refused, the file named (%s)", err);
    char *none = mtb_asprintf("%s/none.hlog", tmp);
    char *paths4[] = { none };
    ok(mtb_hlog_merge(paths4, 1, out, err, sizeof err) != 0 && strstr(err, "none.hlog"), "a missing log named (%s)", err);

    /* a record's histogram ([[value_us, count], ...]) added into a histogram (ns) */
    struct mtl_hist h;
    mtl_hist_init(&h, MTL_HLOG_SUB_BITS, MTL_HIST_HIGHEST);
    json_t *hist = json_pack("[[f,i],[f,i]]", 10.0, 3, 2000.0, 1);
    mtb_hlog_add_histogram(&h, hist);
    ok(h.total == 4 && mtl_hist_percentile(&h, 50) >= 9900 && mtl_hist_percentile(&h, 50) <= 10100,
       "a record's histogram in us added in ns (4 values, p50 10 us)");
    mtl_hist_free(&h);

    /* a driver that writes no log: DIR/driver.hlog from its load's histogram */
    char *dir = mtb_asprintf("%s/run", tmp);
    mtb_mkdir_p(dir);
    json_t *load = json_pack("{s:f,s:O}", "duration_s", 2.0, "histogram", hist);
    mtb_hlog_from_load(dir, load);
    char *dl = mtb_asprintf("%s/driver.hlog", dir);
    read_back(dl, &slots, &total, &p50);
    ok(total == 4 && !strcmp(json_string_value(json_object_get(load, "hlog")), "driver.hlog"),
       "a driver's log made from its histogram, and named in its load (%llu values)", (unsigned long long)total);
    json_decref(load);
    json_decref(hist);
    mtb_rm_rf(tmp);
    free(a), free(b), free(c), free(out), free(bad), free(none), free(dir), free(dl);
    return done_testing();
}
