/*
 * Migration of machines with virtio devices, under tcg and kvm:
 *   /migration/virtio/linux-blk  Debian's Linux with an ext4 file system
 *       on a virtio-blk disk, rewriting four files in synced passes, and
 *       virtio-rng: migrated over unix: in the middle of the passes. The
 *       destination carries on from there (the queues and the requests
 *       moved), checks what the disk gives back after dropping its page
 *       cache, reads the RNG, unmounts and powers off; then the host's
 *       e2fsck -n finds the image clean and debugfs reads the known file.
 *   /migration/virtio/getfd  getfd over the QMP unix socket (SCM_RIGHTS):
 *       refused without a descriptor and for a name starting with a
 *       digit, closefd of an unknown name refused, then migrate
 *       "fd:NAME" with the guest kit's migrate program and virtio-rng,
 *       virtio-net and virtio-balloon on the machine; the name is gone
 *       afterwards. Names are per monitor, as in QEMU: the VM's other
 *       monitor neither finds nor closes it, and it outlives the
 *       client's reconnection. /migration/virtio/kvm/getfd: the same
 *       under kvm.
 *   /migration/virtio/kvm/blk-ioeventfd  the guest kit's pciio writing
 *       and reading a virtio-blk sector in a loop, migrated under kvm:
 *       the rounds go on, and the destination's kicks all come through
 *       the ioeventfds it started when it loaded the running device
 *       (-d notify: none by MMIO exit), the image holds the last round.
 *   /migration/virtio/refused  a device still without a state table
 *       (edu) is named by migrate's refusal.
 *   /migration/virtio/bad-queue  a stream (migrate file:) whose
 *       virtio-rng queue size was made 12 (its checksum fixed): the
 *       destination exits 1 with one line naming the device and field.
 * Skipped with the reason without the Linux guest, e2fsprogs or the
 * guest kit. The Linux case is skipped under the sanitizers (as
 * test-migration's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-host.h"
#include "qemu-vm.h"

#define MIG_TIMEOUT_S   120
#define DISK_BYTES      (64u << 20)
#define PASSES          150

static char *tmpdir;

/* The figures of a completed migration, for the test log. */
static void log_migration(QemuVm *src)
{
    JsonNode *r = vm_qmp_return(src, "query-migrate");
    JsonObject *o = json_node_get_object(r);
    JsonObject *ram = json_object_get_object_member(o, "ram");

    g_test_message("total %" G_GINT64_FORMAT " ms, downtime %"
                   G_GINT64_FORMAT " ms, %" G_GINT64_FORMAT " bytes, %"
                   G_GINT64_FORMAT " syncs",
                   json_object_get_int_member(o, "total-time"),
                   json_object_get_int_member(o, "downtime"),
                   json_object_get_int_member(ram, "transferred"),
                   json_object_get_int_member(ram, "dirty-sync-count"));
    json_node_unref(r);
}

/* migrate src to uri and wait until it says completed. */
static void migrate_completed(QemuVm *src, const char *uri)
{
    g_autofree char *cmd = g_strdup_printf(
        "{\"execute\": \"migrate\", \"arguments\": {\"uri\": \"%s\"}}",
        uri);

    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
}

static char *find_tool(const char *name)
{
    char *p = g_find_program_in_path(name);
    char *sbin = g_build_filename("/sbin", name, NULL);

    if (!p && g_file_test(sbin, G_FILE_TEST_IS_EXECUTABLE)) {
        p = g_strdup(sbin);
    }
    g_free(sbin);
    return p;
}

/* argv[0] on the image: its stdout, or NULL when it did not exit 0. */
static char *run_tool(char **argv)
{
    char *out = NULL, *err = NULL;
    int status;

    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, NULL));
    if (!g_spawn_check_wait_status(status, NULL)) {
        g_test_message("%s:\n%s%s", argv[0], out, err);
        g_clear_pointer(&out, g_free);
    }
    g_free(err);
    return out;
}

