/*
 * Unit tests of the software CPU's integer ISA for what the host
 * differential tester (test-tcg-diff.c) cannot run natively: exceptions
 * raised by instructions (#DE, #UD, #GP, #PF on a fetch that crosses a
 * page), 32-bit and 16-bit (real-mode) code, string instructions over
 * several pages in both directions, port-I/O strings, self-modifying
 * code and code rewritten behind the CPU, the block cache's flush when
 * it is full, and the execution loop's budget and exit request.
 *
 * Each program is given as its assembly (GNU as, AT&T syntax) and the
 * bytes as assembles it to; tcg-harness.h has the machine.
 */
#include <string.h>

#include <glib.h>

#include "target/i386/tb-cache.h"
#include "tcg-harness.h"

/* Programs ------------------------------------------------------------------ */

/*
 *     mov $1, %eax
 *     mov $7, %edx
 *     xor %ecx, %ecx
 *     div %ecx
 *     hlt
 */
static const uint8_t code_div0[] = {
    0xb8, 0x01, 0x00, 0x00, 0x00, 0xba, 0x07, 0x00, 0x00, 0x00, 0x31, 0xc9,
    0xf7, 0xf1, 0xf4
};

/*
 *     movabs $0x8000000000000000, %rax
 *     cqo
 *     mov $-1, %rcx
 *     idiv %rcx
 *     hlt
 */
static const uint8_t code_idiv_ovf[] = {
    0x48, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x48, 0x99,
    0x48, 0xc7, 0xc1, 0xff, 0xff, 0xff, 0xff, 0x48, 0xf7, 0xf9, 0xf4
};

/*
 *     mov $0x12345678, %eax
 *     push %eax
 *     pop %ebx
 *     mov $0x1000, %ecx
 *     pusha
 *     mov $0, %eax
 *     popa
 *     call 1f
 *     jmp 2f
 * 1:  mov $0x55, %edx
 *     ret
 * 2:  enter $16, $0
 *     mov %ebp, %esi
 *     leave
 *     mov $0x99, %al
 *     add $0x01, %al
 *     daa
 *     setc %ah
 *     movw $0x1234, %di
 *     inc %edi
 *     dec %ecx
 *     push %ecx
 *     mov $3, %ecx
 * 3:  loop 3b
 *     pop %ebp
 *     movzwl %di, %edi
 *     addr16 movl (%bx,%si), %edx
 *     hlt
 */
static const uint8_t code_mode32[] = {
    0xb8, 0x78, 0x56, 0x34, 0x12, 0x50, 0x5b, 0xb9, 0x00, 0x10, 0x00, 0x00,
    0x60, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x61, 0xe8, 0x02, 0x00, 0x00, 0x00,
    0xeb, 0x06, 0xba, 0x55, 0x00, 0x00, 0x00, 0xc3, 0xc8, 0x10, 0x00, 0x00,
    0x89, 0xee, 0xc9, 0xb0, 0x99, 0x04, 0x01, 0x27, 0x0f, 0x92, 0xc4, 0x66,
    0xbf, 0x34, 0x12, 0x47, 0x49, 0x51, 0xb9, 0x03, 0x00, 0x00, 0x00, 0xe2,
    0xfe, 0x5d, 0x0f, 0xb7, 0xff, 0x67, 0x8b, 0x10, 0xf4
};

/*
 *     mov $0x300ff0, %esi
 *     mov $0x400ff8, %edi
 *     mov $10000, %ecx
 *     cld
 *     rep movsb
 *     mov $0x500000, %edi
 *     movabs $0x0123456789abcdef, %rax
 *     mov $1000, %ecx
 *     rep stosq
 *     std
 *     mov $0x300ff0 + 8999, %esi
 *     mov $0x700000 + 8999, %edi
 *     mov $9000, %ecx
 *     rep movsb
 *     cld
 *     mov $0x800000, %esi
 *     lea 1(%rsi), %rdi
 *     mov $100, %ecx
 *     rep movsb
 *     mov $0x900000, %edi
 *     xor %eax, %eax
 *     mov $-1, %rcx
 *     repne scasb
 *     mov %rcx, %rbx
 *     mov $0x900000, %esi
 *     mov $0x900000, %edi
 *     mov $20, %ecx
 *     repe cmpsb
 *     hlt
 */
static const uint8_t code_strings[] = {
    0xbe, 0xf0, 0x0f, 0x30, 0x00, 0xbf, 0xf8, 0x0f, 0x40, 0x00, 0xb9, 0x10,
    0x27, 0x00, 0x00, 0xfc, 0xf3, 0xa4, 0xbf, 0x00, 0x00, 0x50, 0x00, 0x48,
    0xb8, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, 0xb9, 0xe8, 0x03,
    0x00, 0x00, 0xf3, 0x48, 0xab, 0xfd, 0xbe, 0x17, 0x33, 0x30, 0x00, 0xbf,
    0x27, 0x23, 0x70, 0x00, 0xb9, 0x28, 0x23, 0x00, 0x00, 0xf3, 0xa4, 0xfc,
    0xbe, 0x00, 0x00, 0x80, 0x00, 0x48, 0x8d, 0x7e, 0x01, 0xb9, 0x64, 0x00,
    0x00, 0x00, 0xf3, 0xa4, 0xbf, 0x00, 0x00, 0x90, 0x00, 0x31, 0xc0, 0x48,
    0xc7, 0xc1, 0xff, 0xff, 0xff, 0xff, 0xf2, 0xae, 0x48, 0x89, 0xcb, 0xbe,
    0x00, 0x00, 0x90, 0x00, 0xbf, 0x00, 0x00, 0x90, 0x00, 0xb9, 0x14, 0x00,
    0x00, 0x00, 0xf3, 0xa6, 0xf4
};

/*
 *     movb $0x42, target+1(%rip)
 * target:
 *     mov $0x11, %eax
 *     hlt
 */
static const uint8_t code_smc_same[] = {
    0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x42, 0xb8, 0x11, 0x00, 0x00, 0x00,
    0xf4
};

/*
 *     mov $2, %ecx
 * 1:  call func
 *     mov %eax, %ebx
 *     movb $0x99, func+1(%rip)
 *     dec %ecx
 *     jnz 1b
 *     hlt
 * func:
 *     mov $0x11, %eax
 *     ret
 */
static const uint8_t code_smc_other[] = {
    0xb9, 0x02, 0x00, 0x00, 0x00, 0xe8, 0x0e, 0x00, 0x00, 0x00, 0x89, 0xc3,
    0xc6, 0x05, 0x06, 0x00, 0x00, 0x00, 0x99, 0xff, 0xc9, 0x75, 0xee, 0xf4,
    0xb8, 0x11, 0x00, 0x00, 0x00, 0xc3
};

/*
 *     nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop
 *     mov $0x12345678, %eax
 *     hlt
 */
static const uint8_t code_pagecross[] = {
    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
    0x90, 0xb8, 0x78, 0x56, 0x34, 0x12, 0xf4
};

/*
 * 1:  inc %eax
 *     jmp 1b
 */
