/*
 * What the teardown will do and did, as the user is told: query-memdev's
 * "backing", "teardown", "teardown-method", "teardown-reason" and
 * "page-cache" (cachestat(2)) while the guest runs, and the -d guest_ram
 * line per block at exit, checked against the kernel's accounting in
 * /proc/PID/io of the emulator and of the discard helper
 * (teardown-helper).
 *
 * A 512 MiB guest under qtest dirties 256 MiB (qtest memset), then:
 *   memfd           discard (truncate) by the helper: resident ~256 MiB,
 *                   dirty 0 (shmem pages are never dirty for writeback,
 *                   and nothing shows in /proc/PID/io)
 *   discard-data    discard (punch-hole) by the helper: dirty ~256 MiB,
 *                   equal to the helper's cancelled_write_bytes
 *   keep-data       keep (discard-data-off) by the emulator: dirty ~256
 *                   MiB, equal to what the emulator's write_bytes left
 *   in-use          discard-data=on, but this test holds the file open:
 *                   keep (in-use), and the helper cancels nothing
 *   anonymous       unmap, no page cache
 * (An exported fd has no command-line path yet; tests/unit/test-hostmem.c
 * checks that case in process.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "teardown-helper.h"

#define RAM_MIB         512
#define DIRTY_MIB       256
#define DIRTY           ((uint64_t)DIRTY_MIB << 20)
/* The emulator writes tables and boot data into guest RAM too. */
#define SLACK           ((uint64_t)16 << 20)
/* A named file's faults read ahead: clean pages beside the dirty ones. */
#define READAHEAD       ((uint64_t)64 << 20)
#define PATTERN         0x3c

typedef enum Backing {
    BACKING_MEMFD,
    BACKING_FILE_DISCARD,
    BACKING_FILE_KEEP,
    BACKING_FILE_IN_USE,
    BACKING_ANONYMOUS,
} Backing;

typedef struct Case {
    const char *path;
    Backing backing;
    /* query-memdev */
    const char *q_backing, *teardown, *method, *reason;
    /* the exit line */
    const char *l_action, *l_detail;
    bool by_helper;
} Case;

static const Case cases[] = {
    { "/memdev-teardown/memfd", BACKING_MEMFD, "memfd", "discard",
      "truncate", NULL, "discard", "truncate", true },
    { "/memdev-teardown/discard-data", BACKING_FILE_DISCARD, "file",
      "discard", "punch-hole", NULL, "discard", "punch-hole", true },
    { "/memdev-teardown/keep-data", BACKING_FILE_KEEP, "file", "keep", NULL,
      "discard-data-off", "keep", "discard-data-off", false },
    { "/memdev-teardown/in-use", BACKING_FILE_IN_USE, "file", "keep", NULL,
      "in-use", "keep", "in-use", true },
    { "/memdev-teardown/anonymous", BACKING_ANONYMOUS, "anonymous", "unmap",
      NULL, "anonymous", "unmap", "anonymous", false },
};

static bool have_proc_io;
static int cachestat_errno;         /* 0: the kernel has cachestat(2) */

/* One parsed -d guest_ram line. */
typedef struct ExitLine {
    char *backing, *action, *detail, *verb, *who;
    bool page_cache;
    uint64_t dirty, resident;
    int pid;
} ExitLine;

static bool parse_exit_line(const char *log, const char *id, ExitLine *l)
{
    char *pattern = g_strdup_printf(
        "^guest_ram: '%s' (\\S+): (\\S+) \\((\\S+)\\): (?:(\\d+) dirty, "
        "(\\d+) resident bytes of page cache (discarded|left to write back)"
        "|no page cache,) by the (emulator|discard helper) \\(pid (\\d+)\\)$",
        id);
    GRegex *re = g_regex_new(pattern, G_REGEX_MULTILINE, 0, NULL);
    GMatchInfo *m = NULL;
    bool found = g_regex_match(re, log, 0, &m);

    if (found) {
        char *dirty = g_match_info_fetch(m, 4);

        l->backing = g_match_info_fetch(m, 1);
        l->action = g_match_info_fetch(m, 2);
        l->detail = g_match_info_fetch(m, 3);
        l->page_cache = dirty && *dirty;
        if (l->page_cache) {
            char *resident = g_match_info_fetch(m, 5);

            l->dirty = g_ascii_strtoull(dirty, NULL, 10);
            l->resident = g_ascii_strtoull(resident, NULL, 10);
            g_free(resident);
        }
        l->verb = g_match_info_fetch(m, 6);
        l->who = g_match_info_fetch(m, 7);
        char *pid = g_match_info_fetch(m, 8);
        l->pid = atoi(pid);
        g_free(pid);
        g_free(dirty);
        /* Exactly one line per block. */
        g_assert_false(g_match_info_next(m, NULL));
    }
    g_match_info_free(m);
    g_regex_unref(re);
    g_free(pattern);
    return found;
}

static void exit_line_free(ExitLine *l)
{
    g_free(l->backing);
    g_free(l->action);
    g_free(l->detail);
    g_free(l->verb);
    g_free(l->who);
}

