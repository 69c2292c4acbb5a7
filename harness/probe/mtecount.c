/*
 * mtecount - the vm platform's counting plugin (libmtecount.so; issue 44,
 * docs/COUNTING.md): loaded into qemu-system-aarch64 with
 *
 *   -plugin build/native/libmtecount.so[,out=FILE][,dcz=64][,gm=256][,el=pstate|address][,checked=on|off]
 *
 * it counts, per vCPU and per exception level, the instructions executed,
 * the MTE instructions by class and the bytes they tag, the data loads and
 * stores, those whose form may be Tag Checked, the unprivileged (LDTR/STTR)
 * accesses and the prefetches, and writes them at exit as key=value lines.
 *
 * How, and why so: every instruction is decoded once, when QEMU translates
 * it (probe/a64decode.c), and each execution adds to per-vCPU counters
 * through inline operations (a scoreboard): no callback into the plugin and,
 * above all, NO MEMORY INSTRUMENTATION. In QEMU 10.0.2 any memory callback
 * or inline memory operation on an instruction makes its helpers run with
 * CPUState.neg.plugin_mem_cbs set, probe_access_full() then answers
 * TLB_MMIO for every data page, and the MTE helpers take that for "no tag
 * storage": tag checks pass, STG stores no tag, LDG reads 0
 * (docs/COUNTING.md has the file:line trail). Counting must not change
 * what it counts, so this plugin never registers a memory callback.
 *
 * The exception level of a translation block is read from PSTATE (the gdb
 * register cpsr, CurrentEL in bits 3:2) while QEMU translates it: QEMU keys
 * every TB by its translation flags, whose MMU index names the EL, so a TB
 * only ever runs at the EL it was translated for. Where cpsr cannot be read
 * (el=address, or no such register) the EL is the address half of the TB
 * (bit 55: TTBR1's half is the kernel's, EL1), which misses only the code a
 * kernel runs from its identity map (boot, CPU resume).
 *
 * The run-time part of Tag Checked (the pointer's tag and half, PSTATE.TCO;
 * TBI, TCMA and ATA read from TCR_EL1 and SCTLR_EL1 when the TB is
 * translated) is taken by a callback on each load or store of a checked
 * form, conditional on a per-vCPU flag that is set only inside a counting
 * window the guest opens and closes itself (HINT #126, core/countmark.h):
 * instruction callbacks read registers and leave the MTE helpers alone.
 * Each window's counts are printed apart (window=N lines).
 *
 * Threads: a kernel built with CONFIG_PID_IN_CONTEXTIDR (the named kernels
 * are) writes the next task's PID to CONTEXTIDR_EL1 at every context
 * switch. That MSR, executed at EL1, calls the plugin (the only callback
 * outside a window), which banks what the vCPU ran since its last switch
 * into the account of the task that ran it while a window is open: each
 * window's counts per task (tid=T lines), summing exactly to its counts per
 * vCPU. A kernel without the option never writes CONTEXTIDR_EL1, and there
 * are no task lines (the header's context_switches=0). What the kernel runs
 * for an interrupt (IRQ, FIQ, SError: from its vector at VBAR_EL1 to the
 * ERET that ends it, with the softirqs run on its way out) is the task's it
 * interrupted in no sense: it goes to tid=-2, so that a task's EL1 work is
 * its own system calls and faults. Exceptions nest; each task's nesting is
 * kept across its switches.
 *
 * Wait loops: a kernel waiting for a contended lock repeats a few
 * instructions around WFE (or YIELD, cpu_relax()) until the holder's vCPU
 * lets it go, as often as the host's timing makes it under TCG. Inside a
 * window each wait hint calls the plugin, which finds the repeats (from one
 * hint to the next at the same address, at most MTB_A64_SPIN_MAX
 * instructions apart, with no switch, exception or ERET between:
 * probe/a64decode.c) and keeps each counter's part of them as spin_NAME,
 * printed where not 0: NAME still counts it, and core/work.c leaves it out
 * of its per-request figures.
 *
 * Counts are of instructions begun: one that raises a synchronous exception
 * (a page fault, a synchronous tag-check fault) and runs again after it is
 * counted twice, where the PMU counts retired instructions.
 */
#include <glib.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "probe/a64decode.h"

/* The plugin API this file is written against: QEMU 10.0's, version 4. A
 * qemu-plugin.h of another version is refused here, by name, and a QEMU
 * speaking another version is refused at load (qemu_plugin_install). */
