/*
 * The architectural state of one x86-64 vCPU as the software CPU (tcg)
 * keeps it, and the interface between its parts:
 *
 *   target/i386/tcg/decode.c, ops-*.c, flags.c   decoder, instruction
 *       semantics, lazy flags (the integer ISA)
 *   target/i386/tcg/mmu.c                        soft MMU: page walk, TLB,
 *       guest memory accesses, code-page tracking
 *   target/i386/tcg/excp.c, seg.c, misc.c         exceptions and interrupt
 *       delivery, segmentation and privilege changes, system
 *       instructions (CRs, MSRs, CPUID, I/O, hlt)
 *   target/i386/tcg/tb.c, cpu-exec.c               block cache and the
 *       execution loop of one vCPU
 *   accel/tcg/tcg-all.c, tcg-cpus.c          the accelerator: vCPUs,
 *       round-robin scheduling, halt, kicks, reset, INIT/SIPI
 *
 * Facts (bit positions, register numbers, reset values) follow the
 * Intel SDM vol. 3A and AMD's APM vol. 2.
 */
#ifndef TARGET_I386_CPU_STATE_H
#define TARGET_I386_CPU_STATE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "target/i386/cpu.h"
#include "target/i386/vendor.h"

/* MAXPHYADDR and the linear-address width the CPU model reports. */
#define X86_PHYS_BITS       40
#define X86_VIRT_BITS       48
#define X86_PHYS_MASK       ((1ull << X86_PHYS_BITS) - 1)

/* The CPUID leaves the interpreter implements (the "supported" table). */
unsigned x86_tcg_supported_cpuid(X86CPUIDEntry *out, unsigned max);
/*
 * vCPU 0's table for model def under tcg (and qtest), for
 * query-cpu-model-expansion. As in QEMU's expansion, "host" expands as
 * "max" does, since the interpreter is the host here.
 */
unsigned x86_tcg_model_cpuid(const X86CPUDef *def, X86CPUIDEntry *out,
                             unsigned max, Error **errp);

/* General registers, in encoding order. */
enum {
    R_EAX, R_ECX, R_EDX, R_EBX, R_ESP, R_EBP, R_ESI, R_EDI,
    R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15,
};

/* Segment registers, in encoding order. */
enum { R_ES, R_CS, R_SS, R_DS, R_FS, R_GS, X86_NUM_SEGS };

/*
 * A segment register's hidden part. flags holds the descriptor's high
 * dword bits 8..23 in place (type, S, DPL, P, AVL, L, D/B, G), so the
 * DESC_* masks below apply to it directly; limit is the expanded byte
 * limit (granularity applied).
 */
typedef struct SegmentCache {
    uint16_t selector;
    uint64_t base;
    uint32_t limit;
    uint32_t flags;
} SegmentCache;

#define DESC_TYPE_SHIFT     8
#define DESC_TYPE_MASK      (15u << DESC_TYPE_SHIFT)
#define DESC_A_MASK         (1u << 8)       /* accessed (code/data) */
#define DESC_W_MASK         (1u << 9)       /* writable data */
#define DESC_R_MASK         (1u << 9)       /* readable code */
#define DESC_E_MASK         (1u << 10)      /* expand-down data */
#define DESC_C_MASK         (1u << 10)      /* conforming code */
#define DESC_CS_MASK        (1u << 11)      /* code (with S) */
#define DESC_S_MASK         (1u << 12)      /* code/data, not system */
#define DESC_DPL_SHIFT      13
#define DESC_DPL_MASK       (3u << DESC_DPL_SHIFT)
#define DESC_P_MASK         (1u << 15)
#define DESC_AVL_MASK       (1u << 20)
#define DESC_L_MASK         (1u << 21)      /* 64-bit code */
#define DESC_B_MASK         (1u << 22)      /* 32-bit default size */
#define DESC_G_MASK         (1u << 23)

/* A descriptor table register (GDTR, IDTR) or LDTR/TR's hidden part. */
typedef struct DescTable {
    uint64_t base;
    uint32_t limit;
} DescTable;

