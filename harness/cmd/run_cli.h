/* run_cli.h - the subcommand run. */
#ifndef MTB_RUN_CLI_H
#define MTB_RUN_CLI_H
int mtb_cmd_run(int argc, char **argv);
#endif
