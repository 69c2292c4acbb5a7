/*
 * a64decode - what one A64 instruction word does to memory and to tags.
 *
 * Pure C, no allocation, no state: the counting plugin (mtecount.c) calls it
 * once per instruction at translation time, never per execution. It says:
 *   - the MTE class (tag-generating arithmetic, tag stores, bulk tag stores,
 *     tag loads) and the bytes whose allocation tags it sets, where static;
 *   - whether it reads and/or writes data memory (prefetches do neither),
 *     from which encoding group, through which base register, whether the
 *     base is SP, whether it writes the base back, whether the offset is a
 *     register, whether it is an unprivileged (LDTR/STTR) form;
 *   - whether its form may be Tag Checked (the Arm ARM's per-instruction
 *     rules: not a literal load, not SP-based with an immediate offset and
 *     no writeback, not a tag-setting instruction). Whether an execution IS
 *     checked also depends on run-time state (pointer tag, the page's Tagged
 *     attribute, TCF/TCMA/TCO): that is the plugin's, not this module's.
 * Encodings are the Arm ARM's (A64 "Loads and Stores" and "Data Processing"
 * encoding groups; docs/COUNTING.md lists what is decoded and what is not).
 */
#ifndef MTEBENCH_A64DECODE_H
#define MTEBENCH_A64DECODE_H
#include <stdint.h>

/* The MTE classes, in the order the plugin prints them. */
#define MTB_A64_MTE_CLASSES(X) \
    X(NONE, "none")            \
    X(IRG, "irg")              \
    X(GMI, "gmi")              \
    X(ADDG, "addg")            \
    X(SUBG, "subg")            \
    X(SUBP, "subp")            \
    X(SUBPS, "subps")          \
    X(STG, "stg")              \
    X(STZG, "stzg")            \
    X(ST2G, "st2g")            \
    X(STZ2G, "stz2g")          \
    X(STGP, "stgp")            \
    X(STGM, "stgm")            \
    X(STZGM, "stzgm")          \
    X(DC_GVA, "dc_gva")        \
    X(DC_GZVA, "dc_gzva")      \
    X(SETG, "setg")            \
    X(LDG, "ldg")              \
    X(LDGM, "ldgm")

enum mtb_a64_mte {
#define MTB_A64_MTE_ENUM(n, s) MTB_A64_MTE_##n,
    MTB_A64_MTE_CLASSES(MTB_A64_MTE_ENUM)
#undef MTB_A64_MTE_ENUM
    MTB_A64_MTE_NCLASS
};

/* The encoding group a memory instruction was decoded from. */
#define MTB_A64_GROUPS(X)                                     \
    X(NONE, "none")                                           \
    X(SINGLE, "single register")     /* LDR/STR imm, reg */   \
    X(PAIR, "pair")                  /* LDP/STP/LDNP/STGP */  \
    X(EXCL, "exclusive/ordered/cas") /* LDXR, LDAR, CAS(P) */ \
    X(ATOMIC, "atomic")              /* LSE LDADD.., SWP */   \
    X(SIMD, "simd structure")        /* LD1-4/ST1-4 */        \
    X(LITERAL, "literal")            /* LDR (literal) */      \
    X(RCPC, "rcpc unscaled")         /* LDAPUR/STLUR */       \
    X(MOPS, "memory copy/set")       /* CPY*, SET*, SETG* */  \
    X(SVE, "sve")                    /* coarse: see below */  \
    X(TAG, "memory tags")            /* STG.. LDG, LDGM */    \
    X(DC, "dc zva/gva/gzva")                                  \
    X(DP, "tag arithmetic")          /* IRG GMI ADDG SUBG.. */

enum mtb_a64_group {
#define MTB_A64_GROUP_ENUM(n, s) MTB_A64_G_##n,
    MTB_A64_GROUPS(MTB_A64_GROUP_ENUM)
#undef MTB_A64_GROUP_ENUM
    MTB_A64_G_NGROUP
};

/* Block sizes the bulk forms use: the guest CPU's, not the instruction's. */
struct mtb_a64_params {
    uint32_t dcz_bytes; /* DCZID_EL0.BS: DC ZVA/GVA/GZVA and STZGM (4 << BS) */
    uint32_t gm_bytes;  /* GMID_EL1.BS: STGM and LDGM (4 << BS) */
};

