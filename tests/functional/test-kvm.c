/*
 * Guests under KVM on the pc machine: multiboot boot, serial output and
 * isa-debug-exit status, SMP, the internal-error path, RAM above 4 GiB,
 * and the loader's errors. (The run states, -S/cont, stop/cont,
 * system_reset, SIGTERM, query-cpus-fast, are test-run-state's, for kvm
 * and tcg alike.)
 *
 * Two kinds of guests: tiny multiboot images (qemu-vm.h: a.out kludge,
 * 32-bit code, no paging: a few instructions each, so slow emulation of
 * unpaged code does not matter), and the guest kit's programs from
 * tests/guest where they were built.
 * Every case is skipped, never passed, where /dev/kvm cannot be opened.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define GUEST_PASS_STATUS   1       /* (GUEST_PASS << 1) | 1 */
#define RUN_TIMEOUT_S       120

static char *tmpdir;

/* --- tiny guests -------------------------------------------------------- */

/* isa-debug-exit with 0x2a: status (0x2a << 1) | 1 = 85 */
static const uint8_t code_exit42[] = { 0xb0, 0x2a, 0xe6, 0xf4 };
/* Execute from an address nothing backs: KVM cannot emulate that. */
static const uint8_t code_exec_mmio[] = {
    0xb8, 0x00, 0x00, 0x00, 0xe0,       /* mov $0xe0000000, %eax */
    0xff, 0xe0,                         /* jmp *%eax */
};
/* An IDT of limit 0, then #UD: #GP, #DF, shutdown. */
static const uint8_t code_triple_fault[] = {
    0x0f, 0x01, 0x1d, 0x00, 0x10, 0x00, 0x00,   /* lidt 0x1000 */
    0x0f, 0x0b,                                 /* ud2 */
};
static const VmCode exit42 = { code_exit42, sizeof(code_exit42) };
static const VmCode exec_mmio = { code_exec_mmio, sizeof(code_exec_mmio) };
static const VmCode triple_fault = { code_triple_fault,
                                     sizeof(code_triple_fault) };

/* "X\n", then the piece. */
static char *tiny_guest(const char *name, const VmCode *code)
{
    return vm_tiny_guest(tmpdir, name, &vm_code_print_x, code, NULL);
}

/* --- running the emulator ---------------------------------------------- */

static const char *const common_args =
    "-M pc -accel kvm -display none -nodefaults "
    "-device isa-debug-exit,iobase=0xf4,iosize=0x4";

/* Run to completion (append may hold spaces); serial and stderr kept. */
static int run_guest_append(const char *extra, const char *kernel,
                            const char *append, char **serial, char **err)
{
    GPtrArray *args = vm_args_new(common_args);
    VmRun r;

    vm_args_split(args, extra);
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    if (append) {
        vm_args_add(args, "-append");
        vm_args_add(args, append);
    }
    r = vm_run(args, 0, RUN_TIMEOUT_S);
    g_ptr_array_free(args, TRUE);
    if (serial) {
        *serial = g_steal_pointer(&r.serial);
    }
    if (err) {
        *err = g_steal_pointer(&r.err);
    }
    vm_run_free(&r);
    return r.status;
}

static int run_guest(const char *extra, const char *kernel, char **serial,
                     char **err)
{
    return run_guest_append(extra, kernel, NULL, serial, err);
}

/* --- tests -------------------------------------------------------------- */

static void test_debug_exit(void)
{
    char *k, *serial, *err;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    k = tiny_guest("exit42.bin", &exit42);
    status = run_guest("-m 128M", k, &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, (0x2a << 1) | 1);
    g_assert_cmpstr(serial, ==, "X\n");
    g_assert_cmpstr(err, ==, "");
    g_free(serial);
    g_free(err);
    g_free(k);
}

