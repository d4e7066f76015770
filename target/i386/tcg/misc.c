/*
 * System instructions of the software CPU: control and debug registers,
 * CPUID, MSRs, the TSC, port I/O with its permission checks, hlt, and
 * the power-on/INIT state. Intel SDM vol. 3A chapters 2, 9 (table 10-1
 * in newer editions: "IA-32 and Intel 64 Processor States Following
 * Power-up, Reset, or INIT"), 11 (MTRRs) and 18.17 (TSC); vol. 4 for
 * MSR numbers.
 *
 * The guest TSC runs at x86_tsc_hz from QEMU_CLOCK_VIRTUAL, which follows
 * host time while the VM runs and stands still while it is paused.
 */
#include "hw/intc/apic.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "target/i386/tcg/helper.h"
#include "target/i386/tcg/sys-internal.h"

uint64_t x86_tsc_hz = 1000000000;

#define MSR_MTRRCAP             0x000000fe
#define MSR_MCG_CAP             0x00000179
#define MSR_MCG_STATUS          0x0000017a
#define MSR_MTRR_PHYS_FIRST     0x00000200
#define MSR_MTRR_FIX64K_00000   0x00000250
#define MSR_MTRR_FIX16K_80000   0x00000258
#define MSR_MTRR_FIX16K_A0000   0x00000259
#define MSR_MTRR_FIX4K_C0000    0x00000268
#define MSR_MTRR_DEF_TYPE       0x000002ff
#define MSR_TSC_DEADLINE        0x000006e0
#define MSR_EFER                0xc0000080
#define MSR_FS_BASE             0xc0000100
#define MSR_GS_BASE             0xc0000101

/* 8 variable ranges, fixed ranges, write-combining (SDM 11.11.1). */
#define MTRRCAP_VALUE           (8 | (1u << 8) | (1u << 10))
#define MTRR_VAR_COUNT          16      /* base/mask pairs */

#define CR0_WRITABLE    (CR0_PE_MASK | CR0_MP_MASK | CR0_EM_MASK | \
                         CR0_TS_MASK | CR0_NE_MASK | CR0_WP_MASK | \
                         CR0_AM_MASK | CR0_NW_MASK | CR0_CD_MASK | \
                         CR0_PG_MASK)
#define CR0_RESET       (CR0_CD_MASK | CR0_NW_MASK | CR0_ET_MASK)
/* What the CPU model offers in CR4 (no VME, SMEP, FSGSBASE, PCID...). */
#define CR4_SUPPORTED   (CR4_TSD_MASK | CR4_DE_MASK | CR4_PSE_MASK | \
                         CR4_PAE_MASK | CR4_MCE_MASK | CR4_PGE_MASK | \
                         CR4_PCE_MASK | CR4_OSFXSR_MASK | \
                         CR4_OSXMMEXCPT_MASK | CR4_OSXSAVE_MASK)
#define DR6_FIXED       0xffff0ff0ull
#define DR7_FIXED       0x400ull

G_NORETURN static void gp(CPUX86State *env)
{
    x86_raise_exception_err(env, EXCP0D_GPF, 0);
}

/* --- time -------------------------------------------------------------- */

uint64_t x86_tsc_now(void)
{
    int64_t ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (x86_tsc_hz == NANOSECONDS_PER_SECOND) {
        return ns;
    }
    return (unsigned __int128)ns * x86_tsc_hz / NANOSECONDS_PER_SECOND;
}

uint64_t x86_cpu_get_tsc(CPUX86State *env)
{
    return x86_tsc_now() + env->tsc_offset;
}

/* --- CPUID ------------------------------------------------------------- */

static uint32_t cpuid_bit(X86CPU *cpu, uint32_t function, int reg,
                          uint32_t bit)
{
    X86CPUIDEntry *e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, function, 0);

    return e ? e->regs[reg] & bit : 0;
}

void helper_cpuid(CPUX86State *env)
{
    X86CPU *cpu = env->cpu;
    uint32_t function = env->regs[R_EAX], index = env->regs[R_ECX];
    uint32_t level = 0, xlevel = 0, regs[4] = { 0 };
    X86CPUIDEntry *e;

    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 0, 0);
    if (e) {
        level = e->regs[X86_R_EAX];
    }
    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 0x80000000, 0);
    if (e) {
        xlevel = e->regs[X86_R_EAX];
    }
    /* Out of range: the highest basic leaf, as Intel and QEMU do. */
    if (function >= 0x80000000 ? function > xlevel
                               : (function < 0x40000000 && function > level)) {
        function = level;
    }
    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, function, index);
    if (e) {
        memcpy(regs, e->regs, sizeof(regs));
    }
    if (function == 1 || function == 0x80000001) {
        /* The APIC feature bit follows IA32_APIC_BASE.EN. */
        if (!(env->apic_base & MSR_IA32_APICBASE_ENABLE)) {
            regs[X86_R_EDX] &= ~(1u << 9);
        }
    }
    if (function == 1) {
        /* OSXSAVE mirrors CR4.OSXSAVE. */
        regs[X86_R_ECX] &= ~(1u << 27);
        if (env->cr[4] & CR4_OSXSAVE_MASK) {
            regs[X86_R_ECX] |= 1u << 27;
        }
    }
    env->regs[R_EAX] = regs[X86_R_EAX];
    env->regs[R_EBX] = regs[X86_R_EBX];
    env->regs[R_ECX] = regs[X86_R_ECX];
    env->regs[R_EDX] = regs[X86_R_EDX];
}

