/*
 * faultrep.c - the fault report (faultrep.h; docs/DETECTION.md "Fault
 * reports"). The lines are libmtefault's (harness/probe/mtefault.c) and
 * libmtealloc's (harness/probe/mtealloc.c); what they mean is said there.
 * They are read once into struct mtb_fault_lines (the fault, its tags,
 * registers, stack, mappings and the objects near it); the cause is found
 * in those structs, and the record's fault object, with its report, is
 * written from them at the end.
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
#include "core/record_env.h"
#include "lib/util.h"
#include "core/fault_rows.h"
#include "run/fault_lines.h"
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

/* a frame of a stack: its pc, the module and offset it falls in, and what
 * addr2line made of it (the function, its source, the functions it was
 * inlined in, outwards); order: the order those three were first learnt */
struct frame {
    long long pc;
    int ret;        /* a return address: its call is the byte before */
    int mapped;     /* module, path, offset and machine known */
    const char *path; /* the mapping's (borrowed) */
    char *module;
    uint64_t offset;
    int machine;
    char *function, *source;
    char **inlined_in;
    size_t ninlined;
    int has_inlined;  /* addr2line named an inlining function (inlined_in kept, if empty) */
};
struct stack {
    struct frame *v;
    size_t n;
};

static void frame_free(struct frame *fr)
{
    free(fr->module), free(fr->function), free(fr->source);
    for (size_t j = 0; j < fr->ninlined; j++)
        free(fr->inlined_in[j]);
    free(fr->inlined_in);
}