static const uint8_t code_spin[] = {
    0xff, 0xc0, 0xeb, 0xfc
};

/*
 *     mov $0x600000, %edi
 *     mov $0x80, %edx
 *     mov $16, %ecx
 *     rep insb
 *     mov $0x600000, %esi
 *     mov $4, %ecx
 *     rep outsw
 *     in $0x80, %al
 *     hlt
 */
static const uint8_t code_io[] = {
    0xbf, 0x00, 0x00, 0x60, 0x00, 0xba, 0x80, 0x00, 0x00, 0x00, 0xb9, 0x10,
    0x00, 0x00, 0x00, 0xf3, 0x6c, 0xbe, 0x00, 0x00, 0x60, 0x00, 0xb9, 0x04,
    0x00, 0x00, 0x00, 0x66, 0xf3, 0x6f, 0xe4, 0x80, 0xf4
};

/*
 *     mov $0x600008, %edi
 *     cmpxchg16b (%rdi)
 *     hlt
 */
static const uint8_t code_cx16[] = {
    0xbf, 0x08, 0x00, 0x60, 0x00, 0x48, 0x0f, 0xc7, 0x0f, 0xf4
};

/*
 *     mov $0x2000, %ax
 *     mov %ax, %ds
 *     movw $0xbeef, (0x10)
 *     mov $0x3000, %ax
 *     mov %ax, %es
 *     mov $0x10, %si
 *     mov $0x20, %di
 *     mov $2, %cx
 *     cld
 *     rep movsb
 *     std
 *     mov $0x11, %si
 *     mov $0x41, %di
 *     mov $2, %cx
 *     rep movsb
 *     cld
 *     int $0x80
 *     lcall $0x1000, $farfn
 *     push %cs
 *     pop %dx
 *     hlt
 * farfn:
 *     mov $0x66, %cx
 *     lret
 */
static const uint8_t code_real[] = {
    0xb8, 0x00, 0x20, 0x8e, 0xd8, 0xc7, 0x06, 0x10, 0x00, 0xef, 0xbe, 0xb8,
    0x00, 0x30, 0x8e, 0xc0, 0xbe, 0x10, 0x00, 0xbf, 0x20, 0x00, 0xb9, 0x02,
    0x00, 0xfc, 0xf3, 0xa4, 0xfd, 0xbe, 0x11, 0x00, 0xbf, 0x41, 0x00, 0xb9,
    0x02, 0x00, 0xf3, 0xa4, 0xfc, 0xcd, 0x80, 0x9a, 0x33, 0x00, 0x00, 0x10,
    0x0e, 0x5a, 0xf4, 0xb9, 0x66, 0x00, 0xcb
};

/*
 *     mov $0x100, %ecx
 *     rep bsr %ecx, %eax           (lzcnt with ABM)
 *     xor %esi, %esi
 *     mov $0x55, %edx
 *     rep bsf %esi, %edx           (tzcnt with BMI1)
 *     hlt
 */
static const uint8_t code_scans[] = {
    0xb9, 0x00, 0x01, 0x00, 0x00, 0xf3, 0x0f, 0xbd, 0xc1, 0x31, 0xf6, 0xba,
    0x55, 0x00, 0x00, 0x00, 0xf3, 0x0f, 0xbc, 0xd6, 0xf4
};

/*
 *     mov %fs:0x10, %rax
 *     mov $0x20, %ebx
 *     mov %gs:(%rbx), %r8
 *     mov %ds:0x600000, %rdx       (DS's base does not count in 64-bit)
 *     lea %fs:0x10, %r9            (nor any base for lea)
 *     mov $0x600100, %esi
 *     mov $0x600200, %edi
 *     mov $8, %ecx
 *     rep movsb %fs:(%rsi), %es:(%rdi)
 *     hlt
 */
static const uint8_t code_seg64[] = {
    0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00, 0xbb, 0x20, 0x00,
    0x00, 0x00, 0x65, 0x4c, 0x8b, 0x03, 0x48, 0x8b, 0x14, 0x25, 0x00, 0x00,
    0x60, 0x00, 0x64, 0x4c, 0x8d, 0x0c, 0x25, 0x10, 0x00, 0x00, 0x00, 0xbe,
    0x00, 0x01, 0x60, 0x00, 0xbf, 0x00, 0x02, 0x60, 0x00, 0xb9, 0x08, 0x00,
    0x00, 0x00, 0x64, 0xf3, 0xa4, 0xf4
};

/*
 * 32-bit code with DS and ES bases:
 *     mov 0x600000, %eax
 *     mov $0x600000, %edi
 *     mov $0xabcdef01, %ebx
 *     xchg %eax, %ebx
 *     stosl
 *     mov %cs:0x600004, %edx
 *     hlt
 */
static const uint8_t code_seg32[] = {
    0xa1, 0x00, 0x00, 0x60, 0x00, 0xbf, 0x00, 0x00, 0x60, 0x00, 0xbb, 0x01,
    0xef, 0xcd, 0xab, 0x93, 0xab, 0x2e, 0x8b, 0x15, 0x04, 0x00, 0x60, 0x00,
    0xf4
};

/* Helpers -------------------------------------------------------------------- */

static uint64_t ld64(TcgHarness *h, uint64_t pa)
{
    uint64_t v;

    memcpy(&v, h->ram + pa, 8);
    return v;
}

static void st32(TcgHarness *h, uint64_t pa, uint32_t v)
{
    memcpy(h->ram + pa, &v, 4);
}

/* Load code at TH_CODE (TH_CODE16 in 16-bit modes) in mode and run it. */
static TcgHarness *run_code(THMode mode, const uint8_t *code, size_t len)
{
    TcgHarness *h = th_get();

    th_set_mode(h, mode);
    th_write(h, mode >= TH_PROT16 ? TH_CODE16 : TH_CODE, code, len);
    th_run(h, 100000);
    return h;
}

/*
 * The run ended in vector's handler, the fault at rip (in the frame the
 * 64-bit gate pushed: [error code,] rip, cs, rflags, rsp, ss).
 */
static void assert_fault(TcgHarness *h, int vector, uint64_t rip,
                         bool has_error, uint32_t error)
{
    uint64_t sp = h->env->regs[R_ESP];

    g_assert_cmphex(h->env->rip, ==, th_after_handler(vector));
    if (has_error) {
        g_assert_cmphex(ld64(h, sp), ==, error);
        sp += 8;
    }
    g_assert_cmphex(ld64(h, sp), ==, rip);
}

/* Tests ----------------------------------------------------------------------- */

static void test_div_zero(void)
{
    TcgHarness *h = run_code(TH_LONG, code_div0, sizeof(code_div0));

    /* #DE is a fault: rip of the div, nothing written. */
    assert_fault(h, EXCP00_DIVZ, TH_CODE + 12, false, 0);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 1);
    g_assert_cmphex(h->env->regs[R_EDX], ==, 7);
}

static void test_idiv_overflow(void)
{
    TcgHarness *h = run_code(TH_LONG, code_idiv_ovf, sizeof(code_idiv_ovf));

    assert_fault(h, EXCP00_DIVZ, TH_CODE + 19, false, 0);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x8000000000000000ull);
    g_assert_cmphex(h->env->regs[R_EDX], ==, ~0ull);
}

