/* cli.h - the command line's options shared by the subcommands, parsed
 * strictly into a struct mtb_opts (plan/opts.h): a wrong value is named
 * with what is accepted, and the command exits 2. */
#ifndef MTB_CLI_H
#define MTB_CLI_H
#include <stdio.h>
#include "plan/opts.h" /* struct mtb_opts: what the options fill in */

/* Parse argv[1..] into o; on error print one line and exit 2. */
void mtb_cli_parse(int argc, char **argv, struct mtb_opts *o, const char *cmd);
/* A command's results directory when --results is not given:
 * results/<UTC time>-<what> in the checkout (heap string). */
char *mtb_cli_results_dir(const char *what);
/* The target a command builds for: --target (on a server host: that
 * host's, remote.c), else the platform's. */
const char *mtb_cli_target(const struct mtb_opts *o);
#endif
