/* explain.h - `mtebench explain`: a tag-check fault's report, for people. */
#ifndef MTB_EXPLAIN_H
#define MTB_EXPLAIN_H
int mtb_cmd_explain(int argc, char **argv);
#endif
