/*
 * Exception and interrupt delivery of the software CPU in the modes the
 * guest kit (64-bit programs) does not reach: the real-mode IVT, 32-bit
 * protected-mode gates with the TSS stack switch and iret back to CPL 3,
 * software-interrupt DPL checks, #DF and the triple fault; plus far
 * calls through a call gate. Descriptor tables are written by hand into
 * a RAM region; paging is off.
 *
 * Frame layouts and checks: Intel SDM vol. 3A 6.12 (figure 6-4), 6.15
 * (table 6-5: double faults), vol. 2 "INT n" and "IRET".
 */
#include <setjmp.h>
#include <string.h>

#include <glib.h>

#include "system/memory.h"
#include "target/i386/cpu-state.h"
#include "target/i386/tcg/helper.h"
#include "target/i386/tcg/sys-internal.h"

#define RAM_SIZE    (1u << 20)
#define GDT         0x1000
#define TSS         0x2000
#define IDT         0x3000
#define STACK0      0x8000          /* ESP0 in the TSS */
#define STACK3      0x9000

/* Selectors of the test GDT. */
#define SEL_CODE0   0x08
#define SEL_DATA0   0x10
#define SEL_CODE3   0x1b
#define SEL_DATA3   0x23
#define SEL_TSS     0x28
#define SEL_GATE    0x33            /* call gate, DPL 3, to SEL_CODE0 */

static uint8_t *ram;
static MemoryRegion ram_mr;
static X86CPU *cpu;
static CPUX86State *env;

static void put32(uint64_t pa, uint32_t v)
{
    memcpy(ram + pa, &v, 4);
}

static uint32_t get32(uint64_t pa)
{
    uint32_t v;

    memcpy(&v, ram + pa, 4);
    return v;
}

static uint16_t get16(uint64_t pa)
{
    uint16_t v;

    memcpy(&v, ram + pa, 2);
    return v;
}

/* A flat 4 GiB code (type 0xb) or data (type 0x3) descriptor. */
static void put_flat(unsigned index, unsigned type, int dpl)
{
    put32(GDT + index * 8, 0x0000ffff);
    put32(GDT + index * 8 + 4, 0x00cf9000 | (type << 8) | (dpl << 13));
}

/* A 32-bit interrupt (type 14) or trap (15) gate in the IDT. */
static void put_gate(unsigned vector, unsigned type, int dpl, bool present,
                     uint32_t offset)
{
    put32(IDT + vector * 8, (SEL_CODE0 << 16) | (offset & 0xffff));
    put32(IDT + vector * 8 + 4, (offset & 0xffff0000) | (type << 8) |
          (dpl << 13) | (present ? 0x8000 : 0));
}

static void load(int seg, uint16_t sel)
{
    uint32_t e1 = get32(GDT + (sel & ~7)), e2 = get32(GDT + (sel & ~7) + 4);

    x86_load_seg_cache(env, seg, sel, x86_desc_base(e1, e2),
                       x86_desc_limit(e1, e2), x86_desc_flags(e2));
}

/* 32-bit protected mode at CPL 3, tables as described above. */
static void reset_protected(void)
{
    memset(cpu, 0, sizeof(*cpu));
    memset(ram, 0, RAM_SIZE);
    env->cpu = cpu;
    x86_tlb_flush(env, true);
    put_flat(1, 0xb, 0);
    put_flat(2, 0x3, 0);
    put_flat(3, 0xb, 3);
    put_flat(4, 0x3, 3);
    /* 32-bit available TSS at TSS, limit 0x67. */
    put32(GDT + 5 * 8, (TSS << 16) | 0x67);
    put32(GDT + 5 * 8 + 4, 0x00008900);
    /* 32-bit call gate, DPL 3, 2 parameters, to SEL_CODE0:0x7000. */
    put32(GDT + 6 * 8, (SEL_CODE0 << 16) | 0x7000);
    put32(GDT + 6 * 8 + 4, 0x0000ec02);
    put32(TSS + 4, STACK0);
    put32(TSS + 8, SEL_DATA0);
    env->gdt = (DescTable) { .base = GDT, .limit = 7 * 8 - 1 };
    env->idt = (DescTable) { .base = IDT, .limit = 256 * 8 - 1 };
    env->cr[0] = CR0_PE_MASK | CR0_ET_MASK;
    env->tr = (SegmentCache) { .selector = SEL_TSS, .base = TSS,
                               .limit = 0x67, .flags = 0x8b00 };
    x86_set_eflags(env, IF_MASK | EFLAGS_FIXED, ~0u);
    load(R_SS, SEL_DATA3);
    load(R_CS, SEL_CODE3);
    load(R_DS, SEL_DATA3);
    load(R_ES, SEL_DATA3);
    env->regs[R_ESP] = STACK3;
    env->rip = 0x4000;
    env->exception_index = -1;
    put_gate(EXCP08_DBLE, 14, 0, true, 0x5008);
    put_gate(EXCP0B_NOSEG, 14, 0, true, 0x500b);
    put_gate(EXCP0D_GPF, 14, 0, true, 0x500d);
    put_gate(0x80, 15, 3, true, 0x5080);
    put_gate(0x81, 15, 0, true, 0x5081);
}

