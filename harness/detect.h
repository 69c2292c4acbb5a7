/* detect.h - what MTE buys: detection of memory-safety bugs.
 * `mtebench detect-sweep` (detect_sweep.c): the synthetic sweep of granule
 * and tag-collision arithmetic; `mtebench detect` (detect.c): the bug
 * catalogue of services/<svc>/bugs/ run as trials. docs/DETECTION.md. */
#ifndef MTB_DETECT_H
#define MTB_DETECT_H
int mtb_cmd_detect_sweep(int argc, char **argv);
int mtb_cmd_detect(int argc, char **argv);
#endif
