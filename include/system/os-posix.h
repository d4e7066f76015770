/*
 * The POSIX host layer: memory locking, daemonizing, the pidfile.
 */
#ifndef SYSTEM_OS_POSIX_H
#define SYSTEM_OS_POSIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"

/*
 * mlockall(MCL_CURRENT | MCL_FUTURE), with MCL_ONFAULT when on_fault.
 * Returns 0 or -errno; -EOPNOTSUPP when on_fault is asked for but the
 * build or the running kernel lacks MCL_ONFAULT.
 */
int os_mlock(bool on_fault);
/* Why a failed os_mlock() failed, in words for the user. */
char *os_mlock_explain(int err);
/*
 * Lock [addr, addr + len) again as its pages are touched (mlock2 with
 * MLOCK_ONFAULT): nothing is populated now. Returns 0 or -errno;
 * -EOPNOTSUPP when the build or kernel lacks MLOCK_ONFAULT.
 */
int os_mlock_range_on_fault(void *addr, size_t len);
/*
 * Postcopy on a destination under -overcommit mem-lock: userfaultfd
 * cannot serve pages that are locked (locking populates them), so
 * os_munlock() drops every lock (munlockall) before the RAM is
 * registered, and os_relock() locks again with the user's mode once
 * postcopy has ended: on populates and locks everything, on-fault locks
 * what is resident and what faults later. Both return 0 or -errno.
 * Test only: QEMU_TEST_RELOCK_NO_ONFAULT=1 in the environment makes
 * os_relock() use plain mlockall(MCL_CURRENT | MCL_FUTURE) whatever
 * on_fault says (the control that shows why MCL_ONFAULT matters).
 */
int os_munlock(void);
int os_relock(bool on_fault);

/*
 * -daemonize: fork; the parent waits until the child calls
 * os_daemonize_done() and exits with its verdict (0 or 1).
 */
bool os_daemonize(Error **errp);
void os_daemonize_done(bool success);

bool os_write_pidfile(const char *path, Error **errp);
void os_remove_pidfile(void);

/* What the page cache holds of a file, in bytes (cachestat(2)). */
typedef struct OsCacheStat {
    uint64_t resident;
    uint64_t dirty;
    uint64_t writeback;
} OsCacheStat;
/*
 * The page cache of the whole file behind fd. Returns 0 or -errno:
 * -ENOSYS on kernels before Linux 6.5, which lack cachestat(2).
 * Async-signal-safe (the discard helper calls it).
 */
int os_cachestat(int fd, OsCacheStat *cs);

/* "name (comm)" of a process, for signal messages; caller frees. */
char *os_process_name(int pid);

#endif
