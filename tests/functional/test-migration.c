/*
 * Live migration between two of our processes under tcg and kvm, with
 * the guest kit's "migrate" program (a running checksum of 16 MiB, 1 MiB
 * under kvm, it keeps rewriting, LAPIC and PIT ticks, a line per scan):
 *   /migration/unix    -incoming defer + migrate-incoming, the events
 *                      capability, pause-before-switchover + migrate-continue
 *   /migration/tcp     -incoming tcp:, a bandwidth limit the guest's
 *                      dirtying needs several passes under
 *   /migration/exec    migrate "exec:cat > F", -incoming "exec:cat F"
 *   /migration/file    migrate file:F, -incoming file:F
 *   /migration/fd      a socket pair both processes inherit; the destination
 *                      has -S: paused once loaded, running after cont
 *   /migration/cancel  migrate_cancel: the source runs on, the destination
 *                      refuses the cut stream and exits 1
 *   /migration/kvm/unix, tcp, exec, file, fd  the same under kvm: the
 *                      vCPUs' registers, MSRs, LAPIC, events and MP state,
 *                      the in-kernel PICs, IOAPIC and PIT and the clock
 *                      move (the ticks go on counting on the destination)
 *   /migration/kvm/other-accel  a kvm stream into a tcg destination and a
 *                      tcg one into kvm: refused, naming both accelerators
 *   /migration/kvm/bad-fields  a kvm stream with a segment type, RFLAGS,
 *                      the PIT's mode or the IOAPIC's register select no
 *                      guest could set: refused naming device and field
 *   /migration/linux   Debian's Linux migrated mid-boot finishes its boot
 *                      on the destination and powers off (exit 0)
 *   /migration/bad-streams  a stream cut at every section boundary, a bit
 *                      flip, a future version, a field out of range, a
 *                      random file and QEMU 7.2's own stream: each refused
 *                      with one line, exit status 1, RAM torn down
 * In each good case the scans continue on the destination with the next
 * number and a sound checksum, the ticks keep counting, and the source
 * exits 0 after quit with its teardown logged (-d guest_ram).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-host.h"
#include "qemu-vm.h"

#define QEMU72 "/usr/bin/qemu-system-x86_64"
#define MIG_TIMEOUT_S 60

static char *tmpdir;
static char *guest;
/* The accelerator of the case under way. */
static const char *accel = "tcg";

/*
 * The migrate program's region: under kvm on a nested host (kvm_pvm)
 * every timer interrupt is an exit and a 16 MiB scan takes ~13 s.
 */
static unsigned guest_mib(void)
{
    return strcmp(accel, "kvm") ? 16 : 1;
}

/*
 * The case runs under want, which works, and the guest program exists;
 * else skip, saying why.
 */
static bool need(const char *want)
{
    accel = want;
    if (!vm_require_accel(accel)) {
        return false;           /* it skipped with the reason */
    }
    if (!guest) {
        g_test_skip("the guest kit's migrate.elf was not built");
        return false;
    }
    return true;
}

/* extra: space-separated words; incoming: one word (it may hold spaces). */
static QemuVm *start_vm_incoming(const char *mem, const char *extra,
                                 const char *incoming)
{
    char *words = g_strdup_printf("-M pc -accel %s -m %s -display none "
                                  "-nodefaults -d guest_ram %s", accel, mem,
                                  extra);
    char *append = g_strdup_printf("mib=%u", guest_mib());
    GPtrArray *args = vm_args_new(words);
    QemuVm *vm;

    vm_args_add(args, "-kernel");
    vm_args_add(args, guest);
    vm_args_add(args, "-append");
    vm_args_add(args, append);
    if (incoming) {
        vm_args_add(args, "-incoming");
        vm_args_add(args, incoming);
    }
    vm = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);
    g_free(append);
    g_free(words);
    return vm;
}

static QemuVm *start_vm(const char *mem, const char *extra)
{
    return start_vm_incoming(mem, extra, NULL);
}

