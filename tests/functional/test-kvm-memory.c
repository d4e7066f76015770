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
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config-host.h"
#include "qemu-run.h"
#include "teardown-helper.h"

#define GUEST_RAM_MIB       1024
#define GUEST_RAM_KB        (GUEST_RAM_MIB * 1024L)
#define MEMLOCK_DIRTY_MIB   256
#define TEARDOWN_DIRTY_MIB  512
#define TEARDOWN_MAX_NET    (4u << 20)
#define GUEST_PASS_STATUS   1       /* isa-debug-exit: (0 << 1) | 1 */
#define TIMEOUT_US          (60 * G_USEC_PER_SEC)
#define POLL_US             10000

static char *tmpdir;

static bool kvm_usable(void)
{
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        g_test_skip("no /dev/kvm (or no access to it): KVM tests skipped");
        return false;
    }
    close(fd);
    return true;
}

/* The built dirty.elf, or NULL (and the test skipped). */
static char *dirty_guest(void)
{
    char *path = g_build_filename(GUEST_DIR, "dirty.elf", NULL);

    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_test_skip("tests/guest programs not built");
        g_free(path);
        return NULL;
    }
    return path;
}

typedef struct Guest {
    pid_t pid;
    int err_fd;
    char *serial;
} Guest;

/*
 * Start the emulator on the dirty guest under KVM. None of the words has
 * spaces, so qemu_spawn's space-separated argument list does.
 */
static void guest_start(Guest *g, const char *kernel, unsigned dirty_mib,
                        const char *extra)
{
    char *args;

    g->serial = g_build_filename(tmpdir, "serial.out", NULL);
    g_unlink(g->serial);
    args = g_strdup_printf("-machine pc -accel kvm -display none -nodefaults "
                           "-serial file:%s %s -kernel %s -append dirty=%u",
                           g->serial, extra, kernel, dirty_mib);
    g_test_message("%s %s", qemu_binary(), args);
    g->pid = qemu_spawn(args, &g->err_fd);
    g_free(args);
}

/* True once pid has exited; it stays a zombie for /proc/PID/io. */
static bool guest_exited(Guest *g)
{
    siginfo_t info = { 0 };

    while (waitid(P_PID, g->pid, &info, WEXITED | WNOWAIT | WNOHANG) < 0) {
        g_assert_cmpint(errno, ==, EINTR);
    }
    return info.si_pid == g->pid;
}

static char *guest_serial(Guest *g)
{
    char *s = NULL;

    if (!g_file_get_contents(g->serial, &s, NULL, NULL)) {
        s = g_strdup("");
    }
    return s;
}

/* Wait for "dirty: PASS" while the guest idles (no isa-debug-exit). */
static void guest_wait_pass(Guest *g)
{
    int64_t deadline = g_get_monotonic_time() + TIMEOUT_US;

    for (;;) {
        char *s = guest_serial(g);
        bool pass = strstr(s, "dirty: PASS") != NULL;
        bool fail = strstr(s, "FAIL") != NULL;

        if (fail || guest_exited(g) || g_get_monotonic_time() > deadline) {
            kill(g->pid, SIGKILL);
            g_error("guest did not report PASS; serial:\n%s", s);
        }
        g_free(s);
        if (pass) {
            return;
        }
        g_usleep(POLL_US);
    }
}

/* Wait until the process is a zombie; false after TIMEOUT_US. */
static bool guest_wait_zombie(Guest *g)
{
    int64_t deadline = g_get_monotonic_time() + TIMEOUT_US;

    while (!guest_exited(g)) {
        if (g_get_monotonic_time() > deadline) {
            return false;
        }
        g_usleep(1000);
    }
    return true;
}