static GPtrArray *linux_args(const char *kernel, const char *initrd,
                             const char *image, const char *incoming)
{
    g_autofree char *drive = g_strdup_printf(
        "file=%s,format=raw,if=none,id=disk0", image);
    GPtrArray *args = vm_args_new("-accel tcg -M pc -m 256M -display none "
                                  "-no-reboot -d guest_ram");

    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 panic=-1 passes=" G_STRINGIFY(PASSES));
    vm_args_add(args, "-drive");
    vm_args_add(args, drive);
    vm_args_split(args, "-device virtio-blk-pci,drive=disk0 "
                  "-object rng-random,id=rng0,filename=/dev/urandom "
                  "-device virtio-rng-pci,rng=rng0");
    if (incoming) {
        vm_args_add(args, "-incoming");
        vm_args_add(args, incoming);
    }
    return args;
}

static void test_linux_blk(void)
{
    g_autofree char *kernel = NULL, *modules = NULL, *e2fsck = NULL;
    g_autofree char *debugfs = NULL, *dir = NULL, *image = NULL;
    g_autofree char *initrd = NULL, *sock = NULL, *in = NULL;
    g_autofree char *src_out = NULL, *dst_out = NULL, *known = NULL;
    g_autofree char *fsck = NULL, *last = NULL;
    char *argv[] = { NULL, (char *)"-n", NULL, NULL, NULL };
    unsigned at_migrate;
    GPtrArray *args;
    QemuVm *src, *dst;
    int status;
    FILE *f;

    if (HAVE_SANITIZERS) {
        g_test_skip("Linux boots too slowly under the sanitizers' tcg; "
                    "test-vmstate-virtio covers the tables there");
        return;
    }
    if (!vm_require_accel("tcg")) {
        return;
    }
    kernel = vm_require_linux_guest("vmlinux");
    modules = kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return;
    }
    e2fsck = find_tool("e2fsck");
    debugfs = find_tool("debugfs");
    if (!e2fsck || !debugfs) {
        g_test_skip("no e2fsck or debugfs (e2fsprogs) on the host");
        return;
    }
    dir = g_dir_make_tmp("mig-virtio-XXXXXX", NULL);
    image = g_build_filename(dir, "disk.raw", NULL);
    f = fopen(image, "w");
    g_assert_nonnull(f);
    g_assert_cmpint(ftruncate(fileno(f), DISK_BYTES), ==, 0);
    fclose(f);
    initrd = vm_linux_initrd(dir, (const char *const[]) {
                             modules, MIGRATE_BLK_INIT_CPIO, NULL });
    sock = g_build_filename(dir, "mig.sock", NULL);
    in = g_strdup_printf("unix:%s", sock);

    args = linux_args(kernel, initrd, image, in);
    dst = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);
    args = linux_args(kernel, initrd, image, NULL);
    src = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);

    /* The boot takes ~25 s under tcg here, longer on a busy host. */
    for (unsigned i = 0; i < vm_linux_boot_timeout_s(300) * 10 &&
         !vm_serial_count(src, "init: wrote 10"); i++) {
        g_usleep(100 * 1000);
    }
    g_assert_cmpuint(vm_serial_count(src, "init: wrote 10"), ==, 1);
    migrate_completed(src, in);
    log_migration(src);
    src_out = vm_serial(src);
    at_migrate = vm_serial_count(src, "init: wrote ");
    g_test_message("migrated after %u of %u passes", at_migrate, PASSES);
    /* Mid-I/O: the source did not get to the end. */
    g_assert_cmpuint(at_migrate, <, PASSES);

    status = vm_wait(dst, vm_linux_boot_timeout_s(300));
    dst_out = vm_serial(dst);
    if (!WIFEXITED(status) || WEXITSTATUS(status) ||
        !strstr(dst_out, "init: 0 files differ")) {
        g_test_message("destination serial:\n%s\nstderr:\n%s", dst_out,
                       vm_stderr(dst));
    }
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    /* It went on from the source's pass, not from a new boot. */
    g_assert_null(strstr(dst_out, "init: started"));
    last = g_strdup_printf("init: wrote %u", PASSES - 1);
    g_assert_nonnull(strstr(dst_out, last));
    g_assert_nonnull(strstr(dst_out, "init: 0 files differ"));
    g_assert_nonnull(strstr(dst_out, "init: hwrng 64 bytes"));
    g_assert_nonnull(strstr(dst_out, "init: unmounted"));
    vm_quit(src);
    g_assert_nonnull(strstr(vm_stderr(src), "guest_ram: 'pc.ram'"));
    vm_free(src);
    vm_free(dst);

    /* The host's view of what the guest wrote, on both sides. */
    argv[0] = e2fsck;
    argv[2] = image;
    fsck = run_tool(argv);
    g_assert_nonnull(fsck);
    g_assert_nonnull(strstr(fsck, "clean"));
    argv[0] = debugfs;
    argv[1] = (char *)"-R";
    argv[2] = (char *)"cat /known";
    argv[3] = image;
    known = run_tool(argv);
    g_assert_cmpstr(known, ==, "known content of the migration test\n");
    g_unlink(initrd);
    g_unlink(image);
    g_rmdir(dir);
}

