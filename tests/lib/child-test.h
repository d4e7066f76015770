/*
 * A test case that must run in a process of its own (mlockall, mem-lock
 * state): the child passes by exiting 0, fails with an assertion, or
 * skips with a reason the parent reports (tests/lib/child-test.c).
 */
#ifndef TESTS_UNIT_CHILD_TEST_H
#define TESTS_UNIT_CHILD_TEST_H

#include <stdbool.h>

#include <glib.h>

/* Fork, run fn(flag, report_fd) in the child, and wait for its verdict. */
void child_test_run(void (*fn)(bool flag, int report_fd), bool flag);
/* In the child: end it as skipped, with why for the test log. */
G_NORETURN void child_test_skip(int report_fd, const char *why);

#endif
