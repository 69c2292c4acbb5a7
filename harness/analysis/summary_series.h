/* summary_series.h - inside the summary only (summary.c, summary_alloc.c):
 * a configuration's runs as a series, and what the summary's sections
 * share to pair them. */
#ifndef MTB_SUMMARY_SERIES_H
#define MTB_SUMMARY_SERIES_H
#include <jansson.h>
#include <stddef.h>
#include "core/record.h"
#include "core/record_env.h"

#define MAXRUNS 256       /* runs kept per configuration */

/* one configuration's runs: key (config_key), bkey (its pair key, and its
 * host in a fleet's report), nkkey (the same without the kernel) */
struct series {
    char *key, *bkey, *nkkey;
    json_t *first;                       /* a representative record */
    struct mtb_rec_config cfg;           /* its configuration (one not whole: each key as it has it, "" if absent) */
    double val[MTB_NRUN_METRICS][MAXRUNS]; /* the run metrics; NAN where a run lacks one */
    int rep[MAXRUNS];
    size_t n;
    int client_bound;
    int errors_over_limit;            /* a run's load generator saw errors above its limit */
};
#define OPS(s) ((s)->val[MTB_M_ops_per_sec])

/* the pair metrics of t against its baseline b (runs of the same
 * repetition) into o, one median-of-ratios CI each; seq: a record of REPS=auto's (its rule read
 * into its struct mtb_rec_env), or NULL; *npairs the pairs */
void mtb_summary_pair_metrics(json_t *o, const struct series *t, const struct series *b, const struct mtb_rec_env *seq,
                              size_t *npairs);
/* the median of num/den with its 95% order-statistic interval */
json_t *mtb_summary_ratio_ci(const double *num, const double *den, size_t n);
/* the host of a row, when the report has several */
void mtb_summary_set_host(json_t *o, json_t *rec);
/* the "allocators" section (summary_alloc.c) */
json_t *mtb_summary_allocators(const struct series *ss, size_t ns);
#endif
