/*
 * Debian's Linux with virtio devices under the software CPU: the kernel
 * of scripts/fetch-linux-guest.sh, its busybox initramfs and the
 * kernel's own virtio and ext4 modules (build/guest-linux/modules.cpio,
 * which /init loads), -accel tcg -M pc through the PVH entry.
 *
 * virtio-blk: a raw image on a -drive/-device virtio-blk-pci pair. The
 * first boot (vda=format) sees /dev/vda with the size and serial given,
 * makes a file system on it with busybox's mke2fs, mounts it as ext4,
 * writes a file, syncs and powers off; the second (vda=check) reads the
 * file back; then the host's e2fsck -n finds the image clean.
 *
 * Skipped with the reason without the fetched guest or e2fsck.
 * LINUX_BOOT_TIMEOUT (seconds, default 300) bounds each boot.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300
#define DISK_BYTES          (64u << 20)
#define DISK_SERIAL         "lean-disk-1"

/* Boot the PVH kernel with the modules, the disk, and vda=what. */
static VmRun boot_with_disk(const char *kernel, const char *modules,
                            const char *dir, const char *image,
                            const char *what)
{
    g_autofree char *initrd = NULL, *drive = NULL, *append = NULL;
    GPtrArray *args;
    VmRun run;

    initrd = vm_linux_initrd(dir, (const char *const[]) { modules, NULL });
    drive = g_strdup_printf("file=%s,format=raw,if=none,id=disk0", image);
    append = g_strdup_printf("console=ttyS0 panic=-1 vda=%s", what);
    args = vm_args_new("-accel tcg -M pc -m 512M -display none -no-reboot");
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    vm_args_add(args, "-append");
    vm_args_add(args, append);
    vm_args_add(args, "-drive");
    vm_args_add(args, drive);
    vm_args_add(args, "-device");
    vm_args_add(args, "virtio-blk-pci,drive=disk0,serial=" DISK_SERIAL);
    run = vm_run(args, 0, vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S));
    g_ptr_array_free(args, TRUE);
    g_unlink(initrd);
    return run;
}

static void test_virtio_blk(void)
{
    static const char *const formatted[] = {
        "init: vda 131072 sectors, serial " DISK_SERIAL,
        "init: vda formatted",
        "init: poweroff",
        NULL,
    };
    static const char *const checked[] = {
        "init: vda 131072 sectors, serial " DISK_SERIAL,
        "init: vda says: written by the Linux test guest",
        "init: poweroff",
        NULL,
    };
    g_autofree char *kernel = NULL, *modules = NULL;
    g_autofree char *dir = NULL, *image = NULL, *e2fsck = NULL;
    g_autofree char *out = NULL, *err = NULL;
    char *argv[] = { NULL, (char *)"-n", NULL, NULL };
    VmRun run;
    int status;
    FILE *f;

    if (!vm_require_accel("tcg")) {
        return;
    }
    kernel = vm_require_linux_guest("vmlinux");
    modules = kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return;
    }
    e2fsck = g_find_program_in_path("e2fsck");
    if (!e2fsck && g_file_test("/sbin/e2fsck", G_FILE_TEST_IS_EXECUTABLE)) {
        e2fsck = g_strdup("/sbin/e2fsck");
    }
    if (!e2fsck) {
        g_test_skip("no e2fsck (e2fsprogs) on the host");
        return;
    }

    dir = g_dir_make_tmp("linux-virtio-XXXXXX", NULL);
    image = g_build_filename(dir, "disk.raw", NULL);
    f = fopen(image, "w");
    g_assert_nonnull(f);
    g_assert_cmpint(ftruncate(fileno(f), DISK_BYTES), ==, 0);
    fclose(f);

    run = boot_with_disk(kernel, modules, dir, image, "format");
    vm_run_expect_lines(&run, formatted);
    vm_run_free(&run);
    run = boot_with_disk(kernel, modules, dir, image, "check");
    vm_run_expect_lines(&run, checked);
    vm_run_free(&run);

    /* The host's view of what the guest wrote. */
    argv[0] = e2fsck;
    argv[2] = image;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL)) {
        g_test_message("e2fsck -n:\n%s%s", out, err);
    }
    g_assert_true(g_spawn_check_wait_status(status, NULL));
    g_unlink(image);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/linux/tcg/virtio-blk", test_virtio_blk);
    return g_test_run();
}
