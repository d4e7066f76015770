/*
 * Measuring an emulator's teardown writes from /proc/PID/io of its zombie.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include "teardown-helper.h"

#define TEARDOWN_CHUNK          (64u << 20)
#define TEARDOWN_EXIT_TIMEOUT_US (30 * G_USEC_PER_SEC)

/*
 * /proc/PID/io looks like "rchar: N\nwchar: N\n...write_bytes: N\n
 * cancelled_write_bytes: N\n". For the thread group leader it sums every
 * thread, the exited ones included, for as long as the zombie is not
 * reaped.
 */
static bool proc_io_field(const char *contents, const char *key,
                          uint64_t *value)
{
    size_t len = strlen(key);
    const char *line = contents;

    while (line) {
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            *value = g_ascii_strtoull(line + len + 1, NULL, 10);
            return true;
        }
        line = strchr(line, '\n');
        if (line) {
            line++;
        }
    }
    return false;
}

bool teardown_read_proc_io(pid_t pid, TeardownIO *io)
{
    char *path = g_strdup_printf("/proc/%d/io", (int)pid);
    char *contents = NULL;
    bool ok;

    ok = g_file_get_contents(path, &contents, NULL, NULL) &&
         proc_io_field(contents, "write_bytes", &io->write_bytes) &&
         proc_io_field(contents, "cancelled_write_bytes",
                       &io->cancelled_write_bytes);
    g_free(contents);
    g_free(path);
    return ok;
}

void teardown_quiet_writeback(void)
{
    sync();
}

QTestState *teardown_start(unsigned ram_mib, const char *extra_args)
{
    /* Orphaned discard helpers come to us, not to init. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    teardown_quiet_writeback();
    return qtest_initf("-machine pc -m %uM -device isa-debug-exit,"
                       "iobase=0x%x,iosize=0x4 %s", ram_mib,
                       TEARDOWN_DEBUG_EXIT, extra_args);
}

void teardown_dirty(QTestState *s, unsigned mib, uint8_t pattern)
{
    uint64_t left = (uint64_t)mib << 20;
    uint64_t addr = TEARDOWN_DIRTY_BASE;

    /* In chunks: the emulator buffers each memset before writing it. */
    while (left) {
        uint64_t n = MIN(left, TEARDOWN_CHUNK);

        qtest_memset(s, addr, pattern, n);
        addr += n;
        left -= n;
    }
}

const char *teardown_exit_name(TeardownExit how)
{
    switch (how) {
    case TEARDOWN_EXIT_QUIT:
        return "quit";
    case TEARDOWN_EXIT_SIGTERM:
        return "SIGTERM";
    case TEARDOWN_EXIT_GUEST:
        return "guest shutdown";
    }
    return "?";
}

/* Wait until pid is a zombie, leaving it unreaped; false on timeout. */
static bool wait_zombie(pid_t pid)
{
    int64_t deadline = g_get_monotonic_time() + TEARDOWN_EXIT_TIMEOUT_US;

    for (;;) {
        siginfo_t info = { 0 };

        if (waitid(P_PID, pid, &info, WEXITED | WNOWAIT | WNOHANG) < 0) {
            if (errno == EINTR) {
                continue;
            }
            g_error("waitid(%d): %s", (int)pid, strerror(errno));
        }
        if (info.si_pid == pid) {
            return true;
        }
        if (g_get_monotonic_time() > deadline) {
            return false;
        }
        g_usleep(500);
    }
}

static pid_t last_helper_pid;

pid_t teardown_last_helper_pid(void)
{
    return last_helper_pid;
}

unsigned teardown_collect_helpers(TeardownIO *sum)
{
    int64_t deadline = g_get_monotonic_time() + TEARDOWN_EXIT_TIMEOUT_US;
    unsigned n = 0;

    for (;;) {
        siginfo_t info = { 0 };
        TeardownIO io;

        if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT | WNOHANG) < 0) {
            if (errno == EINTR) {
                continue;
            }
            g_assert_cmpint(errno, ==, ECHILD);
            return n;                           /* no children left */
        }
        if (info.si_pid == 0) {
            if (g_get_monotonic_time() > deadline) {
                g_error("a discard helper did not finish within %d s",
                        (int)(TEARDOWN_EXIT_TIMEOUT_US / G_USEC_PER_SEC));
            }
            g_usleep(500);
            continue;
        }
        if (!teardown_read_proc_io(info.si_pid, &io)) {
            g_error("cannot read /proc/%d/io of the discard helper",
                    (int)info.si_pid);
        }
        sum->write_bytes += io.write_bytes;
        sum->cancelled_write_bytes += io.cancelled_write_bytes;
        n++;
        last_helper_pid = info.si_pid;
        waitpid(info.si_pid, NULL, 0);
    }
}

