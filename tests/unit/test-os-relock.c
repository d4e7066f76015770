/*
 * os_munlock() and os_relock() (system/os-posix.c), the unlock and the
 * relock around postcopy on a destination under -overcommit mem-lock.
 * In a child each (mlockall covers the whole process), on a 64 MiB
 * anonymous mapping of which 8 MiB were touched, read back from the
 * kernel (/proc/self/status VmRSS, VmLck; smaps_rollup Locked):
 *   /os-relock/on        VmLck 0 after the unlock; the relock populates
 *                        and locks all 64 MiB
 *   /os-relock/on-fault  the relock leaves RSS at the 8 MiB touched,
 *                        locked; pages touched later come in locked
 *   /os-relock/test-switch  QEMU_TEST_RELOCK_NO_ONFAULT=1 makes the
 *                        on-fault relock populate everything (the
 *                        functional test's negative control)
 * Skipped, with the reason, where locking is not allowed or does nothing
 * (ASan's mlockall interceptor).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "child-test.h"
#include "system/os-posix.h"

#define MiB (1024 * 1024ull)
#define MAP_MIB 64
#define TOUCHED_MIB 8

/* A figure in MiB: "VmRSS", "VmLck" of status, "Locked" of smaps_rollup. */
static uint64_t figure_mib(const char *file, const char *key)
{
    char *text = NULL, *path = g_strdup_printf("/proc/self/%s", file);
    uint64_t v = 0;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    for (char *line = text; line && *line; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (g_str_has_prefix(line, key) && line[strlen(key)] == ':') {
            v = strtoull(line + strlen(key) + 1, NULL, 10) / 1024;
            break;
        }
    }
    g_free(text);
    g_free(path);
    return v;
}

static void relock_child(bool on_fault, int report_fd)
{
    size_t size = MAP_MIB * MiB;
    bool forced = !g_strcmp0(getenv("QEMU_TEST_RELOCK_NO_ONFAULT"), "1");
    uint64_t rss;
    uint8_t *p;
    int ret = os_mlock(false);      /* as -overcommit mem-lock=on did */

    if (ret < 0) {
        char *why = os_mlock_explain(ret);

        child_test_skip(report_fd, why);
    }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    g_assert_true(p != MAP_FAILED);
    if (!figure_mib("status", "VmLck")) {
        child_test_skip(report_fd, "mlockall() locked nothing (ASan's "
                   "interceptor)");
    }
    g_assert_cmpint(os_munlock(), ==, 0);
    g_assert_cmpuint(figure_mib("status", "VmLck"), ==, 0);
    /* What postcopy leaves: most of the guest RAM not resident. */
    g_assert_cmpint(madvise(p, size, MADV_DONTNEED), ==, 0);
    memset(p, 1, TOUCHED_MIB * MiB);
    rss = figure_mib("status", "VmRSS");
    ret = os_relock(on_fault);
    if (ret == -EOPNOTSUPP) {
        child_test_skip(report_fd, "this kernel or build has no MCL_ONFAULT");
    }
    g_assert_cmpint(ret, ==, 0);
    g_assert_cmpuint(figure_mib("status", "VmLck"), >=, MAP_MIB);
    if (on_fault && !forced) {
        g_assert_cmpuint(figure_mib("status", "VmRSS"), <, rss + 4);
        g_assert_cmpuint(figure_mib("smaps_rollup", "Locked"), >=,
                         TOUCHED_MIB);
        g_assert_cmpuint(figure_mib("smaps_rollup", "Locked"), <,
                         MAP_MIB / 2);
        memset(p + TOUCHED_MIB * MiB, 1, TOUCHED_MIB * MiB);
        g_assert_cmpuint(figure_mib("smaps_rollup", "Locked"), >=,
                         2 * TOUCHED_MIB);
    } else {
        g_assert_cmpuint(figure_mib("status", "VmRSS"), >=,
                         rss + MAP_MIB - TOUCHED_MIB - 1);
        g_assert_cmpuint(figure_mib("smaps_rollup", "Locked"), >=, MAP_MIB);
    }
    _exit(0);
}


static void test_on(void)
{
    child_test_run(relock_child, false);
}

static void test_on_fault(void)
{
    child_test_run(relock_child, true);
}

static void test_switch(void)
{
    g_setenv("QEMU_TEST_RELOCK_NO_ONFAULT", "1", TRUE);
    child_test_run(relock_child, true);
    g_unsetenv("QEMU_TEST_RELOCK_NO_ONFAULT");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_unsetenv("QEMU_TEST_RELOCK_NO_ONFAULT");
    g_test_add_func("/os-relock/on", test_on);
    g_test_add_func("/os-relock/on-fault", test_on_fault);
    g_test_add_func("/os-relock/test-switch", test_switch);
    return g_test_run();
}