/* Leaf 1 and 0x80000001 bits the interpreter implements. */
#define F1_EDX  ((1u << 0) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | \
                 (1u << 6) | (1u << 7) | (1u << 8) | (1u << 9) | \
                 (1u << 11) | (1u << 12) | (1u << 13) | (1u << 14) | \
                 (1u << 15) | (1u << 16) | (1u << 17) | (1u << 19) | \
                 (1u << 23) | (1u << 24) | (1u << 25) | (1u << 26))
                /* fpu de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov
                 * pat pse36 clflush mmx fxsr sse sse2 */
#define F1_ECX  ((1u << 0) | (1u << 1) | (1u << 9) | (1u << 13) | \
                 (1u << 19) | (1u << 20) | (1u << 22) | (1u << 23) | \
                 (1u << 24) | (1u << 25) | (1u << 26) | (1u << 31))
                /* sse3 pclmulqdq ssse3 cx16 sse4.1 sse4.2 movbe popcnt
                 * tsc-deadline aes xsave hypervisor */
/* XSAVE (leaf 0xd): x87 and SSE in XCR0; 512 bytes + the header. */
#define XCR0_SUPPORTED  (XCR0_X87 | XCR0_SSE)
#define XSAVE_SIZE      576
/* The leaf 1 EDX bits AMD repeats in 0x80000001 EDX. */
#define AMD_ALIASES 0x0183f3ffu
#define FE1_EDX ((1u << 11) | (1u << 20) | (1u << 27) | (1u << 29))
                /* syscall nx rdtscp lm */
#define FE1_ECX ((1u << 0) | (1u << 5)) /* lahf-lm abm (lzcnt) */
#define TCG_SIGNATURE   0x00060fb1      /* family 15, model 107, step 1 */
#define TCG_BRAND       "QEMU TCG CPU version 2.5+"

/* AMD's L1 and L2 cache descriptions as QEMU gives its TCG models. */
static const uint32_t amd_l1_cache[4] = {
    0x01ff01ff, 0x01ff01ff, 0x40020140, 0x40020140,
};
static const uint32_t amd_l2_cache[4] = {
    0, 0x42004200, 0x02008140, 0x00808140,
};

static void put_vendor(uint32_t *regs)
{
    regs[X86_R_EBX] = 0x68747541;       /* "Auth" */
    regs[X86_R_EDX] = 0x69746e65;       /* "enti" */
    regs[X86_R_ECX] = 0x444d4163;       /* "cAMD" */
}

static uint32_t *add_leaf(X86CPUIDEntry *out, unsigned *n, unsigned max,
                          uint32_t function)
{
    g_assert(*n < max);
    out[*n] = (X86CPUIDEntry) { .function = function };
    return out[(*n)++].regs;
}

/*
 * What "the host supports" means under tcg: the features the
 * interpreter implements. The vendor is AMD as QEMU's TCG models have it
 * (qemu64 and max), with QEMU's hypervisor leaf ("TCGTCGTCGTCG") and AMD
 * cache leaves; the x87 FPU, MMX, SSE .. SSE4.2 and XSAVE of x87|SSE (no
 * AVX).
 */
