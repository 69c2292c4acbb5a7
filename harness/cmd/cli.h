/* cli.h - the command line's options shared by the commands that run
 * services (bench, plan, nightly, capacity, compare-kernels, run, build,
 * proof, quiet, detect): one table (lib/opttab.h, in cli.c) from which
 * the parser and their --help are both made, parsed strictly into a struct
 * mtb_opts (plan/opts.h): a wrong value is named with what is accepted,
 * an option of other commands is refused by name, and the command exits 2. */
#ifndef MTB_CLI_H
#define MTB_CLI_H
#include <stdio.h>
#include "lib/opttab.h"
#include "plan/opts.h" /* struct mtb_opts: what the options fill in */

/* Parse argv[1..] into o; on error print one line and exit 2. */
void mtb_cli_parse(int argc, char **argv, struct mtb_opts *o, const char *cmd);
/* A command's own options, parsed before the shared ones: each given to
 * take(ctx, its id, its value or NULL); a "help" row replaces the shared
 * --help. */
struct mtb_cli_own {
    const struct mtb_opt *opts;
    void (*take)(void *ctx, int id, const char *val);
    void *ctx;
};
/* mtb_cli_parse with the command's own options (own may be NULL). */
void mtb_cli_parse_own(int argc, char **argv, struct mtb_opts *o, const char *cmd, const struct mtb_cli_own *own);
/* An unknown option met by a command that hands the shared ones on (with
 * MTB_OPT_PASS_UNKNOWN: nightly to its plan, bisect to its builds and
 * runs): when cmd takes it, appended to out with its value (the table says
 * whether it has one). @return 0, or -1 with p->err */
struct mtb_argv;
int mtb_cli_pass_on(struct mtb_optp *p, const char *cmd, struct mtb_argv *out);
/* The options resolved (plan/opts.h), or the reason printed and exit 2. */
void mtb_cli_resolve(struct mtb_opts *o);
/* The help of cmd's options: own's (may be NULL), then the shared ones. */
void mtb_cli_help(FILE *f, const char *cmd, const struct mtb_opt *own);
/* A command's results directory when --results is not given:
 * results/<UTC time>-<what> in the checkout (heap string). */
char *mtb_cli_results_dir(const char *what);
/* The target a command builds for: --target (on a server host: that
 * host's, remote.c), else the platform's. */
const char *mtb_cli_target(const struct mtb_opts *o);
#endif
