/*
 * ram_block_discard_range(): the pages a guest gives back leave the
 * process. Checked with the kernel's own figures (/proc/self/status
 * VmRSS, VmLck; st_blocks of a memfd) on real mappings: anonymous,
 * memfd, and anonymous under mlockall() as -overcommit mem-lock=on and
 * on-fault set it up. The locked cases run in a child each (mlockall
 * covers the whole process) and are skipped, with the reason, where
 * locking 64 MiB is not allowed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "child-test.h"
#include "system/os-posix.h"
#include "system/ramblock.h"
#include "system/system.h"

#define MiB (1024 * 1024ull)
#define BLOCK_SIZE (64 * MiB)
#define DISCARD_OFF (8 * MiB)
#define DISCARD_LEN (48 * MiB)

/* A /proc/self/status figure in KiB ("VmRSS", "VmLck"). */
static uint64_t status_kib(const char *key)
{
    char *text = NULL;
    uint64_t v = 0;

    g_assert_true(g_file_get_contents("/proc/self/status", &text, NULL,
                                      NULL));
    for (char *line = text; line && *line; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (g_str_has_prefix(line, key) && line[strlen(key)] == ':') {
            v = g_ascii_strtoull(line + strlen(key) + 1, NULL, 10);
            break;
        }
    }
    g_free(text);
    return v;
}

static unsigned map_count(void)
{
    char *text = NULL;
    unsigned n = 0;

    g_assert_true(g_file_get_contents("/proc/self/maps", &text, NULL, NULL));
    for (const char *c = text; *c; c++) {
        n += *c == '\n';
    }
    g_free(text);
    return n;
}

static bool all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i += 4096) {
        if (p[i] || p[i + 4095]) {
            return false;
        }
    }
    return true;
}

static RAMBlock *anon_block(void)
{
    Error *err = NULL;
    RAMBlock *rb = ram_block_new("test", -1, BLOCK_SIZE, 4096, 0, 0, &err);

    g_assert_null(err);
    return rb;
}

/* Dirty the block, discard the middle; how many KiB of RSS went. */
static uint64_t dirty_and_discard(RAMBlock *rb)
{
    Error *err = NULL;
    uint64_t before, after;

    memset(rb->host, 0x5a, rb->size);
    before = status_kib("VmRSS");
    g_assert_true(ram_block_discard_range(rb, DISCARD_OFF, DISCARD_LEN,
                                          &err));
    g_assert_null(err);
    after = status_kib("VmRSS");
    return before > after ? before - after : 0;
}

/* Discarded pages read as zeros (a read of shmem faults pages in). */
static void check_zeroed(RAMBlock *rb)
{
    g_assert_true(all_zero(rb->host + DISCARD_OFF, DISCARD_LEN));
    /* The rest is untouched. */
    g_assert_cmpint(rb->host[DISCARD_OFF - 1], ==, 0x5a);
    g_assert_cmpint(rb->host[DISCARD_OFF + DISCARD_LEN], ==, 0x5a);
}

/* At least 90% of the range must have left (other allocations move RSS). */
#define ASSERT_RETURNED(kib) \
    g_assert_cmpuint((kib), >=, DISCARD_LEN / 1024 * 9 / 10)

static void test_anonymous(void)
{
    RAMBlock *rb = anon_block();

    ASSERT_RETURNED(dirty_and_discard(rb));
    check_zeroed(rb);
    ram_block_free(rb);
}

static void test_memfd(void)
{
    Error *err = NULL;
    int fd = memfd_create("test-ram-discard", MFD_CLOEXEC);
    RAMBlock *rb;
    struct stat st;
    uint64_t blocks;

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, BLOCK_SIZE), ==, 0);
    rb = ram_block_new("test", fd, BLOCK_SIZE, 4096, 0,
                       RAM_SHARED | RAM_TEMPORARY | RAM_MEMFD, &err);
    g_assert_null(err);
    ASSERT_RETURNED(dirty_and_discard(rb));
    /* Gone from the file too: a hole, not pages kept for write-back. */
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    blocks = (uint64_t)st.st_blocks * 512;
    g_assert_cmpuint(blocks, <=, BLOCK_SIZE - DISCARD_LEN);
    g_assert_cmpuint(st.st_size, ==, BLOCK_SIZE);
    check_zeroed(rb);
    ram_block_free(rb);
}