unsigned x86_tcg_supported_cpuid(X86CPUIDEntry *out, unsigned max)
{
    static const char brand[48] = TCG_BRAND;
    unsigned n = 0;
    uint32_t *r;

    r = add_leaf(out, &n, max, 0);
    r[X86_R_EAX] = 0xd;
    put_vendor(r);
    r = add_leaf(out, &n, max, 1);
    r[X86_R_EAX] = TCG_SIGNATURE;
    r[X86_R_EBX] = 8 << 8;                      /* CLFLUSH: 64 bytes */
    r[X86_R_ECX] = F1_ECX;
    r[X86_R_EDX] = F1_EDX;
    r = add_leaf(out, &n, max, 0xd);
    r[X86_R_EAX] = XCR0_SUPPORTED;
    r[X86_R_EBX] = XSAVE_SIZE;
    r[X86_R_ECX] = XSAVE_SIZE;
    r = add_leaf(out, &n, max, 0xd);
    out[n - 1].index = 1;
    out[n - 1].flags = X86_CPUID_FLAG_INDEXED;
    out[n - 2].flags = X86_CPUID_FLAG_INDEXED;
    r[X86_R_EAX] = 1;                           /* xsaveopt */
    r = add_leaf(out, &n, max, 0x40000000);
    r[X86_R_EAX] = 0x40000001;
    r[X86_R_EBX] = 0x54474354;                                  /* "TCGT" */
    r[X86_R_ECX] = 0x43544743;                                  /* "CGTC" */
    r[X86_R_EDX] = 0x47435447;                                  /* "GTCG" */
    add_leaf(out, &n, max, 0x40000001);
    r = add_leaf(out, &n, max, 0x80000000);
    r[X86_R_EAX] = 0x80000008;
    put_vendor(r);
    r = add_leaf(out, &n, max, 0x80000001);
    r[X86_R_EAX] = TCG_SIGNATURE;
    r[X86_R_ECX] = FE1_ECX;
    r[X86_R_EDX] = FE1_EDX | (F1_EDX & AMD_ALIASES);
    for (unsigned i = 0; i < 3; i++) {
        memcpy(add_leaf(out, &n, max, 0x80000002 + i), brand + 16 * i, 16);
    }
    memcpy(add_leaf(out, &n, max, 0x80000005), amd_l1_cache, 16);
    memcpy(add_leaf(out, &n, max, 0x80000006), amd_l2_cache, 16);
    r = add_leaf(out, &n, max, 0x80000008);
    r[X86_R_EAX] = X86_PHYS_BITS | (X86_VIRT_BITS << 8);
    return n;
}

/* --- XCR0 ------------------------------------------------------------- */

