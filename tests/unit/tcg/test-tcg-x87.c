/*
 * The x87 FPU's faults and state images in the software CPU, the paths
 * the host differential test cannot take natively (tcg-diff-gen-x87.c
 * keeps the host from ever raising #MF): #NM under CR0.EM and CR0.TS
 * (fwait only with TS and MP), #MF at the next waiting instruction
 * after an unmasked exception (not at fnstsw, fnclex, fninit), the
 * CR0.NE=0 path, stack overflow and underflow, the fnsave/frstor
 * image and the real-mode fnstenv layout. Facts: Intel SDM vol. 1 8.5, 8.6, 8.1.8; vol. 3A 2.5 (CR0).
 */
#include <string.h>

#include <glib.h>

#include "target/i386/cpu-state.h"
#include "tcg-harness.h"

/* mov word [TH_DATA], 0x037b; fldcw [TH_DATA]: ZE unmasked. */
#define UNMASK_ZE \
    0x66, 0xc7, 0x04, 0x25, 0x00, 0x00, 0x20, 0x00, 0x7b, 0x03, \
    0xd9, 0x2c, 0x25, 0x00, 0x00, 0x20, 0x00
/* fld1; fldz; fdivr st0, st1 (1/0): an unmasked zero divide. */
#define DIVIDE_BY_ZERO  0xd9, 0xe8, 0xd9, 0xee, 0xd8, 0xf9
#define PREFIX_LEN      23

static uint64_t ld64(TcgHarness *h, uint64_t pa)
{
    uint64_t v;

    memcpy(&v, h->ram + pa, 8);
    return v;
}

static uint32_t ld32(TcgHarness *h, uint64_t pa)
{
    uint32_t v;

    memcpy(&v, h->ram + pa, 4);
    return v;
}

/* Run code in mode after cr0 gets set_cr0 and loses clear_cr0. */
static TcgHarness *run(THMode mode, uint64_t set_cr0, uint64_t clear_cr0,
                       const uint8_t *code, size_t len)
{
    TcgHarness *h = th_get();

    th_set_mode(h, mode);
    x86_fpu_reset(h->env);
    h->env->cr[0] = (h->env->cr[0] | set_cr0) & ~clear_cr0;
    th_write(h, mode >= TH_PROT16 ? TH_CODE16 : TH_CODE, code, len);
    th_run(h, 1000);
    return h;
}

/* Ended in vector's handler, the fault at TH_CODE + off (64-bit frame). */
static void assert_fault(TcgHarness *h, int vector, unsigned off)
{
    g_assert_cmphex(h->env->rip, ==, th_after_handler(vector));
    g_assert_cmphex(ld64(h, h->env->regs[R_ESP]), ==, TH_CODE + off);
}

static void assert_halted_after(TcgHarness *h, size_t len)
{
    g_assert_cmphex(h->env->rip, ==, TH_CODE + len);
}

static void test_nm(void)
{
    static const uint8_t fld1[] = { 0xd9, 0xe8, 0xf4 };
    static const uint8_t fninit[] = { 0xdb, 0xe3, 0xf4 };
    static const uint8_t fwait[] = { 0x9b, 0xf4 };
    TcgHarness *h;

    /* CR0.TS: every x87 instruction, fwait only with CR0.MP. */
    h = run(TH_LONG, CR0_TS_MASK, 0, fld1, sizeof(fld1));
    assert_fault(h, EXCP07_PREX, 0);
    g_assert_true(h->env->fptags[7]);               /* nothing pushed */
    h = run(TH_LONG, CR0_TS_MASK | CR0_MP_MASK, 0, fwait, sizeof(fwait));
    assert_fault(h, EXCP07_PREX, 0);
    h = run(TH_LONG, CR0_TS_MASK, CR0_MP_MASK, fwait, sizeof(fwait));
    assert_halted_after(h, sizeof(fwait));
    /* CR0.EM: every x87 instruction, the no-wait ones too; not fwait. */
    h = run(TH_LONG, CR0_EM_MASK, 0, fninit, sizeof(fninit));
    assert_fault(h, EXCP07_PREX, 0);
    h = run(TH_LONG, CR0_EM_MASK, 0, fwait, sizeof(fwait));
    assert_halted_after(h, sizeof(fwait));
}