/* --- getfd --------------------------------------------------------------- */

/* One QMP reply (events skipped) on a raw connection. */
static char *raw_reply(int fd)
{
    GString *line = g_string_new(NULL);
    char c;

    for (;;) {
        ssize_t n = read(fd, &c, 1);

        g_assert_cmpint(n, ==, 1);
        if (c != '\n') {
            g_string_append_c(line, c);
            continue;
        }
        if (strstr(line->str, "\"return\"") ||
            strstr(line->str, "\"error\"")) {
            return g_string_free(line, FALSE);
        }
        g_string_truncate(line, 0);
    }
}

/* Send a command, with send_fd (SCM_RIGHTS) unless it is -1. */
static char *raw_command(int fd, const char *json, int send_fd)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = { .iov_base = (void *)json, .iov_len = strlen(json) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (send_fd >= 0) {
        struct cmsghdr *c;

        memset(&control, 0, sizeof(control));
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof(control.buf);
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &send_fd, sizeof(int));
    }
    g_assert_cmpint(sendmsg(fd, &msg, 0), ==, (ssize_t)strlen(json));
    return raw_reply(fd);
}

static int raw_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_autofree char *ok = NULL;

    g_strlcpy(sa.sun_path, path, sizeof(sa.sun_path));
    g_assert_cmpint(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), ==, 0);
    ok = raw_command(fd, "{\"execute\": \"qmp_capabilities\"}\n", -1);
    g_assert_nonnull(strstr(ok, "\"return\": {}"));
    return fd;
}

/* words, then guest's program with its command line, and -incoming. */
static QemuVm *start_guest(const char *words, const char *kernel,
                           const char *append, const char *incoming)
{
    GPtrArray *args = vm_args_new(words);
    QemuVm *vm;

    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-append");
    vm_args_add(args, append);
    if (incoming) {
        vm_args_add(args, "-incoming");
        vm_args_add(args, incoming);
    }
    vm = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);
    return vm;
}

/*
 * The migrate program with the virtio devices under accel (kvm: a 1 MiB
 * region, as test-migration's, since every timer tick is an exit there).
 */
static QemuVm *start_kit_accel(const char *accel, const char *guest,
                               const char *extra, const char *incoming)
{
    g_autofree char *words = g_strdup_printf(
        "-M pc -accel %s -m 128M -display none -nodefaults -d guest_ram "
        "-device virtio-rng-pci -netdev user,id=n0 "
        "-device virtio-net-pci,netdev=n0 -device virtio-balloon-pci %s",
        accel, extra);

    return start_guest(words, guest,
                       strcmp(accel, "kvm") ? "mib=16" : "mib=1", incoming);
}

static QemuVm *start_kit(const char *guest, const char *extra,
                         const char *incoming)
{
    return start_kit_accel("tcg", guest, extra, incoming);
}