void helper_xgetbv(CPUX86State *env)
{
    if (!(env->cr[4] & CR4_OSXSAVE_MASK)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    if ((uint32_t)env->regs[R_ECX] != 0) {
        gp(env);
    }
    env->regs[R_EAX] = (uint32_t)env->xcr0;
    env->regs[R_EDX] = env->xcr0 >> 32;
}

void helper_xsetbv(CPUX86State *env)
{
    uint64_t v = (env->regs[R_EDX] << 32) | (uint32_t)env->regs[R_EAX];

    if (!(env->cr[4] & CR4_OSXSAVE_MASK)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    helper_check_cpl0(env);
    if ((uint32_t)env->regs[R_ECX] != 0 || !(v & XCR0_X87) ||
        (v & ~XCR0_SUPPORTED)) {
        gp(env);
    }
    env->xcr0 = v;
}

/* --- control and debug registers --------------------------------------- */

void x86_cr0_cr4_efer_changed(CPUX86State *env, uint64_t old_cr0,
                              uint64_t old_cr4, uint64_t old_efer)
{
    if (((env->cr[0] ^ old_cr0) & (CR0_PG_MASK | CR0_WP_MASK |
                                   CR0_PE_MASK)) ||
        ((env->cr[4] ^ old_cr4) & (CR4_PSE_MASK | CR4_PAE_MASK |
                                   CR4_PGE_MASK)) ||
        ((env->efer ^ old_efer) & (EFER_NXE | EFER_LMA))) {
        x86_tlb_flush(env, true);
    }
    x86_update_hflags(env);
}

static void write_cr0(CPUX86State *env, uint64_t value)
{
    uint64_t old = env->cr[0], old_efer = env->efer;

    if (value >> 32) {
        gp(env);
    }
    /* Reserved bits of CR0[31:0] are ignored; ET is fixed to 1. */
    value = (value & CR0_WRITABLE) | CR0_ET_MASK;
    if (((value & CR0_PG_MASK) && !(value & CR0_PE_MASK)) ||
        ((value & CR0_NW_MASK) && !(value & CR0_CD_MASK))) {
        gp(env);
    }
    if ((value & CR0_PG_MASK) && !(old & CR0_PG_MASK) &&
        (env->efer & EFER_LME)) {
        /* Long mode activates: PAE is required, CS.L must be clear. */
        if (!(env->cr[4] & CR4_PAE_MASK) ||
            (env->segs[R_CS].flags & DESC_L_MASK)) {
            gp(env);
        }
        env->efer |= EFER_LMA;
    }
    if (!(value & CR0_PG_MASK) && (old & CR0_PG_MASK) &&
        (env->efer & EFER_LMA)) {
        if (env->hflags & HF_CS64_MASK) {
            gp(env);
        }
        env->efer &= ~EFER_LMA;
    }
    env->cr[0] = value;
    x86_cr0_cr4_efer_changed(env, old, env->cr[4], old_efer);
}

static void write_cr4(CPUX86State *env, uint64_t value)
{
    uint64_t old = env->cr[4];

    if (value & ~(uint64_t)CR4_SUPPORTED) {
        gp(env);
    }
    if ((value & CR4_OSXSAVE_MASK) && env->cpu->ncpuid &&
        !cpuid_bit(env->cpu, 1, X86_R_ECX, 1u << 26)) {
        gp(env);
    }
    if ((env->hflags & HF_LMA_MASK) && !(value & CR4_PAE_MASK)) {
        gp(env);
    }
    env->cr[4] = value;
    x86_cr0_cr4_efer_changed(env, env->cr[0], old, env->efer);
}

uint64_t helper_read_crN(CPUX86State *env, int reg)
{
    uint64_t v;
    bool taken;

    helper_check_cpl0(env);
    switch (reg) {
    case 0:
    case 2:
    case 3:
    case 4:
        return env->cr[reg];
    case 8:
        if (!(env->hflags & HF_CS64_MASK) || !env->cpu->apic) {
            x86_raise_exception(env, EXCP06_ILLOP);
        }
        taken = x86_bql_acquire();
        v = apic_get_cr8(env->cpu->apic);
        x86_bql_release(taken);
        return v;
    default:
        x86_raise_exception(env, EXCP06_ILLOP);
    }
}

bool helper_write_crN(CPUX86State *env, int reg, uint64_t value)
{
    bool taken;

    helper_check_cpl0(env);
    switch (reg) {
    case 0:
        write_cr0(env, value);
        return true;
    case 2:
        env->cr[2] = value;
        return false;
    case 3:
        if ((env->hflags & HF_LMA_MASK) && (value & ~X86_PHYS_MASK)) {
            gp(env);
        }
        env->cr[3] = value;
        x86_tlb_flush(env, false);
        return true;
    case 4:
        write_cr4(env, value);
        return true;
    case 8:
        if (!(env->hflags & HF_CS64_MASK) || !env->cpu->apic) {
            x86_raise_exception(env, EXCP06_ILLOP);
        }
        if (value & ~0xfull) {
            gp(env);
        }
        taken = x86_bql_acquire();
        apic_set_cr8(env->cpu->apic, value);
        x86_bql_release(taken);
        /* A lower priority may let a pending interrupt through. */
        return true;
    default:
        x86_raise_exception(env, EXCP06_ILLOP);
    }
}

/* DR4/DR5 are DR6/DR7 unless CR4.DE makes them #UD. */
static int dr_index(CPUX86State *env, int reg)
{
    helper_check_cpl0(env);
    if (reg == 4 || reg == 5) {
        if (env->cr[4] & CR4_DE_MASK) {
            x86_raise_exception(env, EXCP06_ILLOP);
        }
        return reg + 2;
    }
    if (reg > 7) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    return reg;
}

uint64_t helper_read_drN(CPUX86State *env, int reg)
{
    return env->dr[dr_index(env, reg)];
}

void helper_write_drN(CPUX86State *env, int reg, uint64_t value)
{
    reg = dr_index(env, reg);
    if (reg >= 6 && (value >> 32)) {
        gp(env);
    }
    if (!(env->hflags & HF_LMA_MASK)) {
        value = (uint32_t)value;
    }
    if (reg == 6) {
        value |= DR6_FIXED;
    } else if (reg == 7) {
        value = (value | DR7_FIXED) & ~0xd800ull;     /* bits 11, 12, 14, 15 */
    }
    env->dr[reg] = value;
}

bool helper_lmsw(CPUX86State *env, uint16_t value)
{
    helper_check_cpl0(env);
    /* Only PE, MP, EM and TS; PE can be set but not cleared. */
    write_cr0(env, (env->cr[0] & ~0xeull) | (value & 0xf) |
              (env->cr[0] & CR0_PE_MASK));
    return true;
}

bool helper_clts(CPUX86State *env)
{
    helper_check_cpl0(env);
    env->cr[0] &= ~(uint64_t)CR0_TS_MASK;
    return false;
}

void helper_invlpg(CPUX86State *env, uint64_t linear)
{
    helper_check_cpl0(env);
    x86_tlb_flush_page(env, linear);
}

/* --- MSRs -------------------------------------------------------------- */

/* Index into mtrr_fixed[] of a fixed-range MTRR, or -1. */
static int mtrr_fixed_index(uint32_t msr)
{
    if (msr == MSR_MTRR_FIX64K_00000) {
        return 0;
    }
    if (msr == MSR_MTRR_FIX16K_80000 || msr == MSR_MTRR_FIX16K_A0000) {
        return 1 + msr - MSR_MTRR_FIX16K_80000;
    }
    if (msr >= MSR_MTRR_FIX4K_C0000 && msr < MSR_MTRR_FIX4K_C0000 + 8) {
        return 3 + msr - MSR_MTRR_FIX4K_C0000;
    }
    return -1;
}

/* PAT entries may be UC, WC, WT, WP, WB, UC- (0, 1, 4, 5, 6, 7). */
static bool pat_valid(uint64_t pat)
{
    for (int i = 0; i < 8; i++) {
        uint8_t t = pat >> (8 * i);

        if (t > 7 || t == 2 || t == 3) {
            return false;
        }
    }
    return true;
}

/*
 * What became of an MSR access. MSRs the model does not know read as 0
 * and ignore writes, as under QEMU's TCG (guests written for real
 * hardware probe vendor MSRs such as AMD's HWCR, SYSCFG and performance
 * counters at start-up); logged with -d unimp. The architecture's #GP
 * stays for the reserved bits of the MSRs modelled here and for the
 * x2APIC range while there is no x2APIC mode.
 */
typedef enum MsrResult { MSR_DONE, MSR_UNKNOWN, MSR_FAULT } MsrResult;

#define MSR_X2APIC_FIRST        0x00000800
#define MSR_X2APIC_LAST         0x000008ff

static MsrResult msr_unknown(uint32_t msr)
{
    return msr >= MSR_X2APIC_FIRST && msr <= MSR_X2APIC_LAST ? MSR_FAULT
                                                            : MSR_UNKNOWN;
}

/* Read an MSR: MSR_DONE with *value, else what to do instead. */
static MsrResult msr_read(CPUX86State *env, uint32_t msr, uint64_t *value)
{
    APICState *apic = env->cpu->apic;
    int fixed = mtrr_fixed_index(msr);
    bool taken;

    if (fixed >= 0) {
        *value = env->mtrr_fixed[fixed];
        return MSR_DONE;
    }
    if (msr >= MSR_MTRR_PHYS_FIRST &&
        msr < MSR_MTRR_PHYS_FIRST + MTRR_VAR_COUNT) {
        *value = env->mtrr_var[msr - MSR_MTRR_PHYS_FIRST];
        return MSR_DONE;
    }
    switch (msr) {
    case MSR_IA32_TSC:
        *value = x86_cpu_get_tsc(env);
        return MSR_DONE;
    case MSR_IA32_APICBASE:
        if (apic) {
            taken = x86_bql_acquire();
            env->apic_base = apic_get_base(apic);
            x86_bql_release(taken);
        }
        *value = env->apic_base;
        return MSR_DONE;
    case MSR_MTRRCAP:
        *value = MTRRCAP_VALUE;
        return MSR_DONE;
    case MSR_IA32_SYSENTER_CS:
        *value = env->sysenter_cs;
        return MSR_DONE;
    case MSR_IA32_SYSENTER_ESP:
        *value = env->sysenter_esp;
        return MSR_DONE;
    case MSR_IA32_SYSENTER_EIP:
        *value = env->sysenter_eip;
        return MSR_DONE;
    case MSR_MCG_CAP:
    case MSR_MCG_STATUS:
        *value = 0;                     /* no banks, nothing to report */
        return MSR_DONE;
    case MSR_IA32_MISC_ENABLE:
        *value = env->misc_enable;
        return MSR_DONE;
    case MSR_PAT:
        *value = env->pat;
        return MSR_DONE;
    case MSR_MTRR_DEF_TYPE:
        *value = env->mtrr_def_type;
        return MSR_DONE;
    case MSR_TSC_DEADLINE:
        if (!apic) {
            return MSR_FAULT;
        }
        taken = x86_bql_acquire();
        *value = apic_get_tsc_deadline(apic);
        x86_bql_release(taken);
        return MSR_DONE;
    case MSR_EFER:
        *value = env->efer;
        return MSR_DONE;
    case MSR_STAR:
        *value = env->star;
        return MSR_DONE;
    case MSR_LSTAR:
        *value = env->lstar;
        return MSR_DONE;
    case MSR_CSTAR:
        *value = env->cstar;
        return MSR_DONE;
    case MSR_FMASK:
        *value = env->fmask;
        return MSR_DONE;
    case MSR_FS_BASE:
        *value = env->segs[R_FS].base;
        return MSR_DONE;
    case MSR_GS_BASE:
        *value = env->segs[R_GS].base;
        return MSR_DONE;
    case MSR_KERNEL_GS_BASE:
        *value = env->kernel_gs_base;
        return MSR_DONE;
    case MSR_TSC_AUX:
        *value = env->tsc_aux;
        return MSR_DONE;
    default:
        return msr_unknown(msr);
    }
}

/* EFER bits the CPU model offers (CPUID 0x80000001 EDX). */
static uint64_t efer_writable(X86CPU *cpu)
{
    uint64_t bits = 0;

    if (cpuid_bit(cpu, 0x80000001, X86_R_EDX, 1u << 11)) {
        bits |= EFER_SCE;
    }
    if (cpuid_bit(cpu, 0x80000001, X86_R_EDX, 1u << 29)) {
        bits |= EFER_LME;
    }
    if (cpuid_bit(cpu, 0x80000001, X86_R_EDX, 1u << 20)) {
        bits |= EFER_NXE;
    }
    return bits;
}

static bool write_efer(CPUX86State *env, uint64_t value)
{
    uint64_t old = env->efer;

    if (value & ~(efer_writable(env->cpu) | EFER_LMA)) {
        return false;
    }
    /* LME cannot change while paging is on; LMA is read-only. */
    if (((value ^ old) & EFER_LME) && (env->cr[0] & CR0_PG_MASK)) {
        return false;
    }
    env->efer = (value & ~(uint64_t)EFER_LMA) | (old & EFER_LMA);
    x86_cr0_cr4_efer_changed(env, env->cr[0], env->cr[4], old);
    return true;
}

/* Write an MSR: MSR_FAULT for a reserved value. */
static MsrResult msr_write(CPUX86State *env, uint32_t msr, uint64_t value)
{
    APICState *apic = env->cpu->apic;
    int fixed = mtrr_fixed_index(msr);
    bool taken, ok;

    if (fixed >= 0) {
        env->mtrr_fixed[fixed] = value;
        return MSR_DONE;
    }
    if (msr >= MSR_MTRR_PHYS_FIRST &&
        msr < MSR_MTRR_PHYS_FIRST + MTRR_VAR_COUNT) {
        env->mtrr_var[msr - MSR_MTRR_PHYS_FIRST] = value;
        return MSR_DONE;
    }
    switch (msr) {
    case MSR_IA32_TSC:
        env->tsc_offset = value - x86_tsc_now();
        return MSR_DONE;
    case MSR_IA32_APICBASE:
        if (!apic) {
            return MSR_FAULT;
        }
        taken = x86_bql_acquire();
        ok = apic_set_base(apic, value);
        env->apic_base = apic_get_base(apic);
        x86_bql_release(taken);
        return ok ? MSR_DONE : MSR_FAULT;
    case MSR_IA32_SYSENTER_CS:
        env->sysenter_cs = (uint32_t)value;
        return MSR_DONE;
    case MSR_IA32_SYSENTER_ESP:
        env->sysenter_esp = value;
        return MSR_DONE;
    case MSR_IA32_SYSENTER_EIP:
        env->sysenter_eip = value;
        return MSR_DONE;
    case MSR_MCG_STATUS:
        return value == 0 ? MSR_DONE : MSR_FAULT;
    case MSR_IA32_MISC_ENABLE:
        env->misc_enable = value;
        return MSR_DONE;
    case MSR_PAT:
        if (!pat_valid(value)) {
            return MSR_FAULT;
        }
        env->pat = value;
        return MSR_DONE;
    case MSR_MTRR_DEF_TYPE:
        if (value & ~0xcffull) {
            return MSR_FAULT;
        }
        env->mtrr_def_type = value;
        return MSR_DONE;
    case MSR_TSC_DEADLINE:
        if (!apic) {
            return MSR_FAULT;
        }
        taken = x86_bql_acquire();
        apic_set_tsc_deadline(apic, value);
        x86_bql_release(taken);
        env->tsc_deadline = value;
        return MSR_DONE;
    case MSR_EFER:
        return write_efer(env, value) ? MSR_DONE : MSR_FAULT;
    case MSR_STAR:
        env->star = value;
        return MSR_DONE;
    case MSR_LSTAR:
    case MSR_CSTAR:
    case MSR_FS_BASE:
    case MSR_GS_BASE:
    case MSR_KERNEL_GS_BASE:
        if (!x86_is_canonical(value)) {
            return MSR_FAULT;
        }
        if (msr == MSR_LSTAR) {
            env->lstar = value;
        } else if (msr == MSR_CSTAR) {
            env->cstar = value;
        } else if (msr == MSR_FS_BASE) {
            env->segs[R_FS].base = value;
        } else if (msr == MSR_GS_BASE) {
            env->segs[R_GS].base = value;
        } else {
            env->kernel_gs_base = value;
        }
        return MSR_DONE;
    case MSR_FMASK:
        env->fmask = (uint32_t)value;
        return MSR_DONE;
    case MSR_TSC_AUX:
        if (value >> 32) {
            return MSR_FAULT;
        }
        env->tsc_aux = value;
        return MSR_DONE;
    default:
        return msr_unknown(msr);
    }
}

void helper_rdmsr(CPUX86State *env)
{
    uint32_t msr = env->regs[R_ECX];
    uint64_t value;

    helper_check_cpl0(env);
    switch (msr_read(env, msr, &value)) {
    case MSR_DONE:
        break;
    case MSR_UNKNOWN:
        qemu_log_mask(LOG_UNIMP, "rdmsr: unimplemented MSR 0x%x reads as 0\n",
                      msr);
        value = 0;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "rdmsr of MSR 0x%x: #GP\n", msr);
        gp(env);
    }
    env->regs[R_EAX] = (uint32_t)value;
    env->regs[R_EDX] = value >> 32;
}

bool helper_wrmsr(CPUX86State *env)
{
    uint32_t msr = env->regs[R_ECX];
    uint64_t value = (uint32_t)env->regs[R_EAX] |
                     (env->regs[R_EDX] << 32);

    helper_check_cpl0(env);
    switch (msr_write(env, msr, value)) {
    case MSR_DONE:
        break;
    case MSR_UNKNOWN:
        qemu_log_mask(LOG_UNIMP, "wrmsr: unimplemented MSR 0x%x, 0x%"
                      G_GINT64_MODIFIER "x ignored\n", msr, value);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "wrmsr 0x%" G_GINT64_MODIFIER "x to "
                      "MSR 0x%x refused\n", value, msr);
        gp(env);
    }
    /* EFER, the APIC base and the FS/GS bases change the mode or TLB. */
    return true;
}

