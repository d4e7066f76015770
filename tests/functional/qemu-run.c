/*
 * Running the emulator from tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu-run.h"

const char *qemu_binary(void)
{
    const char *env = g_getenv("QTEST_QEMU_BINARY");

    return env ? env : QEMU_BINARY;
}

int qemu_run_argv(char **argv, char **out, char **err)
{
    GError *gerr = NULL;
    int status = -1;
    char *o = NULL, *e = NULL;

    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL,
                      NULL, &o, &e, &status, &gerr)) {
        g_error("cannot run %s: %s", argv[0], gerr->message);
    }
    if (out) {
        *out = o;
    } else {
        g_free(o);
    }
    if (err) {
        *err = e;
    } else {
        g_free(e);
    }
    return status;
}

static char **build_argv(const char *args)
{
    char **words = g_strsplit_set(args, " ", -1);
    GPtrArray *argv = g_ptr_array_new();

    g_ptr_array_add(argv, g_strdup(qemu_binary()));
    for (char **w = words; *w; w++) {
        if (**w) {
            g_ptr_array_add(argv, g_strdup(*w));
        }
    }
    g_ptr_array_add(argv, NULL);
    g_strfreev(words);
    return (char **)g_ptr_array_free(argv, FALSE);
}

int qemu_run(const char *args, char **out, char **err)
{
    char **argv = build_argv(args);
    int status = qemu_run_argv(argv, out, err);

    g_strfreev(argv);
    return status;
}

pid_t qemu_spawn(const char *args, int *stderr_fd)
{
    char **argv = build_argv(args);
    GError *gerr = NULL;
    GPid pid;

    if (!g_spawn_async_with_pipes(NULL, argv, NULL,
                                  G_SPAWN_DO_NOT_REAP_CHILD |
                                  G_SPAWN_STDIN_FROM_DEV_NULL,
                                  NULL, NULL, &pid, NULL, NULL, stderr_fd,
                                  &gerr)) {
        g_error("cannot run %s: %s", argv[0], gerr->message);
    }
    g_strfreev(argv);
    return pid;
}

bool qemu_wait_signals_ready(pid_t pid, int timeout_ms)
{
    char *path = g_strdup_printf("/proc/%d/status", (int)pid);
    bool ready = false;

    for (int waited = 0; waited < timeout_ms && !ready; waited += 5) {
        char *contents = NULL;
        char *blk;

        if (g_file_get_contents(path, &contents, NULL, NULL) &&
            (blk = strstr(contents, "SigBlk:"))) {
            unsigned long long mask = strtoull(blk + 7, NULL, 16);

            ready = mask & (1ull << (SIGTERM - 1));
        }
        g_free(contents);
        if (!ready) {
            g_usleep(5000);
        }
    }
    g_free(path);
    return ready;
}

char *read_all_fd(int fd)
{
    GString *s = g_string_new(NULL);
    char buf[4096];
    ssize_t n;

    while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0) {
            g_string_append_len(s, buf, n);
        }
    }
    close(fd);
    return g_string_free(s, FALSE);
}

long proc_status_kb(pid_t pid, const char *field)
{
    char *path = g_strdup_printf("/proc/%d/status", (int)pid);
    char *contents = NULL;
    long value = -1;

    if (g_file_get_contents(path, &contents, NULL, NULL)) {
        char *key = g_strdup_printf("\n%s:", field);
        char *p = strstr(contents, key);

        if (p) {
            value = strtol(p + strlen(key), NULL, 10);
        }
        g_free(key);
    }
    g_free(contents);
    g_free(path);
    return value;
}

bool wait_pid_gone(pid_t pid, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 5) {
        if (kill(pid, 0) < 0 && errno == ESRCH) {
            return true;
        }
        g_usleep(5000);
    }
    return false;
}
