/* core.c - an AArch64 Linux core file with its memory tags (core.h). */
#include "run/core.h"
#include "lib/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PT_AARCH64_MEMTAG_MTE
#define PT_AARCH64_MEMTAG_MTE (PT_LOPROC + 0x2)
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#define VA_MASK 0x00ffffffffffffffULL /* the top byte is the pointer's tag */
#define KEEP_SMALL (64u << 10)     /* a segment this small is kept whole */
#define KEEP_AROUND (64u << 10)    /* of a larger one, this much either side of a kept address */

/* pr_reg's offset in AArch64's struct elf_prstatus, and si_code's and
 * si_addr's in siginfo_t (the kernel's layout; this file also builds on x86) */
#define PRSTATUS_PID 32
#define PRSTATUS_REG 112
#define SIGINFO_CODE 8
#define SIGINFO_ADDR 16

static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static int fail(char *err, size_t n, const char *path, const char *why)
{
    snprintf(err, n, "%s: %s", path, why);
    return -1;
}

/* each note of a PT_NOTE segment: fn(type, desc, descsz) */
static void notes_each(const struct mtb_core *c, const struct mtb_core_seg *s,
                       void (*fn)(struct mtb_core *c, uint32_t type, const unsigned char *d, size_t n), struct mtb_core *out)
{
    const unsigned char *p = c->data + s->offset, *end = p + s->filesz;
    while (p + 12 <= end) {
        uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
        const unsigned char *desc = p + 12 + ((namesz + 3) & ~3u);
        if (desc + descsz > end || desc < p)
            break;
        fn(out, type, desc, descsz);
        p = desc + ((descsz + 3) & ~3u);
    }
}

static void note(struct mtb_core *c, uint32_t type, const unsigned char *d, size_t n)
{
    if (type == NT_PRSTATUS && !c->has_regs && n >= PRSTATUS_REG + 34 * 8) {
        c->pid = (int)rd32(d + PRSTATUS_PID);
        for (int i = 0; i < 34; i++)
            c->regs[i] = rd64(d + PRSTATUS_REG + 8 * (size_t)i);
        c->has_regs = 1;
        c->signo = (int)rd32(d); /* pr_info.si_signo, until NT_SIGINFO says more */
    } else if (type == NT_SIGINFO && !c->has_siginfo && n >= SIGINFO_ADDR + 8) {
        c->signo = (int)rd32(d);
        c->si_code = (int)rd32(d + SIGINFO_CODE);
        c->si_addr = rd64(d + SIGINFO_ADDR);
        c->has_siginfo = 1;
    } else if (type == NT_FILE && !c->files) {
        c->files = d;
        c->files_size = n;
    }
}

int mtb_core_open(const char *path, struct mtb_core *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(err, errlen, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return fail(err, errlen, path, "too short for an ELF file");
    }
    c->size = (size_t)st.st_size;
    c->data = mmap(NULL, c->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (c->data == MAP_FAILED) {
        c->data = NULL;
        return fail(err, errlen, path, strerror(errno));
    }
    Elf64_Ehdr eh;
    memcpy(&eh, c->data, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
        mtb_core_close(c);
        return fail(err, errlen, path, "not a 64-bit little-endian ELF file");
    }
    if (eh.e_type != ET_CORE || eh.e_machine != EM_AARCH64) {
        mtb_core_close(c);
        return fail(err, errlen, path, "not an AArch64 core file (ELF type and machine)");
    }
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > c->size) {
        mtb_core_close(c);
        return fail(err, errlen, path, "its program headers lie past its end (truncated)");
    }
    c->nsegs = eh.e_phnum;
    c->segs = calloc((size_t)c->nsegs + 1, sizeof *c->segs);
    for (int i = 0; i < c->nsegs; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, c->data + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        c->segs[i] = (struct mtb_core_seg){ ph.p_vaddr, ph.p_memsz, ph.p_filesz, ph.p_offset, ph.p_type, ph.p_flags };
        if (ph.p_filesz && (ph.p_offset > c->size || ph.p_filesz > c->size - ph.p_offset)) {
            mtb_core_close(c);
            return fail(err, errlen, path, "a segment lies past the file's end (truncated)");
        }
    }
    for (int i = 0; i < c->nsegs; i++)
        if (c->segs[i].type == PT_NOTE)
            notes_each(c, &c->segs[i], note, c);
    return 0;
}