/* --- TSC and performance counters -------------------------------------- */

static void check_tsd(CPUX86State *env)
{
    if ((env->cr[4] & CR4_TSD_MASK) && x86_cpl(env) != 0) {
        gp(env);
    }
}

void helper_rdtsc(CPUX86State *env)
{
    uint64_t tsc;

    check_tsd(env);
    tsc = x86_cpu_get_tsc(env);
    env->regs[R_EAX] = (uint32_t)tsc;
    env->regs[R_EDX] = tsc >> 32;
}

void helper_rdtscp(CPUX86State *env)
{
    helper_rdtsc(env);
    env->regs[R_ECX] = (uint32_t)env->tsc_aux;
}

void helper_rdpmc(CPUX86State *env)
{
    /* No counters are offered (CPUID leaf 0xA is absent): always #GP. */
    gp(env);
}

/* --- port I/O ---------------------------------------------------------- */

/* IOPL, then the I/O permission bitmap of a 32/64-bit TSS (SDM 19.5). */
static void check_io(CPUX86State *env, uint16_t port, unsigned size)
{
    int iopl = (env->eflags & IOPL_MASK) >> IOPL_SHIFT;
    unsigned type = (env->tr.flags >> DESC_TYPE_SHIFT) & 15;
    uint32_t off;
    uint16_t bits;

    if (!(env->hflags & HF_PE_MASK) ||
        (!(env->hflags & HF_VM_MASK) && x86_cpl(env) <= iopl)) {
        return;
    }
    if (!(env->tr.flags & DESC_P_MASK) || (type != 9 && type != 11) ||
        env->tr.limit < 103) {
        gp(env);
    }
    off = x86_ld_kernel(env, env->tr.base + 0x66, 2) + port / 8;
    if (off + 1 > env->tr.limit) {
        gp(env);
    }
    bits = x86_ld_kernel(env, env->tr.base + off, 2);
    if ((bits >> (port & 7)) & ((1u << size) - 1)) {
        gp(env);
    }
}

