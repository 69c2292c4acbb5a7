/* hgrm.h - a report's percentile listings (.hgrm, HdrHistogram's layout). */
#ifndef MTB_HGRM_H
#define MTB_HGRM_H
#include <stddef.h>

struct mtb_record_set;

/**
 * The percentile listing of every configuration of a report: the histograms
 * of its ok runs added bucket by bucket, written to
 * DIR/hgrm/SERVICE-VARIANT-MODE-PLATFORM-KERNEL-WORKLOAD[-HOST].hgrm.
 * @return 0, or -1 with why in err.
 */
int mtb_hgrm_write_configs(const struct mtb_record_set *set, const char *dir, char *err, size_t errlen);
#endif
