/*
 * RAM blocks: host memory that backs guest RAM. Each block remembers
 * how it was obtained; ram_block_free() releases it through the one
 * function that decides what happens to its contents at exit,
 * ram_block_discard_at_exit().
 */
#ifndef SYSTEM_RAMBLOCK_H
#define SYSTEM_RAMBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"

/* How the memory was obtained (RAMBlock.flags). */
#define RAM_SHARED      (1u << 0)   /* MAP_SHARED: writes reach the fd */
#define RAM_FILE        (1u << 1)   /* a file the user named */
#define RAM_TEMPORARY   (1u << 2)   /* memfd, or unlinked at creation */
#define RAM_DISCARD     (1u << 3)   /* discard-data=on */
#define RAM_READONLY    (1u << 4)   /* mapped PROT_READ */
#define RAM_EXPORTED    (1u << 5)   /* fd handed to another process */
#define RAM_NORESERVE   (1u << 6)   /* reserve=off: MAP_NORESERVE */
#define RAM_MEMFD       (1u << 7)   /* memfd_create (with RAM_TEMPORARY) */

typedef struct RAMBlock {
    char *name;
    uint8_t *host;
    uint64_t size;              /* bytes mapped, a multiple of page_size */
    size_t page_size;           /* host page size, or the hugepage size */
    int fd;                     /* -1 for anonymous memory */
    uint32_t flags;
    /* Made lock-on-fault by a discard under mem-lock (physmem.c). */
    bool lock_on_fault;
} RAMBlock;

/* What ram_block_discard_at_exit() does with a block's contents. */
typedef enum RamDiscardAction {
    RAM_DISCARD_UNMAP,          /* nothing can reach a disk: munmap */
    RAM_DISCARD_TRUNCATE,       /* temporary: ftruncate(fd, 0) */
    RAM_DISCARD_PUNCH_HOLE,     /* named, discard-data=on: punch a hole */
    RAM_DISCARD_KEEP,           /* named, share=on: the user wants it */
    RAM_DISCARD_KEEP_EXPORTED,  /* a peer still maps it: leave it */
} RamDiscardAction;

/*
 * What the teardown will do with a block, in words (query-memdev's
 * "backing", "teardown", "teardown-method", "teardown-reason"; the
 * -d guest_ram lines at exit):
 *   backing  "anonymous", "memfd", "temporary-file" or "file"
 *   action   "discard", "keep" or "unmap"
 *   method   discard only: "truncate" or "punch-hole"
 *   reason   keep: "discard-data-off", "exported", "in-use" (another
 *            process has the named file open: the discard helper will
 *            find it so and leave it); unmap: "anonymous", "private",
 *            "read-only"
 */
typedef struct RamTeardownInfo {
    const char *backing;
    const char *action;
    const char *method;
    const char *reason;
} RamTeardownInfo;

/*
 * Map size bytes of fd (or anonymous memory when fd is -1) as guest RAM.
 * size must be a multiple of page_size; the mapping starts on an align
 * boundary (0: page_size). Anonymous RAM gets MADV_HUGEPAGE (THP) where
 * available. On success the block owns fd; on failure the caller does.
 */
RAMBlock *ram_block_new(const char *name, int fd, uint64_t size,
                        size_t page_size, uint64_t align, uint32_t flags,
                        Error **errp);
/* MADV_MERGEABLE / MADV_DONTDUMP for -machine mem-merge, dump-guest-core. */
void ram_block_advise(RAMBlock *rb, bool mergeable, bool dump);
/*
 * Populate every page now, across nthreads threads. Fails with -errno
 * (-EFAULT when the backing store ran out: no hugepages, full tmpfs).
 */
int ram_block_prealloc(RAMBlock *rb, unsigned nthreads);
/* Another process maps the fd: do not take its memory away at exit. */
void ram_block_set_exported(RAMBlock *rb, bool exported);
/* The block made for the backend (or the machine) named name, or NULL. */
RAMBlock *ram_block_by_name(const char *name);
/*
 * Map fd (shared, from offset 0) in place of the block's memory, at
 * the same address, so every pointer into it stays good; the block then
 * owns fd and closes its old one. fd must be a regular file of at least
 * the block's size with its page size, open for reading and writing.
 * On failure the block is as it was and the caller still owns fd.
 */
bool ram_block_replace_fd(RAMBlock *rb, int fd, Error **errp);

/* The teardown policy, a pure function of how the block was obtained. */
RamDiscardAction ram_block_discard_action(const RAMBlock *rb);
/* "anonymous", "memfd", "temporary-file" or "file". */
const char *ram_block_backing(const RAMBlock *rb);
/* The policy in words; "in-use" needs a look at the file now. */
void ram_block_teardown_info(const RAMBlock *rb, RamTeardownInfo *info);
/* Does another process hold the named file open (a lease would fail)? */
bool ram_discard_file_in_use(int fd);
/*
 * Write one -d guest_ram line to fd (async-signal-safe: the discard
 * helper uses it too): block name, backing, what was done, the dirty and
 * resident page cache it held just before (cs_err: the -errno of
 * os_cachestat(), or 0), and who did it. done_by_helper: the discard
 * helper, else the emulator; pid: the one that did it.
 */
struct OsCacheStat;
void ram_teardown_log(int fd, const char *name, const char *backing,
                      const char *action, const char *detail, int cs_err,
                      const struct OsCacheStat *cs, bool discarded,
                      bool done_by_helper, int pid);
/*
 * Carry out the policy: drop what must never be written back and unmap.
 * Guest RAM is never msync'ed or fsync'ed. Leaves rb->fd open.
 */
void ram_block_discard_at_exit(RAMBlock *rb);
/*
 * Deferred discard (system/ram-discard.c): once enabled, truncating and
 * hole punching are handed to a child that outlives the emulator, so
 * exiting costs no more than keeping the contents would.
 * ram_discard_defer() queues the block's file (false: do it now);
 * ram_discard_run_deferred() starts the child, once, late in the exit.
 */
void ram_discard_set_deferred(bool on);
bool ram_discard_defer(RAMBlock *rb, bool punch);
void ram_discard_run_deferred(void);
/* Truncate (or, punch true, punch a hole in) [0, size) of fd now. */
bool ram_discard_file(int fd, uint64_t size, bool punch);

/*
 * The block whose mapping holds host, and host's offset in it; NULL
 * when host is not guest RAM (ROM, device memory, a stray pointer).
 */
RAMBlock *ram_block_from_host(const void *host, uint64_t *offset);
/*
 * Give [offset, offset + len) back to the host while the guest runs
 * (balloon, free page reporting): the pages read as zeros afterwards.
 * Anonymous or private memory: MADV_DONTNEED; a shared file or memfd:
 * a hole is punched (MADV_REMOVE where fallocate cannot), so nothing is
 * kept resident or written back. Under -overcommit mem-lock the range
 * is unlocked, discarded and locked again on fault (docs/overcommit.md).
 * offset and len must be multiples of the block's page size.
 */
bool ram_block_discard_range(RAMBlock *rb, uint64_t offset, uint64_t len,
                             Error **errp);

/* Discard per the policy, close the fd and free the block. */
void ram_block_free(RAMBlock *rb);

/* The page size of the file behind fd (hugetlbfs: its huge pages). */
size_t ram_fd_page_size(int fd);

#endif
