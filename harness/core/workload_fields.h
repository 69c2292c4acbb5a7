/* workload_fields.h - the workload's field list (an X-macro), on its own so
 * that recipe.c can check a recipe's [workload] keys without depending on
 * workload.c (which reads recipes). See workload.h.
 *
 * A field is one row, and one row is all it takes: the row makes the struct
 * field, the plan key, the recipe key, the option of every command that runs
 * a service (bench, plan, capacity, run, ... with its --help line, cmd/cli.c),
 * the make variable (the field's name in capitals, the Makefile's WL_FIELDS),
 * the far run's argument, the record's key and mtload's flag. */
#ifndef MTB_WORKLOAD_FIELDS_H
#define MTB_WORKLOAD_FIELDS_H

/* X(field, kind, key, option, json, rec, recipe section, recipe key, default, lo, hi, mtload flag, meta, make, help)
 *   kind: STR (char[64]), LONG (range lo..hi), DUR (seconds: 30, 30s, 500ms, 2m; at least lo ms,
 *         at most hi ms when hi > 0), RATE (requests/s, > 0; 0 = closed loop)
 *   key: plan key and recipe key; option: --option and the guest's argument;
 *   json: key in the record's config.workload, written as rec says: ALWAYS, NONDEFAULT (left
 *   out at its default, so the series recorded before the field keep their keys: what a
 *   field added now takes; arrival also only with a rate), NEVER (seed: a run's draw, not its
 *   workload; the load's config.seed has it);
 *   mtload flag: NULL = not passed; meta: the option's value in --help; make: its make variable,
 *   the field in capitals (the Makefile's WL_FIELDS makes it so; test_workload.c checks);
 *   help: the option's --help (lines split at '\n'), and what a STR field accepts */
/* when the record has a field: rec's ALWAYS, NONDEFAULT, NEVER */
enum mtb_wl_rec { MTB_WL_ALWAYS, MTB_WL_NONDEFAULT, MTB_WL_NEVER };

#define MTB_WORKLOAD_FIELDS(X)                                                                                                \
    X(mix, STR, "mix", "mix", "mix", ALWAYS, "workload", "mix", "1:10", 0, 0, "ratio", "S:G", "MIX",                          \
      "SET:GET ratio, memtier syntax (default from the recipe, 1:10)")                                                        \
    X(keys, LONG, "keys", "keys", "keys", ALWAYS, "workload", "keys", "10000", 1, 1000000000L, "keys", "N", "KEYS",           \
      "key space size (default 10000)")                                                                                       \
    X(value_size, STR, "value_size", "value-size", "value_size", ALWAYS, "workload", "value_size", "100", 0, 0,               \
      "value-size", "S", "VALUE_SIZE", "100 | 64-1024 | 100:8,4096:2")                                                        \
    X(threads, LONG, "threads", "threads", "threads", ALWAYS, "workload", "threads", "1", 1, 1024, "threads", "N", "THREADS", \
      "load generator threads (default 1)")                                                                                   \
    X(conns, LONG, "conns", "conns", "conns", ALWAYS, "workload", "conns", "16", 1, 100000, "conns", "N", "CONNS",            \
      "total connections (default 16)")                                                                                       \
    X(pipeline, LONG, "pipeline", "pipeline", "pipeline", ALWAYS, "workload", "pipeline", "1", 1, 4096, "pipeline",           \
      "N", "PIPELINE", "requests in flight per connection (default 1)")                                                       \
    X(duration, DUR, "duration", "duration", "duration_s", ALWAYS, "workload", "duration", "30", 1, 0, "duration",            \
      "T", "DURATION", "measured time per run, e.g. 30, 30s, 2m (default 30s)")                                               \
    X(warmup, DUR, "warmup", "warmup", "warmup_s", ALWAYS, "workload", "warmup", "3", 0, 0, "warmup", "T", "WARMUP",          \
      "unmeasured warm-up per run (default 3s)")                                                                              \
    X(rate, RATE, "rate", "rate", "rate", ALWAYS, "workload", "rate", "0", 0, 0, "rate", "R", "RATE",                         \
      "open loop at R requests/s (default closed loop)")                                                                      \
    X(arrival, STR, "arrival", "arrival", "arrival", NONDEFAULT, "workload", "arrival", "uniform", 0, 0, "arrival",           \
      "A", "ARRIVAL",                                                                                                         \
      "open loop's arrivals: uniform (evenly spaced; bench's default) or\n"                                                   \
      "poisson (capacity's default; pgbench's --rate is always poisson)")                                                     \
    X(seed, LONG, "seed", "seed", "seed", NEVER, "workload", "seed", "1", 1, 4000000000000000000L, "seed", "N", "SEED",       \
      "mtload's random seed (default 1; capacity draws one per run)")                                                         \
    X(timeout, DUR, "timeout", "timeout", "timeout_s", NONDEFAULT, "workload", "timeout", "1", 1, 0, "timeout", "T", "TIMEOUT",\
      "a request unanswered this long is lost, its connection reset (default 1s)")                                            \
    X(service_threads, LONG, "service_threads", "service-threads", "service_threads", ALWAYS, "run", "threads",               \
      "1", 1, 1024, NULL, "N", "SERVICE_THREADS", "service worker threads (default from the recipe)")

#endif