static JsonObject *query_memdev(QTestState *s, JsonNode **reply, const char *id)
{
    JsonObject *top, *found = NULL;
    JsonArray *list;

    *reply = qtest_qmp(s, "{\"execute\": \"query-memdev\"}");
    top = json_node_get_object(*reply);
    g_assert_true(json_object_has_member(top, "return"));
    list = json_object_get_array_member(top, "return");
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *m = json_array_get_object_element(list, i);

        if (!strcmp(json_object_get_string_member(m, "id"), id)) {
            found = m;
        }
    }
    g_assert_nonnull(found);
    /* QEMU's members stay. */
    g_assert_cmpint(json_object_get_int_member(found, "size"), ==,
                    (gint64)RAM_MIB << 20);
    g_assert_true(json_object_has_member(found, "policy"));
    return found;
}

static const char *opt_string(JsonObject *m, const char *key)
{
    return json_object_has_member(m, key)
           ? json_object_get_string_member(m, key) : NULL;
}

static void assert_near(const char *what, uint64_t v, uint64_t lo,
                        uint64_t hi)
{
    if (v < lo || v > hi) {
        g_error("%s is %" G_GUINT64_FORMAT " bytes, expected %"
                G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT, what, v, lo, hi);
    }
}

/*
 * Pages the kernel has written back, host-wide (/proc/vmstat nr_written),
 * in bytes: dirty page cache may be written back at any time (other
 * writers can push the host over its background threshold), so a dirty
 * figure may fall short of what the guest dirtied by at most this much.
 */
static uint64_t written_back_bytes(void)
{
    gchar *text = NULL;
    const char *p;
    uint64_t v = 0;

    g_assert_true(g_file_get_contents("/proc/vmstat", &text, NULL, NULL));
    p = strstr(text, "\nnr_written ");
    g_assert_nonnull(p);
    v = g_ascii_strtoull(p + strlen("\nnr_written "), NULL, 10) * 4096;
    g_free(text);
    return v;
}