static void test_mf(void)
{
    /* fnstsw ax does not wait; the fld1 after it takes the #MF. */
    static const uint8_t at_fld[] = {
        UNMASK_ZE, DIVIDE_BY_ZERO, 0xdf, 0xe0, 0xd9, 0xe8, 0xf4,
    };
    static const uint8_t at_fwait[] = {
        UNMASK_ZE, DIVIDE_BY_ZERO, 0x9b, 0xf4,
    };
    /* fnclex clears it: fwait and fld1 go on. */
    static const uint8_t cleared[] = {
        UNMASK_ZE, DIVIDE_BY_ZERO, 0xdb, 0xe2, 0x9b, 0xd9, 0xe8, 0xf4,
    };
    TcgHarness *h;
    uint16_t ax;

    h = run(TH_LONG, 0, 0, at_fld, sizeof(at_fld));
    assert_fault(h, EXCP10_COPR, PREFIX_LEN + 2);
    ax = h->env->regs[R_EAX];
    g_assert_cmphex(ax & (FPUS_ZE | FPUS_ES | FPUS_B | FPUS_TOP), ==,
                    FPUS_ZE | FPUS_ES | FPUS_B | 6 << 11);
    g_assert_cmphex(ax & (FPUS_IE | FPUS_DE | FPUS_OE | FPUS_UE), ==, 0);
    /* The divide changed nothing: ST(0) is still +0. */
    g_assert_cmpuint(h->env->fpstt, ==, 6);
    g_assert_cmphex(h->env->fpregs[6].sexp, ==, 0);
    g_assert_cmphex(h->env->fpregs[6].mant, ==, 0);

    h = run(TH_LONG, 0, 0, at_fwait, sizeof(at_fwait));
    assert_fault(h, EXCP10_COPR, PREFIX_LEN);

    h = run(TH_LONG, 0, 0, cleared, sizeof(cleared));
    assert_halted_after(h, sizeof(cleared));
    g_assert_cmphex(h->env->fpus & (FPUS_ES | FPUS_ZE), ==, 0);
    g_assert_cmpuint(h->env->fpstt, ==, 5);

    /* CR0.NE=0 (FERR#, not modelled): no #MF, the exception stays. */
    h = run(TH_LONG, 0, CR0_NE_MASK, at_fwait, sizeof(at_fwait));
    assert_halted_after(h, sizeof(at_fwait));
    g_assert_true(h->env->fpus & FPUS_ES);
}

static void test_stack_faults(void)
{
    /* fld1 nine times (masked): the ninth pushes the indefinite. */
    static const uint8_t overflow[] = {
        0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8,
        0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xdf, 0xe0, 0xf4,
    };
    /* fadd st0, st1 on an empty stack. */
    static const uint8_t underflow[] = { 0xd8, 0xc1, 0xdf, 0xe0, 0xf4 };
    /* Unmasked IE (fldcw 0x037e): the ninth fld1 pushes nothing, #MF at
     * the tenth. */
    static const uint8_t unmasked[] = {
        0x66, 0xc7, 0x04, 0x25, 0x00, 0x00, 0x20, 0x00, 0x7e, 0x03,
        0xd9, 0x2c, 0x25, 0x00, 0x00, 0x20, 0x00,
        0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8,
        0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xd9, 0xe8, 0xf4,
    };
    TcgHarness *h;

    h = run(TH_LONG, 0, 0, overflow, sizeof(overflow));
    assert_halted_after(h, sizeof(overflow));
    g_assert_cmphex((uint16_t)h->env->regs[R_EAX], ==,
                    7 << 11 | FPUS_C1 | FPUS_SF | FPUS_IE);
    g_assert_cmphex(h->env->fpregs[7].sexp, ==, 0xffff);
    g_assert_cmphex(h->env->fpregs[7].mant, ==, 0xc000000000000000ull);

    h = run(TH_LONG, 0, 0, underflow, sizeof(underflow));
    assert_halted_after(h, sizeof(underflow));
    g_assert_cmphex((uint16_t)h->env->regs[R_EAX], ==, FPUS_SF | FPUS_IE);
    g_assert_false(h->env->fptags[0]);              /* the indefinite */

    h = run(TH_LONG, 0, 0, unmasked, sizeof(unmasked));
    assert_fault(h, EXCP10_COPR, 17 + 2 * 9);
    g_assert_cmpuint(h->env->fpstt, ==, 0);
    g_assert_cmphex(h->env->fpus & (FPUS_ES | FPUS_SF | FPUS_IE | FPUS_C1),
                    ==, FPUS_ES | FPUS_SF | FPUS_IE | FPUS_C1);
}