#define MTC_API 4
#if QEMU_PLUGIN_VERSION != MTC_API
#error "mtecount is written against QEMU's plugin API version 4 (QEMU 10.0); this qemu-plugin.h declares another QEMU_PLUGIN_VERSION (make deps fetches the installed QEMU's)"
#endif
#ifndef MTC_QEMU_VERSION
#define MTC_QEMU_VERSION "unknown"
#endif

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* The counters of one exception level, in the order they are printed. */
#define MTC_COUNTERS(X)                                                      \
    X(insns)              /* instructions begun */                           \
    X(loads)              /* data reads (atomics, CAS: one load, one store) */ \
    X(stores)             /* data writes (STZG, STGP, DC ZVA/GZVA too) */    \
    X(loads_checked_form) /* loads whose form may be Tag Checked */          \
    X(stores_checked_form)                                                   \
    X(unpriv)             /* LDTR/STTR family: checked by EL0's rules */     \
    X(prefetches)         /* PRFM, PRFUM, SVE PRF*: no data access */        \
    X(tag_bytes)          /* bytes whose allocation tags were set */         \
    X(tag_dynamic)        /* tag-setting instructions of run-time size (SETG*) */ \
    X(wfe)                /* WFE, WFET: a wait for an event (a lock's spin \
                             loop; under TCG its length follows the host) */ \
    /* the run-time part, counted only while a window is armed: */           \
    X(loads_checked)      /* Tag Checked by the rules followed (see below) */ \
    X(stores_checked)                                                        \
    X(checked_unpriv)     /* of those, LDTR/STTR forms (EL0's rules at EL1) */ \
    X(tag0_lower)         /* lower half, tag 0, TCMA0 clear: Tag Checked if \
                             the page is Tagged, which is not known here */  \
    X(unchecked_tcma)     /* exempt: tag 0 (lower) / 0xF (upper), TCMAx set */ \
    X(unchecked_tco)      /* exempt: PSTATE.TCO set */                       \
    X(unchecked_off)      /* exempt: TBI or allocation tag access (ATA) off */ \
    X(unread)             /* the base register could not be read */

enum {
#define MTC_ENUM(n) MTC_##n,
    MTC_COUNTERS(MTC_ENUM)
#undef MTC_ENUM
    MTC_N
};
static const char *const mtc_names[] = {
#define MTC_NAME(n) #n,
    MTC_COUNTERS(MTC_NAME)
#undef MTC_NAME
};

#define MTC_ELS 4

struct mtc_el {
    uint64_t c[MTC_N];
    uint64_t mte[MTB_A64_MTE_NCLASS];
    uint64_t spin[MTC_N]; /* the part of each c[] in a wait loop's repeats (probe/a64decode.h) */
};
struct mtc_vcpu {
    struct mtc_el el[MTC_ELS];
    uint64_t armed; /* 1 while a counting window is open (the checked-form callbacks' condition) */
};

static struct qemu_plugin_scoreboard *score;
static struct mtb_a64_params params = {64, 256}; /* QEMU 10.0's -cpu max */
static char *out_path;
static int el_from_pstate = 1;
static struct qemu_plugin_register *cpsr; /* NULL: EL from the address */
static uint64_t el_fallbacks;             /* TBs whose EL came from the address */
/* the run-time part: the base registers, TCR_EL1 and SCTLR_EL1 (gdb's names;
 * QEMU's system-register feature names SCTLR_EL1 "SCTLR") */
static struct qemu_plugin_register *xreg[32]; /* x0..x30, sp */
static struct qemu_plugin_register *tcr, *sctlr;
static int checked_on = 1; /* checked=off: the decoded counts only, no callbacks */

/* Counting windows (mtb_count_mark in the guest, docs/COUNTING.md): the
 * marker is a hint-space NOP, HINT #126, executed at EL0 with x0 =
 * MTC_MAGIC | command; the totals at each opening are kept, and each closing
 * keeps the difference as that window's counts, printed apart. */
#define MTC_MARKER 0xd5032fdfu /* HINT #126 */
#define MTC_MAGIC 0x4d5442430000ull /* "MTBC" << 16 */
#define MTC_OPEN 1
#define MTC_CLOSE 2
#define MTC_MAX_WINDOWS 1024
static GMutex win_lock;
static struct mtc_vcpu *win_start;        /* [vcpus]: the totals at the opening */
static struct mtc_vcpu *win[MTC_MAX_WINDOWS]; /* [vcpus] each: what ran in each closed window */
static int win_open, win_count, win_vcpus, win_bad;