/* EFLAGS bits. */
#define CC_C    0x0001u
#define CC_P    0x0004u
#define CC_A    0x0010u
#define CC_Z    0x0040u
#define CC_S    0x0080u
#define CC_O    0x0800u
#define CC_MASK (CC_C | CC_P | CC_A | CC_Z | CC_S | CC_O)
#define TF_MASK     0x00000100u
#define IF_MASK     0x00000200u
#define DF_MASK     0x00000400u
#define IOPL_MASK   0x00003000u
#define IOPL_SHIFT  12
#define NT_MASK     0x00004000u
#define RF_MASK     0x00010000u
#define VM_MASK     0x00020000u
#define AC_MASK     0x00040000u
#define VIF_MASK    0x00080000u
#define VIP_MASK    0x00100000u
#define ID_MASK     0x00200000u
#define EFLAGS_FIXED 0x00000002u                    /* bit 1 reads as 1 */

/* Control register bits. */
#define CR0_PE_MASK (1u << 0)
#define CR0_MP_MASK (1u << 1)
#define CR0_EM_MASK (1u << 2)
#define CR0_TS_MASK (1u << 3)
#define CR0_ET_MASK (1u << 4)
#define CR0_NE_MASK (1u << 5)
#define CR0_WP_MASK (1u << 16)
#define CR0_AM_MASK (1u << 18)
#define CR0_NW_MASK (1u << 29)
#define CR0_CD_MASK (1u << 30)
#define CR0_PG_MASK (1u << 31)
#define CR4_VME_MASK        (1u << 0)
#define CR4_PVI_MASK        (1u << 1)
#define CR4_TSD_MASK        (1u << 2)
#define CR4_DE_MASK         (1u << 3)
#define CR4_PSE_MASK        (1u << 4)
#define CR4_PAE_MASK        (1u << 5)
#define CR4_MCE_MASK        (1u << 6)
#define CR4_PGE_MASK        (1u << 7)
#define CR4_PCE_MASK        (1u << 8)
#define CR4_OSFXSR_MASK     (1u << 9)
#define CR4_OSXMMEXCPT_MASK (1u << 10)
#define CR4_FSGSBASE_MASK   (1u << 16)
#define CR4_OSXSAVE_MASK    (1u << 18)
#define CR4_PCIDE_MASK      (1u << 17)
#define CR4_SMEP_MASK       (1u << 20)
#define CR4_SMAP_MASK       (1u << 21)
#define EFER_SCE    (1u << 0)
#define EFER_LME    (1u << 8)
#define EFER_LMA    (1u << 10)
#define EFER_NXE    (1u << 11)

/* Exception vectors. */
enum {
    EXCP00_DIVZ = 0, EXCP01_DB = 1, EXCP02_NMI = 2, EXCP03_INT3 = 3,
    EXCP04_INTO = 4, EXCP05_BOUND = 5, EXCP06_ILLOP = 6, EXCP07_PREX = 7,
    EXCP08_DBLE = 8, EXCP0A_TSS = 10, EXCP0B_NOSEG = 11, EXCP0C_STACK = 12,
    EXCP0D_GPF = 13, EXCP0E_PAGE = 14, EXCP10_COPR = 16, EXCP11_ALGN = 17,
    EXCP12_MCHK = 18,
};

/* #PF error code bits. */
#define PG_ERROR_P_MASK     0x01u
#define PG_ERROR_W_MASK     0x02u
#define PG_ERROR_U_MASK     0x04u
#define PG_ERROR_RSVD_MASK  0x08u
#define PG_ERROR_I_D_MASK   0x10u

/*
 * hflags: what the decoder and the memory accesses need to know about
 * the current mode, recomputed by x86_update_hflags() whenever CR0,
 * CR4, EFER, CS or SS change. A decoded block is only reused under the
 * hflags it was decoded with (HF_DECODE_MASK).
 */
#define HF_CPL_MASK     0x0003u     /* current privilege level */
#define HF_PE_MASK      0x0004u     /* protected mode (CR0.PE) */
#define HF_CS32_MASK    0x0008u     /* CS.D: 32-bit default operand size */
#define HF_SS32_MASK    0x0010u     /* SS.B: 32-bit stack */
#define HF_LMA_MASK     0x0020u     /* long mode active */
#define HF_CS64_MASK    0x0040u     /* 64-bit code segment */
#define HF_VM_MASK      0x0080u     /* virtual-8086 mode */
#define HF_PG_MASK      0x0100u     /* paging on */
#define HF_ADDSEG_MASK  0x0200u     /* DS/ES/SS may have a non-zero base */
#define HF_DECODE_MASK  0x03ffu
#define HF_INHIBIT_IRQ_MASK 0x1000u /* interrupt shadow after sti/mov ss */
#define HF_HALTED_MASK  0x2000u     /* hlt: waiting for an interrupt */
#define HF_NMI_MASK     0x4000u     /* in an NMI handler: NMIs wait for iret */

