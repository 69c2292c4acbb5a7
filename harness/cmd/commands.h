/* commands.h - every subcommand's front, declared here and nowhere else
 * (lint check 11), each registered once in main.c's table and defined in a
 * file of cmd/. A front parses its options (lib/opttab.h tables, or
 * cmd/cli.c's shared ones), calls the layers below, prints, and returns
 * the exit status: 0 done, 2 bad input, 1 a failure, others as the
 * command's --help says (nightly 3: a regression; bisect 4: not
 * reproduced). */
#ifndef MTB_COMMANDS_H
#define MTB_COMMANDS_H

/* Print "mtebench: <msg>" to stderr and exit with status code: a front's
 * own refusal (cli.c). Below cmd/ nothing exits: a reason is returned in a
 * struct mtb_err (lib/err.h; lint check 13). */
void mtb_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

int mtb_cmd_bench(int argc, char **argv);           /* bench.c */
int mtb_cmd_plan(int argc, char **argv);            /* bench.c */
int mtb_cmd_capacity(int argc, char **argv);        /* capacity_cli.c */
int mtb_cmd_nightly(int argc, char **argv);         /* nightly.c */
int mtb_cmd_report(int argc, char **argv);          /* report_cli.c */
int mtb_cmd_compare_kernels(int argc, char **argv); /* compare.c */
int mtb_cmd_bisect(int argc, char **argv);          /* bisect_cli.c */
int mtb_cmd_run(int argc, char **argv);             /* run_cli.c */
int mtb_cmd_build(int argc, char **argv);           /* build_cli.c */
int mtb_cmd_proof(int argc, char **argv);           /* proof_cli.c */
int mtb_cmd_quiet(int argc, char **argv);           /* quiet_cli.c */
int mtb_cmd_kernel(int argc, char **argv);          /* kernel_cli.c */
int mtb_cmd_detect(int argc, char **argv);          /* detect_cli.c */
int mtb_cmd_detect_sweep(int argc, char **argv);    /* detect_cli.c */
int mtb_cmd_explain(int argc, char **argv);         /* explain.c */
int mtb_cmd_list(int argc, char **argv);            /* list.c */
int mtb_cmd_doctor(int argc, char **argv);          /* doctor.c */
int mtb_cmd_hosts(int argc, char **argv);           /* hosts.c */
int mtb_cmd_load(int argc, char **argv);            /* load_cli.c */
int mtb_cmd_client_load(int argc, char **argv);     /* load_cli.c */
int mtb_cmd_hlog_merge(int argc, char **argv);      /* hlog_merge_cli.c */
#endif