/* Per task (the file's comment): MSR CONTEXTIDR_EL1, Xt is 0xd518d020 | Rt.
 * Under win_lock: each vCPU's task (-1 until its first switch is seen) and
 * its totals when they were last banked; the open window's accounts by task
 * (tid -> struct mtc_task), and each closed window's. */
#define MTC_MSR_CONTEXTIDR 0xd518d020u
#define MTC_MAX_VCPUS 64
struct mtc_task {
    struct mtc_el el[2]; /* EL0, EL1 */
};
static int64_t cur_tid[MTC_MAX_VCPUS];
static struct mtc_vcpu banked[MTC_MAX_VCPUS];
static GHashTable *tasks_open;                 /* int64 tid -> struct mtc_task */
static GHashTable *tasks[MTC_MAX_WINDOWS];     /* each closed window's */
static uint64_t switches, interrupts;
/* the exception nesting of the task on each vCPU: a bit per level, 1 for
 * an interrupt; kept per task (tid -> struct mtc_nest) across switches */
#define MTC_TID_IRQ (-2)
#define MTC_MAX_NEST 32
struct mtc_nest {
    int depth;
    uint32_t irq; /* bit d: level d is an interrupt */
};
static struct mtc_nest nest[MTC_MAX_VCPUS];
static GHashTable *nests; /* int64 tid -> struct mtc_nest, of tasks switched out */
static struct qemu_plugin_register *vbar;
/* each vCPU's last wait hint, under win_lock (reset where it banks) */
static struct mtb_a64_wait waits[MTC_MAX_VCPUS];
static uint64_t wait_repeats;
#define MTC_WFE 0xd503205fu
#define MTC_WFET 0xd5031000u /* | Rd */
#define MTC_ERET 0xd69f03e0u
#define MTC_ERETAA 0xd69f0bffu
#define MTC_ERETAB 0xd69f0fffu

static qemu_plugin_u64 counter(int el, int k)
{
    size_t off = offsetof(struct mtc_vcpu, el) + (size_t)el * sizeof(struct mtc_el) +
                 offsetof(struct mtc_el, c) + (size_t)k * sizeof(uint64_t);
    return (qemu_plugin_u64){score, off};
}

static qemu_plugin_u64 mte_counter(int el, int cls)
{
    size_t off = offsetof(struct mtc_vcpu, el) + (size_t)el * sizeof(struct mtc_el) +
                 offsetof(struct mtc_el, mte) + (size_t)cls * sizeof(uint64_t);
    return (qemu_plugin_u64){score, off};
}

static void add(struct qemu_plugin_insn *insn, qemu_plugin_u64 entry, uint64_t n)
{
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, entry, n);
}

/* The EL the TB being translated will run at (see the file's comment). */
static int tb_el(uint64_t vaddr)
{
    struct qemu_plugin_register *reg = __atomic_load_n(&cpsr, __ATOMIC_ACQUIRE);

    if (reg && el_from_pstate) {
        GByteArray *buf = g_byte_array_new();
        int n = qemu_plugin_read_register(reg, buf);
        uint32_t v = 0;
        if (n == 4) {
            memcpy(&v, buf->data, 4); /* target byte order: little-endian */
            g_byte_array_free(buf, TRUE);
            return (int)((v >> 2) & 3);
        }
        g_byte_array_free(buf, TRUE);
    }
    __atomic_fetch_add(&el_fallbacks, 1, __ATOMIC_RELAXED);
    return (vaddr >> 55) & 1;
}

/* A register's value (up to 8 bytes, little-endian). @return 0 or -1 */
static int read_reg(struct qemu_plugin_register *reg, uint64_t *v)
{
    static __thread GByteArray *buf;
    if (!reg)
        return -1;
    if (!buf)
        buf = g_byte_array_sized_new(16);
    g_byte_array_set_size(buf, 0);
    int n = qemu_plugin_read_register(reg, buf);
    if (n <= 0 || n > 8)
        return -1;
    *v = 0;
    memcpy(v, buf->data, (size_t)n);
    return 0;
}

/* What a checked-form access's callback needs, packed into its udata:
 * decided at translation (the TB's EL and the TCR_EL1/SCTLR_EL1 bits QEMU
 * keys TBs by: TBI, TCMA, ATA are in its TB flags, so a change to them makes
 * new TBs). */
enum {
    U_BASE = 0x1f, U_LOAD = 1 << 5, U_STORE = 1 << 6, U_EL_SHIFT = 7, U_TBI0 = 1 << 9, U_TBI1 = 1 << 10,
    U_TCMA0 = 1 << 11, U_TCMA1 = 1 << 12, U_ATA0 = 1 << 13, U_ATA = 1 << 14, U_UNPRIV = 1 << 15
};

