/* proof_cli.h - the subcommand proof. */
#ifndef MTB_PROOF_CLI_H
#define MTB_PROOF_CLI_H
int mtb_cmd_proof(int argc, char **argv);
#endif