/* Encodings that must fault, each alone at TH_CODE in 64-bit mode. */
static void test_invalid_encodings(void)
{
    static const struct {
        const char *what;
        uint8_t code[20];
        unsigned len;
        int vector;
    } cases[] = {
        { "ud2", { 0x0f, 0x0b }, 2, EXCP06_ILLOP },
        { "lock nop", { 0xf0, 0x90 }, 2, EXCP06_ILLOP },
        { "lock add reg, reg", { 0xf0, 0x01, 0xc1 }, 3, EXCP06_ILLOP },
        { "lock xadd reg, reg", { 0xf0, 0x0f, 0xc1, 0xc1 }, 4,
          EXCP06_ILLOP },
        { "lock mov", { 0xf0, 0x89, 0x07 }, 3, EXCP06_ILLOP },
        { "cmpxchg8b reg", { 0x0f, 0xc7, 0xc8 }, 3, EXCP06_ILLOP },
        { "x87 hole d9 d1", { 0xd9, 0xd1 }, 2, EXCP06_ILLOP },
        { "x87 hole d9 /1", { 0xd9, 0x08 }, 2, EXCP06_ILLOP },
        { "lock fadd", { 0xf0, 0xd8, 0xc1 }, 3, EXCP06_ILLOP },
        { "andps with f3 (no such form)", { 0xf3, 0x0f, 0x54, 0xc8 }, 4,
          EXCP06_ILLOP },
        { "push es in 64-bit", { 0x06 }, 1, EXCP06_ILLOP },
        { "daa in 64-bit", { 0x27 }, 1, EXCP06_ILLOP },
        { "aam in 64-bit", { 0xd4, 0x0a }, 2, EXCP06_ILLOP },
        { "VEX", { 0xc5, 0xf8, 0x77 }, 3, EXCP06_ILLOP },
        { "mov cs, ax", { 0x8e, 0xc8 }, 2, EXCP06_ILLOP },
        { "lea reg, reg", { 0x8d, 0xc0 }, 2, EXCP06_ILLOP },
        { "mov cr5", { 0x0f, 0x20, 0xe8 }, 3, EXCP06_ILLOP },
        { "16 bytes", { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90 },
          16, EXCP0D_GPF },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        TcgHarness *h;
        uint8_t code[24];

        memcpy(code, cases[i].code, cases[i].len);
        code[cases[i].len] = 0xf4;
        g_test_message("%s", cases[i].what);
        h = run_code(TH_LONG, code, cases[i].len + 1);
        assert_fault(h, cases[i].vector, TH_CODE,
                     cases[i].vector == EXCP0D_GPF, 0);
    }
}

static void test_cmpxchg16b_alignment(void)
{
    TcgHarness *h = run_code(TH_LONG, code_cx16, sizeof(code_cx16));

    assert_fault(h, EXCP0D_GPF, TH_CODE + 5, true, 0);
}

static void test_mode32(void)
{
    TcgHarness *h = th_get();
    CPUX86State *env = h->env;

    st32(h, 0x5674, 0xcafebabe);
    run_code(TH_PROT32, code_mode32, sizeof(code_mode32));
    g_assert_cmphex(env->rip, ==, TH_CODE + sizeof(code_mode32));
    g_assert_cmphex(env->regs[R_EAX], ==, 0x12340100);     /* daa, setc */
    g_assert_cmphex(env->regs[R_EBX], ==, 0x12345678);     /* push/pop */
    g_assert_cmphex(env->regs[R_ECX], ==, 0);              /* loop */
    g_assert_cmphex(env->regs[R_EDX], ==, 0xcafebabe);     /* addr16 */
    g_assert_cmphex(env->regs[R_ESI], ==, TH_STACK - 4);   /* enter */
    g_assert_cmphex(env->regs[R_EDI], ==, 0x1235);         /* 66, inc */
    g_assert_cmphex(env->regs[R_EBP], ==, 0xfff);          /* dec, leave */
    g_assert_cmphex(env->regs[R_ESP], ==, TH_STACK);
}

static void test_real_mode(void)
{
    static const uint8_t handler[] = { 0xbb, 0x77, 0x00, 0xcf };
    TcgHarness *h = th_get();
    CPUX86State *env = h->env;

    /* int 0x80 goes to 1000:0080 (mov $0x77, %bx; iret). */
    th_write(h, TH_CODE16 + 0x80, handler, sizeof(handler));
    st32(h, 0x80 * 4, 0x10000080);
    run_code(TH_REAL, code_real, sizeof(code_real));
    g_assert_cmphex(env->rip, ==, 0x33);
    g_assert_cmphex(env->regs[R_EBX], ==, 0x77);
    g_assert_cmphex(env->regs[R_ECX], ==, 0x66);
    g_assert_cmphex(env->regs[R_EDX], ==, 0x1000);
    g_assert_cmphex(env->regs[R_ESI], ==, 0x0f);
    g_assert_cmphex(env->regs[R_EDI], ==, 0x3f);
    g_assert_cmphex(env->segs[R_DS].base, ==, 0x20000);
    g_assert_cmphex(env->segs[R_ES].base, ==, 0x30000);
    g_assert_cmphex(h->ram[0x20010], ==, 0xef);
    g_assert_cmphex(h->ram[0x30020], ==, 0xef);
    g_assert_cmphex(h->ram[0x30021], ==, 0xbe);
    g_assert_cmphex(h->ram[0x30040], ==, 0xef);
    g_assert_cmphex(h->ram[0x30041], ==, 0xbe);
    g_assert_cmphex(env->regs[R_ESP], ==, 0x7ff0);
}

static void test_strings(void)
{
    static const char hello[] = "hello, world";
    TcgHarness *h = th_get();
    CPUX86State *env = h->env;
    uint8_t pattern[10000];

    for (unsigned i = 0; i < sizeof(pattern); i++) {
        pattern[i] = i * 7 + 3;
    }
    memcpy(h->ram + 0x300ff0, pattern, sizeof(pattern));
    memset(h->ram + 0x400ff0, 0, 0x3000);
    memset(h->ram + 0x500000, 0, 0x2000);
    memset(h->ram + 0x700000, 0, 0x3000);
    memset(h->ram + 0x800000, 0, 0x100);
    h->ram[0x800000] = 0x5a;
    memcpy(h->ram + 0x900000, hello, sizeof(hello));
    run_code(TH_LONG, code_strings, sizeof(code_strings));
    g_assert_cmphex(env->rip, ==, TH_CODE + sizeof(code_strings));

    /* Forward rep movsb across three pages on each side. */
    g_assert_cmpmem(h->ram + 0x400ff8, 10000, pattern, 10000);
    g_assert_cmphex(h->ram[0x400ff7], ==, 0);
    g_assert_cmphex(h->ram[0x400ff8 + 10000], ==, 0);
    /* rep stosq. */
    for (unsigned i = 0; i < 1000; i++) {
        g_assert_cmphex(ld64(h, 0x500000 + 8 * i), ==,
                        0x0123456789abcdefull);
    }
    g_assert_cmphex(ld64(h, 0x500000 + 8000), ==, 0);
    /* Backward rep movsb, long enough to pause and resume. */
    g_assert_cmpmem(h->ram + 0x700000, 9000, pattern, 9000);
    /* An overlapping forward copy repeats the first byte. */
    for (unsigned i = 0; i <= 100; i++) {
        g_assert_cmphex(h->ram[0x800000 + i], ==, 0x5a);
    }
    g_assert_cmphex(h->ram[0x800000 + 101], ==, 0);
    /* repne scasb as strlen: rcx = -(length + 2). */
    g_assert_cmphex(env->regs[R_EBX], ==, -(uint64_t)(strlen(hello) + 2));
    /* repe cmpsb of a string with itself runs to the end. */
    g_assert_cmphex(env->regs[R_ECX], ==, 0);
    g_assert_cmphex(env->regs[R_ESI], ==, 0x900000 + 20);
    g_assert_cmphex(env->regs[R_EDI], ==, 0x900000 + 20);
    g_assert_true(x86_get_eflags(env) & CC_Z);
}

