/*
 * syscall: system call round trips from CPL 3 and back.
 *   - SYSCALL/SYSRETQ through STAR, LSTAR and FMASK: the kernel side
 *     records RCX (the next RIP), R11 (RFLAGS at the call), its own
 *     RFLAGS (FMASK cleared the arithmetic flags, TF, IF and DF, not
 *     AC), CS and SS, and bumps
 *     a counter; SYSRETQ restores RFLAGS from R11 (one call has the
 *     kernel set IF there, which CPL 3 cannot do itself) and returns to
 *     CS 0x2b / SS 0x23 from STAR[63:48].
 *   - INT3 and INT $0x80 through DPL 3 interrupt gates: the frame on
 *     the TSS RSP0 stack holds the user CS, SS and next RIP; IRETQ goes
 *     back.
 *   - SYSENTER/SYSEXIT (64-bit), on Intel CPUs only (AMD raises #UD in
 *     long mode): checked without printing, so the output is the same
 *     whatever the vendor.
 * calls=N (default 1000) sets the SYSCALL round trips, ints=N (default
 * 100) those of each software interrupt.  This host's KVM (kvm_pvm)
 * runs SYSCALL from CPL 3 to LSTAR still at hardware CPL 3, where
 * SYSRETQ faults, and raises #UD for SYSENTER and INT n at CPL 3:
 * syscall_insn=off skips SYSCALL and SYSENTER, soft_int=off INT $0x80.
 */
#include "trial.h"

const char guest_name[] = "syscall";

#define VEC_SYSCALL     0x80
/* sysretq: CS = STAR[63:48] + 16, SS = STAR[63:48] + 8, both RPL 3. */
#define STAR_VALUE      ((uint64_t)SEL_CODE32 << 48 | \
                         (uint64_t)SEL_CODE64 << 32)
/*
 * FMASK clears the arithmetic flags, TF, IF and DF but not AC, so the
 * kernel sees AC set.  (It has to mask all arithmetic flags and DF:
 * QEMU 7.2's TCG clears those on SYSCALL whatever FMASK says.)
 */
#define RFLAGS_ARITH    0x8d5ul
#define FMASK_VALUE     (RFLAGS_ARITH | RFLAGS_TF | RFLAGS_IF | RFLAGS_DF)
/* What CPL 3 loads into RFLAGS before each call: CF PF ZF DF OF AC. */
#define USER_FLAGS      (0x2 | RFLAGS_CF | RFLAGS_PF | RFLAGS_ZF | \
                         RFLAGS_DF | RFLAGS_OF | RFLAGS_AC)
/* The RFLAGS bits SYSRETQ takes from R11 (SDM vol. 2B, SYSRET). */
#define SYSRET_MASK     0x3c7fd7ul
#define USER_CS         (SEL_USER_CODE64 | 3)
#define USER_SS         (SEL_USER_DATA | 3)

/* Written by syscall_entry at CPL 0; sc_r11_or is what it ORs into R11. */
uint64_t sc_rcx, sc_r11, sc_rflags, sc_count, sc_r11_or;
uint16_t sc_cs, sc_ss;

void syscall_entry(void);
asm(".text\n"
    ".globl syscall_entry\n"
    "syscall_entry:\n\t"
    "movq %rcx, sc_rcx(%rip)\n\t"
    "movq %r11, sc_r11(%rip)\n\t"
    "pushfq\n\t"                        /* the user's stack: no switch */
    "popq sc_rflags(%rip)\n\t"
    "movw %cs, sc_cs(%rip)\n\t"
    "movw %ss, sc_ss(%rip)\n\t"
    "incq sc_count(%rip)\n\t"
    "orq sc_r11_or(%rip), %r11\n\t"
    "leaq 1(%rax,%rax,2), %rax\n\t"     /* the call's result: 3n + 1 */
    "sysretq\n");

/* SYSENTER lands here on sysenter_stack; SYSEXITQ returns to RDX/RCX. */
uint64_t se_count, se_rflags;
uint16_t se_cs, se_ss;
static uint8_t sysenter_stack[4096] __attribute__((aligned(16)));

void sysenter_entry(void);
asm(".text\n"
    ".globl sysenter_entry\n"
    "sysenter_entry:\n\t"
    "pushfq\n\t"
    "popq se_rflags(%rip)\n\t"
    "movw %cs, se_cs(%rip)\n\t"
    "movw %ss, se_ss(%rip)\n\t"
    "incq se_count(%rip)\n\t"
    "leaq 7(%rax,%rax,4), %rax\n\t"     /* the call's result: 5n + 7 */
    "sysexitq\n");

/* The first mismatch seen at CPL 3, reported at CPL 0 (no port I/O). */
static struct {
    const char *what;
    uint64_t call, got, want;
} bad;

static uint64_t mismatch(const char *what, uint64_t call, uint64_t got,
                         uint64_t want)
{
    bad.what = what;
    bad.call = call;
    bad.got = got;
    bad.want = want;
    return 1;
}

