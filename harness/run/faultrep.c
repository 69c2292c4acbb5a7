/*
 * faultrep.c - the fault report (faultrep.h; docs/DETECTION.md "Fault
 * reports"). The lines are libmtefault's (harness/probe/mtefault.c) and
 * libmtealloc's (harness/probe/mtealloc.c); what they mean is said there.
 *
 * The cause, as Android's debuggerd ranks it from Scudo's ring of
 * allocations: every object near the address is a candidate, scored by what
 * fits. An address inside a freed object whose pointer carried the freed
 * object's tag is a use after free; a live object with the pointer's tag
 * that ends before the address, an overflow of it by the distance; one that
 * starts after it, an underflow; a pointer freed twice, a double free; an
 * address in the stack, a stack bug. The highest score is the cause, the
 * others are the alternatives, in order.
 */
#include "run/faultrep.h"
#include "core/hostfacts.h"
#include "lib/proc.h"
#include "lib/files.h"
#include "lib/jsonx.h"
#include "core/build.h"
#include "lib/util.h"
#include "core/fault_rows.h"
#include "probe/a64decode.h"

#include <dirent.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNTAG(a) ((a) & 0x00ffffffffffffffULL)
#define TAG_OF(a) ((unsigned)((a) >> 56) & 0xf)

/* the value after " key=" in one line (up to its end), or NULL */
static const char *field(const char *line, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    const char *end = strchr(line, '\n'), *p = line;
    while ((p = strstr(p, key)) && (!end || p < end)) {
        if (p > line && p[-1] == ' ') {
            p += kl;
            size_t l = strcspn(p, " \n");
            snprintf(buf, n, "%.*s", (int)l, p);
            return buf;
        }
        p += kl;
    }
    return NULL;
}

static uint64_t hexv(const char *s) { return s ? strtoull(s, NULL, 16) : 0; }