/* What the instruction at rip raised; delivered as the loop does. */
static void deliver(int vector, uint32_t error, bool is_int,
                    uint64_t next_rip)
{
    env->exception_index = vector;
    env->error_code = error;
    env->exception_is_int = is_int;
    env->exception_next_rip = next_rip;
    x86_do_exception(env);
}

static void assert_cpl(int cpl)
{
    g_assert_cmpint(env->hflags & HF_CPL_MASK, ==, cpl);
}

static void test_fault_from_cpl3(void)
{
    reset_protected();
    deliver(EXCP0D_GPF, 0x1234, false, 0);
    /* Ring 0 stack from the TSS: SS, ESP, EFLAGS, CS, EIP, error. */
    assert_cpl(0);
    g_assert_cmphex(env->segs[R_CS].selector, ==, SEL_CODE0);
    g_assert_cmphex(env->segs[R_SS].selector, ==, SEL_DATA0);
    g_assert_cmphex(env->regs[R_ESP], ==, STACK0 - 24);
    g_assert_cmphex(env->rip, ==, 0x500d);
    g_assert_cmphex(get32(STACK0 - 24), ==, 0x1234);
    g_assert_cmphex(get32(STACK0 - 20), ==, 0x4000);   /* the fault */
    g_assert_cmphex(get32(STACK0 - 16), ==, SEL_CODE3);
    g_assert_cmphex(get32(STACK0 - 12), ==, IF_MASK | EFLAGS_FIXED);
    g_assert_cmphex(get32(STACK0 - 8), ==, STACK3);
    g_assert_cmphex(get32(STACK0 - 4), ==, SEL_DATA3);
    /* An interrupt gate clears IF. */
    g_assert_false(x86_get_eflags(env) & IF_MASK);
    /* The accessed bit of the new CS descriptor is set. */
    g_assert_true(get32(GDT + 8 + 4) & DESC_A_MASK);

    /* Pop the error code, iret: back at CPL 3 with everything. */
    env->regs[R_ESP] += 4;
    g_assert_true(helper_iret(env, 4));
    assert_cpl(3);
    g_assert_cmphex(env->rip, ==, 0x4000);
    g_assert_cmphex(env->regs[R_ESP], ==, STACK3);
    g_assert_cmphex(env->segs[R_CS].selector, ==, SEL_CODE3);
    g_assert_cmphex(env->segs[R_SS].selector, ==, SEL_DATA3);
    g_assert_true(x86_get_eflags(env) & IF_MASK);
}

static void test_software_interrupts(void)
{
    reset_protected();
    /* int $0x80 through a DPL 3 trap gate: returns after it, IF kept. */
    deliver(0x80, 0, true, 0x4002);
    assert_cpl(0);
    g_assert_cmphex(env->rip, ==, 0x5080);
    g_assert_cmphex(get32(STACK0 - 20), ==, 0x4002);
    g_assert_cmphex(env->regs[R_ESP], ==, STACK0 - 20);
    g_assert_true(x86_get_eflags(env) & IF_MASK);

    /* int $0x81 hits a DPL 0 gate: #GP(0x81 * 8 + 2) at the int. */
    reset_protected();
    deliver(0x81, 0, true, 0x4002);
    g_assert_cmphex(env->rip, ==, 0x500d);
    g_assert_cmphex(get32(STACK0 - 24), ==, 0x81 * 8 + 2);
    g_assert_cmphex(get32(STACK0 - 20), ==, 0x4000);
}

