/*
 * Discarding guest RAM after the emulator has gone (docs/memory.md).
 *
 * Freeing a gigabyte of page cache takes tens of milliseconds, and it is
 * work nobody waits for: the guest is gone. So at exit the emulator
 * unmaps its RAM, hands the files' descriptors to a small child process
 * and exits; the child truncates or punches them and exits too. The
 * pages are gone long before writeback (30 s) would look at them, so
 * nothing reaches the disk, and the emulator exits as fast as if it kept
 * the contents.
 *
 * Temporary files and memfds are the emulator's alone: nobody else can
 * open them, so the child truncates them at once. A named file is the
 * user's, and the next VM may open it the moment this one has exited;
 * punching holes into that VM's memory would corrupt it. So for named
 * files the child waits until the emulator has exited, then takes a
 * write lease (F_SETLEASE): granted only while nobody else has the file
 * open, and while held, another open() waits until it is released. With
 * the lease the child punches and lets go; without it (someone opened
 * the file already) it leaves the contents alone. Where a lease cannot
 * be had at all (not the file's owner, leases disabled), the discard
 * happens in the emulator before it exits, as it always did.
 *
 * The kernel charges cancelled_write_bytes to whoever truncates, so the
 * emulator's own /proc/PID/io shows the dirtied bytes and the child's
 * shows them cancelled; tests/functional/test-teardown.c adds the two.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "config-host.h"
#include "qemu/log.h"
#include "system/os-posix.h"
#include "system/ramblock.h"

#ifndef F_SETLEASE
#define F_SETLEASE 1024
#endif

typedef struct DeferredDiscard {
    int fd;
    uint64_t size;
    bool punch;             /* a named file: lease, then punch a hole */
    char *name;             /* for the -d guest_ram line */
    const char *backing;
} DeferredDiscard;

static bool deferral_enabled;
static GArray *deferred;    /* of DeferredDiscard */
/*
 * Tests only: how long the child waits between the emulator's exit and
 * its lease, so a test can be the "next VM" that opens the file first.
 */
#define DELAY_ENV "QEMU_DISCARD_HELPER_DELAY_MS"

void ram_discard_set_deferred(bool on)
{
    deferral_enabled = on;
}

/* Could the child get a lease on fd: our file, and leases enabled? */
static bool lease_possible(int fd)
{
    struct stat st;
    char *text = NULL;
    bool enabled = true;

    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        return false;
    }
    /* Root may lease any file (CAP_LEASE); others only their own. */
    if (st.st_uid != geteuid() && geteuid() != 0) {
        return false;
    }
    if (g_file_get_contents("/proc/sys/fs/leases-enable", &text, NULL,
                            NULL)) {
        enabled = atoi(text) != 0;
        g_free(text);
    }
    return enabled;
}

bool ram_discard_file_in_use(int fd)
{
    if (!deferral_enabled || !lease_possible(fd)) {
        return false;       /* the emulator discards it itself */
    }
    if (fcntl(fd, F_SETLEASE, F_WRLCK) < 0) {
        return errno == EAGAIN;
    }
    fcntl(fd, F_SETLEASE, F_UNLCK);
    return false;
}

/* --- the -d guest_ram line, built without stdio (async-signal-safe) --- */

typedef struct LineBuf {
    char text[512];
    size_t len;
} LineBuf;

static void put_str(LineBuf *b, const char *s)
{
    while (s && *s && b->len < sizeof(b->text) - 1) {
        b->text[b->len++] = *s++;
    }
}

static void put_u64(LineBuf *b, uint64_t v)
{
    char digits[21];
    int n = 0;

    do {
        digits[n++] = '0' + v % 10;
        v /= 10;
    } while (v);
    while (n && b->len < sizeof(b->text) - 1) {
        b->text[b->len++] = digits[--n];
    }
}