static void test_segment_bases(void)
{
    TcgHarness *h = th_get();
    CPUX86State *env = h->env;
    uint64_t v;

    /* 64-bit code: FS and GS bases count, DS's does not. */
    v = 0x1111111111111111ull;
    memcpy(h->ram + 0x700010, &v, 8);
    v = 0x2222222222222222ull;
    memcpy(h->ram + 0x710020, &v, 8);
    v = 0x3333333333333333ull;
    memcpy(h->ram + 0x600000, &v, 8);
    memcpy(h->ram + 0xd00100, "fs-based", 8);
    memset(h->ram + 0x600200, 0, 8);
    th_set_mode(h, TH_LONG);
    env->segs[R_FS].base = 0x700000;
    env->segs[R_GS].base = 0x710000;
    env->segs[R_DS].base = 0x12345000;
    th_write(h, TH_CODE, code_seg64, sizeof(code_seg64));
    th_run(h, 1000);
    g_assert_cmphex(env->rip, ==, TH_CODE + sizeof(code_seg64));
    g_assert_cmphex(env->regs[R_EAX], ==, 0x1111111111111111ull);
    g_assert_cmphex(env->regs[R_R8], ==, 0x2222222222222222ull);
    g_assert_cmphex(env->regs[R_EDX], ==, 0x3333333333333333ull);
    g_assert_cmphex(env->regs[R_R9], ==, 0x10);
    g_assert_cmpmem(h->ram + 0x600200, 8, "fs-based", 8);

    /* 32-bit code: every segment's base counts. */
    th_set_mode(h, TH_PROT32);
    env->segs[R_DS].base = 0x10000;
    env->segs[R_ES].base = 0x20000;
    x86_update_hflags(env);
    st32(h, 0x610000, 0x11223344);
    st32(h, 0x600004, 0x55667788);
    st32(h, 0x620000, 0);
    th_write(h, TH_CODE, code_seg32, sizeof(code_seg32));
    th_run(h, 1000);
    g_assert_cmphex(env->rip, ==, TH_CODE + sizeof(code_seg32));
    g_assert_cmphex(env->regs[R_EAX], ==, 0xabcdef01);
    g_assert_cmphex(env->regs[R_EBX], ==, 0x11223344);
    g_assert_cmphex(env->regs[R_EDX], ==, 0x55667788);
    g_assert_cmphex(ld64(h, 0x620000) & 0xffffffff, ==, 0xabcdef01);
}

/* Ports with no device read as all ones. */
static void test_string_io(void)
{
    TcgHarness *h = th_get();

    memset(h->ram + 0x600000, 0, 32);
    run_code(TH_LONG, code_io, sizeof(code_io));
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_io));
    for (unsigned i = 0; i < 16; i++) {
        g_assert_cmphex(h->ram[0x600000 + i], ==, 0xff);
    }
    g_assert_cmphex(h->ram[0x600010], ==, 0);
    g_assert_cmphex(h->env->regs[R_ESI], ==, 0x600008);
    g_assert_cmphex(h->env->regs[R_EAX] & 0xff, ==, 0xff);
}

/* A store into the block being run changes the next instruction. */
static void test_smc_same_block(void)
{
    TcgHarness *h = run_code(TH_LONG, code_smc_same, sizeof(code_smc_same));

    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_smc_same));
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x42);
}

/* A store into a block run before: the second call runs the new code. */
static void test_smc_other_block(void)
{
    uint64_t ntbs, nflushes, ninval0, ninval1, mapped;
    TcgHarness *h;

    tb_cache_stats(&ntbs, &nflushes, &ninval0, &mapped);
    h = run_code(TH_LONG, code_smc_other, sizeof(code_smc_other));
    tb_cache_stats(&ntbs, &nflushes, &ninval1, &mapped);
    g_assert_cmphex(h->env->rip, ==, TH_CODE + 24);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x99);
    g_assert_cmpuint(ninval1, >, ninval0);
}

static GArray *code_pages;          /* what tb_set_code_page_notify saw */

static void note_code_page(uint64_t paddr)
{
    g_array_append_val(code_pages, paddr);
}

/*
 * The accelerator hears of a page once, when it first holds decoded
 * code (so it can drop the other vCPUs' write tags for it), and again
 * only after the page stopped being code.
 */
static void test_code_page_notify(void)
{
    static const uint8_t code[] = { 0xb8, 0x11, 0x00, 0x00, 0x00, 0xf4 };
    TcgHarness *h = th_get();

    code_pages = g_array_new(false, false, sizeof(uint64_t));
    tb_set_code_page_notify(note_code_page);
    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE + 0x3000, code, sizeof(code));
    h->env->rip = TH_CODE + 0x3000;
    th_run(h, 100);
    g_assert_cmpuint(code_pages->len, ==, 1);
    g_assert_cmphex(g_array_index(code_pages, uint64_t, 0), ==,
                    TH_CODE + 0x3000);
    /* Run again: the block is cached, the page already code. */
    h->env->rip = TH_CODE + 0x3000;
    th_run(h, 100);
    g_assert_cmpuint(code_pages->len, ==, 1);
    /* Rewritten behind the CPU, the page is code again once decoded. */
    th_write(h, TH_CODE + 0x3000, code, sizeof(code));
    h->env->rip = TH_CODE + 0x3000;
    th_run(h, 100);
    g_assert_cmpuint(code_pages->len, ==, 2);
    tb_set_code_page_notify(NULL);
    g_array_free(code_pages, true);
}

/* Code rewritten other than by the CPU (a loader, DMA) is decoded anew. */
static void test_code_rewritten(void)
{
    uint8_t code[] = { 0xb8, 0x11, 0x00, 0x00, 0x00, 0xf4 };
    TcgHarness *h = run_code(TH_LONG, code, sizeof(code));

    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x11);
    code[1] = 0x22;
    h = run_code(TH_LONG, code, sizeof(code));
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x22);
}

