/*
 * Helpers for tests that run the emulator binary as a user would.
 */
#ifndef TESTS_QEMU_RUN_H
#define TESTS_QEMU_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include <glib.h>

/* $QTEST_QEMU_BINARY, or the binary of this build. */
const char *qemu_binary(void);

/*
 * Run the emulator with the space-separated args (no quoting; use
 * qemu_run_argv for arguments with spaces) and wait for it; stdout and
 * stderr are captured. Returns the wait status.
 */
int qemu_run(const char *args, char **out, char **err);
int qemu_run_argv(char **argv, char **out, char **err);

/* Start it in the background, stdin from /dev/null, stderr to a pipe. */
pid_t qemu_spawn(const char *args, int *stderr_fd);
/* Wait until pid blocks SIGTERM, i.e. its main loop can take signals. */
bool qemu_wait_signals_ready(pid_t pid, int timeout_ms);
/* Read everything from fd until EOF and close it. */
char *read_all_fd(int fd);

/* A field of /proc/PID/status in KiB ("VmRSS"), or -1. */
long proc_status_kb(pid_t pid, const char *field);
/* Wait until pid is gone (it is not our child). */
bool wait_pid_gone(pid_t pid, int timeout_ms);

#endif
