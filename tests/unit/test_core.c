/* test_core.c - reading and slimming an AArch64 core with memory tags
 * (run/core.c) on a core written here as the kernel lays one out: its notes
 * (NT_PRSTATUS, NT_SIGINFO, NT_FILE), a small and a large PT_LOAD, and the
 * large one's PT_AARCH64_MEMTAG_MTE segment (two tags a byte, the lower
 * nibble first). A real kernel's core, checked against gdb's reading of
 * it, is core-tags.t's. */
#include "run/core.h"
#include "run/faultrep.h"
#include "tap.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define A_VA 0x10000ULL   /* 4 KiB: the stack */
#define B_VA 0x100000ULL  /* 256 KiB, PROT_MTE: the heap */
#define B_SZ (256u << 10)
#define FAULT (0x0300000000000000ULL | (B_VA + 0x20010)) /* granule 0x2001 */

static unsigned char *put_note(unsigned char *p, uint32_t type, const char *name, const void *desc, uint32_t n)
{
    uint32_t h[3] = { (uint32_t)strlen(name) + 1, n, type };
    memcpy(p, h, 12);
    p += 12;
    memcpy(p, name, h[0]);
    p += (h[0] + 3) & ~3u;
    memcpy(p, desc, n);
    return p + ((n + 3) & ~3u);
}

/* the core at path; its size */
static size_t write_core(const char *path)
{
    unsigned char notes[2048] = { 0 }, *p = notes;
    unsigned char prs[392] = { 0 };
    uint32_t pid = 77, sig = 11;
    memcpy(prs, &sig, 4);
    memcpy(prs + 32, &pid, 4);
    uint64_t regs[34] = { 0 };
    regs[29] = A_VA + 0x100;  /* fp: a frame record in the stack */
    regs[30] = 0x401234;      /* lr */
    regs[31] = A_VA + 0x80;   /* sp */
    regs[32] = 0x400100;      /* pc: not in the core (text is not dumped) */
    memcpy(prs + 112, regs, sizeof regs);
    p = put_note(p, NT_PRSTATUS, "CORE", prs, sizeof prs);
    unsigned char si[128] = { 0 };
    int code = 9;
    uint64_t addr = FAULT;
    memcpy(si, &sig, 4);
    memcpy(si + 8, &code, 4);
    memcpy(si + 16, &addr, 8);
    p = put_note(p, 0x53494749, "CORE", si, sizeof si);
    unsigned char fl[64] = { 0 };
    uint64_t nf[5] = { 1, 4096, 0x400000, 0x401000, 0 };
    memcpy(fl, nf, sizeof nf);
    memcpy(fl + sizeof nf, "/bin/x", 7);
    p = put_note(p, 0x46494c45, "CORE", fl, sizeof nf + 7);
    size_t nsz = (size_t)(p - notes);

    Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = EM_AARCH64, .e_version = EV_CURRENT, .e_phoff = sizeof eh,
                      .e_ehsize = sizeof eh, .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 5 };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    uint64_t off = 4096;
    Elf64_Phdr ph[5] = {
        { .p_type = PT_NOTE, .p_offset = off, .p_filesz = nsz },
        { .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = off + 4096, .p_vaddr = A_VA, .p_filesz = 4096, .p_memsz = 4096 },
        { .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = off + 8192, .p_vaddr = B_VA, .p_filesz = B_SZ, .p_memsz = B_SZ },
        { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0x400000, .p_filesz = 0, .p_memsz = 4096 },
        { .p_type = PT_LOPROC + 2, .p_offset = off + 8192 + B_SZ, .p_vaddr = B_VA, .p_filesz = B_SZ / 32, .p_memsz = B_SZ },
    };
    FILE *f = fopen(path, "w");
    fwrite(&eh, sizeof eh, 1, f);
    fwrite(ph, sizeof ph, 1, f);
    fseek(f, (long)off, SEEK_SET);
    fwrite(notes, nsz, 1, f);
    unsigned char a[4096];
    for (int i = 0; i < 4096; i++)
        a[i] = (unsigned char)i;
    uint64_t rec[2] = { 0, 0x0000000000405678 }; /* the frame record at fp: the caller's return */
    memcpy(a + 0x100, rec, sizeof rec);
    fseek(f, (long)(off + 4096), SEEK_SET);
    fwrite(a, sizeof a, 1, f);
    unsigned char *b = malloc(B_SZ);
    for (size_t i = 0; i < B_SZ; i++)
        b[i] = (unsigned char)(i >> 4);
    fwrite(b, B_SZ, 1, f);
    /* the tags: granule g's is g % 16 (even g in the low nibble) */
    for (size_t i = 0; i < B_SZ / 32; i++)
        b[i] = (unsigned char)(((2 * i) % 16) | (((2 * i + 1) % 16) << 4));
    fwrite(b, B_SZ / 32, 1, f);
    free(b);
    long end = ftell(f);
    fclose(f);
    return (size_t)end;
}