static JsonObject *qmp_return_object(QemuVm *vm, const char *cmd)
{
    JsonNode *r = vm_qmp_return(vm, cmd);
    JsonObject *o = json_object_ref(json_node_get_object(r));

    json_node_unref(r);
    return o;
}

static void check_ram_stats(QemuVm *src, uint64_t total)
{
    JsonObject *o = qmp_return_object(src, "query-migrate");
    JsonObject *ram = json_object_get_object_member(o, "ram");

    g_assert_cmpstr(json_object_get_string_member(o, "status"), ==,
                    "completed");
    g_assert_cmpint(json_object_get_int_member(ram, "total"), ==, total);
    g_assert_cmpint(json_object_get_int_member(ram, "remaining"), ==, 0);
    /* At least the guest's region: it rewrites all of it. */
    g_assert_cmpint(json_object_get_int_member(ram, "normal"), >,
                    guest_mib() * 256);
    g_assert_cmpint(json_object_get_int_member(ram, "duplicate"), >, 0);
    g_assert_cmpint(json_object_get_int_member(ram, "transferred"), >=,
                    json_object_get_int_member(ram, "normal-bytes"));
    g_assert_cmpint(json_object_get_int_member(ram, "dirty-sync-count"), >=,
                    2);
    g_assert_true(json_object_has_member(o, "downtime"));
    g_assert_true(json_object_has_member(o, "total-time"));
    g_test_message("ram: %" G_GINT64_FORMAT " bytes, %" G_GINT64_FORMAT
                   " zero pages, %" G_GINT64_FORMAT " syncs, total %"
                   G_GINT64_FORMAT " ms, downtime %" G_GINT64_FORMAT " ms",
                   json_object_get_int_member(ram, "transferred"),
                   json_object_get_int_member(ram, "duplicate"),
                   json_object_get_int_member(ram, "dirty-sync-count"),
                   json_object_get_int_member(o, "total-time"),
                   json_object_get_int_member(o, "downtime"));
    json_object_unref(o);
}

/* quit: status 0, and the teardown of guest RAM was logged. */
static void quit_with_teardown(QemuVm *vm)
{
    vm_quit(vm);
    g_assert_nonnull(strstr(vm_stderr(vm), "guest_ram: 'pc.ram'"));
}

/* After the switch-over: the destination goes on, the source is done. */
static void check_switched(QemuVm *src, QemuVm *dst)
{
    char *s, *d;
    unsigned have;

    g_assert_true(vm_wait_status(dst, "running", MIG_TIMEOUT_S));
    {
        char *st = vm_status(src);

        g_assert_cmpstr(st, ==, "postmigrate");
        g_free(st);
    }
    check_ram_stats(src, 128 << 20);
    s = vm_serial(src);
    have = vm_serial_count(dst, " ok ");
    /*
     * The first " ok " may end a line the source began, the last one be
     * in a line still being written: three whole lines need five.
     */
    g_assert_true(vm_wait_serial(dst, " ok ", have + 5));
    d = vm_serial(dst);
    vm_check_migrate_scans(s, d, 3);
    g_free(s);
    g_free(d);
}

static void finish(QemuVm *src, QemuVm *dst)
{
    check_switched(src, dst);
    quit_with_teardown(src);
    quit_with_teardown(dst);
    vm_free(src);
    vm_free(dst);
}

static void wait_scans(QemuVm *vm, unsigned n)
{
    g_assert_true(vm_wait_serial(vm, " ok ", n));
}