#define CHECK(what, call, got, want) do {                               \
        if ((got) != (want)) {                                          \
            return mismatch(what, call, got, want);                     \
        }                                                               \
    } while (0)

/* Results of the last SYSCALL, for the printed summary. */
static uint64_t last_before, last_after;
static uint16_t user_cs, user_ss;

/* One SYSCALL with RFLAGS = USER_FLAGS; checks what both sides saw. */
static uint64_t one_syscall(uint64_t i)
{
    uint64_t rax = i, next, before, after;
    uint16_t cs, ss;

    asm volatile("pushq %[flags]\n\t"
                 "popfq\n\t"
                 "pushfq\n\t"
                 "popq %[before]\n\t"
                 "leaq 1f(%%rip), %[next]\n\t"
                 "syscall\n"
                 "1:\tpushfq\n\t"
                 "popq %[after]\n\t"
                 "pushq $2\n\t"         /* DF clear again for C code */
                 "popfq\n\t"
                 "movw %%cs, %[cs]\n\t"
                 "movw %%ss, %[ss]"
                 : "+a"(rax), [next] "=&r"(next), [before] "=&r"(before),
                   [after] "=&r"(after), [cs] "=&r"(cs), [ss] "=&r"(ss)
                 : [flags] "r"(USER_FLAGS)
                 : "rcx", "r11", "memory", "cc");
    CHECK("result", i, rax, 3 * i + 1);
    CHECK("kernel counter", i, sc_count, i + 1);
    CHECK("rcx", i, sc_rcx, next);
    CHECK("r11", i, sc_r11, before);
    CHECK("kernel rflags", i, sc_rflags, before & ~FMASK_VALUE);
    CHECK("rflags after sysret", i, after,
          ((before | sc_r11_or) & SYSRET_MASK) | 0x2);
    CHECK("kernel cs", i, sc_cs, SEL_CODE64);
    CHECK("kernel ss", i, sc_ss, SEL_DATA);
    CHECK("user cs", i, cs, USER_CS);
    CHECK("user ss", i, ss, USER_SS);
    last_before = before;
    last_after = after;
    user_cs = cs;
    user_ss = ss;
    return 0;
}

static uint64_t user_syscalls(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (one_syscall(i)) {
            return 1;
        }
    }
    return 0;
}

/* The kernel sets IF in R11; SYSRETQ must enable interrupts at CPL 3. */
static uint64_t user_syscall_if(uint64_t i)
{
    uint64_t r;

    sc_r11_or = RFLAGS_IF;
    r = one_syscall(i);
    sc_r11_or = 0;
    if (r) {
        return r;
    }
    /* Now IF is set at CPL 3: FMASK must clear it on the way in. */
    r = one_syscall(i + 1);
    if (r) {
        return r;
    }
    CHECK("IF kept at cpl 3", i + 1, last_before & RFLAGS_IF, RFLAGS_IF);
    return 0;
}

static void run_checked(uint64_t (*fn)(uint64_t), uint64_t arg)
{
    if (run_user(fn, arg)) {
        guest_fail("%s (call %lu): 0x%lx, expected 0x%lx", bad.what,
                   bad.call, bad.got, bad.want);
    }
}

/*
 * Software interrupts through DPL 3 gates: the handler checks the frame
 * (user CS and SS, the next RIP, on the TSS RSP0 stack) and answers in
 * RAX through IRETQ.
 */
static uint64_t int_count, int_frame_top;
uint64_t int_next_rip;                  /* set by the callers' asm */

static void on_soft_int(struct irq_frame *f)
{
    if (f->cs != USER_CS || f->ss != USER_SS || f->rip != int_next_rip ||
        (uintptr_t)f + sizeof(*f) != int_frame_top) {
        guest_fail("vector 0x%lx: cs 0x%lx ss 0x%lx rip 0x%lx frame end "
                   "0x%lx, expected cs 0x%x ss 0x%x rip 0x%lx frame end "
                   "0x%lx", f->vector, f->cs, f->ss, f->rip,
                   (uintptr_t)f + sizeof(*f), USER_CS, USER_SS,
                   int_next_rip, int_frame_top);
    }
    int_count++;
    f->rax = f->rax * 5 + 2;
}

#define USER_SOFT_INTS(name, insn)                                      \
static uint64_t name(uint64_t n)                                        \
{                                                                       \
    int_count = 0;                                                      \
    for (uint64_t i = 0; i < n; i++) {                                  \
        uint64_t rax = i;                                               \
                                                                        \
        asm volatile("leaq 1f(%%rip), %%rcx\n\t"                        \
                     "movq %%rcx, int_next_rip(%%rip)\n\t"              \
                     insn "\n"                                          \
                     "1:"                                               \
                     : "+a"(rax) : : "rcx", "memory", "cc");            \
        CHECK(insn " result", i, rax, 5 * i + 2);                       \
        CHECK(insn " count", i, int_count, i + 1);                      \
    }                                                                   \
    return 0;                                                           \
}
USER_SOFT_INTS(user_int3s, "int3")
USER_SOFT_INTS(user_int80s, "int $0x80")