static void test_case(const void *data)
{
    const Case *c = data;
    const char *disk = teardown_disk_dir();
    char *dir, *file, *logpath, *args, *log = NULL, *back;
    const char *id = c->backing == BACKING_ANONYMOUS ? "pc.ram" : "m";
    JsonNode *reply;
    JsonObject *m;
    QTestState *s;
    TeardownResult r;
    ExitLine l = { 0 };
    int holder = -1;
    uint64_t written0, early = 0;
    bool file_backed = c->backing == BACKING_FILE_DISCARD ||
                       c->backing == BACKING_FILE_KEEP ||
                       c->backing == BACKING_FILE_IN_USE;

    if (!have_proc_io) {
        g_test_skip("/proc/PID/io is unavailable (no task I/O accounting)");
        return;
    }
    if (cachestat_errno == ENOSYS) {
        g_test_skip("this kernel lacks cachestat(2) (Linux 6.5+): the "
                    "figures would only say so");
        return;
    }
    if (!disk) {
        g_test_skip("no writable directory on a filesystem with writeback; "
                    "set TEARDOWN_DIR");
        return;
    }
    dir = g_build_filename(disk, "qemu-memdev-XXXXXX", NULL);
    g_assert_nonnull(g_mkdtemp(dir));
    file = g_build_filename(dir, "guest-ram", NULL);
    logpath = g_build_filename(dir, "log", NULL);
    switch (c->backing) {
    case BACKING_MEMFD:
        back = g_strdup_printf("-object memory-backend-memfd,id=m,size=%uM "
                               "-machine memory-backend=m", RAM_MIB);
        break;
    case BACKING_ANONYMOUS:
        back = g_strdup("");
        break;
    default:
        back = g_strdup_printf("-object memory-backend-file,id=m,size=%uM,"
                               "mem-path=%s,share=on,discard-data=%s "
                               "-machine memory-backend=m", RAM_MIB, file,
                               c->backing == BACKING_FILE_KEEP ? "off"
                                                               : "on");
        break;
    }
    args = g_strdup_printf("%s -d guest_ram -D %s", back, logpath);
    g_test_message("%s", args);
    sync();
    s = teardown_start(RAM_MIB, args);
    written0 = written_back_bytes();
    teardown_dirty(s, DIRTY_MIB, PATTERN);
    if (c->backing == BACKING_FILE_IN_USE) {
        holder = open(file, O_RDWR);
        g_assert_cmpint(holder, >=, 0);
    }

    /* What query-memdev says now. */
    m = query_memdev(s, &reply, id);
    g_assert_cmpstr(opt_string(m, "backing"), ==, c->q_backing);
    g_assert_cmpstr(opt_string(m, "teardown"), ==, c->teardown);
    g_assert_cmpstr(opt_string(m, "teardown-method"), ==, c->method);
    g_assert_cmpstr(opt_string(m, "teardown-reason"), ==, c->reason);
    if (c->backing == BACKING_ANONYMOUS) {
        g_assert_false(json_object_has_member(m, "page-cache"));
    } else {
        JsonObject *pc;
        uint64_t resident, dirty;

        g_assert_true(json_object_has_member(m, "page-cache"));
        pc = json_object_get_object_member(m, "page-cache");
        resident = json_object_get_int_member(pc, "resident");
        dirty = json_object_get_int_member(pc, "dirty") +
                json_object_get_int_member(pc, "writeback");
        early = MIN(written_back_bytes() - written0, DIRTY);
        g_test_message("query-memdev page-cache: resident %" G_GUINT64_FORMAT
                       " dirty %" G_GUINT64_FORMAT, resident, dirty);
        assert_near("query-memdev resident", resident, DIRTY,
                    DIRTY + (file_backed ? READAHEAD : SLACK));
        if (file_backed) {
            assert_near("query-memdev dirty + writeback", dirty,
                        DIRTY - early, DIRTY + SLACK);
        } else {
            g_assert_cmpuint(dirty, ==, 0);     /* shmem */
        }
    }
    json_node_unref(reply);

    r = teardown_exit(s, TEARDOWN_EXIT_QUIT);
    early = MIN(written_back_bytes() - written0, DIRTY);
    if (early) {
        g_test_message("the host wrote back %" G_GUINT64_FORMAT " bytes "
                       "meanwhile", early);
    }
    g_assert_true(WIFEXITED(r.wstatus));
    g_assert_cmpint(WEXITSTATUS(r.wstatus), ==, 0);
    g_assert_true(g_file_get_contents(logpath, &log, NULL, NULL));
    g_test_message("log:\n%s", log);
    if (!parse_exit_line(log, id, &l)) {
        g_error("no guest_ram line for '%s' in the log:\n%s", id, log);
    }
    g_assert_cmpstr(l.backing, ==, c->q_backing);
    g_assert_cmpstr(l.action, ==, c->l_action);
    g_assert_cmpstr(l.detail, ==, c->l_detail);
    if (c->by_helper) {
        g_assert_cmpstr(l.who, ==, "discard helper");
        g_assert_cmpuint(r.helpers, ==, 1);
        g_assert_cmpint(l.pid, ==, r.helper_pid);
    } else {
        g_assert_cmpstr(l.who, ==, "emulator");
        g_assert_cmpuint(r.helpers, ==, 0);
        g_assert_cmpint(l.pid, ==, r.emulator_pid);
    }

    /* The line's figures against the kernel's accounting. */
    switch (c->backing) {
    case BACKING_MEMFD:
        g_assert_cmpstr(l.verb, ==, "discarded");
        assert_near("resident discarded", l.resident, DIRTY, DIRTY + SLACK);
        g_assert_cmpuint(l.dirty, ==, 0);
        /* Only the log file's own pages. */
        g_assert_cmpuint(r.io.write_bytes, <, 1u << 20);
        g_assert_cmpuint(r.io.cancelled_write_bytes, ==, 0);
        break;
    case BACKING_FILE_DISCARD: {
        /* Cancelled by the helper: exactly what it found dirty. */
        uint64_t helper_cancelled = r.io.cancelled_write_bytes -
                                    r.emulator_io.cancelled_write_bytes;

        g_assert_cmpstr(l.verb, ==, "discarded");
        assert_near("dirty discarded", l.dirty, DIRTY - early, DIRTY + SLACK);
        g_assert_cmpuint(helper_cancelled, ==, l.dirty);
        break;
    }
    case BACKING_FILE_KEEP:
        g_assert_cmpstr(l.verb, ==, "left to write back");
        assert_near("dirty left", l.dirty, DIRTY - early, DIRTY + SLACK);
        /* Dirtied by the emulator, minus any early writeback. */
        assert_near("dirty left against write_bytes", l.dirty,
                    r.emulator_io.write_bytes - early - (1u << 20),
                    r.emulator_io.write_bytes);
        g_assert_cmpuint(r.io.cancelled_write_bytes, ==, 0);
        break;
    case BACKING_FILE_IN_USE:
        g_assert_cmpstr(l.verb, ==, "left to write back");
        assert_near("dirty left", l.dirty, DIRTY - early, DIRTY + SLACK);
        g_assert_cmpuint(r.io.cancelled_write_bytes, <, 4u << 20);
        break;
    case BACKING_ANONYMOUS:
        g_assert_false(l.page_cache);
        break;
    }
    exit_line_free(&l);
    if (holder >= 0) {
        close(holder);
    }
    unlink(file);
    unlink(logpath);
    g_assert_cmpint(rmdir(dir), ==, 0);
    g_free(log);
    g_free(args);
    g_free(back);
    g_free(logpath);
    g_free(file);
    g_free(dir);
}

int main(int argc, char **argv)
{
    TeardownIO io;
    uint64_t range[2] = { 0, 0 }, st[5];
    int fd;

    g_test_init(&argc, &argv, NULL);
    have_proc_io = teardown_read_proc_io(getpid(), &io);
    /* cachestat(2) is 451; Debian 12's headers do not know it. */
    fd = memfd_create("probe", 0);
    if (fd >= 0 && syscall(451, fd, range, st, 0) < 0) {
        cachestat_errno = errno;
    }
    if (fd >= 0) {
        close(fd);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        qtest_add_data_func(cases[i].path, &cases[i], test_case);
    }
    return g_test_run();
}