static void test_unix(const void *data)
{
    char *sock = g_build_filename(tmpdir, "mig.sock", NULL);
    QemuVm *src, *dst;
    JsonNode *caps;
    char *cmd, *text;

    if (!need(data)) {
        return;
    }
    dst = start_vm("128M", "-incoming defer");
    {
        char *st = vm_status(dst);

        g_assert_cmpstr(st, ==, "inmigrate");
        g_free(st);
    }
    cmd = g_strdup_printf("{\"execute\": \"migrate-incoming\", \"arguments\":"
                          " {\"uri\": \"unix:%s\"}}", sock);
    vm_qmp_ok(dst, cmd);
    src = start_vm("128M", "");
    wait_scans(src, 3);
    vm_qmp_ok(src, "{\"execute\": \"migrate-set-capabilities\", \"arguments\": "
           "{\"capabilities\": [{\"capability\": \"events\", \"state\": true},"
           " {\"capability\": \"pause-before-switchover\", \"state\": true}]}}");
    caps = vm_qmp_return(src, "query-migrate-capabilities");
    text = json_to_string(caps, FALSE);
    g_assert_nonnull(strstr(text, "{\"capability\":\"events\",\"state\":"
                            "true}"));
    g_assert_nonnull(strstr(text, "{\"capability\":\"postcopy-ram\","
                            "\"state\":false}"));
    g_free(text);
    json_node_unref(caps);
    g_free(cmd);
    cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                          "{\"uri\": \"unix:%s\"}}", sock);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_event(src, "MIGRATION_PASS"));
    g_assert_true(vm_wait_migrate_status(src, "pre-switchover", MIG_TIMEOUT_S));
    {
        char *st = vm_status(src);

        g_assert_cmpstr(st, ==, "finish-migrate");
        g_free(st);
    }
    vm_qmp_ok(src, "{\"execute\": \"migrate-continue\", \"arguments\": "
           "{\"state\": \"pre-switchover\"}}");
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    g_assert_true(vm_wait_event(src, "MIGRATION"));
    finish(src, dst);
    g_free(cmd);
    g_free(sock);
}

/*
 * Guest RAM in a memfd (share=on): the destination must not read the
 * pages the source marks as zero into existence, since a read fault on
 * shared memory allocates; it ends up holding what the guest touched
 * (its 16 MiB region and the program), not the whole 128 MiB.
 */
static void test_memfd_sparse(void)
{
    const char *mem = "-object memory-backend-memfd,id=m,size=128M,share=on "
                      "-machine memory-backend=m";
    char *sock = g_build_filename(tmpdir, "mig-memfd.sock", NULL);
    char *uri = g_strdup_printf("unix:%s", sock);
    char *cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                                "{\"uri\": \"%s\"}}", uri);
    QemuVm *src, *dst;
    long shmem_kb;

    if (!need("tcg")) {
        return;
    }
    dst = start_vm_incoming("128M", mem, uri);
    src = start_vm("128M", mem);
    wait_scans(src, 2);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    g_assert_true(vm_wait_status(dst, "running", MIG_TIMEOUT_S));
    shmem_kb = proc_status_kb(vm_pid(dst), "RssShmem");
    g_test_message("destination RssShmem %ld KiB of 131072", shmem_kb);
    g_assert_cmpint(shmem_kb, >, 12 << 10);
    g_assert_cmpint(shmem_kb, <, 64 << 10);
    check_switched(src, dst);
    /* A memfd's teardown is the discard helper's, logged after exit. */
    vm_quit(src);
    vm_quit(dst);
    vm_free(src);
    vm_free(dst);
    g_free(cmd);
    g_free(uri);
    g_free(sock);
}

static void test_tcp(const void *data)
{
    int port = vm_free_tcp_port();
    char *extra, *cmd;
    QemuVm *src, *dst;

    if (!need(data)) {
        return;
    }
    extra = g_strdup_printf("-incoming tcp:127.0.0.1:%d", port);
    dst = start_vm("128M", extra);
    src = start_vm("128M", "");
    wait_scans(src, 3);
    /* 64 MiB/s: the first pass alone takes 0.5 s of the guest's dirtying. */
    vm_qmp_ok(src, "{\"execute\": \"migrate-set-parameters\", \"arguments\": "
           "{\"max-bandwidth\": 67108864, \"downtime-limit\": 300}}");
    cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                          "{\"uri\": \"tcp:127.0.0.1:%d\"}}", port);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    finish(src, dst);
    g_free(cmd);
    g_free(extra);
}

