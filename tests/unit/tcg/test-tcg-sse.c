/*
 * The vector instructions' system side in the software CPU, where the
 * host differential test cannot go (it runs with exceptions masked and
 * CR0/CR4 as Linux sets them): #UD and #NM from CR0.EM, CR0.TS and
 * CR4.OSFXSR, #GP(0) for misaligned 16-byte operands, #XM and #UD for
 * unmasked MXCSR exceptions, the MMX view of the x87 registers, and
 * round trips through fxsave/fxrstor and xsave/xrstor with XCR0.
 *
 * Rules: Intel SDM vol. 3A 2.5 (CR0, CR4), 13 (XSAVE), vol. 1 11.5
 * (SIMD floating-point exceptions), 9.5 (MMX and the x87 state).
 */
#include <string.h>

#include <glib.h>

#include "tcg-harness.h"

#define EXCP13_XM   19
#define DATA        TH_DATA                 /* 16-byte aligned */

static uint64_t ld64(TcgHarness *h, uint64_t pa)
{
    uint64_t v;

    memcpy(&v, h->ram + pa, 8);
    return v;
}

/* Long mode, CR0/CR4 adjusted, code at TH_CODE followed by hlt. */
static TcgHarness *run(const uint8_t *code, size_t len, uint64_t cr0_set,
                       uint64_t cr0_clear, uint64_t cr4_set,
                       uint64_t cr4_clear)
{
    TcgHarness *h = th_get();
    uint8_t buf[64];

    g_assert(len < sizeof(buf));
    memcpy(buf, code, len);
    buf[len] = 0xf4;
    th_set_mode(h, TH_LONG);
    x86_fpu_reset(h->env);
    h->env->cr[0] = (h->env->cr[0] | cr0_set) & ~cr0_clear;
    h->env->cr[4] = (h->env->cr[4] | cr4_set) & ~cr4_clear;
    x86_update_hflags(h->env);
    th_write(h, TH_CODE, buf, len + 1);
    th_run(h, 1000);
    return h;
}

/* The run ended in vector's handler, the fault at TH_CODE + at. */
static void assert_vector(TcgHarness *h, int vector, unsigned at)
{
    g_assert_cmphex(h->env->rip, ==, th_after_handler(vector));
    g_assert_cmphex(ld64(h, h->env->regs[R_ESP] +
                         (vector == EXCP0D_GPF ? 8 : 0)), ==, TH_CODE + at);
}

static void assert_done(TcgHarness *h, size_t len)
{
    g_assert_cmphex(h->env->rip, ==, TH_CODE + len + 1);
}

static const uint8_t addps[] = { 0x0f, 0x58, 0xc1 };        /* xmm0, xmm1 */
static const uint8_t paddb_mm[] = { 0x0f, 0xfc, 0xc1 };     /* mm0, mm1 */

static void test_cr_checks(void)
{
    TcgHarness *h;

    h = run(addps, sizeof(addps), 0, 0, 0, 0);
    assert_done(h, sizeof(addps));
    h = run(addps, sizeof(addps), 0, 0, 0, CR4_OSFXSR_MASK);
    assert_vector(h, EXCP06_ILLOP, 0);
    h = run(addps, sizeof(addps), CR0_EM_MASK, 0, 0, 0);
    assert_vector(h, EXCP06_ILLOP, 0);
    h = run(addps, sizeof(addps), CR0_TS_MASK, 0, 0, 0);
    assert_vector(h, EXCP07_PREX, 0);
    /* EM wins over TS. */
    h = run(addps, sizeof(addps), CR0_TS_MASK | CR0_EM_MASK, 0, 0, 0);
    assert_vector(h, EXCP06_ILLOP, 0);

    /* MMX needs no OSFXSR, but faults on EM and TS alike. */
    h = run(paddb_mm, sizeof(paddb_mm), 0, 0, 0, CR4_OSFXSR_MASK);
    assert_done(h, sizeof(paddb_mm));
    h = run(paddb_mm, sizeof(paddb_mm), CR0_EM_MASK, 0, 0, 0);
    assert_vector(h, EXCP06_ILLOP, 0);
    h = run(paddb_mm, sizeof(paddb_mm), CR0_TS_MASK, 0, 0, 0);
    assert_vector(h, EXCP07_PREX, 0);
}

