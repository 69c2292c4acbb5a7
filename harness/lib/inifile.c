/* inifile.c - see inifile.h */
#include "lib/inifile.h"

#include <string.h>

/* inih's reader: a line may come in several pieces (inih's buffer is
 * limited); the count moves on at the first piece of the next line */
static char *reader(char *str, int num, void *stream)
{
    struct mtb_inifile *in = stream;
    if (in->pending_nl || in->line == 0)
        in->line++;
    char *s = fgets(str, num, in->f);
    in->pending_nl = s && strchr(s, '\n') != NULL;
    return s;
}

int mtb_inifile_parse(const char *path, struct mtb_inifile *in, ini_handler handler, void *user)
{
    memset(in, 0, sizeof *in);
    in->f = fopen(path, "r");
    if (!in->f)
        return -1;
    int rc = ini_parse_stream(reader, in, handler, user);
    fclose(in->f);
    in->f = NULL;
    return rc;
}