/* Source first (to a file or a command), then the destination reads it. */
static void test_via_file(const char *want, const char *out_uri,
                          const char *in_uri)
{
    char *cmd;
    QemuVm *src, *dst;

    if (!need(want)) {
        return;
    }
    src = start_vm("128M", "");
    wait_scans(src, 3);
    cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                          "{\"uri\": \"%s\"}}", out_uri);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    dst = start_vm_incoming("128M", "", in_uri);
    finish(src, dst);
    g_free(cmd);
}

static void test_exec(const void *data)
{
    char *f = g_build_filename(tmpdir, "exec.mig", NULL);
    char *out = g_strdup_printf("exec:cat > %s", f);
    char *in = g_strdup_printf("exec:cat %s", f);

    test_via_file(data, out, in);
    g_unlink(f);
    g_free(in);
    g_free(out);
    g_free(f);
}

static void test_file(const void *data)
{
    char *f = g_build_filename(tmpdir, "file.mig", NULL);
    char *uri = g_strdup_printf("file:%s", f);

    test_via_file(data, uri, uri);
    g_unlink(f);
    g_free(uri);
    g_free(f);
}

/*
 * fd: both ends of a socket pair the processes inherit; the destination
 * has -S, so it pauses once loaded and runs on cont.
 */
static void test_fd(const void *data)
{
    int sv[2];
    char *in, *cmd;
    QemuVm *src, *dst;

    if (!need(data)) {
        return;
    }
    g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
    in = g_strdup_printf("fd:%d", sv[1]);
    dst = start_vm_incoming("128M", "-S", in);
    src = start_vm("128M", "");
    close(sv[1]);
    wait_scans(src, 3);
    cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                          "{\"uri\": \"fd:%d\"}}", sv[0]);
    vm_qmp_ok(src, cmd);
    close(sv[0]);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    g_assert_true(vm_wait_status(dst, "paused", MIG_TIMEOUT_S));
    vm_qmp_ok(dst, "{\"execute\": \"cont\"}");
    finish(src, dst);
    g_free(cmd);
    g_free(in);
}

static void test_cancel(void)
{
    char *sock = g_build_filename(tmpdir, "cancel.sock", NULL);
    char *extra = g_strdup_printf("-incoming unix:%s", sock);
    char *cmd, *st;
    unsigned have;
    QemuVm *src, *dst;
    int status;

    if (!need("tcg")) {
        return;
    }
    dst = start_vm("128M", extra);
    src = start_vm("128M", "");
    wait_scans(src, 2);
    vm_qmp_ok(src, "{\"execute\": \"migrate-set-parameters\", \"arguments\": "
           "{\"max-bandwidth\": 1048576}}");
    cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                          "{\"uri\": \"unix:%s\"}}", sock);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "active", MIG_TIMEOUT_S));
    g_usleep(500 * 1000);
    {
        /* 1 MiB/s: at most a slice and a section (1 MiB) ahead. */
        JsonObject *o = qmp_return_object(src, "query-migrate");
        JsonObject *ram = json_object_get_object_member(o, "ram");
        int64_t ms = json_object_get_int_member(o, "total-time");
        int64_t sent = json_object_get_int_member(ram, "transferred");

        g_test_message("%" G_GINT64_FORMAT " bytes in %" G_GINT64_FORMAT
                       " ms at 1 MiB/s", sent, ms);
        g_assert_cmpint(sent, >, 0);
        g_assert_cmpint(sent, <=, ms * 1048576 / 1000 + 2 * 1048576);
        json_object_unref(o);
    }
    vm_qmp_ok(src, "{\"execute\": \"migrate_cancel\"}");
    g_assert_true(vm_wait_migrate_status(src, "cancelled", MIG_TIMEOUT_S));
    st = vm_status(src);
    g_assert_cmpstr(st, ==, "running");
    g_free(st);
    have = vm_serial_count(src, " ok ");
    g_assert_true(vm_wait_serial(src, " ok ", have + 2));
    status = vm_wait(dst, 30);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_nonnull(strstr(vm_stderr(dst), "qemu-system-x86_64: load of "
                            "migration failed: the stream ends inside "));
    g_assert_nonnull(strstr(vm_stderr(dst), "guest_ram: 'pc.ram'"));
    quit_with_teardown(src);
    vm_free(src);
    vm_free(dst);
    g_free(cmd);
    g_free(extra);
    g_free(sock);
}