static void test_double_and_triple_fault(void)
{
    reset_protected();
    /* #GP's gate is not present: #NP(13 * 8 + 2 + EXT), then #DF. */
    put_gate(EXCP0D_GPF, 14, 0, false, 0x500d);
    put_gate(EXCP0B_NOSEG, 14, 0, false, 0x500b);
    deliver(EXCP0D_GPF, 0, false, 0);
    g_assert_cmphex(env->rip, ==, 0x5008);
    g_assert_cmphex(get32(STACK0 - 24), ==, 0);     /* #DF's error code */
    g_assert_cmphex(get32(STACK0 - 20), ==, 0x4000);
    g_assert_cmpint(env->exception_index, ==, -1);

    /* A benign first exception: the second is delivered alone. */
    reset_protected();
    put_gate(EXCP06_ILLOP, 14, 0, false, 0x5006);
    deliver(EXCP06_ILLOP, 0, false, 0);
    g_assert_cmphex(env->rip, ==, 0x500b);
    g_assert_cmphex(get32(STACK0 - 24), ==, EXCP06_ILLOP * 8 + 2 + 1);

    /*
     * Nothing can be delivered: shutdown. The vCPU stops with the reason
     * its accelerator turns into a reset (the end with -no-reboot).
     */
    reset_protected();
    env->idt.limit = 0;
    deliver(EXCP06_ILLOP, 0, false, 0);
    g_assert_cmpint(env->exit_reason, ==, X86_CPU_EXIT_TRIPLE_FAULT);
    g_assert_true(env->interrupt_request & CPU_INTERRUPT_EXIT);
    g_assert_true(env->hflags & HF_HALTED_MASK);
    g_assert_cmphex(env->rip, ==, 0x4000);
    assert_cpl(3);
}

static void test_real_mode(void)
{
    memset(cpu, 0, sizeof(*cpu));
    memset(ram, 0, RAM_SIZE);
    env->cpu = cpu;
    x86_cpu_init_state(cpu);
    g_assert_cmphex(env->segs[R_CS].base, ==, 0xffff0000);
    g_assert_cmphex(env->rip, ==, 0xfff0);
    /* IVT entry 8 -> 1234:5678; SS:SP = 0000:7000. */
    put32(8 * 4, 0x12345678);
    env->idt = (DescTable) { .base = 0, .limit = 0x3ff };
    x86_load_seg_real(env, R_CS, 0x0100);
    env->rip = 0x20;
    env->regs[R_ESP] = 0x7000;
    x86_set_eflags(env, IF_MASK | TF_MASK | EFLAGS_FIXED, ~0u);
    deliver(8, 0, false, 0);
    g_assert_cmphex(env->segs[R_CS].selector, ==, 0x1234);
    g_assert_cmphex(env->segs[R_CS].base, ==, 0x12340);
    g_assert_cmphex(env->rip, ==, 0x5678);
    g_assert_cmphex(env->regs[R_ESP], ==, 0x6ffa);
    g_assert_cmphex(get16(0x6ffa), ==, 0x20);
    g_assert_cmphex(get16(0x6ffc), ==, 0x0100);
    g_assert_cmphex(get16(0x6ffe), ==, IF_MASK | TF_MASK | EFLAGS_FIXED);
    g_assert_false(x86_get_eflags(env) & (IF_MASK | TF_MASK));
    /* No error code in real mode; iret returns. */
    g_assert_true(helper_iret(env, 2));
    g_assert_cmphex(env->segs[R_CS].base, ==, 0x1000);
    g_assert_cmphex(env->rip, ==, 0x20);
    g_assert_true(x86_get_eflags(env) & IF_MASK);
}