/* The guest kit's hello: the loader's handover, as QEMU 7.2 gives it. */
static void test_hello(void)
{
    char *k, *serial, *err, *expect;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    if (!(k = vm_require_guest_kit("hello.elf"))) {
        return;
    }
    status = run_guest_append("-m 512M", k, "foo bar", &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    /* Recorded from Debian's QEMU 7.2 with the same options. */
    g_assert_true(g_file_get_contents(GUEST_SRC_DIR "/expected/hello.kvm.txt",
                                      &expect, NULL, NULL));
    g_assert_cmpstr(serial, ==, expect);
    g_free(expect);
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_smp(gconstpointer data)
{
    int cpus = GPOINTER_TO_INT(data);
    char *k, *serial, *args, *line;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    if (!(k = vm_require_guest_kit("smp.elf"))) {
        return;
    }
    args = g_strdup_printf("-m 512M -smp %d", cpus);
    status = run_guest(args, k, &serial, NULL);
    line = g_strdup_printf("smp: cpus: %d/%d\n", cpus, cpus);
    g_assert_nonnull(strstr(serial, line));
    g_assert_nonnull(strstr(serial, "smp: PASS\n"));
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    g_free(line);
    g_free(args);
    g_free(serial);
    g_free(k);
}

static void test_internal_error(void)
{
    char *k, *err, *serial;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    k = tiny_guest("exec-mmio.bin", &exec_mmio);
    status = run_guest("", k, &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(serial, ==, "X\n");
    g_assert_nonnull(strstr(err, "KVM internal error. Suberror: 1\n"));
    g_assert_nonnull(strstr(err, "RIP=00000000e0000000"));
    g_assert_nonnull(strstr(err, "CR0="));
    g_assert_nonnull(strstr(err, "EFER="));
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_internal_error_no_shutdown(void)
{
    char *k, *st;
    QemuVm *vm;

    if (!vm_require_kvm()) {
        return;
    }
    k = tiny_guest("exec-mmio.bin", &exec_mmio);
    vm = vm_startf(VM_QMP, "%s -no-shutdown -kernel %s", common_args, k);
    /* The error may come before QMP is connected: poll the state. */
    for (int i = 0; ; i++) {
        st = vm_status(vm);
        if (!strcmp(st, "internal-error")) {
            break;
        }
        g_assert_cmpint(i, <, VM_TIMEOUT_MS / 10);
        g_free(st);
        g_usleep(10 * 1000);
    }
    g_free(st);
    /* A reset brings the guest back. */
    vm_qmp_ok(vm, "system_reset");
    vm_qmp_ok(vm, "cont");
    g_assert_true(vm_wait_serial(vm, "X\n", 2));
    vm_quit(vm);
    vm_free(vm);
    g_free(k);
}

static void test_triple_fault(void)
{
    char *k, *err, *serial;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    k = tiny_guest("triple.bin", &triple_fault);
    status = run_guest("-no-reboot", k, &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpstr(serial, ==, "X\n");
    /* kvm_pvm may report the shutdown as an internal error instead. */
    if (WEXITSTATUS(status) == 1) {
        g_assert_nonnull(strstr(err, "KVM internal error"));
    } else {
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        g_assert_cmpstr(err, ==, "");
    }
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_high_ram(void)
{
    char *k, *serial;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    if (!(k = vm_require_guest_kit("dirty.elf"))) {
        return;
    }
    status = run_guest_append("-m 5G", k, "dirty=16 dirty_high=64", &serial,
                              NULL);
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    g_assert_nonnull(strstr(serial, "dirty_high: 64 MiB verified\n"));
    g_free(serial);
    g_free(k);
}

/*
 * -overcommit cpu-pm=on leaves HLT, MWAIT and PAUSE to the guest as far
 * as KVM allows (here: HLT and PAUSE); the timer guest, which waits in
 * HLT for its interrupts, must still get every one of them.
 */
static void test_cpu_pm(void)
{
    char *k, *serial, *err;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    if (!(k = vm_require_guest_kit("timer.elf"))) {
        return;
    }
    status = run_guest("-overcommit cpu-pm=on", k, &serial, &err);
    if (WEXITSTATUS(status) == 1 && strstr(err, "cpu-pm=on: this host")) {
        /* A KVM without KVM_CAP_X86_DISABLE_EXITS: the clear error. */
        g_test_skip("this host's KVM cannot disable HLT/MWAIT/PAUSE exits");
    } else {
        g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
        g_assert_nonnull(strstr(serial, "timer: PASS\n"));
    }
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_options(void)
{
    char *k, *serial, *err;
    int status;

    if (!vm_require_kvm()) {
        return;
    }
    k = tiny_guest("exit42.bin", &exit42);
    const char *const ok_args[] = {
        "-machine pit=off",
        "-global kvm-pit.lost_tick_policy=discard",
        "-cpu qemu64,+x2apic,-sse4a",
        "-cpu max",
        "-smp 3,sockets=1,cores=3,threads=1",
        "-m 512M -smp 2,threads=2",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(ok_args); i++) {
        status = run_guest(ok_args[i], k, &serial, &err);
        g_assert_cmpint(WEXITSTATUS(status), ==, (0x2a << 1) | 1);
        g_assert_cmpstr(serial, ==, "X\n");
        g_free(serial);
        g_free(err);
    }
    g_free(k);
}

static const struct {
    const char *args;
    const char *line;
} bad_cmdlines[] = {
    { "-M pc -accel kvm -display none -bios /nonexistent",
      "qemu-system-x86_64: could not load PC BIOS '/nonexistent': No such "
      "file or directory\n" },
    { "-M pc,kernel-irqchip=off -accel kvm -display none -kernel KERNEL",
      "qemu-system-x86_64: kernel-irqchip=off is not supported yet\n" },
    { "-M pc -accel kvm,kernel-irqchip=off -display none -kernel KERNEL",
      "qemu-system-x86_64: kernel-irqchip=off is not supported yet\n" },
    { "-M pc -accel kvm -display none -cpu qemu64,+nosuchfeature "
      "-kernel KERNEL", "qemu-system-x86_64: -cpu qemu64,+nosuchfeature: "
      "Property 'qemu64-x86_64-cpu.nosuchfeature' not found\n" },
    { "-M pc -accel kvm -display none -kernel /nonexistent",
      "qemu-system-x86_64: could not open kernel file '/nonexistent': "
      "No such file or directory\n" },
    /* kvm-pit's property, with QEMU 7.2's words. */
    { "-M pc -accel kvm -display none -global kvm-pit.lost_tick_policy=xyz "
      "-kernel KERNEL", "qemu-system-x86_64: can't apply global "
      "kvm-pit.lost_tick_policy=xyz: Parameter 'lost_tick_policy' does not "
      "accept value 'xyz'\n" },
    { "-M pc -accel kvm -display none -global kvm-pit.lost_tick_policy=slew "
      "-kernel KERNEL", "qemu-system-x86_64: Lost tick policy not "
      "supported.\n" },
};

static void test_bad_cmdline(void)
{
    char *k, *out, *err;

    if (!vm_require_kvm()) {
        return;
    }
    k = tiny_guest("exit42.bin", &exit42);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cmdlines); i++) {
        char **parts = g_strsplit(bad_cmdlines[i].args, "KERNEL", -1);
        char *args = g_strjoinv(k, parts);
        int status = qemu_run(args, &out, &err);

        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_cmpstr(err, ==, bad_cmdlines[i].line);
        g_free(out);
        g_free(err);
        g_free(args);
        g_strfreev(parts);
    }
    g_free(k);
}

/* Each broken bzImage gets one line of error and status 1. */
static void test_bzimage_errors(void)
{
    char *dir = tmpdir;
    char *trunc = g_build_filename(dir, "truncated.bzImage", NULL);
    char *junk = g_build_filename(dir, "junk.bin", NULL);
    char *missing = g_build_filename(dir, "missing.bzImage", NULL);
    uint8_t hdr[0x260] = { 0 };
    const char *files[] = { trunc, junk, missing };

    if (!vm_require_kvm()) {
        return;
    }
    /* A setup header that claims more setup sectors than the file has. */
    hdr[0x1f1] = 30;
    memcpy(&hdr[0x202], "HdrS", 4);
    hdr[0x206] = 0x0f;
    hdr[0x207] = 0x02;
    hdr[0x1fe] = 0x55;
    hdr[0x1ff] = 0xaa;
    g_assert_true(g_file_set_contents(trunc, (char *)hdr, sizeof(hdr),
                                      NULL));
    g_assert_true(g_file_set_contents(junk, "not a kernel at all\n", -1,
                                      NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        char *args = g_strdup_printf("%s -kernel %s", common_args, files[i]);
        char *err;
        int status = qemu_run(args, NULL, &err);

        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_true(g_str_has_prefix(err, "qemu-system-x86_64: "));
        g_assert_nonnull(strstr(err, files[i]));
        /* exactly one line */
        g_assert_true(g_str_has_suffix(err, "\n"));
        g_assert_true(strchr(err, '\n') == err + strlen(err) - 1);
        g_free(err);
        g_free(args);
    }
    g_free(trunc);
    g_free(junk);
    g_free(missing);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-kvm-XXXXXX", NULL);
    g_assert_nonnull(tmpdir);
    g_test_add_func("/kvm/boot/debug-exit", test_debug_exit);
    g_test_add_func("/kvm/boot/multiboot-hello", test_hello);
    g_test_add_data_func("/kvm/smp/1", GINT_TO_POINTER(1), test_smp);
    g_test_add_data_func("/kvm/smp/4", GINT_TO_POINTER(4), test_smp);
    g_test_add_func("/kvm/error/internal-error", test_internal_error);
    g_test_add_func("/kvm/error/internal-error-no-shutdown",
                    test_internal_error_no_shutdown);
    g_test_add_func("/kvm/error/triple-fault", test_triple_fault);
    g_test_add_func("/kvm/memory/above-4g", test_high_ram);
    g_test_add_func("/kvm/options/accepted", test_options);
    g_test_add_func("/kvm/options/cpu-pm", test_cpu_pm);
    g_test_add_func("/kvm/options/rejected", test_bad_cmdline);
    g_test_add_func("/kvm/loader/bzimage-errors", test_bzimage_errors);
    ret = g_test_run();
    {
        GDir *d = g_dir_open(tmpdir, 0, NULL);
        const char *n;

        while (d && (n = g_dir_read_name(d))) {
            char *p = g_build_filename(tmpdir, n, NULL);

            g_unlink(p);
            g_free(p);
        }
        if (d) {
            g_dir_close(d);
        }
        g_rmdir(tmpdir);
    }
    return ret;
}