/*
 * Debian's Linux (the guest kit's bzImage and busybox initramfs) migrated
 * mid-boot, once its console has printed 100 lines (timers, interrupts
 * and the initramfs unpacking under way): the destination carries on
 * from there, without starting over, to init's poweroff, and exits 0.
 */
static void test_linux(void)
{
    char *sock = g_build_filename(tmpdir, "linux.sock", NULL);
    char *kernel = vm_require_linux_guest("bzImage");
    char *initrd = kernel ? vm_require_linux_guest("initramfs.cpio") : NULL;
    char *words, *in, *cmd;
    GPtrArray *args;
    QemuVm *src, *dst;

    if (HAVE_SANITIZERS) {
        /* Measured: no console line within 180 s under ASan + UBSan. */
        g_test_skip("Linux boots too slowly under the sanitizers' tcg; the "
                    "guest-kit cases cover migration there");
    }
    if (!initrd || !vm_require_accel("tcg") || HAVE_SANITIZERS) {
        g_free(initrd);
        g_free(kernel);
        g_free(sock);
        return;
    }
    words = g_strdup_printf("-M pc -accel tcg -m 256M -display none "
                            "-no-reboot -d guest_ram -kernel %s -initrd %s",
                            kernel, initrd);
    in = g_strdup_printf("unix:%s", sock);
    args = vm_args_new(words);
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 panic=-1");
    vm_args_add(args, "-incoming");
    vm_args_add(args, in);
    dst = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);
    args = vm_args_new(words);
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 panic=-1");
    src = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);
    /* The console starts late under tcg (later still with sanitizers). */
    for (unsigned i = 0; i < vm_linux_boot_timeout_s(180) * 10 &&
         vm_serial_count(src, "\n") < 100; i++) {
        g_usleep(100 * 1000);
    }
    g_test_message("migrating after %u lines", vm_serial_count(src, "\n"));
    g_assert_cmpuint(vm_serial_count(src, "\n"), >=, 100);
    cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                          "{\"uri\": \"%s\"}}", in);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    vm_expect_linux_resumed_poweroff(dst);
    g_assert_nonnull(strstr(vm_stderr(dst), "guest_ram: 'pc.ram'"));
    quit_with_teardown(src);
    vm_free(src);
    vm_free(dst);
    g_free(cmd);
    g_free(in);
    g_free(words);
    g_free(initrd);
    g_free(kernel);
    g_free(sock);
}

/* --- bad streams -------------------------------------------------------- */

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Run a destination under the case's accelerator on file f: exit status
 * 1, one line, RAM torn down.
 */
static void expect_refused(const char *f, const char *what)
{
    char *words = g_strdup_printf("-M pc -accel %s -m 32M -display none "
                                  "-nodefaults -d guest_ram -kernel", accel);
    GPtrArray *args = vm_args_new(words);
    char *incoming = g_strdup_printf("file:%s", f);
    char **lines;
    VmRun r;

    g_free(words);
    vm_args_add(args, guest);
    vm_args_add(args, "-incoming");
    vm_args_add(args, incoming);
    r = vm_run(args, 0, 30);
    g_assert_true(WIFEXITED(r.status));
    g_assert_cmpint(WEXITSTATUS(r.status), ==, 1);
    lines = g_strsplit(r.err, "\n", -1);
    g_assert_true(g_str_has_prefix(lines[0], "qemu-system-x86_64: load of "
                                   "migration failed: "));
    if (what && !strstr(lines[0], what)) {
        g_error("'%s' does not say '%s'", lines[0], what);
    }
    g_assert_true(g_str_has_prefix(lines[1], "guest_ram: 'pc.ram'"));
    g_strfreev(lines);
    vm_run_free(&r);
    g_ptr_array_unref(args);
    g_free(incoming);
}

