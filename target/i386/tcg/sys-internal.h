/*
 * What the system side of the software CPU shares among its own files
 * (mmu.c, excp.c, seg.c, misc.c) and with accel/tcg/tcg-cpus.c. The
 * instruction semantics use include/target/i386/cpu-state.h and
 * target/i386/tcg/helper.h only.
 */
#ifndef TARGET_I386_SYS_INTERNAL_H
#define TARGET_I386_SYS_INTERNAL_H

#include "system/cpus.h"
#include "target/i386/cpu-state.h"

static inline int x86_cpl(const CPUX86State *env)
{
    return env->hflags & HF_CPL_MASK;
}

static inline bool x86_is_canonical(uint64_t a)
{
    return (uint64_t)((int64_t)(a << (64 - X86_VIRT_BITS)) >>
                      (64 - X86_VIRT_BITS)) == a;
}

/* Is the CPU in protected mode outside virtual-8086 mode? */
static inline bool x86_pm_not_vm86(const CPUX86State *env)
{
    return (env->hflags & (HF_PE_MASK | HF_VM_MASK)) == HF_PE_MASK;
}

/*
 * Device accesses happen with the big lock held. The execution loop runs
 * without it; a few paths (interrupt delivery, reset) may already hold
 * it, so take it only when this thread does not.
 */
static inline bool x86_bql_acquire(void)
{
    if (bql_locked()) {
        return false;
    }
    bql_lock();
    return true;
}

static inline void x86_bql_release(bool taken)
{
    if (taken) {
        bql_unlock();
    }
}

/* --- mmu.c ------------------------------------------------------------- */

/*
 * Implicit supervisor accesses (descriptor tables, the TSS, the stack of
 * an inner privilege level during a transfer): the U/S bit is not
 * checked, whatever the CPL.
 */
uint64_t x86_ld_kernel(CPUX86State *env, uint64_t vaddr, unsigned size);
void x86_st_kernel(CPUX86State *env, uint64_t vaddr, uint64_t value,
                   unsigned size);

/* The result of a page walk (x86_page_walk). */
typedef struct X86PageWalk {
    uint64_t paddr;             /* of the byte at vaddr */
    uint64_t page_size;         /* 4 KiB, 2 MiB, 4 MiB or 1 GiB */
    bool writable, user, executable, dirty, global;
} X86PageWalk;

/*
 * Walk the paging structures for one access (user: the access is made
 * at CPL 3). Sets A (and D for writes) on success. On a fault returns
 * false with the #PF error code in *error_code; nothing is raised, so
 * tests can call it directly.
 */
bool x86_page_walk(CPUX86State *env, uint64_t vaddr, MMUAccess access,
                   bool user, X86PageWalk *walk, uint32_t *error_code);

/* --- excp.c ------------------------------------------------------------ */

/*
 * An exception_index that x86_do_exception() leaves alone: the vCPU hit
 * an internal error and has been stopped (x86_cpu_internal_error).
 */
#define EXCP_INTERNAL_ERROR 0x100

/* --- seg.c ------------------------------------------------------------- */

/* Fields of a descriptor's two dwords (e1 low, e2 high). */
static inline uint32_t x86_desc_base(uint32_t e1, uint32_t e2)
{
    return (e1 >> 16) | ((e2 & 0xff) << 16) | (e2 & 0xff000000);
}

static inline uint32_t x86_desc_limit(uint32_t e1, uint32_t e2)
{
    uint32_t limit = (e1 & 0xffff) | (e2 & 0x000f0000);

    return e2 & DESC_G_MASK ? (limit << 12) | 0xfff : limit;
}

/* The SegmentCache flags of a descriptor (bits 8-15 and 20-23). */
static inline uint32_t x86_desc_flags(uint32_t e2)
{
    return e2 & 0x00f0ff00;
}

static inline int x86_desc_dpl(uint32_t e2)
{
    return (e2 >> DESC_DPL_SHIFT) & 3;
}

/* The system-descriptor type (S clear): bits 8-11. */
static inline unsigned x86_desc_type(uint32_t e2)
{
    return (e2 >> DESC_TYPE_SHIFT) & 15;
}

/*
 * The descriptor a selector names in the GDT or LDT (implicit supervisor
 * reads); false when it lies past the table's limit. With high, also the
 * upper 8 bytes of a 16-byte long-mode system descriptor.
 */
bool x86_load_desc(CPUX86State *env, uint16_t selector, uint32_t *e1,
                   uint32_t *e2);
bool x86_load_desc_high(CPUX86State *env, uint16_t selector, uint32_t *e3);
/* Set the accessed bit of a code/data descriptor if it is clear. */
void x86_set_desc_accessed(CPUX86State *env, uint16_t selector, uint32_t e2);
/*
 * After a return to an outer privilege level: data segment registers
 * the new CPL may not use become null (SDM "RET"/"IRET").
 */
void x86_drop_inaccessible_segs(CPUX86State *env, int cpl);

/*
 * A stack being pushed or popped by a control transfer: SS base, the
 * stack-pointer width (0xffff, 0xffffffff or all ones) and SP. kernel
 * makes the accesses implicit supervisor ones (an inner level's stack).
 */
typedef struct X86Stack {
    uint64_t base;
    uint64_t mask;
    uint64_t sp;
    bool kernel;
} X86Stack;

/* The current SS:RSP. */
X86Stack x86_stack_current(CPUX86State *env);
void x86_stack_push(CPUX86State *env, X86Stack *st, uint64_t value,
                    unsigned size);
uint64_t x86_stack_pop(CPUX86State *env, X86Stack *st, unsigned size);
/* RSP = sp within the mask, keeping the bits above it (16-bit stacks). */
void x86_set_rsp(CPUX86State *env, uint64_t mask, uint64_t sp);

/*
 * The stack of privilege level dpl from the TSS: SS:ESP from a 16/32-bit
 * TSS, RSPn (and a null SS of that level) from a 64-bit one; false when
 * TR holds no usable TSS or the TSS is too short.
 */
bool x86_tss_inner_stack(CPUX86State *env, int dpl, uint16_t *ss,
                         uint64_t *sp);

/* Load a segment register's hidden part and keep hflags in step. */
void x86_load_seg_cache(CPUX86State *env, int seg, uint16_t selector,
                        uint64_t base, uint32_t limit, uint32_t flags);
/* A real-mode or virtual-8086 load: base = selector << 4. */
void x86_load_seg_real(CPUX86State *env, int seg, uint16_t selector);

/* --- misc.c ------------------------------------------------------------ */

/* Guest TSC ticks since the virtual clock's origin (no offset). */
uint64_t x86_tsc_now(void);
/*
 * The register state after INIT: what x86_cpu_reset_state() also does at
 * power-on, minus the MSRs, which INIT leaves alone (the TSC, MTRRs, PAT,
 * APIC base and the system-call MSRs keep their values).
 */
void x86_cpu_init_state(X86CPU *cpu);
/* Flush this CPU's TLB when the paging mode bits change. */
void x86_cr0_cr4_efer_changed(CPUX86State *env, uint64_t old_cr0,
                              uint64_t old_cr4, uint64_t old_efer);

/* Stop the vCPU's run with why (a triple fault, a fatal error). */
void x86_cpu_stop(CPUX86State *env, X86CPUExit why);

#endif