static void test_alignment(void)
{
    /* mov $DATA+off, %rax; movaps/movups (%rax), %xmm0 */
    uint8_t code[] = { 0x48, 0xc7, 0xc0, 0, 0, 0, 0, 0x0f, 0x28, 0x00 };
    uint32_t a;
    TcgHarness *h;

    for (unsigned off = 0; off < 16; off += 4) {
        for (unsigned op = 0x10; op <= 0x28; op += 0x18) {
            a = DATA + off;
            memcpy(code + 3, &a, 4);
            code[8] = op;
            h = run(code, sizeof(code), 0, 0, 0, 0);
            if (op == 0x28 && off) {
                assert_vector(h, EXCP0D_GPF, 7);
                g_assert_cmphex(ld64(h, h->env->regs[R_ESP]), ==, 0);
            } else {
                assert_done(h, sizeof(code));
            }
        }
    }
    /* addps's memory operand is aligned too; addss's (m32) is not. */
    code[7] = 0x0f, code[8] = 0x58;
    a = DATA + 4;
    memcpy(code + 3, &a, 4);
    h = run(code, sizeof(code), 0, 0, 0, 0);
    assert_vector(h, EXCP0D_GPF, 7);
}

/* ldmxcsr (DATA); divss %xmm1, %xmm0 with xmm1 = 0. */
static TcgHarness *run_divide_by_zero(uint32_t mxcsr, uint64_t cr4_clear)
{
    static const uint8_t code[] = {
        0x48, 0xc7, 0xc0, DATA & 0xff, (DATA >> 8) & 0xff,
        (DATA >> 16) & 0xff, 0,
        0x0f, 0xae, 0x10,                   /* ldmxcsr (%rax) */
        0xf3, 0x0f, 0x5e, 0xc1,             /* divss %xmm1, %xmm0 */
    };
    TcgHarness *h = th_get();
    uint8_t buf[sizeof(code) + 1];
    float one = 1.0f;

    memcpy(h->ram + DATA, &mxcsr, 4);
    memcpy(buf, code, sizeof(code));
    buf[sizeof(code)] = 0xf4;
    th_set_mode(h, TH_LONG);
    x86_fpu_reset(h->env);
    h->env->cr[4] &= ~cr4_clear;
    memcpy(&h->env->xmm[0].s[0], &one, 4);
    th_write(h, TH_CODE, buf, sizeof(buf));
    th_run(h, 1000);
    return h;
}

static void test_simd_exceptions(void)
{
    TcgHarness *h;

    /* Masked: infinity and ZE. */
    h = run_divide_by_zero(MXCSR_INIT, 0);
    g_assert_cmphex(h->env->rip, ==, TH_CODE + 14 + 1);
    g_assert_cmphex(h->env->xmm[0].l[0], ==, 0x7f800000);
    g_assert_cmphex(h->env->mxcsr, ==, MXCSR_INIT | 0x4);

    /* ZM clear: #XM, the destination unchanged, ZE set. */
    h = run_divide_by_zero(MXCSR_INIT & ~0x200u, 0);
    g_assert_cmphex(h->env->rip, ==, th_after_handler(EXCP13_XM));
    g_assert_cmphex(ld64(h, h->env->regs[R_ESP]), ==, TH_CODE + 10);
    g_assert_cmphex(h->env->xmm[0].l[0], ==, 0x3f800000);
    g_assert_cmphex(h->env->mxcsr & 0x3f, ==, 0x4);

    /* Without CR4.OSXMMEXCPT the same is #UD. */
    h = run_divide_by_zero(MXCSR_INIT & ~0x200u, CR4_OSXMMEXCPT_MASK);
    g_assert_cmphex(h->env->rip, ==, th_after_handler(EXCP06_ILLOP));

    /* ldmxcsr of a reserved bit: #GP(0). */
    h = run_divide_by_zero(0x10000 | MXCSR_INIT, 0);
    g_assert_cmphex(h->env->rip, ==, th_after_handler(EXCP0D_GPF));
    g_assert_cmphex(h->env->mxcsr, ==, MXCSR_INIT);
}