static void test_getfd(const void *data)
{
    const char *accel = data;
    g_autofree char *guest = NULL, *qmp2 = NULL, *extra = NULL;
    g_autofree char *in = NULL, *r = NULL, *s = NULL, *d = NULL;
    g_autofree char *e = NULL;
    int sv[2], mon;
    QemuVm *src, *dst;

    if (!vm_require_accel(accel)) {
        return;
    }
    guest = vm_require_guest_kit("migrate.elf");
    if (!guest) {
        return;
    }
    qmp2 = g_build_filename(tmpdir, "qmp2.sock", NULL);
    g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
    in = g_strdup_printf("fd:%d", sv[1]);
    dst = start_kit_accel(accel, guest, "", in);
    extra = g_strdup_printf("-qmp unix:%s,server=on,wait=off", qmp2);
    src = start_kit_accel(accel, guest, extra, NULL);
    close(sv[1]);
    g_assert_true(vm_wait_serial(src, " ok ", 2));
    mon = raw_connect(qmp2);

    r = raw_command(mon, "{\"execute\": \"getfd\", \"arguments\": "
                    "{\"fdname\": \"mig\"}}\n", -1);
    g_assert_nonnull(strstr(r, "No file descriptor supplied via "
                            "SCM_RIGHTS"));
    g_free(r);
    r = raw_command(mon, "{\"execute\": \"getfd\", \"arguments\": "
                    "{\"fdname\": \"1mig\"}}\n", sv[0]);
    g_assert_nonnull(strstr(r, "Parameter 'fdname' expects a name not "
                            "starting with a digit"));
    g_free(r);
    r = raw_command(mon, "{\"execute\": \"closefd\", \"arguments\": "
                    "{\"fdname\": \"nothere\"}}\n", -1);
    g_assert_nonnull(strstr(r, "File descriptor named 'nothere' not "
                            "found"));
    g_free(r);
    r = raw_command(mon, "{\"execute\": \"getfd\", \"arguments\": "
                    "{\"fdname\": \"mig\"}}\n", sv[0]);
    g_assert_nonnull(strstr(r, "\"return\": {}"));
    close(sv[0]);
    g_free(r);
    /* The name is this monitor's: the VM's other monitor has none. */
    e = vm_qmp_error(src, "{\"execute\": \"migrate\", \"arguments\": "
                     "{\"uri\": \"fd:mig\"}}");
    g_assert_cmpstr(e, ==, "File descriptor named 'mig' has not been found");
    g_free(e);
    e = vm_qmp_error(src, "{\"execute\": \"closefd\", \"arguments\": "
                     "{\"fdname\": \"mig\"}}");
    g_assert_cmpstr(e, ==, "File descriptor named 'mig' not found");
    /* It stays with the monitor when its client reconnects. */
    close(mon);
    mon = raw_connect(qmp2);
    r = raw_command(mon, "{\"execute\": \"migrate\", \"arguments\": "
                    "{\"uri\": \"fd:mig\"}}\n", -1);
    g_assert_nonnull(strstr(r, "\"return\": {}"));
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    g_free(r);
    /* migrate took the descriptor: the name is gone. */
    r = raw_command(mon, "{\"execute\": \"closefd\", \"arguments\": "
                    "{\"fdname\": \"mig\"}}\n", -1);
    g_assert_nonnull(strstr(r, "File descriptor named 'mig' not found"));
    close(mon);

    /* The destination goes on scanning where the source stopped. */
    s = vm_serial(src);
    if (!vm_wait_serial(dst, " ok ", 2)) {
        g_test_message("destination stderr:\n%s", vm_stderr(dst));
    }
    g_assert_true(vm_wait_serial(dst, " ok ", 2));
    d = vm_serial(dst);
    g_assert_null(strstr(d, "BAD"));
    g_assert_null(strstr(s, "BAD"));
    g_assert_nonnull(strstr(d, "migrate: scan "));
    vm_quit(src);
    vm_quit(dst);
    vm_free(src);
    vm_free(dst);
    g_unlink(qmp2);
}

/* A device without a table is still refused, by name. */
static void test_refused(void)
{
    g_autofree char *guest = NULL, *e = NULL;
    QemuVm *vm;

    if (!vm_require_accel("tcg")) {
        return;
    }
    guest = vm_require_guest_kit("migrate.elf");
    if (!guest) {
        return;
    }
    vm = start_kit(guest, "-device edu", NULL);
    e = vm_qmp_error(vm, "{\"execute\": \"migrate\", \"arguments\": "
                     "{\"uri\": \"exec:cat > /dev/null\"}}");
    g_assert_cmpstr(e, ==, "device 'edu' cannot migrate yet (no state "
                    "table)");
    vm_quit(vm);
    vm_free(vm);
}

/* --- image locks ------------------------------------------------------------ */

/*
 * Both processes open the same image with its locks on (the default):
 * the destination opens it without them, the source gives them up at
 * the switch-over and the destination takes them before it runs, so
 * the source's `cont` is refused while the destination lives and
 * allowed once it is gone.
 */
/* A 1 MiB raw image of zeros in dir. */
static char *empty_image(const char *dir)
{
    char *image = g_build_filename(dir, "disk.raw", NULL);
    FILE *f = fopen(image, "w");

    g_assert_nonnull(f);
    g_assert_cmpint(ftruncate(fileno(f), 1 << 20), ==, 0);
    fclose(f);
    return image;
}