static json_t *pcs_of(const char *list)
{
    json_t *a = json_array();
    for (const char *p = list; p && *p;) {
        json_array_append_new(a, json_integer((json_int_t)strtoull(p, NULL, 16)));
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return a;
}

/* ---- symbols: addr2line on the files the mappings name ---- */

/* the ELF's virtual address of file offset off (its PT_LOAD), or off */
static uint64_t vaddr_of(const char *path, uint64_t off, int *machine)
{
    FILE *f = fopen(path, "rb");
    Elf64_Ehdr eh;
    uint64_t va = off;
    *machine = 0;
    if (!f)
        return off;
    if (fread(&eh, sizeof eh, 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64) {
        *machine = eh.e_machine;
        for (int i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1)
                break;
            if (ph.p_type == PT_LOAD && off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
                va = ph.p_vaddr + (off - ph.p_offset);
                break;
            }
        }
    }
    fclose(f);
    return va;
}

static const char *addr2line_for(int machine)
{
    if (machine == EM_AARCH64 && !mtb_host_is_arm64() && access("/usr/bin/aarch64-linux-gnu-addr2line", X_OK) == 0)
        return "aarch64-linux-gnu-addr2line";
    return "addr2line";
}

/* one frame: {pc, module, offset[, function, source]} */
static json_t *frame_of(json_t *maps, uint64_t pc)
{
    json_t *fr = json_object();
    json_object_set_new(fr, "pc", json_sprintf("0x%llx", (unsigned long long)pc));
    size_t i;
    json_t *m;
    json_array_foreach(maps, i, m) {
        uint64_t s = (uint64_t)json_integer_value(json_object_get(m, "start"));
        uint64_t e = (uint64_t)json_integer_value(json_object_get(m, "end"));
        const char *path = mtb_jstr(m, "path");
        if (pc < s || pc >= e || !*path || !strcmp(mtb_jstr(m, "role"), "fault"))
            continue;
        uint64_t off = pc - s + (uint64_t)json_integer_value(json_object_get(m, "offset"));
        int machine;
        uint64_t va = vaddr_of(path, off, &machine);
        const char *base = strrchr(path, '/');
        json_object_set_new(fr, "module", json_string(base ? base + 1 : path));
        json_object_set_new(fr, "path", json_string(path));
        json_object_set_new(fr, "offset", json_sprintf("0x%llx", (unsigned long long)va));
        json_object_set_new(fr, "machine", json_integer(machine));
        break;
    }
    return fr;
}

/* every frame of every stack in the report symbolised: one addr2line per
 * module (-a -i -f -C: each address, then its inlined chain innermost
 * first: the frame's function and source, and inlined_in outwards) */
static void symbolise(json_t *stacks)
{
    json_t *done = json_object(); /* path -> 1 */
    size_t i, j;
    json_t *st, *fr;
    json_array_foreach(stacks, i, st) json_array_foreach(st, j, fr) {
        const char *path = mtb_jstr(fr, "path");
        if (!*path || json_object_get(done, path) || access(path, R_OK) != 0)
            continue;
        json_object_set_new(done, path, json_true());
        /* this module's frames in every stack, in one call */
        json_t *mine = json_array();
        size_t k, l;
        json_t *s2, *f2;
        json_array_foreach(stacks, k, s2) json_array_foreach(s2, l, f2) if (!strcmp(mtb_jstr(f2, "path"), path))
            json_array_append(mine, f2);
        size_t n = json_array_size(mine);
        char **argv = mtb_calloc(n + 8, sizeof *argv);
        int a = 0;
        argv[a++] = (char *)addr2line_for((int)json_integer_value(json_object_get(fr, "machine")));
        argv[a++] = "-a"; /* each address first: its inlined chain follows it */
        argv[a++] = "-i";
        argv[a++] = "-f";
        argv[a++] = "-C";
        argv[a++] = "-e";
        argv[a++] = (char *)path;
        char **looks = mtb_calloc(n + 1, sizeof *looks);
        for (k = 0; k < n; k++) {
            json_t *f3 = json_array_get(mine, k);
            unsigned long long off = strtoull(mtb_jstr(f3, "offset"), NULL, 16);
            looks[k] = mtb_asprintf("0x%llx", off - (json_is_true(json_object_get(f3, "return")) ? 1 : 0));
            argv[a++] = looks[k];
        }
        int status = 0;
        char *out = mtb_proc_capture(argv, 0, 20, &status);
        /* "0xADDR", then (function, file:line) pairs, innermost first */
        char *save = NULL, *line = out ? strtok_r(out, "\n", &save) : NULL;
        json_t *f3 = NULL;
        long idx = -1;
        while (line) {
            if (!strncmp(line, "0x", 2)) {
                f3 = ++idx < (long)n ? json_array_get(mine, (size_t)idx) : NULL;
                line = strtok_r(NULL, "\n", &save);
                continue;
            }
            char *src = strtok_r(NULL, "\n", &save);
            if (f3 && strcmp(line, "??")) {
                if (!json_object_get(f3, "function"))
                    json_object_set_new(f3, "function", json_string(line));
                else { /* the functions it was inlined into, outwards */
                    if (!json_object_get(f3, "inlined_in"))
                        json_object_set_new(f3, "inlined_in", json_array());
                    json_array_append_new(json_object_get(f3, "inlined_in"), json_string(line));
                }
            }
            if (f3 && src && strncmp(src, "??", 2) && !json_object_get(f3, "source")) {
                const char *sl = strrchr(src, '/');
                json_object_set_new(f3, "source", json_string(sl ? sl + 1 : src));
            }
            line = strtok_r(NULL, "\n", &save);
        }
        free(out);
        for (k = 0; k < n; k++)
            free(looks[k]);
        free(looks);
        free(argv);
        json_decref(mine);
    }
    json_decref(done);
    json_array_foreach(stacks, i, st) json_array_foreach(st, j, fr) {
        json_object_del(fr, "machine");
        json_object_del(fr, "return");
    }
}

/* first: the stack begins at the faulting instruction itself (the others
 * are return addresses all through); equal neighbours made one (a fault in
 * a function that saved its lr: lr and the first frame record agree) */
static json_t *stack_of(json_t *maps, json_t *pcs, int first)
{
    json_t *st = json_array();
    size_t i;
    json_t *v;
    json_int_t prev = -1;
    json_array_foreach(pcs, i, v) {
        if (json_integer_value(v) == prev)
            continue;
        prev = json_integer_value(v);
        json_t *fr = frame_of(maps, (uint64_t)prev);
        if (i > 0 || !first)
            json_object_set_new(fr, "return", json_true());
        json_array_append_new(st, fr);
    }
    return st;
}

/* ---- the cause ---- */

struct cand {
    const char *cause;
    int score;
    json_t *obj; /* borrowed: an entry of allocs */
    long long offset;  /* from the object's start (negative: before it) */
    uint64_t slot, slot_size; /* a stack slot found from the memory tags (size 0: none) */
    long long sp_offset;
    char why[200];
};

/* the run of granules around the address whose memory tag is the pointer's
 * (tags: 33 granules from base, the address's at 16): the slot the pointer
 * was made for, to granule precision; 0 when none is in the window */
static int tag_run(json_t *f, unsigned t, uint64_t *start, uint64_t *size)
{
    json_t *tg = json_object_get(f, "tags");
    const char *ts = mtb_jstr(tg, "tags");
    uint64_t base = hexv(mtb_jstr(tg, "base"));
    char want = "0123456789abcdef"[t & 0xf];
    if (strlen(ts) != 33)
        return 0;
    for (int d = 1; d <= 16; d++)
        for (int side = -1; side <= 1; side += 2) {
            int i = 16 + side * d;
            if (i < 0 || i > 32 || ts[i] != want)
                continue;
            int lo = i, hi = i;
            while (lo > 0 && ts[lo - 1] == want)
                lo--;
            while (hi < 32 && ts[hi + 1] == want)
                hi++;
            *start = base + 16 * (uint64_t)lo;
            *size = 16 * (uint64_t)(hi - lo + 1);
            return 1;
        }
    return 0;
}

/* an object's kind in words ("heap object", ...) */
static const char *kind_words(const char *k)
{
    return !strcmp(k, "service") ? "object of the service's own allocator"
           : !strcmp(k, "stack") ? "stack slot (its extent from the memory tags)" : "heap object";
}

static const char *objkind(json_t *o) { return kind_words(mtb_jstr(o, "kind")); }

/* the faulting instruction's base register's value (A64 decoder), or 0 */
/* the faulting instruction decoded (A64 decoder) into d; 0: none recorded */
static int insn_of(json_t *regs, struct mtb_a64_insn *d)
{
    const char *insn = regs ? mtb_jstr(regs, "insn") : "";
    if (!*insn)
        return 0;
    struct mtb_a64_params prm = { 64, 64 };
    mtb_a64_decode((uint32_t)hexv(insn), &prm, d);
    return 1;
}

static uint64_t base_reg(json_t *regs)
{
    struct mtb_a64_insn d;
    if (!insn_of(regs, &d) || d.base < 0 || d.group == MTB_A64_G_NONE)
        return 0;
    char r[8];
    snprintf(r, sizeof r, d.base == 31 ? "sp" : "x%d", d.base);
    return hexv(mtb_jstr(regs, r));
}

/* is [s, e) partly a live object's now, one that carries tag t? */
static int reused_same_tag(json_t *allocs, uint64_t s, uint64_t e, unsigned t)
{
    size_t i;
    json_t *o;
    json_array_foreach(allocs, i, o) {
        uint64_t p = hexv(mtb_jstr(o, "ptr")), ls = UNTAG(p), le = ls + (uint64_t)json_integer_value(json_object_get(o, "size"));
        if (!strcmp(mtb_jstr(o, "state"), "live") && TAG_OF(p) == t && ls < e && s < le)
            return 1;
    }
    return 0;
}

/* is a lies in a heap block that was freed (a pool's or arena's)? */
static int in_freed_heap(json_t *allocs, uint64_t a)
{
    size_t i;
    json_t *o;
    json_array_foreach(allocs, i, o) {
        uint64_t s = UNTAG(hexv(mtb_jstr(o, "ptr"))), size = (uint64_t)json_integer_value(json_object_get(o, "size"));
        if (strcmp(mtb_jstr(o, "state"), "live") && !strcmp(mtb_jstr(o, "kind"), "heap") && a >= s && a < s + size)
            return 1;
    }
    return 0;
}

/* what the objects near the address make of it, best first */
static int candidates(json_t *f, json_t *allocs, struct cand *c, int max, int freeing)
{
    uint64_t addr = hexv(mtb_jstr(f, "addr")), a = UNTAG(addr);
    unsigned t = TAG_OF(addr);
    int n = 0;
    size_t i;
    json_t *o;
    json_array_foreach(allocs, i, o) {
        if (n >= max)
            break;
        uint64_t p = hexv(mtb_jstr(o, "ptr")), s = UNTAG(p), size = (uint64_t)json_integer_value(json_object_get(o, "size"));
        uint64_t e = s + size;
        const char *state = mtb_jstr(o, "state");
        int freed = strcmp(state, "live") != 0, same = TAG_OF(p) == t;
        struct cand *k = &c[n];
        memset(k, 0, sizeof *k);
        k->obj = o;
        k->offset = (long long)(a - s);
        if (!strcmp(state, "double-freed") && same && a + 16 >= s && a < e) {
            k->cause = "double free";
            k->score = 100;
            snprintf(k->why, sizeof k->why, "the pointer was freed twice (libmtealloc saw both frees); the second free's access faulted");
        } else if (!freed && same && a >= s && a < e && !strcmp(mtb_jstr(o, "kind"), "service") && in_freed_heap(allocs, a)) {
            k->cause = "use after free";
            k->score = 88;
            snprintf(k->why, sizeof k->why, "the address is inside this object of the service's allocator, and the heap "
                     "block holding it was freed (a pool or arena released with its objects)");
        } else if (freed && same && freeing && a + 16 >= s && a < e) {
            k->cause = "double free";
            k->score = 95;
            snprintf(k->why, sizeof k->why, "a free faulted on an object already freed, through the pointer it was "
                     "handed out with (the allocator reads its header or body)");
        } else if (freed && same && a >= s && a < e) {
            k->cause = "use after free";
            /* its memory handed out again to a live object of the same tag:
             * the tag is better explained by that object */
            k->score = reused_same_tag(allocs, s, e, t) ? 60 : 90;
            snprintf(k->why, sizeof k->why, "the address is inside a freed object and the pointer carries the tag that object had");
        } else if (!freed && same && a >= e) {
            k->cause = "buffer overflow";
            k->score = 80 - (int)((a - e) / 16 > 40 ? 40 : (a - e) / 16);
            snprintf(k->why, sizeof k->why, "the pointer carries this live object's tag and the address lies %llu bytes past its end",
                     (unsigned long long)(a - e));
        } else if (!freed && same && a < s) {
            k->cause = "buffer underflow";
            k->score = 80 - (int)((s - a) / 16 > 40 ? 40 : (s - a) / 16);
            snprintf(k->why, sizeof k->why, "the pointer carries this live object's tag and the address lies %llu bytes before its start",
                     (unsigned long long)(s - a));
        } else if (freed && same) {
            k->cause = a >= e ? "use after free, past its end" : "use after free, before its start";
            k->score = 30;
            snprintf(k->why, sizeof k->why, "the pointer carries the tag of a freed object whose bounds the address is outside");
        } else
            continue;
        n++;
    }
    /* the object the instruction's base register points into is the one
     * the pointer was made for (neighbours may share its tag) */
    uint64_t base = UNTAG(base_reg(json_object_get(f, "regs")));
    int in = -1;
    uint64_t in_size = 0;
    for (int x = 0; base && base != a && x < n; x++) { /* the smallest: a pool's object, not its block */
        uint64_t s0 = UNTAG(hexv(mtb_jstr(c[x].obj, "ptr")));
        uint64_t sz = (uint64_t)json_integer_value(json_object_get(c[x].obj, "size"));
        if (base >= s0 && base < s0 + sz && (in < 0 || sz < in_size))
            in = x, in_size = sz;
    }
    if (in >= 0) {
        c[in].score += 20;
        size_t l = strlen(c[in].why);
        snprintf(c[in].why + l, sizeof c[in].why - l, " (the instruction's base register points into it)");
    }
    /* the stack: the address within the faulting thread's reach of sp */
    json_t *regs = json_object_get(f, "regs");
    uint64_t sp = regs ? hexv(mtb_jstr(regs, "sp")) : 0;
    json_t *fm = json_object_get(f, "fault_map");
    const char *fmap = fm ? mtb_jstr(fm, "path") : "";
    if (n < max && (!strcmp(fmap, "[stack]") || (sp && a + 65536 >= sp && a < sp + (1u << 20)))) {
        struct cand *k = &c[n++];
        memset(k, 0, sizeof *k);
        k->cause = "stack";
        k->score = 85;
        k->sp_offset = (long long)(a - sp);
        if (tag_run(f, t, &k->slot, &k->slot_size)) {
            k->offset = (long long)(a - k->slot);
            snprintf(k->why, sizeof k->why, "the address is in the faulting thread's stack, %lld bytes from sp; the "
                     "pointer's tag is that of a %llu-byte slot near it (memory tags)", k->sp_offset,
                     (unsigned long long)k->slot_size);
        } else
            snprintf(k->why, sizeof k->why, "the address is in the faulting thread's stack, %lld bytes from sp",
                     k->sp_offset);
    }
    for (int x = 1; x < n; x++) /* by score, stable */
        for (int y = x; y > 0 && c[y].score > c[y - 1].score; y--) {
            struct cand tmp = c[y];
            c[y] = c[y - 1];
            c[y - 1] = tmp;
        }
    return n;
}

static json_t *cand_json(const struct cand *k)
{
    json_t *j = json_pack("{s:s,s:i,s:s}", "cause", k->cause, "score", k->score, "why", k->why);
    if (k->obj) {
        long long size = (long long)json_integer_value(json_object_get(k->obj, "size"));
        uint64_t p = hexv(mtb_jstr(k->obj, "ptr"));
        const char *rel = k->offset < 0 ? "before" : k->offset >= size ? "past" : "into";
        long long by = k->offset < 0 ? -k->offset : k->offset >= size ? k->offset - size : k->offset;
        json_object_set_new(j, "object", json_pack("{s:o,s:I,s:s,s:s,s:I,s:s,s:I,s:i}",
            "start", json_sprintf("0x%016llx", (unsigned long long)UNTAG(p)), "size", (json_int_t)size,
            "state", mtb_jstr(k->obj, "state"), "kind", mtb_jstr(k->obj, "kind"), "offset", (json_int_t)k->offset,
            "relation", rel, "distance", (json_int_t)by, "tag", (int)TAG_OF(p)));
    } else {
        json_object_set_new(j, "sp_offset", json_integer(k->sp_offset));
        if (k->slot_size) {
            long long size = (long long)k->slot_size;
            const char *rel = k->offset < 0 ? "before" : k->offset >= size ? "past" : "into";
            long long by = k->offset < 0 ? -k->offset : k->offset >= size ? k->offset - size : k->offset;
            json_object_set_new(j, "object", json_pack("{s:o,s:I,s:s,s:s,s:I,s:s,s:I,s:s}",
                "start", json_sprintf("0x%016llx", (unsigned long long)k->slot), "size", (json_int_t)size,
                "state", "live", "kind", "stack", "offset", (json_int_t)k->offset, "relation", rel,
                "distance", (json_int_t)by, "from", "memory tags (granule precision)"));
        }
    }
    return j;
}

/* what the faulting instruction did: read, write (both: an atomic) */
static const char *access_of(json_t *regs)
{
    struct mtb_a64_insn d;
    if (!insn_of(regs, &d))
        return NULL;
    return d.load && d.store ? "read and write" : d.store ? "write" : d.load ? "read" : NULL;
}

static void headline(json_t *rep, json_t *f)
{
    json_t *best = json_object_get(rep, "object");
    const char *cause = mtb_jstr(rep, "cause");
    char *h;
    if (best && !strcmp(cause, "double free"))
        h = mtb_asprintf("double free of a %lld-byte %s at %s", (long long)json_integer_value(json_object_get(best, "size")),
                         objkind(best), mtb_jstr(best, "start"));
    else if (best && json_object_get(best, "size")) {
        const char *rel = mtb_jstr(best, "relation");
        h = mtb_asprintf("%s, %lld bytes %s %s %lld-byte %s at %s", cause,
                         (long long)json_integer_value(json_object_get(best, "distance")),
                         !strcmp(rel, "past") ? "past the end of" : !strcmp(rel, "before") ? "before the start of" : "into",
                         "a", (long long)json_integer_value(json_object_get(best, "size")),
                         objkind(best), mtb_jstr(best, "start"));
    } else if (!strcmp(cause, "stack"))
        h = mtb_asprintf("stack, %s (%lld bytes from sp)", mtb_jstr(f, "addr"),
                         (long long)json_integer_value(json_object_get(rep, "sp_offset")));
    else
        h = mtb_strdup(cause);
    json_object_set_new(rep, "headline", json_string(h));
    free(h);
}

/* the report from the parsed lines (in f: tags, regs, pcs, maps, allocs) */
/* the fault's own stack, symbolised; a non-leaf function's lr is a call
 * site in itself, not a frame */
static json_t *fault_stack(json_t *f, json_t *maps)
{
    json_t *pcs = json_object_get(f, "pcs"), *fs = pcs ? stack_of(maps, pcs, 1) : json_array(), *one = json_array();
    json_array_append(one, fs);
    symbolise(one);
    json_decref(one);
    if (json_array_size(fs) > 1) {
        const char *f0 = mtb_jstr(json_array_get(fs, 0), "function"), *f1 = mtb_jstr(json_array_get(fs, 1), "function");
        if (*f0 && !strcmp(f0, f1))
            json_array_remove(fs, 1);
    }
    return fs;
}

/* did it fault inside a free (free, pfree, AllocSetFree, operator delete)? */
static int a_free(const char *fn)
{
    return strstr(fn, "free") || strstr(fn, "Free") || strstr(fn, "operator delete");
}

static int in_free(json_t *fs)
{
    for (size_t i = 0; i < json_array_size(fs) && i < 4; i++) {
        json_t *fr = json_array_get(fs, i), *v;
        size_t j;
        if (a_free(mtb_jstr(fr, "function")))
            return 1;
        json_array_foreach(json_object_get(fr, "inlined_in"), j, v) if (a_free(json_string_value(v)))
            return 1;
    }
    return 0;
}

/* the chosen object's allocation and frees, symbolised, into rep */
static void object_stacks(json_t *rep, json_t *o, json_t *maps)
{
    static const char *const keys[][2] = { { "alloc", "alloc_stack" }, { "free", "free_stack" }, { "free2", "second_free_stack" } };
    json_t *stacks = json_array();
    for (int k = 0; k < 3; k++) {
        json_t *pcs = json_object_get(o, keys[k][0]);
        if (!pcs)
            continue;
        json_t *st = stack_of(maps, pcs, 0);
        json_array_append(stacks, st);
        json_object_set_new(rep, keys[k][1], st);
    }
    symbolise(stacks);
    json_decref(stacks);
    json_object_set(rep, "alloc_thread", json_object_get(o, "tid"));
    if (json_object_get(o, "free_tid"))
        json_object_set(rep, "free_thread", json_object_get(o, "free_tid"));
}

/* the report from the parsed lines (in f: tags, regs, pcs, maps, allocs) */
static json_t *explain(json_t *f)
{
    json_t *rep = json_object();
    uint64_t addr = hexv(mtb_jstr(f, "addr"));
    int sync = json_integer_value(json_object_get(f, "si_code")) == 9;
    json_t *allocs = json_object_get(f, "allocs"), *maps = json_object_get(f, "maps");
    json_object_set_new(rep, "mode", json_string(sync ? "sync" : json_integer_value(json_object_get(f, "si_code")) == 8 ? "async" : "other"));
    if (sync || addr) {
        json_object_set_new(rep, "pointer_tag", json_integer(TAG_OF(addr)));
        if (json_object_get(f, "memory_tag"))
            json_object_set(rep, "memory_tag", json_object_get(f, "memory_tag"));
    }
    const char *acc = access_of(json_object_get(f, "regs"));
    if (acc)
        json_object_set_new(rep, "access", json_string(acc));
    json_object_set_new(rep, "allocation_record", json_boolean(allocs != NULL));
    json_t *fs = fault_stack(f, maps);
    json_object_set_new(rep, "stack", fs);
    struct cand c[16];
    json_t *none = json_array();
    int n = addr ? candidates(f, allocs ? allocs : none, c, 16, in_free(fs)) : 0;
    json_decref(none);
    if (!addr)
        json_object_set_new(rep, "cause", json_string("unknown: asynchronous, the address is not known"));
    else if (!n)
        json_object_set_new(rep, "cause", json_string(allocs ? "unknown" : "unknown (no allocation record)"));
    else {
        json_object_set_new(rep, "cause", json_string(c[0].cause));
        json_t *best = cand_json(&c[0]), *alts = json_array();
        json_object_set(rep, "why", json_object_get(best, "why"));
        if (json_object_get(best, "object"))
            json_object_set(rep, "object", json_object_get(best, "object"));
        if (json_object_get(best, "sp_offset"))
            json_object_set(rep, "sp_offset", json_object_get(best, "sp_offset"));
        json_decref(best);
        for (int i = 1; i < n && i < 5; i++)
            json_array_append_new(alts, cand_json(&c[i]));
        json_object_set_new(rep, "alternatives", alts);
    }
    headline(rep, f);
    if (n && c[0].obj)
        object_stacks(rep, c[0].obj, maps);
    if (json_object_get(f, "syscall"))
        json_object_set(rep, "syscall", json_object_get(f, "syscall"));
    return rep;
}

/* ---- the lines ---- */

static void parse_line(json_t *f, const char *line)
{
    char b[600];
    if (!strncmp(line, "MTEBENCH-TAGS ", 14)) {
        const char *tags = field(line, "tags=", b, sizeof b);
        if (tags && strlen(tags) == 33) {
            json_object_set_new(f, "tags", json_pack("{s:s,s:s}", "base", field(line, "base=", (char[40]){0}, 40) ?: "", "tags", tags));
            if (tags[16] != '-')
                json_object_set_new(f, "memory_tag", json_integer(strtol((char[2]){ tags[16], 0 }, NULL, 16)));
        }
    } else if (!strncmp(line, "MTEBENCH-REGS ", 14)) {
        json_t *r = json_object();
        for (const char *p = line + 14; *p && *p != '\n';) {
            size_t l = strcspn(p, " \n");
            const char *eq = memchr(p, '=', l);
            if (eq) {
                snprintf(b, sizeof b, "%.*s", (int)(eq - p), p);
                json_object_set_new(r, b, json_stringn(eq + 1, (size_t)(p + l - eq - 1)));
            }
            p += l;
            while (*p == ' ')
                p++;
        }
        json_object_set_new(f, "regs", r);
    } else if (!strncmp(line, "MTEBENCH-STACK ", 15)) {
        json_object_set_new(f, "pcs", pcs_of(field(line, "pcs=", b, sizeof b)));
    } else if (!strncmp(line, "MTEBENCH-SYSCALL ", 17)) {
        json_object_set_new(f, "syscall", json_integer(atoi(field(line, "nr=", b, sizeof b) ?: "-1")));
    } else if (!strncmp(line, "MTEBENCH-MAP ", 13)) {
        char role[8], perms[8], path[512] = "";
        unsigned long long s, e, off;
        int n = sscanf(line, "MTEBENCH-MAP %7s %llx-%llx %7s %llx %*s %*s %511[^\n]", role, &s, &e, perms, &off, path);
        if (n >= 5) {
            char *pth = path + strspn(path, " ");
            json_t *m = json_pack("{s:s,s:I,s:I,s:I,s:s,s:s}", "role", role, "start", (json_int_t)s, "end", (json_int_t)e,
                                  "offset", (json_int_t)off, "perms", perms, "path", pth);
            if (!json_object_get(f, "maps"))
                json_object_set_new(f, "maps", json_array());
            json_array_append(json_object_get(f, "maps"), m);
            if (!strcmp(role, "fault"))
                json_object_set(f, "fault_map", m);
            json_decref(m);
        }
    } else if (!strncmp(line, "MTEBENCH-ALLOC-INFO ", 20)) {
        json_t *i = json_object();
        static const char *const keys[] = { "live", "freed", "kept_freed", "dropped", "near" };
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            char key[24];
            snprintf(key, sizeof key, "%s=", keys[k]);
            json_object_set_new(i, keys[k], json_integer(atoll(field(line, key, b, sizeof b) ?: "0")));
        }
        json_object_set_new(f, "alloc_info", i);
        if (!json_object_get(f, "allocs"))
            json_object_set_new(f, "allocs", json_array());
    } else if (!strncmp(line, "MTEBENCH-ALLOC ", 15)) {
        json_t *o = json_object();
        static const char *const strs[] = { "state", "kind", "ptr" };
        for (size_t k = 0; k < 3; k++) {
            char key[16];
            snprintf(key, sizeof key, "%s=", strs[k]);
            json_object_set_new(o, strs[k], json_string(field(line, key, b, sizeof b) ?: ""));
        }
        json_object_set_new(o, "size", json_integer(atoll(field(line, "size=", b, sizeof b) ?: "0")));
        json_object_set_new(o, "tid", json_integer(atoi(field(line, "tid=", b, sizeof b) ?: "0")));
        if (field(line, "free_tid=", b, sizeof b))
            json_object_set_new(o, "free_tid", json_integer(atoi(b)));
        static const char *const st[] = { "alloc", "free", "free2" };
        for (size_t k = 0; k < 3; k++) {
            char key[16];
            snprintf(key, sizeof key, "%s=", st[k]);
            if (field(line, key, b, sizeof b))
                json_object_set_new(o, st[k], pcs_of(b));
        }
        if (!json_object_get(f, "allocs"))
            json_object_set_new(f, "allocs", json_array());
        json_array_append_new(json_object_get(f, "allocs"), o);
    }
}