static void test_mmx_state(void)
{
    /* movq %mm1 <- %rax (48 0f 6e c8); emms after it in the second run. */
    static const uint8_t code[] = {
        0x48, 0xb8, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
        0x48, 0x0f, 0x6e, 0xc8, 0x0f, 0x77,
    };
    TcgHarness *h = run(code, 14, 0, 0, 0, 0);

    g_assert_cmphex(h->env->fpregs[1].mant, ==, 0x1122334455667788ull);
    g_assert_cmphex(h->env->fpregs[1].sexp, ==, 0xffff);
    g_assert_cmpuint(h->env->fpstt, ==, 0);
    for (unsigned i = 0; i < 8; i++) {
        g_assert_cmpuint(h->env->fptags[i], ==, 0);
    }
    h = run(code, sizeof(code), 0, 0, 0, 0);
    for (unsigned i = 0; i < 8; i++) {
        g_assert_cmpuint(h->env->fptags[i], ==, 1);
    }
}

/* Fill the SSE state with a pattern; clobber it; compare. */
static void pattern(CPUX86State *env, uint8_t seed)
{
    for (unsigned i = 0; i < 16; i++) {
        for (unsigned b = 0; b < 16; b++) {
            env->xmm[i].b[b] = seed + i * 16 + b;
        }
    }
    env->mxcsr = MXCSR_INIT | (seed & 0x3f);
}

static void check_pattern(CPUX86State *env, uint8_t seed, unsigned nxmm)
{
    for (unsigned i = 0; i < nxmm; i++) {
        for (unsigned b = 0; b < 16; b++) {
            g_assert_cmpuint(env->xmm[i].b[b], ==, (uint8_t)(seed + i * 16 + b));
        }
    }
    g_assert_cmphex(env->mxcsr, ==, MXCSR_INIT | (seed & 0x3f));
}

/* Long mode with the FPU reset and CR4 bits added; state set after. */
static TcgHarness *prepare(uint64_t cr4_set)
{
    TcgHarness *h = th_get();

    th_set_mode(h, TH_LONG);
    x86_fpu_reset(h->env);
    h->env->cr[4] |= cr4_set;
    return h;
}

/* Run code (hlt appended) from TH_CODE; it must reach the hlt. */
static void go(TcgHarness *h, const uint8_t *code, size_t len)
{
    uint8_t buf[64];

    memcpy(buf, code, len);
    buf[len] = 0xf4;
    th_write(h, TH_CODE, buf, len + 1);
    h->env->rip = TH_CODE;
    h->env->hflags &= ~HF_HALTED_MASK;
    th_run(h, 100);
    assert_done(h, len);
}

/* mov $DATA, %rbx; 0f ae /digit (%rbx) with REX.W. */
static void save_restore(TcgHarness *h, unsigned digit)
{
    const uint8_t code[] = {
        0x48, 0xc7, 0xc3, DATA & 0xff, (DATA >> 8) & 0xff,
        (DATA >> 16) & 0xff, 0, 0x48, 0x0f, 0xae, digit << 3 | 3,
    };

    h->env->regs[R_EAX] = XCR0_X87 | XCR0_SSE;
    h->env->regs[R_EDX] = 0;
    go(h, code, sizeof(code));
}

/* Save a pattern, clobber it, restore: the pattern is back. */
static void round_trip(unsigned save, unsigned restore, uint64_t cr4_set)
{
    TcgHarness *h = prepare(cr4_set);

    memset(h->ram + DATA, 0, 1024);
    h->env->xcr0 = XCR0_X87 | XCR0_SSE;
    pattern(h->env, 0x21);
    save_restore(h, save);
    pattern(h->env, 0x77);
    save_restore(h, restore);
    check_pattern(h->env, 0x21, 16);
}

static void test_fxsave_round_trip(void)
{
    round_trip(0, 1, 0);
    /* The image: XMM0 at 160. */
    g_assert_cmphex(ld64(th_get(), DATA + 160), ==, 0x2827262524232221ull);
}

