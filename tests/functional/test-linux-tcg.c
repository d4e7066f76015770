/*
 * Debian's Linux to userspace under the software CPU: the kernel of
 * scripts/fetch-linux-guest.sh with its busybox initramfs, plus an
 * appended archive holding /bin/fpmath (tests/guest/linux/fpmath.c),
 * boots under -accel tcg -M pc through the PVH entry (vmlinux) and the
 * Linux boot protocol (bzImage), with one and two vCPUs. /init runs real
 * programs (sha256sum, awk, dd, fpmath), prints their results and powers
 * off through ACPI; the emulator must exit 0.
 *
 * What is checked: every marker line and result as expected, fpmath's
 * output identical to the same binary run on the host, the number of
 * CPUs the kernel brought up, and the exit status.
 *
 * Skipped with the reason without the fetched guest or the fpmath
 * program. LINUX_BOOT_TIMEOUT (seconds, default 300) bounds each boot.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300

typedef struct LinuxBoot {
    const char *name;
    const char *kernel;         /* in the guest directory */
    unsigned smp;
} LinuxBoot;

static const LinuxBoot boots[] = {
    { "pvh/smp1", "vmlinux", 1 },
    { "pvh/smp2", "vmlinux", 2 },
    { "bzimage/smp1", "bzImage", 1 },
    { "bzimage/smp2", "bzImage", 2 },
};

/* The lines /init prints, with the results the programs must give. */
static const char *const init_lines[] = {
    "init: started",
    "init: sha256 "
    "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592  -",
    "init: awk 355.5644706997 1.428571e-01 3141592",
    "init: dd 64+0 records out",
    "init: poweroff",
};

/* The lines of text that start with prefix, each with its newline. */
static char *lines_with(const char *text, const char *prefix)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GString *s = g_string_new(NULL);

    for (unsigned i = 0; lines[i]; i++) {
        g_strchomp(lines[i]);
        if (g_str_has_prefix(lines[i], prefix)) {
            g_string_append_printf(s, "%s\n", lines[i]);
        }
    }
    return g_string_free(s, false);
}

static void test_boot(gconstpointer data)
{
    const LinuxBoot *boot = data;
    g_autofree char *kernel = NULL;
    g_autofree char *dir = NULL, *initrd = NULL, *host_out = NULL;
    g_autofree char *host_lines = NULL, *guest_lines = NULL;
    g_autofree char *cpus = NULL, *brought_up = NULL, *smp = NULL;
    char *argv[] = { (char *)FPMATH, NULL };
    GPtrArray *args;
    VmRun run;
    int status;

    if (!vm_require_accel("tcg")) {
        return;
    }
    kernel = vm_require_linux_guest(boot->kernel);
    if (!kernel) {
        return;
    }
    if (!g_file_test(FPMATH_CPIO, G_FILE_TEST_IS_REGULAR)) {
        g_test_skip("tests/guest/linux/fpmath was not built (no gcc)");
        return;
    }

    /* The same program on the host: what the guest must print. */
    g_assert_true(g_spawn_sync(NULL, argv, NULL, 0, NULL, NULL, &host_out,
                               NULL, &status, NULL));
    g_assert_cmpint(status, ==, 0);
    host_lines = lines_with(host_out, "fpmath:");
    g_assert_cmpstr(host_lines, !=, "");

    dir = g_dir_make_tmp("linux-tcg-XXXXXX", NULL);
    initrd = vm_linux_initrd(dir,
                             (const char *const[]) { FPMATH_CPIO, NULL });
    smp = g_strdup_printf("%u", boot->smp);
    args = vm_args_new("-accel tcg -M pc -m 512M -display none -no-reboot");
    vm_args_add(args, "-smp");
    vm_args_add(args, smp);
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 panic=-1");
    run = vm_run(args, 0, vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S));
    g_ptr_array_free(args, TRUE);
    g_unlink(initrd);
    g_rmdir(dir);

    for (unsigned i = 0; i < G_N_ELEMENTS(init_lines); i++) {
        if (!strstr(run.serial, init_lines[i])) {
            g_test_message("serial log:\n%s\nstderr:\n%s", run.serial,
                           run.err);
            g_test_message("missing: %s", init_lines[i]);
        }
        g_assert_nonnull(strstr(run.serial, init_lines[i]));
    }
    cpus = g_strdup_printf("init: cpus %u", boot->smp);
    g_assert_nonnull(strstr(run.serial, cpus));
    brought_up = g_strdup_printf("smp: Brought up 1 node, %u CPU%s",
                                 boot->smp, boot->smp > 1 ? "s" : "");
    g_assert_nonnull(strstr(run.serial, brought_up));
    guest_lines = lines_with(run.serial, "fpmath:");
    g_assert_cmpstr(guest_lines, ==, host_lines);
    /* poweroff -f: ACPI S5, the emulator ends with status 0. */
    if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
        g_test_message("stderr:\n%s", run.err);
    }
    g_assert_true(WIFEXITED(run.status));
    g_assert_cmpint(WEXITSTATUS(run.status), ==, 0);
    vm_run_free(&run);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(boots); i++) {
        g_autofree char *path = g_strdup_printf("/linux/tcg/%s",
                                                boots[i].name);

        g_test_add_data_func(path, &boots[i], test_boot);
    }
    return g_test_run();
}
