/*
 * Functional test: Debian's Linux under -accel tcg with its own
 * virtio_balloon module gives memory back, and the emulator's RSS drops
 * by it under -overcommit mem-lock=off, on and on-fault while VmLck
 * stays. The guest's /init (appended to the initramfs) touches TOUCH_MIB
 * in a tmpfs and frees it, so those pages are free in the guest and
 * resident in the host; then QMP "balloon" asks for INFLATE_MIB of them.
 * With free-page-reporting=on the guest gives the freed pages back by
 * itself, under mem-lock=on too.
 * Skipped without build/guest-linux (scripts/fetch-linux-guest.sh).
 */
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-host.h"
#include "qemu-vm.h"

#define MEM_MIB         512
#define TOUCH_MIB       400
#define INFLATE_MIB     384
#define DEFAULT_TIMEOUT_S 300

static const char init_script[] =
    "#!/bin/busybox sh\n"
    "/bin/busybox --install -s /bin\n"
    "export PATH=/bin\n"
    "mount -t proc proc /proc\n"
    "mount -t sysfs sysfs /sys\n"
    "mount -t devtmpfs devtmpfs /dev\n"
    "for m in virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev "
    "virtio virtio_pci virtio_balloon; do\n"
    "    insmod /lib/modules/$m.ko || echo \"init: insmod $m failed\"\n"
    "done\n"
    "mount -t tmpfs -o size=1g tmpfs /mnt\n"
    "dd if=/dev/zero of=/mnt/fill bs=1M count=" G_STRINGIFY(TOUCH_MIB)
    " 2>/dev/null\n"
    "echo \"init: touched $(($(stat -c %s /mnt/fill) >> 20)) MiB\"\n"
    "rm /mnt/fill\n"
    "umount /mnt\n"
    "echo \"init: ready\"\n"
    "while sleep 5; do :; done\n";

/* One cpio "newc" entry (the format make-initramfs.py writes). */
static void cpio_entry(GString *out, unsigned ino, const char *name,
                       unsigned mode, const char *data, size_t len)
{
    size_t namesize = strlen(name) + 1;

    g_string_append_printf(out, "070701%08X%08X%08X%08X%08X%08X%08zX"
                           "%08X%08X%08X%08X%08zX%08X", ino, mode, 0, 0, 1,
                           0, len, 0, 0, 0, 0, namesize, 0);
    g_string_append_len(out, name, namesize);
    while (out->len % 4) {
        g_string_append_c(out, 0);
    }
    g_string_append_len(out, data, len);
    while (out->len % 4) {
        g_string_append_c(out, 0);
    }
}

static char *write_init_cpio(const char *dir)
{
    GString *cpio = g_string_new(NULL);
    char *path = g_build_filename(dir, "init.cpio", NULL);

    cpio_entry(cpio, 1, "init", 0100755, init_script, strlen(init_script));
    cpio_entry(cpio, 0, "TRAILER!!!", 0, "", 0);
    g_assert_true(g_file_set_contents(path, cpio->str, cpio->len, NULL));
    g_string_free(cpio, true);
    return path;
}

static int64_t query_actual(QemuVm *vm)
{
    JsonNode *ret = vm_qmp_return(vm, "query-balloon");
    int64_t v = json_object_get_int_member(json_node_get_object(ret),
                                           "actual");

    json_node_unref(ret);
    return v;
}

/* Wait until the guest holds what the target asks; false on timeout. */
static bool wait_actual(QemuVm *vm, int64_t target, unsigned timeout_s)
{
    for (unsigned i = 0; i < timeout_s * 10; i++) {
        int64_t a = query_actual(vm);

        if (target < (MEM_MIB << 20) ? a <= target : a >= target) {
            return true;
        }
        g_usleep(100000);
    }
    return false;
}

static void set_target(QemuVm *vm, int64_t bytes)
{
    JsonNode *rep = vm_qmp(vm, "{\"execute\": \"balloon\", \"arguments\": "
                           "{\"value\": %" G_GINT64_FORMAT "}}", bytes);

    g_assert_false(json_object_has_member(json_node_get_object(rep),
                                          "error"));
    json_node_unref(rep);
}

typedef struct Case {
    const char *mode;           /* mem-lock= */
    bool report;                /* free-page-reporting=on, no balloon */
} Case;