static void soft_ints(unsigned vector, uint64_t (*fn)(uint64_t),
                      const char *what, uint64_t n)
{
    idt_set_dpl(vector, 3);
    idt_set_handler(vector, on_soft_int);
    int_frame_top = tss_get(TSS_RSP0);
    run_checked(fn, n);
    idt_set_dpl(vector, 0);
    printf("syscall: %s from cpl 3: %lu round trips through the TSS rsp0 "
           "stack\n", what, int_count);
}

static uint64_t user_sysenters(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t rax = i;
        uint16_t ss;

        /* SYSEXITQ loads SS = SYSENTER_CS + 40 (here the TSS slot, a
         * flat cached selector 0x33): put the real user SS back. */
        asm volatile("leaq 1f(%%rip), %%rdx\n\t"
                     "movq %%rsp, %%rcx\n\t"
                     "sysenter\n"
                     "1:\tmovw %%ss, %[ss]\n\t"
                     "movl %[uss], %%edx\n\t"
                     "movl %%edx, %%ss"
                     : "+a"(rax), [ss] "=&r"(ss)
                     : [uss] "i"(USER_SS)
                     : "rcx", "rdx", "memory", "cc");
        CHECK("sysenter result", i, rax, 5 * i + 7);
        CHECK("sysenter count", i, se_count, i + 1);
        CHECK("sysenter cs", i, se_cs, SEL_CODE64);
        CHECK("sysenter ss", i, se_ss, SEL_DATA);
        CHECK("sysenter rflags IF", i, se_rflags & RFLAGS_IF, 0);
        CHECK("sysexit ss", i, ss, (SEL_CODE64 + 40) | 3);
    }
    return 0;
}

/* SYSCALL/SYSRETQ, then SYSENTER/SYSEXITQ where the vendor has them. */
static void fast_calls(uint64_t calls)
{
    wrmsr(MSR_STAR, STAR_VALUE);
    wrmsr(MSR_LSTAR, (uintptr_t)syscall_entry);
    wrmsr(MSR_FMASK, FMASK_VALUE);
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
    if (rdmsr(MSR_STAR) != STAR_VALUE ||
        rdmsr(MSR_LSTAR) != (uintptr_t)syscall_entry ||
        rdmsr(MSR_FMASK) != FMASK_VALUE) {
        guest_fail("STAR/LSTAR/FMASK do not read back");
    }
    printf("syscall: STAR 0x%016lx FMASK 0x%lx, EFER.SCE %lu\n",
           rdmsr(MSR_STAR), rdmsr(MSR_FMASK), rdmsr(MSR_EFER) & EFER_SCE);

    run_checked(user_syscalls, calls);
    printf("syscall: %lu round trips, kernel counter %lu\n", calls,
           sc_count);
    printf("syscall: r11 0x%lx at entry, kernel rflags 0x%lx (FMASK "
           "cleared arithmetic, IF, DF; AC kept), rflags 0x%lx after "
           "sysretq\n", sc_r11, sc_rflags, last_after);
    printf("syscall: rcx held the next rip; kernel cs 0x%x ss 0x%x, "
           "user cs 0x%x ss 0x%x\n", sc_cs, sc_ss, user_cs, user_ss);

    sc_count = calls;
    run_checked(user_syscall_if, calls);
    printf("syscall: sysretq set IF from r11: user rflags 0x%lx, next "
           "kernel rflags 0x%lx\n", last_before, sc_rflags);

    /* Intel only, silently: the output must not depend on the vendor. */
    if (cpu_is_intel()) {
        wrmsr(MSR_SYSENTER_CS, SEL_CODE64);
        wrmsr(MSR_SYSENTER_ESP, (uintptr_t)sysenter_stack +
              sizeof(sysenter_stack));
        wrmsr(MSR_SYSENTER_EIP, (uintptr_t)sysenter_entry);
        run_checked(user_sysenters, 100);
    }
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    uint64_t calls = option_u64(mb, "calls", 1000);
    uint64_t ints = option_u64(mb, "ints", 100);

    if (option_on(mb, "syscall_insn")) {
        fast_calls(calls);
    } else {
        printf("syscall: SYSCALL and SYSENTER skipped "
               "(syscall_insn=off)\n");
    }

    soft_ints(VEC_BP, user_int3s, "int3", ints);
    if (option_on(mb, "soft_int")) {
        soft_ints(VEC_SYSCALL, user_int80s, "int $0x80", ints);
    } else {
        printf("syscall: int $0x80 skipped (soft_int=off)\n");
    }

    guest_pass();
}
