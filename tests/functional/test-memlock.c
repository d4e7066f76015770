/*
 * -overcommit mem-lock=off|on|on-fault, measured the way the kernel
 * reports it in /proc/PID/status.
 *
 * Criteria, after QEMU's own functional test for this feature:
 *   off       VmLck is 0
 *   on        VmLck > 0 and VmRSS at least 70% of VmSize (all populated)
 *   on-fault  VmLck covers the mappings (Linux counts locked mappings,
 *             resident or not) while VmRSS stays within 2 MiB of the
 *             mem-lock=off process
 * With no guest RAM (-machine none) the whole process is a few MiB of
 * libraries, so the "VmRSS at most 30% of VmSize" clause QEMU applies to
 * a VM with a 1 GiB guest is checked by the RAM tests, not here.
 */
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "config-host.h"
#include "qemu-vm.h"

typedef struct MemFigures {
    long size, rss, lck;
    char debug_lib[256];    /* a debugging-only library it mapped, or "" */
} MemFigures;

/*
 * Libraries only some debugging option uses, opened when that option
 * asks (dlopen): under mem-lock=on whatever is mapped is locked, and
 * libcapstone.so.4 alone (-d in_asm) is 6.5 MB.
 */
static const char *const debug_libs[] = { "libcapstone.so" };

/* The line of the first debugging-only library in /proc/PID/maps. */
static void debug_lib_mapped(pid_t pid, char *out, size_t size)
{
    char *path = g_strdup_printf("/proc/%d/maps", (int)pid);
    char *maps;

    g_assert_true(g_file_get_contents(path, &maps, NULL, NULL));
    out[0] = '\0';
    for (unsigned i = 0; i < G_N_ELEMENTS(debug_libs) && !out[0]; i++) {
        const char *p = strstr(maps, debug_libs[i]);

        if (p) {
            const char *eol = strchrnul(p, '\n');
            const char *bol = p;

            while (bol > maps && bol[-1] != '\n') {
                bol--;
            }
            g_strlcpy(out, bol, MIN(size, (size_t)(eol - bol) + 1));
        }
    }
    g_free(maps);
    g_free(path);
}

static const char *test_accel(void)
{
    return access("/dev/kvm", R_OK | W_OK) == 0 ? "kvm" : "qtest";
}

/* Start a daemonized -machine none, read its figures, stop it. */
static MemFigures measure(const char *mode)
{
    char *dir = g_dir_make_tmp("qemu-memlock-XXXXXX", NULL);
    char *pidfile = g_build_filename(dir, "vm.pid", NULL);
    char *args = g_strdup_printf("-M none -display none -accel %s "
                                 "-overcommit mem-lock=%s -daemonize "
                                 "-pidfile %s", test_accel(), mode, pidfile);
    char *err, *contents;
    int status = qemu_run(args, NULL, &err);
    MemFigures f;
    pid_t pid;

    g_assert_cmpstr(err, ==, "");
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_true(g_file_get_contents(pidfile, &contents, NULL, NULL));
    pid = atoi(contents);
    /* -daemonize returns after mlockall, so the figures are settled. */
    f.size = proc_status_kb(pid, "VmSize");
    f.rss = proc_status_kb(pid, "VmRSS");
    f.lck = proc_status_kb(pid, "VmLck");
    debug_lib_mapped(pid, f.debug_lib, sizeof(f.debug_lib));
    g_test_message("mem-lock=%s: VmSize %ld kB, VmRSS %ld kB, VmLck %ld kB",
                   mode, f.size, f.rss, f.lck);
    kill(pid, SIGTERM);
    g_assert_true(wait_pid_gone(pid, 10000));
    g_assert_false(g_file_test(pidfile, G_FILE_TEST_EXISTS));
    g_free(contents);
    g_free(err);
    g_free(args);
    g_free(pidfile);
    rmdir(dir);
    g_free(dir);
    return f;
}

/* Send one qtest command on a connected socket and read its reply. */
static void qtest_command(int fd, const char *cmd)
{
    char reply[256];
    size_t got = 0;

    g_assert_cmpint(write(fd, cmd, strlen(cmd)), ==, (ssize_t)strlen(cmd));
    while (got < sizeof(reply) - 1) {
        ssize_t n = read(fd, reply + got, 1);

        g_assert_cmpint(n, ==, 1);
        if (reply[got++] == '\n') {
            break;
        }
    }
    reply[got] = '\0';
    g_assert_cmpstr(reply, ==, "OK\n");
}

/*
 * A 1 GiB PC under qtest that dirties dirty_mib of its RAM through the
 * qtest socket; its figures once that is done.
 */
