/*
 * The vendor table (include/target/i386/vendor.h): each entry run under
 * both rows on the software CPU, and -cpu ...,vendor= choosing the row.
 */
#include <string.h>

#include <glib.h>

#include "target/i386/tcg/sys-internal.h"
#include "tcg-harness.h"

#define CODE_TARGET     (TH_CODE + 0x800)   /* where a transfer lands */
#define NONCANONICAL    0x8000000000000000ull

static const X86Vendor *const amd = &x86_vendors[X86_VENDOR_AMD];
static const X86Vendor *const intel = &x86_vendors[X86_VENDOR_INTEL];

static uint64_t ld64(TcgHarness *h, uint64_t pa)
{
    uint64_t v;

    memcpy(&v, h->ram + pa, 8);
    return v;
}

/* The bench in mode under vendor's row, code at TH_CODE, hlt at target. */
static TcgHarness *setup(const X86Vendor *vendor, THMode mode,
                         const uint8_t *code, size_t len)
{
    static const uint8_t hlt = 0xf4;
    TcgHarness *h = th_get();

    th_set_mode(h, mode);
    h->cpu->vendor = vendor;
    th_write(h, TH_CODE, code, len);
    th_write(h, CODE_TARGET, &hlt, 1);
    return h;
}

/* The run ended in vector's handler, having faulted at rip. */
static void assert_fault(TcgHarness *h, int vector, uint64_t rip,
                         bool has_error)
{
    uint64_t sp = h->env->regs[R_ESP];

    g_assert_cmphex(h->env->rip, ==, th_after_handler(vector));
    if (has_error) {
        g_assert_cmphex(ld64(h, sp), ==, 0);
        sp += 8;
    }
    g_assert_cmphex(ld64(h, sp), ==, rip);
}

/* --- rep with a 32-bit address size and ECX = 0 ----------------------- */

typedef struct RepCase {
    uint8_t code[5];
    bool rsi_cleared, rdi_cleared;      /* by Intel, besides ECX */
} RepCase;

static void test_rep_a32_zero_count(void)
{
    static const RepCase cases[] = {
        { { 0xf3, 0x67, 0x48, 0xa5, 0xf4 }, true, true },   /* movsq */
        { { 0xf3, 0x67, 0xaa, 0xf4 }, false, true },        /* stosb */
        { { 0xf3, 0x67, 0xa6, 0xf4 }, false, false },       /* cmpsb */
        { { 0xf3, 0x67, 0xad, 0xf4 }, false, false },       /* lodsd */
        { { 0xf2, 0x67, 0xae, 0xf4 }, false, false },       /* scasb */
    };
    const uint64_t rcx = 0x1234567800000000ull;
    const uint64_t rsi = 0xabcd000000201000ull, rdi = 0x5a5a000000202000ull;

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        for (int v = 0; v < X86_VENDOR_COUNT; v++) {
            const X86Vendor *vendor = &x86_vendors[v];
            const RepCase *c = &cases[i];
            bool clears = vendor->rep_a32_zero_count_clears;
            TcgHarness *h = setup(vendor, TH_LONG, c->code, sizeof(c->code));

            h->env->regs[R_ECX] = rcx;
            h->env->regs[R_ESI] = rsi;
            h->env->regs[R_EDI] = rdi;
            th_run(h, 100);
            g_assert_cmphex(h->env->regs[R_ECX], ==, clears ? 0 : rcx);
            g_assert_cmphex(h->env->regs[R_ESI], ==,
                            clears && c->rsi_cleared ? (uint32_t)rsi : rsi);
            g_assert_cmphex(h->env->regs[R_EDI], ==,
                            clears && c->rdi_cleared ? (uint32_t)rdi : rdi);
        }
    }
    g_assert_false(amd->rep_a32_zero_count_clears);
    g_assert_true(intel->rep_a32_zero_count_clears);
}

/* A count that is not zero writes the 32-bit registers on both. */
static void test_rep_a32_counted(void)
{
    static const uint8_t code[] = { 0xf3, 0x67, 0xaa, 0xf4 };  /* stosb */

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        TcgHarness *h = setup(&x86_vendors[v], TH_LONG, code, sizeof(code));

        h->env->regs[R_ECX] = 0x1234567800000002ull;
        h->env->regs[R_EDI] = 0x5a5a000000202000ull;
        th_run(h, 100);
        g_assert_cmphex(h->env->regs[R_ECX], ==, 0);
        g_assert_cmphex(h->env->regs[R_EDI], ==, 0x202002);
    }
}

