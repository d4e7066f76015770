/*
 * PCI notifications by the path they take: the guest kit's pciio
 * drives pci-testdev's MMIO and port tests and four virtio-blk-pci
 * requests on MSI-X (the last with the vector masked, delivered on
 * unmask), and -d notify says at exit how the queue kicks,
 * MSI-X messages and pci-testdev's eventfd tests' writes travelled.
 *   - kvm: kicks through ioeventfds (no exit), messages through irqfds
 *     on GSI routes of their own (two made: masking released the first),
 *     pci-testdev's wildcard and datamatch writes through ioeventfds in
 *     the memory and I/O spaces;
 *   - kvm with ioeventfd=off: kicks as MMIO exits, still irqfds;
 *   - tcg: MMIO exits and messages straight to the software APICs.
 * Each case also checks what the guest wrote reached the image.
 * The kvm cases are skipped, never passed, without a usable /dev/kvm.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define GUEST_PASS_STATUS   1       /* (GUEST_PASS << 1) | 1 */
#define RUN_TIMEOUT_S       120
#define SECTOR              512

static char *tmpdir;

typedef struct NotifyCase {
    const char *accel;
    const char *blk_props;          /* appended to -device virtio-blk-pci */
    const char *blk_line;           /* -d notify's line for virtio-blk */
    bool testdev_eventfds;          /* pci-testdev's lines expected */
} NotifyCase;

static const NotifyCase case_kvm = {
    "kvm", "",
    "notify: virtio-blk-pci 03.0: 4 kicks by ioeventfd, 0 by MMIO exit; "
    "4 MSI-X messages by irqfd (2 irqfds made), 0 directly\n",
    true,
};
static const NotifyCase case_kvm_ioeventfd_off = {
    "kvm", ",ioeventfd=off",
    "notify: virtio-blk-pci 03.0: 0 kicks by ioeventfd, 4 by MMIO exit; "
    "4 MSI-X messages by irqfd (2 irqfds made), 0 directly\n",
    true,
};
static const NotifyCase case_tcg = {
    "tcg", "",
    "notify: virtio-blk-pci 03.0: 0 kicks by ioeventfd, 4 by MMIO exit; "
    "0 MSI-X messages by irqfd (0 irqfds made), 4 directly\n",
    false,
};

/* 1 MiB, sector 1 starting with what pciio checks, the rest zero. */
static char *make_image(void)
{
    char *path = g_build_filename(tmpdir, "blk.img", NULL);
    g_autofree char *data = g_malloc0(1 << 20);

    memcpy(data + SECTOR, "pciio sector 1", 14);
    g_assert_true(g_file_set_contents(path, data, 1 << 20, NULL));
    return path;
}

static const char *const eventfd_tests[] = {
    "mmio-wildcard-eventfd", "mmio-datamatch-eventfd",
    "portio-wildcard-eventfd", "portio-datamatch-eventfd",
};

static void test_notify(gconstpointer opaque)
{
    const NotifyCase *c = opaque;
    static const char *const lines[] = {
        "pciio: testdev mmio-no-eventfd: 1000 writes, count 1000\n",
        "pciio: testdev portio-no-eventfd: 1000 writes, count 1000\n",
        "pciio: virtio-blk read sector 1: \"pciio sector 1\"\n",
        "pciio: virtio-blk wrote and read back sector 0\n",
        "pciio: virtio-blk masked vector: pending, then delivered on "
        "unmask\n",
        "pciio: virtio-blk 4 MSI-X interrupts\n",
        "pciio: PASS\n",
        NULL,
    };
    g_autofree char *kernel = NULL, *img = NULL, *data = NULL;
    g_autofree char *words = NULL;
    GPtrArray *args;
    VmRun r;
    gsize len;

    if (!vm_require_accel(c->accel)) {
        return;
    }
    if (!(kernel = vm_require_guest_kit("pciio.elf"))) {
        return;
    }
    img = make_image();
    words = g_strdup_printf("-M pc -accel %s -m 512M -display none "
                            "-nodefaults -device isa-debug-exit,iobase=0xf4,"
                            "iosize=0x4 -d notify -device pci-testdev "
                            "-drive file=%s,format=raw,if=none,id=d0 "
                            "-device virtio-blk-pci,drive=d0,"
                            "disable-legacy=on%s -kernel %s", c->accel, img,
                            c->blk_props, kernel);
    args = vm_args_new(words);
    r = vm_run(args, 0, RUN_TIMEOUT_S);
    g_ptr_array_free(args, TRUE);
    for (unsigned i = 0; lines[i]; i++) {
        if (!strstr(r.serial, lines[i])) {
            g_test_message("serial:\n%s\nstderr:\n%s", r.serial, r.err);
        }
        g_assert_nonnull(strstr(r.serial, lines[i]));
    }
    g_assert_true(WIFEXITED(r.status));
    g_assert_cmpint(WEXITSTATUS(r.status), ==, GUEST_PASS_STATUS);
    if (!strstr(r.err, c->blk_line)) {
        g_test_message("stderr:\n%s", r.err);
    }
    g_assert_nonnull(strstr(r.err, c->blk_line));
    for (unsigned i = 0; i < G_N_ELEMENTS(eventfd_tests); i++) {
        g_autofree char *line = g_strdup_printf("notify: pci-testdev 02.0: "
                                                "%s 1000 writes by "
                                                "ioeventfd\n",
                                                eventfd_tests[i]);

        if (!c->testdev_eventfds != !strstr(r.err, line)) {
            g_test_message("stderr:\n%s", r.err);
        }
        g_assert_true(!c->testdev_eventfds == !strstr(r.err, line));
    }
    /* The write went to the image: sector 0 holds pciio's pattern. */
    g_assert_true(g_file_get_contents(img, &data, &len, NULL));
    for (unsigned i = 0; i < SECTOR; i++) {
        g_assert_cmpuint((uint8_t)data[i], ==, (uint8_t)(i * 7 + 3));
    }
    vm_run_free(&r);
    g_unlink(img);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-pci-notify-XXXXXX", NULL);
    g_assert_nonnull(tmpdir);
    g_test_add_data_func("/pci-notify/kvm", &case_kvm, test_notify);
    g_test_add_data_func("/pci-notify/kvm-ioeventfd-off",
                         &case_kvm_ioeventfd_off, test_notify);
    g_test_add_data_func("/pci-notify/tcg", &case_tcg, test_notify);
    ret = g_test_run();
    g_rmdir(tmpdir);
    g_free(tmpdir);
    return ret;
}