void ram_teardown_log(int fd, const char *name, const char *backing,
                      const char *action, const char *detail, int cs_err,
                      const OsCacheStat *cs, bool discarded,
                      bool done_by_helper, int pid)
{
    LineBuf b = { .len = 0 };

    put_str(&b, "guest_ram: '");
    put_str(&b, name);
    put_str(&b, "' ");
    put_str(&b, backing);
    put_str(&b, ": ");
    put_str(&b, action);
    if (detail) {
        put_str(&b, " (");
        put_str(&b, detail);
        put_str(&b, ")");
    }
    put_str(&b, ": ");
    if (!strcmp(backing, "anonymous")) {
        put_str(&b, "no page cache,");
    } else if (cs_err == -ENOSYS) {
        put_str(&b, "page cache not known (this kernel lacks cachestat(2), "
                "Linux 6.5+),");
    } else if (cs_err) {
        put_str(&b, "page cache not known (cachestat(2) failed, errno ");
        put_u64(&b, (uint64_t)-cs_err);
        put_str(&b, "),");
    } else {
        put_u64(&b, cs->dirty);
        put_str(&b, " dirty, ");
        put_u64(&b, cs->resident);
        put_str(&b, discarded ? " resident bytes of page cache discarded"
                              : " resident bytes of page cache left to "
                                "write back");
    }
    put_str(&b, done_by_helper ? " by the discard helper (pid "
                               : " by the emulator (pid ");
    put_u64(&b, (uint64_t)pid);
    put_str(&b, ")\n");
    while (write(fd, b.text, b.len) < 0 && errno == EINTR) {
        /* retry */
    }
}

/* Measure, discard, say so: the helper's part for one file. */
static void discard_and_log(const DeferredDiscard *d, int log_fd,
                            bool punch_allowed)
{
    OsCacheStat cs = { 0 };
    int cs_err = log_fd >= 0 ? os_cachestat(d->fd, &cs) : 0;

    if (!d->punch) {
        ram_discard_file(d->fd, d->size, false);
    } else if (punch_allowed) {
        ram_discard_file(d->fd, d->size, true);
    }
    if (log_fd >= 0) {
        bool done = !d->punch || punch_allowed;

        ram_teardown_log(log_fd, d->name, d->backing,
                         done ? "discard" : "keep",
                         done ? (d->punch ? "punch-hole" : "truncate")
                              : "in-use",
                         cs_err, &cs, done, true, (int)getpid());
    }
}

bool ram_discard_defer(RAMBlock *rb, bool punch)
{
    DeferredDiscard d = { .size = rb->size, .punch = punch };

    if (!deferral_enabled || (punch && !lease_possible(rb->fd))) {
        return false;
    }
    d.fd = fcntl(rb->fd, F_DUPFD_CLOEXEC, 3);
    if (d.fd < 0) {
        return false;
    }
    d.name = g_strdup(rb->name);
    d.backing = ram_block_backing(rb);
    if (!deferred) {
        deferred = g_array_new(FALSE, FALSE, sizeof(DeferredDiscard));
    }
    g_array_append_val(deferred, d);
    return true;
}

/* Drop [0, size) of the file from the page cache and from the disk. */
static bool discard_punch(int fd, uint64_t size)
{
    void *p;

#if HAVE_FALLOC_PUNCH_HOLE
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                  size) == 0) {
        return true;
    }
#endif
    /* File systems without hole punching may still honour MADV_REMOVE. */
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        return false;
    }
    if (madvise(p, size, MADV_REMOVE) < 0) {
        int err = errno;

        munmap(p, size);
        errno = err;
        return false;
    }
    munmap(p, size);
    return true;
}

/* ftruncate(fd, 0); a sealed memfd cannot shrink, but can be holed. */
static bool discard_truncate(int fd, uint64_t size)
{
    int seals = fcntl(fd, F_GET_SEALS);

    if (seals > 0 && (seals & F_SEAL_SHRINK)) {
        return discard_punch(fd, size);
    }
    return ftruncate(fd, 0) == 0;
}

bool ram_discard_file(int fd, uint64_t size, bool punch)
{
    return punch ? discard_punch(fd, size) : discard_truncate(fd, size);
}

/* Close every descriptor but the n sorted ones in keep (async-signal-safe). */
static void close_all_but(const int *keep, unsigned n)
{
    unsigned from = 0;

    for (unsigned i = 0; i < n; i++) {
        if ((unsigned)keep[i] > from) {
            close_range(from, keep[i] - 1, 0);
        }
        from = keep[i] + 1;
    }
    close_range(from, ~0u, 0);
}
/*
 * The child. Only async-signal-safe calls: the parent may have had
 * threads. It holds no descriptor but its files and the pipe, so a
 * caller reading the emulator's stdout or sockets sees them close when
 * the emulator exits, not when this child does.
 */