static MemFigures measure_pc(const char *mode, unsigned dirty_mib)
{
    char *dir = g_dir_make_tmp("qemu-memlock-XXXXXX", NULL);
    char *pidfile = g_build_filename(dir, "vm.pid", NULL);
    char *sock = g_build_filename(dir, "qtest.sock", NULL);
    char *args = g_strdup_printf("-M pc -m 1G -accel qtest -display none "
                                 "-overcommit mem-lock=%s -daemonize "
                                 "-pidfile %s -qtest unix:%s,server=on,"
                                 "wait=off", mode, pidfile, sock);
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    char *err, *contents, *cmd;
    int status = qemu_run(args, NULL, &err);
    MemFigures f;
    pid_t pid;
    int fd;

    g_assert_cmpstr(err, ==, "");
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_true(g_file_get_contents(pidfile, &contents, NULL, NULL));
    pid = atoi(contents);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_strlcpy(addr.sun_path, sock, sizeof(addr.sun_path));
    g_assert_cmpint(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), ==,
                    0);
    cmd = g_strdup_printf("memset 0x100000 %u 0x5a\n", dirty_mib << 20);
    qtest_command(fd, cmd);
    f.size = proc_status_kb(pid, "VmSize");
    f.rss = proc_status_kb(pid, "VmRSS");
    f.lck = proc_status_kb(pid, "VmLck");
    g_test_message("pc -m 1G, %u MiB dirtied, mem-lock=%s: VmSize %ld kB, "
                   "VmRSS %ld kB, VmLck %ld kB", dirty_mib, mode, f.size,
                   f.rss, f.lck);
    close(fd);
    kill(pid, SIGTERM);
    g_assert_true(wait_pid_gone(pid, 10000));
    g_free(cmd);
    g_free(contents);
    g_free(err);
    g_free(args);
    g_free(sock);
    g_free(pidfile);
    rmdir(dir);
    g_free(dir);
    return f;
}

static bool skip_under_sanitizers(void)
{
#if HAVE_SANITIZERS
    /* ASan's terabytes of shadow mappings cannot be mlockall()ed. */
    g_test_skip("mlockall is not measurable under ASan (shadow memory)");
    return true;
#else
    return false;
#endif
}

static void test_off(void)
{
    MemFigures off = measure("off");

    g_assert_cmpint(off.size, >, 0);
    g_assert_cmpint(off.lck, ==, 0);
}

static void test_on(void)
{
    MemFigures on;

    if (skip_under_sanitizers()) {
        return;
    }
    on = measure("on");
    g_assert_cmpint(on.lck, >, 0);
    g_assert_cmpint(on.rss * 100, >=, on.size * 70);
}

/*
 * What is mapped is what mem-lock=on locks: libraries that only a
 * debugging option uses (capstone for -d in_asm) are not mapped at
 * start-up (disas/disas.c opens capstone on first use).
 */
static void test_no_debug_libs(void)
{
    MemFigures f = measure("off");

    g_assert_cmpstr(f.debug_lib, ==, "");
}

/*
 * Without MCL_ONFAULT on-fault must fail with one line, not lock
 * everything. -daemonize so that an emulator which wrongly started is
 * seen (its pidfile) and stopped, instead of running until the timeout.
 */
static void on_fault_refused(const char *why)
{
    char *dir = g_dir_make_tmp("qemu-memlock-XXXXXX", NULL);
    char *pidfile = g_build_filename(dir, "vm.pid", NULL);
    char *args = g_strdup_printf("-M none -display none -accel %s "
                                 "-overcommit mem-lock=on-fault -daemonize "
                                 "-pidfile %s", test_accel(), pidfile);
    char *expect = g_strdup_printf("qemu-system-x86_64: mlockall: on_fault "
                                   "not supported%s\n", why);
    char *err, *contents;
    int status = qemu_run(args, NULL, &err);

    if (g_file_get_contents(pidfile, &contents, NULL, NULL)) {
        kill(atoi(contents), SIGTERM);
        g_free(contents);
        g_error("mem-lock=on-fault started where it must be refused");
    }
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(err, ==, expect);
    g_free(err);
    g_free(expect);
    g_free(args);
    g_free(pidfile);
    rmdir(dir);
    g_free(dir);
}

/* Built without MCL_ONFAULT (-Dmcl_onfault=disabled or no probe). */
static void test_on_fault_unsupported(void)
{
    on_fault_refused("");
}

static void test_on_fault(void)
{
    MemFigures off, onf;

    if (!HAVE_MCL_ONFAULT) {
        test_on_fault_unsupported();
        return;
    }
    if (skip_under_sanitizers()) {
        return;
    }
    off = measure("off");
    onf = measure("on-fault");
    /* Every mapping is locked (VmLck counts them resident or not)... */
    g_assert_cmpint(onf.lck * 100, >=, onf.size * 90);
    /* ...but nothing was populated on that account. */
    g_assert_cmpint(onf.rss, <=, off.rss + 2048);
}

/*
 * With guest RAM: a 1 GiB guest that touched 256 MiB. QEMU's criteria
 * for a running VM: off has no locked memory; on populates and locks
 * everything (VmRSS at least 70% of VmSize, here at least the guest
 * RAM); on-fault locks every mapping but VmRSS stays at most 30% of
 * VmSize, within 5% of the mem-lock=off process.
 */
