/* build_cli.h - the subcommand build. */
#ifndef MTB_BUILD_CLI_H
#define MTB_BUILD_CLI_H
int mtb_cmd_build(int argc, char **argv);
#endif
