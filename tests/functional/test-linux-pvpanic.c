/*
 * Debian's Linux reports its panic through pvpanic under the software
 * CPU: its own pvpanic-mmio driver binds the DSDT's QEMU0001 device (the
 * ISA pvpanic) and pvpanic-pci the PCI one; the /init of
 * linux-pvpanic-init.sh (PVPANIC_INIT_CPIO) panics the kernel with
 * sysrq-c. With -action panic=pause the host sees GUEST_PANICKED and the
 * VM stops in guest-panicked; with panic=exit-failure the process exits
 * with status 1.
 *
 * Skipped with the reason without the fetched guest.
 * LINUX_BOOT_TIMEOUT (seconds, default 300) bounds the boot.
 */
#include <string.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300

/* The kernel, its modules and our /init: the args to boot them, or NULL. */
static GPtrArray *linux_args(const char *dir, const char *devices)
{
    g_autofree char *kernel = NULL, *modules = NULL, *initrd = NULL;
    GPtrArray *args;

    if (!vm_require_accel("tcg")) {
        return NULL;
    }
    kernel = vm_require_linux_guest("vmlinux");
    modules = kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return NULL;
    }
    initrd = vm_linux_initrd(dir, (const char *const[]) { modules,
                                                          PVPANIC_INIT_CPIO,
                                                          NULL });
    args = vm_args_new("-accel tcg -M pc -m 512M -display none");
    vm_args_split(args, devices);
    /* panic=0 (the default): the kernel waits instead of rebooting. */
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 quiet");
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    return args;
}

static void remove_dir(const char *dir)
{
    g_autofree char *initrd = g_build_filename(dir, "initrd.cpio", NULL);

    g_unlink(initrd);
    g_rmdir(dir);
}

/* The ISA pvpanic, found through ACPI: GUEST_PANICKED, guest-panicked. */
static void test_isa_pause(void)
{
    g_autofree char *dir = g_dir_make_tmp("linux-pvpanic-XXXXXX", NULL);
    g_autofree char *data = NULL, *status = NULL;
    unsigned timeout_s = vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S);
    GPtrArray *args = linux_args(dir, "-device pvpanic "
                                      "-action panic=pause");
    QemuVm *vm;

    if (!args) {
        remove_dir(dir);
        return;
    }
    vm = vm_start(args, VM_QMP);
    g_ptr_array_free(args, TRUE);
    for (unsigned i = 0; !vm_serial_count(vm, "init: panic"); i++) {
        g_assert_false(vm_exited(vm));
        if (i > timeout_s * 10) {
            g_test_message("serial:\n%s", vm_serial(vm));
            g_assert_not_reached();
        }
        g_usleep(100000);
    }
    data = vm_wait_event_data(vm, "GUEST_PANICKED");
    if (!data || strcmp(data, "{\"action\":\"pause\"}")) {
        g_test_message("GUEST_PANICKED data %s; serial:\n%s", data,
                       vm_serial(vm));
        g_test_fail();
    }
    /* The stop is requested with the event and made by the main loop. */
    if (!vm_wait_status(vm, "guest-panicked", 30)) {
        status = vm_status(vm);
        g_assert_cmpstr(status, ==, "guest-panicked");
    }
    g_assert_cmpuint(vm_serial_count(vm, "init: pvpanic-mmio bound "
                                     "QEMU0001:00"), ==, 1);
    g_assert_cmpuint(vm_serial_count(vm, "init: still alive"), ==, 0);
    vm_quit(vm);
    vm_free(vm);
    remove_dir(dir);
}

/* pvpanic-pci and panic=exit-failure: the process ends with status 1. */
static void test_pci_exit_failure(void)
{
    g_autofree char *dir = g_dir_make_tmp("linux-pvpanic-XXXXXX", NULL);
    GPtrArray *args = linux_args(dir, "-device pvpanic-pci "
                                      "-action panic=exit-failure");
    VmRun run;

    if (!args) {
        remove_dir(dir);
        return;
    }
    run = vm_run(args, 0, vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S));
    g_ptr_array_free(args, TRUE);
    if (run.status == -1 || !WIFEXITED(run.status) ||
        WEXITSTATUS(run.status) != 1 ||
        !strstr(run.serial, "init: pvpanic-pci bound 0000:00:") ||
        !strstr(run.serial, "Kernel panic")) {
        g_test_message("status %d; serial:\n%s\nstderr:\n%s", run.status,
                       run.serial, run.err);
        g_test_fail();
    }
    vm_run_free(&run);
    remove_dir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/linux/tcg/pvpanic/isa-pause", test_isa_pause);
    g_test_add_func("/linux/tcg/pvpanic/pci-exit-failure",
                    test_pci_exit_failure);
    return g_test_run();
}