struct mtb_a64_insn {
    uint8_t mte;      /* enum mtb_a64_mte */
    uint8_t group;    /* enum mtb_a64_group; NONE: no memory, no tags */
    uint8_t load;     /* reads data memory */
    uint8_t store;    /* writes data memory (STZG, STGP, DC ZVA/GZVA too) */
    uint8_t prefetch; /* PRFM, PRFUM, SVE PRF*: a hint, not a data access */
    int8_t base;      /* base register 0-30, 31 = SP; -1: none (literal: the PC; SVE: not decoded) */
    uint8_t base_sp;  /* base is SP */
    uint8_t wback;    /* writes the base back (pre-/post-index) */
    uint8_t regoff;   /* register offset (LDR Xt, [Xn, Xm]; LD1 post-index by Xm) */
    uint8_t unpriv;   /* LDTR/STTR family (and the MOPS T forms): checked by EL0's rules */
    uint8_t checked_form; /* a data access whose form may be Tag Checked */
    uint32_t size;    /* data bytes accessed, where static; 0: dynamic (MOPS, SVE) */
    uint32_t tag_bytes; /* bytes whose allocation tags it sets; 0 for LDG/LDGM and SETG (dynamic) */
};

/* Decode word W (little-endian instruction word as a 32-bit value). */
void mtb_a64_decode(uint32_t w, const struct mtb_a64_params *p, struct mtb_a64_insn *out);
/* "stg", "dc_gzva", ...; "?" out of range */
const char *mtb_a64_mte_name(int cls);
const char *mtb_a64_group_name(int group);
/* 1 for the classes that set allocation tags (STG..SETG), else 0 */
int mtb_a64_mte_sets_tags(int cls);

/* Wait loops (docs/COUNTING.md, "Wait loops"). A kernel waiting for a lock
 * (smp_cond_load_*: LDAR, SEVL, WFE, LDXR, WFE, ...) or spinning on
 * cpu_relax() (YIELD) repeats a few instructions around its wait hints
 * until another CPU lets it go: how often is the host's timing under TCG,
 * not work. A repeat is what a vCPU ran from one execution of a wait hint
 * to the next at the same address and exception level, at most
 * MTB_A64_SPIN_MAX instructions later, with nothing between that resets
 * the state (the plugin resets it at an exception, an ERET, a context
 * switch and a window's opening). The last MTB_A64_WAIT_HINTS hints are
 * kept, so that a loop of several (smp_cond_load_*'s two WFEs) is found;
 * repeats that overlap count once. */
#define MTB_A64_SPIN_MAX 64u
#define MTB_A64_WAIT_MAXN 32
#define MTB_A64_WAIT_HINTS 4
struct mtb_a64_wait {
    int n;    /* hints kept since the reset (at most MTB_A64_WAIT_HINTS) */
    int next; /* where the next one goes (a ring) */
    struct {
        uint64_t pc;
        int el;
        uint64_t at[MTB_A64_WAIT_MAXN]; /* the counters when it ran */
    } hint[MTB_A64_WAIT_HINTS];
    int marked;
    uint64_t mark[MTB_A64_WAIT_MAXN]; /* the counters where the last repeat ended */
};
/* 1 for WFE, WFET and YIELD (a wait hint), else 0; WFI (idle) is not one */
int mtb_a64_wait_hint(uint32_t w);
/* A wait hint executed at pc at exception level el, with that level's n
 * counters now c[0..n) (c[0]: instructions, n <= MTB_A64_WAIT_MAXN). When
 * it closes a repeat, each counter's part of it not yet counted is added
 * to spin[0..n). @return 1 when it closed a repeat, else 0 */
int mtb_a64_wait_step(struct mtb_a64_wait *st, uint64_t pc, int el, const uint64_t *c, uint64_t *spin, int n);
/* Forget the hints (a switch, an exception, an ERET: no repeat spans one) */
void mtb_a64_wait_reset(struct mtb_a64_wait *st);

#endif
