/*
 * kvm_handle_exit() and the diagnostics, on hand-made kvm_run pages (no
 * /dev/kvm needed), and the CPU topology/CPUID pieces of target/i386.
 */
#include <string.h>

#include <glib.h>

#include "accel/kvm/kvm-exit.h"
#include "target/i386/cpu.h"

/* A kvm_run page with room for PIO data after it, as KVM maps it. */
typedef struct Page {
    struct kvm_run run;
    uint8_t data[256];
} Page;

typedef struct Log {
    GString *s;
    uint64_t read_value;
} Log;

static uint64_t pio_read(void *opaque, uint16_t port, unsigned size)
{
    Log *l = opaque;

    g_string_append_printf(l->s, "in%u 0x%x;", size, port);
    return l->read_value;
}

static void pio_write(void *opaque, uint16_t port, uint64_t v, unsigned size)
{
    Log *l = opaque;

    g_string_append_printf(l->s, "out%u 0x%x=0x%" G_GINT64_MODIFIER "x;",
                           size, port, v);
}

static uint64_t mmio_read(void *opaque, uint64_t addr, unsigned size)
{
    Log *l = opaque;

    g_string_append_printf(l->s, "rd%u 0x%" G_GINT64_MODIFIER "x;", size,
                           addr);
    return l->read_value;
}

static void mmio_write(void *opaque, uint64_t addr, uint64_t v, unsigned size)
{
    Log *l = opaque;

    g_string_append_printf(l->s, "wr%u 0x%" G_GINT64_MODIFIER "x=0x%"
                           G_GINT64_MODIFIER "x;", size, addr, v);
}

static Log log_;
static const KVMExitBus bus = {
    pio_read, pio_write, mmio_read, mmio_write, &log_,
};

static Page *page_new(uint32_t reason)
{
    Page *p = g_new0(Page, 1);

    p->run.exit_reason = reason;
    log_.s = g_string_new(NULL);
    log_.read_value = 0;
    return p;
}

static void page_free(Page *p)
{
    g_string_free(log_.s, TRUE);
    g_free(p);
}

static void test_pio_out_rep(void)
{
    Page *p = page_new(KVM_EXIT_IO);

    p->run.io.direction = KVM_EXIT_IO_OUT;
    p->run.io.size = 2;
    p->run.io.port = 0x3f8;
    p->run.io.count = 3;
    p->run.io.data_offset = offsetof(Page, data);
    memcpy(p->data, "\x01\x02\x03\x04\x05\x06", 6);
    g_assert_cmpint(kvm_handle_exit(&p->run, &bus), ==, KVM_EXIT_ACTION_RUN);
    g_assert_cmpstr(log_.s->str, ==, "out2 0x3f8=0x201;out2 0x3f8=0x403;"
                    "out2 0x3f8=0x605;");
    page_free(p);
}

static void test_pio_in(void)
{
    Page *p = page_new(KVM_EXIT_IO);

    p->run.io.direction = KVM_EXIT_IO_IN;
    p->run.io.size = 4;
    p->run.io.port = 0x510;
    p->run.io.count = 1;
    p->run.io.data_offset = offsetof(Page, data);
    log_.read_value = 0xaabbccdd;
    g_assert_cmpint(kvm_handle_exit(&p->run, &bus), ==, KVM_EXIT_ACTION_RUN);
    g_assert_cmpstr(log_.s->str, ==, "in4 0x510;");
    g_assert_cmpmem(p->data, 4, "\xdd\xcc\xbb\xaa", 4);
    page_free(p);
}

static void test_mmio(void)
{
    Page *p = page_new(KVM_EXIT_MMIO);

    p->run.mmio.phys_addr = 0xfee00300;
    p->run.mmio.len = 4;
    p->run.mmio.is_write = 1;
    memcpy(p->run.mmio.data, "\x78\x56\x34\x12", 4);
    g_assert_cmpint(kvm_handle_exit(&p->run, &bus), ==, KVM_EXIT_ACTION_RUN);
    g_assert_cmpstr(log_.s->str, ==, "wr4 0xfee00300=0x12345678;");
    g_string_truncate(log_.s, 0);

    p->run.mmio.is_write = 0;
    p->run.mmio.len = 8;
    log_.read_value = 0x1122334455667788ull;
    g_assert_cmpint(kvm_handle_exit(&p->run, &bus), ==, KVM_EXIT_ACTION_RUN);
    g_assert_cmpstr(log_.s->str, ==, "rd8 0xfee00300;");
    g_assert_cmpmem(p->run.mmio.data, 8,
                    "\x88\x77\x66\x55\x44\x33\x22\x11", 8);
    g_string_truncate(log_.s, 0);

    /* An odd size goes byte by byte. */
    p->run.mmio.is_write = 1;
    p->run.mmio.len = 3;
    g_assert_cmpint(kvm_handle_exit(&p->run, &bus), ==, KVM_EXIT_ACTION_RUN);
    g_assert_cmpstr(log_.s->str, ==, "wr1 0xfee00300=0x88;"
                    "wr1 0xfee00301=0x77;wr1 0xfee00302=0x66;");
    page_free(p);
}

