/*
 * Local live update: a guest running in a share=on memory backend moves
 * to a new process of ours with x-ignore-shared, its RAM handed over
 * (a memfd's descriptor over the unix: socket, a named file opened at
 * the same path), only device state sent. The guest is the guest kit's
 * "migrate" program (a running checksum of 16 MiB it keeps rewriting,
 * LAPIC and PIT ticks, a line per scan).
 *   /live-update/memfd/tcg, /kvm   the destination continues the scans;
 *                      no RAM page went over the stream; the source
 *                      exits 0 after keeping the memfd (keep (exported)),
 *                      with no discard helper and nothing cancelled; the
 *                      guest's memory is still intact once it has gone
 *   /live-update/file/tcg, /kvm    the same with a named share=on,
 *                      discard-data=on file: the source dirtied it and
 *                      cancelled none of it
 *   /live-update/file-lease        the source not marking the file
 *                      exported (test knob): its discard helper's lease
 *                      check finds the destination holding the file and
 *                      leaves it (keep (in-use)), nothing cancelled
 *   /live-update/memfd-not-exported  the same knob with a memfd: the
 *                      source's teardown takes the pages from under the
 *                      destination, whose next scan is BAD (what the
 *                      exported rule prevents)
 *   /live-update/control           no x-ignore-shared: the memfd's pages
 *                      are copied and the source discards its memfd
 *   /live-update/errors            tcp: with a memfd, another size,
 *                      another file at the same path, the capability on
 *                      the source only: the destination exits 1 with one
 *                      line naming the backend, the source runs on
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"
#include "teardown-helper.h"

#define MIG_TIMEOUT_S   60
#define NOT_EXPORTED    "QEMU_TEST_HANDOVER_NOT_EXPORTED"

static char *tmpdir;
static char *guest;

typedef struct Case {
    const char *accel;
    bool file;                  /* else memfd */
} Case;

static bool need(const char *accel)
{
    if (!vm_require_accel(accel)) {
        return false;
    }
    if (!guest) {
        g_test_skip("the guest kit's migrate.elf was not built");
        return false;
    }
    return true;
}

/* The backend "mem" of size bytes: a memfd, or the file at path. */
static char *backend(const char *size, const char *path)
{
    if (path) {
        return g_strdup_printf("memory-backend-file,id=mem,size=%s,share=on,"
                               "discard-data=on,mem-path=%s", size, path);
    }
    return g_strdup_printf("memory-backend-memfd,id=mem,size=%s,share=on",
                           size);
}

static QemuVm *start(const char *accel, const char *size, const char *path,
                     const char *incoming)
{
    char *obj = backend(size, path);
    char *words = g_strdup_printf("-M pc,memory-backend=mem -accel %s -m %s "
                                  "-display none -nodefaults -d guest_ram",
                                  accel, size);
    GPtrArray *args = vm_args_new(words);
    QemuVm *vm;

    vm_args_add(args, "-object");
    vm_args_add(args, obj);
    vm_args_add(args, "-kernel");
    vm_args_add(args, guest);
    /* As test-migration's: under KVM every timer tick is an exit here. */
    vm_args_add(args, "-append");
    vm_args_add(args, strcmp(accel, "kvm") ? "mib=16" : "mib=1");
    if (incoming) {
        vm_args_add(args, "-incoming");
        vm_args_add(args, incoming);
    }
    vm = vm_start(args, VM_QMP);
    g_ptr_array_unref(args);
    g_free(words);
    g_free(obj);
    return vm;
}

static void ignore_shared(QemuVm *vm)
{
    vm_qmp_ok(vm, "{\"execute\": \"migrate-set-capabilities\", \"arguments\": "
              "{\"capabilities\": [{\"capability\": \"x-ignore-shared\", "
              "\"state\": true}]}}");
}

/* The reply to migrate; NULL when it was refused (then *why says why). */
static bool migrate(QemuVm *src, const char *uri, char **why)
{
    JsonNode *r = vm_qmp(src, "{\"execute\": \"migrate\", \"arguments\": "
                         "{\"uri\": \"%s\"}}", uri);
    JsonObject *o = json_node_get_object(r);
    bool ok = !json_object_has_member(o, "error");

    if (!ok && why) {
        *why = g_strdup(json_object_get_string_member(
                   json_object_get_object_member(o, "error"), "desc"));
    }
    json_node_unref(r);
    return ok;
}