static void stack_free(struct stack *s)
{
    for (size_t i = 0; i < s->n; i++)
        frame_free(&s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* one frame: {pc, module, path, offset[, function, source, inlined_in]} */
static json_t *frame_json(const struct frame *fr)
{
    json_t *j = json_object();
    json_object_set_new(j, "pc", json_sprintf("0x%llx", (unsigned long long)fr->pc));
    if (fr->mapped) {
        json_object_set_new(j, "module", json_string(fr->module));
        json_object_set_new(j, "path", json_string(fr->path));
        json_object_set_new(j, "offset", json_sprintf("0x%llx", (unsigned long long)fr->offset));
    }
    if (fr->function)
        json_object_set_new(j, "function", json_string(fr->function));
    if (fr->source)
        json_object_set_new(j, "source", json_string(fr->source));
    if (fr->has_inlined) {
        json_t *a = json_array();
        for (size_t i = 0; i < fr->ninlined; i++)
            json_array_append_new(a, json_string(fr->inlined_in[i]));
        json_object_set_new(j, "inlined_in", a);
    }
    return j;
}

static json_t *stack_json(const struct stack *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n; i++)
        json_array_append_new(a, frame_json(&s->v[i]));
    return a;
}

/* the frame of pc: the executable mapping it falls in */
static void frame_at(const struct mtb_fault_lines *f, long long pc, struct frame *fr)
{
    memset(fr, 0, sizeof *fr);
    fr->pc = pc;
    uint64_t u = (uint64_t)pc;
    for (size_t i = 0; i < f->nmaps; i++) {
        const struct mtb_fl_map *m = &f->maps[i];
        if (u < m->start || u >= m->end || !*m->path || !strcmp(m->role, "fault"))
            continue;
        uint64_t off = u - m->start + m->offset;
        const char *base = strrchr(m->path, '/');
        fr->mapped = 1;
        fr->path = m->path;
        fr->module = mtb_strdup(base ? base + 1 : m->path);
        fr->offset = vaddr_of(m->path, off, &fr->machine);
        break;
    }
}

/* every frame of the stacks symbolised: one addr2line per module (-a -i -f
 * -C: each address, then its inlined chain innermost first: the frame's
 * function and source, and inlined_in outwards) */
static void symbolise(struct stack *const *stacks, size_t nstacks)
{
    const char **done = NULL;
    size_t ndone = 0;
    for (size_t i = 0; i < nstacks; i++)
        for (size_t j = 0; j < stacks[i]->n; j++) {
            const struct frame *fr = &stacks[i]->v[j];
            const char *path = fr->mapped ? fr->path : "";
            int seen = 0;
            for (size_t d = 0; d < ndone; d++)
                seen |= !strcmp(done[d], path);
            if (!*path || seen || access(path, R_OK) != 0)
                continue;
            done = mtb_realloc(done, (ndone + 1) * sizeof *done);
            done[ndone++] = path;
            /* this module's frames in every stack, in one call */
            struct frame **mine = NULL;
            size_t n = 0;
            for (size_t k = 0; k < nstacks; k++)
                for (size_t l = 0; l < stacks[k]->n; l++)
                    if (stacks[k]->v[l].mapped && !strcmp(stacks[k]->v[l].path, path)) {
                        mine = mtb_realloc(mine, (n + 1) * sizeof *mine);
                        mine[n++] = &stacks[k]->v[l];
                    }
            char **argv = mtb_calloc(n + 8, sizeof *argv);
            int a = 0;
            argv[a++] = (char *)addr2line_for(fr->machine);
            argv[a++] = "-a"; /* each address first: its inlined chain follows it */
            argv[a++] = "-i";
            argv[a++] = "-f";
            argv[a++] = "-C";
            argv[a++] = "-e";
            argv[a++] = (char *)path;
            char **looks = mtb_calloc(n + 1, sizeof *looks);
            for (size_t k = 0; k < n; k++) {
                looks[k] = mtb_asprintf("0x%llx", (unsigned long long)(mine[k]->offset - (mine[k]->ret ? 1 : 0)));
                argv[a++] = looks[k];
            }
            int status = 0;
            char *out = mtb_proc_capture(argv, 0, 20, &status);
            /* "0xADDR", then (function, file:line) pairs, innermost first */
            char *save = NULL, *line = out ? strtok_r(out, "\n", &save) : NULL;
            struct frame *f3 = NULL;
            long idx = -1;
            while (line) {
                if (!strncmp(line, "0x", 2)) {
                    f3 = ++idx < (long)n ? mine[idx] : NULL;
                    line = strtok_r(NULL, "\n", &save);
                    continue;
                }
                char *src = strtok_r(NULL, "\n", &save);
                /* a name that is no UTF-8 is left out (JSON cannot hold it) */
                if (f3 && strcmp(line, "??")) {
                    if (!f3->function) {
                        if (mtb_fault_utf8(line))
                            f3->function = mtb_strdup(line);
                    } else { /* the functions it was inlined into, outwards */
                        f3->has_inlined = 1;
                        if (mtb_fault_utf8(line)) {
                            f3->inlined_in = mtb_realloc(f3->inlined_in, (f3->ninlined + 1) * sizeof *f3->inlined_in);
                            f3->inlined_in[f3->ninlined++] = mtb_strdup(line);
                        }
                    }
                }
                if (f3 && src && strncmp(src, "??", 2) && !f3->source && mtb_fault_utf8(strrchr(src, '/') ? strrchr(src, '/') + 1 : src)) {
                    const char *sl = strrchr(src, '/');
                    f3->source = mtb_strdup(sl ? sl + 1 : src);
                }
                line = strtok_r(NULL, "\n", &save);
            }
            free(out);
            for (size_t k = 0; k < n; k++)
                free(looks[k]);
            free(looks);
            free(argv);
            free(mine);
        }
    free(done);
}

/* first: the stack begins at the faulting instruction itself (the others
 * are return addresses all through); equal neighbours made one (a fault in
 * a function that saved its lr: lr and the first frame record agree) */
static void stack_of(const struct mtb_fault_lines *f, const struct mtb_fl_pcs *pcs, int first, struct stack *st)
{
    memset(st, 0, sizeof *st);
    long long prev = -1;
    for (size_t i = 0; i < pcs->n; i++) {
        if (pcs->v[i] == prev)
            continue;
        prev = pcs->v[i];
        st->v = mtb_realloc(st->v, (st->n + 1) * sizeof *st->v);
        frame_at(f, prev, &st->v[st->n]);
        st->v[st->n++].ret = i > 0 || !first;
    }
}

/* ---- the cause ---- */

struct cand {
    const char *cause;
    int score;
    const struct mtb_fl_alloc *obj; /* one of the fault's allocs; NULL: the stack */
    long long offset;  /* from the object's start (negative: before it) */
    uint64_t slot, slot_size; /* a stack slot found from the memory tags (size 0: none) */
    long long sp_offset;
    char why[200];
};

/* the run of granules around the address whose memory tag is the pointer's
 * (tags: 33 granules from base, the address's at 16): the slot the pointer
 * was made for, to granule precision; 0 when none is in the window */
static int tag_run(const struct mtb_fault_lines *f, unsigned t, uint64_t *start, uint64_t *size)
{
    const char *ts = f->has_tags ? f->tags : "";
    uint64_t base = mtb_fault_hex(f->has_tags ? f->tags_base : "");
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

/* the faulting instruction decoded (A64 decoder) into d; 0: none recorded */
static int insn_of(const struct mtb_fault_lines *f, struct mtb_a64_insn *d)
{
    const char *insn = mtb_fault_lines_reg(f, "insn");
    if (!*insn)
        return 0;
    struct mtb_a64_params prm = { 64, 64 };
    mtb_a64_decode((uint32_t)mtb_fault_hex(insn), &prm, d);
    return 1;
}

/* the faulting instruction's base register's value, or 0 */
static uint64_t base_reg(const struct mtb_fault_lines *f)
{
    struct mtb_a64_insn d;
    if (!insn_of(f, &d) || d.base < 0 || d.group == MTB_A64_G_NONE)
        return 0;
    char r[8];
    snprintf(r, sizeof r, d.base == 31 ? "sp" : "x%d", d.base);
    return mtb_fault_hex(mtb_fault_lines_reg(f, r));
}

/* is [s, e) partly a live object's now, one that carries tag t? */
static int reused_same_tag(const struct mtb_fault_lines *f, uint64_t s, uint64_t e, unsigned t)
{
    for (size_t i = 0; i < f->nallocs; i++) {
        const struct mtb_fl_alloc *o = &f->allocs[i];
        uint64_t ls = UNTAG(o->ptr), le = ls + (uint64_t)o->size;
        if (!strcmp(o->state, "live") && TAG_OF(o->ptr) == t && ls < e && s < le)
            return 1;
    }
    return 0;
}

/* is a lies in a heap block that was freed (a pool's or arena's)? */
static int in_freed_heap(const struct mtb_fault_lines *f, uint64_t a)
{
    for (size_t i = 0; i < f->nallocs; i++) {
        const struct mtb_fl_alloc *o = &f->allocs[i];
        uint64_t s = UNTAG(o->ptr), size = (uint64_t)o->size;
        if (strcmp(o->state, "live") && !strcmp(o->kind, "heap") && a >= s && a < s + size)
            return 1;
    }
    return 0;
}

/* what the objects near the address make of it, best first */
static int candidates(const struct mtb_fault_lines *f, struct cand *c, int max, int freeing)
{
    uint64_t addr = mtb_fault_hex(f->addr), a = UNTAG(addr);
    unsigned t = TAG_OF(addr);
    int n = 0;
    for (size_t i = 0; i < f->nallocs; i++) {
        if (n >= max)
            break;
        const struct mtb_fl_alloc *o = &f->allocs[i];
        uint64_t p = o->ptr, s = UNTAG(p), size = (uint64_t)o->size;
        uint64_t e = s + size;
        const char *state = o->state;
        int freed = strcmp(state, "live") != 0, same = TAG_OF(p) == t;
        struct cand *k = &c[n];
        memset(k, 0, sizeof *k);
        k->obj = o;
        k->offset = (long long)(a - s);
        if (!strcmp(state, "double-freed") && same && a + 16 >= s && a < e) {
            k->cause = "double free";
            k->score = 100;
            snprintf(k->why, sizeof k->why, "the pointer was freed twice (libmtealloc saw both frees); the second free's access faulted");
        } else if (!freed && same && a >= s && a < e && !strcmp(o->kind, "service") && in_freed_heap(f, a)) {
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
            k->score = reused_same_tag(f, s, e, t) ? 60 : 90;
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
    uint64_t base = UNTAG(base_reg(f));
    int in = -1;
    uint64_t in_size = 0;
    for (int x = 0; base && base != a && x < n; x++) { /* the smallest: a pool's object, not its block */
        uint64_t s0 = UNTAG(c[x].obj->ptr), sz = (uint64_t)c[x].obj->size;
        if (base >= s0 && base < s0 + sz && (in < 0 || sz < in_size))
            in = x, in_size = sz;
    }
    if (in >= 0) {
        c[in].score += 20;
        size_t l = strlen(c[in].why);
        snprintf(c[in].why + l, sizeof c[in].why - l, " (the instruction's base register points into it)");
    }
    /* the stack: the address within the faulting thread's reach of sp */
    uint64_t sp = f->has_regs ? mtb_fault_hex(mtb_fault_lines_reg(f, "sp")) : 0;
    const char *fmap = f->fault_map >= 0 ? f->maps[f->fault_map].path : "";
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

/* the object a candidate names: a heap or service object, or the stack
 * slot the memory tags show (present 0: a stack candidate without one) */
struct named {
    int present, from_tags;
    uint64_t start;
    long long size, offset, distance;
    const char *state, *kind, *relation;
    int tag;
};

static void named_of(const struct cand *k, struct named *o)
{
    memset(o, 0, sizeof *o);
    if (k->obj) {
        o->present = 1;
        o->start = UNTAG(k->obj->ptr);
        o->size = k->obj->size;
        o->state = k->obj->state;
        o->kind = k->obj->kind;
        o->tag = (int)TAG_OF(k->obj->ptr);
    } else if (k->slot_size) {
        o->present = o->from_tags = 1;
        o->start = k->slot;
        o->size = (long long)k->slot_size;
        o->state = "live";
        o->kind = "stack";
    } else
        return;
    o->offset = k->offset;
    o->relation = k->offset < 0 ? "before" : k->offset >= o->size ? "past" : "into";
    o->distance = k->offset < 0 ? -k->offset : k->offset >= o->size ? k->offset - o->size : k->offset;
}

/* a candidate's why, its object and (the stack's) sp_offset, into j */
static void cand_into(json_t *j, const struct cand *k)
{
    struct named o;
    named_of(k, &o);
    json_object_set_new(j, "why", json_string(k->why));
    if (!k->obj)
        json_object_set_new(j, "sp_offset", json_integer(k->sp_offset));
    if (o.present) {
        json_t *oj = json_pack("{s:o,s:I,s:s,s:s,s:I,s:s,s:I}", "start",
                               json_sprintf("0x%016llx", (unsigned long long)o.start), "size", (json_int_t)o.size,
                               "state", o.state, "kind", o.kind, "offset", (json_int_t)o.offset, "relation",
                               o.relation, "distance", (json_int_t)o.distance);
        if (o.from_tags)
            json_object_set_new(oj, "from", json_string("memory tags (granule precision)"));
        else
            json_object_set_new(oj, "tag", json_integer(o.tag));
        json_object_set_new(j, "object", oj);
    }
}

static json_t *cand_json(const struct cand *k)
{
    json_t *j = json_pack("{s:s,s:i}", "cause", k->cause, "score", k->score);
    cand_into(j, k);
    return j;
}

/* what the faulting instruction did: read, write (both: an atomic) */
static const char *access_of(const struct mtb_fault_lines *f)
{
    struct mtb_a64_insn d;
    if (!insn_of(f, &d))
        return NULL;
    return d.load && d.store ? "read and write" : d.store ? "write" : d.load ? "read" : NULL;
}

/* the headline: the cause, with the object it names and where */
static char *headline(const struct mtb_fault_lines *f, const char *cause, const struct cand *best)
{
    struct named o = { 0 };
    if (best)
        named_of(best, &o);
    if (o.present && !strcmp(cause, "double free"))
        return mtb_asprintf("double free of a %lld-byte %s at 0x%016llx", o.size, kind_words(o.kind),
                            (unsigned long long)o.start);
    if (o.present)
        return mtb_asprintf("%s, %lld bytes %s %s %lld-byte %s at 0x%016llx", cause, o.distance,
                            !strcmp(o.relation, "past") ? "past the end of"
                            : !strcmp(o.relation, "before") ? "before the start of" : "into",
                            "a", o.size, kind_words(o.kind), (unsigned long long)o.start);
    if (best && !strcmp(cause, "stack"))
        return mtb_asprintf("stack, %s (%lld bytes from sp)", f->addr, best->sp_offset);
    return mtb_strdup(cause);
}

/* the fault's own stack, symbolised; a non-leaf function's lr is a call
 * site in itself, not a frame */
static void fault_stack(const struct mtb_fault_lines *f, struct stack *fs)
{
    stack_of(f, &f->pcs, 1, fs);
    struct stack *one = fs;
    symbolise(&one, 1);
    if (fs->n > 1) {
        const char *f0 = fs->v[0].function ? fs->v[0].function : "", *f1 = fs->v[1].function ? fs->v[1].function : "";
        if (*f0 && !strcmp(f0, f1)) {
            frame_free(&fs->v[1]);
            memmove(fs->v + 1, fs->v + 2, (fs->n - 2) * sizeof *fs->v);
            fs->n--;
        }
    }
}

/* did it fault inside a free (free, pfree, AllocSetFree, operator delete)? */
static int a_free(const char *fn)
{
    return strstr(fn, "free") || strstr(fn, "Free") || strstr(fn, "operator delete");
}

static int in_free(const struct stack *fs)
{
    for (size_t i = 0; i < fs->n && i < 4; i++) {
        const struct frame *fr = &fs->v[i];
        if (a_free(fr->function ? fr->function : ""))
            return 1;
        for (size_t j = 0; j < fr->ninlined; j++)
            if (a_free(fr->inlined_in[j]))
                return 1;
    }
    return 0;
}

/* the chosen object's allocation and frees, symbolised, into rep */
static void object_stacks(json_t *rep, const struct mtb_fault_lines *f, const struct mtb_fl_alloc *o)
{
    static const char *const names[3] = { "alloc_stack", "free_stack", "second_free_stack" };
    struct stack st[3] = { { 0 } };
    struct stack *some[3];
    size_t n = 0;
    for (int k = 0; k < 3; k++)
        if (o->st[k].present) {
            stack_of(f, &o->st[k], 0, &st[k]);
            some[n++] = &st[k];
        }
    symbolise(some, n);
    for (int k = 0; k < 3; k++) {
        if (o->st[k].present)
            json_object_set_new(rep, names[k], stack_json(&st[k]));
        stack_free(&st[k]);
    }
    json_object_set_new(rep, "alloc_thread", json_integer(o->tid));
    if (o->has_free_tid)
        json_object_set_new(rep, "free_thread", json_integer(o->free_tid));
}

/* the report from the parsed lines */
static json_t *explain(const struct mtb_fault_lines *f)
{
    json_t *rep = json_object();
    uint64_t addr = mtb_fault_hex(f->addr);
    int sync = f->code == 9;
    json_object_set_new(rep, "mode", json_string(sync ? "sync" : f->code == 8 ? "async" : "other"));
    if (sync || addr) {
        json_object_set_new(rep, "pointer_tag", json_integer(TAG_OF(addr)));
        if (f->has_memory_tag)
            json_object_set_new(rep, "memory_tag", json_integer(f->memory_tag));
    }
    const char *acc = access_of(f);
    if (acc)
        json_object_set_new(rep, "access", json_string(acc));
    json_object_set_new(rep, "allocation_record", json_boolean(f->has_allocs));
    struct stack fs;
    fault_stack(f, &fs);
    json_object_set_new(rep, "stack", stack_json(&fs));
    struct cand c[16];
    int n = addr ? candidates(f, c, 16, in_free(&fs)) : 0;
    stack_free(&fs);
    const char *cause = !addr ? "unknown: asynchronous, the address is not known"
                        : !n  ? (f->has_allocs ? "unknown" : "unknown (no allocation record)")
                              : c[0].cause;
    json_object_set_new(rep, "cause", json_string(cause));
    if (n) {
        cand_into(rep, &c[0]);
        json_t *alts = json_array();
        for (int i = 1; i < n && i < 5; i++)
            json_array_append_new(alts, cand_json(&c[i]));
        json_object_set_new(rep, "alternatives", alts);
    }
    char *h = headline(f, cause, n ? &c[0] : NULL);
    json_object_set_new(rep, "headline", json_string(h));
    free(h);
    if (n && c[0].obj)
        object_stacks(rep, f, c[0].obj);
    if (f->has_syscall)
        json_object_set_new(rep, "syscall", json_integer(f->syscall));
    return rep;
}

/* The record's fault object (fault_lines.c), with the report when it is a
 * tag-check fault with more than its line */
static json_t *fault_json(const struct mtb_fault_lines *f, int more)
{
    json_t *j = mtb_fault_lines_json(f);
    if (more && f->tag_check)
        json_object_set_new(j, "report", explain(f));
    return j;
}

json_t *mtb_fault_parse(const char *text)
{
    int more;
    struct mtb_fault_lines *f = mtb_fault_lines_parse(text, &more);
    json_t *j = f ? fault_json(f, more) : NULL;
    mtb_fault_lines_free(f);
    return j;
}

json_t *mtb_fault_read(const char *path)
{
    char *text = mtb_read_file(path, NULL);
    json_t *f = text ? mtb_fault_parse(text) : NULL;
    free(text);
    return f;
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
    struct mtb_fault_lines *f = text ? mtb_fault_lines_parse(text, &more) : NULL;
    json_t *j = NULL;
    if (f) {
        struct mtb_rec_env e;
        mtb_rec_env_read(rec, &e);
        if (*e.build_key) {
            char *far = mtb_asprintf("/mtb/builds/%s/%s", e.build_service, e.build_variant);
            char *here = mtb_build_dir_of(e.build_service, e.build_variant, e.build_target, e.build_key);
            mtb_fault_lines_maps_here(f, far, here);
            free(far);
            free(here);
        }
        mtb_rec_env_free(&e);
        j = fault_json(f, more);
        mtb_fault_lines_free(f);
    }
    free(text);
    if (path)
        *path = fp;
    else
        free(fp);
    return j;
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
