/*
 * Helpers shared by syscall.c, privilege.c and pgedge.c: MSRs, control
 * registers, IDT gate and TSS edits, and "trials" that run one
 * instruction expected to fault, record what the handler saw and resume
 * right after it.  Header-only (static functions): each program includes
 * it once and the kit's lib/ stays as it is.
 */
#ifndef GUEST_TRIAL_H
#define GUEST_TRIAL_H

#include "guest.h"
#include "asm.h"

#define VEC_DE      0
#define VEC_DB      1
#define VEC_BP      3
#define VEC_UD      6
#define VEC_GP      13
#define VEC_PF      14

#define PF_ERR_P    0x01
#define PF_ERR_W    0x02
#define PF_ERR_U    0x04
#define PF_ERR_RSVD 0x08
#define PF_ERR_ID   0x10

#define RFLAGS_CF   (1ul << 0)
#define RFLAGS_PF   (1ul << 2)
#define RFLAGS_ZF   (1ul << 6)
#define RFLAGS_TF   (1ul << 8)
#define RFLAGS_IF   (1ul << 9)
#define RFLAGS_DF   (1ul << 10)
#define RFLAGS_OF   (1ul << 11)
#define RFLAGS_NT   (1ul << 14)
#define RFLAGS_AC   (1ul << 18)

#define MSR_STAR            0xc0000081
#define MSR_LSTAR           0xc0000082
#define MSR_FMASK           0xc0000084
#define MSR_SYSENTER_CS     0x174
#define MSR_SYSENTER_ESP    0x175
#define MSR_SYSENTER_EIP    0x176
#define EFER_SCE            (1ul << 0)
#define EFER_NXE            (1ul << 11)
#define CR4_PGE             (1ul << 7)

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;

    asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return lo | (uint64_t)hi << 32;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
                 "d"((uint32_t)(v >> 32)) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                 : "a"(leaf), "c"(sub));
}

#define DEFINE_CR(n)                                                    \
static inline uint64_t read_cr##n(void)                                 \
{                                                                       \
    uint64_t v;                                                         \
    asm volatile("mov %%cr" #n ", %0" : "=r"(v));                       \
    return v;                                                           \
}                                                                       \
static inline void write_cr##n(uint64_t v)                              \
{                                                                       \
    asm volatile("mov %0, %%cr" #n : : "r"(v) : "memory");              \
}
DEFINE_CR(0)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(uint64_t addr)
{
    asm volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

/* "GenuineIntel": the only vendor with SYSENTER in 64-bit mode. */
static inline bool cpu_is_intel(void)
{
    uint32_t r[4];

    cpuid(0, 0, r);
    return r[1] == 0x756e6547 && r[3] == 0x49656e69 && r[2] == 0x6c65746e;
}

struct desc_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

/* Byte 4 of a 64-bit gate is its IST index, byte 5 its type and DPL. */
static inline uint8_t *idt_gate(unsigned vector)
{
    struct desc_ptr d;

    asm volatile("sidt %0" : "=m"(d));
    return (uint8_t *)(uintptr_t)(d.base + 16 * vector);
}

static inline void idt_set_dpl(unsigned vector, unsigned dpl)
{
    uint8_t *g = idt_gate(vector);

    g[5] = (g[5] & 0x9f) | dpl << 5;
}

static inline void idt_set_ist(unsigned vector, unsigned ist)
{
    idt_gate(vector)[4] = ist;
}

/* The running TSS, found through TR and the GDT as the CPU finds it. */
static inline uint8_t *tss_base(void)
{
    struct desc_ptr d;
    uint16_t tr;

    asm volatile("sgdt %0; str %1" : "=m"(d), "=r"(tr));
    uint64_t *e = (uint64_t *)(uintptr_t)(d.base + (tr & ~7));
    return (uint8_t *)(uintptr_t)(((e[0] >> 16) & 0xffffff) |
                                  ((e[0] >> 56) & 0xff) << 24 | e[1] << 32);
}

#define TSS_RSP0    4
#define TSS_IST(n)  (36 + 8 * ((n) - 1))

static inline uint64_t tss_get(unsigned off)
{
    uint64_t v;

    memcpy(&v, tss_base() + off, 8);
    return v;
}

static inline void tss_set(unsigned off, uint64_t v)
{
    memcpy(tss_base() + off, &v, 8);
}

/* --- trials ----------------------------------------------------------- */

/* Where on_trial_exception resumes; set by each trial's asm. */
volatile uint64_t resume_rip;

static struct {
    uint64_t vector, error, rip, cr2, cs, ss, rsp, rflags, frame;
    unsigned count;
} seen;

static inline void on_trial_exception(struct irq_frame *f)
{
    seen.vector = f->vector;
    seen.error = f->error;
    seen.rip = f->rip;
    seen.cr2 = read_cr2();
    seen.cs = f->cs;
    seen.ss = f->ss;
    seen.rsp = f->rsp;
    seen.rflags = f->rflags;
    seen.frame = (uintptr_t)f;
    seen.count++;
    f->rip = resume_rip;
}

/*
 * Run insn with the resume point right after it.  Evaluates to the
 * address of insn (label 1); label 2 follows it.  Extra arguments are
 * clobbers.
 */
#define TRIAL(setup, insn, ...) ({                                      \
    uint64_t at_;                                                       \
    asm volatile("leaq 2f(%%rip), %%r11\n\t"                            \
                 "movq %%r11, resume_rip(%%rip)\n\t"                    \
                 "leaq 1f(%%rip), %0\n\t"                               \
                 setup "\n"                                             \
                 "1: " insn "\n"                                        \
                 "2:\n"                                                 \
                 : "=&r"(at_) : : "r11", "memory", "cc", __VA_ARGS__);  \
    at_;                                                                \
})

/* The last exception must be the count'th, with this vector/error/rip. */
static inline void expect_exc(const char *what, unsigned count, uint64_t vector,
                       uint64_t error, uint64_t rip)
{
    if (seen.count != count) {
        guest_fail("%s: %u exceptions, expected %u", what, seen.count, count);
    }
    if (seen.vector != vector || seen.error != error || seen.rip != rip) {
        guest_fail("%s: vector %lu error 0x%lx rip 0x%lx, expected vector "
                   "%lu error 0x%lx rip 0x%lx", what, seen.vector,
                   seen.error, seen.rip, vector, error, rip);
    }
}

static inline void expect_pf(const char *what, unsigned count, uint64_t error,
                      uint64_t cr2, uint64_t rip)
{
    expect_exc(what, count, VEC_PF, error, rip);
    if (seen.cr2 != cr2) {
        guest_fail("%s: cr2 0x%lx, expected 0x%lx", what, seen.cr2, cr2);
    }
}

/* A program's cmdline option "key=off" (default on). */
static inline bool option_on(struct mb_info *mb, const char *key)
{
    const char *v = NULL;

    if (mb->flags & MB_INFO_CMDLINE) {
        v = cmdline_value((const char *)(uintptr_t)mb->cmdline, key);
    }
    return !v || memcmp(v, "off", 3);
}

/* A decimal option with a default; a malformed value fails the run. */
static inline uint64_t option_u64(struct mb_info *mb, const char *key,
                                  uint64_t dflt)
{
    const char *v = NULL;
    bool ok;

    if (mb->flags & MB_INFO_CMDLINE) {
        v = cmdline_value((const char *)(uintptr_t)mb->cmdline, key);
    }
    if (!v) {
        return dflt;
    }
    uint64_t n = parse_u64(v, &ok);
    if (!ok) {
        guest_fail("%s wants a number", key);
    }
    return n;
}

#endif
