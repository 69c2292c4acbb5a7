/* hlog_merge_cli.h - the subcommand hlog-merge. */
#ifndef MTB_HLOG_MERGE_CLI_H
#define MTB_HLOG_MERGE_CLI_H
/** `mtebench hlog-merge OUT IN...`. @return the exit status. */
int mtb_cmd_hlog_merge(int argc, char **argv);
#endif