static uintptr_t tb_sysbits(void)
{
    uint64_t t = 0, c = 0;
    uintptr_t u = 0;
    if (read_reg(tcr, &t) == 0) {
        u |= (t >> 37 & 1) ? U_TBI0 : 0;
        u |= (t >> 38 & 1) ? U_TBI1 : 0;
        u |= (t >> 57 & 1) ? U_TCMA0 : 0;
        u |= (t >> 58 & 1) ? U_TCMA1 : 0;
    }
    if (read_reg(sctlr, &c) == 0) {
        u |= (c >> 42 & 1) ? U_ATA0 : 0;
        u |= (c >> 43 & 1) ? U_ATA : 0;
    }
    return u;
}

/* One execution of a load or store whose form may be Tag Checked, while a
 * window is armed: the rest of the Arm ARM's rule, from the state before
 * it runs. The page's Tagged attribute is not visible to a plugin: an
 * upper-half address is taken as Tagged (Linux maps its kernel memory
 * Normal Tagged when the CPU has MTE: PAGE_KERNEL is MT_NORMAL_TAGGED), a
 * lower-half one with a non-zero tag too (only PROT_MTE memory hands such
 * pointers out); lower half with tag 0 is kept apart (tag0_lower). */
static void checked_cb(unsigned int vcpu, void *ud)
{
    uintptr_t u = (uintptr_t)ud;
    int el = (int)(u >> U_EL_SHIFT) & 3, base = (int)(u & U_BASE);
    uint64_t addr, ps;
    if (read_reg(xreg[base], &addr) != 0 || read_reg(cpsr, &ps) != 0) {
        qemu_plugin_u64_add(counter(el, MTC_unread), vcpu, 1);
        return;
    }
    int upper = (int)(addr >> 55 & 1);
    unsigned tag = (unsigned)(addr >> 56 & 0xf);
    int unpriv = !!(u & U_UNPRIV);
    int tbi = !!(u & (upper ? U_TBI1 : U_TBI0));
    int ata = !!(u & ((el == 0 || unpriv) ? U_ATA0 : U_ATA));
    int k;
    if (!tbi || !ata)
        k = MTC_unchecked_off;
    else if (ps >> 25 & 1)
        k = MTC_unchecked_tco;
    else if ((u & (upper ? U_TCMA1 : U_TCMA0)) && tag == (upper ? 0xfu : 0u))
        k = MTC_unchecked_tcma;
    else if (!upper && tag == 0)
        k = MTC_tag0_lower;
    else {
        if (u & U_LOAD)
            qemu_plugin_u64_add(counter(el, MTC_loads_checked), vcpu, 1);
        if (u & U_STORE)
            qemu_plugin_u64_add(counter(el, MTC_stores_checked), vcpu, 1);
        if (unpriv)
            qemu_plugin_u64_add(counter(el, MTC_checked_unpriv), vcpu, 1);
        return;
    }
    qemu_plugin_u64_add(counter(el, k), vcpu, 1);
}

static void snapshot(struct mtc_vcpu *to)
{
    for (int v = 0; v < win_vcpus; v++)
        memcpy(&to[v], qemu_plugin_scoreboard_find(score, (unsigned)v), sizeof to[v]);
}

/* What vCPU v ran from its last banking to now, added to the account of
 * the task it was running (under win_lock, a window open). */
static void bank(unsigned v, const struct mtc_vcpu *now)
{
    if (v >= MTC_MAX_VCPUS)
        return;
    gint64 key = nest[v].depth > 0 && nest[v].depth <= MTC_MAX_NEST && (nest[v].irq >> (nest[v].depth - 1) & 1)
                     ? MTC_TID_IRQ : cur_tid[v];
    struct mtc_task *t = g_hash_table_lookup(tasks_open, &key);
    if (!t) {
        gint64 *k = g_new(gint64, 1);
        *k = key;
        t = g_new0(struct mtc_task, 1);
        g_hash_table_insert(tasks_open, k, t);
    }
    for (int el = 0; el < 2; el++) {
        for (int k = 0; k < MTC_N; k++)
            t->el[el].c[k] += now->el[el].c[k] - banked[v].el[el].c[k];
        for (int c = 0; c < MTB_A64_MTE_NCLASS; c++)
            t->el[el].mte[c] += now->el[el].mte[c] - banked[v].el[el].mte[c];
        for (int k = 0; k < MTC_N; k++)
            t->el[el].spin[k] += now->el[el].spin[k] - banked[v].el[el].spin[k];
    }
    banked[v] = *now;
    mtb_a64_wait_reset(&waits[v]); /* a repeat never spans a switch, an exception or an ERET */
}

