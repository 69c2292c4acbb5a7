/* workload_fields.h - the workload's field list (an X-macro), on its own so
 * that recipe.c can check a recipe's [workload] keys without depending on
 * workload.c (which reads recipes). See workload.h. */
#ifndef MTB_WORKLOAD_FIELDS_H
#define MTB_WORKLOAD_FIELDS_H

/* X(field, kind, key, option, json, recipe section, recipe key, default, lo, hi, mtload flag, help)
 *   kind: STR (char[64]), LONG (range lo..hi), DUR (seconds: 30, 30s, 500ms, 2m),
 *         RATE (requests/s, > 0; 0 = closed loop)
 *   key: plan key and recipe key; option: --option and the guest's argument (its row in
 *   cmd/cli.c's option table, with its help and make variable: test_workload.c fails a field
 *   without one, since every field goes to the far run as --option);
 *   json: key in the record's config.workload (arrival only when poisson with a rate, seed never: a
 *   run's draw, not its workload, kept out of series keys; the load's config.seed has it);
 *   mtload flag: NULL = not passed */
#define MTB_WORKLOAD_FIELDS(X)                                                                                    \
    X(mix, STR, "mix", "mix", "mix", "workload", "mix", "1:10", 0, 0, "ratio", "SET:GET ratio, memtier syntax")      \
    X(keys, LONG, "keys", "keys", "keys", "workload", "keys", "10000", 1, 1000000000L, "keys", "key space")          \
    X(value_size, STR, "value_size", "value-size", "value_size", "workload", "value_size", "100", 0, 0, "value-size", \
      "value size in bytes, or a distribution (mtload --value-size)")                                              \
    X(threads, LONG, "threads", "threads", "threads", "workload", "threads", "1", 1, 1024, "threads",               \
      "load generator threads")                                                                                    \
    X(conns, LONG, "conns", "conns", "conns", "workload", "conns", "16", 1, 100000, "conns", "total connections")   \
    X(pipeline, LONG, "pipeline", "pipeline", "pipeline", "workload", "pipeline", "1", 1, 4096, "pipeline",          \
      "requests in flight per connection")                                                                         \
    X(duration, DUR, "duration", "duration", "duration_s", "workload", "duration", "30", 0, 0, "duration",          \
      "measured time per run")                                                                                     \
    X(warmup, DUR, "warmup", "warmup", "warmup_s", "workload", "warmup", "3", 0, 0, "warmup",                       \
      "unmeasured warm-up per run")                                                                                \
    X(rate, RATE, "rate", "rate", "rate", "workload", "rate", "0", 0, 0, "rate", "open loop at R requests/s")      \
    X(arrival, STR, "arrival", "arrival", "arrival", "workload", "arrival", "uniform", 0, 0, "arrival",              \
      "open-loop arrivals: uniform or poisson")                                                                    \
    X(seed, LONG, "seed", "seed", "seed", "workload", "seed", "1", 1, 4000000000000000000L, "seed",                \
      "mtload's random seed (keys, operations, Poisson gaps)")                                                     \
    X(service_threads, LONG, "service_threads", "service-threads", "service_threads", "run", "threads", "1", 1, 1024, \
      NULL, "the service's threads/workers")

#endif