static void test_pc_guest(void)
{
    MemFigures off, on, onf;

    if (skip_under_sanitizers()) {
        return;
    }
    if (!HAVE_MCL_ONFAULT) {
        g_test_skip("this build has no MCL_ONFAULT");
        return;
    }
    off = measure_pc("off", 256);
    on = measure_pc("on", 256);
    onf = measure_pc("on-fault", 256);
    g_assert_cmpint(off.lck, ==, 0);
    g_assert_cmpint(on.lck, >, 0);
    g_assert_cmpint(on.rss * 100, >=, on.size * 70);
    g_assert_cmpint(on.rss, >=, 1024 * 1024);
    g_assert_cmpint(onf.lck * 100, >=, onf.size * 90);
    g_assert_cmpint(onf.rss * 100, <=, onf.size * 30);
    g_assert_cmpint(onf.rss * 100, <=, off.rss * 105);
    g_assert_cmpint(onf.rss, >=, 256 * 1024);
}

/*
 * The fallback of a kernel without MCL_ONFAULT and MLOCK_ONFAULT (Linux
 * before 4.4) in this build: QEMU_LEAN_NO_MCL_ONFAULT=1 makes the
 * emulator do as it would there (system/os-posix.c). on-fault is refused
 * with one line naming the switch; on still populates and locks
 * everything.
 */
static void test_no_onfault_on_fault(void)
{
    g_setenv("QEMU_LEAN_NO_MCL_ONFAULT", "1", TRUE);
    on_fault_refused(HAVE_MCL_ONFAULT ? " (QEMU_LEAN_NO_MCL_ONFAULT=1)" : "");
    g_unsetenv("QEMU_LEAN_NO_MCL_ONFAULT");
}

static void test_no_onfault_on(void)
{
    MemFigures on;

    if (skip_under_sanitizers()) {
        return;
    }
    g_setenv("QEMU_LEAN_NO_MCL_ONFAULT", "1", TRUE);
    on = measure("on");
    g_unsetenv("QEMU_LEAN_NO_MCL_ONFAULT");
    g_assert_cmpint(on.lck, >, 0);
    g_assert_cmpint(on.rss * 100, >=, on.size * 70);
}

/*
 * Run the emulator as a process without CAP_IPC_LOCK and with a 64 KiB
 * RLIMIT_MEMLOCK, the situation of an unprivileged user.
 */
static void test_rlimit(gconstpointer data)
{
    const char *mode = data;
    int errpipe[2];
    pid_t pid;
    int status;
    char *err, *expect;

    if (!HAVE_MCL_ONFAULT && !strcmp(mode, "on-fault")) {
        test_on_fault_unsupported();
        return;
    }
    if (skip_under_sanitizers()) {
        return;
    }
    g_assert_cmpint(pipe(errpipe), ==, 0);
    pid = fork();
    g_assert_cmpint(pid, >=, 0);
    if (pid == 0) {
        struct rlimit rl = { 64 * 1024, 64 * 1024 };
        char *mem_lock = g_strdup_printf("mem-lock=%s", mode);
        const char *accel = test_accel();

        dup2(errpipe[1], STDERR_FILENO);
        close(errpipe[0]);
        if (geteuid() == 0) {
            struct __user_cap_header_struct hdr = {
                .version = _LINUX_CAPABILITY_VERSION_3,
            };
            struct __user_cap_data_struct caps[2];

            /* Root keeps CAP_IPC_LOCK across exec unless it is gone
             * from the bounding set and the inheritable set. */
            prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0);
            syscall(SYS_capget, &hdr, caps);
            caps[0].effective &= ~(1u << CAP_IPC_LOCK);
            caps[0].permitted &= ~(1u << CAP_IPC_LOCK);
            caps[0].inheritable &= ~(1u << CAP_IPC_LOCK);
            syscall(SYS_capset, &hdr, caps);
        }
        setrlimit(RLIMIT_MEMLOCK, &rl);
        execl(qemu_binary(), qemu_binary(), "-M", "none", "-display", "none",
              "-accel", accel, "-overcommit", mem_lock, (char *)NULL);
        _exit(127);
    }
    close(errpipe[1]);
    err = read_all_fd(errpipe[0]);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    expect = g_strdup_printf("qemu-system-x86_64: locking memory failed: %s "
                             "(RLIMIT_MEMLOCK is 64 KiB; raise it with "
                             "'ulimit -l' or give the process CAP_IPC_LOCK)\n",
                             g_strerror(ENOMEM));
    g_assert_cmpstr(err, ==, expect);
    g_free(expect);
    g_free(err);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    /* Set by the no-onfault cases alone, for their emulators. */
    g_unsetenv("QEMU_LEAN_NO_MCL_ONFAULT");
    g_test_add_func("/memlock/off", test_off);
    g_test_add_func("/memlock/on", test_on);
    g_test_add_func("/memlock/on-fault", test_on_fault);
    g_test_add_func("/memlock/no-debug-libraries", test_no_debug_libs);
    g_test_add_func("/memlock/pc-1G-dirty-256M", test_pc_guest);
    g_test_add_data_func("/memlock/rlimit/on", "on", test_rlimit);
    g_test_add_data_func("/memlock/rlimit/on-fault", "on-fault", test_rlimit);
    g_test_add_func("/memlock/no-onfault/on-fault", test_no_onfault_on_fault);
    g_test_add_func("/memlock/no-onfault/on", test_no_onfault_on);
    return g_test_run();
}