uint32_t helper_in(CPUX86State *env, uint16_t port, unsigned size)
{
    uint32_t v;
    bool taken;

    check_io(env, port, size);
    taken = x86_bql_acquire();
    v = address_space_read_sized(&address_space_io, port, size);
    x86_bql_release(taken);
    return v;
}

void helper_out(CPUX86State *env, uint16_t port, uint32_t value,
                unsigned size)
{
    bool taken;

    check_io(env, port, size);
    taken = x86_bql_acquire();
    address_space_write_sized(&address_space_io, port, value, size);
    x86_bql_release(taken);
}

/* --- privilege checks and small instructions --------------------------- */

void helper_check_iopl(CPUX86State *env)
{
    /*
     * cli/sti: #GP when CPL > IOPL in protected mode, which includes
     * virtual-8086 mode with IOPL < 3 (no VME); pushf/popf call this in
     * virtual-8086 mode only, where the rule is the same.
     */
    if ((env->hflags & HF_PE_MASK) &&
        x86_cpl(env) > (int)((env->eflags & IOPL_MASK) >> IOPL_SHIFT)) {
        gp(env);
    }
}

void helper_check_cpl0(CPUX86State *env)
{
    if (x86_cpl(env) != 0) {
        gp(env);
    }
}

bool helper_hlt(CPUX86State *env, uint64_t next_rip)
{
    helper_check_cpl0(env);
    env->rip = next_rip;
    env->hflags = (env->hflags & ~HF_INHIBIT_IRQ_MASK) | HF_HALTED_MASK;
    return true;
}

