/* quiet_cli.h - the subcommand quiet. */
#ifndef MTB_QUIET_CLI_H
#define MTB_QUIET_CLI_H
int mtb_cmd_quiet(int argc, char **argv);
#endif
