/* test_faultrep.c - the fault report's ranking (run/faultrep.c): fault
 * blocks written as libmtefault and libmtealloc write them, for the cases
 * where the objects near the address disagree: which cause ranks first, and
 * what the report says of its object. The real lines, from QEMU's MTE under
 * the services and a program of planted bugs, are fault-report.t's and the
 * detect tests'. */
#include "run/faultrep.h"
#include "lib/jsonx.h"
#include "tap.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[] = "/tmp/test_faultrep.XXXXXX";

/* the report of a block: FAULT at addr, the registers (insn: its word), the
 * given ALLOC lines */
static json_t *report_of(const char *addr, const char *regs, const char *allocs)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "MTEBENCH-FAULT signo=11 code=9 addr=%s pid=1 pc=0x0000000000400000 lr=0x0000000000400000\n", addr);
    fprintf(f, "MTEBENCH-REGS x0=0x0 sp=0x0000ffff00000000 pc=0x400000 %s\n", regs);
    fprintf(f, "MTEBENCH-STACK pcs=0x400000\nMTEBENCH-ALLOC-INFO live=3 freed=1 kept_freed=1 dropped=0 near=3\n%s"
               "MTEBENCH-END\n", allocs);
    fclose(f);
    json_t *fault = mtb_fault_read(path);
    json_t *rep = json_incref(json_object_get(fault, "report"));
    json_decref(fault);
    return rep;
}

static const char *cause(json_t *r) { return mtb_jstr(r, "cause"); }
static long long obj(json_t *r, const char *k) { return (long long)json_integer_value(json_object_get(json_object_get(r, "object"), k)); }
static const char *objs(json_t *r, const char *k) { return mtb_jstr(json_object_get(r, "object"), k); }

int main(void)
{
    close(mkstemp(path));
    /* an address 16 bytes before a 16384-byte buffer of tag 7, and 32 bytes
     * past a 496-byte object of the same tag (glibc does not keep
     * neighbours' tags apart): the nearer one is the cause */
    const char *two = "MTEBENCH-ALLOC state=live kind=heap ptr=0x700ffff10000ea0 size=16384 tid=1\n"
                      "MTEBENCH-ALLOC state=live kind=heap ptr=0x700ffff10000c80 size=496 tid=1\n";
    json_t *r = report_of("0x0700ffff10000e90", "", two);
    ok(!strcmp(cause(r), "buffer underflow") && obj(r, "size") == 16384 && obj(r, "distance") == 16 &&
           json_array_size(json_object_get(r, "alternatives")) == 1,
       "16 bytes before one object, 32 past another of the same tag: the underflow, the overflow its alternative (%s)",
       cause(r));
    json_decref(r);
    /* the same, but LDR x2, [x1] with x1 inside the 496-byte object: the
     * instruction's base register names the object the pointer was made for
     * (0xf9400022: LDR X2, [X1]) */
    r = report_of("0x0700ffff10000e90", "x1=0x0700ffff10000d00 insn=0x00000000f9400022", two);
    ok(!strcmp(cause(r), "buffer overflow") && obj(r, "size") == 496 && !strcmp(mtb_jstr(r, "access"), "read"),
       "the base register points into the 496-byte object: its overflow ranks first, a read (%s, %lld)", cause(r),
       obj(r, "size"));
    json_decref(r);
    /* a freed 64-byte object, the pointer with its tag, 24 bytes in */
    r = report_of("0x0b00ffff10000118", "", "MTEBENCH-ALLOC state=freed kind=heap ptr=0xb00ffff10000100 size=64 tid=1 "
                                            "alloc=0x400100 free_tid=2 free=0x400200\n");
    ok(!strcmp(cause(r), "use after free") && obj(r, "offset") == 24 && !strcmp(objs(r, "relation"), "into") &&
           json_integer_value(json_object_get(r, "free_thread")) == 2 && json_array_size(json_object_get(r, "free_stack")) == 1,
       "a freed object's tag, 24 bytes in: use after free, the free's thread and stack");
    json_decref(r);
    /* the same freed object, but a live object of the same tag holds its
     * memory now and ends right before the address: the overflow of the live
     * one explains the tag better */
    r = report_of("0x0b00ffff10000118", "", "MTEBENCH-ALLOC state=freed kind=heap ptr=0xb00ffff10000100 size=64 tid=1\n"
                                            "MTEBENCH-ALLOC state=live kind=heap ptr=0xb00ffff100000f8 size=32 tid=1\n");
    ok(!strcmp(cause(r), "buffer overflow") && obj(r, "distance") == 0,
       "its memory reused by a live object of the same tag ending at the address: the overflow (%s)", cause(r));
    json_decref(r);
    /* a double free libmtealloc saw */
    r = report_of("0x0400ffff10000100", "", "MTEBENCH-ALLOC state=double-freed kind=heap ptr=0x400ffff10000100 size=64 "
                                            "tid=1 alloc=0x400100 free_tid=1 free=0x400200 free2=0x400300\n");
    ok(!strcmp(cause(r), "double free") && json_array_size(json_object_get(r, "second_free_stack")) == 1 &&
           strstr(mtb_jstr(r, "headline"), "double free of a 64-byte heap object") != NULL,
       "a pointer freed twice: double free, both frees' stacks (%s)", mtb_jstr(r, "headline"));
    json_decref(r);
    /* a pool's object inside a heap block that was freed: a use after free */
    r = report_of("0x0500ffff10000210", "", "MTEBENCH-ALLOC state=live kind=service ptr=0x500ffff10000200 size=32 tid=1\n"
                                            "MTEBENCH-ALLOC state=freed kind=heap ptr=0x100ffff10000000 size=4096 tid=1\n");
    ok(!strcmp(cause(r), "use after free") && !strcmp(objs(r, "kind"), "service") && obj(r, "size") == 32,
       "an arena's object whose block was freed: use after free of the object (%s)", cause(r));
    json_decref(r);
    /* no object carries the pointer's tag */
    r = report_of("0x0300ffff10000210", "", "MTEBENCH-ALLOC state=live kind=heap ptr=0x500ffff10000200 size=32 tid=1\n");
    ok(!strcmp(cause(r), "unknown") && json_is_true(json_object_get(r, "allocation_record")),
       "no object near carries the pointer's tag: unknown, not guessed");
    json_decref(r);
    unlink(path);
    return done_testing();
}