json_t *mtb_fault_read(const char *path)
{
    char *text = mtb_read_file(path, NULL);
    json_t *f = text ? mtb_fault_parse(text) : NULL;
    free(text);
    return f;
}

static json_t *fault_lines(const char *text, int *more);
static void fault_finish(json_t *f, int more);

/* The mappings' files named under far (a vm guest's /mtb/builds/S/V) that
 * are not on this machine, read from here (the build's cache directory) */
static void maps_here(json_t *f, const char *far, const char *here)
{
    size_t i, n = strlen(far);
    json_t *m;
    json_array_foreach(json_object_get(f, "maps"), i, m) {
        const char *p = mtb_jstr(m, "path");
        if (access(p, R_OK) != 0 && !strncmp(p, far, n) && p[n] == '/')
            json_object_set_new(m, "path", json_sprintf("%s%s", here, p + n));
    }
}

json_t *mtb_fault_read_guest(const char *dir, json_t *rec, char **path)
{
    char *gd = mtb_asprintf("%s/guest", dir), *fp = NULL;
    struct dirent **ents = NULL;
    int n = scandir(gd, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        char *c = mtb_asprintf("%s/%s/fault.txt", gd, ents[i]->d_name);
        if (!fp && ents[i]->d_name[0] != '.' && access(c, R_OK) == 0)
            fp = c;
        else
            free(c);
        free(ents[i]);
    }
    free(ents);
    free(gd);
    char *text = fp ? mtb_read_file(fp, NULL) : NULL;
    int more = 0;
    json_t *f = text ? fault_lines(text, &more) : NULL, *b = json_object_get(rec, "build");
    if (f && *mtb_jstr(b, "key")) {
        char *far = mtb_asprintf("/mtb/builds/%s/%s", mtb_jstr(b, "service"), mtb_jstr(b, "variant"));
        char *here = mtb_build_dir_of(mtb_jstr(b, "service"), mtb_jstr(b, "variant"), mtb_jstr(b, "target"),
                                      mtb_jstr(b, "key"));
        maps_here(f, far, here);
        free(far);
        free(here);
    }
    if (f)
        fault_finish(f, more);
    free(text);
    if (path)
        *path = fp;
    else
        free(fp);
    return f;
}