static void test_actions(void)
{
    static const struct {
        uint32_t reason, event;
        KVMExitAction action;
    } cases[] = {
        { KVM_EXIT_HLT, 0, KVM_EXIT_ACTION_HALT },
        { KVM_EXIT_SHUTDOWN, 0, KVM_EXIT_ACTION_RESET },
        { KVM_EXIT_IRQ_WINDOW_OPEN, 0, KVM_EXIT_ACTION_RUN },
        { KVM_EXIT_INTR, 0, KVM_EXIT_ACTION_RUN },
        { KVM_EXIT_SYSTEM_EVENT, KVM_SYSTEM_EVENT_RESET,
          KVM_EXIT_ACTION_RESET },
        { KVM_EXIT_SYSTEM_EVENT, KVM_SYSTEM_EVENT_SHUTDOWN,
          KVM_EXIT_ACTION_POWEROFF },
        { KVM_EXIT_SYSTEM_EVENT, KVM_SYSTEM_EVENT_CRASH,
          KVM_EXIT_ACTION_ERROR },
        { KVM_EXIT_INTERNAL_ERROR, 0, KVM_EXIT_ACTION_ERROR },
        { KVM_EXIT_FAIL_ENTRY, 0, KVM_EXIT_ACTION_ERROR },
        { KVM_EXIT_DEBUG, 0, KVM_EXIT_ACTION_ERROR },
        { 9999, 0, KVM_EXIT_ACTION_ERROR },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        Page *p = page_new(cases[i].reason);

        p->run.system_event.type = cases[i].event;
        g_assert_cmpint(kvm_handle_exit(&p->run, &bus), ==, cases[i].action);
        g_assert_cmpstr(log_.s->str, ==, "");
        page_free(p);
    }
}

static void test_describe(void)
{
    Page *p = page_new(KVM_EXIT_INTERNAL_ERROR);
    GString *s = g_string_new(NULL);
    struct kvm_regs regs = { .rip = 0xe0000000, .rflags = 2 };
    struct kvm_sregs sregs = { .cr0 = 0x11, .efer = 0x500 };

    p->run.internal.suberror = KVM_INTERNAL_ERROR_EMULATION;
    p->run.internal.ndata = 2;
    p->run.internal.data[1] = 0x1000;
    kvm_exit_describe(&p->run, s);
    g_assert_cmpstr(s->str, ==, "KVM internal error. Suberror: 1\n"
                    "extra data[0]: 0x0000000000000000\n"
                    "extra data[1]: 0x0000000000001000\n"
                    "emulation failure\n");
    g_string_truncate(s, 0);
    kvm_dump_registers(&regs, &sregs, s);
    g_assert_nonnull(strstr(s->str, "RIP=00000000e0000000 RFL=00000002\n"));
    g_assert_nonnull(strstr(s->str, "CR0=00000011 "));
    g_assert_nonnull(strstr(s->str, "EFER=0000000000000500"));
    g_string_truncate(s, 0);

    p->run.exit_reason = KVM_EXIT_FAIL_ENTRY;
    p->run.fail_entry.hardware_entry_failure_reason = 0x21;
    kvm_exit_describe(&p->run, s);
    g_assert_cmpstr(s->str, ==, "KVM: entry failed, hardware error 0x21\n");
    g_string_truncate(s, 0);
    p->run.exit_reason = KVM_EXIT_DEBUG;
    kvm_exit_describe(&p->run, s);
    g_assert_cmpstr(s->str, ==, "KVM: unexpected exit reason 4 "
                    "(KVM_EXIT_DEBUG)\n");
    g_string_free(s, TRUE);
    page_free(p);
}