/* interrupt_request bits: set from any thread, taken by the vCPU. */
#define CPU_INTERRUPT_HARD  0x01u   /* INTR: the APIC or PIC has a vector */
#define CPU_INTERRUPT_NMI   0x02u
#define CPU_INTERRUPT_INIT  0x04u
#define CPU_INTERRUPT_SIPI  0x08u
#define CPU_INTERRUPT_EXIT  0x10u   /* leave the execution loop */

/* Soft TLB: direct mapped, guest-virtual page to host page or device. */
#define TLB_BITS        10
#define TLB_SIZE        (1u << TLB_BITS)
#define X86_PAGE_SIZE   4096u
#define X86_PAGE_MASK   (~(uint64_t)(X86_PAGE_SIZE - 1))
#define TLB_INVALID     (~(uint64_t)0)

/*
 * One entry per access kind (read, write, fetch) holds the page-aligned
 * virtual address the kind may use directly, or TLB_INVALID. An
 * address that matches is at host address vaddr + addend. Pages that
 * are not plain RAM (devices, pages holding decoded code for writes)
 * never match a fast-path tag: they go through the slow path. What the
 * fast paths read is these 32 bytes; the rest of an entry is in
 * TLBExtra, at the same index of env->tlb_extra.
 */
typedef struct TLBEntry {
    uint64_t tag_read;
    uint64_t tag_write;
    uint64_t tag_fetch;
    uintptr_t addend;       /* the page's host address minus its vaddr */
} TLBEntry;

typedef struct TLBExtra {
    uint64_t paddr;         /* guest-physical page */
    uint8_t *host;          /* host address of the page's first byte,
                             * or NULL when it is not RAM */
    uint64_t large_vbase;   /* for invlpg of large pages */
    uint64_t large_vmask;
    bool global;
} TLBExtra;

/* Memory access kinds for the MMU. */
typedef enum MMUAccess { MMU_READ, MMU_WRITE, MMU_FETCH } MMUAccess;

/*
 * x87 and SSE state. fpregs[] is indexed by physical register: ST(i) is
 * fpregs[(fpstt + i) & 7]. Each holds the 80-bit extended format as a
 * 64-bit significand and the sign and 15-bit exponent; MMX register i
 * is fpregs[i].mant. The tag word is kept as "empty" per physical
 * register; its full form (valid, zero, special) is computed from the
 * contents where an instruction stores it (fnstenv, fnsave).
 */
typedef struct X86FPReg {
    uint64_t mant;
    uint16_t sexp;
} X86FPReg;

typedef union X86XMMReg {
    uint8_t b[16];
    uint16_t w[8];
    uint32_t l[4];
    uint64_t q[2];
    float s[4];
    double d[2];
} X86XMMReg;

#define FPUS_IE     0x0001u     /* FSW: invalid operation */
#define FPUS_DE     0x0002u     /* denormal operand */
#define FPUS_ZE     0x0004u     /* zero divide */
#define FPUS_OE     0x0008u     /* overflow */
#define FPUS_UE     0x0010u     /* underflow */
#define FPUS_PE     0x0020u     /* precision */
#define FPUS_SF     0x0040u     /* stack fault */
#define FPUS_ES     0x0080u     /* exception summary */
#define FPUS_C0     0x0100u
#define FPUS_C1     0x0200u
#define FPUS_C2     0x0400u
#define FPUS_TOP    0x3800u     /* kept in fpstt, never in fpus */
#define FPUS_C3     0x4000u
#define FPUS_B      0x8000u     /* busy: mirrors ES */
#define FPUC_INIT   0x037fu     /* FCW after fninit and reset */
#define MXCSR_INIT  0x1f80u
/* The MXCSR bits fxrstor/ldmxcsr accept (DAZ included) without a vendor
 * row; the row's fxsave_mxcsr_mask otherwise (AMD adds MM, bit 17). */
#define MXCSR_MASK  0xffffu
#define XCR0_X87    (1ull << 0)
#define XCR0_SSE    (1ull << 1)

typedef struct X86CPU X86CPU;

/*
 * Why x86_cpu_exec() returned: what the accelerator's vCPU loop acts on
 * (accel/tcg/tcg-cpus.c). The target never calls the accelerator.
 */