/* MSR CONTEXTIDR_EL1, Xt at EL1: the kernel switches this vCPU to the task
 * whose PID is in Xt (XZR: 0, the idle task). */
static void switch_cb(unsigned int vcpu, void *ud)
{
    int rt = (int)(uintptr_t)ud;
    uint64_t pid = 0;
    if (vcpu >= MTC_MAX_VCPUS)
        return;
    int known = rt == 31 || read_reg(xreg[rt], &pid) == 0;
    g_mutex_lock(&win_lock);
    if (win_open)
        bank(vcpu, qemu_plugin_scoreboard_find(score, vcpu));
    /* the outgoing task keeps its nesting; the incoming one finds its own */
    gint64 *k = g_new(gint64, 1);
    *k = cur_tid[vcpu];
    g_hash_table_insert(nests, k, g_memdup2(&nest[vcpu], sizeof nest[vcpu]));
    cur_tid[vcpu] = known ? (int64_t)(uint32_t)pid : -1;
    gint64 in = cur_tid[vcpu];
    struct mtc_nest *had = g_hash_table_lookup(nests, &in);
    nest[vcpu] = had ? *had : (struct mtc_nest){ 0, 0 };
    switches++;
    g_mutex_unlock(&win_lock);
}

/* A wait hint executed (ud: its address | its EL): a repeat of a wait
 * loop found since the last one moves into the spin counters (in the
 * scoreboard, so that windows and tasks take it as they take the rest). */
static void wait_cb(unsigned int vcpu, void *ud)
{
    uint64_t u = (uint64_t)(uintptr_t)ud;
    int el = (int)(u & 3);
    if (vcpu >= MTC_MAX_VCPUS || !__atomic_load_n(&win_open, __ATOMIC_RELAXED))
        return;
    g_mutex_lock(&win_lock);
    if (win_open) {
        struct mtc_vcpu *now = qemu_plugin_scoreboard_find(score, vcpu);
        wait_repeats += mtb_a64_wait_step(&waits[vcpu], u & ~(uint64_t)3, el, now->el[el].c, now->el[el].spin, MTC_N);
    }
    g_mutex_unlock(&win_lock);
}

/* An exception taken to EL1 (its vector's first instruction; ud: 1 for an
 * interrupt) or an ERET from EL1 (ud: 2): the work before it banked to
 * whom it belongs, then the nesting moved. */
static void nest_cb(unsigned int vcpu, void *ud)
{
    int what = (int)(uintptr_t)ud;
    if (vcpu >= MTC_MAX_VCPUS)
        return;
    g_mutex_lock(&win_lock);
    if (win_open)
        bank(vcpu, qemu_plugin_scoreboard_find(score, vcpu));
    struct mtc_nest *n = &nest[vcpu];
    if (what == 2) {
        if (n->depth > 0)
            n->depth--;
    } else {
        if (n->depth < MTC_MAX_NEST) {
            if (what == 1)
                n->irq |= 1u << n->depth;
            else
                n->irq &= ~(1u << n->depth);
        }
        n->depth++;
        interrupts += what == 1;
    }
    g_mutex_unlock(&win_lock);
}