/*
 * The image-locks cases' guest program and an empty image in a new dir;
 * false (skipped) without tcg or the guest.
 */
static bool locks_setup(char **guest, char **dir, char **image)
{
    if (!vm_require_accel("tcg")) {
        return false;
    }
    *guest = vm_require_guest_kit("migrate.elf");
    if (!*guest) {
        return false;
    }
    *dir = g_dir_make_tmp("mig-locks-XXXXXX", NULL);
    *image = empty_image(*dir);
    return true;
}

static void test_image_locks(void)
{
    g_autofree char *guest = NULL, *dir = NULL, *image = NULL;
    g_autofree char *extra = NULL, *in = NULL, *e = NULL;
    g_autofree char *status = NULL;
    QemuVm *src, *dst;

    if (!locks_setup(&guest, &dir, &image)) {
        return;
    }
    extra = g_strdup_printf("-drive file=%s,format=raw,if=none,id=d0 "
                            "-device virtio-blk-pci,drive=d0", image);
    in = g_strdup_printf("unix:%s/mig.sock", dir);

    /* The destination starts while the source holds the locks. */
    dst = start_kit(guest, extra, in);
    src = start_kit(guest, extra, NULL);
    g_assert_true(vm_wait_serial(src, "migrate: ", 1));
    migrate_completed(src, in);
    g_assert_true(vm_wait_status(dst, "running", MIG_TIMEOUT_S));

    e = vm_qmp_error(src, "cont");
    g_assert_nonnull(strstr(e, "Failed to get \"write\" lock"));
    status = vm_status(src);
    g_assert_cmpstr(status, ==, "postmigrate");

    vm_quit(dst);
    vm_free(dst);
    vm_qmp_ok(src, "cont");
    g_assert_true(vm_wait_status(src, "running", MIG_TIMEOUT_S));
    vm_quit(src);
    vm_free(src);
    g_unlink(image);
    g_rmdir(dir);
}

/*
 * The destination cannot take the locks (a third process holds the
 * image; the source ran with locking off): it says so in one line,
 * stays paused with the migration completed, and `cont` takes them once
 * the holder is gone.
 */
static void test_image_locks_taken(void)
{
    g_autofree char *guest = NULL, *dir = NULL, *image = NULL;
    g_autofree char *drive = NULL, *unlocked = NULL, *in = NULL;
    g_autofree char *e = NULL, *status = NULL, *mig = NULL;
    QemuVm *holder, *src, *dst;

    if (!locks_setup(&guest, &dir, &image)) {
        return;
    }
    drive = g_strdup_printf("-drive file=%s,format=raw,if=none,id=d0 "
                            "-device virtio-blk-pci,drive=d0", image);
    unlocked = g_strdup_printf("-drive file=%s,format=raw,if=none,id=d0,"
                               "file.locking=off "
                               "-device virtio-blk-pci,drive=d0", image);
    in = g_strdup_printf("unix:%s/mig.sock", dir);

    holder = start_kit(guest, drive, NULL);
    dst = start_kit(guest, drive, in);
    src = start_kit(guest, unlocked, NULL);
    g_assert_true(vm_wait_serial(src, "migrate: ", 1));
    migrate_completed(src, in);
    for (int i = 0; i < MIG_TIMEOUT_S * 20; i++) {
        g_free(mig);
        mig = vm_migrate_status(dst);
        if (!strcmp(mig, "completed")) {
            break;
        }
        g_usleep(50 * 1000);
    }
    g_assert_cmpstr(mig, ==, "completed");
    status = vm_status(dst);
    g_assert_cmpstr(status, ==, "paused");
    g_assert_nonnull(strstr(vm_stderr(dst), "the destination could not "
                            "take the image locks: Failed to get "
                            "\"write\" lock"));
    e = vm_qmp_error(dst, "cont");
    g_assert_nonnull(strstr(e, "Failed to get \"write\" lock"));

    vm_quit(holder);
    vm_free(holder);
    vm_qmp_ok(dst, "cont");
    g_assert_true(vm_wait_status(dst, "running", MIG_TIMEOUT_S));
    vm_quit(dst);
    vm_free(dst);
    vm_quit(src);
    vm_free(src);
    g_unlink(image);
    g_rmdir(dir);
}

