/*
 * Debian's Linux on qcow2 disks under the software CPU (the guest of
 * test-linux-virtio: PVH kernel, busybox initramfs, the kernel's virtio
 * and ext4 modules). The first boot makes an ext4 file system on a new
 * qcow2 image given without format= (so probed) and writes a file; the
 * second boots on a qcow2 overlay above it and reads the file back,
 * through the backing file, then writes the overlay (a new file system)
 * while the base stays byte for byte as it was; -snapshot on the
 * overlay changes nothing. After each boot qemu-img check finds the
 * images clean, and the host's e2fsck -n finds the file system clean
 * in a raw copy of the overlay. Skipped without the fetched guest,
 * qemu-img or e2fsck.
 *
 * Through the firmware (linux/tcg/qcow2/firmware): SeaBIOS boots the
 * guest from an IDE disk that is a qcow2 overlay (found by probing) on
 * a qcow2 base holding scripts/make-boot-media.sh's disk, and the guest
 * makes its file system on a qcow2 virtio disk; the base is unchanged,
 * every image checks clean. Skipped without SeaBIOS or the boot media
 * tools.
 */
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-img.h"
#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300
#define DISK_SERIAL         "lean-qcow2-1"

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

/* Boot the kernel with the modules on drive (options), vda=what. */
static void boot(const char *kernel, const char *modules, const char *dir,
                 const char *drive, const char *extra, const char *what,
                 const char *const *expect)
{
    g_autofree char *initrd = vm_linux_initrd(dir, (const char *const[]) {
        modules, NULL });
    g_autofree char *append = g_strdup_printf("console=ttyS0 panic=-1 "
                                              "vda=%s", what);
    GPtrArray *args = vm_args_new("-accel tcg -M pc -m 512M -display none "
                                  "-no-reboot");
    VmRun run;

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
    if (extra) {
        vm_args_add(args, extra);
    }
    run = vm_run(args, 0, vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S));
    vm_run_expect_lines(&run, expect);
    vm_run_free(&run);
    g_ptr_array_free(args, TRUE);
    g_unlink(initrd);
}

static char *file_sha256(const char *path)
{
    g_autofree char *data = NULL;
    gsize len;

    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data,
                                       len);
}

static void e2fsck_clean(const char *e2fsck, const char *image)
{
    char *argv[] = { (char *)e2fsck, (char *)"-n", (char *)image, NULL };
    g_autofree char *out = NULL, *err = NULL;
    int status;

    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL)) {
        g_test_message("e2fsck -n:\n%s%s", out, err);
    }
    g_assert_true(g_spawn_check_wait_status(status, NULL));
}

static void test_qcow2(void)
{
    g_autofree char *kernel = NULL, *modules = NULL, *e2fsck = NULL;
    g_autofree char *dir = NULL, *base = NULL, *top = NULL, *raw = NULL;
    g_autofree char *drive = NULL, *base_sum = NULL, *top_sum = NULL;
    g_autofree char *sum = NULL;

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
    if (!e2fsck || !qemu_img_available()) {
        g_test_skip("no e2fsck or qemu-img on the host");
        return;
    }
    dir = g_dir_make_tmp("linux-qcow2-XXXXXX", NULL);
    base = g_build_filename(dir, "base.qcow2", NULL);
    top = g_build_filename(dir, "top.qcow2", NULL);
    raw = g_build_filename(dir, "top.raw", NULL);

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 64M", base), ==, 0);
    drive = g_strdup_printf("file=%s,if=none,id=disk0", base);
    boot(kernel, modules, dir, drive, NULL, "format", formatted);
    g_assert_cmpint(qemu_img("check -q %s", base), ==, 0);
    base_sum = file_sha256(base);

    /* An overlay: reads come from the base, writes stay in the overlay. */
    g_assert_cmpint(qemu_img("create -q -f qcow2 -b base.qcow2 -F qcow2 %s",
                             top), ==, 0);
    g_free(drive);
    drive = g_strdup_printf("file=%s,if=none,id=disk0", top);
    boot(kernel, modules, dir, drive, NULL, "check", checked);
    boot(kernel, modules, dir, drive, NULL, "format", formatted);
    g_assert_cmpint(qemu_img("check -q %s", top), ==, 0);
    sum = file_sha256(base);
    g_assert_cmpstr(sum, ==, base_sum);
    g_assert_cmpint(qemu_img("convert -O raw %s %s", top, raw), ==, 0);
    e2fsck_clean(e2fsck, raw);

    /* -snapshot: the guest writes, nothing reaches the overlay. */
    top_sum = file_sha256(top);
    boot(kernel, modules, dir, drive, "-snapshot", "format", formatted);
    g_free(sum);
    sum = file_sha256(top);
    g_assert_cmpstr(sum, ==, top_sum);

    g_unlink(raw);
    g_unlink(top);
    g_unlink(base);
    g_rmdir(dir);
}

