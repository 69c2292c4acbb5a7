/* checks.h - the subcommands proof and quiet. */
#ifndef MTB_CHECKS_H
#define MTB_CHECKS_H
int mtb_cmd_proof(int argc, char **argv);
int mtb_cmd_quiet(int argc, char **argv);
#endif
