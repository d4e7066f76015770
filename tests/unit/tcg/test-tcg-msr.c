/*
 * MSRs under the software CPU: the ones it models keep their #GP for
 * reserved values; the ones it does not know read as 0 and ignore
 * writes, as under QEMU's TCG, so guests that probe vendor MSRs at
 * start-up (AMD's HWCR, SYSCFG, performance counters) go on.
 */
#include <glib.h>

#include "tcg-harness.h"

#define MSR_SYSCFG      0xc0010010u
#define MSR_HWCR        0xc0010015u
#define MSR_PERF_CTL0   0xc0010000u     /* .. 0xc0010007 */
#define MSR_PERF_CTL_F15 0xc0010200u    /* .. 0xc001020b */
#define MSR_FS_BASE     0xc0000100u
#define MSR_EFER        0xc0000080u
#define MSR_DEF_TYPE    0x000002ffu
#define MSR_X2APIC_TPR  0x00000808u
#define JUNK            0x5a5a5a5a5a5a5a5aull

static const uint8_t code_rdmsr[] = { 0x0f, 0x32, 0xf4 };
static const uint8_t code_wrmsr_rdmsr[] = { 0x0f, 0x30, 0x0f, 0x32, 0xf4 };

/* rdmsr of msr: true with the value when it did not fault. */
static bool rdmsr(uint32_t msr, uint64_t *value)
{
    TcgHarness *h = th_get();

    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code_rdmsr, sizeof(code_rdmsr));
    h->env->regs[R_ECX] = msr;
    h->env->regs[R_EAX] = JUNK;
    h->env->regs[R_EDX] = JUNK;
    th_run(h, 100);
    if (h->env->rip == th_after_handler(EXCP0D_GPF)) {
        return false;
    }
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_rdmsr));
    *value = (uint32_t)h->env->regs[R_EAX] | h->env->regs[R_EDX] << 32;
    return true;
}

/* wrmsr then rdmsr: true with what reads back when neither faulted. */
static bool wrmsr_rdmsr(uint32_t msr, uint64_t value, uint64_t *back)
{
    TcgHarness *h = th_get();

    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code_wrmsr_rdmsr, sizeof(code_wrmsr_rdmsr));
    h->env->regs[R_ECX] = msr;
    h->env->regs[R_EAX] = (uint32_t)value;
    h->env->regs[R_EDX] = value >> 32;
    th_run(h, 100);
    if (h->env->rip == th_after_handler(EXCP0D_GPF)) {
        return false;
    }
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code_wrmsr_rdmsr));
    *back = (uint32_t)h->env->regs[R_EAX] | h->env->regs[R_EDX] << 32;
    return true;
}

static void test_unknown_reads_zero(void)
{
    uint32_t msrs[2 + 8 + 12];
    unsigned n = 0;
    uint64_t v;

    msrs[n++] = MSR_SYSCFG;
    msrs[n++] = MSR_HWCR;
    for (unsigned i = 0; i < 8; i++) {
        msrs[n++] = MSR_PERF_CTL0 + i;
    }
    for (unsigned i = 0; i < 12; i++) {
        msrs[n++] = MSR_PERF_CTL_F15 + i;
    }
    for (unsigned i = 0; i < n; i++) {
        g_assert_true(rdmsr(msrs[i], &v));
        g_assert_cmphex(v, ==, 0);
        /* The write is ignored: it still reads 0. */
        g_assert_true(wrmsr_rdmsr(msrs[i], 0x12345678, &v));
        g_assert_cmphex(v, ==, 0);
    }
}

static void test_modelled_keep_gp(void)
{
    uint64_t v;

    /* A modelled MSR takes and returns its value. */
    g_assert_true(wrmsr_rdmsr(MSR_FS_BASE, 0x7fff12345000ull, &v));
    g_assert_cmphex(v, ==, 0x7fff12345000ull);
    /* Non-canonical base, reserved EFER and MTRR default-type bits. */
    g_assert_false(wrmsr_rdmsr(MSR_FS_BASE, 0x8000000000000000ull, &v));
    g_assert_false(wrmsr_rdmsr(MSR_EFER, 1ull << 20, &v));
    g_assert_false(wrmsr_rdmsr(MSR_DEF_TYPE, 1ull << 12, &v));
    /* No x2APIC mode: its range faults, as the architecture wants. */
    g_assert_false(rdmsr(MSR_X2APIC_TPR, &v));
    g_assert_false(wrmsr_rdmsr(MSR_X2APIC_TPR, 0, &v));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tcg/msr/unknown-reads-zero", test_unknown_reads_zero);
    g_test_add_func("/tcg/msr/modelled-keep-gp", test_modelled_keep_gp);
    return g_test_run();
}