static JsonObject *return_object(QemuVm *vm, const char *cmd)
{
    JsonNode *r = vm_qmp_return(vm, cmd);
    JsonObject *o = json_object_ref(json_node_get_object(r));

    json_node_unref(r);
    return o;
}

/* query-memdev's teardown, and its reason, for "mem" ("keep/exported"). */
static char *memdev_teardown(QemuVm *vm)
{
    JsonNode *r = vm_qmp_return(vm, "query-memdev");
    JsonArray *a = json_node_get_array(r);
    char *out = NULL;

    for (guint i = 0; i < json_array_get_length(a); i++) {
        JsonObject *m = json_array_get_object_element(a, i);

        if (!strcmp(json_object_get_string_member(m, "id"), "mem")) {
            out = g_strdup_printf("%s/%s",
                json_object_get_string_member(m, "teardown"),
                json_object_has_member(m, "teardown-reason")
                ? json_object_get_string_member(m, "teardown-reason")
                : json_object_get_string_member(m, "teardown-method"));
        }
    }
    json_node_unref(r);
    g_assert_nonnull(out);
    return out;
}

typedef struct Exit {
    int status;
    TeardownIO emulator;        /* its own /proc/PID/io, from the zombie */
    TeardownIO helpers;         /* its discard helpers' */
    unsigned nhelpers;
} Exit;

/*
 * The discard helpers a process's log names ("guest RAM: N file(s)
 * discarded by helper pid P"): ours to reap, being the subreaper.
 */
static void collect_helpers(const char *log, Exit *e)
{
    const char *p = log;

    while ((p = strstr(p, "discarded by helper pid "))) {
        pid_t pid = atoi(p + strlen("discarded by helper pid "));

        g_assert_true(teardown_collect_helper(pid, &e->helpers));
        e->nhelpers++;
        p++;
    }
}

/* quit; the zombie's accounting, then its helpers'. */
static Exit quit_counted(QemuVm *vm)
{
    Exit e = { 0 };

    json_node_unref(vm_qmp(vm, "{\"execute\": \"quit\"}"));
    g_assert_true(vm_wait_zombie(vm, VM_TIMEOUT_MS));
    g_assert_true(teardown_read_proc_io(vm_pid(vm), &e.emulator));
    e.status = vm_wait(vm, 0);
    collect_helpers(vm_stderr(vm), &e);
    g_test_message("exit: status %d, emulator wrote %" G_GUINT64_FORMAT
                   " cancelled %" G_GUINT64_FORMAT ", %u helper(s) "
                   "cancelled %" G_GUINT64_FORMAT, e.status,
                   e.emulator.write_bytes, e.emulator.cancelled_write_bytes,
                   e.nhelpers, e.helpers.cancelled_write_bytes);
    return e;
}

static char *ram_file(const char *name)
{
    const char *dir = teardown_disk_dir();

    return g_build_filename(dir ? dir : tmpdir, name, NULL);
}

/*
 * Start the source (the guest running), then the destination, and
 * migrate with x-ignore-shared (handover true) or without. Returns
 * false with the test skipped when this accelerator cannot migrate.
 */
static bool live_update(const char *accel, const char *path, bool handover,
                        QemuVm **srcp, QemuVm **dstp)
{
    char *sock = g_build_filename(tmpdir, "lu.sock", NULL);
    char *uri = g_strdup_printf("unix:%s", sock);
    char *nowhere = g_strdup_printf("unix:%s/nobody-listens", tmpdir);
    QemuVm *src = start(accel, "256M", path, NULL), *dst = NULL;
    char *why = NULL;
    bool ok = false;

    /* Can this accelerator migrate at all? (Asked before connecting.) */
    if (!migrate(src, nowhere, &why) && strstr(why, "cannot migrate")) {
        g_test_skip(why);
        goto out;
    }
    if (!vm_wait_serial(src, " ok ", 3)) {
        g_assert_cmpstr(accel, ==, "kvm");
        g_test_skip("the guest program made no progress under this KVM "
                    "(ring-0 code is emulated here) in the time allowed");
        goto out;
    }
    /* It must not write the RAM the source's guest is running in. */
    dst = start(accel, "256M", path, uri);
    if (handover) {
        ignore_shared(src);
        ignore_shared(dst);
    }
    g_assert_true(migrate(src, uri, NULL));
    g_assert_true(vm_wait_migrate_status(src, "completed", MIG_TIMEOUT_S));
    g_assert_true(vm_wait_status(dst, "running", MIG_TIMEOUT_S));
    *srcp = src;
    *dstp = dst;
    src = dst = NULL;
    ok = true;
out:
    if (src) {
        vm_free(src);
    }
    if (dst) {
        vm_free(dst);
    }
    g_free(why);
    g_free(nowhere);
    g_free(uri);
    g_free(sock);
    return ok;
}