/*
 * An instruction straddling into an unmapped page faults with CR2 at
 * the second page and rip at the instruction; the nops before it, in
 * their own block, retire first. Mapped, it runs.
 */
static void test_page_crossing(void)
{
    static const uint8_t jump[] = {
        0xb8, 0xf0, 0x0f, 0x00, 0x40,           /* mov $0x40000ff0, %eax */
        0xff, 0xe0,                             /* jmp *%rax */
    };
    TcgHarness *h = th_get();

    th_set_mode(h, TH_LONG);
    th_map(h, 0x40000000, 0x600000, X86_PAGE_SIZE);
    th_write(h, 0x600ff0, code_pagecross, 16);
    th_write(h, 0x601000, code_pagecross + 16, sizeof(code_pagecross) - 16);
    th_write(h, TH_CODE, jump, sizeof(jump));
    th_run(h, 1000);
    assert_fault(h, EXCP0E_PAGE, 0x40000ffd, true,
                 PG_ERROR_I_D_MASK);
    g_assert_cmphex(h->env->cr[2], ==, 0x40001000);

    th_set_mode(h, TH_LONG);
    th_map(h, 0x40001000, 0x601000, X86_PAGE_SIZE);
    th_run(h, 1000);
    g_assert_cmphex(h->env->rip, ==, 0x40001003);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x12345678);
}

/*
 * Data accesses straddling two pages that map to distant physical pages
 * (the handlers' fast paths must leave them to the slow path): loads,
 * a store, a read-modify-write, a compare-and-branch pair and a
 * push/pop, each across 0x50001000.
 */
static const uint8_t code_data_cross[] = {
    0x31, 0xf6,                                 /* xor %esi, %esi */
    0x48, 0xc7, 0xc3, 0xfc, 0x0f, 0x00, 0x50,   /* mov $0x50000ffc, %rbx */
    0x48, 0x8b, 0x03,                           /* mov (%rbx), %rax */
    0x0f, 0xb7, 0x4b, 0x03,                     /* movzwl 3(%rbx), %ecx */
    0x48, 0xba, 0x08, 0x07, 0x06, 0x05,         /* mov $0x0102030405060708, */
    0x04, 0x03, 0x02, 0x01,                     /*     %rdx */
    0x48, 0x89, 0x53, 0x02,                     /* mov %rdx, 2(%rbx) */
    0x48, 0x83, 0x43, 0x02, 0x01,               /* addq $1, 2(%rbx) */
    0x48, 0x39, 0x53, 0x02,                     /* cmp %rdx, 2(%rbx) */
    0x75, 0x05,                                 /* jne 1f */
    0xbe, 0x01, 0x00, 0x00, 0x00,               /* mov $1, %esi */
    0x4c, 0x8b, 0x43, 0x02,                     /* 1: mov 2(%rbx), %r8 */
    0x48, 0xc7, 0xc4, 0x04, 0x10, 0x00, 0x50,   /* mov $0x50001004, %rsp */
    0x52,                                       /* push %rdx */
    0x5f,                                       /* pop %rdi */
    0xf4,                                       /* hlt */
};

static void test_data_page_crossing(void)
{
    static const uint8_t lo[4] = { 0x11, 0x22, 0x33, 0x44 };
    static const uint8_t hi[4] = { 0x55, 0x66, 0x77, 0x88 };
    TcgHarness *h = th_get();
    CPUX86State *env = h->env;

    th_set_mode(h, TH_LONG);
    th_map(h, 0x50000000, 0x700000, X86_PAGE_SIZE);
    th_map(h, 0x50001000, 0x900000, X86_PAGE_SIZE);
    th_write(h, 0x700ffc, lo, sizeof(lo));
    th_write(h, 0x900000, hi, sizeof(hi));
    th_write(h, TH_CODE, code_data_cross, sizeof(code_data_cross));
    th_run(h, 1000);
    g_assert_cmphex(env->rip, ==, TH_CODE + sizeof(code_data_cross));
    g_assert_cmphex(env->regs[R_EAX], ==, 0x8877665544332211ull);
    g_assert_cmphex(env->regs[R_ECX], ==, 0x5544);
    /* The store and the add: two bytes low, six high. */
    g_assert_cmphex(env->regs[8], ==, 0x0102030405060709ull);
    g_assert_cmphex(h->ram[0x900005], ==, 0x01);
    g_assert_cmphex(env->regs[R_ESI], ==, 0);  /* jne taken */
    /* The push at 0x50000ffc: four bytes low, four high. */
    g_assert_cmphex(h->ram[0x700ffc], ==, 0x08);
    g_assert_cmphex(h->ram[0x900003], ==, 0x01);
    g_assert_cmphex(env->regs[R_EDI], ==, 0x0102030405060708ull);
}

/*
 * Flags the next instructions overwrite unread are not recorded
 * (decode-flags.c), except where they can still be seen: in the
 * exception frame of an instruction that faults before the overwrite,
 * and after shifts that leave the flags alone (count 0 in CL, or an
 * immediate count that masks to 0).
 */
static const uint8_t code_flags_fault[] = {
    0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff,   /* mov $-1, %rax */
    0x48, 0xc7, 0xc3, 0x01, 0x00, 0x00, 0x00,   /* mov $1, %rbx */
    0x48, 0xc7, 0xc1, 0x00, 0x00, 0x00, 0x60,   /* mov $0x60000000, %rcx */
    0x48, 0x01, 0xd8,                           /* add %rbx, %rax: ZF CF */
    0x48, 0x8b, 0x11,                           /* mov (%rcx), %rdx: #PF */
    0x48, 0x39, 0xc3,                           /* cmp %rax, %rbx */
    0xf4,                                       /* hlt */
};

static const uint8_t code_flags_shift0[] = {
    0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff,   /* mov $-1, %rax */
    0x48, 0xc7, 0xc3, 0x01, 0x00, 0x00, 0x00,   /* mov $1, %rbx */
    0x31, 0xc9,                                 /* xor %ecx, %ecx */
    0x48, 0x01, 0xd8,                           /* add %rbx, %rax: ZF CF */
    0x48, 0xd3, 0xe2,                           /* shl %cl, %rdx */
    0x48, 0xc1, 0xe2, 0x40,                     /* shl $64, %rdx */
    0xf4,                                       /* hlt */
};

/* imuls whose flags the add overwrites: the flag-less handlers. */
static const uint8_t code_flags_imul[] = {
    0x48, 0xc7, 0xc0, 0xfd, 0xff, 0xff, 0xff,   /* mov $-3, %rax */
    0x48, 0xc7, 0xc3, 0x05, 0x00, 0x00, 0x00,   /* mov $5, %rbx */
    0x48, 0x0f, 0xaf, 0xc3,                     /* imul %rbx, %rax */
    0x6b, 0xcb, 0xf9,                           /* imul $-7, %ebx, %ecx */
    0xba, 0x00, 0x80, 0x34, 0x12,               /* mov $0x12348000, %edx */
    0x66, 0x0f, 0xaf, 0xd2,                     /* imul %dx, %dx */
    0x48, 0x01, 0xdb,                           /* add %rbx, %rbx */
    0xf4,                                       /* hlt */
};

