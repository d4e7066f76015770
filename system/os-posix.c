/*
 * POSIX host layer: memory locking, daemonizing, the pidfile.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "config-host.h"
#include "system/os-posix.h"

static int daemon_pipe = -1;    /* write end, in the daemon child */
static char *pidfile_path;
static int pidfile_fd = -1;

/*
 * QEMU_LEAN_NO_MCL_ONFAULT=1 in the environment: do as on a kernel
 * without MCL_ONFAULT and MLOCK_ONFAULT (Linux before 4.4), so that one
 * build tests both paths (docs/overcommit.md). Read once.
 */
static bool os_onfault_disabled(void)
{
    static gsize state;     /* 0 unread, 1 honoured, 2 disabled */

    if (g_once_init_enter(&state)) {
        const char *v = getenv("QEMU_LEAN_NO_MCL_ONFAULT");

        g_once_init_leave(&state, v && !strcmp(v, "1") ? 2 : 1);
    }
    return state == 2;
}

int os_mlock(bool on_fault)
{
    int flags = MCL_CURRENT | MCL_FUTURE;

    if (on_fault) {
#if HAVE_MCL_ONFAULT
        if (os_onfault_disabled()) {
            return -EOPNOTSUPP;
        }
        flags |= MCL_ONFAULT;
#else
        return -EOPNOTSUPP;
#endif
    }
    if (mlockall(flags) < 0) {
        /* A kernel older than 4.4 rejects the MCL_ONFAULT bit. */
        if (on_fault && errno == EINVAL) {
            return -EOPNOTSUPP;
        }
        return -errno;
    }
    return 0;
}

int os_mlock_range_on_fault(void *addr, size_t len)
{
#if HAVE_MLOCK_ONFAULT
    if (os_onfault_disabled()) {
        return -EOPNOTSUPP;
    }
    if (mlock2(addr, len, MLOCK_ONFAULT) < 0) {
        /* Linux before 4.4 has no mlock2 (ENOSYS) or rejects the flag. */
        return (errno == ENOSYS || errno == EINVAL) ? -EOPNOTSUPP : -errno;
    }
    return 0;
#else
    return -EOPNOTSUPP;
#endif
}

int os_munlock(void)
{
    return munlockall() < 0 ? -errno : 0;
}

int os_relock(bool on_fault)
{
    const char *force = getenv("QEMU_TEST_RELOCK_NO_ONFAULT");

    if (force && !strcmp(force, "1")) {
        on_fault = false;
    }
    return os_mlock(on_fault);
}

char *os_mlock_explain(int err)
{
    struct rlimit rl;

    if (err == -EOPNOTSUPP) {
        return g_strdup(HAVE_MCL_ONFAULT && os_onfault_disabled() ?
                        "mlockall: on_fault not supported "
                        "(QEMU_LEAN_NO_MCL_ONFAULT=1)" :
                        "mlockall: on_fault not supported");
    }
    if ((err == -ENOMEM || err == -EPERM) &&
        getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        return g_strdup_printf("locking memory failed: %s (RLIMIT_MEMLOCK is "
                               "%llu KiB; raise it with 'ulimit -l' or give "
                               "the process CAP_IPC_LOCK)",
                               g_strerror(-err),
                               (unsigned long long)rl.rlim_cur / 1024);
    }
    return g_strdup_printf("locking memory failed: %s", g_strerror(-err));
}

bool os_daemonize(Error **errp)
{
    int fds[2];
    pid_t pid;
    char status;
    ssize_t n;

    if (pipe2(fds, O_CLOEXEC) < 0) {
        error_setg_errno(errp, errno, "cannot daemonize");
        return false;
    }
    pid = fork();
    if (pid < 0) {
        error_setg_errno(errp, errno, "cannot daemonize");
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid > 0) {
        /* Parent: report the child's verdict as our exit status. */
        close(fds[1]);
        do {
            n = read(fds[0], &status, 1);
        } while (n < 0 && errno == EINTR);
        _exit(n == 1 && status == 0 ? 0 : 1);
    }
    close(fds[0]);
    daemon_pipe = fds[1];
    if (setsid() < 0) {
        error_setg_errno(errp, errno, "cannot daemonize: setsid");
        return false;
    }
    /* A second fork so the daemon can never reacquire a terminal. */
    pid = fork();
    if (pid < 0) {
        error_setg_errno(errp, errno, "cannot daemonize");
        return false;
    }
    if (pid > 0) {
        _exit(0);
    }
    umask(027);
    return true;
}

void os_daemonize_done(bool success)
{
    char status = success ? 0 : 1;
    int null_fd;

    if (daemon_pipe < 0) {
        return;
    }
    if (success) {
        if (chdir("/") < 0) {
            /* Not fatal: the daemon only keeps a directory busy. */
        }
        null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd >= 0) {
            dup2(null_fd, STDIN_FILENO);
            dup2(null_fd, STDOUT_FILENO);
            dup2(null_fd, STDERR_FILENO);
            close(null_fd);
        }
    }
    if (write(daemon_pipe, &status, 1) < 0) {
        /* The parent died; nobody is waiting for the verdict. */
    }
    close(daemon_pipe);
    daemon_pipe = -1;
}

bool os_write_pidfile(const char *path, Error **errp)
{
    char buf[32];
    int fd, len;
    struct stat a, b;

    /*
     * Lock the file and check that the path still names it, so two
     * instances racing for one pidfile cannot both win.
     */
    for (;;) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            error_setg_errno(errp, errno, "cannot create PID file: "
                             "Could not create '%s'", path);
            return false;
        }
        if (lockf(fd, F_TLOCK, 0) < 0) {
            error_setg_errno(errp, errno, "cannot create PID file: "
                             "Cannot lock pid file");
            close(fd);
            return false;
        }
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
            a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            break;
        }
        close(fd);
    }
    len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
    if (ftruncate(fd, 0) < 0 || write(fd, buf, len) != len) {
        error_setg_errno(errp, errno, "cannot create PID file: "
                         "Failed to write pid file");
        unlink(path);
        close(fd);
        return false;
    }
    pidfile_fd = fd;
    pidfile_path = g_strdup(path);
    return true;
}

void os_remove_pidfile(void)
{
    if (pidfile_path) {
        unlink(pidfile_path);
        close(pidfile_fd);
        pidfile_fd = -1;
        g_clear_pointer(&pidfile_path, g_free);
    }
}

char *os_process_name(int pid)
{
    char *path = g_strdup_printf("/proc/%d/cmdline", pid);
    char *contents = NULL;
    char *name;

    if (!g_file_get_contents(path, &contents, NULL, NULL) || !contents[0]) {
        name = g_strdup("unknown");
    } else {
        name = g_path_get_basename(contents);
    }
    g_free(contents);
    g_free(path);
    return name;
}

/*
 * cachestat(2), Linux 6.5. Debian 12's headers predate it: its number is
 * 451 in the table every architecture but alpha shares.
 */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct os_cachestat_range {
    uint64_t off, len;                  /* len 0: to the end of the file */
};

struct os_cachestat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
             nr_recently_evicted;       /* in pages */
};

int os_cachestat(int fd, OsCacheStat *cs)
{
    struct os_cachestat_range range = { 0, 0 };
    struct os_cachestat st = { 0 };
    uint64_t page = (uint64_t)getpagesize();

    if (syscall(__NR_cachestat, fd, &range, &st, 0) < 0) {
        return -errno;
    }
    cs->resident = st.nr_cache * page;
    cs->dirty = st.nr_dirty * page;
    cs->writeback = st.nr_writeback * page;
    return 0;
}