/* RAM pages that went over the stream. */
static int64_t ram_pages_sent(QemuVm *src)
{
    JsonObject *o = return_object(src, "query-migrate");
    JsonObject *ram = json_object_get_object_member(o, "ram");
    int64_t n = json_object_get_int_member(ram, "normal") +
                json_object_get_int_member(ram, "duplicate");

    g_test_message("migrate: %" G_GINT64_FORMAT " bytes of RAM, total-time "
                   "%" G_GINT64_FORMAT " ms, downtime %" G_GINT64_FORMAT " ms",
                   json_object_get_int_member(ram, "transferred"),
                   json_object_get_int_member(o, "total-time"),
                   json_object_get_int_member(o, "downtime"));
    json_object_unref(o);
    return n;
}

/* After the source has gone: three more sound scans on the destination. */
static void check_guest_goes_on(const char *src_serial, QemuVm *dst)
{
    unsigned have = vm_serial_count(dst, " ok ");
    char *d;

    /*
     * The first " ok " may end a line the source began, the last one be
     * in a line still being written: three whole lines need five.
     */
    g_assert_true(vm_wait_serial(dst, " ok ", have + 5));
    d = vm_serial(dst);
    vm_check_migrate_scans(src_serial, d, 3);
    g_free(d);
}

static void quit_destination(QemuVm *dst)
{
    Exit e = quit_counted(dst);

    g_assert_true(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
    vm_free(dst);
}

/*
 * Whether the guest's 16 MiB working set (from 8 MiB) in the memfd vm
 * maps reads as zeros, looked at through /proc/PID/fd.
 */
static bool memfd_region_zero(QemuVm *vm)
{
    char *dir = g_strdup_printf("/proc/%d/fd", (int)vm_pid(vm));
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    bool zero = false, found = false;

    g_assert_nonnull(d);
    while (!found && (name = g_dir_read_name(d))) {
        char *link = g_build_filename(dir, name, NULL);
        char *target = g_file_read_link(link, NULL);

        if (target && strstr(target, "memfd:memory-backend-memfd")) {
            size_t len = 16 << 20;
            uint8_t *buf = g_malloc(len);
            int fd = open(link, O_RDONLY);

            g_assert_cmpint(fd, >=, 0);
            g_assert_cmpint(pread(fd, buf, len, 8 << 20), ==, len);
            zero = true;
            for (size_t i = 0; i < len && zero; i++) {
                zero = !buf[i];
            }
            close(fd);
            g_free(buf);
            found = true;
        }
        g_free(target);
        g_free(link);
    }
    g_dir_close(d);
    g_free(dir);
    g_assert_true(found);
    return zero;
}

static void test_handover(gconstpointer opaque)
{
    const Case *c = opaque;
    char *path = c->file ? ram_file("lu-ram") : NULL;
    const char *kept = c->file ? "guest_ram: 'mem' file: keep (exported)"
                               : "guest_ram: 'mem' memfd: keep (exported)";
    QemuVm *src, *dst;
    char *s, *td;
    Exit e;

    if (!need(c->accel)) {
        return;
    }
    if (path) {
        g_unlink(path);
    }
    if (!live_update(c->accel, path, true, &src, &dst)) {
        g_free(path);
        return;
    }
    g_assert_cmpint(ram_pages_sent(src), ==, 0);
    td = memdev_teardown(src);
    g_assert_cmpstr(td, ==, "keep/exported");
    g_free(td);
    s = vm_serial(src);
    e = quit_counted(src);
    g_assert_true(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
    g_assert_nonnull(strstr(vm_stderr(src), kept));
    g_assert_cmpuint(e.nhelpers, ==, 0);
    g_assert_cmpuint(e.emulator.cancelled_write_bytes, ==, 0);
    if (c->file) {
        /* The guest dirtied the file, and none of it was cancelled. */
        g_assert_cmpuint(e.emulator.write_bytes, >, 0);
    }
    vm_free(src);
    check_guest_goes_on(s, dst);
    if (!path) {
        g_assert_false(memfd_region_zero(dst));
    }
    quit_destination(dst);
    g_free(s);
    if (path) {
        g_unlink(path);
        g_free(path);
    }
}

/* A source that does not mark what it handed over exported. */
static bool live_update_not_exported(const char *path, QemuVm **src,
                                     QemuVm **dst)
{
    bool ok;

    g_setenv(NOT_EXPORTED, "1", TRUE);
    ok = live_update("tcg", path, true, src, dst);
    g_unsetenv(NOT_EXPORTED);
    return ok;
}

static void test_file_lease(void)
{
    char *path = ram_file("lu-lease");
    QemuVm *src, *dst;
    char *s, *td;
    Exit e;

    if (!need("tcg")) {
        return;
    }
    g_unlink(path);
    if (!live_update_not_exported(path, &src, &dst)) {
        return;
    }
    /* What the helper will find: the destination holds the file. */
    td = memdev_teardown(src);
    g_assert_cmpstr(td, ==, "keep/in-use");
    g_free(td);
    s = vm_serial(src);
    e = quit_counted(src);
    g_assert_true(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
    g_assert_cmpuint(e.nhelpers, ==, 1);
    g_assert_nonnull(strstr(vm_stderr(src), "guest_ram: 'mem' file: keep "
                            "(in-use)"));
    g_assert_cmpuint(e.emulator.write_bytes, >, 0);
    g_assert_cmpuint(e.emulator.cancelled_write_bytes +
                     e.helpers.cancelled_write_bytes, ==, 0);
    vm_free(src);
    check_guest_goes_on(s, dst);
    quit_destination(dst);
    g_free(s);
    g_unlink(path);
    g_free(path);
}

static void test_memfd_not_exported(void)
{
    QemuVm *src, *dst;
    Exit e;

    if (!need("tcg")) {
        return;
    }
    if (!live_update_not_exported(NULL, &src, &dst)) {
        return;
    }
    /* Stopped, the guest cannot write its working set again. */
    vm_qmp_ok(dst, "stop");
    g_assert_false(memfd_region_zero(dst));
    e = quit_counted(src);
    g_assert_true(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
    g_assert_nonnull(strstr(vm_stderr(src), "guest_ram: 'mem' memfd: "
                            "discard (truncate)"));
    vm_free(src);
    /* The pages went from under the running guest. */
    g_assert_true(memfd_region_zero(dst));
    vm_free(dst);
}

static void test_control(void)
{
    QemuVm *src, *dst;
    char *s;
    Exit e;

    if (!need("tcg")) {
        return;
    }
    if (!live_update("tcg", NULL, false, &src, &dst)) {
        return;
    }
    g_assert_cmpint(ram_pages_sent(src), >=, (256 << 20) / 4096);
    s = vm_serial(src);
    e = quit_counted(src);
    g_assert_true(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
    g_assert_nonnull(strstr(vm_stderr(src), "guest_ram: 'mem' memfd: "
                            "discard (truncate)"));
    g_assert_cmpuint(e.nhelpers, ==, 1);
    vm_free(src);
    check_guest_goes_on(s, dst);
    quit_destination(dst);
    g_free(s);
}

/*
 * The destination refuses with the one line; the source fails and runs
 * on, its RAM its own again (discarded at exit as usual).
 */
static void expect_refused(QemuVm *src, QemuVm *dst, const char *uri,
                           const char *line, const char *src_error)
{
    JsonObject *o;
    char *td;
    int status;

    g_assert_true(migrate(src, uri, NULL));
    status = vm_wait(dst, MIG_TIMEOUT_S);
    if (!strstr(vm_stderr(dst), line)) {
        g_test_message("destination's stderr:\n%s", vm_stderr(dst));
    }
    g_assert_nonnull(strstr(vm_stderr(dst), line));
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    if (!vm_wait_migrate_status(src, "failed", MIG_TIMEOUT_S)) {
        g_autofree char *st = vm_migrate_status(src);

        g_test_message("%s: the source's migration is %s", uri, st);
        g_assert_not_reached();
    }
    o = return_object(src, "query-migrate");
    if (src_error) {
        g_assert_nonnull(strstr(json_object_get_string_member(o,
                                                              "error-desc"),
                                src_error));
    }
    json_object_unref(o);
    g_assert_true(vm_wait_status(src, "running", MIG_TIMEOUT_S));
    td = memdev_teardown(src);
    g_assert_cmpstr(td, !=, "keep/exported");
    g_free(td);
    vm_free(dst);
}

static void test_errors(void)
{
    char *sock = g_build_filename(tmpdir, "lu-err.sock", NULL);
    char *unix_uri = g_strdup_printf("unix:%s", sock);
    char *tcp_uri = g_strdup_printf("tcp:127.0.0.1:%d", vm_free_tcp_port());
    char *path = ram_file("lu-err"), *moved = g_strconcat(path, ".old", NULL);
    QemuVm *src, *dst;

    if (!need("tcg")) {
        return;
    }
    src = start("tcg", "256M", NULL, NULL);
    ignore_shared(src);
    g_assert_true(vm_wait_serial(src, " ok ", 1));

    /* A memfd's descriptor cannot go over TCP. */
    dst = start("tcg", "256M", NULL, tcp_uri);
    ignore_shared(dst);
    expect_refused(src, dst, tcp_uri, "qemu-system-x86_64: load of migration "
                   "failed: x-ignore-shared: memory backend 'mem' is a memfd, "
                   "whose descriptor only a unix: migration socket can pass; "
                   "none came with this stream",
                   "x-ignore-shared: memory backend 'mem' is a memfd, whose "
                   "descriptor only a unix: migration socket can pass");

    /* Another size. */
    dst = start("tcg", "128M", NULL, unix_uri);
    ignore_shared(dst);
    expect_refused(src, dst, unix_uri, "qemu-system-x86_64: load of "
                   "migration failed: x-ignore-shared: memory backend 'mem' "
                   "has 268435456 bytes in the stream, 134217728 here", NULL);

    /* The capability on the source only. */
    dst = start("tcg", "256M", NULL, unix_uri);
    expect_refused(src, dst, unix_uri, "qemu-system-x86_64: load of "
                   "migration failed: the source enabled x-ignore-shared, "
                   "this destination did not (migrate-set-capabilities)",
                   NULL);
    g_assert_true(vm_wait_serial(src, " ok ", vm_serial_count(src, " ok ") +
                                 1));
    vm_free(src);

    /* Another file at the same path. */
    g_unlink(path);
    src = start("tcg", "256M", path, NULL);
    ignore_shared(src);
    g_assert_true(vm_wait_serial(src, " ok ", 1));
    g_assert_cmpint(g_rename(path, moved), ==, 0);
    dst = start("tcg", "256M", path, unix_uri);
    ignore_shared(dst);
    expect_refused(src, dst, unix_uri, "qemu-system-x86_64: load of "
                   "migration failed: x-ignore-shared: memory backend 'mem': "
                   "mem-path is not the source's file", NULL);
    g_assert_true(vm_wait_serial(src, " ok ", vm_serial_count(src, " ok ") +
                                 1));
    {
        g_autofree char *serial = vm_serial(src);

        g_assert_null(strstr(serial, "BAD"));
    }
    vm_free(src);
    g_unlink(path);
    g_unlink(moved);
    g_free(path);
    g_free(moved);
    g_free(tcp_uri);
    g_free(unix_uri);
    g_free(sock);
}

static const Case memfd_tcg = { "tcg", false }, memfd_kvm = { "kvm", false };
static const Case file_tcg = { "tcg", true }, file_kvm = { "kvm", true };

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* Orphaned discard helpers come to us, to be counted and reaped. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    tmpdir = g_dir_make_tmp("test-live-update-XXXXXX", NULL);
    guest = vm_guest_kit("migrate.elf");
    g_test_add_data_func("/live-update/memfd/tcg", &memfd_tcg, test_handover);
    g_test_add_data_func("/live-update/memfd/kvm", &memfd_kvm, test_handover);
    g_test_add_data_func("/live-update/file/tcg", &file_tcg, test_handover);
    g_test_add_data_func("/live-update/file/kvm", &file_kvm, test_handover);
    g_test_add_func("/live-update/file-lease", test_file_lease);
    g_test_add_func("/live-update/memfd-not-exported",
                    test_memfd_not_exported);
    g_test_add_func("/live-update/control", test_control);
    g_test_add_func("/live-update/errors", test_errors);
    ret = g_test_run();
    g_rmdir(tmpdir);
    g_free(tmpdir);
    g_free(guest);
    return ret;
}