static void test_dead_flags(void)
{
    TcgHarness *h = th_get();
    uint32_t f;

    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code_flags_fault, sizeof(code_flags_fault));
    th_run(h, 1000);
    assert_fault(h, EXCP0E_PAGE, TH_CODE + 24, true, 0);
    /* RFLAGS in the frame, above error code, rip and cs. */
    f = ld64(h, h->env->regs[R_ESP] + 24);
    g_assert_cmphex(f & (CC_Z | CC_C | CC_S), ==, CC_Z | CC_C);

    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code_flags_shift0, sizeof(code_flags_shift0));
    th_run(h, 1000);
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_flags_shift0));
    f = x86_get_eflags(h->env);
    g_assert_cmphex(f & (CC_Z | CC_C | CC_S), ==, CC_Z | CC_C);

    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code_flags_imul, sizeof(code_flags_imul));
    th_run(h, 1000);
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_flags_imul));
    g_assert_cmphex(h->env->regs[R_EAX], ==, (uint64_t)-15);
    g_assert_cmphex(h->env->regs[R_ECX], ==, (uint32_t)-35);
    g_assert_cmphex(h->env->regs[R_EDX], ==, 0x12340000);
    g_assert_cmphex(h->env->regs[R_EBX], ==, 10);
    f = x86_get_eflags(h->env);
    g_assert_cmphex(f & (CC_Z | CC_C | CC_S | CC_O), ==, 0);
}

/*
 * A direct branch into another page keeps the block it leads to, but
 * only while the page maps as it did: after a remap (and the TLB flush
 * that comes with it) the same branch runs the new page's code, though
 * the old page's block is still valid where it is.
 */
static const uint8_t code_far_a[] = {
    0x31, 0xc0,                             /* xor %eax, %eax */
    0xb9, 0x03, 0x00, 0x00, 0x00,           /* mov $3, %ecx */
    0xe9, 0xf4, 0x0f, 0x00, 0x00,           /* 1: jmp 0x40001000 */
    0xff, 0xc9,                             /* 2: dec %ecx */
    0x75, 0xf7,                             /* jne 1b */
    0xf4,                                   /* hlt */
};

/* At 0x40001000: add $n, %eax; jmp 2b (0x4000000c). */
#define CODE_FAR_B(n) { 0x83, 0xc0, (n), 0xe9, 0x04, 0xf0, 0xff, 0xff }

static void test_far_branch_remap(void)
{
    static const uint8_t b1[] = CODE_FAR_B(0x01), b2[] = CODE_FAR_B(0x10);
    TcgHarness *h = th_get();

    th_set_mode(h, TH_LONG);
    th_write(h, 0x600000, code_far_a, sizeof(code_far_a));
    th_write(h, 0x610000, b1, sizeof(b1));
    th_write(h, 0x620000, b2, sizeof(b2));
    th_map(h, 0x40000000, 0x600000, X86_PAGE_SIZE);
    th_map(h, 0x40001000, 0x610000, X86_PAGE_SIZE);
    for (int run = 0; run < 2; run++) {
        th_set_mode(h, TH_LONG);
        h->env->rip = 0x40000000;
        th_run(h, 1000);
        g_assert_cmphex(h->env->rip, ==, 0x40000000 + sizeof(code_far_a));
        g_assert_cmphex(h->env->regs[R_EAX], ==, 3);
    }
    th_map(h, 0x40001000, 0x620000, X86_PAGE_SIZE);
    th_set_mode(h, TH_LONG);
    h->env->rip = 0x40000000;
    th_run(h, 1000);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0x30);
}

/*
 * Loop ends run as one (x86_fused3_fn): an add and a compare of the same
 * register and a jcc, 64-bit with immediates; an add to one register
 * and a test of another; a sub and a compare of registers, 32-bit (the
 * sub clears the upper half). The flags are the last compare's.
 *
 *     mov $-2, %rcx
 *     xor %ebx, %ebx
 * 1:  inc %ebx
 *     add $1, %rcx
 *     cmp $3, %rcx
 *     jne 1b
 *     mov $45, %eax
 *     xor %r8d, %r8d
 * 3:  shr %eax
 *     add $2, %r8d
 *     test %eax, %eax
 *     jne 3b
 *     mov $0x13, %edx
 *     bts $63, %rdx
 *     mov $3, %esi
 *     xor %edi, %edi
 * 2:  inc %edi
 *     sub %esi, %edx
 *     cmp %esi, %edx
 *     ja 2b
 *     hlt
 */
static const uint8_t code_loop_ends[] = {
    0x48, 0xc7, 0xc1, 0xfe, 0xff, 0xff, 0xff, 0x31, 0xdb, 0xff, 0xc3, 0x48,
    0x83, 0xc1, 0x01, 0x48, 0x83, 0xf9, 0x03, 0x75, 0xf4, 0xb8, 0x2d, 0x00,
    0x00, 0x00, 0x45, 0x31, 0xc0, 0xd1, 0xe8, 0x41, 0x83, 0xc0, 0x02, 0x85,
    0xc0, 0x75, 0xf6, 0xba, 0x13, 0x00, 0x00, 0x00, 0x48, 0x0f, 0xba, 0xea,
    0x3f, 0xbe, 0x03, 0x00, 0x00, 0x00, 0x31, 0xff, 0xff, 0xc7, 0x29, 0xf2,
    0x39, 0xf2, 0x77, 0xf8, 0xf4,
};

static void test_loop_ends(void)
{
    TcgHarness *h = run_code(TH_LONG, code_loop_ends,
                             sizeof(code_loop_ends));
    uint32_t f = x86_get_eflags(h->env);

    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_loop_ends));
    g_assert_cmphex(h->env->regs[R_ECX], ==, 3);
    g_assert_cmphex(h->env->regs[R_EBX], ==, 5);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 0);
    g_assert_cmphex(h->env->regs[8], ==, 12);
    g_assert_cmphex(h->env->regs[R_EDX], ==, 1);
    g_assert_cmphex(h->env->regs[R_EDI], ==, 6);
    /* cmp %esi, %edx with 1 and 3: a borrow, negative, not zero. */
    g_assert_cmphex(f & (CC_Z | CC_C | CC_S | CC_O), ==, CC_C | CC_S);
}

/*
 * Register-only instructions leave env->rip alone when the next one does
 * not read it (decode-rip.c); whatever reads it must still see its own:
 * a fault after a run of them, a call (its return address), the end of a
 * block that stops at its size limit, and a load that faults right after
 * a load that did not.
 */
static const uint8_t code_rip_fault[] = {
    0x48, 0xc7, 0xc1, 0x00, 0x00, 0x00, 0x60,   /* mov $0x60000000, %rcx */
    0xb8, 0x01, 0x00, 0x00, 0x00,               /* mov $1, %eax */
    0x01, 0xc3,                                 /* add %eax, %ebx */
    0x48, 0x8d, 0x53, 0x08,                     /* lea 8(%rbx), %rdx */
    0x48, 0xc1, 0xe2, 0x02,                     /* shl $2, %rdx */
    0x48, 0x8b, 0x11,                           /* 22: mov (%rcx), %rdx */
    0xf4,                                       /* hlt */
};