bool teardown_collect_helper(pid_t pid, TeardownIO *sum)
{
    TeardownIO io;

    if (!wait_zombie(pid) || !teardown_read_proc_io(pid, &io)) {
        return false;
    }
    sum->write_bytes += io.write_bytes;
    sum->cancelled_write_bytes += io.cancelled_write_bytes;
    last_helper_pid = pid;
    waitpid(pid, NULL, 0);
    return true;
}

TeardownResult teardown_exit(QTestState *s, TeardownExit how)
{
    return teardown_exit_then(s, how, NULL, NULL);
}

TeardownResult teardown_exit_then(QTestState *s, TeardownExit how,
                                  void (*after_exit)(void *opaque),
                                  void *opaque)
{
    static const char quit[] = "{\"execute\": \"quit\"}\n";
    static const char outl[] = "outl 0xf4 0x0\n";
    pid_t pid = qtest_pid(s);
    TeardownResult r = { 0 };
    int64_t start;

    G_STATIC_ASSERT(TEARDOWN_DEBUG_EXIT == 0xf4);
    g_assert_cmpint(pid, >, 0);
    /*
     * Send without waiting for a reply: the emulator may be gone before
     * it would have answered, and the latency we time ends at the exit.
     */
    start = g_get_monotonic_time();
    switch (how) {
    case TEARDOWN_EXIT_QUIT:
        qtest_qmp_send_raw(s, quit, strlen(quit));
        break;
    case TEARDOWN_EXIT_SIGTERM:
        kill(pid, SIGTERM);
        break;
    case TEARDOWN_EXIT_GUEST:
        qtest_send_raw(s, outl, strlen(outl));
        break;
    }
    if (!wait_zombie(pid)) {
        kill(pid, SIGKILL);
        qtest_wait_exit(s);
        g_error("the emulator did not exit within %d s after %s; "
                "stderr:\n%s",
                (int)(TEARDOWN_EXIT_TIMEOUT_US / G_USEC_PER_SEC),
                teardown_exit_name(how), qtest_stderr(s));
    }
    r.exit_us = g_get_monotonic_time() - start;
    if (!teardown_read_proc_io(pid, &r.io)) {
        g_error("cannot read /proc/%d/io of the exited emulator", (int)pid);
    }
    r.emulator_io = r.io;
    r.wstatus = qtest_wait_exit(s);
    qtest_quit(s);              /* reaped already: this only frees s */
    if (after_exit) {
        after_exit(opaque);
    }
    r.emulator_pid = pid;
    last_helper_pid = 0;
    r.helpers = teardown_collect_helpers(&r.io);
    r.helper_pid = last_helper_pid;
    r.helpers_done_us = g_get_monotonic_time() - start;
    g_test_message("%s: exit %d after %" PRId64 " us, write_bytes %" PRIu64
                   ", cancelled_write_bytes %" PRIu64 " (emulator %" PRIu64
                   "/%" PRIu64 ", %u helper(s) done after %" PRId64
                   " us), net %" PRId64,
                   teardown_exit_name(how),
                   WIFEXITED(r.wstatus) ? WEXITSTATUS(r.wstatus) : -1,
                   r.exit_us, r.io.write_bytes, r.io.cancelled_write_bytes,
                   r.emulator_io.write_bytes,
                   r.emulator_io.cancelled_write_bytes, r.helpers,
                   r.helpers_done_us, teardown_net_bytes(&r.io));
    return r;
}

bool teardown_fs_does_writeback(const char *path)
{
    struct statfs fs;

    if (statfs(path, &fs) < 0) {
        return false;
    }
    switch (fs.f_type) {
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case HUGETLBFS_MAGIC:
        return false;
    default:
        return true;
    }
}

const char *teardown_disk_dir(void)
{
    static char cwd[4096];
    const char *candidates[] = {
        g_getenv("TEARDOWN_DIR"), g_get_tmp_dir(), "/var/tmp",
        getcwd(cwd, sizeof(cwd)),
    };

    for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++) {
        const char *dir = candidates[i];

        if (dir && access(dir, W_OK) == 0 &&
            teardown_fs_does_writeback(dir)) {
            return dir;
        }
    }
    return NULL;
}
