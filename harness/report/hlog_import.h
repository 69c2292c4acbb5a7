/* hlog_import.h - HdrHistogram interval logs (.hlog; loadgen/hlog.h) as runs
 * of a report: another tool's log (memtier's --hdr-file-prefix, HdrHistogram's
 * own HistogramLogWriter, a merged mtload log) becomes a record that sits beside
 * mtebench's own in `mtebench report`. Merging and writing logs: core/loadlog.h.
 */
#ifndef MTB_HLOG_IMPORT_H
#define MTB_HLOG_IMPORT_H
#include <jansson.h>
#include <stddef.h>



struct mtb_record_set;

/** Reorder args so that HdrHistogram logs (mtb_hlog_is_log) come last, keeping
 *  each group's order. @return the number of other arguments (directories). */
int mtb_hlog_split(char **args, int n);

/**
 * Add the records of the logs args[0..n) to set (mtb_hlog_records), their
 * files as the records' files.
 * @return 0, or -1 after printing the named error of the first bad log
 *         ("mtebench report: FILE:LINE: ...") to stderr.
 */
int mtb_hlog_add_records(char **args, int n, const char *unit, struct mtb_record_set *set);

#endif
