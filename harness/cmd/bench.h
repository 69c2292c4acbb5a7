/* bench.h - the subcommands that measure: bench and plan. */
#ifndef MTB_BENCH_H
#define MTB_BENCH_H
int mtb_cmd_bench(int argc, char **argv);
int mtb_cmd_plan(int argc, char **argv);
#endif