/* fnsave/frstor in 32-bit protected mode: the 108-byte image. */
static void test_save_image(void)
{
    static const uint8_t code[] = {
        0xd9, 0xe8,                                 /* fld1 */
        0xd9, 0xeb,                                 /* fldpi */
        0xdd, 0x35, 0x00, 0x00, 0x20, 0x00,         /* fnsave [TH_DATA] */
        0xdd, 0x25, 0x00, 0x00, 0x20, 0x00,         /* frstor [TH_DATA] */
        0xf4,
    };
    TcgHarness *h = run(TH_PROT32, 0, 0, code, sizeof(code));
    CPUX86State *env = h->env;

    assert_halted_after(h, sizeof(code));
    /* FCW, FSW (TOP 6), FTW (physical 6 and 7 valid); ones above. */
    g_assert_cmphex(ld32(h, TH_DATA), ==, 0xffff037f);
    g_assert_cmphex(ld32(h, TH_DATA + 4), ==, 0xffff3000);
    g_assert_cmphex(ld32(h, TH_DATA + 8), ==, 0xffff0fff);
    /* FOP of fldpi (d9 eb) beside FCS. */
    g_assert_cmphex(ld32(h, TH_DATA + 16) >> 16, ==, 0x1eb);
    /* ST(0) = pi rounded to nearest, ST(1) = 1. */
    g_assert_cmphex(ld64(h, TH_DATA + 28), ==, 0xc90fdaa22168c235ull);
    g_assert_cmphex(ld32(h, TH_DATA + 36) & 0xffff, ==, 0x4000);
    g_assert_cmphex(ld64(h, TH_DATA + 38), ==, 0x8000000000000000ull);
    /* And back. */
    g_assert_cmpuint(env->fpstt, ==, 6);
    g_assert_false(env->fptags[6]);
    g_assert_false(env->fptags[7]);
    g_assert_true(env->fptags[5]);
    g_assert_cmphex(env->fpregs[6].mant, ==, 0xc90fdaa22168c235ull);
    g_assert_cmphex(env->fpuc, ==, 0x037f);
}

/* fnstenv in real mode: the 14-byte layout with a 20-bit linear FIP. */
static void test_real_mode_env(void)
{
    static const uint8_t code[] = {
        0xd9, 0xe8,                                 /* fld1 */
        0xd9, 0x36, 0x00, 0x01,                     /* fnstenv [0x100] */
        0xf4,
    };
    TcgHarness *h = run(TH_REAL, 0, 0, code, sizeof(code));
    uint64_t img = h->env->segs[R_DS].base + 0x100;
    uint16_t w[7];

    g_assert_cmphex(h->env->rip, ==, sizeof(code));
    memcpy(w, h->ram + img, sizeof(w));
    g_assert_cmphex(w[0], ==, 0x037f);
    g_assert_cmphex(w[1], ==, 7 << 11);
    g_assert_cmphex(w[2], ==, 0x3fff);              /* physical 7 valid */
    /* FIP = CS * 16 + IP of fld1, split around FOP (d9 e8). */
    g_assert_cmphex(w[3], ==, TH_CODE16 & 0xffff);
    g_assert_cmphex(w[4], ==, ((TH_CODE16 >> 16) << 12) | 0x1e8);
}

static void test_cpuid_fpu(void)
{
    X86CPUIDEntry t[X86_CPUID_MAX_ENTRIES];
    unsigned n = x86_tcg_supported_cpuid(t, G_N_ELEMENTS(t));
    X86CPUIDEntry *e = x86_cpuid_find(t, n, 1, 0);

    g_assert_nonnull(e);
    g_assert_true(e->regs[X86_R_EDX] & 1);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tcg/x87/nm", test_nm);
    g_test_add_func("/tcg/x87/mf", test_mf);
    g_test_add_func("/tcg/x87/stack-faults", test_stack_faults);
    g_test_add_func("/tcg/x87/save-image", test_save_image);
    g_test_add_func("/tcg/x87/real-mode-env", test_real_mode_env);
    g_test_add_func("/tcg/x87/cpuid", test_cpuid_fpu);
    return g_test_run();
}