static G_NORETURN void discard_child(const DeferredDiscard *list, unsigned n,
                                     int wait_fd, int log_fd,
                                     unsigned delay_ms)
{
    sigset_t all;
    int null_fd;
    char c;
    int keep[n + 2];
    unsigned nkeep = 0;
    bool any_punch = false;

    /* Out of the terminal's process group: ^C there is not for us. */
    setsid();
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    keep[nkeep++] = wait_fd;
    if (log_fd >= 0) {
        keep[nkeep++] = log_fd;
    }
    for (unsigned i = 0; i < n; i++) {
        keep[nkeep++] = list[i].fd;
    }
    for (unsigned i = 1; i < nkeep; i++) {          /* insertion sort */
        for (unsigned j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int t = keep[j];

            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    }
    close_all_but(keep, nkeep);
    null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
    }

    for (unsigned i = 0; i < n; i++) {
        if (!list[i].punch) {
            discard_and_log(&list[i], log_fd, false);
            close(list[i].fd);
        }
    }
    for (unsigned i = 0; i < n && !any_punch; i++) {
        any_punch = list[i].punch;
    }
    if (!any_punch) {
        _exit(0);
    }
    /* EOF once the emulator has exited and its descriptors are gone. */
    while (read(wait_fd, &c, 1) < 0 && errno == EINTR) {
        /* retry */
    }
    if (delay_ms) {
        struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
            /* the rest */
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (!list[i].punch) {
            continue;
        }
        if (fcntl(list[i].fd, F_SETLEASE, F_WRLCK) == 0) {
            discard_and_log(&list[i], log_fd, true);
            fcntl(list[i].fd, F_SETLEASE, F_UNLCK);
        } else {
            /* Someone opened it first: theirs now. */
            discard_and_log(&list[i], log_fd, false);
        }
        close(list[i].fd);
    }
    _exit(0);
}

void ram_discard_run_deferred(void)
{
    DeferredDiscard *list;
    unsigned n;
    int pipefd[2] = { -1, -1 };
    int log_fd = -1;
    pid_t pid = -1;
    const char *delay;
    unsigned delay_ms;

    if (!deferred || !deferred->len) {
        return;
    }
    list = (DeferredDiscard *)deferred->data;
    n = deferred->len;
    delay = g_getenv(DELAY_ENV);
    delay_ms = delay ? (unsigned)g_ascii_strtoull(delay, NULL, 10) : 0;
    /* Above 2: the child points 0-2 at /dev/null. */
    if (qemu_loglevel_mask(LOG_GUEST_RAM)) {
        log_fd = fcntl(qemu_log_fd(), F_DUPFD_CLOEXEC, 3);
    }
    if (pipe2(pipefd, O_CLOEXEC) == 0) {
        pid = fork();
    }
    if (pid == 0) {
        close(pipefd[1]);
        discard_child(list, n, pipefd[0], log_fd, delay_ms);
    }
    if (log_fd >= 0) {
        close(log_fd);
    }
    if (pid < 0) {
        /* No child: discard here, as late as possible but before exit. */
        if (qemu_loglevel) {
            qemu_log("guest RAM: cannot start the discard helper (%s); "
                     "discarding before exit\n", strerror(errno));
        }
        for (unsigned i = 0; i < n; i++) {
            OsCacheStat cs = { 0 };
            int cs_err = os_cachestat(list[i].fd, &cs);

            ram_discard_file(list[i].fd, list[i].size, list[i].punch);
            if (qemu_loglevel_mask(LOG_GUEST_RAM)) {
                ram_teardown_log(qemu_log_fd(), list[i].name,
                                 list[i].backing, "discard",
                                 list[i].punch ? "punch-hole" : "truncate",
                                 cs_err, &cs, true, false, (int)getpid());
            }
        }
    } else if (qemu_loglevel) {
        qemu_log("guest RAM: %u file(s) discarded by helper pid %d\n", n,
                 (int)pid);
    }
    for (unsigned i = 0; i < n; i++) {
        close(list[i].fd);
        g_free(list[i].name);
    }
    if (pipefd[0] >= 0) {
        close(pipefd[0]);
    }
    /* pipefd[1] stays open until exit: its closing releases the child. */
    g_array_free(deferred, TRUE);
    deferred = NULL;
}