typedef enum X86CPUExit {
    X86_CPU_EXIT_NONE,          /* (while running) */
    X86_CPU_EXIT_BUDGET,        /* the budget of instructions is used */
    X86_CPU_EXIT_HALT,          /* hlt, or waiting for INIT/SIPI */
    X86_CPU_EXIT_REQUEST,       /* CPU_INTERRUPT_EXIT: a kick, or pause */
    X86_CPU_EXIT_TRIPLE_FAULT,  /* a reset request; halted until then */
    X86_CPU_EXIT_FATAL,         /* an internal error (fatal_msg); halted */
} X86CPUExit;

typedef struct CPUX86State {
    uint64_t regs[16];
    uint64_t rip;               /* of the instruction being executed */

    /*
     * Lazy flags: the arithmetic flags are computed from cc_op and its
     * operands only when read (flags.c). eflags holds every other bit
     * (DF, IF, IOPL, ...) and, under CC_OP_EFLAGS, the arithmetic ones.
     */
    uint64_t cc_dst, cc_src, cc_src2;
    uint32_t cc_op;
    uint32_t eflags;

    uint32_t hflags;            /* set through x86_set_hflags() */
    TLBEntry *tlb_cur;          /* see x86_set_hflags() */
    SegmentCache segs[X86_NUM_SEGS];
    SegmentCache ldt, tr;
    DescTable gdt, idt;

    uint64_t cr[5];             /* cr[1] unused; CR8 lives in the APIC */
    uint64_t dr[8];             /* stored only: no debug traps yet */
    uint64_t efer;
    uint64_t star, lstar, cstar, fmask, kernel_gs_base;
    uint64_t sysenter_cs, sysenter_esp, sysenter_eip;
    uint64_t pat, tsc_aux, misc_enable, apic_base;
    uint64_t mtrr_def_type, mtrr_fixed[11], mtrr_var[16];
    int64_t tsc_offset;         /* guest TSC = x86_tsc_now() + offset */
    uint64_t tsc_deadline;

    /* x87 (target/i386/tcg/fpu-*.c) and SSE; see X86FPReg. */
    X86FPReg fpregs[8];
    unsigned fpstt;             /* TOP */
    uint16_t fpus;              /* FSW, TOP bits clear */
    uint16_t fpuc;              /* FCW */
    uint8_t fptags[8];          /* 1: empty, by physical register */
    uint16_t fpop;              /* last x87 opcode (11 bits) */
    uint64_t fpip, fpdp;        /* its instruction and operand pointers */
    uint16_t fpcs, fpds;
    X86XMMReg xmm[16];
    uint32_t mxcsr;
    uint64_t xcr0;

    /* Exceptions raised mid-instruction unwind here (excp.c). */
    jmp_buf jmp_env;
    int exception_index;        /* pending vector, -1 for none */
    uint32_t error_code;
    bool exception_is_int;      /* software int n: pushes next rip */
    uint64_t exception_next_rip;

    uint32_t interrupt_request; /* CPU_INTERRUPT_*, atomic */
    uint32_t sipi_vector;

    X86CPUExit exit_reason;     /* a triple fault or fatal error stops */
    char *fatal_msg;            /* X86_CPU_EXIT_FATAL's, the caller frees */

    /*
     * One TLB for CPL 0-2 and one for CPL 3 (rights filled at one may
     * exceed the other's), so privilege changes flush nothing.
     */
    TLBEntry tlb[2][TLB_SIZE];
    TLBExtra tlb_extra[2][TLB_SIZE];
    bool tlb_large[2];          /* may hold entries of large pages */
    /* The linear range those entries' large pages lie in, when so. */
    uint64_t tlb_large_lo[2], tlb_large_hi[2];

    X86CPU *cpu;
} CPUX86State;

/* One vCPU of the software CPU. */
struct X86CPU {
    CPUX86State env;
    unsigned index;             /* 0 .. smp_cpus-1 */
    uint32_t apic_id;
    struct APICState *apic;     /* hw/intc/apic.c */
    X86CPUIDEntry cpuid[X86_CPUID_MAX_ENTRIES];
    unsigned ncpuid;
    /* The behaviour of CPUID leaf 0's vendor, set at reset from cpuid. */
    const X86Vendor *vendor;
    /* CPUID.07H.0:EBX[13] (zero-fcs-fds): the x87 CS and DS selectors are
     * stored as 0 by fxsave, xsave, fnstenv and fnsave; set at reset. */
    bool fcs_fds_zero;
    uint64_t icount;            /* instructions retired (for MIPS) */
    bool stopped;               /* waiting for INIT/SIPI (APs) */
    bool pause_yields;          /* pause ends the run: others wait for it */
};

