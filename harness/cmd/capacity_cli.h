/* capacity_cli.h - the capacity command (capacity_cli.c). */
#ifndef MTB_CMD_CAPACITY_CLI_H
#define MTB_CMD_CAPACITY_CLI_H
/* mtebench capacity --service S --mode M --slo p99:1ms [options] */
int mtb_cmd_capacity(int argc, char **argv);
#endif