/* --- syscall and sysret outside 64-bit mode ----------------------------- */

static void set_star(TcgHarness *h)
{
    /* syscall: CS 0x08 (64-bit), SS 0x10; sysret: CS 0x18 | 3, SS 0x20. */
    h->env->star = (0x18ull << 48) | (0x08ull << 32);
    h->env->lstar = CODE_TARGET;
    h->env->cstar = CODE_TARGET;
}

static void test_syscall_compat(void)
{
    static const uint8_t code[] = { 0x0f, 0x05, 0xf4 };        /* syscall */

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        const X86Vendor *vendor = &x86_vendors[v];
        TcgHarness *h = setup(vendor, TH_COMPAT32, code, sizeof(code));

        set_star(h);
        th_run(h, 100);
        if (vendor->syscall_outside_64bit) {
            /* Entered at CSTAR in 64-bit code, ECX the return address. */
            g_assert_cmphex(h->env->rip, ==, CODE_TARGET + 1);
            g_assert_cmphex(h->env->segs[R_CS].selector, ==, 0x08);
            g_assert_cmphex(h->env->regs[R_ECX], ==, TH_CODE + 2);
        } else {
            assert_fault(h, EXCP06_ILLOP, TH_CODE, false);
        }
    }
    g_assert_true(amd->syscall_outside_64bit);
    g_assert_false(intel->syscall_outside_64bit);
}

static void test_sysret_compat(void)
{
    static const uint8_t code[] = { 0x0f, 0x07, 0xf4 };        /* sysretl */

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        const X86Vendor *vendor = &x86_vendors[v];
        TcgHarness *h = setup(vendor, TH_COMPAT32, code, sizeof(code));

        set_star(h);
        h->env->regs[R_ECX] = CODE_TARGET;
        if (vendor->syscall_outside_64bit) {
            /* One block: the return itself, to 32-bit code at CPL 3. */
            th_run(h, 1);
            g_assert_cmphex(h->env->rip, ==, CODE_TARGET);
            g_assert_cmphex(h->env->segs[R_CS].selector, ==, 0x18 | 3);
            g_assert_cmpuint(h->env->hflags & HF_CPL_MASK, ==, 3);
        } else {
            th_run(h, 100);
            assert_fault(h, EXCP06_ILLOP, TH_CODE, false);
        }
    }
}

/* The 64-bit forms are the same on both. */
static void test_syscall_64bit(void)
{
    static const uint8_t code[] = { 0x0f, 0x05, 0xf4 };

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        TcgHarness *h = setup(&x86_vendors[v], TH_LONG, code, sizeof(code));

        set_star(h);
        th_run(h, 100);
        g_assert_cmphex(h->env->rip, ==, CODE_TARGET + 1);
        g_assert_cmphex(h->env->regs[R_ECX], ==, TH_CODE + 2);
    }
}

/* --- sysenter and sysexit in long mode ---------------------------------- */

static void set_sysenter(TcgHarness *h)
{
    h->env->sysenter_cs = 0x08;
    h->env->sysenter_esp = TH_STACK - 0x100;
    h->env->sysenter_eip = CODE_TARGET;
}

static void test_sysenter_long_mode(void)
{
    static const uint8_t code[] = { 0x0f, 0x34, 0xf4 };        /* sysenter */

    for (int mode = TH_LONG; mode <= TH_COMPAT32; mode++) {
        for (int v = 0; v < X86_VENDOR_COUNT; v++) {
            const X86Vendor *vendor = &x86_vendors[v];
            TcgHarness *h = setup(vendor, mode, code, sizeof(code));

            set_sysenter(h);
            th_run(h, 100);
            if (vendor->sysenter_in_long_mode) {
                g_assert_cmphex(h->env->rip, ==, CODE_TARGET + 1);
                g_assert_cmphex(h->env->regs[R_ESP], ==, TH_STACK - 0x100);
            } else {
                assert_fault(h, EXCP06_ILLOP, TH_CODE, false);
            }
        }
    }
    g_assert_false(amd->sysenter_in_long_mode);
    g_assert_true(intel->sysenter_in_long_mode);
}