/* Reap the (already exited) process; returns its wait status. */
static int guest_reap(Guest *g)
{
    int status;

    g_assert_cmpint(waitpid(g->pid, &status, 0), ==, g->pid);
    g_free(read_all_fd(g->err_fd));
    g_unlink(g->serial);
    g_free(g->serial);
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
    Guest g;
    int status;

    guest_start(&g, kernel, MEMLOCK_DIRTY_MIB, extra);
    guest_wait_pass(&g);
    f.rss = proc_status_kb(g.pid, "VmRSS");
    f.lck = proc_status_kb(g.pid, "VmLck");
    g_test_message("mem-lock=%s: VmRSS %ld kB, VmLck %ld kB (guest RAM "
                   "%ld kB, %d MiB dirtied)", mode, f.rss, f.lck,
                   GUEST_RAM_KB, MEMLOCK_DIRTY_MIB);
    g_assert_cmpint(f.rss, >, 0);
    g_assert_cmpint(f.lck, >=, 0);

    g_assert_true(qemu_wait_signals_ready(g.pid, 5000));
    kill(g.pid, SIGTERM);
    g_assert_true(guest_wait_zombie(&g));
    status = guest_reap(&g);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_free(extra);
    return f;
}

static void test_mem_lock(void)
{
    MemFigures off, on, on_fault;
    char *kernel;

    if (!kvm_usable() || !(kernel = dirty_guest())) {
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

static bool fs_does_writeback(const char *path)
{
    struct statfs fs;

    if (statfs(path, &fs) < 0) {
        return false;
    }
    /* These keep pages in memory only: nothing would count as written. */
    return fs.f_type != TMPFS_MAGIC && fs.f_type != RAMFS_MAGIC &&
           fs.f_type != HUGETLBFS_MAGIC;
}

/* A fresh directory on a disk filesystem, or NULL. */
static char *disk_dir_new(void)
{
    const char *candidates[] = {
        g_getenv("TEARDOWN_DIR"), g_get_tmp_dir(), "/var/tmp",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
        const char *dir = candidates[i];
        char *path;

        if (!dir || access(dir, W_OK) != 0 || !fs_does_writeback(dir)) {
            continue;
        }
        path = g_build_filename(dir, "kvm-memory-XXXXXX", NULL);
        if (g_mkdtemp(path)) {
            return path;
        }
        g_free(path);
    }
    return NULL;
}

static bool proc_io_field(const char *contents, const char *key,
                          uint64_t *value)
{
    char *k = g_strdup_printf("\n%s:", key);
    const char *p = strstr(contents, k);

    if (p) {
        *value = g_ascii_strtoull(p + strlen(k), NULL, 10);
    }
    g_free(k);
    return p != NULL;
}

static void test_teardown(gconstpointer data)
{
    const char *backend = data;
    char *kernel, *dir, *ram, *extra, *path, *io = NULL, *serial;
    uint64_t written = 0, cancelled = 0;
    TeardownIO helper_io;
    unsigned helpers;
    int64_t net;
    Guest g;
    int status;

    if (!kvm_usable() || !(kernel = dirty_guest())) {
        return;
    }
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
    guest_start(&g, kernel, TEARDOWN_DIRTY_MIB, extra);
    if (!guest_wait_zombie(&g)) {
        kill(g.pid, SIGKILL);
        guest_reap(&g);
        g_error("the guest did not end the emulator within %d s",
                (int)(TIMEOUT_US / G_USEC_PER_SEC));
    }
    /* The zombie's accounting sums all its threads until it is reaped. */
    path = g_strdup_printf("/proc/%d/io", (int)g.pid);
    g_assert_true(g_file_get_contents(path, &io, NULL, NULL));
    g_assert_true(proc_io_field(io, "write_bytes", &written));
    g_assert_true(proc_io_field(io, "cancelled_write_bytes", &cancelled));
    serial = guest_serial(&g);
    status = guest_reap(&g);
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
    g_free(path);
    g_free(io);
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
    tmpdir = g_dir_make_tmp("test-kvm-memory-XXXXXX", NULL);
    g_assert_nonnull(tmpdir);

    g_test_add_func("/kvm-memory/mem-lock", test_mem_lock);
    g_test_add_data_func("/kvm-memory/teardown/memory-backend-file",
                         "memory-backend-file", test_teardown);
    g_test_add_data_func("/kvm-memory/teardown/mem-path", "mem-path",
                         test_teardown);
    ret = g_test_run();
    g_rmdir(tmpdir);
    g_free(tmpdir);
    return ret;
}
