/*
 * a64decode - what one A64 instruction word does to memory and to tags
 * (a64decode.h says what it returns; docs/COUNTING.md what it covers).
 *
 * Field names follow the Arm ARM's encoding diagrams: size = <31:30>,
 * V = <26> (SIMD&FP register), opc = <23:22>, Rn = <9:5>, Rt = <4:0>.
 */
#include "probe/a64decode.h"

#include <string.h>

static inline uint32_t bits(uint32_t w, int hi, int lo)
{
    return (w >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static const char *const mte_names[] = {
#define MTB_A64_MTE_NAME(n, s) s,
    MTB_A64_MTE_CLASSES(MTB_A64_MTE_NAME)
#undef MTB_A64_MTE_NAME
};
static const char *const group_names[] = {
#define MTB_A64_GROUP_NAME(n, s) s,
    MTB_A64_GROUPS(MTB_A64_GROUP_NAME)
#undef MTB_A64_GROUP_NAME
};

const char *mtb_a64_mte_name(int cls)
{
    return cls >= 0 && cls < MTB_A64_MTE_NCLASS ? mte_names[cls] : "?";
}

const char *mtb_a64_group_name(int group)
{
    return group >= 0 && group < MTB_A64_G_NGROUP ? group_names[group] : "?";
}

int mtb_a64_mte_sets_tags(int cls)
{
    return cls >= MTB_A64_MTE_STG && cls <= MTB_A64_MTE_SETG;
}

/* A data access through base register RN: the SP rule of the Arm ARM's
 * per-instruction pseudocode (tagchecked = wback || n != 31 for immediate
 * offsets; a register offset is always checked). */
static void data(struct mtb_a64_insn *d, int group, int load, int store, uint32_t rn,
                 int wback, int regoff, uint32_t size)
{
    d->group = (uint8_t)group;
    d->load = (uint8_t)load;
    d->store = (uint8_t)store;
    d->base = (int8_t)rn;
    d->base_sp = rn == 31;
    d->wback = (uint8_t)wback;
    d->regoff = (uint8_t)regoff;
    d->size = size;
    d->checked_form = wback || regoff || rn != 31;
}

static void prefetch(struct mtb_a64_insn *d, int group, int base)
{
    d->group = (uint8_t)group;
    d->prefetch = 1;
    d->base = (int8_t)base;
    d->base_sp = base == 31;
}

/* Tag arithmetic: IRG, GMI, SUBP, SUBPS, ADDG, SUBG (no memory). */
static int decode_dp(uint32_t w, struct mtb_a64_insn *d)
{
    static const struct { uint32_t mask, val; uint8_t cls; } dp[] = {
        {0xffe0fc00, 0x9ac01000, MTB_A64_MTE_IRG},
        {0xffe0fc00, 0x9ac01400, MTB_A64_MTE_GMI},
        {0xffe0fc00, 0x9ac00000, MTB_A64_MTE_SUBP},
        {0xffe0fc00, 0xbac00000, MTB_A64_MTE_SUBPS},
        {0xffc0c000, 0x91800000, MTB_A64_MTE_ADDG},
        {0xffc0c000, 0xd1800000, MTB_A64_MTE_SUBG},
    };
    for (unsigned i = 0; i < sizeof dp / sizeof dp[0]; i++)
        if ((w & dp[i].mask) == dp[i].val) {
            d->group = MTB_A64_G_DP;
            d->mte = dp[i].cls;
            return 1;
        }
    return 0;
}

/* DC ZVA (a Tag Checked data store of a block), DC GVA, DC GZVA. */
static int decode_dc(uint32_t w, const struct mtb_a64_params *p, struct mtb_a64_insn *d)
{
    uint32_t op = w & 0xffffffe0, rt = bits(w, 4, 0);

    if (op != 0xd50b7420 && op != 0xd50b7460 && op != 0xd50b7480)
        return 0;
    d->group = MTB_A64_G_DC;
    d->base = (int8_t)rt; /* Xt: 31 is XZR here, never SP */
    if (op == 0xd50b7420) { /* DC ZVA */
        d->store = 1;
        d->size = p->dcz_bytes;
        d->checked_form = 1;
        return 1;
    }
    d->mte = op == 0xd50b7460 ? MTB_A64_MTE_DC_GVA : MTB_A64_MTE_DC_GZVA;
    d->tag_bytes = p->dcz_bytes;
    if (d->mte == MTB_A64_MTE_DC_GZVA) {
        d->store = 1;
        d->size = p->dcz_bytes;
    }
    return 1;
}

/* The memory-tag group: (w & 0xff200000) == 0xd9200000. */
static void decode_tag(uint32_t w, const struct mtb_a64_params *p, struct mtb_a64_insn *d)
{
    static const uint8_t bulk[4] = {MTB_A64_MTE_STZGM, MTB_A64_MTE_LDG, MTB_A64_MTE_STGM,
                                    MTB_A64_MTE_LDGM};
    static const uint8_t one[4] = {MTB_A64_MTE_STG, MTB_A64_MTE_STZG, MTB_A64_MTE_ST2G,
                                   MTB_A64_MTE_STZ2G};
    uint32_t opc = bits(w, 23, 22), op2 = bits(w, 11, 10), imm9 = bits(w, 20, 12);
    uint32_t rn = bits(w, 9, 5);

    if (op2 == 0) {
        if (opc != 1 && imm9 != 0)
            return; /* unallocated */
        d->mte = bulk[opc];
    } else {
        d->mte = one[opc];
        d->wback = op2 != 2; /* 01 post-index, 11 pre-index, 10 signed offset */
    }
    d->group = MTB_A64_G_TAG;
    d->base = (int8_t)rn;
    d->base_sp = rn == 31;
    switch (d->mte) {
    case MTB_A64_MTE_STG: d->tag_bytes = 16; break;
    case MTB_A64_MTE_ST2G: d->tag_bytes = 32; break;
    case MTB_A64_MTE_STZG: d->tag_bytes = d->size = 16; d->store = 1; break;
    case MTB_A64_MTE_STZ2G: d->tag_bytes = d->size = 32; d->store = 1; break;
    case MTB_A64_MTE_STGM: d->tag_bytes = p->gm_bytes; break;
    case MTB_A64_MTE_STZGM: d->tag_bytes = d->size = p->dcz_bytes; d->store = 1; break;
    default: break; /* LDG, LDGM: tags read, none set, no data */
    }
}

/* Load/store register pair, and STGP: (w & 0x38000000) == 0x28000000. */
static void decode_pair(uint32_t w, struct mtb_a64_insn *d)
{
    uint32_t opc = bits(w, 31, 30), v = bits(w, 26, 26), mode = bits(w, 24, 23);
    uint32_t l = bits(w, 22, 22), rn = bits(w, 9, 5), size;
    int wback = mode == 1 || mode == 3;

    if (v) {
        if (opc == 3)
            return;
        size = 2u * (4u << opc);
    } else if (opc == 0) {
        size = 8;
    } else if (opc == 2) {
        size = 16;
    } else if (opc == 1 && mode != 0) {
        if (!l) { /* STGP: tag one granule, store the pair into it */
            data(d, MTB_A64_G_PAIR, 0, 1, rn, wback, 0, 16);
            d->mte = MTB_A64_MTE_STGP;
            d->tag_bytes = 16;
            d->checked_form = 0;
            return;
        }
        size = 8; /* LDPSW */
    } else {
        return;
    }
    data(d, MTB_A64_G_PAIR, l, !l, rn, wback, 0, size);
}

/* Exclusive, ordered, compare-and-swap: (w & 0x3f000000) == 0x08000000. */
static void decode_excl(uint32_t w, struct mtb_a64_insn *d)
{
    uint32_t size = bits(w, 31, 30), o2 = bits(w, 23, 23), l = bits(w, 22, 22);
    uint32_t o1 = bits(w, 21, 21), rn = bits(w, 9, 5);

    if (o1 && !o2 && (size & 2)) /* LDXP/LDAXP/STXP/STLXP */
        data(d, MTB_A64_G_EXCL, l, !l, rn, 0, 0, 2u * (1u << size));
    else if (o1 && !o2) /* CASP family (size 0x): Rt2 must be 11111 */
        data(d, MTB_A64_G_EXCL, 1, 1, rn, 0, 0, 2u * (4u << size));
    else if (o1 && o2) /* CAS family */
        data(d, MTB_A64_G_EXCL, 1, 1, rn, 0, 0, 1u << size);
    else /* LDXR/LDAXR/STXR/STLXR, LDAR/LDLAR/STLR/STLLR */
        data(d, MTB_A64_G_EXCL, l, !l, rn, 0, 0, 1u << size);
}

/* LSE atomics, SWP, LDAPR, LD64B/ST64B: bit 21 = 1, <11:10> = 00. */
static void decode_atomic(uint32_t w, struct mtb_a64_insn *d)
{
    uint32_t size = bits(w, 31, 30), o3 = bits(w, 15, 15), op = bits(w, 14, 12);
    uint32_t rn = bits(w, 9, 5);

    if (bits(w, 26, 26))
        return;
    if (!o3 || op == 0) /* LD<op> (ST<op> aliases too), SWP */
        data(d, MTB_A64_G_ATOMIC, 1, 1, rn, 0, 0, 1u << size);
    else if (op == 4) /* LDAPR */
        data(d, MTB_A64_G_ATOMIC, 1, 0, rn, 0, 0, 1u << size);
    else if (op >= 1 && op <= 3 && size == 3) /* ST64B, ST64BV0, ST64BV */
        data(d, MTB_A64_G_ATOMIC, 0, 1, rn, 0, 0, 64);
    else if (op == 5 && size == 3) /* LD64B */
        data(d, MTB_A64_G_ATOMIC, 1, 0, rn, 0, 0, 64);
}

/* Load/store register: (w & 0x3a000000) == 0x38000000. */
static void decode_single(uint32_t w, struct mtb_a64_insn *d)
{
    uint32_t size = bits(w, 31, 30), v = bits(w, 26, 26), opc = bits(w, 23, 22);
    uint32_t rn = bits(w, 9, 5), form = bits(w, 11, 10);
    int uimm = bits(w, 24, 24), b21 = bits(w, 21, 21);
    int wback = 0, regoff = 0, unpriv = 0, load, bytes;

    if (!uimm && b21) {
        if (form == 0) {
            decode_atomic(w, d);
            return;
        }
        if (form & 1) { /* LDRAA/LDRAB: W at <11> */
            if (size == 3 && !v)
                data(d, MTB_A64_G_SINGLE, 1, 0, rn, form == 3, 0, 8);
            return;
        }
        regoff = 1; /* <11:10> = 10 */
    } else if (!uimm) {
        wback = form == 1 || form == 3; /* 01 post, 11 pre; 00 unscaled */
        unpriv = form == 2;
        if (unpriv && v)
            return;
    }
    if (v) {
        if ((opc & 2) && size != 0)
            return;
        bytes = (opc & 2) ? 16 : 1 << size;
        load = opc & 1;
    } else if (opc < 2) {
        bytes = 1 << size;
        load = opc;
    } else if (size == 3 && opc == 2) { /* PRFM (imm, reg), PRFUM */
        if (!wback && !unpriv)
            prefetch(d, MTB_A64_G_SINGLE, (int)rn);
        return;
    } else if (size == 2 && opc == 2) { /* LDRSW, LDURSW, LDTRSW */
        bytes = 4;
        load = 1;
    } else if (size < 2) { /* LDRSB, LDRSH to X (opc 10) or W (opc 11) */
        bytes = 1 << size;
        load = 1;
    } else {
        return;
    }
    data(d, MTB_A64_G_SINGLE, load, !load, rn, wback, regoff, (uint32_t)bytes);
    d->unpriv = (uint8_t)unpriv;
}

/* LDR (literal), LDRSW (literal), PRFM (literal): PC-relative, Unchecked. */
static void decode_literal(uint32_t w, struct mtb_a64_insn *d)
{
    static const uint8_t gp[4] = {4, 8, 4, 0}, fp[4] = {4, 8, 16, 0};
    uint32_t opc = bits(w, 31, 30), v = bits(w, 26, 26);

    if (!v && opc == 3) {
        prefetch(d, MTB_A64_G_LITERAL, -1);
        return;
    }
    if ((v ? fp : gp)[opc] == 0)
        return;
    d->group = MTB_A64_G_LITERAL;
    d->load = 1;
    d->base = -1;
    d->size = (v ? fp : gp)[opc];
}

/* LDAPUR/STLUR (RCpc, unscaled): (w & 0x3f200c00) == 0x19000000. */
static void decode_rcpc(uint32_t w, struct mtb_a64_insn *d)
{
    uint32_t size = bits(w, 31, 30), opc = bits(w, 23, 22), rn = bits(w, 9, 5);

    if (opc >= 2 && (size == 3 || (size == 2 && opc == 3)))
        return;
    data(d, MTB_A64_G_RCPC, opc != 0, opc == 0, rn, 0, 0, 1u << size);
}

/* CPY*, SET*, SETG*: (w & 0x3b200c00) == 0x19000400; sizes are run-time. */
static void decode_mops(uint32_t w, struct mtb_a64_insn *d)
{
    uint32_t o0 = bits(w, 26, 26), op1 = bits(w, 23, 22), op2 = bits(w, 15, 12);
    uint32_t rd = bits(w, 4, 0);

    if (op1 == 3) { /* SET (o0 0), SETG (o0 1): store to [Xd] */
        data(d, MTB_A64_G_MOPS, 0, 1, rd, 1, 0, 0);
        d->unpriv = op2 & 1;
        if (o0) {
            d->mte = MTB_A64_MTE_SETG;
            d->checked_form = 0;
        }
        return;
    }
    /* CPYF (o0 0), CPY (o0 1): read [Xs], write [Xd] */
    data(d, MTB_A64_G_MOPS, 1, 1, rd, 1, 0, 0);
    d->unpriv = (op2 & 3) != 0;
}

/* SVE memory (coarse): <28:25> = 0010 and <31> = 1; <31:29> = 111 stores,
 * 100, 101, 110 loads, prefetches apart by their encodings. */
static void decode_sve(uint32_t w, struct mtb_a64_insn *d)
{
    static const struct { uint32_t mask, val; } prf[] = {
        {0xffc08010, 0x85c00000}, /* PRF* scalar plus immediate */
        {0xfe60e010, 0x8400c000}, /* PRF* scalar plus scalar */
        {0xffa08010, 0x84200000}, /* PRF* scalar plus 32-bit scaled offsets */
        {0xfe60e010, 0x8400e000}, /* PRF* 32-bit vector plus immediate */
        {0xffe08010, 0xc4608000}, /* PRF* scalar plus 64-bit scaled offsets */
        {0xffa08010, 0xc4200000}, /* PRF* scalar plus unpacked 32-bit scaled offsets */
        {0xfe60e010, 0xc400e000}, /* PRF* 64-bit vector plus immediate */
    };
    uint32_t op0 = bits(w, 31, 29);

    for (unsigned i = 0; i < sizeof prf / sizeof prf[0]; i++)
        if ((w & prf[i].mask) == prf[i].val) {
            prefetch(d, MTB_A64_G_SVE, -1);
            return;
        }
    d->group = MTB_A64_G_SVE;
    d->load = op0 != 7;
    d->store = op0 == 7;
    d->base = -1;
    d->checked_form = 1;
}

/* Advanced SIMD load/store multiple and single structures. */
static int decode_simd(uint32_t w, struct mtb_a64_insn *d)
{
    static const int8_t multi_regs[16] = {4, -1, 4, -1, 3, -1, 3, 1, 2, -1, 2, -1, -1, -1, -1, -1};
    uint32_t q = bits(w, 30, 30), l = bits(w, 22, 22), post = bits(w, 23, 23);
    uint32_t rm = bits(w, 20, 16), rn = bits(w, 9, 5), size = bits(w, 11, 10), bytes;

    if ((w & 0xbf800000) == 0x0c000000 || (w & 0xbf800000) == 0x0c800000) {
        int regs = multi_regs[bits(w, 15, 12)];
        if (bits(w, 21, 21) || (!post && rm) || regs < 0)
            return 0;
        bytes = (uint32_t)regs * (q ? 16 : 8);
    } else if ((w & 0xbf800000) == 0x0d000000 || (w & 0xbf800000) == 0x0d800000) {
        uint32_t opcode = bits(w, 15, 13), s = bits(w, 12, 12);
        uint32_t selem = (((opcode & 1) << 1) | bits(w, 21, 21)) + 1, esize;
        if (!post && rm)
            return 0;
        switch (opcode >> 1) {
        case 0: esize = 1; break;
        case 1: esize = 2; break;
        case 2: esize = (size & 1) ? 8 : 4; break;
        default: /* LDnR: replicate, loads only */
            if (!l || s)
                return 0;
            esize = 1u << size;
            break;
        }
        bytes = selem * esize;
    } else {
        return 0;
    }
    /* post-index by Xm is a register offset; Rm = 11111 is by the size */
    data(d, MTB_A64_G_SIMD, l, !l, rn, post, post && rm != 31, bytes);
    return 1;
}

void mtb_a64_decode(uint32_t w, const struct mtb_a64_params *p, struct mtb_a64_insn *d)
{
    memset(d, 0, sizeof *d);
    d->base = -1;
    if (decode_dp(w, d) || decode_dc(w, p, d))
        return;
    if ((w & 0x1e000000) == 0x04000000) {
        if (w >> 31)
            decode_sve(w, d);
        return;
    }
    if ((w & 0x0a000000) != 0x08000000)
        return; /* not the loads and stores group */
    if ((w & 0xff200000) == 0xd9200000)
        decode_tag(w, p, d);
    else if ((w & 0x3f000000) == 0x08000000)
        decode_excl(w, d);
    else if ((w & 0x3b000000) == 0x18000000)
        decode_literal(w, d);
    else if ((w & 0x3f200c00) == 0x19000000)
        decode_rcpc(w, d);
    else if ((w & 0x3b200c00) == 0x19000400)
        decode_mops(w, d);
    else if ((w & 0x38000000) == 0x28000000)
        decode_pair(w, d);
    else if ((w & 0x3a000000) == 0x38000000)
        decode_single(w, d);
    else
        decode_simd(w, d);
}

int mtb_a64_wait_hint(uint32_t w)
{
    return w == 0xd503205fu /* WFE */ || w == 0xd503203fu /* YIELD */ || (w & ~0x1fu) == 0xd5031000u /* WFET */;
}

int mtb_a64_wait_step(struct mtb_a64_wait *st, uint64_t pc, int el, const uint64_t *c, uint64_t *spin, int n)
{
    if (n > MTB_A64_WAIT_MAXN)
        n = MTB_A64_WAIT_MAXN;
    /* the latest kept hint at this address, if a repeat's length back */
    const uint64_t *from = NULL;
    for (int i = 1; i <= st->n && !from; i++) {
        int j = (st->next - i + MTB_A64_WAIT_HINTS) % MTB_A64_WAIT_HINTS;
        if (st->hint[j].pc == pc && st->hint[j].el == el && c[0] >= st->hint[j].at[0] &&
            c[0] - st->hint[j].at[0] <= MTB_A64_SPIN_MAX)
            from = st->hint[j].at;
    }
    if (from) {
        if (st->marked && st->mark[0] > from[0] && st->mark[0] <= c[0])
            from = st->mark; /* the part up to there is counted already */
        for (int k = 0; k < n; k++)
            spin[k] += c[k] - from[k];
        memcpy(st->mark, c, (size_t)n * sizeof c[0]);
        st->marked = 1;
    }
    st->hint[st->next].pc = pc;
    st->hint[st->next].el = el;
    memcpy(st->hint[st->next].at, c, (size_t)n * sizeof c[0]);
    st->next = (st->next + 1) % MTB_A64_WAIT_HINTS;
    if (st->n < MTB_A64_WAIT_HINTS)
        st->n++;
    return from != NULL;
}

void mtb_a64_wait_reset(struct mtb_a64_wait *st)
{
    st->n = 0;
    st->marked = 0;
}