int main(void)
{
    char in[] = "/tmp/test_core.XXXXXX";
    close(mkstemp(in));
    char *out = malloc(strlen(in) + 6);
    sprintf(out, "%s.slim", in);
    size_t full = write_core(in);
    char err[512];
    struct mtb_core c;
    ok(mtb_core_open(in, &c, err, sizeof err) == 0, "the core opens (%s)", err);
    ok(c.pid == 77 && c.signo == 11 && c.si_code == 9 && c.si_addr == FAULT && c.has_regs && c.has_siginfo,
       "the signalled thread: pid, SIGSEGV, SEGV_MTESERR, the tagged address (%d %d %d %llx)", c.pid, c.signo, c.si_code,
       (unsigned long long)c.si_addr);
    ok(c.regs[31] == A_VA + 0x80 && c.regs[32] == 0x400100, "its registers from pr_reg (sp, pc)");
    ok(mtb_core_tag_segments(&c) == 1, "one tag segment");
    int good = 1;
    for (uint64_t g = 0; g < 40; g++)
        good &= mtb_core_tag(&c, B_VA + 16 * g) == (int)(g % 16) && mtb_core_tag(&c, B_VA + 16 * g + 15) == (int)(g % 16);
    ok(good, "each granule's tag: the lower nibble first, the same tag through its 16 bytes");
    ok(mtb_core_tag(&c, FAULT) == 1 && mtb_core_tag(&c, FAULT & 0x00ffffffffffffffULL) == 1,
       "the address's tag, its pointer tag ignored (granule 0x2001: 1)");
    ok(mtb_core_tag(&c, A_VA) == -1 && mtb_core_tag(&c, B_VA + B_SZ) == -1, "no tag outside the tagged mapping");
    unsigned char b4[4];
    ok(mtb_core_read(&c, B_VA + 0x123, b4, 4) == 0 && b4[0] == 0x12 && mtb_core_read(&c, 0x400100, b4, 4) == -1,
       "memory read from a dumped segment, not from one with no bytes");
    char *lines = mtb_core_fault_lines(&c, 0);
    ok(lines && strstr(lines, "MTEBENCH-FAULT signo=11 code=9 addr=0x0300000000120010 pid=77 pc=0x0000000000400100"),
       "the fault line from the core's siginfo");
    ok(lines && strstr(lines, "MTEBENCH-TAGS base=0x000000000011ff10 tags=123456789abcdef0123456789abcdef01"),
       "the 33 granules' tags around the address");
    ok(lines && strstr(lines, "MTEBENCH-STACK pcs=0x0000000000400100,0x0000000000401234,0x0000000000405678\n"),
       "pc, lr and the frame record's return read from the dumped stack");
    ok(lines && strstr(lines, "MTEBENCH-MAP code 400000-401000 r-xp 00000000 00:00 0 /bin/x\n"),
       "the mapped file, executable, from NT_FILE");
    json_t *f = lines ? mtb_fault_parse(lines) : NULL;
    ok(f && json_integer_value(json_object_get(f, "memory_tag")) == 1 && json_is_true(json_object_get(f, "tag_check")),
       "faultrep reads the lines: a tag-check fault, memory tag 1");
    json_decref(f);
    free(lines);
    mtb_core_close(&c);

    ok(mtb_core_slim(in, out, 0, err, sizeof err) == 0, "slimmed (%s)", err);
    struct stat st;
    stat(out, &st);
    ok(mtb_core_open(out, &c, err, sizeof err) == 0, "the slimmed core opens");
    ok((size_t)st.st_blocks * 512 < full, "it takes less room (%lld bytes allocated of %zu)", (long long)st.st_blocks * 512,
       full);
    good = mtb_core_tag_segments(&c) == 1;
    for (uint64_t g = 0; g < B_SZ / 16; g += 97)
        good &= mtb_core_tag(&c, B_VA + 16 * g) == (int)(g % 16);
    ok(good, "every tag kept");
    ok(mtb_core_read(&c, FAULT, b4, 1) == 0 && b4[0] == (unsigned char)(0x20010 >> 4) &&
       mtb_core_read(&c, FAULT + 0xf000, b4, 1) == 0,
       "the memory around the address kept");
    ok(mtb_core_read(&c, B_VA, b4, 1) == -1 && mtb_core_read(&c, B_VA + B_SZ - 1, b4, 1) == -1,
       "the large segment's far parts dropped (no bytes)");
    ok(mtb_core_read(&c, A_VA + 0x100, b4, 1) == 0, "a small segment kept whole (the stack)");
    ok(c.pid == 77 && c.si_addr == FAULT, "the notes kept");
    mtb_core_close(&c);

    ok(mtb_core_open("/etc/hostname", &c, err, sizeof err) == -1 && (strstr(err, "not a 64-bit") || strstr(err, "too short")),
       "not an ELF file: refused, named (%s)", err);
    truncate(in, 200);
    ok(mtb_core_open(in, &c, err, sizeof err) == -1 && strstr(err, "truncated"), "a truncated core: named (%s)", err);
    unlink(in);
    unlink(out);
    free(out);
    return done_testing();
}
