/*
 * exceptions: raises #DE, #UD, #BP, #GP (two kinds), #PF (three kinds) and
 * a software interrupt; the handler records vector, error code, RIP and
 * CR2 and resumes after the faulting instruction.  Faults must report the
 * faulting instruction's address, traps (#BP, INT n) the next one.  The
 * last #PF is taken at CPL 3 (error code bit 2), through the TSS stack.
 *
 * soft_int=off in the cmdline skips #BP and INT n: hosts whose KVM runs
 * the guest kernel deprivileged (kvm_pvm) cannot emulate INT n/INT3 and
 * stop the guest with an emulation failure.
 */
#include "guest.h"

const char guest_name[] = "exceptions";

#define VEC_DE      0
#define VEC_BP      3
#define VEC_UD      6
#define VEC_GP      13
#define VEC_PF      14
#define VEC_SOFT    0x80

#define PF_ERR_PRESENT  0x1
#define PF_ERR_WRITE    0x2
#define PF_ERR_USER     0x4

#define UNMAPPED    0x8000000000ul      /* PML4 slot 1: never mapped */
#define READ_ONLY   0x30000000ul        /* a 2 MiB page made read-only */
#define BAD_SELECTOR 0xff8              /* GDT slot 511, past its limit */

/* Where the handler resumes; set by each trial's asm. */
volatile uint64_t resume_rip;

static struct {
    uint64_t vector, error, rip, cr2;
    unsigned count;
} seen;
static uint64_t seen_cs;

static void on_exception(struct irq_frame *f)
{
    seen.vector = f->vector;
    seen.error = f->error;
    seen.rip = f->rip;
    seen.cr2 = read_cr2();
    seen.count++;
    seen_cs = f->cs;
    f->rip = resume_rip;
}

/*
 * Run insn with the resume point right after it.  Evaluates to the
 * address of insn (label 1); label 2 follows it.
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

/* Check the last exception against what the trial should have raised. */
static void expect(const char *what, unsigned count, uint64_t vector,
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

static void expect_pf(const char *what, unsigned count, uint64_t error,
                      uint64_t cr2, uint64_t rip)
{
    expect(what, count, VEC_PF, error, rip);
    if (seen.cr2 != cr2) {
        guest_fail("%s: cr2 0x%lx, expected 0x%lx", what, seen.cr2, cr2);
    }
    printf("exceptions: #PF %s: error 0x%lx cr2 0x%lx\n", what, seen.error,
           seen.cr2);
}

/* At CPL 3: a #PF taken through the TSS stack, resumed in user mode. */
static uint64_t user_fault(uint64_t arg)
{
    uint64_t at = TRIAL("movabsq $0x8000000010, %%rax", "movq (%%rax), %%rax",
                        "rax");
    return at ^ arg;
}

/* The length of "int3" and "int $0x80", for the traps' return address. */
#define INT3_LEN    1
#define INTN_LEN    2

void guest_main(uint32_t magic, struct mb_info *mb)
{
    static const unsigned vectors[] = {
        VEC_DE, VEC_BP, VEC_UD, VEC_GP, VEC_PF, VEC_SOFT
    };
    const char *opt = NULL;
    unsigned n = 0;
    uint64_t at;

    if (mb->flags & MB_INFO_CMDLINE) {
        opt = cmdline_value((const char *)(uintptr_t)mb->cmdline, "soft_int");
    }
    bool soft_int = !opt || memcmp(opt, "off", 3);

    for (unsigned i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        idt_set_handler(vectors[i], on_exception);
    }

    at = TRIAL("xorl %%edx, %%edx; movl $1, %%eax; xorl %%ecx, %%ecx",
               "divl %%ecx", "rax", "rcx", "rdx");
    expect("#DE", ++n, VEC_DE, 0, at);
    printf("exceptions: #DE divide by zero: vector %lu\n", seen.vector);

    at = TRIAL("", "ud2", "rax");
    expect("#UD", ++n, VEC_UD, 0, at);
    printf("exceptions: #UD ud2: vector %lu\n", seen.vector);

    if (soft_int) {
        at = TRIAL("", "int3", "rax");
        expect("#BP", ++n, VEC_BP, 0, at + INT3_LEN);
        printf("exceptions: #BP int3: vector %lu, rip after int3\n",
               seen.vector);

        at = TRIAL("", "int $0x80", "rax");
        expect("int $0x80", ++n, VEC_SOFT, 0, at + INTN_LEN);
        printf("exceptions: int $0x80: vector %lu, rip after int\n",
               seen.vector);
    } else {
        printf("exceptions: #BP and int $0x80 skipped (soft_int=off)\n");
    }

    at = TRIAL("movabsq $0x8000000000000000, %%rax", "movq (%%rax), %%rax",
               "rax");
    expect("#GP non-canonical", ++n, VEC_GP, 0, at);
    printf("exceptions: #GP non-canonical address: error 0x%lx\n",
           seen.error);

    at = TRIAL("movl $" "0xff8" ", %%eax", "movl %%eax, %%ds", "rax");
    expect("#GP selector", ++n, VEC_GP, BAD_SELECTOR, at);
    printf("exceptions: #GP selector 0x%x past the GDT limit: error 0x%lx\n",
           BAD_SELECTOR, seen.error);

    at = TRIAL("movabsq $0x8000000000, %%rax", "movq (%%rax), %%rax", "rax");
    expect_pf("read, not present", ++n, 0, UNMAPPED, at);

    at = TRIAL("movabsq $0x8000000008, %%rax", "movq %%rax, (%%rax)", "rax");
    expect_pf("write, not present", ++n, PF_ERR_WRITE, UNMAPPED + 8, at);

    paging_set_flags(READ_ONLY, PTE_PRESENT | PTE_USER);
    at = TRIAL("movl $0x30000123, %%eax", "movb %%al, (%%rax)", "rax");
    paging_set_flags(READ_ONLY, PTE_KERNEL_RW);
    expect_pf("write, read-only", ++n, PF_ERR_PRESENT | PF_ERR_WRITE,
              READ_ONLY + 0x123, at);

    uint64_t key = 0x5eed;
    at = run_user(user_fault, key) ^ key;
    expect_pf("user read, not present", ++n, PF_ERR_USER, UNMAPPED + 0x10, at);
    if ((seen_cs & 3) != 3) {
        guest_fail("user #PF came from cs 0x%lx", seen_cs);
    }
    printf("exceptions: cpl 3 call returned through #UD\n");

    printf("exceptions: %u exceptions caught and resumed\n", n);
    guest_pass();
}