void mtb_core_close(struct mtb_core *c)
{
    if (c->data)
        munmap(c->data, c->size);
    free(c->segs);
    memset(c, 0, sizeof *c);
}

int mtb_core_tag_segments(const struct mtb_core *c)
{
    int n = 0;
    for (int i = 0; i < c->nsegs; i++)
        n += c->segs[i].type == PT_AARCH64_MEMTAG_MTE;
    return n;
}

int mtb_core_tag(const struct mtb_core *c, uint64_t addr)
{
    addr &= VA_MASK;
    for (int i = 0; i < c->nsegs; i++) {
        const struct mtb_core_seg *s = &c->segs[i];
        if (s->type != PT_AARCH64_MEMTAG_MTE || addr < s->vaddr || addr - s->vaddr >= s->memsz)
            continue;
        uint64_t g = (addr - s->vaddr) / 16;
        if (g / 2 >= s->filesz)
            return -1; /* beyond what was dumped */
        return (c->data[s->offset + g / 2] >> ((g & 1) * 4)) & 0xf;
    }
    return -1;
}

int mtb_core_read(const struct mtb_core *c, uint64_t addr, void *buf, size_t len)
{
    addr &= VA_MASK;
    for (int i = 0; i < c->nsegs; i++) {
        const struct mtb_core_seg *s = &c->segs[i];
        if (s->type != PT_LOAD || addr < s->vaddr || addr - s->vaddr >= s->memsz)
            continue;
        uint64_t off = addr - s->vaddr;
        if (off + len > s->filesz)
            return -1;
        memcpy(buf, c->data + s->offset + off, len);
        return 0;
    }
    return -1;
}

/* the permissions of the PT_LOAD holding addr ("r-xp"), or NULL */
static const char *perms_at(const struct mtb_core *c, uint64_t addr, char *b)
{
    for (int i = 0; i < c->nsegs; i++) {
        const struct mtb_core_seg *s = &c->segs[i];
        if (s->type == PT_LOAD && addr >= s->vaddr && addr - s->vaddr < s->memsz) {
            snprintf(b, 5, "%c%c%cp", s->flags & PF_R ? 'r' : '-', s->flags & PF_W ? 'w' : '-', s->flags & PF_X ? 'x' : '-');
            return b;
        }
    }
    return NULL;
}

/* NT_FILE: count, page size, count x (start, end, page offset), the names */
static void map_lines(const struct mtb_core *c, uint64_t addr, FILE *o)
{
    if (!c->files || c->files_size < 16)
        return;
    uint64_t n = rd64(c->files), page = rd64(c->files + 8);
    if (n > (c->files_size - 16) / 24)
        return;
    const char *name = (const char *)c->files + 16 + n * 24, *end = (const char *)c->files + c->files_size;
    for (uint64_t i = 0; i < n && name < end; i++) {
        const unsigned char *e = c->files + 16 + i * 24;
        uint64_t s = rd64(e), x = rd64(e + 8), off = rd64(e + 16) * page;
        char pb[8];
        const char *perms = perms_at(c, s, pb);
        int holds = addr >= s && addr < x;
        if ((perms && perms[2] == 'x') || holds)
            fprintf(o, "MTEBENCH-MAP %s %llx-%llx %s %08llx 00:00 0 %s\n", holds ? "fault" : "code",
                    (unsigned long long)s, (unsigned long long)x, perms ? perms : "---p", (unsigned long long)off, name);
        name += strnlen(name, (size_t)(end - name)) + 1;
    }
}