/* The fault's lines parsed (the fault, tags, registers, stack, mappings,
 * objects), the report not yet made; NULL: no fault line. *more: lines
 * came after the fault's own */
static json_t *fault_lines(const char *text, int *more)
{
    *more = 0;
    const char *line = strstr(text, "MTEBENCH-FAULT");
    json_t *f = NULL;
    int signo = 0, code = 0, pid = 0;
    char addr[40] = "";
    if (line && sscanf(line, "MTEBENCH-FAULT signo=%d code=%d addr=%39s pid=%d", &signo, &code, addr, &pid) == 4) {
        const char *kind = signo == 11 && code == 9   ? "tag-check fault, synchronous (SEGV_MTESERR)"
                           : signo == 11 && code == 8 ? "tag-check fault, asynchronous (SEGV_MTEAERR)"
                           : signo == 11             ? "segmentation fault (not a tag-check fault)"
                                                     : "bus error";
        f = json_pack("{s:i,s:i,s:s,s:i,s:s,s:b}", "signal", signo, "si_code", code, "addr", addr,
                      "pid", pid, "kind", kind, "tag_check", signo == 11 && (code == 8 || code == 9));
        /* where (aarch64): the faulting instruction and the return address */
        char pc[40], lr[40];
        const char *w = strstr(line, " pc=");
        if (w && w < strchr(line, '\n') && sscanf(w, " pc=%39s lr=%39s", pc, lr) == 2) {
            json_object_set_new(f, "pc", json_string(pc));
            json_object_set_new(f, "lr", json_string(lr));
        }
        /* the lines after it, up to its END (a second fault's are not its) */
        for (const char *l = strchr(line, '\n'); l && *++l && strncmp(l, "MTEBENCH-FAULT", 14); l = strchr(l, '\n')) {
            if (!strncmp(l, "MTEBENCH-END", 12))
                break;
            parse_line(f, l);
            *more = 1;
        }
    }
    return f;
}

