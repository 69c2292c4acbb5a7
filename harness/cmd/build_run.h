/* build_run.h - the subcommands build and run. */
#ifndef MTB_BUILD_RUN_H
#define MTB_BUILD_RUN_H
int mtb_cmd_build(int argc, char **argv);
int mtb_cmd_run(int argc, char **argv);
#endif