static void write_file(const char *f, const void *data, size_t len)
{
    GError *err = NULL;

    g_assert_true(g_file_set_contents(f, data, len, &err));
}

/* A good stream of a paused 32 MiB machine. */
static GBytes *good_stream(void)
{
    char *f = g_build_filename(tmpdir, "good.mig", NULL);
    char *cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                                "{\"uri\": \"file:%s\"}}", f);
    QemuVm *src = start_vm("32M", "");
    gchar *data;
    gsize len;

    wait_scans(src, 1);
    vm_qmp_ok(src, cmd);
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    vm_quit(src);
    vm_free(src);
    g_assert_true(g_file_get_contents(f, &data, &len, NULL));
    g_unlink(f);
    g_free(cmd);
    g_free(f);
    return g_bytes_new_take(data, len);
}

/* QEMU 7.2's stream of a paused machine, or NULL without it. */
static GBytes *qemu72_stream(void)
{
    char *f = g_build_filename(tmpdir, "qemu72.mig", NULL);
    char *cmd = g_strdup_printf("{\"execute\": \"migrate\", \"arguments\": "
                                "{\"uri\": \"exec:cat > %s\"}}", f);
    const char *saved = g_getenv("QTEST_QEMU_BINARY");
    char *saved_copy = g_strdup(saved);
    QemuVm *vm;
    gchar *data;
    gsize len;

    if (!g_file_test(QEMU72, G_FILE_TEST_IS_EXECUTABLE)) {
        return NULL;
    }
    g_setenv("QTEST_QEMU_BINARY", QEMU72, TRUE);
    vm = vm_startf(VM_QMP, "-M pc -accel tcg -m 32M -display none "
                   "-nodefaults -S");
    if (saved_copy) {
        g_setenv("QTEST_QEMU_BINARY", saved_copy, TRUE);
    } else {
        g_unsetenv("QTEST_QEMU_BINARY");
    }
    vm_qmp_ok(vm, cmd);
    g_assert_true(vm_wait_migrate_status(vm, "completed", MIG_TIMEOUT_S));
    vm_quit(vm);
    vm_free(vm);
    g_assert_true(g_file_get_contents(f, &data, &len, NULL));
    g_unlink(f);
    g_free(cmd);
    g_free(f);
    g_free(saved_copy);
    return g_bytes_new_take(data, len);
}

/* Offsets where sections start (the last is the end marker's). */
static GArray *section_offsets(const uint8_t *p, size_t len)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(size_t));
    size_t off = 8;

    while (off < len) {
        size_t name_len = p[off + 1];
        uint32_t plen = le32(p + off + 2 + name_len + 8);

        g_array_append_val(a, off);
        off += 2 + name_len + 12 + plen + 4;
    }
    g_assert_cmpuint(off, ==, len);
    return a;
}

/* The offset of state section name's payload and its length. */
static size_t find_state(const uint8_t *p, GArray *offs, const char *name,
                         uint32_t *plen)
{
    for (guint i = 0; i < offs->len; i++) {
        size_t off = g_array_index(offs, size_t, i);
        size_t name_len = p[off + 1];

        if (p[off] == 3 && name_len == strlen(name) &&
            !memcmp(p + off + 2, name, name_len)) {
            *plen = le32(p + off + 2 + name_len + 8);
            return off;
        }
    }
    g_assert_not_reached();
}

/*
 * Write good to f with n bytes at offset at of state section name's
 * payload replaced, and the section's checksum made to fit.
 */