char *mtb_core_fault_lines(const struct mtb_core *c, uint64_t addr)
{
    if (!c->has_regs)
        return NULL;
    if (!addr)
        addr = c->si_addr;
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    const uint64_t *r = c->regs, pc = r[32], lr = r[30];
    fprintf(o, "MTEBENCH-FAULT signo=%d code=%d addr=0x%016llx pid=%d pc=0x%016llx lr=0x%016llx\n", c->signo,
            c->si_code, (unsigned long long)addr, c->pid, (unsigned long long)pc, (unsigned long long)lr);
    uint64_t g = (addr & VA_MASK) & ~15ULL, base = g - 16 * 16;
    if (addr && mtb_core_tag_segments(c)) {
        fprintf(o, "MTEBENCH-TAGS base=0x%016llx tags=", (unsigned long long)base);
        for (int i = 0; i < 33; i++) {
            int t = mtb_core_tag(c, base + 16 * (uint64_t)i);
            fputc(t < 0 ? '-' : "0123456789abcdef"[t], o);
        }
        fputc('\n', o);
    }
    fprintf(o, "MTEBENCH-REGS");
    for (int i = 0; i < 31; i++)
        fprintf(o, " x%d=0x%016llx", i, (unsigned long long)r[i]);
    fprintf(o, " sp=0x%016llx pc=0x%016llx pstate=0x%016llx", (unsigned long long)r[31], (unsigned long long)pc,
            (unsigned long long)r[33]);
    uint32_t insn;
    if (!(pc & 3) && mtb_core_read(c, pc, &insn, 4) == 0)
        fprintf(o, " insn=0x%08x", insn);
    fputc('\n', o);
    /* pc, lr, then the frame records' returns from x29 up (as libmtefault walks them) */
    const uint64_t va = 0x0000ffffffffffffULL;
    fprintf(o, "MTEBENCH-STACK pcs=0x%016llx,0x%016llx", (unsigned long long)pc, (unsigned long long)(lr & va));
    uint64_t fp = r[29], rec[2];
    for (int n = 0; n < 16 && fp && !(fp & 7) && mtb_core_read(c, fp, rec, sizeof rec) == 0; n++) {
        uint64_t ret = rec[1] & va;
        if (!ret)
            break;
        fprintf(o, ",0x%016llx", (unsigned long long)ret);
        if (rec[0] <= fp || rec[0] - fp > (1u << 20))
            break;
        fp = rec[0];
    }
    fputc('\n', o);
    map_lines(c, addr & VA_MASK, o);
    fprintf(o, "MTEBENCH-END\n");
    fclose(o);
    return buf;
}

/* ---- slimming ---- */

struct win { uint64_t lo, hi; };

/* the windows of segment s to keep (merged, in order): those of keep[] inside it */
static int windows(const struct mtb_core_seg *s, const uint64_t *keep, int nk, struct win *w)
{
    int n = 0;
    for (int k = 0; k < nk; k++) {
        uint64_t a = keep[k] & VA_MASK;
        if (!a || a < s->vaddr || a - s->vaddr >= s->memsz)
            continue;
        uint64_t lo = a - s->vaddr > KEEP_AROUND ? (a - KEEP_AROUND) & ~4095ULL : s->vaddr;
        uint64_t hi = s->vaddr + s->memsz - a > KEEP_AROUND ? ((a + KEEP_AROUND) + 4095) & ~4095ULL : s->vaddr + s->memsz;
        w[n++] = (struct win){ lo, hi };
    }
    for (int i = 1; i < n; i++) /* sort by lo (a handful) */
        for (int j = i; j > 0 && w[j].lo < w[j - 1].lo; j--) {
            struct win t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m && w[i].lo <= w[m - 1].hi) {
            if (w[i].hi > w[m - 1].hi)
                w[m - 1].hi = w[i].hi;
        } else
            w[m++] = w[i];
    }
    return m;
}

struct out {
    Elf64_Phdr *ph;
    int n, cap;
    struct { uint64_t from, len; } *src; /* each header's bytes in the input */
};

static void add(struct out *o, const Elf64_Phdr *ph, uint64_t from)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->ph = realloc(o->ph, (size_t)o->cap * sizeof *o->ph);
        o->src = realloc(o->src, (size_t)o->cap * sizeof *o->src);
    }
    o->ph[o->n] = *ph;
    o->src[o->n].from = from;
    o->src[o->n].len = ph->p_filesz;
    o->n++;
}