static void test_xsave_round_trip(void)
{
    TcgHarness *h;

    round_trip(4, 5, CR4_OSXSAVE_MASK);
    /* XSTATE_BV has x87 and SSE. */
    g_assert_cmphex(ld64(th_get(), DATA + 512), ==, 3);
    round_trip(6, 5, CR4_OSXSAVE_MASK);             /* xsaveopt */

    /* XSTATE_BV without SSE: xrstor puts XMM in its initial state. */
    th_get()->ram[DATA + 512] = 1;
    h = prepare(CR4_OSXSAVE_MASK);
    h->env->xcr0 = XCR0_X87 | XCR0_SSE;
    pattern(h->env, 0x55);
    save_restore(h, 5);
    for (unsigned i = 0; i < 16; i++) {
        g_assert_cmphex(h->env->xmm[i].q[0] | h->env->xmm[i].q[1], ==, 0);
    }
    /* MXCSR is loaded all the same (RFBM has SSE). */
    g_assert_cmphex(h->env->mxcsr, ==, MXCSR_INIT | 0x21);
}

/*
 * What a vendor's processor does that the differential test sees only on
 * that vendor's hosts: CPUID.07H.0:EBX[13] stores FCS and FDS as 0 in
 * fxsave and fnstenv; Intel's dpps and dppd sum per lane, so with
 * several NaNs the lanes differ (values measured on an Intel Xeon,
 * family 6 model 0xa0678).
 */
static void test_vendor_forms(void)
{
    /* mov $DATA, %rbx; fxsave (%rbx) */
    static const uint8_t fxsave[] = {
        0x48, 0xc7, 0xc3, DATA & 0xff, (DATA >> 8) & 0xff,
        (DATA >> 16) & 0xff, 0, 0x0f, 0xae, 0x03,
    };
    /* mov $DATA, %rbx; fnstenv (%rbx) */
    static const uint8_t fnstenv[] = {
        0x48, 0xc7, 0xc3, DATA & 0xff, (DATA >> 8) & 0xff,
        (DATA >> 16) & 0xff, 0, 0xd9, 0x33,
    };
    static const uint8_t dpps[] = { 0x66, 0x0f, 0x3a, 0x40, 0xc1, 0xff };
    static const uint8_t dppd[] = { 0x66, 0x0f, 0x3a, 0x41, 0xc1, 0x33 };
    static const uint32_t intel[4] = {
        0xffc00002, 0xffc00001, 0xffc00004, 0xffc00003,
    };
    TcgHarness *h = prepare(0);
    const X86Vendor *saved = h->cpu->vendor;
    uint16_t sel[2];

    h->cpu->vendor = &x86_vendors[X86_VENDOR_INTEL];
    for (int zero = 0; zero < 2; zero++) {
        h->cpu->fcs_fds_zero = zero;
        h->env->fpcs = 0x1234;
        h->env->fpds = 0x5678;
        go(h, fxsave, sizeof(fxsave));
        memcpy(&sel[0], h->ram + DATA + 12, 2);
        memcpy(&sel[1], h->ram + DATA + 20, 2);
        g_assert_cmphex(sel[0], ==, zero ? 0 : 0x1234);
        g_assert_cmphex(sel[1], ==, zero ? 0 : 0x5678);
        /* fnstenv's 32-bit protected image: FCS at 16, FDS at 24. */
        go(h, fnstenv, sizeof(fnstenv));
        memcpy(&sel[0], h->ram + DATA + 16, 2);
        memcpy(&sel[1], h->ram + DATA + 24, 2);
        g_assert_cmphex(sel[0], ==, zero ? 0 : 0x1234);
        g_assert_cmphex(sel[1], ==, zero ? 0 : 0x5678);
    }
    h->cpu->fcs_fds_zero = false;

    for (int v = 0; v < 2; v++) {
        h->cpu->vendor = &x86_vendors[v ? X86_VENDOR_INTEL : X86_VENDOR_AMD];
        for (unsigned i = 0; i < 4; i++) {
            h->env->xmm[0].l[i] = 0xffc00001 + i;
            h->env->xmm[1].l[i] = 0x3f800000;               /* 1.0 */
        }
        go(h, dpps, sizeof(dpps));
        for (unsigned i = 0; i < 4; i++) {
            g_assert_cmphex(h->env->xmm[0].l[i], ==,
                            v ? intel[i] : 0xffc00001);
        }
        /* dppd: Intel's lane 1 sums p1 + p0, AMD copies lane 0's sum. */
        for (unsigned i = 0; i < 2; i++) {
            h->env->xmm[0].q[i] = 0xfff8000000000001ull + i;
            h->env->xmm[1].q[i] = 0x3ff0000000000000ull;    /* 1.0 */
        }
        go(h, dppd, sizeof(dppd));
        g_assert_cmphex(h->env->xmm[0].q[0], ==, 0xfff8000000000001ull);
        g_assert_cmphex(h->env->xmm[0].q[1], ==,
                        v ? 0xfff8000000000002ull : 0xfff8000000000001ull);
    }
    h->cpu->vendor = saved;
}