static void test_sysexit_long_mode(void)
{
    static const uint8_t code[] = { 0x48, 0x0f, 0x35, 0xf4 }; /* sysexitq */

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        const X86Vendor *vendor = &x86_vendors[v];
        TcgHarness *h = setup(vendor, TH_LONG, code, sizeof(code));

        set_sysenter(h);
        h->env->regs[R_EDX] = CODE_TARGET;
        h->env->regs[R_ECX] = TH_STACK - 0x200;
        if (vendor->sysenter_in_long_mode) {
            th_run(h, 1);
            g_assert_cmphex(h->env->rip, ==, CODE_TARGET);
            g_assert_cmphex(h->env->segs[R_CS].selector, ==, (0x08 + 32) | 3);
            g_assert_cmphex(h->env->regs[R_ESP], ==, TH_STACK - 0x200);
        } else {
            th_run(h, 100);
            assert_fault(h, EXCP06_ILLOP, TH_CODE, false);
        }
    }
}

/* --- sysret to a non-canonical address ---------------------------------- */

static void test_sysret_noncanonical(void)
{
    static const uint8_t code[] = { 0x48, 0x0f, 0x07, 0xf4 }; /* sysretq */

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        const X86Vendor *vendor = &x86_vendors[v];
        TcgHarness *h = setup(vendor, TH_LONG, code, sizeof(code));

        set_star(h);
        h->env->regs[R_ECX] = NONCANONICAL;
        if (vendor->sysret_gp_at_cpl0) {
            /* Nothing changed: the fault is taken at CPL 0. */
            th_run(h, 100);
            assert_fault(h, EXCP0D_GPF, TH_CODE, true);
            g_assert_cmphex(h->env->segs[R_CS].selector, ==, TH_SEL_CODE64);
        } else {
            /* Back at CPL 3 with the bad rip; the fetch there faults. */
            th_run(h, 1);
            g_assert_cmphex(h->env->rip, ==, NONCANONICAL);
            g_assert_cmphex(h->env->segs[R_CS].selector, ==, (0x18 + 16) | 3);
            g_assert_cmpuint(h->env->hflags & HF_CPL_MASK, ==, 3);
        }
    }
    g_assert_false(amd->sysret_gp_at_cpl0);
    g_assert_true(intel->sysret_gp_at_cpl0);
}

/* --- bsf/bsr with a zero source ----------------------------------------- */

static void test_bsf_zero_source(void)
{
    static const uint8_t bsf[] = { 0x0f, 0xbc, 0xc1, 0xf4 };   /* eax, ecx */
    static const uint8_t bsr[] = { 0x48, 0x0f, 0xbd, 0xc1, 0xf4 };
    const uint64_t rax = 0xfedcba9876543210ull;

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        for (int i = 0; i < 2; i++) {
            TcgHarness *h = setup(&x86_vendors[v], TH_LONG, i ? bsr : bsf,
                                  i ? sizeof(bsr) : sizeof(bsf));

            h->env->regs[R_EAX] = rax;
            h->env->regs[R_ECX] = 0;
            th_run(h, 100);
            /* Unchanged, all 64 bits, on both; ZF set. */
            g_assert_cmphex(h->env->regs[R_EAX], ==, rax);
            g_assert_true(x86_get_eflags(h->env) & CC_Z);
        }
    }
    /* What the differential test may compare. */
    g_assert_true(amd->bsf_zero_source_defined);
    g_assert_false(intel->bsf_zero_source_defined);
}

/* --- the row follows CPUID, and vendor= sets CPUID ---------------------- */

/* fxsave64 (%rbx) of a state with FIP set and FSW.ES clear, then set. */
static void test_fxsave_image(void)
{
    static const uint8_t code[] = { 0x48, 0x0f, 0xae, 0x03, 0xf4 };

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        for (int es = 0; es < 2; es++) {
            TcgHarness *h = setup(&x86_vendors[v], TH_LONG, code,
                                  sizeof(code));
            uint64_t fip;
            uint32_t mask;

            x86_fpu_reset(h->env);
            h->env->fpip = 0x1234;
            h->env->fpus = es ? FPUS_ES | FPUS_IE : 0;
            h->env->regs[R_EBX] = TH_DATA;
            th_run(h, 100);
            memcpy(&mask, h->ram + TH_DATA + 28, 4);
            memcpy(&fip, h->ram + TH_DATA + 8, 8);
            g_assert_cmphex(mask, ==, v == X86_VENDOR_AMD ? 0x2ffff : 0xffff);
            g_assert_cmphex(fip, ==,
                            v == X86_VENDOR_AMD && !es ? 0 : 0x1234);
        }
    }
}

