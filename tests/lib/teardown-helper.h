/*
 * Measuring what an exiting emulator leaves for the disk to write, with
 * the kernel's own accounting: /proc/PID/io of the zombie, read before it
 * is reaped. write_bytes counts pages the process dirtied in page cache,
 * cancelled_write_bytes the dirty pages it truncated away again; the
 * difference is what writeback will still write for it.
 */
#ifndef TESTS_TEARDOWN_HELPER_H
#define TESTS_TEARDOWN_HELPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libqtest.h"

/* Where the guest dirties RAM: above the BIOS area, below the PCI hole. */
#define TEARDOWN_DIRTY_BASE     0x100000
/* isa-debug-exit at this port: teardown_start adds the device. */
#define TEARDOWN_DEBUG_EXIT     0xf4

typedef enum TeardownExit {
    TEARDOWN_EXIT_QUIT,         /* QMP quit: status 0 */
    TEARDOWN_EXIT_SIGTERM,      /* status 0 */
    TEARDOWN_EXIT_GUEST,        /* guest writes 0 to isa-debug-exit: 1 */
} TeardownExit;

typedef struct TeardownIO {
    uint64_t write_bytes;
    uint64_t cancelled_write_bytes;
} TeardownIO;

typedef struct TeardownResult {
    int wstatus;
    TeardownIO io;              /* the emulator and its discard helpers */
    TeardownIO emulator_io;     /* the emulator's own */
    unsigned helpers;           /* discard helpers that outlived it */
    int64_t exit_us;            /* exit request sent -> process a zombie */
    int64_t helpers_done_us;    /* exit request sent -> helpers done */
    pid_t emulator_pid;
    pid_t helper_pid;           /* the last discard helper reaped, or 0 */
} TeardownResult;

/* The process's write accounting; false if /proc/PID/io is unreadable. */
bool teardown_read_proc_io(pid_t pid, TeardownIO *io);
static inline int64_t teardown_net_bytes(const TeardownIO *io)
{
    return (int64_t)io->write_bytes - (int64_t)io->cancelled_write_bytes;
}

/*
 * Write back what the rest of the host left dirty (sync), so that the
 * kernel's background writeback, which starts once the host's dirty
 * pages pass a threshold, does not write the guest's file while a test
 * measures what the teardown leaves (seen with builds running beside).
 */
void teardown_quiet_writeback(void);
/*
 * Start "-machine pc -m ram_mib" + extra_args under qtest (after
 * teardown_quiet_writeback()), with an
 * isa-debug-exit at TEARDOWN_DEBUG_EXIT for TEARDOWN_EXIT_GUEST.
 */
QTestState *teardown_start(unsigned ram_mib, const char *extra_args);
/* Fill mib MiB of guest RAM from TEARDOWN_DIRTY_BASE with pattern. */
void teardown_dirty(QTestState *s, unsigned mib, uint8_t pattern);
/*
 * Make the emulator exit the way asked, wait until it is a zombie, read
 * its /proc/PID/io, then reap it and free s; then the same for each
 * discard helper it left behind (the caller is their subreaper:
 * teardown_start sets PR_SET_CHILD_SUBREAPER).
 */
TeardownResult teardown_exit(QTestState *s, TeardownExit how);
/*
 * The emulator leaves discarding file-backed RAM to a child that
 * outlives it (system/ram-discard.c); the kernel charges the cancelled
 * bytes to that child. The caller, made the children's subreaper
 * (prctl(PR_SET_CHILD_SUBREAPER), as teardown_start does), inherits it
 * when the emulator exits: call this after reaping the emulator to wait
 * for every remaining child, add its accounting to sum and reap it.
 * Returns how many there were.
 */
unsigned teardown_collect_helpers(TeardownIO *sum);
/*
 * The same for the one helper pid (known from the emulator's log) while
 * other children still run: false if it did not exit in time.
 */
bool teardown_collect_helper(pid_t pid, TeardownIO *sum);
/* The pid of the last helper teardown_collect_helpers() reaped, or 0. */
pid_t teardown_last_helper_pid(void);
/* The same, calling after_exit once the emulator is reaped. */
TeardownResult teardown_exit_then(QTestState *s, TeardownExit how,
                                  void (*after_exit)(void *opaque),
                                  void *opaque);
const char *teardown_exit_name(TeardownExit how);

/*
 * A directory whose filesystem does writeback (tmpfs, ramfs and hugetlbfs
 * count no write_bytes): $TEARDOWN_DIR, else the temporary directory,
 * else /var/tmp, else the current directory. NULL if none is.
 */
const char *teardown_disk_dir(void);
bool teardown_fs_does_writeback(const char *path);

#endif
