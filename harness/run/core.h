/* core.h - an AArch64 Linux core file with its memory tags: the kernel
 * writes a PT_AARCH64_MEMTAG_MTE segment beside the PT_LOAD of every
 * PROT_MTE mapping (Documentation/arch/arm64/memory-tagging-extension.rst,
 * "Core dump support": two 4-bit tags a byte, the lower nibble first). Read
 * here for a fault report (the fault, the registers, the tags around the
 * address, the stack's frame records, the mapped files), and slimmed for
 * keeping: a core of the same layout that gdb still reads, with the tags
 * and notes whole and the memory near the fault and the stack only. */
#ifndef MTB_CORE_H
#define MTB_CORE_H
#include <stddef.h>
#include <stdint.h>

struct mtb_core_seg {
    uint64_t vaddr, memsz, filesz, offset;
    uint32_t type, flags;
};

struct mtb_core {
    unsigned char *data; /* the file, mapped */
    size_t size;
    struct mtb_core_seg *segs;
    int nsegs;
    /* the thread that took the signal (the first NT_PRSTATUS) */
    int pid, signo, si_code, has_siginfo;
    uint64_t si_addr;
    uint64_t regs[34]; /* x0..x30, sp, pc, pstate */
    int has_regs;
    const unsigned char *files; /* NT_FILE's descriptor, or NULL */
    size_t files_size;
};

/* path's core read (mapped). 0, or -1 with err saying why (not a file, not
 * an ELF core, not AArch64, truncated). */
int mtb_core_open(const char *path, struct mtb_core *c, char *err, size_t errlen);
void mtb_core_close(struct mtb_core *c);

/* the number of PT_AARCH64_MEMTAG_MTE segments */
int mtb_core_tag_segments(const struct mtb_core *c);

/* the memory tag of the granule holding addr (its top byte ignored), or -1
 * when no tag segment covers it (not PROT_MTE, or not dumped) */
int mtb_core_tag(const struct mtb_core *c, uint64_t addr);

/* copy len bytes at addr out of the core's memory; 0, or -1 where a byte
 * is not in it (a segment not dumped, or slimmed away) */
int mtb_core_read(const struct mtb_core *c, uint64_t addr, void *buf, size_t len);

/* The fault as libmtefault's lines (run/faultrep.c reads them): the fault
 * (NT_SIGINFO; the address given instead when addr is nonzero), the tags of
 * the 33 granules around it from the tag segments, the registers, the frame
 * records' returns read from the dumped stack, the mapped files. Free it.
 * NULL when the core holds no signalled thread. */
char *mtb_core_fault_lines(const struct mtb_core *c, uint64_t addr);

/* Write a slimmed copy of in to out: every program header and note kept,
 * every tag segment whole; of the memory, the segments holding keep (the
 * fault's address; 0: the core's own si_addr), the faulting thread's sp
 * and pc, and any segment of at most 64 KiB; a larger segment holding keep
 * keeps the 64 KiB around it, the rest of it a segment with no file bytes
 * (read as zeros). 0, or -1 with err. */
int mtb_core_slim(const char *in, const char *out, uint64_t keep, char *err, size_t errlen);
#endif
