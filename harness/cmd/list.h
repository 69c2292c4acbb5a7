/* list.h - the subcommand list. */
#ifndef MTB_LIST_H
#define MTB_LIST_H
int mtb_cmd_list(int argc, char **argv);
#endif
