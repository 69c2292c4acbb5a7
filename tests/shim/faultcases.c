/*
 * faultcases - one memory-safety bug per case, each a tag-check fault under
 * glibc's tagged malloc (GLIBC_TUNABLES=glibc.mem.tagging=...), for the fault
 * reports' test (tests/integration/detect/fault-report.t): the report made
 * from libmtefault's and libmtealloc's lines must name the cause, the object's
 * size and the offset that the case planted. Test only.
 *
 *   faultcases CASE     uaf | overflow | underflow | far | double-free
 *
 * Every bad access lands on a granule no pointer's tag can match (a chunk
 * header, tag 0, or freed memory), so each case faults on every run.
 *
 * Each case goes through functions of its own (noinline), so that the
 * allocation's, the free's and the fault's stacks name them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile char sink;

__attribute__((noinline)) static char *make_object(size_t n)
{
    char *p = malloc(n);
    memset(p, 'a', n);
    return p;
}

__attribute__((noinline)) static void drop_object(char *p) { free(p); }

__attribute__((noinline)) static void read_at(char *p, long off) { sink = p[off]; }

__attribute__((noinline)) static void write_at(char *p, long off) { p[off] = 'x'; }

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: faultcases uaf|overflow|underflow|far|double-free\n");
        return 2;
    }
    const char *c = argv[1];
    /* neighbours on either side, so the bad access lands in tagged memory */
    char *before = make_object(48), *obj = make_object(64), *after = make_object(48);
    (void)before, (void)after;
    if (!strcmp(c, "uaf")) {           /* a read 24 bytes into a freed 64-byte object */
        drop_object(obj);
        read_at(obj, 24);
    } else if (!strcmp(c, "overflow")) { /* a write 8 bytes past the end of 64 */
        write_at(obj, 64 + 8);
    } else if (!strcmp(c, "underflow")) { /* a read 16 bytes before the start */
        read_at(obj, -16);
    } else if (!strcmp(c, "far")) {
        /* a write 72 bytes past the end of 64, over the next object: into
         * the header of the chunk after it (glibc: 64 + 16 + 48, then 8 into
         * the 16-byte header), whose tag is 0, which no pointer carries, so
         * that it faults whatever tags the objects drew */
        char *big = make_object(1024);
        (void)big;
        write_at(obj, 64 + 72);
    } else if (!strcmp(c, "double-free")) {
        drop_object(obj);
        drop_object(obj);
    } else {
        fprintf(stderr, "faultcases: unknown case '%s'\n", c);
        return 2;
    }
    printf("faultcases: %s made no fault\n", c);
    return 1;
}
