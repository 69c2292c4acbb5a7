/* version.h - the version stamp of mtebench and mtload: `git describe
 * --always --dirty --tags` of the checkout they were built from. Defined in
 * build/gen/version.c, which the Makefile rewrites only when that changes,
 * so a new commit relinks both programs without `make clean`. */
#ifndef MTB_VERSION_H
#define MTB_VERSION_H
extern const char mtb_version[];
#define MTEBENCH_VERSION mtb_version
#endif