/* HINT #126 executed: open or close the window when x0 says so. */
static void marker_cb(unsigned int vcpu, void *ud)
{
    uint64_t x0, ps;
    (void)ud;
    if (read_reg(xreg[0], &x0) != 0 || (x0 & ~0xffffull) != MTC_MAGIC)
        return; /* a HINT #126 that is not ours: a NOP */
    int cmd = (int)(x0 & 0xffff);
    if (read_reg(cpsr, &ps) == 0 && (ps >> 2 & 3) != 0)
        return; /* markers come from user space only */
    g_mutex_lock(&win_lock);
    if (!win_start) {
        win_vcpus = qemu_plugin_num_vcpus();
        win_start = g_new0(struct mtc_vcpu, win_vcpus);
    }
    if (cmd == MTC_OPEN && !win_open && win_count < MTC_MAX_WINDOWS) {
        snapshot(win_start);
        for (int v = 0; v < win_vcpus && v < MTC_MAX_VCPUS; v++) {
            banked[v] = win_start[v];
            mtb_a64_wait_reset(&waits[v]);
        }
        tasks_open = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
        win_open = 1;
        for (int v = 0; v < win_vcpus; v++)
            qemu_plugin_u64_set((qemu_plugin_u64){score, offsetof(struct mtc_vcpu, armed)}, (unsigned)v, 1);
    } else if (cmd == MTC_CLOSE && win_open) {
        for (int v = 0; v < win_vcpus; v++)
            qemu_plugin_u64_set((qemu_plugin_u64){score, offsetof(struct mtc_vcpu, armed)}, (unsigned)v, 0);
        struct mtc_vcpu *now = g_new0(struct mtc_vcpu, win_vcpus);
        snapshot(now);
        for (int v = 0; v < win_vcpus; v++)
            bank((unsigned)v, &now[v]); /* the same totals: the tasks' sum is the window's, exactly */
        tasks[win_count] = tasks_open;
        tasks_open = NULL;
        for (int v = 0; v < win_vcpus; v++)
            for (int el = 0; el < MTC_ELS; el++) {
                for (int k = 0; k < MTC_N; k++)
                    now[v].el[el].c[k] -= win_start[v].el[el].c[k];
                for (int c = 0; c < MTB_A64_MTE_NCLASS; c++)
                    now[v].el[el].mte[c] -= win_start[v].el[el].mte[c];
                for (int k = 0; k < MTC_N; k++)
                    now[v].el[el].spin[k] -= win_start[v].el[el].spin[k];
            }
        win[win_count++] = now;
        win_open = 0;
    } else {
        win_bad++; /* an open while open, a close while closed, too many windows, an unknown command */
    }
    g_mutex_unlock(&win_lock);
    (void)vcpu;
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    int el = tb_el(qemu_plugin_tb_vaddr(tb));
    uintptr_t sysbits = checked_on ? tb_sysbits() : 0;
    /* a TB at one of VBAR_EL1's sixteen vectors is an exception's entry:
     * IRQ at +0x080, FIQ +0x100, SError +0x180 of each group of four
     * (vector 1: an interrupt, 0: another exception; -1: not a vector) */
    int vector = -1;
    uint64_t vb = 0, pc = qemu_plugin_tb_vaddr(tb);
    if (el == 1 && read_reg(vbar, &vb) == 0 && vb && pc >= vb && pc < vb + 0x800 && !((pc - vb) & 0x7f))
        vector = ((pc - vb) >> 7 & 3) != 0;

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct mtb_a64_insn d;
        uint32_t w = 0;

        add(insn, counter(el, MTC_insns), 1);
        if (qemu_plugin_insn_data(insn, &w, sizeof w) != sizeof w)
            continue;
        if (w == MTC_MARKER)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_cb, QEMU_PLUGIN_CB_R_REGS, NULL);
        if ((w & ~0x1fu) == MTC_MSR_CONTEXTIDR && el == 1)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, switch_cb, QEMU_PLUGIN_CB_R_REGS,
                                                   (void *)(uintptr_t)(w & 0x1f));
        if (el == 1 && (w == MTC_ERET || w == MTC_ERETAA || w == MTC_ERETAB))
            qemu_plugin_register_vcpu_insn_exec_cb(insn, nest_cb, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)2);
        if (i == 0 && vector >= 0)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, nest_cb, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)(vector ? 1 : 3));
        mtb_a64_decode(w, &params, &d); /* little-endian guest on a little-endian host */
        if (checked_on && d.checked_form && (d.load || d.store) && d.base >= 0) {
            uintptr_t u = sysbits | (uintptr_t)d.base | (d.load ? U_LOAD : 0) | (d.store ? U_STORE : 0) |
                          (uintptr_t)el << U_EL_SHIFT | (d.unpriv ? U_UNPRIV : 0);
            qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, checked_cb, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_COND_EQ,
                                                        (qemu_plugin_u64){score, offsetof(struct mtc_vcpu, armed)},
                                                        1, (void *)u);
        }
        if (w == MTC_WFE || (w & ~0x1fu) == MTC_WFET)
            add(insn, counter(el, MTC_wfe), 1);
        if (mtb_a64_wait_hint(w) && el < 2) /* after the instruction's own counts */
            qemu_plugin_register_vcpu_insn_exec_cb(insn, wait_cb, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)(qemu_plugin_insn_vaddr(insn) | (uint64_t)el));
        if (d.load)
            add(insn, counter(el, MTC_loads), 1);
        if (d.store)
            add(insn, counter(el, MTC_stores), 1);
        if (d.load && d.checked_form)
            add(insn, counter(el, MTC_loads_checked_form), 1);
        if (d.store && d.checked_form)
            add(insn, counter(el, MTC_stores_checked_form), 1);
        if (d.unpriv)
            add(insn, counter(el, MTC_unpriv), 1);
        if (d.prefetch)
            add(insn, counter(el, MTC_prefetches), 1);
        if (d.mte != MTB_A64_MTE_NONE)
            add(insn, mte_counter(el, d.mte), 1);
        if (d.tag_bytes)
            add(insn, counter(el, MTC_tag_bytes), d.tag_bytes);
        else if (mtb_a64_mte_sets_tags(d.mte))
            add(insn, counter(el, MTC_tag_dynamic), 1);
    }
}