/* --- a crafted queue size ------------------------------------------------- */

/*
 * In the state section of name, the first queue's size (after the
 * config vector 0xffff and the queue count 1 of a reset device) becomes
 * size, and the section's CRC32C is made to fit. False: no such section.
 */
static bool patch_queue_size(uint8_t *data, size_t len, const char *name,
                             uint16_t size)
{
    static const uint8_t mark[] = { 0xff, 0xff, 1, 0, 0, 0 };
    size_t off = 8;

    while (off + 2 <= len) {
        size_t nlen = data[off + 1], hdr = 2 + nlen + 12;
        uint32_t plen, crc;

        g_assert_cmpuint(off + hdr, <=, len);
        memcpy(&plen, data + off + 2 + nlen + 8, 4);
        plen = GUINT32_FROM_LE(plen);
        g_assert_cmpuint(off + hdr + plen + 4, <=, len);
        if (data[off] == 3 && nlen == strlen(name) &&
            !memcmp(data + off + 2, name, nlen)) {
            uint8_t *pl = data + off + hdr;

            for (size_t i = 0; i + sizeof(mark) + 2 <= plen; i++) {
                if (!memcmp(pl + i, mark, sizeof(mark))) {
                    pl[i + sizeof(mark)] = size;
                    pl[i + sizeof(mark) + 1] = size >> 8;
                    crc = GUINT32_TO_LE(vm_crc32c(data + off, hdr + plen));
                    memcpy(data + off + hdr + plen, &crc, 4);
                    return true;
                }
            }
            return false;
        }
        off += hdr + plen + 4;
    }
    return false;
}

static void test_bad_queue(void)
{
    g_autofree char *guest = NULL, *file = NULL, *out = NULL, *cmd = NULL;
    g_autofree char *in = NULL;
    g_autofree uint8_t *data = NULL;
    GPtrArray *args;
    QemuVm *src;
    VmRun run;
    gsize len;

    if (!vm_require_accel("tcg")) {
        return;
    }
    guest = vm_require_guest_kit("migrate.elf");
    if (!guest) {
        return;
    }
    file = g_build_filename(tmpdir, "bad-queue.mig", NULL);
    src = start_kit(guest, "", NULL);
    g_assert_true(vm_wait_serial(src, " ok ", 1));
    cmd = g_strdup_printf("file:%s", file);
    migrate_completed(src, cmd);
    vm_quit(src);
    vm_free(src);

    g_assert_true(g_file_get_contents(file, (char **)&data, &len, NULL));
    g_assert_true(patch_queue_size(data, len, "virtio-rng-pci", 12));
    g_assert_true(g_file_set_contents(file, (char *)data, len, NULL));
    in = g_strdup_printf("file:%s", file);
    args = vm_args_new("-M pc -accel tcg -m 128M -display none -nodefaults "
                       "-device virtio-rng-pci -netdev user,id=n0 "
                       "-device virtio-net-pci,netdev=n0 "
                       "-device virtio-balloon-pci");
    vm_args_add(args, "-kernel");
    vm_args_add(args, guest);
    vm_args_add(args, "-incoming");
    vm_args_add(args, in);
    run = vm_run(args, 0, MIG_TIMEOUT_S);
    g_ptr_array_unref(args);
    g_assert_true(WIFEXITED(run.status));
    g_assert_cmpint(WEXITSTATUS(run.status), ==, 1);
    g_assert_cmpstr(run.err, ==, "qemu-system-x86_64: load of migration "
                    "failed: virtio-rng-pci instance 0: field "
                    "'proxy.vdev.vq[0].num': queue size 12 (a power of 2, "
                    "at most 8)\n");
    vm_run_free(&run);
    g_unlink(file);
}

/* --- virtio-blk's ioeventfds under kvm ------------------------------------ */

static char *pciio_image(void)
{
    char *path = g_build_filename(tmpdir, "pciio.img", NULL);
    g_autofree char *data = g_malloc0(1 << 20);

    memcpy(data + 512, "pciio sector 1", 14);
    g_assert_true(g_file_set_contents(path, data, 1 << 20, NULL));
    return path;
}

