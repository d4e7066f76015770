/*
 * What a KVM guest's memory costs the host, measured with the guest kit's
 * "dirty" program (tests/guest/dirty.c), which writes N MiB of its RAM
 * from CPL 3 and reports "dirty: PASS" on COM1:
 *
 *   mem-lock   a 1 GiB guest that dirtied 256 MiB, read from
 *              /proc/PID/status while it idles after its report:
 *                on        VmRSS >= guest RAM (everything populated)
 *                on-fault  VmRSS within 5% of off; both < 40% of RAM
 *                VmLck     0 for off, >= guest RAM for on and on-fault
 *                          (Linux counts locked mappings, resident or not)
 *              then SIGTERM gives exit 0.
 *   teardown   a 1 GiB guest on file-backed RAM in a directory on a disk
 *              filesystem dirties 512 MiB and ends the process through
 *              isa-debug-exit; /proc/PID/io of the zombie must show under
 *              4 MiB of net writes (write_bytes - cancelled_write_bytes),
 *              i.e. the emulator left the dirty guest pages for nobody
 *              to write back.
 *
 * Every case is skipped, never passed, where /dev/kvm cannot be opened or
 * the guest programs were not built.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-host.h"
#include "qemu-vm.h"
#include "teardown-helper.h"

#define GUEST_RAM_MIB       1024
#define GUEST_RAM_KB        (GUEST_RAM_MIB * 1024L)
#define MEMLOCK_DIRTY_MIB   256
#define TEARDOWN_DIRTY_MIB  512
#define TEARDOWN_MAX_NET    (4u << 20)
#define GUEST_PASS_STATUS   1       /* isa-debug-exit: (0 << 1) | 1 */
#define TIMEOUT_US          (60 * G_USEC_PER_SEC)
#define TIMEOUT_MS          (TIMEOUT_US / 1000)
#define POLL_US             10000

/*
 * Start the emulator on the dirty guest under KVM (COM1 captured; no
 * isa-debug-exit unless extra adds it).
 */
static QemuVm *guest_start(const char *kernel, unsigned dirty_mib,
                           const char *extra)
{
    char *args = g_strdup_printf("-machine pc -accel kvm -display none "
                                 "-nodefaults %s -kernel %s -append dirty=%u",
                                 extra, kernel, dirty_mib);
    QemuVm *vm;

    g_test_message("%s %s", qemu_binary(), args);
    vm = vm_startf(0, "%s", args);
    g_free(args);
    return vm;
}

/* Wait for "dirty: PASS" while the guest idles (no isa-debug-exit). */
static void guest_wait_pass(QemuVm *vm)
{
    int64_t deadline = g_get_monotonic_time() + TIMEOUT_US;

    for (;;) {
        char *s = vm_serial(vm);
        bool pass = strstr(s, "dirty: PASS") != NULL;
        bool fail = strstr(s, "FAIL") != NULL;

        if (fail || vm_exited(vm) || g_get_monotonic_time() > deadline) {
            kill(vm_pid(vm), SIGKILL);
            g_error("guest did not report PASS; serial:\n%s", s);
        }
        g_free(s);
        if (pass) {
            return;
        }
        g_usleep(POLL_US);
    }
}

/* Reap the (already exited) process and free vm; returns its status. */
static int guest_reap(QemuVm *vm)
{
    int status = vm_wait(vm, 0);

    vm_free(vm);
    return status;
}

/* --- mem-lock ------------------------------------------------------------ */

typedef struct MemFigures {
    long rss, lck;
} MemFigures;

static MemFigures memlock_measure(const char *kernel, const char *mode)
{
    char *extra = g_strdup_printf("-m %dM -overcommit mem-lock=%s",
                                  GUEST_RAM_MIB, mode);
    MemFigures f;
    QemuVm *vm;
    int status;

    vm = guest_start(kernel, MEMLOCK_DIRTY_MIB, extra);
    guest_wait_pass(vm);
    f.rss = proc_status_kb(vm_pid(vm), "VmRSS");
    f.lck = proc_status_kb(vm_pid(vm), "VmLck");
    g_test_message("mem-lock=%s: VmRSS %ld kB, VmLck %ld kB (guest RAM "
                   "%ld kB, %d MiB dirtied)", mode, f.rss, f.lck,
                   GUEST_RAM_KB, MEMLOCK_DIRTY_MIB);
    g_assert_cmpint(f.rss, >, 0);
    g_assert_cmpint(f.lck, >=, 0);

    g_assert_true(qemu_wait_signals_ready(vm_pid(vm), 5000));
    kill(vm_pid(vm), SIGTERM);
    g_assert_true(vm_wait_zombie(vm, TIMEOUT_MS));
    status = guest_reap(vm);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_free(extra);
    return f;
}