/*
 * The integer ISA and flags (target/i386/tcg/flags.c, ops-*.c).
 * x86_get_eflags() materialises all of EFLAGS; x86_set_eflags() writes
 * the bits in mask (the arithmetic ones switch cc_op to CC_OP_EFLAGS).
 */
uint32_t x86_get_eflags(CPUX86State *env);
void x86_set_eflags(CPUX86State *env, uint32_t value, uint32_t mask);

/* hflags from CR0/CR4/EFER/CS/SS/EFLAGS.VM (excp.c). */
void x86_update_hflags(CPUX86State *env);

/*
 * Raise an exception from inside an instruction: unwinds to the
 * execution loop's setjmp with env->rip still at the faulting
 * instruction (excp.c). Never returns.
 */
G_NORETURN void x86_raise_exception(CPUX86State *env, int vector);
G_NORETURN void x86_raise_exception_err(CPUX86State *env, int vector,
                                        uint32_t error_code);
/* A software interrupt (int n, int3, into): next_rip is pushed. */
G_NORETURN void x86_raise_interrupt(CPUX86State *env, int vector,
                                    uint64_t next_rip);
/*
 * Deliver env->exception_index through the IDT (real-mode IVT, 32-bit
 * or long-mode gates, privilege change, TSS/IST stack switch), turning
 * faults during delivery into #DF and a fault on #DF into a triple
 * fault (a shutdown/reset request). Called by the execution loop.
 */
void x86_do_exception(CPUX86State *env);
/*
 * Between blocks: take a pending INIT/SIPI/NMI/INTR when EFLAGS.IF and
 * the interrupt shadow allow. Returns true if control flow changed.
 */
bool x86_handle_interrupts(CPUX86State *env);

/* Soft MMU (mmu.c). Virtual addresses are linear (segment base added). */
uint64_t x86_ld_slow(CPUX86State *env, uint64_t vaddr, unsigned size,
                     MMUAccess access);
void x86_st_slow(CPUX86State *env, uint64_t vaddr, uint64_t value,
                 unsigned size);
/*
 * Translate for an access, raising #PF on failure: the guest-physical
 * address; *host is the host pointer when it is RAM, else NULL.
 */
uint64_t x86_translate(CPUX86State *env, uint64_t vaddr, MMUAccess access,
                       uint8_t **host);
void x86_tlb_flush(CPUX86State *env, bool include_global);
void x86_tlb_flush_page(CPUX86State *env, uint64_t vaddr);
/*
 * Counts TLB flushes and invalidations, of any vCPU, and the execution
 * loop's switches between vCPUs: a check that a linear page maps to a
 * guest-physical one, made while it held the same value, still holds.
 */
extern uint64_t x86_tlb_gen;
/*
 * Drop the tags (only the write tags with writes_only) of entries for
 * guest-physical [paddr, paddr + len): the memory map changed there.
 * Safe from any thread while the vCPU runs.
 */
void x86_tlb_invalidate_phys(CPUX86State *env, uint64_t paddr,
                             uint64_t len, bool writes_only);

/*
 * Set hflags, and with them the TLB of the CPL (tlb_cur: env->tlb[1] at
 * CPL 3, else env->tlb[0]). Every vCPU's hflags are set so at reset.
 */
static inline void x86_set_hflags(CPUX86State *env, uint32_t hf)
{
    env->hflags = hf;
    env->tlb_cur = env->tlb[(hf & HF_CPL_MASK) == 3];
}

/*
 * Fast paths: a TLB hit within one page (the tag is compared with the
 * page of the last byte, which an access crossing pages misses); else
 * the slow path.
 */
static inline TLBEntry *x86_tlb_entry(CPUX86State *env, uint64_t vaddr)
{
    return env->tlb_cur + ((vaddr >> 12) & (TLB_SIZE - 1));
}

/* The rest of TLB entry e. */
static inline TLBExtra *x86_tlb_extra(CPUX86State *env, const TLBEntry *e)
{
    return &env->tlb_extra[0][0] + (e - &env->tlb[0][0]);
}