static void write_patched(const char *f, GBytes *good, const char *name,
                          size_t at, const void *bytes, size_t n)
{
    size_t len, off, name_len, payload;
    const uint8_t *p = g_bytes_get_data(good, &len);
    GArray *offs = section_offsets(p, len);
    uint8_t *copy = g_memdup2(p, len);
    uint32_t plen, crc;

    off = find_state(copy, offs, name, &plen);
    name_len = copy[off + 1];
    payload = off + 2 + name_len + 12;
    g_assert_cmpuint(at + n, <=, plen);
    memcpy(copy + payload + at, bytes, n);
    crc = vm_crc32c(copy + off, 2 + name_len + 12 + plen);
    for (int i = 0; i < 4; i++) {
        copy[payload + plen + i] = crc >> (8 * i);
    }
    write_file(f, copy, len);
    g_free(copy);
    g_array_free(offs, TRUE);
}

static void test_bad_streams(void)
{
    char *f = g_build_filename(tmpdir, "bad.mig", NULL);
    GBytes *good, *qemu;
    const uint8_t *p;
    uint8_t *copy;
    size_t len, off;
    GArray *offs;

    if (!need("tcg")) {
        return;
    }
    good = good_stream();
    p = g_bytes_get_data(good, &len);
    offs = section_offsets(p, len);
    g_test_message("%u sections, %zu bytes", offs->len, len);
    /* Cut at every section boundary, and inside the header. */
    write_file(f, p, 5);
    expect_refused(f, "the stream ends before its header");
    for (guint i = 0; i < offs->len; i++) {
        write_file(f, p, g_array_index(offs, size_t, i));
        expect_refused(f, "before its end marker");
    }
    /* One bit flipped in the middle of a RAM section's payload. */
    copy = g_memdup2(p, len);
    off = g_array_index(offs, size_t, offs->len / 3);
    copy[off + 40] ^= 0x10;
    write_file(f, copy, len);
    expect_refused(f, "is corrupt: checksum");
    g_free(copy);
    /* A stream from a future version. */
    copy = g_memdup2(p, len);
    copy[4] = 2;
    write_file(f, copy, len);
    expect_refused(f, "stream version 2 is newer than this release's 1");
    g_free(copy);
    /* The PIT's channel 0 in mode 7, with a checksum that fits. */
    write_patched(f, good, "isa-pit", 0, "\x07", 1);
    expect_refused(f, "isa-pit instance 0: field 'ch[0].mode': value 7 is "
                   "out of range 0..5");
    /* Random bytes. */
    copy = g_malloc(4096);
    for (int i = 0; i < 4096; i++) {
        copy[i] = g_test_rand_int_range(0, 256);
    }
    copy[0] = 'R';
    write_file(f, copy, 4096);
    expect_refused(f, "not a migration stream");
    g_free(copy);
    /* QEMU 7.2's stream. */
    qemu = qemu72_stream();
    if (qemu) {
        const uint8_t *q = g_bytes_get_data(qemu, &len);

        g_assert_cmpmem(q, 4, "QEVM", 4);
        write_file(f, q, len);
        expect_refused(f, "this is a QEMU migration stream (magic QEVM)");
        g_bytes_unref(qemu);
    } else {
        g_test_message("no %s: QEMU 7.2's stream not checked", QEMU72);
    }
    g_array_free(offs, TRUE);
    g_bytes_unref(good);
    g_unlink(f);
    g_free(f);
}

/* A good stream of the case's accelerator in file f. */
static void good_stream_file(const char *f)
{
    GBytes *good = good_stream();
    size_t len;
    const uint8_t *p = g_bytes_get_data(good, &len);

    write_file(f, p, len);
    g_bytes_unref(good);
}

/* kvm's state in a tcg destination, tcg's in kvm: refused, both named. */
static void test_other_accel(void)
{
    char *f = g_build_filename(tmpdir, "other.mig", NULL);

    if (!need("kvm") || !need("tcg")) {
        g_free(f);
        return;
    }
    need("kvm");
    good_stream_file(f);
    accel = "tcg";
    expect_refused(f, "section 'kvmclock' is kvm's state, but this machine "
                   "runs tcg: migrate between the same accelerators");
    good_stream_file(f);
    accel = "kvm";
    expect_refused(f, "section 'cpu' is tcg's state, but this machine runs "
                   "kvm: migrate between the same accelerators");
    g_unlink(f);
    g_free(f);
}