/*
 * ldmxcsr of MXCSR.MM (bit 17), then addps from a misaligned address:
 * AMD takes the bit and the access; Intel's ldmxcsr raises #GP(0). The
 * explicitly aligned moves (movaps) fault on AMD all the same.
 */
static void test_mxcsr_mm(void)
{
    static const uint8_t code[] = {
        0x0f, 0xae, 0x13,                       /* ldmxcsr (%rbx) */
        0x0f, 0x58, 0x41, 0x04,                 /* addps 4(%rcx), %xmm0 */
        0x0f, 0x28, 0x41, 0x04,                 /* movaps 4(%rcx), %xmm0 */
        0xf4,
    };
    const uint32_t mxcsr = 0x21f80;

    for (int v = 0; v < X86_VENDOR_COUNT; v++) {
        TcgHarness *h = setup(&x86_vendors[v], TH_LONG, code, sizeof(code));

        x86_fpu_reset(h->env);
        memcpy(h->ram + TH_DATA, &mxcsr, 4);
        h->env->regs[R_EBX] = TH_DATA;
        h->env->regs[R_ECX] = TH_DATA + 16;
        th_run(h, 100);
        if (v == X86_VENDOR_AMD) {
            assert_fault(h, EXCP0D_GPF, TH_CODE + 7, true);
            g_assert_cmphex(h->env->mxcsr & ~0x3fu, ==, mxcsr);
        } else {
            assert_fault(h, EXCP0D_GPF, TH_CODE, true);
        }
    }
}

static void test_row_from_cpuid(void)
{
    X86CPUIDEntry t[1] = { { .function = 0 } };

    g_assert_true(x86_vendor_from_cpuid(t, 0) == amd);
    x86_vendor_put(t[0].regs, "GenuineIntel");
    g_assert_true(x86_vendor_from_cpuid(t, 1) == intel);
    x86_vendor_put(t[0].regs, "AuthenticAMD");
    g_assert_true(x86_vendor_from_cpuid(t, 1) == amd);
    /* Any other vendor behaves as AMD, as QEMU's TCG only asks for Intel. */
    x86_vendor_put(t[0].regs, "HygonGenuine");
    g_assert_true(x86_vendor_from_cpuid(t, 1) == amd);
}

static unsigned build(const char *model, const char *feature,
                      X86CPUIDEntry *out, Error **errp)
{
    const X86CPUTopology topo = { 1, 1, 1 };
    X86CPUIDEntry supported[32];
    unsigned ns = x86_tcg_supported_cpuid(supported, G_N_ELEMENTS(supported));
    GPtrArray *features = g_ptr_array_new();
    X86CPUDef def;
    unsigned n = 0;

    if (feature) {
        g_ptr_array_add(features, (gpointer)feature);
    }
    if (x86_cpu_def_init(&def, model, features, errp)) {
        n = x86_cpu_build_cpuid(&def, &topo, 0, supported, ns, out,
                                X86_CPUID_MAX_ENTRIES, NULL);
        x86_cpu_def_free(&def);
    }
    g_ptr_array_free(features, true);
    return n;
}

static unsigned build_ok(const char *model, const char *feature,
                         X86CPUIDEntry *out)
{
    Error *err = NULL;
    unsigned n = build(model, feature, out, &err);

    g_assert_null(err);
    g_assert_cmpuint(n, >, 0);
    return n;
}

static void test_vendor_property(void)
{
    static const char *const models[] = { "qemu64", "max" };
    X86CPUIDEntry out[X86_CPUID_MAX_ENTRIES];
    char s[X86_VENDOR_STRING_LEN + 1];
    Error *err = NULL;

    for (size_t i = 0; i < G_N_ELEMENTS(models); i++) {
        unsigned n = build_ok(models[i], NULL, out);

        g_assert_true(x86_vendor_from_cpuid(out, n) == amd);
        n = build_ok(models[i], "vendor=GenuineIntel", out);
        g_assert_true(x86_vendor_from_cpuid(out, n) == intel);
        x86_vendor_string(x86_cpuid_find(out, n, 0x80000000, 0)->regs, s);
        g_assert_cmpstr(s, ==, "GenuineIntel");
    }
    g_assert_cmpuint(build("qemu64", "vendor=Intel", out, &err), ==, 0);
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "Property '.vendor' doesn't take value 'Intel'");
    error_free(err);
}