void helper_set_inhibit_irq(CPUX86State *env)
{
    env->hflags |= HF_INHIBIT_IRQ_MASK;
}

void helper_pause(CPUX86State *env)
{
    /* A spinning vCPU gives its turn to the others (they share a thread). */
    if (env->cpu->pause_yields) {
        __atomic_fetch_or(&env->interrupt_request, CPU_INTERRUPT_EXIT,
                          __ATOMIC_SEQ_CST);
    }
}

void helper_wbinvd(CPUX86State *env)
{
    helper_check_cpl0(env);
}

/* --- reset ------------------------------------------------------------- */

/* The register state after RESET or INIT (SDM vol. 3A table 10-1). */
void x86_cpu_init_state(X86CPU *cpu)
{
    CPUX86State *env = &cpu->env;
    X86CPUIDEntry *leaf1 = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 1, 0);
    const uint32_t data = DESC_P_MASK | DESC_S_MASK | DESC_W_MASK |
                          DESC_A_MASK;

    memset(env->regs, 0, sizeof(env->regs));
    env->regs[R_EDX] = leaf1 ? leaf1->regs[X86_R_EAX] : 0;
    env->rip = 0xfff0;
    x86_set_hflags(env, 0);
    env->cr[0] = CR0_RESET;
    env->cr[2] = env->cr[3] = env->cr[4] = 0;
    env->efer = 0;
    x86_set_eflags(env, EFLAGS_FIXED, ~0u);
    for (int i = 0; i < X86_NUM_SEGS; i++) {
        env->segs[i] = (SegmentCache) { .limit = 0xffff, .flags = data };
    }
    env->segs[R_CS] = (SegmentCache) {
        .selector = 0xf000, .base = 0xffff0000, .limit = 0xffff,
        .flags = DESC_P_MASK | DESC_S_MASK | DESC_CS_MASK | DESC_R_MASK |
                 DESC_A_MASK,
    };
    env->ldt = (SegmentCache) {
        .limit = 0xffff, .flags = DESC_P_MASK | (2u << DESC_TYPE_SHIFT),
    };
    env->tr = (SegmentCache) {
        .limit = 0xffff, .flags = DESC_P_MASK | (11u << DESC_TYPE_SHIFT),
    };
    env->gdt = env->idt = (DescTable) { .base = 0, .limit = 0xffff };
    memset(env->dr, 0, sizeof(env->dr));
    env->dr[6] = DR6_FIXED;
    env->dr[7] = DR7_FIXED;
    env->exception_index = -1;
    env->error_code = 0;
    x86_tlb_flush(env, true);
    x86_update_hflags(env);
}

