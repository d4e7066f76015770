/*
 * Debian's x86-64 kernel booted directly through the PVH entry under KVM
 * (-M pc -kernel vmlinux): the kernel's own console shows that it read
 * the e820 map the board built (hw/i386/pc_piix.c, pc_build_e820) and
 * found our ACPI tables (RSDP, XSDT, FADT, DSDT, FACS, MADT with the
 * BOCHS/BXPC OEM ids QEMU uses).
 *
 * The guest comes from scripts/fetch-linux-guest.sh (build/guest-linux/);
 * without it, or without a usable /dev/kvm, the test is skipped with the
 * reason. Once every line is on the serial log the emulator is stopped
 * with SIGTERM and must exit 0. On hosts whose KVM cannot run the whole
 * kernel (this project's kvm_pvm emulates CPL 0 code and fails on some
 * instructions), the emulator may instead end first with QEMU's
 * internal-error diagnostic and exit status 1: also accepted, as long as
 * the lines were printed before it.
 *
 * LINUX_BOOT_TIMEOUT (seconds, default 150) bounds the wait: the kernel
 * runs in emulated CPL 0 here and needs ~35 s to reach the ACPI lines on
 * a loaded two-core host.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   150
#define POLL_MS             200
#define TERM_WAIT_S         10

/*
 * The map pc_build_e820 makes for -m 512M under KVM, as Linux prints it
 * for a PVH boot: the kernel adds 0xa0000-0xfffff as reserved and merges
 * it with the EBDA and BIOS entries around it (QEMU 7.2 prints the same
 * six lines for the same machine).
 */
static const char *const e820_512m[] = {
    "BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable",
    "BIOS-e820: [mem 0x000000000009fc00-0x00000000000fffff] reserved",
    "BIOS-e820: [mem 0x0000000000100000-0x000000001ffdffff] usable",
    "BIOS-e820: [mem 0x000000001ffe0000-0x000000001fffffff] reserved",
    "BIOS-e820: [mem 0x00000000feffc000-0x00000000feffffff] reserved",
    "BIOS-e820: [mem 0x00000000fffc0000-0x00000000ffffffff] reserved",
};

/* Table lines: signature, address, length, and the OEM ids where any. */
static const char *const acpi_patterns[] = {
    "ACPI: RSDP 0x[0-9A-F]{16} [0-9A-F]{6} \\(v02 BOCHS \\)",
    "ACPI: XSDT 0x[0-9A-F]{16} [0-9A-F]{6} \\(v01 BOCHS  BXPC ",
    "ACPI: FACP 0x[0-9A-F]{16} [0-9A-F]{6} \\(v[0-9]{2} BOCHS  BXPC ",
    "ACPI: DSDT 0x[0-9A-F]{16} [0-9A-F]{6} \\(v[0-9]{2} BOCHS  BXPC ",
    "ACPI: FACS 0x[0-9A-F]{16} 000040",
    "ACPI: APIC 0x[0-9A-F]{16} [0-9A-F]{6} \\(v[0-9]{2} BOCHS  BXPC ",
};

/* What is still missing from the log, as one line per item ("" if none). */
static char *missing_lines(const char *log)
{
    GString *miss = g_string_new(NULL);
    unsigned i;

    if (!strstr(log, "Linux version ")) {
        g_string_append(miss, "  the kernel banner\n");
    }
    for (i = 0; i < G_N_ELEMENTS(e820_512m); i++) {
        if (!strstr(log, e820_512m[i])) {
            g_string_append_printf(miss, "  %s\n", e820_512m[i]);
        }
    }
    for (i = 0; i < G_N_ELEMENTS(acpi_patterns); i++) {
        if (!g_regex_match_simple(acpi_patterns[i], log, G_REGEX_MULTILINE,
                                  0)) {
            g_string_append_printf(miss, "  /%s/\n", acpi_patterns[i]);
        }
    }
    return g_string_free(miss, false);
}

static void test_pvh_acpi_e820(void)
{
    g_autofree char *vmlinux = NULL;
    g_autofree char *initrd = NULL;
    g_autofree char *log = NULL;
    g_autofree char *miss = NULL;
    g_autofree char *err = NULL;
    GPtrArray *args;
    gint64 start, deadline;
    int status = 0;
    bool exited = false, seen = false;
    QemuVm *vm;

    if (!vm_require_kvm()) {
        return;
    }
    vmlinux = vm_require_linux_guest("vmlinux");
    initrd = vmlinux ? vm_require_linux_guest("initramfs.cpio") : NULL;
    if (!initrd) {
        return;
    }

    /* COM1 is the helper's -serial stdio. */
    args = vm_args_new("-accel kvm -M pc -m 512M -smp 2 -display none");
    vm_args_add(args, "-kernel");
    vm_args_add(args, vmlinux);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 earlyprintk=ttyS0");
    vm = vm_start(args, 0);
    g_ptr_array_free(args, TRUE);
    start = g_get_monotonic_time();
    deadline = start + (gint64)vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S) *
               G_USEC_PER_SEC;

    /* Until every line is there, the emulator ends, or time is up. */
    for (;;) {
        g_free(log);
        log = vm_serial(vm);
        g_free(miss);
        miss = missing_lines(log);
        if (!*miss) {
            seen = true;
            break;
        }
        if (vm_exited(vm)) {
            exited = true;
            break;
        }
        if (g_get_monotonic_time() > deadline) {
            break;
        }
        g_usleep(POLL_MS * 1000);
    }
    g_test_message("after %.1f s: %s", (g_get_monotonic_time() - start) / 1e6,
                   seen ? "all lines seen" :
                   exited ? "the emulator ended" : "timed out");

    /* Stop it with SIGTERM (SIGKILL, status -1, if it hangs). */
    if (!exited) {
        kill(vm_pid(vm), SIGTERM);
    }
    status = vm_wait(vm, TERM_WAIT_S);
    err = g_strdup(vm_stderr(vm));
    if (!seen) {
        /* One more look: the lines may have landed just before the end. */
        g_free(log);
        log = vm_serial(vm);
        g_free(miss);
        miss = missing_lines(log);
    }
    vm_free(vm);

    if (*miss) {
        g_test_message("serial log:\n%s\nstderr:\n%s", log, err);
        g_test_message("missing from the serial log:\n%s", miss);
    }
    g_assert_cmpstr(miss, ==, "");
    g_assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0) {
        /* This host's KVM gave up on the kernel: QEMU's diagnostic. */
        g_test_message("stderr:\n%s", err);
        g_assert_nonnull(strstr(err, "KVM internal error. Suberror: "));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/linux/pvh/acpi-e820", test_pvh_acpi_e820);
    return g_test_run();
}