/* The report made from the parsed lines, which then go (they stay in
 * fault.txt) */
static void fault_finish(json_t *f, int more)
{
    if (more && json_is_true(json_object_get(f, "tag_check")))
        json_object_set_new(f, "report", explain(f));
    json_object_del(f, "fault_map");
    json_object_del(f, "maps");
    json_object_del(f, "pcs");
}

json_t *mtb_fault_parse(const char *text)
{
    int more;
    json_t *f = fault_lines(text, &more);
    if (f)
        fault_finish(f, more);
    return f;
}

static void put_stack(FILE *o, const char *title, const struct mtb_fault_stack *st)
{
    if (!st->n)
        return;
    fprintf(o, "%s\n", title);
    for (size_t i = 0; i < st->n; i++) {
        const struct mtb_fault_frame *fr = &st->v[i];
        const char *fn = fr->function, *src = fr->source, *mod = fr->module;
        /* without a source line the name is the nearest exported symbol
         * before pc (a stripped library), not surely the function */
        if (*src && fr->inlined_in)
            fprintf(o, "  #%zu %s %s (%s), inlined in %s", i, fr->pc, *fn ? fn : "??", src, fr->inlined_in);
        else if (*src)
            fprintf(o, "  #%zu %s %s (%s)", i, fr->pc, *fn ? fn : "??", src);
        else
            fprintf(o, "  #%zu %s %s%s", i, fr->pc, *fn ? fn : "??", *fn ? "?" : "");
        if (*mod)
            fprintf(o, " [%s+%s]", mod, fr->offset);
        fputc('\n', o);
    }
}