static QemuVm *start_pciio(const char *kernel, const char *img,
                           const char *incoming)
{
    g_autofree char *words = g_strdup_printf(
        "-M pc -accel kvm -m 512M -display none -nodefaults -d notify "
        "-drive file=%s,format=raw,if=none,id=d0 "
        "-device virtio-blk-pci,drive=d0,disable-legacy=on", img);

    return start_guest(words, kernel, "loop=1", incoming);
}

/* The last whole "pciio: round N ok" line in out, 0 without one. */
static unsigned last_round(const char *out)
{
    unsigned n = 0, v;
    char end;

    for (const char *p = strstr(out, "pciio: round "); p;
         p = strstr(p + 1, "pciio: round ")) {
        if (sscanf(p, "pciio: round %u ok%c", &v, &end) == 2 &&
            end == '\n') {
            n = v;
        }
    }
    return n;
}

static void test_kvm_blk_ioeventfd(void)
{
    g_autofree char *kernel = NULL, *img = NULL, *sock = NULL, *in = NULL;
    g_autofree char *s = NULL, *d = NULL, *data = NULL;
    const char *line;
    unsigned src_round, kicks_fd, kicks_exit, have;
    QemuVm *src, *dst;
    gsize len;

    if (!vm_require_accel("kvm") ||
        !(kernel = vm_require_guest_kit("pciio.elf"))) {
        return;
    }
    img = pciio_image();
    sock = g_build_filename(tmpdir, "blk.sock", NULL);
    in = g_strdup_printf("unix:%s", sock);
    dst = start_pciio(kernel, img, in);
    src = start_pciio(kernel, img, NULL);
    g_assert_true(vm_wait_serial(src, "pciio: round ", 4));
    migrate_completed(src, in);
    log_migration(src);
    s = vm_serial(src);
    src_round = last_round(s);
    g_assert_cmpuint(src_round, >, 0);
    /* Whole lines only: the last one counted may be half written. */
    have = vm_serial_count(dst, "pciio: round ");
    g_assert_true(vm_wait_serial(dst, "pciio: round ", have + 5));
    d = vm_serial(dst);
    g_assert_null(strstr(d, "FAIL"));
    g_assert_null(strstr(d, "virtio-blk-pci at"));  /* no new start */
    g_assert_cmpuint(last_round(d), >, src_round + 32);
    vm_quit(src);
    vm_quit(dst);
    /* The destination's kicks: every one through an ioeventfd. */
    line = strstr(vm_stderr(dst), "notify: virtio-blk-pci ");
    g_assert_nonnull(line);
    line = strchr(line, ':');
    line = strchr(line + 1, ':');
    g_assert_cmpint(sscanf(line, ": %u kicks by ioeventfd, %u by MMIO exit",
                           &kicks_fd, &kicks_exit), ==, 2);
    g_test_message("destination: %u kicks by ioeventfd, %u by MMIO exit "
                   "after round %u", kicks_fd, kicks_exit, src_round);
    g_assert_cmpuint(kicks_exit, ==, 0);
    g_assert_cmpuint(kicks_fd, >, 64);
    /* Sector 2 holds a round the destination wrote (all bytes agree). */
    g_assert_true(g_file_get_contents(img, &data, &len, NULL));
    for (unsigned i = 1; i < 512; i++) {
        g_assert_cmpuint((uint8_t)(data[1024 + i] - data[1024]), ==,
                         (uint8_t)i);
    }
    vm_free(src);
    vm_free(dst);
    g_unlink(img);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-migration-virtio-XXXXXX", NULL);
    g_test_add_func("/migration/virtio/linux-blk", test_linux_blk);
    g_test_add_data_func("/migration/virtio/getfd", "tcg", test_getfd);
    g_test_add_data_func("/migration/virtio/kvm/getfd", "kvm", test_getfd);
    g_test_add_func("/migration/virtio/kvm/blk-ioeventfd",
                    test_kvm_blk_ioeventfd);
    g_test_add_func("/migration/virtio/refused", test_refused);
    g_test_add_func("/migration/virtio/image-locks", test_image_locks);
    g_test_add_func("/migration/virtio/image-locks-taken",
                    test_image_locks_taken);
    g_test_add_func("/migration/virtio/bad-queue", test_bad_queue);
    ret = g_test_run();
    g_rmdir(tmpdir);
    g_free(tmpdir);
    return ret;
}