static void test_call_gate(void)
{
    reset_protected();
    /* Two dword parameters on the caller's stack. */
    env->regs[R_ESP] = STACK3 - 8;
    put32(STACK3 - 8, 0x11111111);
    put32(STACK3 - 4, 0x22222222);
    g_assert_true(helper_lcall(env, SEL_GATE, 0, 4, 0x4007));
    assert_cpl(0);
    g_assert_cmphex(env->rip, ==, 0x7000);
    g_assert_cmphex(env->segs[R_SS].selector, ==, SEL_DATA0);
    /* SS, ESP, the parameters, CS, EIP. */
    g_assert_cmphex(env->regs[R_ESP], ==, STACK0 - 24);
    g_assert_cmphex(get32(STACK0 - 4), ==, SEL_DATA3);
    g_assert_cmphex(get32(STACK0 - 8), ==, STACK3 - 8);
    g_assert_cmphex(get32(STACK0 - 12), ==, 0x22222222);
    g_assert_cmphex(get32(STACK0 - 16), ==, 0x11111111);
    g_assert_cmphex(get32(STACK0 - 20), ==, SEL_CODE3);
    g_assert_cmphex(get32(STACK0 - 24), ==, 0x4007);
    /* lret $8 drops the parameters on both stacks. */
    g_assert_true(helper_lret(env, 4, 8));
    assert_cpl(3);
    g_assert_cmphex(env->rip, ==, 0x4007);
    g_assert_cmphex(env->regs[R_ESP], ==, STACK3);
}

static void test_segment_load_errors(void)
{
    reset_protected();
    /* At CPL 3: a DPL 0 data segment cannot be loaded: #GP(selector). */
    if (setjmp(env->jmp_env) == 0) {
        helper_load_seg(env, R_DS, SEL_DATA0);
        g_assert_not_reached();
    }
    g_assert_cmpint(env->exception_index, ==, EXCP0D_GPF);
    g_assert_cmphex(env->error_code, ==, SEL_DATA0);
    /* Past the GDT limit. */
    if (setjmp(env->jmp_env) == 0) {
        helper_load_seg(env, R_ES, 0xff8 | 3);
        g_assert_not_reached();
    }
    g_assert_cmphex(env->error_code, ==, 0xff8);
    /* A null selector in DS is fine to load. */
    g_assert_false(helper_load_seg(env, R_DS, 0));
}

/*
 * An internal error stops the vCPU with its message (the accelerator
 * prints it with the registers, as KVM's errors are printed) and unwinds
 * like an exception that delivery ignores.
 */
static void test_internal_error(void)
{
    GString *dump = g_string_new(NULL);

    reset_protected();
    env->regs[R_EAX] = 0xabcdef;
    if (setjmp(env->jmp_env) == 0) {
        x86_cpu_internal_error(env, "opcode %x not implemented", 0x37);
    }
    g_assert_cmpint(env->exception_index, ==, EXCP_INTERNAL_ERROR);
    g_assert_cmpint(env->exit_reason, ==, X86_CPU_EXIT_FATAL);
    g_assert_cmpstr(env->fatal_msg, ==, "opcode 37 not implemented");
    g_assert_true(env->hflags & HF_HALTED_MASK);
    x86_do_exception(env);
    g_assert_cmpint(env->exception_index, ==, -1);
    g_assert_cmphex(env->rip, ==, 0x4000);
    x86_cpu_dump_state(env, dump);
    g_assert_true(g_pattern_match_simple("RAX=0000000000abcdef *"
                                         "RIP=0000000000004000 *CS =001b *",
                                         dump->str));
    g_string_free(dump, true);
    g_clear_pointer(&env->fatal_msg, g_free);
}

int main(int argc, char **argv)
{
    Error *err = NULL;
    int ret;

    g_test_init(&argc, &argv, NULL);
    ram = g_malloc0(RAM_SIZE);
    memory_region_init_ram_ptr(&ram_mr, "ram", RAM_SIZE, ram);
    g_assert_true(address_space_map_region(&address_space_memory, &ram_mr,
                                           0, &err));
    cpu = g_new0(X86CPU, 1);
    env = &cpu->env;

    g_test_add_func("/tcg-excp/protected/fault-from-cpl3-and-iret",
                    test_fault_from_cpl3);
    g_test_add_func("/tcg-excp/protected/software-interrupts",
                    test_software_interrupts);
    g_test_add_func("/tcg-excp/protected/call-gate", test_call_gate);
    g_test_add_func("/tcg-excp/protected/segment-loads",
                    test_segment_load_errors);
    g_test_add_func("/tcg-excp/real-mode/ivt", test_real_mode);
    g_test_add_func("/tcg-excp/faults/internal-error", test_internal_error);
    g_test_add_func("/tcg-excp/faults/double-triple",
                    test_double_and_triple_fault);
    ret = g_test_run();
    memory_cleanup();
    memory_region_finalize(&ram_mr);
    g_free(cpu);
    g_free(ram);
    return ret;
}