#define X86_DEFINE_LD(name, type, size)                                   \
static inline type name(CPUX86State *env, uint64_t vaddr)                 \
{                                                                         \
    TLBEntry *e = x86_tlb_entry(env, vaddr);                              \
    if (G_LIKELY(e->tag_read ==                                           \
                 ((vaddr + (size) - 1) & X86_PAGE_MASK))) {               \
        type v;                                                           \
        memcpy(&v, (void *)(uintptr_t)(vaddr + e->addend), size);        \
        return v;                                                         \
    }                                                                     \
    return (type)x86_ld_slow(env, vaddr, size, MMU_READ);                 \
}
#define X86_DEFINE_ST(name, type, size)                                   \
static inline void name(CPUX86State *env, uint64_t vaddr, type v)        \
{                                                                         \
    TLBEntry *e = x86_tlb_entry(env, vaddr);                              \
    if (G_LIKELY(e->tag_write ==                                          \
                 ((vaddr + (size) - 1) & X86_PAGE_MASK))) {               \
        memcpy((void *)(uintptr_t)(vaddr + e->addend), &v, size);        \
        return;                                                           \
    }                                                                     \
    x86_st_slow(env, vaddr, v, size);                                     \
}
X86_DEFINE_LD(x86_ldub, uint8_t, 1)
X86_DEFINE_LD(x86_lduw, uint16_t, 2)
X86_DEFINE_LD(x86_ldl, uint32_t, 4)
X86_DEFINE_LD(x86_ldq, uint64_t, 8)
X86_DEFINE_ST(x86_stb, uint8_t, 1)
X86_DEFINE_ST(x86_stw, uint16_t, 2)
X86_DEFINE_ST(x86_stl, uint32_t, 4)
X86_DEFINE_ST(x86_stq, uint64_t, 8)
#undef X86_DEFINE_LD
#undef X86_DEFINE_ST

/*
 * Code pages: the decoder fetches through x86_translate(MMU_FETCH) and
 * reports each guest-physical page it decoded from; writes to such a
 * page (any CPU, DMA, qtest) call tb_invalidate_phys_range() and the
 * page stops being "code" once no block uses it (target/i386/tcg/tb.c).
 */
void tb_invalidate_phys_range(uint64_t paddr, uint64_t len);
bool tb_page_has_code(uint64_t paddr);

/* Guest TSC and the virtual clock (misc.c): TSC ticks at x86_tsc_hz. */
extern uint64_t x86_tsc_hz;
uint64_t x86_cpu_get_tsc(CPUX86State *env);

/*
 * Run one vCPU until its budget of instructions is used up, it halts,
 * interrupt_request has CPU_INTERRUPT_EXIT, or a triple fault or an
 * internal error stops it (target/i386/tcg/cpu-exec.c). *executed gets the
 * number of instructions retired.
 */
X86CPUExit x86_cpu_exec(X86CPU *cpu, uint64_t budget, uint64_t *executed);

/* The registers in QEMU's "info registers" layout (cpu-dump.c). */
void x86_cpu_dump_state(CPUX86State *env, GString *out);

/*
 * The FXSAVE image (512 bytes, the 64-bit layout with rex_w, else the
 * 32-bit one with FCS/FDS) of the x87/SSE state, and back
 * (fpu-state.c). Restoring fails, changing nothing, when the image's
 * MXCSR has reserved bits set (the caller raises #GP).
 */
void x86_fxsave_image(CPUX86State *env, uint8_t *img, bool rex_w);
bool x86_fxrstor_image(CPUX86State *env, const uint8_t *img, bool rex_w);
/* The x87/SSE state after fninit and power-on (fpu-state.c). */
void x86_fpu_reset(CPUX86State *env);

/* The field table of an X86CPU's migratable state (tcg/machine.c). */
struct VMStateDescription;
const struct VMStateDescription *x86_cpu_vmstate(void);

/* Power-on/INIT reset of the architectural state (misc.c). */
void x86_cpu_reset_state(X86CPU *cpu, bool bsp);

/*
 * An internal error of the emulator inside an instruction (a path not
 * implemented yet): stops the vCPU with X86_CPU_EXIT_FATAL and the
 * message (the accelerator prints it with the registers like KVM's
 * internal errors and ends the VM with status 1, or stops it in
 * internal-error with -no-shutdown), unwinding to the execution loop
 * like an exception that x86_do_exception() ignores.
 */
G_NORETURN void x86_cpu_internal_error(CPUX86State *env, const char *fmt,
                                       ...) G_GNUC_PRINTF(2, 3);

#endif
