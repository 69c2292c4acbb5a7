/* hlog_merge_cli.c - `mtebench hlog-merge OUT IN...`: HdrHistogram interval
 * logs of several hosts merged bucket by bucket (core/loadlog.c). */
#include "cmd/commands.h"
#include "core/loadlog.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

int mtb_cmd_hlog_merge(int argc, char **argv)
{
    char err[MTB_ERRLEN];
    int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (help || argc < 3) {
        fprintf(help ? stdout : stderr, "usage: mtebench hlog-merge OUT.hlog IN.hlog...\n"
                "  Adds the intervals of the same tag and second of every IN bucket by bucket\n"
                "  (never averaging percentiles) and writes OUT atomically.\n");
        return help ? 0 : 2;
    }
    if (mtb_hlog_merge(argv + 2, (size_t)argc - 2, argv[1], err, sizeof err)) {
        fprintf(stderr, "mtebench hlog-merge: %s\n", err);
        return 2;
    }
    return 0;
}