static void test_xcr0(void)
{
    static const uint8_t xgetbv[] = { 0x0f, 0x01, 0xd0 };
    static const uint8_t xsetbv[] = { 0x0f, 0x01, 0xd1 };
    static const uint8_t xsave[] = { 0x0f, 0xae, 0x20 };
    TcgHarness *h;

    h = run(xgetbv, sizeof(xgetbv), 0, 0, 0, 0);
    assert_vector(h, EXCP06_ILLOP, 0);
    h = run(xsave, sizeof(xsave), 0, 0, 0, 0);
    assert_vector(h, EXCP06_ILLOP, 0);
    h = run(xgetbv, sizeof(xgetbv), 0, 0, CR4_OSXSAVE_MASK, 0);
    assert_done(h, sizeof(xgetbv));
    g_assert_cmphex(h->env->regs[R_EAX], ==, XCR0_X87);

    /* xsetbv: x87|SSE is fine; AVX (bit 2) and no-x87 are #GP(0). */
    for (unsigned v = 1; v < 8; v++) {
        h = prepare(CR4_OSXSAVE_MASK);
        h->env->regs[R_EAX] = v;
        th_write(h, TH_CODE, (const uint8_t[]) { 0x0f, 0x01, 0xd1, 0xf4 },
                 4);
        th_run(h, 10);
        if (v == 1 || v == 3) {
            assert_done(h, sizeof(xsetbv));
            g_assert_cmphex(h->env->xcr0, ==, v);
        } else {
            assert_vector(h, EXCP0D_GPF, 0);
        }
    }
}

static void test_fxsave_alignment(void)
{
    /* mov $DATA+8, %rax; fxsave (%rax) */
    uint8_t code[] = { 0x48, 0xc7, 0xc0, (DATA + 8) & 0xff,
                       ((DATA + 8) >> 8) & 0xff, ((DATA + 8) >> 16) & 0xff,
                       0, 0x0f, 0xae, 0x00 };
    TcgHarness *h = run(code, sizeof(code), 0, 0, 0, 0);

    assert_vector(h, EXCP0D_GPF, 7);
    /* fxsave needs no OSFXSR, but CR0.TS is #NM, */
    code[3] = DATA & 0xff;
    h = run(code, sizeof(code), 0, 0, 0, CR4_OSFXSR_MASK);
    assert_done(h, sizeof(code));
    h = run(code, sizeof(code), CR0_TS_MASK, 0, 0, 0);
    assert_vector(h, EXCP07_PREX, 7);
    /* and so is EM (not #UD as for SSE and MMX forms). */
    h = run(code, sizeof(code), CR0_EM_MASK, 0, 0, 0);
    assert_vector(h, EXCP07_PREX, 7);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tcg/sse/cr0-cr4-checks", test_cr_checks);
    g_test_add_func("/tcg/sse/alignment", test_alignment);
    g_test_add_func("/tcg/sse/simd-exceptions", test_simd_exceptions);
    g_test_add_func("/tcg/sse/mmx-state", test_mmx_state);
    g_test_add_func("/tcg/sse/fxsave-round-trip", test_fxsave_round_trip);
    g_test_add_func("/tcg/sse/fxsave-alignment", test_fxsave_alignment);
    g_test_add_func("/tcg/sse/xsave-round-trip", test_xsave_round_trip);
    g_test_add_func("/tcg/sse/xcr0", test_xcr0);
    g_test_add_func("/tcg/sse/vendor-forms", test_vendor_forms);
    return g_test_run();
}
