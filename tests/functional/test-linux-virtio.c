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
 * A full disk (virtio-blk/enospc): the image is sparse on a 4 MiB tmpfs
 * the test mounts and fills; with werror=stop the guest's first write
 * stops the VM (BLOCK_IO_ERROR with nospace, STOP, run state io-error)
 * instead of failing in the guest; the test frees the space and says
 * "cont", and the guest's dd completes: what it reads back, and the
 * image on the host, hash as what it wrote.
 *
 * Skipped with the reason without the fetched guest or e2fsck (or, for
 * the full disk, without the right to mount a tmpfs).
 * LINUX_BOOT_TIMEOUT (seconds, default 300) bounds each boot.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300
#define DISK_BYTES          (64u << 20)
#define DISK_SERIAL         "lean-disk-1"

/*
 * The kernel and modules of the fetched guest; false (the test skipped)
 * without tcg or the guest.
 */
static bool require_guest(char **kernel, char **modules)
{
    if (!vm_require_accel("tcg")) {
        return false;
    }
    *kernel = vm_require_linux_guest("vmlinux");
    *modules = *kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    return *modules != NULL;
}

/* The PVH kernel with initrd and append, and drive (options) as disk0. */
static GPtrArray *disk_vm_args(const char *kernel, const char *initrd,
                               const char *append, const char *drive)
{
    GPtrArray *args = vm_args_new("-accel tcg -M pc -m 512M -display none "
                                  "-no-reboot");

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
    return args;
}

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
    args = disk_vm_args(kernel, initrd, append, drive);
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

    if (!require_guest(&kernel, &modules)) {
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

#define FULL_DATA_BYTES     (2u << 20)

/* What follows "init: NAME " on the serial line that has it. */
static char *serial_value(QemuVm *vm, const char *name)
{
    g_autofree char *serial = vm_serial(vm);
    g_autofree char *key = g_strdup_printf("init: %s ", name);
    const char *p = strstr(serial, key);

    g_assert_nonnull(p);
    p += strlen(key);
    return g_strndup(p, strcspn(p, "\r\n"));
}

/* The host's sha256 of the image's first FULL_DATA_BYTES, as sha256sum. */
static char *image_sha256(const char *image)
{
    g_autofree char *data = NULL;
    gsize len;

    g_assert_true(g_file_get_contents(image, &data, &len, NULL));
    g_assert_cmpuint(len, >=, FULL_DATA_BYTES);
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data,
                                       FULL_DATA_BYTES);
}

/* vm_wait_serial() for up to timeout_s (a boot under ASan takes long). */
static bool wait_serial_for(QemuVm *vm, const char *text, unsigned timeout_s)
{
    gint64 end = g_get_monotonic_time() + timeout_s * G_USEC_PER_SEC;

    while (!vm_wait_serial(vm, text, 1)) {
        if (vm_exited(vm) || g_get_monotonic_time() > end) {
            return false;
        }
    }
    return true;
}

static void test_virtio_blk_enospc(void)
{
    unsigned timeout_s = vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S);
    static const char chunk[4096];
    g_autofree char *kernel = NULL, *modules = NULL, *dir = NULL;
    g_autofree char *image = NULL, *filler = NULL, *initrd = NULL;
    g_autofree char *drive = NULL, *status = NULL, *data = NULL;
    g_autofree char *back = NULL, *host = NULL, *want = NULL;
    GPtrArray *args;
    QemuVm *vm;
    int fd;

    if (!require_guest(&kernel, &modules)) {
        return;
    }
    dir = g_dir_make_tmp("linux-enospc-XXXXXX", NULL);
    /*
     * In a mount namespace of the test's own, so the tmpfs goes away with
     * the test (and its emulator) even when an assertion ends it.
     */
    if (unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("tmpfs", dir, "tmpfs", 0, "size=4m") < 0) {
        g_autofree char *why = g_strdup_printf("mounting a tmpfs: %s",
                                               g_strerror(errno));

        g_rmdir(dir);
        g_test_skip(why);
        return;
    }
    image = g_build_filename(dir, "disk.raw", NULL);
    filler = g_build_filename(dir, "filler", NULL);
    fd = open(image, O_CREAT | O_WRONLY, 0644);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, DISK_BYTES), ==, 0);
    close(fd);
    fd = open(filler, O_CREAT | O_WRONLY, 0644);
    g_assert_cmpint(fd, >=, 0);
    while (write(fd, chunk, sizeof(chunk)) == sizeof(chunk)) {
    }
    g_assert_cmpint(errno, ==, ENOSPC);
    close(fd);

    /* The initrd lives outside the full tmpfs. */
    initrd = vm_linux_initrd(g_get_tmp_dir(), (const char *const[]) {
                                 modules, BLK_FULL_INIT_CPIO, NULL });
    drive = g_strdup_printf("file=%s,format=raw,if=none,id=disk0,"
                            "werror=stop", image);
    args = disk_vm_args(kernel, initrd, "console=ttyS0 panic=-1", drive);
    vm = vm_start(args, VM_QMP);
    g_ptr_array_free(args, TRUE);

    g_assert_true(wait_serial_for(vm, "init: data ", timeout_s));
    g_assert_true(vm_wait_event(vm, "BLOCK_IO_ERROR"));
    g_assert_true(vm_wait_event(vm, "STOP"));
    status = vm_status(vm);
    g_assert_cmpstr(status, ==, "io-error");
    g_assert_cmpuint(vm_serial_count(vm, "init: vda written"), ==, 0);

    g_assert_cmpint(g_unlink(filler), ==, 0);
    vm_qmp_ok(vm, "cont");
    g_assert_true(wait_serial_for(vm, "init: poweroff", timeout_s));
    g_assert_cmpuint(vm_serial_count(vm, "init: vda written"), ==, 1);
    data = serial_value(vm, "data");
    back = serial_value(vm, "readback");
    g_assert_cmpstr(back, ==, data);
    host = image_sha256(image);
    want = g_strconcat(host, "  -", NULL);
    g_assert_cmpstr(data, ==, want);
    g_assert_cmpint(vm_wait(vm, 0), ==, 0);
    vm_free(vm);

    g_unlink(initrd);
    g_unlink(image);
    g_assert_cmpint(umount2(dir, MNT_DETACH), ==, 0);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/linux/tcg/virtio-blk", test_virtio_blk);
    g_test_add_func("/linux/tcg/virtio-blk/enospc", test_virtio_blk_enospc);
    return g_test_run();
}
