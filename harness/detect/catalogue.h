/* catalogue.h - the bug catalogue's entries read and checked (catalogue.c;
 * docs/DETECTION.md "The catalogue"). */
#ifndef MTB_DETECT_CATALOGUE_H
#define MTB_DETECT_CATALOGUE_H
#include <jansson.h>
#include <stdio.h>

/* A manifest.ini read, with every key it must have and each word from its
 * list (class, memory, access, port, pov, access_in, control_expect).
 * @return its keys and values, or NULL with why */
json_t *mtb_catalogue_manifest(const char *path, char *why, size_t n);
/* Every entry of service's catalogue (NULL: every service's), each
 * {service, id, manifest, control, findings: [{kind, what}]}: a manifest
 * that mtb_catalogue_manifest refuses, no trigger, no switch in bugs.patch,
 * no fixed-build control, a fix_commit not in history (a git directory, a
 * fetched upstream history; NULL: not looked up). */
json_t *mtb_catalogue_check(const char *service, const char *history);
/* The entries as a table with their findings and a count. */
void mtb_catalogue_print(FILE *f, json_t *entries);
#endif