/* The register handles are the same on every vCPU (gdb's numbering). */
static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    GArray *regs;

    if (__atomic_load_n(&cpsr, __ATOMIC_ACQUIRE) || xreg[0])
        return;
    regs = qemu_plugin_get_registers();
    for (guint i = 0; regs && i < regs->len; i++) {
        qemu_plugin_reg_descriptor *r = &g_array_index(regs, qemu_plugin_reg_descriptor, i);
        unsigned x;
        char end;
        if (strcmp(r->name, "cpsr") == 0)
            __atomic_store_n(&cpsr, r->handle, __ATOMIC_RELEASE);
        else if (strcmp(r->name, "sp") == 0)
            xreg[31] = r->handle;
        else if (sscanf(r->name, "x%u%c", &x, &end) == 1 && x <= 30)
            xreg[x] = r->handle;
        else if (strcmp(r->name, "TCR_EL1") == 0)
            tcr = r->handle;
        else if (strcmp(r->name, "VBAR_EL1") == 0 || strcmp(r->name, "VBAR") == 0)
            vbar = r->handle;
        else if (strcmp(r->name, "SCTLR") == 0 || strcmp(r->name, "SCTLR_EL1") == 0)
            sctlr = r->handle;
    }
    if (regs)
        g_array_free(regs, TRUE);
}

/* vcpu UINT_MAX: a task's line, over the vCPUs it ran on */
static void print_el(GString *s, const char *what, unsigned vcpu, int el, const struct mtc_el *e)
{
    if (vcpu == UINT_MAX)
        g_string_append_printf(s, "%sel=%d", what, el);
    else
        g_string_append_printf(s, "%svcpu=%u el=%d", what, vcpu, el);
    for (int k = 0; k < MTC_N; k++)
        g_string_append_printf(s, " %s=%" PRIu64, mtc_names[k], e->c[k]);
    for (int c = 1; c < MTB_A64_MTE_NCLASS; c++)
        g_string_append_printf(s, " %s=%" PRIu64, mtb_a64_mte_name(c), e->mte[c]);
    for (int k = 0; k < MTC_N; k++) /* only what wait loops held */
        if (e->spin[k])
            g_string_append_printf(s, " spin_%s=%" PRIu64, mtc_names[k], e->spin[k]);
    g_string_append_c(s, '\n');
}