static void test_firmware(void)
{
    static const char *const tools[] = { "sfdisk", "mformat", "syslinux" };
    g_autofree char *bz = NULL, *initramfs = NULL, *modules = NULL;
    g_autofree char *dir = NULL, *raw = NULL, *base = NULL, *top = NULL;
    g_autofree char *data = NULL, *cmd = NULL, *initrds = NULL;
    g_autofree char *base_sum = NULL, *sum = NULL, *drive = NULL;
    g_autofree char *boot = NULL, *out = NULL, *err = NULL;
    GPtrArray *args;
    VmRun run;
    int status;

    if (!vm_require_accel("tcg")) {
        return;
    }
    bz = vm_require_linux_guest("bzImage");
    initramfs = bz ? vm_require_linux_guest("initramfs.cpio") : NULL;
    modules = initramfs ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return;
    }
    if (!g_file_test("/usr/share/seabios/bios-256k.bin", G_FILE_TEST_EXISTS)
        || !qemu_img_available()) {
        g_test_skip("no SeaBIOS or qemu-img");
        return;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(tools); i++) {
        g_autofree char *t = g_find_program_in_path(tools[i]);

        if (!t) {
            g_test_skip("no sfdisk, mtools or syslinux");
            return;
        }
    }
    dir = g_dir_make_tmp("linux-qcow2-fw-XXXXXX", NULL);
    raw = g_build_filename(dir, "boot.img", NULL);
    base = g_build_filename(dir, "boot.qcow2", NULL);
    top = g_build_filename(dir, "boot-top.qcow2", NULL);
    data = g_build_filename(dir, "data.qcow2", NULL);
    initrds = g_strdup_printf("%s:%s", initramfs, modules);
    cmd = g_strdup_printf("%s %s %s %s 'console=ttyS0 panic=-1 vda=format'",
                          BOOT_MEDIA_SCRIPT, raw, bz, initrds);
    g_assert_true(g_spawn_command_line_sync(cmd, &out, &err, &status, NULL));
    if (status) {
        g_test_message("%s: %s%s", cmd, out, err);
    }
    g_assert_cmpint(status, ==, 0);
    g_assert_cmpint(qemu_img("convert -O qcow2 %s %s", raw, base), ==, 0);
    g_assert_cmpint(qemu_img("create -q -f qcow2 -b boot.qcow2 -F qcow2 %s",
                             top), ==, 0);
    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 64M", data), ==, 0);
    base_sum = file_sha256(base);

    args = vm_args_new("-accel tcg -M pc -m 512M -display none -no-reboot");
    boot = g_strdup_printf("file=%s,if=ide", top);
    drive = g_strdup_printf("file=%s,if=none,id=disk0", data);
    vm_args_add(args, "-drive");
    vm_args_add(args, boot);
    vm_args_add(args, "-drive");
    vm_args_add(args, drive);
    vm_args_add(args, "-device");
    vm_args_add(args, "virtio-blk-pci,drive=disk0,serial=" DISK_SERIAL);
    run = vm_run(args, 0, vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S));
    vm_run_expect_lines(&run, formatted);
    vm_run_free(&run);
    g_ptr_array_free(args, TRUE);

    sum = file_sha256(base);
    g_assert_cmpstr(sum, ==, base_sum);
    g_assert_cmpint(qemu_img("check -q %s", top), ==, 0);
    g_assert_cmpint(qemu_img("check -q %s", data), ==, 0);
    g_unlink(data);
    g_unlink(top);
    g_unlink(base);
    g_unlink(raw);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/linux/tcg/qcow2", test_qcow2);
    g_test_add_func("/linux/tcg/qcow2/firmware", test_firmware);
    return g_test_run();
}