/* a PT_LOAD piece [lo, hi) of s, with its file bytes when with is set */
static void piece(struct out *o, const struct mtb_core_seg *s, uint64_t lo, uint64_t hi, int with)
{
    if (hi <= lo)
        return;
    uint64_t off = lo - s->vaddr, have = off < s->filesz ? s->filesz - off : 0;
    Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = s->flags, .p_vaddr = lo, .p_memsz = hi - lo, .p_align = 4096 };
    ph.p_filesz = with ? (have < hi - lo ? have : hi - lo) : 0;
    add(o, &ph, s->offset + off);
}

int mtb_core_slim(const char *in, const char *outp, uint64_t keep_addr, char *err, size_t errlen)
{
    struct mtb_core c;
    if (mtb_core_open(in, &c, err, errlen) != 0)
        return -1;
    uint64_t keep[3] = { keep_addr ? keep_addr : c.si_addr, c.has_regs ? c.regs[31] : 0, c.has_regs ? c.regs[32] : 0 };
    struct out o = { 0 };
    for (int i = 0; i < c.nsegs; i++) {
        const struct mtb_core_seg *s = &c.segs[i];
        if (s->type != PT_LOAD || s->filesz <= KEEP_SMALL) {
            Elf64_Phdr ph = { .p_type = s->type, .p_flags = s->flags, .p_vaddr = s->vaddr, .p_memsz = s->memsz,
                              .p_filesz = s->filesz, .p_align = s->type == PT_LOAD ? 4096 : s->type == PT_NOTE ? 4 : 0 };
            add(&o, &ph, s->offset);
            continue;
        }
        struct win w[3];
        int nw = windows(s, keep, 3, w);
        uint64_t at = s->vaddr;
        for (int k = 0; k < nw; k++) {
            piece(&o, s, at, w[k].lo, 0);
            piece(&o, s, w[k].lo, w[k].hi, 1);
            at = w[k].hi;
        }
        piece(&o, s, at, s->vaddr + s->memsz, 0);
    }
    /* the layout: the ELF header, the program headers, then each header's bytes in order */
    Elf64_Ehdr eh;
    memcpy(&eh, c.data, sizeof eh);
    int rc = -1;
    if (o.n > 0xfffe) {
        snprintf(err, errlen, "%s: %d program headers: more than an ELF header can count", in, o.n);
        goto done;
    }
    eh.e_phoff = sizeof eh;
    eh.e_phnum = (Elf64_Half)o.n;
    eh.e_shoff = 0;
    eh.e_shnum = 0;
    eh.e_shstrndx = 0;
    uint64_t at = sizeof eh + (uint64_t)o.n * sizeof(Elf64_Phdr);
    for (int i = 0; i < o.n; i++) {
        uint64_t align = o.ph[i].p_type == PT_LOAD && o.ph[i].p_filesz ? 4096 : 8;
        at = (at + align - 1) & ~(align - 1);
        o.ph[i].p_offset = o.ph[i].p_filesz ? at : 0;
        at += o.ph[i].p_filesz;
    }
    char *tmp = mtb_asprintf("%s.tmp", outp);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(tmp);
        goto done;
    }
    int ok = fwrite(&eh, sizeof eh, 1, f) == 1 && fwrite(o.ph, sizeof(Elf64_Phdr), (size_t)o.n, f) == (size_t)o.n;
    for (int i = 0; ok && i < o.n; i++) {
        if (!o.ph[i].p_filesz)
            continue;
        ok = fseeko(f, (off_t)o.ph[i].p_offset, SEEK_SET) == 0 &&
             fwrite(c.data + o.src[i].from, 1, o.ph[i].p_filesz, f) == o.ph[i].p_filesz;
    }
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, outp) == 0)
        rc = 0;
    else {
        snprintf(err, errlen, "%s: %s", outp, strerror(errno ? errno : EIO));
        unlink(tmp);
    }
    free(tmp);
done:
    free(o.ph);
    free(o.src);
    mtb_core_close(&c);
    return rc;
}