/* QEMU's APIC IDs: thread, core, socket fields of power-of-two widths. */
static void test_apic_ids(void)
{
    X86CPUTopology t = { .sockets = 2, .cores = 3, .threads = 2 };
    unsigned s, c, th;

    g_assert_cmpuint(x86_cpu_apic_id(&t, 0), ==, 0);
    g_assert_cmpuint(x86_cpu_apic_id(&t, 1), ==, 1);
    g_assert_cmpuint(x86_cpu_apic_id(&t, 2), ==, 2);
    g_assert_cmpuint(x86_cpu_apic_id(&t, 5), ==, 5);
    /* cores need 2 bits: the second socket starts at 8 */
    g_assert_cmpuint(x86_cpu_apic_id(&t, 6), ==, 8);
    x86_cpu_topo_ids(&t, 11, &s, &c, &th);
    g_assert_cmpuint(s, ==, 1);
    g_assert_cmpuint(c, ==, 2);
    g_assert_cmpuint(th, ==, 1);
    g_assert_cmpuint(x86_cpu_apic_id(&t, 11), ==, 13);
}

static void test_cpuid_topology(void)
{
    X86CPUTopology t = { .sockets = 1, .cores = 4, .threads = 2 };
    X86CPUIDEntry sup[] = {
        { 0, 0, 0, { 0x1f, 0x756e6547, 0x6c65746e, 0x49656e69 } },
        { 1, 0, 0, { 0x906ea, 0x00010800, 0, 0 } },
        { 4, 0, X86_CPUID_FLAG_INDEXED, { 0x121, 0, 0, 0 } },
        { 4, 1, X86_CPUID_FLAG_INDEXED, { 0x163, 0, 0, 0 } },
        { 0xb, 0, X86_CPUID_FLAG_INDEXED, { 9, 9, 9, 9 } },
        { 0x1f, 0, X86_CPUID_FLAG_INDEXED, { 9, 9, 9, 9 } },
    };
    X86CPUIDEntry out[32];
    X86CPUDef def;
    X86CPUIDEntry *e;
    unsigned n;

    g_assert_true(x86_cpu_def_init(&def, "host", NULL, NULL));
    n = x86_cpu_build_cpuid(&def, &t, 3, sup, G_N_ELEMENTS(sup), out, 32,
                            NULL);
    e = x86_cpuid_find(out, n, 1, 0);
    g_assert_cmphex(e->regs[X86_R_EBX] >> 24, ==, 3);
    g_assert_cmphex((e->regs[X86_R_EBX] >> 16) & 0xff, ==, 8);
    g_assert_true(e->regs[X86_R_EDX] & (1u << 28));
    e = x86_cpuid_find(out, n, 4, 0);
    g_assert_cmphex(e->regs[X86_R_EAX] >> 26, ==, 3);
    g_assert_cmphex((e->regs[X86_R_EAX] >> 14) & 0xfff, ==, 1);
    e = x86_cpuid_find(out, n, 4, 1);
    g_assert_cmphex((e->regs[X86_R_EAX] >> 14) & 0xfff, ==, 7);
    e = x86_cpuid_find(out, n, 0xb, 0);
    g_assert_cmphex(e->regs[X86_R_EAX], ==, 1);
    g_assert_cmphex(e->regs[X86_R_EBX], ==, 2);
    g_assert_cmphex(e->regs[X86_R_ECX], ==, 0x100);
    g_assert_cmphex(e->regs[X86_R_EDX], ==, 3);
    e = x86_cpuid_find(out, n, 0xb, 1);
    g_assert_cmphex(e->regs[X86_R_EAX], ==, 3);
    g_assert_cmphex(e->regs[X86_R_EBX], ==, 8);
    g_assert_cmphex(e->regs[X86_R_ECX], ==, 0x201);
    e = x86_cpuid_find(out, n, 0x1f, 1);
    g_assert_nonnull(e);
    g_assert_cmphex(e->regs[X86_R_EDX], ==, 3);
    x86_cpu_def_free(&def);
}

