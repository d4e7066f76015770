/*
 * Test cases run in a child process (tests/lib/child-test.h): exit
 * status 77 means skipped, with the reason written to a pipe.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child-test.h"

#define EXIT_SKIP 77

void child_test_skip(int report_fd, const char *why)
{
    if (write(report_fd, why, strlen(why)) < 0) {
        /* the parent skips without the reason */
    }
    _exit(EXIT_SKIP);
}

void child_test_run(void (*fn)(bool flag, int report_fd), bool flag)
{
    int pipefd[2], status;
    char why[256] = "";
    pid_t pid;
    ssize_t n;

    g_assert_cmpint(pipe(pipefd), ==, 0);
    pid = fork();
    g_assert_cmpint(pid, >=, 0);
    if (pid == 0) {
        close(pipefd[0]);
        fn(flag, pipefd[1]);
        _exit(0);
    }
    close(pipefd[1]);
    n = read(pipefd[0], why, sizeof(why) - 1);
    why[n > 0 ? n : 0] = 0;
    close(pipefd[0]);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP) {
        g_test_skip(why[0] ? why : "skipped by the child");
        return;
    }
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}