static const uint8_t code_rip_call[] = {
    0xb8, 0x05, 0x00, 0x00, 0x00,               /* mov $5, %eax */
    0x83, 0xc0, 0x03,                           /* add $3, %eax */
    0xe8, 0x01, 0x00, 0x00, 0x00,               /* call 1f */
    0xf4,                                       /* 13: hlt */
    0x5b,                                       /* 1: pop %rbx */
    0x53,                                       /* push %rbx */
    0xc3,                                       /* ret */
};

/* The push fills the TLB, so that the first load takes its fast path. */
static const uint8_t code_rip_loads[] = {
    0x50,                                       /* push %rax */
    0x48, 0x89, 0xe6,                           /* mov %rsp, %rsi */
    0x48, 0xc7, 0xc1, 0x00, 0x00, 0x00, 0x60,   /* mov $0x60000000, %rcx */
    0x48, 0x8b, 0x46, 0x00,                     /* mov 0(%rsi), %rax */
    0x48, 0x8b, 0x11,                           /* 15: mov (%rcx), %rdx */
    0xf4,                                       /* hlt */
};

/*
 * A compare-and-branch pair and a loop end not taken, then a fault: the
 * instruction after them is two and three Insns on.
 */
static const uint8_t code_rip_pair[] = {
    0x48, 0xc7, 0xc1, 0x00, 0x00, 0x00, 0x60,   /* mov $0x60000000, %rcx */
    0x31, 0xc0,                                 /* xor %eax, %eax */
    0x83, 0xf8, 0x01,                           /* cmp $1, %eax */
    0x74, 0x03,                                 /* je 1f */
    0x48, 0x8b, 0x11,                           /* 14: mov (%rcx), %rdx */
    0xf4,                                       /* 1: hlt */
};

static const uint8_t code_rip_loop_end[] = {
    0x48, 0xc7, 0xc1, 0x00, 0x00, 0x00, 0x60,   /* mov $0x60000000, %rcx */
    0x31, 0xc0,                                 /* xor %eax, %eax */
    0x83, 0xc0, 0x01,                           /* add $1, %eax */
    0x83, 0xf8, 0x05,                           /* cmp $5, %eax */
    0x74, 0x03,                                 /* je 1f */
    0x48, 0x8b, 0x11,                           /* 17: mov (%rcx), %rdx */
    0xf4,                                       /* 1: hlt */
};

static void test_rip_fault(void)
{
    TcgHarness *h = run_code(TH_LONG, code_rip_fault, sizeof(code_rip_fault));

    assert_fault(h, EXCP0E_PAGE, TH_CODE + 22, true, 0);
}

static void test_rip_call(void)
{
    TcgHarness *h = run_code(TH_LONG, code_rip_call, sizeof(code_rip_call));

    g_assert_cmphex(h->env->rip, ==, TH_CODE + 14);
    g_assert_cmphex(h->env->regs[R_EBX], ==, TH_CODE + 13);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 8);
}

/* add $1, %eax (N_ADD times): the first block ends at its limit. */
static void test_rip_block_end(void)
{
    enum { N_ADD = 70 };    /* more than a block holds (TB_MAX_INSNS) */
    uint8_t adds[N_ADD * 3 + 1];
    TcgHarness *h;

    for (int i = 0; i < N_ADD; i++) {
        memcpy(adds + 3 * i, (const uint8_t[]){ 0x83, 0xc0, 0x01 }, 3);
    }
    adds[N_ADD * 3] = 0xf4;
    h = run_code(TH_LONG, adds, sizeof(adds));
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(adds));
    g_assert_cmphex((uint32_t)h->env->regs[R_EAX], ==, N_ADD);
}

static void test_rip_pairs(void)
{
    TcgHarness *h = run_code(TH_LONG, code_rip_pair, sizeof(code_rip_pair));

    assert_fault(h, EXCP0E_PAGE, TH_CODE + 14, true, 0);
    h = run_code(TH_LONG, code_rip_loop_end, sizeof(code_rip_loop_end));
    assert_fault(h, EXCP0E_PAGE, TH_CODE + 17, true, 0);
    g_assert_cmphex(h->env->regs[R_EAX], ==, 1);
}

static void test_rip_loads(void)
{
    TcgHarness *h = run_code(TH_LONG, code_rip_loads, sizeof(code_rip_loads));

    assert_fault(h, EXCP0E_PAGE, TH_CODE + 15, true, 0);
}

/* A cache too small for the program flushes and carries on. */
static void test_cache_flush(void)
{
    enum { BLOCKS = 20000 };
    uint64_t ntbs, flush0, flush1, ninval, mapped;
    g_autofree uint8_t *code = g_malloc(BLOCKS * 5 + 1);
    TcgHarness *h = th_get();

    /* BLOCKS times: inc %eax; jmp .+2 (each its own block). */
    for (unsigned i = 0; i < BLOCKS; i++) {
        code[5 * i] = 0xff;
        code[5 * i + 1] = 0xc0;
        code[5 * i + 2] = 0xeb;
        code[5 * i + 3] = 0x01;
        code[5 * i + 4] = 0x90;
    }
    code[5 * BLOCKS] = 0xf4;
    g_assert_true(tb_cache_init(1u << 20, NULL));
    tb_cache_stats(&ntbs, &flush0, &ninval, &mapped);
    h = run_code(TH_LONG, code, BLOCKS * 5 + 1);
    tb_cache_stats(&ntbs, &flush1, &ninval, &mapped);
    g_assert_cmphex(h->env->regs[R_EAX], ==, BLOCKS);
    g_assert_cmpuint(flush1, >, flush0);
    g_assert_cmpuint(mapped, <=, 1u << 20);
    g_assert_true(tb_cache_init(64u << 20, NULL));
}

/*
 * Optional instructions follow the vCPU's CPUID: lzcnt/tzcnt need ABM
 * and BMI1 (else they are bsr/bsf), popcnt and movbe their bits (else
 * #UD). Without a CPUID table (the other tests) everything is on.
 */
static void test_cpuid_gating(void)
{
    static const uint8_t popcnt[] = { 0xf3, 0x0f, 0xb8, 0xc1, 0xf4 };
    static const uint8_t movbe[] = { 0x0f, 0x38, 0xf0, 0x07, 0xf4 };
    TcgHarness *h = th_get();
    X86CPU *cpu = h->cpu;

    h = run_code(TH_LONG, code_scans, sizeof(code_scans));
    g_assert_cmphex(h->env->regs[R_EAX], ==, 23);
    g_assert_cmphex(h->env->regs[R_EDX], ==, 32);

    /* A model with leaf 1 and 0x80000001 but none of the bits. */
    cpu->cpuid[0] = (X86CPUIDEntry) { .function = 1 };
    cpu->cpuid[1] = (X86CPUIDEntry) { .function = 0x80000001 };
    cpu->ncpuid = 2;
    h = run_code(TH_LONG, code_scans, sizeof(code_scans));
    g_assert_cmphex(h->env->regs[R_EAX], ==, 8);
    g_assert_cmphex(h->env->regs[R_EDX], ==, 0x55);
    h = run_code(TH_LONG, popcnt, sizeof(popcnt));
    assert_fault(h, EXCP06_ILLOP, TH_CODE, false, 0);
    h = run_code(TH_LONG, movbe, sizeof(movbe));
    assert_fault(h, EXCP06_ILLOP, TH_CODE, false, 0);
    cpu->ncpuid = 0;
}

