/* bench.h - the subcommands that build and measure: build, run, bench. */
#ifndef MTB_BENCH_H
#define MTB_BENCH_H
int mtb_cmd_build(int argc, char **argv);
int mtb_cmd_run(int argc, char **argv);
int mtb_cmd_bench(int argc, char **argv);
int mtb_cmd_plan(int argc, char **argv);
#endif