static void test_mem_lock(void)
{
    MemFigures off, on, on_fault;
    char *kernel;

    if (!vm_require_kvm() || !(kernel = vm_require_guest_kit("dirty.elf"))) {
        return;
    }
    if (HAVE_SANITIZERS) {
        /* ASan turns mlockall() into a no-op: nothing to measure. */
        g_test_skip("mlockall is not measurable under ASan");
        g_free(kernel);
        return;
    }
    off = memlock_measure(kernel, "off");
    on = memlock_measure(kernel, "on");
    on_fault = memlock_measure(kernel, "on-fault");

    /* on: mlockall(MCL_CURRENT) populated every page of guest RAM. */
    g_assert_cmpint(on.rss, >=, GUEST_RAM_KB);
    g_assert_cmpint(on.lck, >=, GUEST_RAM_KB);

    /* on-fault locks the mappings but populates only what is touched. */
    g_assert_cmpint(on_fault.lck, >=, GUEST_RAM_KB);
    g_assert_cmpint(labs(on_fault.rss - off.rss) * 100, <=, off.rss * 5);
    g_assert_cmpint(on_fault.rss * 100, <, GUEST_RAM_KB * 40);
    g_assert_cmpint(off.rss * 100, <, GUEST_RAM_KB * 40);
    /* ... and at least what the guest dirtied is resident in both. */
    g_assert_cmpint(off.rss, >=, MEMLOCK_DIRTY_MIB * 1024L);
    g_assert_cmpint(on_fault.rss, >=, MEMLOCK_DIRTY_MIB * 1024L);

    g_assert_cmpint(off.lck, ==, 0);
    g_free(kernel);
}

/* --- teardown of file-backed RAM ----------------------------------------- */

/* A fresh directory on a disk filesystem (teardown-helper.h), or NULL. */
static char *disk_dir_new(void)
{
    const char *dir = teardown_disk_dir();
    char *path;

    if (!dir) {
        return NULL;
    }
    path = g_build_filename(dir, "kvm-memory-XXXXXX", NULL);
    if (!g_mkdtemp(path)) {
        g_free(path);
        return NULL;
    }
    return path;
}

static void test_teardown(gconstpointer data)
{
    const char *backend = data;
    char *kernel, *dir, *ram, *extra, *serial;
    uint64_t written = 0, cancelled = 0;
    TeardownIO io = { 0 }, helper_io;
    unsigned helpers;
    int64_t net;
    QemuVm *vm;
    int status;

    if (!vm_require_kvm() || !(kernel = vm_require_guest_kit("dirty.elf"))) {
        return;
    }
    teardown_quiet_writeback();
    dir = disk_dir_new();
    if (!dir) {
        g_test_skip("no writable directory on a disk filesystem");
        g_free(kernel);
        return;
    }
    if (!strcmp(backend, "memory-backend-file")) {
        ram = g_strdup_printf("-object memory-backend-file,id=m,size=%dM,"
                                "mem-path=%s,share=on -machine "
                                "memory-backend=m -m %dM", GUEST_RAM_MIB, dir,
                                GUEST_RAM_MIB);
    } else {
        ram = g_strdup_printf("-mem-path %s -m %dM", dir, GUEST_RAM_MIB);
    }
    extra = g_strconcat(ram, " -device isa-debug-exit,iobase=0xf4,"
                        "iosize=0x4", NULL);
    g_free(ram);
    /*
     * Other writers' dirty data could start background writeback that
     * catches our pages too: start from a clean page cache.
     */
    sync();
    vm = guest_start(kernel, TEARDOWN_DIRTY_MIB, extra);
    if (!vm_wait_zombie(vm, TIMEOUT_MS)) {
        guest_reap(vm);
        g_error("the guest did not end the emulator within %d s",
                (int)(TIMEOUT_US / G_USEC_PER_SEC));
    }
    /* The zombie's accounting sums all its threads until it is reaped. */
    g_assert_true(teardown_read_proc_io(vm_pid(vm), &io));
    written = io.write_bytes;
    cancelled = io.cancelled_write_bytes;
    serial = vm_serial(vm);
    status = guest_reap(vm);
    /* The child that discards after the emulator's exit (ram-discard.c). */
    helper_io = (TeardownIO) { 0 };
    helpers = teardown_collect_helpers(&helper_io);
    written += helper_io.write_bytes;
    cancelled += helper_io.cancelled_write_bytes;
    net = (int64_t)written - (int64_t)cancelled;
    g_test_message("%s in %s: write_bytes %" PRIu64 ", cancelled %" PRIu64
                   " (%u discard helper(s)), net %" PRId64, backend, dir,
                   written, cancelled, helpers, net);

    g_assert_nonnull(strstr(serial, "dirty: 512 MiB verified\n"));
    g_assert_nonnull(strstr(serial, "dirty: PASS\n"));
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    g_assert_cmpint(net, <, TEARDOWN_MAX_NET);
    /* The emulator left the discarding to its child (ram-discard.c). */
    g_assert_cmpuint(helpers, ==, 1);

    /* The backing file is the emulator's to remove: nothing is left. */
    g_assert_cmpint(g_rmdir(dir), ==, 0);
    g_free(serial);
    g_free(extra);
    g_free(dir);
    g_free(kernel);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* Discard helpers the emulator leaves behind become our children. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    g_test_add_func("/kvm-memory/mem-lock", test_mem_lock);
    g_test_add_data_func("/kvm-memory/teardown/memory-backend-file",
                         "memory-backend-file", test_teardown);
    g_test_add_data_func("/kvm-memory/teardown/mem-path", "mem-path",
                         test_teardown);
    ret = g_test_run();
    return ret;
}