void x86_cpu_reset_state(X86CPU *cpu, bool bsp)
{
    CPUX86State *env = &cpu->env;
    X86CPUMsr msrs[X86_CPU_RESET_MSRS_MAX];
    unsigned n = x86_cpu_reset_msrs(bsp, msrs, X86_CPU_RESET_MSRS_MAX);

    env->cpu = cpu;
    cpu->vendor = x86_vendor_from_cpuid(cpu->cpuid, cpu->ncpuid);
    cpu->fcs_fds_zero = cpuid_bit(cpu, 7, X86_R_EBX, 1u << 13);
    __atomic_store_n(&env->interrupt_request, 0, __ATOMIC_SEQ_CST);
    x86_cpu_init_state(cpu);
    env->mtrr_def_type = 0;
    memset(env->mtrr_fixed, 0, sizeof(env->mtrr_fixed));
    memset(env->mtrr_var, 0, sizeof(env->mtrr_var));
    env->tsc_deadline = 0;
    env->kernel_gs_base = 0;
    x86_fpu_reset(env);
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = msrs[i].value;

        switch (msrs[i].index) {
        case MSR_IA32_APICBASE:
            env->apic_base = v;
            break;
        case MSR_IA32_TSC:
            env->tsc_offset = v - x86_tsc_now();
            break;
        case MSR_IA32_MISC_ENABLE:
            env->misc_enable = v;
            break;
        case MSR_PAT:
            env->pat = v;
            break;
        case MSR_IA32_SYSENTER_CS:
            env->sysenter_cs = v;
            break;
        case MSR_IA32_SYSENTER_ESP:
            env->sysenter_esp = v;
            break;
        case MSR_IA32_SYSENTER_EIP:
            env->sysenter_eip = v;
            break;
        case MSR_STAR:
            env->star = v;
            break;
        case MSR_LSTAR:
            env->lstar = v;
            break;
        case MSR_CSTAR:
            env->cstar = v;
            break;
        case MSR_FMASK:
            env->fmask = v;
            break;
        case MSR_KERNEL_GS_BASE:
            env->kernel_gs_base = v;
            break;
        case MSR_TSC_AUX:
            env->tsc_aux = v;
            break;
        default:
            break;
        }
    }
    cpu->stopped = !bsp;
}

unsigned x86_tcg_model_cpuid(const X86CPUDef *def, X86CPUIDEntry *out,
                             unsigned max, Error **errp)
{
    X86CPUIDEntry supported[32];
    unsigned nsupported = x86_tcg_supported_cpuid(supported,
                                                  G_N_ELEMENTS(supported));
    X86CPUTopology topo = x86_cpu_topology(1, 1, 1);
    X86CPUDef d = *def;

    if (d.kind == X86_CPU_MODEL_HOST) {
        d.kind = X86_CPU_MODEL_MAX;
    }
    return x86_cpu_build_cpuid(&d, &topo, 0, supported, nsupported, out, max,
                               NULL);
}
