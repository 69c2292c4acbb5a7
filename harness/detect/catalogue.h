/* catalogue.h - the bug catalogue's entries read and checked (catalogue.c;
 * docs/DETECTION.md "The catalogue"). */
#ifndef MTB_DETECT_CATALOGUE_H
#define MTB_DETECT_CATALOGUE_H
#include <jansson.h>
#include <stdio.h>

/* A manifest.ini read, with every key it must have (and fix_files when its
 * fix_commit begins with a commit hash) and each word from its list (class,
 * memory, access, port, pov, access_in, control_expect).
 * @return its keys and values, or NULL with why */
json_t *mtb_catalogue_manifest(const char *path, char *why, size_t n);
/* Every entry of service's catalogue (NULL: every service's), each
 * {service, id, manifest, control, findings: [{kind, what}]}: a manifest
 * that mtb_catalogue_manifest refuses, no trigger, no switch in bugs.patch,
 * no fixed-build control, a fix_commit not in history (a git directory, a
 * fetched upstream history; NULL: not looked up), or there but changing none
 * of a file of its manifest's fix_files (a wrong citation; `fix_files`). */
json_t *mtb_catalogue_check(const char *service, const char *history);
/* The entries as a table with their findings and a count. */
void mtb_catalogue_print(FILE *f, json_t *entries);
/* The catalogue's make-up beside ARVO's crash mix: of manifests (an object,
 * id -> manifest; plants and second triggers left out), rows {kind,
 * catalogue, catalogue_share, arvo, arvo_share} for heap overflows (read,
 * write), uninitialised reads, use-after-frees (ARVO's counts), stack and
 * double free (no ARVO count); printed as text or Markdown (md). */
json_t *mtb_catalogue_mix(json_t *manifests);
void mtb_catalogue_mix_print(FILE *f, json_t *rows, int md);
#endif
