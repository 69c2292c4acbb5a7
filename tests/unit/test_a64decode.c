/*
 * test_a64decode.c - harness/probe/a64decode.c against instruction words
 * made by the cross toolchain (binutils 2.40):
 *   aarch64-linux-gnu-as -march=armv8.5-a+memtag+pauth (+sve2 for the SVE
 *   words, armv8.8-a+mops for CPY/SET/SETG), then aarch64-linux-gnu-objdump -d;
 * each row: the word, objdump's text, the MTE class, the encoding group, the
 * flags (L load, S store, P prefetch, sp base is SP, wb writeback, ro
 * register offset, up unprivileged form, chk a form that may be Tag
 * Checked), the base register (-1 none), the data bytes and the bytes
 * tagged, with DCZID's block 64 bytes and GMID's 256 (QEMU's -cpu max).
 * The expectations are the Arm ARM's (encoding diagrams; the Tag Checked
 * rule of each instruction's pseudocode, e.g. LDR (immediate):
 * tagchecked = wback || n != 31; LDR (literal), STGP, STZG: Unchecked).
 */
#include "probe/a64decode.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

#define G(n) MTB_A64_G_##n

static const struct row {
    uint32_t w;
    const char *text, *mte;
    int group;
    const char *flags;
    int base;
    uint32_t size, tag_bytes;
} rows[] = {
    {0x9adf1020, "irg x0, x1", "irg", G(DP), "", -1, 0, 0},
    {0x9ac213e0, "irg x0, sp, x2", "irg", G(DP), "", -1, 0, 0},
    {0x9ac21420, "gmi x0, x1, x2", "gmi", G(DP), "", -1, 0, 0},
    {0x91810420, "addg x0, x1, #0x10, #0x1", "addg", G(DP), "", -1, 0, 0},
    {0xd1823fff, "subg sp, sp, #0x20, #0xf", "subg", G(DP), "", -1, 0, 0},
    {0x9ac20020, "subp x0, x1, x2", "subp", G(DP), "", -1, 0, 0},
    {0xbac20020, "subps x0, x1, x2", "subps", G(DP), "", -1, 0, 0},
    {0xd9200820, "stg x0, [x1]", "stg", G(TAG), "", 1, 0, 16},
    {0xd9201c20, "stg x0, [x1, #16]!", "stg", G(TAG), "wb", 1, 0, 16},
    {0xd93fe420, "stg x0, [x1], #-32", "stg", G(TAG), "wb", 1, 0, 16},
    {0xd92ffbff, "stg sp, [sp, #4080]", "stg", G(TAG), "sp", 31, 0, 16},
    {0xd9602820, "stzg x0, [x1, #32]", "stzg", G(TAG), "S", 1, 16, 16},
    {0xd9601420, "stzg x0, [x1], #16", "stzg", G(TAG), "S wb", 1, 16, 16},
    {0xd97ffc20, "stzg x0, [x1, #-16]!", "stzg", G(TAG), "S wb", 1, 16, 16},
    {0xd9a00820, "st2g x0, [x1]", "st2g", G(TAG), "", 1, 0, 32},
    {0xd9a02c20, "st2g x0, [x1, #32]!", "st2g", G(TAG), "wb", 1, 0, 32},
    {0xd9a02420, "st2g x0, [x1], #32", "st2g", G(TAG), "wb", 1, 0, 32},
    {0xd9e00820, "stz2g x0, [x1]", "stz2g", G(TAG), "S", 1, 32, 32},
    {0xd9ffcc20, "stz2g x0, [x1, #-64]!", "stz2g", G(TAG), "S wb", 1, 32, 32},
    {0xd9e01420, "stz2g x0, [x1], #16", "stz2g", G(TAG), "S wb", 1, 32, 32},
    {0x69000440, "stgp x0, x1, [x2]", "stgp", G(PAIR), "S", 2, 16, 16},
    {0x69810440, "stgp x0, x1, [x2, #32]!", "stgp", G(PAIR), "S wb", 2, 16, 16},
    {0x68bf8440, "stgp x0, x1, [x2], #-16", "stgp", G(PAIR), "S wb", 2, 16, 16},
    {0xd9a00020, "stgm x0, [x1]", "stgm", G(TAG), "", 1, 0, 256},
    {0xd9200020, "stzgm x0, [x1]", "stzgm", G(TAG), "S", 1, 64, 64},
    {0xd9600020, "ldg x0, [x1]", "ldg", G(TAG), "", 1, 0, 0},
    {0xd9700020, "ldg x0, [x1, #-4096]", "ldg", G(TAG), "", 1, 0, 0},
    {0xd9e00020, "ldgm x0, [x1]", "ldgm", G(TAG), "", 1, 0, 0},
    {0xd50b7460, "dc gva, x0", "dc_gva", G(DC), "", 0, 0, 64},
    {0xd50b7483, "dc gzva, x3", "dc_gzva", G(DC), "S", 3, 64, 64},
    {0xd50b7424, "dc zva, x4", "none", G(DC), "S chk", 4, 64, 0},
    {0xd50b7e25, "dc civac, x5", "none", G(NONE), "", -1, 0, 0},
    {0xf9400020, "ldr x0, [x1]", "none", G(SINGLE), "L chk", 1, 8, 0},
    {0xb9400862, "ldr w2, [x3, #8]", "none", G(SINGLE), "L chk", 3, 4, 0},
    {0x397ffc20, "ldrb w0, [x1, #4095]", "none", G(SINGLE), "L chk", 1, 1, 0},
    {0x794007e0, "ldrh w0, [sp, #2]", "none", G(SINGLE), "L sp", 31, 2, 0},
    {0x39800020, "ldrsb x0, [x1]", "none", G(SINGLE), "L chk", 1, 1, 0},
    {0x79c00020, "ldrsh w0, [x1]", "none", G(SINGLE), "L chk", 1, 2, 0},
    {0xb9800420, "ldrsw x0, [x1, #4]", "none", G(SINGLE), "L chk", 1, 4, 0},
    {0xf9000420, "str x0, [x1, #8]", "none", G(SINGLE), "S chk", 1, 8, 0},
    {0x390003e0, "strb w0, [sp]", "none", G(SINGLE), "S sp", 31, 1, 0},
    {0xf8010c20, "str x0, [x1, #16]!", "none", G(SINGLE), "S wb chk", 1, 8, 0},
    {0xf81f0fe0, "str x0, [sp, #-16]!", "none", G(SINGLE), "S sp wb chk", 31, 8, 0},
    {0xf8408420, "ldr x0, [x1], #8", "none", G(SINGLE), "L wb chk", 1, 8, 0},
    {0xf84107fe, "ldr x30, [sp], #16", "none", G(SINGLE), "L sp wb chk", 31, 8, 0},
    {0xf85f8020, "ldur x0, [x1, #-8]", "none", G(SINGLE), "L chk", 1, 8, 0},
    {0xb81fc3e0, "stur w0, [sp, #-4]", "none", G(SINGLE), "S sp", 31, 4, 0},
    {0xf8626820, "ldr x0, [x1, x2]", "none", G(SINGLE), "L ro chk", 1, 8, 0},
    {0xf8627be0, "ldr x0, [sp, x2, lsl #3]", "none", G(SINGLE), "L sp ro chk", 31, 8, 0},
    {0xb822d820, "str w0, [x1, w2, sxtw #2]", "none", G(SINGLE), "S ro chk", 1, 4, 0},
    {0x38626820, "ldrb w0, [x1, x2]", "none", G(SINGLE), "L ro chk", 1, 1, 0},
    {0xf8400820, "ldtr x0, [x1]", "none", G(SINGLE), "L up chk", 1, 8, 0},
    {0xb8008820, "sttr w0, [x1, #8]", "none", G(SINGLE), "S up chk", 1, 4, 0},
    {0x38400be0, "ldtrb w0, [sp]", "none", G(SINGLE), "L sp up", 31, 1, 0},
    {0xb8800820, "ldtrsw x0, [x1]", "none", G(SINGLE), "L up chk", 1, 4, 0},
    {0xa9400440, "ldp x0, x1, [x2]", "none", G(PAIR), "L chk", 2, 16, 0},
    {0xa8c17bfd, "ldp x29, x30, [sp], #16", "none", G(PAIR), "L sp wb chk", 31, 16, 0},
    {0xa9bf7bfd, "stp x29, x30, [sp, #-16]!", "none", G(PAIR), "S sp wb chk", 31, 16, 0},
    {0xa90107e0, "stp x0, x1, [sp, #16]", "none", G(PAIR), "S sp", 31, 16, 0},
    {0xa8400440, "ldnp x0, x1, [x2]", "none", G(PAIR), "L chk", 2, 16, 0},
    {0xac010440, "stnp q0, q1, [x2, #32]", "none", G(PAIR), "S chk", 2, 32, 0},
    {0x69400440, "ldpsw x0, x1, [x2]", "none", G(PAIR), "L chk", 2, 8, 0},
    {0xadc10400, "ldp q0, q1, [x0, #32]!", "none", G(PAIR), "L wb chk", 0, 32, 0},
    {0x2d4007e0, "ldp s0, s1, [sp]", "none", G(PAIR), "L sp", 31, 8, 0},
    {0xc85f7c20, "ldxr x0, [x1]", "none", G(EXCL), "L chk", 1, 8, 0},
    {0x885fffe0, "ldaxr w0, [sp]", "none", G(EXCL), "L sp", 31, 4, 0},
    {0xc8027c20, "stxr w2, x0, [x1]", "none", G(EXCL), "S chk", 1, 8, 0},
    {0x8802fc20, "stlxr w2, w0, [x1]", "none", G(EXCL), "S chk", 1, 4, 0},
    {0xc87f0440, "ldxp x0, x1, [x2]", "none", G(EXCL), "L chk", 2, 16, 0},
    {0xc8230440, "stxp w3, x0, x1, [x2]", "none", G(EXCL), "S chk", 2, 16, 0},
    {0xc8dffc20, "ldar x0, [x1]", "none", G(EXCL), "L chk", 1, 8, 0},
    {0x889ffc20, "stlr w0, [x1]", "none", G(EXCL), "S chk", 1, 4, 0},
    {0x08dffc20, "ldarb w0, [x1]", "none", G(EXCL), "L chk", 1, 1, 0},
    {0xf8e00041, "ldaddal x0, x1, [x2]", "none", G(ATOMIC), "L S chk", 2, 8, 0},
    {0xb82003e1, "ldadd w0, w1, [sp]", "none", G(ATOMIC), "L S sp", 31, 4, 0},
    {0xf820003f, "stadd x0, [x1]", "none", G(ATOMIC), "L S chk", 1, 8, 0},
    {0xf8e08041, "swpal x0, x1, [x2]", "none", G(ATOMIC), "L S chk", 2, 8, 0},
    {0xf8201041, "ldclr x0, x1, [x2]", "none", G(ATOMIC), "L S chk", 2, 8, 0},
    {0xb8204041, "ldsmax w0, w1, [x2]", "none", G(ATOMIC), "L S chk", 2, 4, 0},
    {0xc8e0fc41, "casal x0, x1, [x2]", "none", G(EXCL), "L S chk", 2, 8, 0},
    {0x08a07c41, "casb w0, w1, [x2]", "none", G(EXCL), "L S chk", 2, 1, 0},
    {0x4860fc82, "caspal x0, x1, x2, x3, [x4]", "none", G(EXCL), "L S chk", 4, 16, 0},
    {0xf8bfc020, "ldapr x0, [x1]", "none", G(ATOMIC), "L chk", 1, 8, 0},
    {0x38bfc020, "ldaprb w0, [x1]", "none", G(ATOMIC), "L chk", 1, 1, 0},
    {0xd9408020, "ldapur x0, [x1, #8]", "none", G(RCPC), "L chk", 1, 8, 0},
    {0x991fc3e0, "stlur w0, [sp, #-4]", "none", G(RCPC), "S sp", 31, 4, 0},
    {0x99800020, "ldapursw x0, [x1]", "none", G(RCPC), "L chk", 1, 4, 0},
    {0x4c407000, "ld1 {v0.16b}, [x0]", "none", G(SIMD), "L chk", 0, 16, 0},
    {0x4cdfa000, "ld1 {v0.16b, v1.16b}, [x0], #32", "none", G(SIMD), "L wb chk", 0, 32, 0},
    {0x4c002c20, "st1 {v0.2d-v3.2d}, [x1]", "none", G(SIMD), "S chk", 1, 64, 0},
    {0x4cc20800, "ld4 {v0.4s-v3.4s}, [x0], x2", "none", G(SIMD), "L wb ro chk", 0, 64, 0},
    {0x0d009000, "st1 {v0.s}[1], [x0]", "none", G(SIMD), "S chk", 0, 4, 0},
    {0x4d40cbe0, "ld1r {v0.4s}, [sp]", "none", G(SIMD), "L sp", 31, 4, 0},
    {0x0dff5820, "ld2 {v0.h, v1.h}[3], [x1], #4", "none", G(SIMD), "L wb chk", 1, 4, 0},
    {0x4d60ec20, "ld4r {v0.2d-v3.2d}, [x1]", "none", G(SIMD), "L chk", 1, 32, 0},
    {0x0c0073e0, "st1 {v0.8b}, [sp]", "none", G(SIMD), "S sp", 31, 8, 0},
    {0x3dc00420, "ldr q0, [x1, #16]", "none", G(SINGLE), "L chk", 1, 16, 0},
    {0xfd0007e0, "str d0, [sp, #8]", "none", G(SINGLE), "S sp", 31, 8, 0},
    {0xbc627820, "ldr s0, [x1, x2, lsl #2]", "none", G(SINGLE), "L ro chk", 1, 4, 0},
    {0x3c5ff020, "ldur b0, [x1, #-1]", "none", G(SINGLE), "L chk", 1, 1, 0},
    {0x3c820c01, "str q1, [x0, #32]!", "none", G(SINGLE), "S wb chk", 0, 16, 0},
    {0xf9800000, "prfm pldl1keep, [x0]", "none", G(SINGLE), "P", 0, 0, 0},
    {0xf8a16813, "prfm pstl2strm, [x0, x1]", "none", G(SINGLE), "P", 0, 0, 0},
    {0xf89f8000, "prfum pldl1keep, [x0, #-8]", "none", G(SINGLE), "P", 0, 0, 0},
    {0xd80000c0, "prfm pldl1keep, lab", "none", G(LITERAL), "P", -1, 0, 0},
    {0x580000a0, "ldr x0, lab", "none", G(LITERAL), "L", -1, 8, 0},
    {0x98000081, "ldrsw x1, lab", "none", G(LITERAL), "L", -1, 4, 0},
    {0x9c000060, "ldr q0, lab", "none", G(LITERAL), "L", -1, 16, 0},
    {0xf8200420, "ldraa x0, [x1]", "none", G(SINGLE), "L chk", 1, 8, 0},
    {0xf8a01c20, "ldrab x0, [x1, #8]!", "none", G(SINGLE), "L wb chk", 1, 8, 0},
    {0xd503201f, "nop", "none", G(NONE), "", -1, 0, 0},
    {0x8b020020, "add x0, x1, x2", "none", G(NONE), "", -1, 0, 0},
    {0x17fffffe, "b lab", "none", G(NONE), "", -1, 0, 0},
    {0xd65f03c0, "ret", "none", G(NONE), "", -1, 0, 0},
    {0xd53b42e0, "mrs x0, tco", "none", G(NONE), "", -1, 0, 0},
    {0xd503419f, "msr tco, #0x1", "none", G(NONE), "", -1, 0, 0},
    {0xd50b7e20, "dc civac, x0", "none", G(NONE), "", -1, 0, 0},
    {0x18000020, "ldr w0, lab", "none", G(LITERAL), "L", -1, 4, 0},
    {0x12345678, ".word 0x12345678", "none", G(NONE), "", -1, 0, 0},
    {0xa5e0a020, "ld1d {z0.d}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa5e24020, "ld1d {z0.d}, p0/z, [x1, x2, lsl #3]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa401a400, "ld1b {z0.b}, p1/z, [x0, #1, mul vl]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xc5e2c020, "ld1d {z0.d}, p0/z, [x1, z2.d, lsl #3]", "none", G(SVE), "L chk", -1, 0, 0},
    {0x8521c020, "ld1w {z0.s}, p0/z, [z1.s, #4]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa4026020, "ldff1b {z0.b}, p0/z, [x1, x2]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa410a020, "ldnf1b {z0.b}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0x84408020, "ld1rb {z0.b}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa4002020, "ld1rqb {z0.b}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa5a0e020, "ld2d {z0.d, z1.d}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xa580e020, "ldnt1d {z0.d}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0x85804020, "ldr z0, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0x85800420, "ldr p0, [x1, #1, mul vl]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xe5e0e020, "st1d {z0.d}, p0, [x1]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe4024020, "st1b {z0.b}, p0, [x1, x2]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe582a020, "st1d {z0.d}, p0, [x1, z2.d]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe561a020, "st1w {z0.s}, p0, [z1.s, #4]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe5b0e020, "st2d {z0.d, z1.d}, p0, [x1]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe590e020, "stnt1d {z0.d}, p0, [x1]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe5804020, "str z0, [x1]", "none", G(SVE), "S chk", -1, 0, 0},
    {0xe58003e0, "str p0, [sp]", "none", G(SVE), "S chk", -1, 0, 0},
    {0x85c00020, "prfb pldl1keep, p0, [x1]", "none", G(SVE), "P", -1, 0, 0},
    {0x8402c020, "prfb pldl1keep, p0, [x1, x2]", "none", G(SVE), "P", -1, 0, 0},
    {0x85c22020, "prfh pldl1keep, p0, [x1, #2, mul vl]", "none", G(SVE), "P", -1, 0, 0},
    {0x84224020, "prfw pldl1keep, p0, [x1, z2.s, uxtw #2]", "none", G(SVE), "P", -1, 0, 0},
    {0xc462e020, "prfd pldl1keep, p0, [x1, z2.d, lsl #3]", "none", G(SVE), "P", -1, 0, 0},
    {0x8400e020, "prfb pldl1keep, p0, [z1.s]", "none", G(SVE), "P", -1, 0, 0},
    {0xc581e020, "prfd pldl1keep, p0, [z1.d, #8]", "none", G(SVE), "P", -1, 0, 0},
    {0xc4628020, "prfb pldl1keep, p0, [x1, z2.d]", "none", G(SVE), "P", -1, 0, 0},
    {0x8502c020, "prfw pldl1keep, p0, [x1, x2, lsl #2]", "none", G(SVE), "P", -1, 0, 0},
    {0x8582c020, "prfd pldl1keep, p0, [x1, x2, lsl #3]", "none", G(SVE), "P", -1, 0, 0},
    {0xa480a020, "ld1sw {z0.d}, p0/z, [x1]", "none", G(SVE), "L chk", -1, 0, 0},
    {0xc5a0e020, "ldff1d {z0.d}, p0/z, [z1.d]", "none", G(SVE), "L chk", -1, 0, 0},
    {0x84014020, "ld1b {z0.s}, p0/z, [x1, z1.s, uxtw]", "none", G(SVE), "L chk", -1, 0, 0},
    {0x04e20020, "add z0.d, z1.d, z2.d", "none", G(NONE), "", -1, 0, 0},
    {0x25221c20, "whilelo p0.b, x1, x2", "none", G(NONE), "", -1, 0, 0},
    {0x19010440, "cpyfp [x0]!, [x1]!, x2!", "none", G(MOPS), "L S wb chk", 0, 0, 0},
    {0x19410440, "cpyfm [x0]!, [x1]!, x2!", "none", G(MOPS), "L S wb chk", 0, 0, 0},
    {0x19810440, "cpyfe [x0]!, [x1]!, x2!", "none", G(MOPS), "L S wb chk", 0, 0, 0},
    {0x1d010440, "cpyp [x0]!, [x1]!, x2!", "none", G(MOPS), "L S wb chk", 0, 0, 0},
    {0x1d014440, "cpypwn [x0]!, [x1]!, x2!", "none", G(MOPS), "L S wb chk", 0, 0, 0},
    {0x1901e440, "cpyfprtn [x0]!, [x1]!, x2!", "none", G(MOPS), "L S wb up chk", 0, 0, 0},
    {0x19c20420, "setp [x0]!, x1!, x2", "none", G(MOPS), "S wb chk", 0, 0, 0},
    {0x19c24420, "setm [x0]!, x1!, x2", "none", G(MOPS), "S wb chk", 0, 0, 0},
    {0x19c28420, "sete [x0]!, x1!, x2", "none", G(MOPS), "S wb chk", 0, 0, 0},
    {0x19c21420, "setpt [x0]!, x1!, x2", "none", G(MOPS), "S wb up chk", 0, 0, 0},
    {0x1dc20420, "setgp [x0]!, x1!, x2", "setg", G(MOPS), "S wb", 0, 0, 0},
    {0x1dc24420, "setgm [x0]!, x1!, x2", "setg", G(MOPS), "S wb", 0, 0, 0},
    {0x1dc28420, "setge [x0]!, x1!, x2", "setg", G(MOPS), "S wb", 0, 0, 0},
    {0x1dc22420, "setgpn [x0]!, x1!, x2", "setg", G(MOPS), "S wb", 0, 0, 0},
};

static int has(const char *flags, const char *f)
{
    size_t n = strlen(f);
    for (const char *p = flags; (p = strstr(p, f)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static void check_row(const struct row *r, const struct mtb_a64_params *par)
{
    struct mtb_a64_insn d;
    char got[64];

    mtb_a64_decode(r->w, par, &d);
    snprintf(got, sizeof got, "%s%s%s%s%s%s%s%s", d.load ? "L " : "", d.store ? "S " : "",
             d.prefetch ? "P " : "", d.base_sp ? "sp " : "", d.wback ? "wb " : "",
             d.regoff ? "ro " : "", d.unpriv ? "up " : "", d.checked_form ? "chk " : "");
    int flags_ok = has(r->flags, "L") == d.load && has(r->flags, "S") == d.store &&
                   has(r->flags, "P") == d.prefetch && has(r->flags, "sp") == d.base_sp &&
                   has(r->flags, "wb") == d.wback && has(r->flags, "ro") == d.regoff &&
                   has(r->flags, "up") == d.unpriv && has(r->flags, "chk") == d.checked_form;
    ok(strcmp(mtb_a64_mte_name(d.mte), r->mte) == 0 && d.group == r->group && flags_ok &&
           d.base == r->base && d.size == r->size && d.tag_bytes == r->tag_bytes,
       "%08x %-34s %s, %s, [%s], base %d, %u bytes, %u tagged (got %s, %s, [%s], base %d, %u, %u)",
       r->w, r->text, r->mte, mtb_a64_group_name(r->group), r->flags, r->base, r->size,
       r->tag_bytes, mtb_a64_mte_name(d.mte), mtb_a64_group_name(d.group), got, d.base, d.size,
       d.tag_bytes);
}

/* Every class is reached by some row, by name. */
static void check_classes(void)
{
    for (int c = 0; c < MTB_A64_MTE_NCLASS; c++) {
        int seen = 0;
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            seen += strcmp(rows[i].mte, mtb_a64_mte_name(c)) == 0;
        ok(seen > 0, "class %s decoded from %d words", mtb_a64_mte_name(c), seen);
    }
    ok(strcmp(mtb_a64_mte_name(MTB_A64_MTE_NCLASS), "?") == 0 && strcmp(mtb_a64_mte_name(-1), "?") == 0,
       "a class out of range is named ?");
    ok(mtb_a64_mte_sets_tags(MTB_A64_MTE_STG) && mtb_a64_mte_sets_tags(MTB_A64_MTE_DC_GZVA) &&
           mtb_a64_mte_sets_tags(MTB_A64_MTE_SETG) && !mtb_a64_mte_sets_tags(MTB_A64_MTE_IRG) &&
           !mtb_a64_mte_sets_tags(MTB_A64_MTE_LDG) && !mtb_a64_mte_sets_tags(MTB_A64_MTE_LDGM),
       "the tag-setting classes are STG..SETG; IRG and the tag loads set none");
}

/* The bulk forms take their size from the CPU's block sizes. */
static void check_params(void)
{
    struct mtb_a64_params small = {32, 16};
    struct mtb_a64_insn d;

    mtb_a64_decode(0xd50b7483, &small, &d); /* dc gzva, x3 */
    ok(d.tag_bytes == 32 && d.size == 32, "DC GZVA tags and zeroes DCZID's block (32 bytes here)");
    mtb_a64_decode(0xd9200020, &small, &d); /* stzgm x0, [x1] */
    ok(d.tag_bytes == 32 && d.size == 32, "STZGM tags and zeroes DCZID's block too");
    mtb_a64_decode(0xd9a00020, &small, &d); /* stgm x0, [x1] */
    ok(d.tag_bytes == 16 && d.size == 0, "STGM tags GMID's block (16 bytes here), no data");
    mtb_a64_decode(0xd50b7424, &small, &d); /* dc zva, x4 */
    ok(d.size == 32 && d.tag_bytes == 0 && d.checked_form, "DC ZVA: a checked store of the block");
}

/* Words outside what is decoded: unallocated tag forms, reserved words. */
static void check_unallocated(void)
{
    static const uint32_t none[] = {
        0xd9a01020, /* STGM with imm9 != 0: unallocated */
        0xd9e01020, /* LDGM with imm9 != 0 */
        0xd9201020, /* STZGM with imm9 != 0 */
        0x68400440, /* opc 01, L 1, no-allocate pair: unallocated */
        0xe9400440, /* opc 11 pair: unallocated */
        0xf8c00420, /* size 11, opc 11, post-index: unallocated */
        0xf8800c20, /* PRFM's encoding with pre-index: unallocated */
        0x00000000, /* UDF #0 */
        0xd4000001, /* SVC #0 */
    };
    struct mtb_a64_params par = {64, 256};
    struct mtb_a64_insn d;

    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        mtb_a64_decode(none[i], &par, &d);
        ok(d.group == MTB_A64_G_NONE && d.mte == MTB_A64_MTE_NONE && !d.load && !d.store,
           "%08x is no memory instruction (group %s)", none[i], mtb_a64_group_name(d.group));
    }
}

/* What must hold of any word (a pseudo-random sweep of 2^21 words). */
static void check_sweep(void)
{
    struct mtb_a64_params par = {64, 256};
    struct mtb_a64_insn d;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned bad = 0, mem = 0, first = 0;

    for (unsigned i = 0; i < (1u << 21); i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t w = (uint32_t)(x >> 32);
        mtb_a64_decode(w, &par, &d);
        int wrong = (d.prefetch && (d.load || d.store || d.checked_form)) ||
                    (d.checked_form && !d.load && !d.store) ||
                    (d.group == MTB_A64_G_NONE && (d.load || d.store || d.prefetch || d.mte)) ||
                    (d.group != MTB_A64_G_NONE && d.group != MTB_A64_G_DP && d.group != MTB_A64_G_TAG &&
                     d.group != MTB_A64_G_DC && !d.load && !d.store && !d.prefetch) ||
                    (d.base_sp && d.base != 31) || d.base < -1 || d.base > 31 ||
                    (mtb_a64_mte_sets_tags(d.mte) && d.checked_form) ||
                    (d.mte != MTB_A64_MTE_NONE && d.mte != MTB_A64_MTE_SETG &&
                     mtb_a64_mte_sets_tags(d.mte) && d.tag_bytes == 0) ||
                    (d.tag_bytes && !mtb_a64_mte_sets_tags(d.mte));
        if (wrong && !bad++)
            first = w;
        mem += d.load || d.store;
    }
    ok(bad == 0, "2^21 pseudo-random words: the invariants hold (%u broken, first %08x)", bad, first);
    ok(mem > (1u << 21) / 8, "and a share of them are data accesses (%u)", mem);
}

/* The wait-loop rule (probe/a64decode.h) on a simulated stream: counters
 * c[0] instructions, c[1] loads. */
static uint64_t wc[2], wspin[2];
static struct mtb_a64_wait wst;
static void run_insns(uint64_t n, uint64_t loads) { wc[0] += n, wc[1] += loads; }
static void hint(uint64_t pc) { run_insns(1, 0), mtb_a64_wait_step(&wst, pc, 1, wc, wspin, 2); }
/* Linux's smp_cond_load_acquire on arm64 waiting `iters` times: LDAR, ANDS,
 * B.NE, then __cmpwait (SEVL, WFE, LDXR, EOR, CBNZ, WFE) and round again;
 * 100 instructions before it, 50 after */
static void lock_wait(int iters)
{
    run_insns(100, 30);
    for (int i = 0; i < iters; i++) {
        run_insns(4, 1); /* LDAR, ANDS, B.NE, SEVL */
        hint(0xffff800080001000ull);
        run_insns(3, 1); /* LDXR, EOR, CBNZ */
        hint(0xffff800080001010ull);
    }
    run_insns(3, 1); /* LDAR, ANDS, B.NE: free */
    run_insns(50, 10);
}

static void check_waits(void)
{
    ok(mtb_a64_wait_hint(0xd503205f) && mtb_a64_wait_hint(0xd503203f) && mtb_a64_wait_hint(0xd5031003) &&
           !mtb_a64_wait_hint(0xd503207f) && !mtb_a64_wait_hint(0xd503201f),
       "wait hints: WFE, YIELD, WFET; not WFI or NOP");
    uint64_t outside[6], spin_insns[6], spin_loads[6];
    const int iters[6] = { 1, 2, 3, 10, 1000, 100000 };
    for (int i = 0; i < 6; i++) {
        memset(wc, 0, sizeof wc), memset(wspin, 0, sizeof wspin);
        mtb_a64_wait_reset(&wst);
        lock_wait(iters[i]);
        outside[i] = wc[0] - wspin[0];
        spin_insns[i] = wspin[0];
        spin_loads[i] = wspin[1];
    }
    ok(spin_insns[0] == 0 && outside[0] == 100 + 9 + 3 + 50, "one wait, no repeat: nothing is spin (%llu outside)",
       (unsigned long long)outside[0]);
    int same = 1, grows = 1;
    for (int i = 1; i < 6; i++) {
        same &= outside[i] == outside[1];
        grows &= spin_insns[i] == 9ull * (uint64_t)(iters[i] - 1) + 4 && spin_loads[i] == 2ull * (uint64_t)(iters[i] - 1) + 1;
    }
    ok(same, "what ran outside the loop's repeats is the same however long it waited (%llu for 2 to 100000 waits)",
       (unsigned long long)outside[1]);
    ok(grows, "the repeats are spin, counted once though the loop has two hints (100000 waits: %llu instructions, "
       "%llu loads)", (unsigned long long)spin_insns[5], (unsigned long long)spin_loads[5]);
    /* the same lock waited for twice, 1000 instructions of work between */
    memset(wc, 0, sizeof wc), memset(wspin, 0, sizeof wspin);
    mtb_a64_wait_reset(&wst);
    lock_wait(5);
    run_insns(1000, 200);
    lock_wait(5);
    ok(wc[0] - wspin[0] == 2 * outside[1] + 1000, "two waits for one lock, work between: the work is not spin");
    /* a reset (a switch, an exception) between two hints: no repeat spans it */
    memset(wc, 0, sizeof wc), memset(wspin, 0, sizeof wspin);
    mtb_a64_wait_reset(&wst);
    hint(0x1000);
    mtb_a64_wait_reset(&wst);
    run_insns(3, 0);
    hint(0x1000);
    ok(wspin[0] == 0, "a reset between two hints at one address: no repeat");
    hint(0x1000);
    ok(wspin[0] == 1, "... then one");
    run_insns(MTB_A64_SPIN_MAX, 0);
    hint(0x1000);
    ok(wspin[0] == 1, "hints more than MTB_A64_SPIN_MAX instructions apart: no repeat");
}

int main(void)
{
    struct mtb_a64_params par = {64, 256};

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_row(&rows[i], &par);
    check_classes();
    check_params();
    check_unallocated();
    check_sweep();
    check_waits();
    return done_testing();
}
