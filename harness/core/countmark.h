/*
 * countmark.h - the guest's side of a counting window (docs/COUNTING.md).
 *
 * Under the vm platform's counting plugin (harness/probe/mtecount.c) the
 * run-time part of Tag Checked is counted only inside windows the guest
 * opens and closes itself: a hint-space NOP, HINT #126, executed at EL0
 * with x0 = MTB_COUNT_MAGIC | command. Anywhere else (no plugin, real
 * hardware, x86) it is a NOP or nothing at all. The plugin counts the open
 * marker out and the close marker in.
 */
#ifndef MTEBENCH_COUNTMARK_H
#define MTEBENCH_COUNTMARK_H

#define MTB_COUNT_MAGIC 0x4d5442430000ull /* "MTBC" << 16 */
#define MTB_COUNT_OPEN 1u
#define MTB_COUNT_CLOSE 2u

static inline void mtb_count_mark(unsigned cmd)
{
#if defined(__aarch64__)
    register unsigned long long x0 __asm__("x0") = MTB_COUNT_MAGIC | cmd;
    __asm__ volatile("hint #126" : : "r"(x0) : "memory");
#else
    (void)cmd;
#endif
}

#endif