static void test_cpu_models(void)
{
    GPtrArray *f = g_ptr_array_new();
    X86CPUIDEntry sup[] = {
        { 1, 0, 0, { 0x906ea, 0, 1u << 21, 0x078bfbff } },
    };
    X86CPUIDEntry out[8];
    GPtrArray *warn = g_ptr_array_new_with_free_func(g_free);
    Error *err = NULL;
    X86CPUDef def;
    unsigned n;

    g_ptr_array_add(f, (char *)"+x2apic");
    g_ptr_array_add(f, (char *)"-sse2");
    g_ptr_array_add(f, (char *)"tsc-deadline=on");
    g_assert_true(x86_cpu_def_init(&def, "qemu64", f, NULL));
    n = x86_cpu_build_cpuid(&def, &(X86CPUTopology){ 1, 1, 1 }, 0, sup, 1,
                            out, 8, warn);
    g_assert_cmpuint(n, ==, 4);             /* 1, 0xb.0-2 */
    g_assert_cmphex(out[0].regs[X86_R_EAX], ==, 0x00060fb1);
    g_assert_true(out[0].regs[X86_R_ECX] & (1u << 21));
    g_assert_false(out[0].regs[X86_R_EDX] & (1u << 26));
    /*
     * qemu64 wants pni, cx16, syscall, nx, lm and lahf-lm, tsc-deadline
     * was asked for: this host has none of them. x2apic it has.
     */
    g_assert_cmpuint(warn->len, ==, 7);
    g_assert_cmpstr(g_ptr_array_index(warn, 0), ==, "host doesn't support "
                    "requested feature: CPUID.01H:ECX.pni [bit 0]");
    g_assert_cmpstr(g_ptr_array_index(warn, 2), ==, "host doesn't support "
                    "requested feature: CPUID.01H:ECX.tsc-deadline [bit 24]");
    x86_cpu_def_free(&def);

    g_ptr_array_set_size(f, 0);
    g_ptr_array_add(f, (char *)"+nosuch");
    g_assert_false(x86_cpu_def_init(&def, "qemu64", f, &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "Property 'qemu64-x86_64-cpu.nosuch' not found");
    error_free(err);
    err = NULL;
    g_assert_false(x86_cpu_def_init(&def, "pentium", NULL, &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "unable to find CPU model 'pentium'");
    error_free(err);
    g_ptr_array_free(f, TRUE);
    g_ptr_array_free(warn, TRUE);
}

/*
 * -cpu ...,apic-id=N: kept by the model, used where the board says so
 * (the none machine), and QEMU's words for an unset or bad value.
 */
static void test_given_apic_id(void)
{
    GPtrArray *f = g_ptr_array_new();
    X86CPUIDEntry sup[] = {
        { 1, 0, 0, { 0x906ea, 0, 0, 0x078bfbff } },
    };
    X86CPUIDEntry out[8];
    X86CPUTopology t = x86_cpu_topology(1, 1, 1);
    Error *err = NULL;
    X86CPUDef def;
    unsigned n;

    g_assert_true(x86_cpu_def_init(&def, "qemu64", NULL, NULL));
    g_assert_cmphex(def.apic_id, ==, X86_CPU_APIC_ID_UNASSIGNED);
    g_assert_false(x86_cpu_topology_given_apic_id(&t, &def, &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "apic-id property was not initialized properly");
    g_clear_pointer(&err, error_free);
    x86_cpu_def_free(&def);

    g_ptr_array_add(f, (char *)"apic-id=0x5");
    g_assert_true(x86_cpu_def_init(&def, "qemu64", f, NULL));
    g_assert_cmpuint(x86_cpu_apic_id(&t, 0), ==, 0);
    g_assert_true(x86_cpu_topology_given_apic_id(&t, &def, NULL));
    g_assert_cmpuint(x86_cpu_apic_id(&t, 0), ==, 5);
    n = x86_cpu_build_cpuid(&def, &t, 0, sup, 1, out, 8, NULL);
    g_assert_cmphex(x86_cpuid_find(out, n, 1, 0)->regs[X86_R_EBX] >> 24, ==,
                    5);
    x86_cpu_def_free(&def);

    g_ptr_array_index(f, 0) = (char *)"apic-id=4294967296";
    g_assert_false(x86_cpu_def_init(&def, "qemu64", f, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "can't apply global "
                    "qemu64-x86_64-cpu.apic-id=4294967296: Parameter "
                    "'apic-id' expects uint32_t");
    g_clear_pointer(&err, error_free);
    g_ptr_array_index(f, 0) = (char *)"apic-id=1x";
    g_assert_false(x86_cpu_def_init(&def, "qemu64", f, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "can't apply global "
                    "qemu64-x86_64-cpu.apic-id=1x: Parameter 'apic-id' "
                    "expects uint64");
    g_clear_pointer(&err, error_free);
    g_ptr_array_free(f, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kvm-exit/pio/out-rep", test_pio_out_rep);
    g_test_add_func("/kvm-exit/pio/in", test_pio_in);
    g_test_add_func("/kvm-exit/mmio", test_mmio);
    g_test_add_func("/kvm-exit/actions", test_actions);
    g_test_add_func("/kvm-exit/describe", test_describe);
    g_test_add_func("/x86-cpu/apic-ids", test_apic_ids);
    g_test_add_func("/x86-cpu/cpuid-topology", test_cpuid_topology);
    g_test_add_func("/x86-cpu/models", test_cpu_models);
    g_test_add_func("/x86-cpu/given-apic-id", test_given_apic_id);
    return g_test_run();
}