static void test_bad_ranges(void)
{
    RAMBlock *rb = anon_block();
    Error *err = NULL;

    g_assert_false(ram_block_discard_range(rb, 100, 4096, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "not aligned"));
    error_free(err);
    err = NULL;
    g_assert_false(ram_block_discard_range(rb, BLOCK_SIZE - 4096, 8192,
                                           &err));
    error_free(err);
    err = NULL;
    g_assert_false(ram_block_discard_range(rb, UINT64_MAX & ~4095ull, 4096,
                                           &err));
    error_free(err);
    ram_block_free(rb);
}

static void test_from_host(void)
{
    RAMBlock *rb = anon_block();
    uint64_t off = 0;
    int local;

    g_assert_true(ram_block_from_host(rb->host + 12345, &off) == rb);
    g_assert_cmpuint(off, ==, 12345);
    g_assert_null(ram_block_from_host(rb->host + rb->size, &off));
    g_assert_null(ram_block_from_host(&local, &off));
    ram_block_free(rb);
}

/*
 * Locked: the child locks everything as vl.c does for mem-lock=on or
 * on-fault, dirties the block, discards. RSS must drop (where the
 * kernel locks on fault) and VmLck stay: without the munlock the
 * madvise fails, without the relock VmLck drops.
 */
static void locked_child(bool on_fault, int report_fd)
{
    RAMBlock *rb;
    uint64_t lck_before, lck_after, returned;
    int ret = os_mlock(on_fault);

    if (ret < 0) {
        char *why = os_mlock_explain(ret);

        child_test_skip(report_fd, why);
    }
    mlock_state = on_fault ? MLOCK_ON_FAULT : MLOCK_ON;
    rb = anon_block();
    memset(rb->host, 0x5a, rb->size);
    lck_before = status_kib("VmLck");
    if (!lck_before) {
        /* ASan's mlockall() interceptor does nothing. */
        const char *why = "mlockall() locked nothing (ASan's interceptor)";

        child_test_skip(report_fd, why);
    }
    g_assert_cmpuint(lck_before, >=, BLOCK_SIZE / 1024);
    returned = dirty_and_discard(rb);
    lck_after = status_kib("VmLck");
    g_assert_cmpuint(lck_after, ==, lck_before);
    check_zeroed(rb);
    if (os_mlock_range_on_fault(rb->host, 4096) == -EOPNOTSUPP) {
        /* Locked again whole: the lock holds, nothing comes back. */
        g_test_message("no MLOCK_ONFAULT: the range was locked again whole");
    } else {
        ASSERT_RETURNED(returned);
        /* Touched again, the pages come back (and are locked). */
        memset(rb->host + DISCARD_OFF, 1, DISCARD_LEN);
        g_assert_cmpuint(status_kib("VmRSS"), >=,
                         DISCARD_LEN / 1024 * 9 / 10);
        g_assert_cmpuint(status_kib("VmLck"), ==, lck_before);
    }
    /*
     * A balloon's pages are scattered: every other page discarded must
     * not split the mapping into a VMA per page (vm.max_map_count).
     */
    {
        unsigned maps = map_count();
        Error *err = NULL;

        for (uint64_t off = 0; off < 16 * MiB; off += 8192) {
            g_assert_true(ram_block_discard_range(rb, off, 4096, &err));
        }
        g_assert_cmpuint(map_count(), <, maps + 8);
    }
    ram_block_free(rb);
    _exit(0);
}


static void test_locked_on(void)
{
    child_test_run(locked_child, false);
}

static void test_locked_on_fault(void)
{
    child_test_run(locked_child, true);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ram-discard/anonymous", test_anonymous);
    g_test_add_func("/ram-discard/memfd", test_memfd);
    g_test_add_func("/ram-discard/bad-ranges", test_bad_ranges);
    g_test_add_func("/ram-discard/from-host", test_from_host);
    g_test_add_func("/ram-discard/mem-lock-on", test_locked_on);
    g_test_add_func("/ram-discard/mem-lock-on-fault", test_locked_on_fault);
    return g_test_run();
}
