/* capacity_out.h - a capacity search's result (mtebench-capacity/1, made
 * by cmd/capacity.c) for people and tools: the table printed, capacity.json,
 * capacity.md, curves.csv (latency against offered load, a row per probed
 * rate of each configuration) and capacity.html (the latency-load plot:
 * every configuration's p50, p99 and p99.9 against the offered rate, the
 * SLO's bounds drawn, each capacity marked). */
#ifndef MTB_CAPACITY_OUT_H
#define MTB_CAPACITY_OUT_H
#include <jansson.h>
#include <stdio.h>

/* capacity.md's text (heap). */
char *mtb_capacity_markdown(json_t *result);
/* The result as HTML: the latency-load plot (element ids prefixed with
 * id_prefix; a plot not drawn is said there and added to problems) and the
 * capacity and overhead tables; capacity.html's body and a section of
 * `mtebench report`'s page. */
void mtb_capacity_html(FILE *f, json_t *result, const char *id_prefix, json_t *problems);
/* Print the table (each bound's capacities, the overheads, how the search
 * ended) to out and write the four files into dir (atomically);
 * @return 0, or 1 when a file could not be written (named on stderr). */
int mtb_capacity_write(json_t *result, const char *dir, FILE *out);
#endif
