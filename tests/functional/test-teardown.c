/*
 * An exiting emulator must not leave dirty guest RAM for the disk to
 * write, unless the user asked to keep it. The proof is the kernel's own
 * accounting, read from the zombie before it is reaped (teardown-helper):
 * write_bytes - cancelled_write_bytes is what writeback still owes the
 * process.
 *
 * A 512 MiB guest dirties 256 MiB, then exits by QMP quit, SIGTERM or a
 * guest shutdown (isa-debug-exit); every path is covered at least once.
 *   memfd, -mem-path DIR, a temporary file in a mem-path directory with
 *   share=on, file share=on,discard-data=on: net < 4 MiB
 *   file share=on,discard-data=off (the control): net >= 256 MiB, and the
 *   file holds what the guest wrote
 * The emulator leaves truncating and hole punching to a child that
 * outlives it (system/ram-discard.c), which the kernel charges with the
 * cancelled bytes: the figures are the sum of both, and every discarding
 * case checks that the child did the work.
 *
 * Named files are the user's: the next VM may open one right after this
 * one exits, or another process may hold it open. The child must then
 * leave it alone: "successor" writes markers the moment the emulator has
 * gone and checks that they survive; "in-use" holds the file open across
 * the exit and checks the contents are kept.
 * Files live on a filesystem with writeback: tmpfs counts no write_bytes,
 * so there the file cases are skipped.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "teardown-helper.h"

#define RAM_MIB         512
#define DIRTY_MIB       256
#define PATTERN         0xa5
#define NET_LIMIT       (4 << 20)

typedef enum Backing {
    BACKING_MEMFD,
    BACKING_MEM_PATH,           /* unlinked temporary file in a directory */
    BACKING_TEMP_SHARED,        /* the same, share=on: dirties page cache */
    BACKING_FILE_DISCARD,       /* named file, share=on,discard-data=on */
    BACKING_FILE_KEEP,          /* named file, share=on,discard-data=off */
} Backing;

typedef enum Peer {
    PEER_NONE,
    PEER_SUCCESSOR,             /* opens the file as the emulator exits */
    PEER_IN_USE,                /* holds the file open across the exit */
} Peer;

typedef struct TeardownCase {
    const char *path;
    Backing backing;
    TeardownExit how;
    Peer peer;
} TeardownCase;

static const TeardownCase cases[] = {
    { "/teardown/memfd/quit", BACKING_MEMFD, TEARDOWN_EXIT_QUIT },
    { "/teardown/memfd/guest-shutdown", BACKING_MEMFD, TEARDOWN_EXIT_GUEST },
    { "/teardown/mem-path/sigterm", BACKING_MEM_PATH,
      TEARDOWN_EXIT_SIGTERM },
    { "/teardown/mem-path-shared/quit", BACKING_TEMP_SHARED,
      TEARDOWN_EXIT_QUIT },
    { "/teardown/discard-data/guest-shutdown", BACKING_FILE_DISCARD,
      TEARDOWN_EXIT_GUEST },
    { "/teardown/discard-data/sigterm", BACKING_FILE_DISCARD,
      TEARDOWN_EXIT_SIGTERM },
    { "/teardown/keep-data/quit", BACKING_FILE_KEEP, TEARDOWN_EXIT_QUIT },
    { "/teardown/discard-data/successor", BACKING_FILE_DISCARD,
      TEARDOWN_EXIT_QUIT, PEER_SUCCESSOR },
    { "/teardown/discard-data/in-use", BACKING_FILE_DISCARD,
      TEARDOWN_EXIT_SIGTERM, PEER_IN_USE },
};

/* Marker pages a successor writes, one every 32 MiB of the dirty range. */
#define MARKER          0x5a
#define MARKER_STEP     (32 << 20)

typedef struct PeerState {
    const char *file;
    int fd;
} PeerState;