/*
 * The models' SSE and XSAVE leaves under tcg: qemu64 has QEMU's SSE
 * baseline and no XSAVE (leaf 0xd zero) unless asked, then x87|SSE in
 * 576 bytes; max has it all, and -xsave clears leaf 0xd.
 */
static void test_sse_xsave_leaves(void)
{
    X86CPUIDEntry out[X86_CPUID_MAX_ENTRIES];
    const X86CPUIDEntry *l1, *xs;
    unsigned n;

    n = build_ok("qemu64", NULL, out);
    l1 = x86_cpuid_find(out, n, 1, 0);
    g_assert_cmphex(l1->regs[X86_R_EDX] & 0x07800000, ==, 0x07800000);
    g_assert_cmphex(l1->regs[X86_R_ECX] & 0x04180201, ==, 0x00000001);
    xs = x86_cpuid_find(out, n, 0xd, 0);
    g_assert_cmphex(xs ? xs->regs[X86_R_EAX] : 0, ==, 0);

    n = build_ok("qemu64", "+xsave", out);
    xs = x86_cpuid_find(out, n, 0xd, 0);
    g_assert_nonnull(xs);
    g_assert_cmphex(xs->regs[X86_R_EAX], ==, 3);
    g_assert_cmphex(xs->regs[X86_R_EBX], ==, 576);

    n = build_ok("max", NULL, out);
    l1 = x86_cpuid_find(out, n, 1, 0);
    g_assert_cmphex(l1->regs[X86_R_ECX] & 0x06180203, ==, 0x06180203);
    xs = x86_cpuid_find(out, n, 0xd, 1);
    g_assert_cmphex(xs->regs[X86_R_EAX], ==, 1);        /* xsaveopt */

    n = build_ok("max", "-xsave", out);
    xs = x86_cpuid_find(out, n, 0xd, 0);
    g_assert_cmphex(xs->regs[X86_R_EAX] | xs->regs[X86_R_ECX], ==, 0);
}

/* The reset takes the row from the vCPU's CPUID table. */
static void test_reset_takes_row(void)
{
    X86CPU *cpu = g_new0(X86CPU, 1);

    cpu->ncpuid = build_ok("qemu64", "vendor=GenuineIntel", cpu->cpuid);
    x86_cpu_reset_state(cpu, true);
    g_assert_true(cpu->vendor == intel);
    cpu->ncpuid = build_ok("qemu64", NULL, cpu->cpuid);
    x86_cpu_reset_state(cpu, true);
    g_assert_true(cpu->vendor == amd);
    g_free(cpu);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/x86/vendor/rep-a32-zero-count",
                    test_rep_a32_zero_count);
    g_test_add_func("/x86/vendor/rep-a32-counted", test_rep_a32_counted);
    g_test_add_func("/x86/vendor/syscall-compat", test_syscall_compat);
    g_test_add_func("/x86/vendor/sysret-compat", test_sysret_compat);
    g_test_add_func("/x86/vendor/syscall-64bit", test_syscall_64bit);
    g_test_add_func("/x86/vendor/sysenter-long-mode",
                    test_sysenter_long_mode);
    g_test_add_func("/x86/vendor/sysexit-long-mode", test_sysexit_long_mode);
    g_test_add_func("/x86/vendor/sysret-noncanonical",
                    test_sysret_noncanonical);
    g_test_add_func("/x86/vendor/bsf-zero-source", test_bsf_zero_source);
    g_test_add_func("/x86/vendor/fxsave-image", test_fxsave_image);
    g_test_add_func("/x86/vendor/mxcsr-mm", test_mxcsr_mm);
    g_test_add_func("/x86/vendor/row-from-cpuid", test_row_from_cpuid);
    g_test_add_func("/x86/vendor/vendor-property", test_vendor_property);
    g_test_add_func("/x86/cpuid/sse-xsave-leaves", test_sse_xsave_leaves);
    g_test_add_func("/x86/vendor/reset-takes-row", test_reset_takes_row);
    return g_test_run();
}