/* The budget bounds a run; an exit request ends it at once. */
static void test_budget_and_exit(void)
{
    TcgHarness *h = th_get();
    uint64_t n;

    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code_spin, sizeof(code_spin));
    n = th_run(h, 1000);
    g_assert_cmpuint(n, >=, 1000);
    g_assert_cmpuint(n, <, 1000 + 64);
    /* Two instructions an iteration, one inc each. */
    g_assert_cmpuint(h->env->regs[R_EAX], ==, n / 2);

    __atomic_fetch_or(&h->env->interrupt_request, CPU_INTERRUPT_EXIT,
                      __ATOMIC_SEQ_CST);
    g_assert_cmpuint(th_run(h, 1000), ==, 0);
    __atomic_fetch_and(&h->env->interrupt_request, ~CPU_INTERRUPT_EXIT,
                       __ATOMIC_SEQ_CST);
    g_assert_cmpuint(th_run(h, 10), >=, 10);
}

/*
 * sti holds interrupts off for exactly one instruction: once the
 * instruction after it has run, the shadow is gone, whether that
 * instruction falls through, jumps or loops (Linux's timer check spins
 * right after sti, waiting for ticks).
 */
static void test_sti_shadow_ends(void)
{
    static const uint8_t sti_nop_spin[] = {
        0xfb,                   /* sti */
        0x90,                   /* nop: in the shadow */
        0xff, 0xc0,             /* 1: inc eax */
        0xeb, 0xfc,             /* jmp 1b */
    };
    static const uint8_t sti_jmp_spin[] = {
        0xfb,                   /* sti */
        0xeb, 0x00,             /* jmp 1f: in the shadow */
        0xff, 0xc0,             /* 1: inc eax */
        0xeb, 0xfc,             /* jmp 1b */
    };
    const uint8_t *codes[] = { sti_nop_spin, sti_jmp_spin };
    const size_t sizes[] = { sizeof(sti_nop_spin), sizeof(sti_jmp_spin) };
    TcgHarness *h = th_get();

    for (unsigned i = 0; i < G_N_ELEMENTS(codes); i++) {
        th_set_mode(h, TH_LONG);
        th_write(h, TH_CODE, codes[i], sizes[i]);
        th_run(h, 1000);
        g_assert_true(h->env->eflags & IF_MASK);
        g_assert_false(h->env->hflags & HF_INHIBIT_IRQ_MASK);
        g_assert_cmpuint(h->env->regs[R_EAX], >, 100);
    }
}

/*
 * pause with other vCPUs to run ends the turn right after itself (as
 * QEMU's): a lock released before a pause is not taken again within the
 * same turn. Alone, pause is a nop in the middle of its block.
 */
static void test_pause_yields(void)
{
    static const uint8_t code[] = {
        0xc7, 0x05, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00,
                                        /* movl $0, 0x200000 (release) */
        0xf3, 0x90,                     /* pause */
        0xc7, 0x05, 0x00, 0x00, 0x20, 0x00, 0x01, 0x00, 0x00, 0x00,
                                        /* movl $1, 0x200000 (retake) */
        0xf4,                           /* hlt */
    };
    TcgHarness *h = th_get();
    CPUX86State *env = h->env;

    for (int yields = 0; yields < 2; yields++) {
        th_set_mode(h, TH_PROT32);
        st32(h, TH_DATA, 1);
        th_write(h, TH_CODE, code, sizeof(code));
        h->cpu->pause_yields = yields;
        __atomic_store_n(&env->interrupt_request, 0, __ATOMIC_SEQ_CST);
        th_run(h, 1000);
        if (yields) {
            g_assert_cmphex(env->rip, ==, TH_CODE + 12);
            g_assert_cmphex(ld64(h, TH_DATA) & 0xffffffff, ==, 0);
            g_assert_true(env->interrupt_request & CPU_INTERRUPT_EXIT);
            __atomic_store_n(&env->interrupt_request, 0, __ATOMIC_SEQ_CST);
            th_run(h, 1000);
        }
        g_assert_cmphex(env->rip, ==, TH_CODE + sizeof(code));
        g_assert_cmphex(ld64(h, TH_DATA) & 0xffffffff, ==, 1);
    }
    h->cpu->pause_yields = false;
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tcg/ops/div-zero", test_div_zero);
    g_test_add_func("/tcg/ops/idiv-overflow", test_idiv_overflow);
    g_test_add_func("/tcg/ops/invalid-encodings", test_invalid_encodings);
    g_test_add_func("/tcg/ops/cmpxchg16b-alignment",
                    test_cmpxchg16b_alignment);
    g_test_add_func("/tcg/ops/mode32", test_mode32);
    g_test_add_func("/tcg/ops/real-mode", test_real_mode);
    g_test_add_func("/tcg/ops/strings", test_strings);
    g_test_add_func("/tcg/ops/string-io", test_string_io);
    g_test_add_func("/tcg/ops/segment-bases", test_segment_bases);
    g_test_add_func("/tcg/ops/smc-same-block", test_smc_same_block);
    g_test_add_func("/tcg/ops/smc-other-block", test_smc_other_block);
    g_test_add_func("/tcg/ops/code-rewritten", test_code_rewritten);
    g_test_add_func("/tcg/ops/code-page-notify", test_code_page_notify);
    g_test_add_func("/tcg/ops/page-crossing", test_page_crossing);
    g_test_add_func("/tcg/ops/data-page-crossing", test_data_page_crossing);
    g_test_add_func("/tcg/ops/dead-flags", test_dead_flags);
    g_test_add_func("/tcg/ops/far-branch-remap", test_far_branch_remap);
    g_test_add_func("/tcg/ops/loop-ends", test_loop_ends);
    g_test_add_func("/tcg/ops/rip-stores/fault", test_rip_fault);
    g_test_add_func("/tcg/ops/rip-stores/call", test_rip_call);
    g_test_add_func("/tcg/ops/rip-stores/block-end", test_rip_block_end);
    g_test_add_func("/tcg/ops/rip-stores/loads", test_rip_loads);
    g_test_add_func("/tcg/ops/rip-stores/pairs", test_rip_pairs);
    g_test_add_func("/tcg/ops/cache-flush", test_cache_flush);
    g_test_add_func("/tcg/ops/cpuid-gating", test_cpuid_gating);
    g_test_add_func("/tcg/ops/budget-and-exit", test_budget_and_exit);
    g_test_add_func("/tcg/ops/sti-shadow-ends", test_sti_shadow_ends);
    g_test_add_func("/tcg/ops/pause-yields", test_pause_yields);
    return g_test_run();
}