static void write_markers(int fd)
{
    uint8_t page[4096];

    memset(page, MARKER, sizeof(page));
    for (off_t off = TEARDOWN_DIRTY_BASE;
         off < TEARDOWN_DIRTY_BASE + ((off_t)DIRTY_MIB << 20);
         off += MARKER_STEP) {
        g_assert_cmpint(pwrite(fd, page, sizeof(page), off), ==,
                        sizeof(page));
    }
}

static void check_markers(int fd)
{
    uint8_t page[4096];

    for (off_t off = TEARDOWN_DIRTY_BASE;
         off < TEARDOWN_DIRTY_BASE + ((off_t)DIRTY_MIB << 20);
         off += MARKER_STEP) {
        g_assert_cmpint(pread(fd, page, sizeof(page), off), ==,
                        sizeof(page));
        for (size_t i = 0; i < sizeof(page); i++) {
            if (page[i] != MARKER) {
                g_error("the discard helper destroyed what a later user "
                        "wrote: offset 0x%llx holds 0x%02x",
                        (unsigned long long)(off + i), page[i]);
            }
        }
    }
}

/* The next VM: opens the file read-write as soon as we have exited. */
static void successor_opens(void *opaque)
{
    PeerState *p = opaque;

    p->fd = open(p->file, O_RDWR);
    g_assert_cmpint(p->fd, >=, 0);
    write_markers(p->fd);
}

static bool have_proc_io;

static char *backing_args(Backing backing, const char *dir, const char *file)
{
    switch (backing) {
    case BACKING_MEMFD:
        return g_strdup_printf("-object memory-backend-memfd,id=m,size=%uM "
                               "-machine memory-backend=m", RAM_MIB);
    case BACKING_MEM_PATH:
        return g_strdup_printf("-mem-path %s", dir);
    case BACKING_TEMP_SHARED:
        /*
         * -mem-path maps privately, so the guest's writes never reach
         * the file; share=on is the case where only the truncate at
         * exit keeps dirty page cache from being written back.
         */
        return g_strdup_printf("-object memory-backend-file,id=m,size=%uM,"
                               "mem-path=%s,share=on "
                               "-machine memory-backend=m", RAM_MIB, dir);
    case BACKING_FILE_DISCARD:
    case BACKING_FILE_KEEP:
        return g_strdup_printf("-object memory-backend-file,id=m,size=%uM,"
                               "mem-path=%s,share=on,discard-data=%s "
                               "-machine memory-backend=m", RAM_MIB, file,
                               backing == BACKING_FILE_DISCARD ? "on"
                                                               : "off");
    }
    g_assert_not_reached();
}

/*
 * The dirtied range of the file, sampled a page every MiB: all pattern
 * bytes when the data was kept, all zero once it was discarded.
 */
static void check_file_contents(const char *file, uint8_t expect)
{
    int fd = open(file, O_RDONLY);
    uint8_t page[4096];
    struct stat st;

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    /* Discarding punches holes but keeps the size. */
    g_assert_cmpint(st.st_size, ==, (off_t)RAM_MIB << 20);
    for (unsigned mib = 0; mib < DIRTY_MIB; mib++) {
        off_t off = TEARDOWN_DIRTY_BASE + ((off_t)mib << 20);

        g_assert_cmpint(pread(fd, page, sizeof(page), off), ==,
                        sizeof(page));
        for (size_t i = 0; i < sizeof(page); i++) {
            if (page[i] != expect) {
                g_error("file offset 0x%llx holds 0x%02x, expected 0x%02x",
                        (unsigned long long)(off + i), page[i], expect);
            }
        }
    }
    close(fd);
}

