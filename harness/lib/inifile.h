/* inifile.h - an INI file read with libinih, counting lines, so that a
 * handler can name the file:line of a key it refuses (inih itself tells
 * only the line of a malformed one). The recipe, machine profile and plan
 * loaders read their files with it. */
#ifndef MTB_INIFILE_H
#define MTB_INIFILE_H
#include <ini.h>
#include <stdio.h>

struct mtb_inifile {
    int line;          /* the line being parsed: handlers read it */
    FILE *f;
    int pending_nl;    /* the previous piece ended a line */
};

/* Parse the file at path, calling handler(user, section, key, value) for
 * each key, with in->line counting. @return as inih's ini_parse: 0, the
 * first bad line, -1 when the file cannot be opened (errno says why), -2
 * out of memory. */
int mtb_inifile_parse(const char *path, struct mtb_inifile *in, ini_handler handler, void *user);
#endif