static gint cmp_tid(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

/* key=value lines: a header, then one line per vCPU and EL that ran. */
static void plugin_exit(qemu_plugin_id_t id, void *p)
{
    GString *s = g_string_new(NULL);
    int vcpus = qemu_plugin_num_vcpus();

    g_string_append_printf(s,
                           "mtecount version=3 qemu=%s plugin_api=%d el_from=%s el_fallback_tbs=%" PRIu64
                           " dcz_bytes=%u gm_bytes=%u vcpus=%d checked=%s sysregs=%s windows=%d window_errors=%d"
                           " context_switches=%" PRIu64 " interrupts=%" PRIu64 " wait_repeats=%" PRIu64 " spin_max=%u vbar=%s%s\n",
                           MTC_QEMU_VERSION, MTC_API, cpsr && el_from_pstate ? "pstate" : "address", el_fallbacks,
                           params.dcz_bytes, params.gm_bytes, vcpus, checked_on ? "on" : "off",
                           tcr && sctlr ? "read" : "missing", win_count, win_bad, switches, interrupts,
                           wait_repeats, MTB_A64_SPIN_MAX, vbar ? "read" : "missing",
                           win_open ? " window_open=1" : "");
    for (int v = 0; v < vcpus; v++) {
        const struct mtc_vcpu *t = qemu_plugin_scoreboard_find(score, (unsigned)v);
        for (int el = 0; el < MTC_ELS; el++)
            if (t->el[el].c[MTC_insns])
                print_el(s, "", (unsigned)v, el, &t->el[el]);
    }
    /* each window: what ran from its open marker (not counted) to its close
     * marker (counted) */
    for (int w = 0; w < win_count; w++)
        for (int v = 0; v < win_vcpus; v++)
            for (int el = 0; el < MTC_ELS; el++)
                if (win[w][v].el[el].c[MTC_insns]) {
                    char what[32];
                    snprintf(what, sizeof what, "window=%d ", w + 1);
                    print_el(s, what, (unsigned)v, el, &win[w][v].el[el]);
                }
    /* each window's counts by task (tid=-1: a vCPU whose first switch was
     * not seen yet), in tid order; none without CONTEXTIDR_EL1 switches */
    for (int w = 0; w < win_count; w++) {
        if (!switches || !tasks[w])
            continue;
        GList *keys = g_list_sort(g_hash_table_get_keys(tasks[w]), cmp_tid);
        for (GList *k = keys; k; k = k->next) {
            const struct mtc_task *t = g_hash_table_lookup(tasks[w], k->data);
            for (int el = 0; el < 2; el++)
                if (t->el[el].c[MTC_insns]) {
                    char what[64];
                    snprintf(what, sizeof what, "window=%d tid=%" PRId64 " ", w + 1, *(gint64 *)k->data);
                    print_el(s, what, UINT_MAX, el, &t->el[el]);
                }
        }
        g_list_free(keys);
    }
    if (out_path) {
        GError *err = NULL;
        if (!g_file_set_contents(out_path, s->str, (gssize)s->len, &err)) { /* atomic: temp + rename */
            fprintf(stderr, "mtecount: cannot write %s: %s\n", out_path, err->message);
            g_error_free(err);
        }
    } else {
        qemu_plugin_outs(s->str);
    }
    g_string_free(s, TRUE);
    qemu_plugin_scoreboard_free(score);
}

static int parse_bytes(const char *key, const char *val, uint32_t *to)
{
    char *end;
    unsigned long v = strtoul(val, &end, 10);

    if (*end || v < 16 || v > 2048 || (v & (v - 1))) {
        fprintf(stderr, "mtecount: %s=%s: a power of two from 16 to 2048 bytes\n", key, val);
        return -1;
    }
    *to = (uint32_t)v;
    return 0;
}

static int parse_args(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        const char *val = eq ? eq + 1 : "";
        size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

        if (klen == 3 && strncmp(argv[i], "out", 3) == 0 && *val) {
            out_path = g_strdup(val);
        } else if (klen == 3 && strncmp(argv[i], "dcz", 3) == 0) {
            if (parse_bytes("dcz", val, &params.dcz_bytes))
                return -1;
        } else if (klen == 2 && strncmp(argv[i], "gm", 2) == 0) {
            if (parse_bytes("gm", val, &params.gm_bytes))
                return -1;
        } else if (klen == 7 && strncmp(argv[i], "checked", 7) == 0 &&
                   (strcmp(val, "on") == 0 || strcmp(val, "off") == 0)) {
            checked_on = strcmp(val, "on") == 0;
        } else if (klen == 2 && strncmp(argv[i], "el", 2) == 0 &&
                   (strcmp(val, "pstate") == 0 || strcmp(val, "address") == 0)) {
            el_from_pstate = strcmp(val, "pstate") == 0;
        } else {
            fprintf(stderr, "mtecount: unknown argument '%s' (out=FILE, dcz=BYTES, gm=BYTES, el=pstate|address, checked=on|off)\n",
                    argv[i]);
            return -1;
        }
    }
    return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
    if (info->version.cur != MTC_API) {
        fprintf(stderr,
                "mtecount: built against QEMU %s's plugin API (version %d); this QEMU speaks versions %d to %d: "
                "rebuild it against this QEMU's qemu-plugin.h (make deps; make)\n",
                MTC_QEMU_VERSION, MTC_API, info->version.min, info->version.cur);
        return -1;
    }
    if (strcmp(info->target_name, "aarch64") != 0 || !info->system_emulation) {
        fprintf(stderr, "mtecount: counts qemu-system-aarch64 only (this is %s, %s mode)\n", info->target_name,
                info->system_emulation ? "system" : "user");
        return -1;
    }
    if (parse_args(argc, argv))
        return -1;
    for (int v = 0; v < MTC_MAX_VCPUS; v++)
        cur_tid[v] = -1;
    nests = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    score = qemu_plugin_scoreboard_new(sizeof(struct mtc_vcpu));
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