static void test_teardown(const void *data)
{
    const TeardownCase *c = data;
    const char *disk = NULL;
    char *dir = NULL, *file = NULL, *args;
    QTestState *s;
    TeardownResult r;
    PeerState peer = { .fd = -1 };
    int64_t net;

    if (!have_proc_io) {
        g_test_skip("/proc/PID/io is unavailable (no task I/O accounting)");
        return;
    }
    if (c->backing != BACKING_MEMFD) {
        disk = teardown_disk_dir();
        if (!disk) {
            g_test_skip("no writable directory on a filesystem with "
                        "writeback (tmpfs counts no write_bytes); set "
                        "TEARDOWN_DIR");
            return;
        }
        dir = g_build_filename(disk, "qemu-teardown-XXXXXX", NULL);
        g_assert_nonnull(g_mkdtemp(dir));
        file = g_build_filename(dir, "guest-ram", NULL);
    }
    args = backing_args(c->backing, dir, file);
    g_test_message("%s", args);
    /*
     * Start from clean page cache: dirty data left by others can push
     * the kernel into background writeback, which would write our
     * guest's pages before the emulator could cancel them.
     */
    sync();

    /* Give the successor time to open the file before the child acts. */
    if (c->peer == PEER_SUCCESSOR) {
        g_setenv("QEMU_DISCARD_HELPER_DELAY_MS", "300", TRUE);
    }
    s = teardown_start(RAM_MIB, args);
    g_unsetenv("QEMU_DISCARD_HELPER_DELAY_MS");
    teardown_dirty(s, DIRTY_MIB, PATTERN);
    peer.file = file;
    if (c->peer == PEER_IN_USE) {
        peer.fd = open(file, O_RDWR);
        g_assert_cmpint(peer.fd, >=, 0);
    }
    r = teardown_exit_then(s, c->how,
                           c->peer == PEER_SUCCESSOR ? successor_opens : NULL,
                           &peer);

    g_assert_true(WIFEXITED(r.wstatus));
    g_assert_cmpint(WEXITSTATUS(r.wstatus), ==,
                    c->how == TEARDOWN_EXIT_GUEST ? 1 : 0);
    net = teardown_net_bytes(&r.io);
    if (c->peer == PEER_SUCCESSOR) {
        check_markers(peer.fd);
    } else if (c->peer == PEER_IN_USE) {
        /* Someone had it open: the contents are theirs too. */
        g_assert_cmpint(r.io.cancelled_write_bytes, <, NET_LIMIT);
        check_file_contents(file, PATTERN);
    } else if (c->backing == BACKING_FILE_KEEP) {
        g_assert_cmpuint(r.helpers, ==, 0);
        g_assert_cmpint(net, >=, (int64_t)DIRTY_MIB << 20);
    } else {
        /* The emulator exited without discarding; its child did. */
        g_assert_cmpuint(r.helpers, ==, 1);
        g_assert_cmpuint(r.emulator_io.cancelled_write_bytes, ==, 0);
        g_assert_cmpint(net, <, NET_LIMIT);
    }
    if (peer.fd >= 0) {
        close(peer.fd);
    }

    if (file) {
        if (c->backing == BACKING_MEM_PATH ||
            c->backing == BACKING_TEMP_SHARED) {
            /* The temporary file was unlinked at creation. */
            GDir *d = g_dir_open(dir, 0, NULL);

            g_assert_nonnull(d);
            g_assert_null(g_dir_read_name(d));
            g_dir_close(d);
        } else {
            if (c->peer == PEER_NONE) {
                check_file_contents(file, c->backing == BACKING_FILE_KEEP
                                          ? PATTERN : 0);
            }
            /* Unlinking drops the kept dirty pages unwritten. */
            g_assert_cmpint(unlink(file), ==, 0);
        }
        g_assert_cmpint(rmdir(dir), ==, 0);
    }
    g_free(args);
    g_free(file);
    g_free(dir);
}

int main(int argc, char **argv)
{
    TeardownIO io;

    g_test_init(&argc, &argv, NULL);
    have_proc_io = teardown_read_proc_io(getpid(), &io);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        qtest_add_data_func(cases[i].path, &cases[i], test_teardown);
    }
    return g_test_run();
}