/*
 * Where the fields are in the payloads (include/vmstate/vmstate.h's
 * encoding; a nested struct ends with its subsection count byte):
 * kvm-cpu starts with regs (RAX ... RIP, RFLAGS: 18 x 8 bytes), then
 * sregs.cs (base 8, limit 4, selector 2, type); kvm-pit with channel 0
 * (count 4, latched_count 2, six bytes, mode); kvm-ioapic with the two
 * PICs (16 bytes and the count each), then the IOAPIC (base_address 8,
 * ioregsel 4).
 */
#define KVM_CPU_RFLAGS_AT   (17 * 8)
#define KVM_CPU_CS_TYPE_AT  (18 * 8 + 14)
#define KVM_PIT_MODE_AT     13
#define KVM_IOREGSEL_AT     (2 * 17 + 8)

/* Values a guest cannot set, each refused naming device and field. */
static void test_kvm_bad_fields(void)
{
    static const struct {
        const char *section;
        size_t at, n;
        const char *bytes, *refusal;
    } cases[] = {
        { "kvm-cpu", KVM_CPU_CS_TYPE_AT, 1, "\x10",
          "kvm-cpu instance 0: field 'sregs.cs.type': value 16 is out of "
          "range 0..15" },
        { "kvm-cpu", KVM_CPU_RFLAGS_AT, 8, "\x02\0\0\0\0\0\0\x80",
          "kvm-cpu instance 0: field 'regs.rflags': 0x8000000000000002 has "
          "reserved bits wrong" },
        { "kvm-pit", KVM_PIT_MODE_AT, 1, "\x07",
          "kvm-pit instance 0: field 'pit.channels[0].mode': mode 7 is "
          "none of 0..5" },
        { "kvm-ioapic", KVM_IOREGSEL_AT, 4, "\0\x01\0\0",
          "kvm-ioapic instance 0: field 'ioapic.ioregsel': value 256 is out "
          "of range 0..255" },
    };
    char *f = g_build_filename(tmpdir, "kvm-bad.mig", NULL);
    GBytes *good;

    if (!need("kvm")) {
        g_free(f);
        return;
    }
    good = good_stream();
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        write_patched(f, good, cases[i].section, cases[i].at, cases[i].bytes,
                      cases[i].n);
        expect_refused(f, cases[i].refusal);
    }
    g_bytes_unref(good);
    g_unlink(f);
    g_free(f);
}

int main(int argc, char **argv)
{
    /* The transport cases under each accelerator ("" keeps tcg's names). */
    static const struct {
        const char *name, *dir;
    } accels[] = { { "tcg", "" }, { "kvm", "kvm/" } };
    static const struct {
        const char *name;
        GTestDataFunc fn;
    } transports[] = {
        { "unix", test_unix }, { "tcp", test_tcp }, { "exec", test_exec },
        { "file", test_file }, { "fd", test_fd },
    };
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-migration-XXXXXX", NULL);
    guest = vm_guest_kit("migrate.elf");
    if (!guest) {
        g_test_message("the guest kit's migrate.elf was not built");
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(accels); i++) {
        for (unsigned t = 0; t < G_N_ELEMENTS(transports); t++) {
            char *name = g_strconcat("/migration/", accels[i].dir,
                                     transports[t].name, NULL);

            g_test_add_data_func(name, accels[i].name, transports[t].fn);
            g_free(name);
        }
    }
    g_test_add_func("/migration/memfd-sparse", test_memfd_sparse);
    g_test_add_func("/migration/cancel", test_cancel);
    g_test_add_func("/migration/linux", test_linux);
    g_test_add_func("/migration/bad-streams", test_bad_streams);
    g_test_add_func("/migration/kvm/other-accel", test_other_accel);
    g_test_add_func("/migration/kvm/bad-fields", test_kvm_bad_fields);
    ret = g_test_run();
    g_rmdir(tmpdir);
    g_free(tmpdir);
    g_free(guest);
    return ret;
}