char *mtb_fault_text(json_t *fault)
{
    struct mtb_fault_view v;
    mtb_fault_view_read(fault, &v);
    if (!v.has_report) {
        mtb_fault_view_free(&v);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    fprintf(o, "Cause: [MTE]: %s\n", v.headline);
    fprintf(o, "  %s at %s", v.kind, v.addr);
    if (*v.access)
        fprintf(o, ", a %s", v.access);
    if (v.has_report_memory_tag)
        fprintf(o, "; pointer tag 0x%llx, memory tag 0x%llx", v.pointer_tag, v.report_memory_tag);
    fprintf(o, "\n");
    if (*v.why)
        fprintf(o, "  why: %s\n", v.why);
    if (v.has_syscall)
        fprintf(o, "  raised at the return of system call %lld (an asynchronous fault is reported at the next kernel entry)\n",
                v.syscall);
    for (size_t i = 0; i < v.nalts; i++) {
        const struct mtb_fault_alt *a = &v.alts[i];
        if (a->object.present)
            fprintf(o, "  also possible: %s, %lld bytes %s a %lld-byte %s at %s\n", a->cause, a->object.distance,
                    a->object.relation, a->object.size, kind_words(a->object.kind), a->object.start);
        else
            fprintf(o, "  also possible: %s (%s)\n", a->cause, a->why);
    }
    if (!v.allocation_record)
        fprintf(o, "  (no allocation record: run with libmtealloc.so preloaded, as detect's trials are, for the object and its stacks)\n");
    put_stack(o, "fault (NAME?: the nearest exported symbol, in a library without debug information):", &v.stack);
    char t[80];
    snprintf(t, sizeof t, "allocated by thread %lld:", v.alloc_thread);
    put_stack(o, t, &v.alloc_stack);
    snprintf(t, sizeof t, "freed by thread %lld:", v.free_thread);
    put_stack(o, t, &v.free_stack);
    put_stack(o, "freed again:", &v.second_free_stack);
    if (v.has_tags) {
        const char *ts = v.tags;
        fprintf(o, "memory tags around the address (a granule of 16 bytes each, [x]: the address's):\n  %s:", v.tags_base);
        for (int k = 0; ts[k]; k++)
            fprintf(o, k == 16 ? " [%c]" : " %c", ts[k]);
        fprintf(o, "\n");
    }
    fclose(o);
    mtb_fault_view_free(&v);
    return buf;
}