static void test_balloon(const void *data)
{
    const Case *c = data;
    const char *mode = c->mode;
    bool locked = strcmp(mode, "off") != 0;
    g_autofree char *kernel = NULL, *modules = NULL, *dir = NULL;
    g_autofree char *init = NULL, *initrd = NULL;
    g_autofree char *lock_arg = g_strdup_printf("mem-lock=%s", mode);
    int64_t target = (int64_t)(MEM_MIB - INFLATE_MIB) << 20;
    long rss0, rss1, lck0, lck1;
    GPtrArray *args;
    QemuVm *vm;

    if (locked && !HAVE_MLOCK_ONFAULT) {
        /* Discarded locked memory is locked again whole: nothing back. */
        g_test_skip("built without MLOCK_ONFAULT (docs/overcommit.md)");
        return;
    }
    /* ASan's mlockall() interceptor locks nothing: no VmLck to check. */
    locked = locked && !HAVE_SANITIZERS;
    if (!vm_require_accel("tcg")) {
        return;
    }
    kernel = vm_require_linux_guest("vmlinux");
    modules = kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return;
    }
    dir = g_dir_make_tmp("linux-balloon-XXXXXX", NULL);
    init = write_init_cpio(dir);
    initrd = vm_linux_initrd(dir, (const char *const[]) { modules, init,
                                                         NULL });
    args = vm_args_new("-accel tcg -M pc -m " G_STRINGIFY(MEM_MIB)
                       "M -display none -no-reboot");
    vm_args_add(args, "-device");
    vm_args_add(args, c->report ? "virtio-balloon-pci,id=balloon0,"
                                  "free-page-reporting=on"
                                : "virtio-balloon-pci,id=balloon0");
    vm_args_add(args, "-overcommit");
    vm_args_add(args, lock_arg);
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 panic=-1 quiet");
    vm = vm_start(args, VM_QMP);
    g_ptr_array_free(args, TRUE);

    for (unsigned i = 0; !vm_serial_count(vm, "init: ready"); i++) {
        if (vm_exited(vm) ||
            i > vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S) * 10) {
            g_test_message("serial:\n%s", vm_serial(vm));
            g_assert_not_reached();
        }
        g_usleep(100000);
    }
    g_assert_cmpuint(vm_serial_count(vm, "init: touched "
                                     G_STRINGIFY(TOUCH_MIB) " MiB"), ==, 1);
    g_assert_cmpuint(vm_serial_count(vm, "failed"), ==, 0);
    rss0 = proc_status_kb(vm_pid(vm), "VmRSS");
    lck0 = proc_status_kb(vm_pid(vm), "VmLck");

    if (c->report) {
        /*
         * Free page reporting: the guest reports the freed pages itself
         * (ranges of 2 MiB and more, about 2 s after they became free);
         * RSS drops by most of what it touched, with no balloon target.
         * The touch above may already have been reported in part.
         */
        long rss;

        for (unsigned i = 0; i < 600; i++) {
            rss = proc_status_kb(vm_pid(vm), "VmRSS");
            if (rss < (TOUCH_MIB * 1024) / 2) {
                break;
            }
            g_usleep(100000);
        }
        g_test_message("mem-lock=%s, free page reporting: VmRSS %ld -> %ld "
                       "KiB", mode, rss0, rss);
        g_assert_cmpint(rss, <, (TOUCH_MIB * 1024) / 2);
        if (locked) {
            lck1 = proc_status_kb(vm_pid(vm), "VmLck");
            g_assert_cmpint(lck1 + 1024, >=, lck0);
        }
        g_assert_cmpint(query_actual(vm), ==, (int64_t)MEM_MIB << 20);
        goto out;
    }
    set_target(vm, target);
    g_assert_true(wait_actual(vm, target, 120));
    g_assert_true(vm_wait_event(vm, "BALLOON_CHANGE"));
    rss1 = proc_status_kb(vm_pid(vm), "VmRSS");
    lck1 = proc_status_kb(vm_pid(vm), "VmLck");
    g_test_message("mem-lock=%s: VmRSS %ld -> %ld KiB, VmLck %ld -> %ld KiB",
                   mode, rss0, rss1, lck0, lck1);
    /* At least 90% of what the guest gave back left the process. */
    g_assert_cmpint(rss0 - rss1, >=, INFLATE_MIB * 1024 * 9 / 10);
    if (locked) {
        g_assert_cmpint(lck0, >=, MEM_MIB * 1024);
        g_assert_cmpint(lck1 + 1024, >=, lck0);
        g_assert_cmpint(lck1, <=, lck0 + 8192);
    }

    /* Deflate: the guest takes its memory back and keeps running. */
    set_target(vm, (int64_t)MEM_MIB << 20);
    g_assert_true(wait_actual(vm, (int64_t)MEM_MIB << 20, 120));
    g_assert_false(vm_exited(vm));
out:
    vm_quit(vm);
    vm_free(vm);
    g_unlink(initrd);
    g_unlink(init);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    static const Case cases[] = {
        { "off" }, { "on" }, { "on-fault" }, { "on", true },
    };

    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = g_strdup_printf(
            "/linux/balloon/%smem-lock-%s",
            cases[i].report ? "free-page-reporting/" : "", cases[i].mode);

        g_test_add_data_func(path, &cases[i], test_balloon);
    }
    return g_test_run();
}
