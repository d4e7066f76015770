/*
 * RAM blocks: mapping guest RAM, and the one place that decides what
 * happens to it at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <glib.h>

#include <linux/magic.h>

#include "config-host.h"
#include "qemu/log.h"
#include "system/os-posix.h"
#include "system/ramblock.h"
#include "system/system.h"

/*
 * Reserve size + align bytes of address space, then map the block at
 * the first align boundary inside and give back the rest. Hugetlbfs
 * needs its mappings on a hugepage boundary; DAX devices want more.
 */
/* Every mapped block: a guest address's host pointer leads to its block. */
static GPtrArray *ram_blocks;

size_t ram_fd_page_size(int fd)
{
    struct statfs fs;

    /* Hugetlbfs reports its page size as the block size. */
    if (fstatfs(fd, &fs) == 0 && fs.f_type == HUGETLBFS_MAGIC) {
        return fs.f_bsize;
    }
    return getpagesize();
}

static void *ram_mmap(int fd, uint64_t size, uint64_t align, uint32_t flags)
{
    int prot = PROT_READ | ((flags & RAM_READONLY) ? 0 : PROT_WRITE);
    int mflags = (flags & RAM_SHARED) ? MAP_SHARED : MAP_PRIVATE;
    uint8_t *guard, *ptr;
    size_t head, total = size + align;

    if (fd < 0) {
        mflags |= MAP_ANONYMOUS;
    }
    if (flags & RAM_NORESERVE) {
        mflags |= MAP_NORESERVE;
    }
    guard = mmap(NULL, total, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (guard == MAP_FAILED) {
        return MAP_FAILED;
    }
    head = (align - ((uintptr_t)guard & (align - 1))) & (align - 1);
    /*
     * Anonymous RAM is mapped inaccessible first and advised
     * MADV_HUGEPAGE before it becomes writable: under mlockall
     * (mem-lock=on) a writable mapping is populated at once, and it
     * would be populated with small pages before the advice.
     */
    ptr = mmap(guard + head, size, fd < 0 ? PROT_NONE : prot,
               mflags | MAP_FIXED, fd, 0);
    if (ptr == MAP_FAILED) {
        int err = errno;

        munmap(guard, total);
        errno = err;
        return MAP_FAILED;
    }
    if (head) {
        munmap(guard, head);
    }
    if (total - head - size) {
        munmap(ptr + size, total - head - size);
    }
    if (fd < 0) {
#ifdef MADV_HUGEPAGE
        /* THP; the kernel ignores it where unavailable. */
        madvise(ptr, size, MADV_HUGEPAGE);
#endif
        if (mprotect(ptr, size, prot) < 0) {
            int err = errno;

            munmap(ptr, size);
            errno = err;
            return MAP_FAILED;
        }
    }
    return ptr;
}

RAMBlock *ram_block_new(const char *name, int fd, uint64_t size,
                        size_t page_size, uint64_t align, uint32_t flags,
                        Error **errp)
{
    RAMBlock *rb;
    void *host;

    if (size == 0 || size != (size_t)size || size % page_size) {
        error_setg(errp, "cannot allocate %" G_GUINT64_FORMAT " bytes of "
                   "guest RAM for '%s'", size, name);
        return NULL;
    }
    host = ram_mmap(fd, size, MAX(align, page_size), flags);
    if (host == MAP_FAILED) {
        error_setg_errno(errp, errno, "cannot set up guest memory '%s'",
                         name);
        return NULL;
    }
    rb = g_new0(RAMBlock, 1);
    rb->name = g_strdup(name);
    rb->host = host;
    rb->size = size;
    rb->page_size = page_size;
    rb->fd = fd;
    rb->flags = flags;
    if (!ram_blocks) {
        ram_blocks = g_ptr_array_new();
    }
    g_ptr_array_add(ram_blocks, rb);
    return rb;
}

RAMBlock *ram_block_from_host(const void *host, uint64_t *offset)
{
    const uint8_t *p = host;

    for (guint i = 0; ram_blocks && i < ram_blocks->len; i++) {
        RAMBlock *rb = g_ptr_array_index(ram_blocks, i);

        if (rb->host && p >= rb->host && p < rb->host + rb->size) {
            *offset = p - rb->host;
            return rb;
        }
    }
    return NULL;
}

RAMBlock *ram_block_by_name(const char *name)
{
    for (guint i = 0; ram_blocks && i < ram_blocks->len; i++) {
        RAMBlock *rb = g_ptr_array_index(ram_blocks, i);

        if (!strcmp(rb->name, name)) {
            return rb;
        }
    }
    return NULL;
}

bool ram_block_replace_fd(RAMBlock *rb, int fd, Error **errp)
{
    int prot = PROT_READ | ((rb->flags & RAM_READONLY) ? 0 : PROT_WRITE);
    int mflags = MAP_SHARED | MAP_FIXED |
                 ((rb->flags & RAM_NORESERVE) ? MAP_NORESERVE : 0);
    int accmode = fcntl(fd, F_GETFL);
    struct stat st;

    if (!rb->host || !(rb->flags & RAM_SHARED)) {
        error_setg(errp, "guest RAM '%s' is not a shared mapping", rb->name);
        return false;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || accmode < 0 ||
        (accmode & O_ACCMODE) != ((rb->flags & RAM_READONLY) ? O_RDONLY
                                                              : O_RDWR)) {
        error_setg(errp, "guest RAM '%s': the descriptor is not a file open "
                   "for reading%s", rb->name,
                   (rb->flags & RAM_READONLY) ? "" : " and writing");
        return false;
    }
    if ((uint64_t)st.st_size < rb->size) {
        error_setg(errp, "guest RAM '%s': the file has %" G_GUINT64_FORMAT
                   " bytes, %" G_GUINT64_FORMAT " here", rb->name,
                   (uint64_t)st.st_size, rb->size);
        return false;
    }
    if (ram_fd_page_size(fd) != rb->page_size) {
        error_setg(errp, "guest RAM '%s': the file's pages are %zu bytes, "
                   "%zu here", rb->name, ram_fd_page_size(fd), rb->page_size);
        return false;
    }
    /* One call: the old pages go and the new ones appear, no gap between. */
    if (mmap(rb->host, rb->size, prot, mflags, fd, 0) == MAP_FAILED) {
        error_setg_errno(errp, errno, "guest RAM '%s': cannot map the file",
                         rb->name);
        return false;
    }
    if (rb->fd >= 0) {
        close(rb->fd);
    }
    rb->fd = fd;
    rb->lock_on_fault = false;
    return true;
}

/*
 * madvise() refuses a locked range (EINVAL: the VMA is VM_LOCKED, as
 * every mapping is under mlockall). So under mem-lock the range is
 * unlocked, advised, and locked again with MLOCK_ONFAULT: its pages
 * leave the process now and are locked again only as the guest touches
 * them. Without MLOCK_ONFAULT (old kernel, -Dmcl_onfault=disabled) it
 * is locked again whole, which faults in zeroed pages: the lock holds,
 * but the memory stays, as in QEMU.
 *
 * The first time, the whole block is made lock-on-fault (mlock2 on
 * pages already locked keeps them resident and locked): otherwise each
 * discarded run would become a VMA of its own between fully locked
 * neighbours, and a balloon's scattered pages would split the mapping
 * towards vm.max_map_count (8192 scattered pages made 16384 VMAs).
 * With the same flags on both sides, the kernel merges them back.
 */
static int discard_locked(RAMBlock *rb, uint8_t *p, size_t len, int advice)
{
    int ret = 0, relock;

    if (!rb->lock_on_fault) {
        ret = os_mlock_range_on_fault(rb->host, rb->size);
        if (ret < 0 && ret != -EOPNOTSUPP) {
            return ret;
        }
        rb->lock_on_fault = ret == 0;
        ret = 0;
    }
    if (munlock(p, len) < 0) {
        return -errno;
    }
    if (madvise(p, len, advice) < 0) {
        ret = -errno;
    }
    relock = rb->lock_on_fault ? os_mlock_range_on_fault(p, len) : -EOPNOTSUPP;
    if (relock == -EOPNOTSUPP) {
        relock = mlock(p, len) < 0 ? -errno : 0;
    }
    return ret ? ret : relock;
}

static int discard_mapping(RAMBlock *rb, uint8_t *p, size_t len, int advice)
{
    if (madvise(p, len, advice) == 0) {
        return 0;
    }
    if (errno != EINVAL || !should_mlock(mlock_state)) {
        return -errno;
    }
    return discard_locked(rb, p, len, advice);
}

bool ram_block_discard_range(RAMBlock *rb, uint64_t offset, uint64_t len,
                             Error **errp)
{
    uint8_t *p;
    int ret;

    if (!rb->host || offset > rb->size || len > rb->size - offset ||
        offset % rb->page_size || len % rb->page_size) {
        error_setg(errp, "cannot discard [0x%" G_GINT64_MODIFIER "x, +0x%"
                   G_GINT64_MODIFIER "x) of guest RAM '%s': outside the "
                   "block or not aligned to its %zu-byte pages",
                   offset, len, rb->name, rb->page_size);
        return false;
    }
    if (rb->flags & RAM_READONLY) {
        error_setg(errp, "cannot discard read-only guest RAM '%s'", rb->name);
        return false;
    }
    if (!len) {
        return true;
    }
    /* Only now: past the checks, the range lies in the block. */
    p = rb->host + offset;
    if (rb->fd >= 0 && (rb->flags & RAM_SHARED)) {
        /*
         * Shared file or memfd: free the pages in the file itself, which
         * also zaps them from every mapping (locked ones too), so they
         * are neither resident nor written back.
         */
#if HAVE_FALLOC_PUNCH_HOLE
        if (fallocate(rb->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                      offset, len) == 0) {
            return true;
        }
#endif
        ret = discard_mapping(rb, p, len, MADV_REMOVE);
    } else {
        /* Anonymous or a private copy of a file: drop our copy. */
        ret = discard_mapping(rb, p, len, MADV_DONTNEED);
    }
    if (ret < 0) {
        error_setg_errno(errp, -ret, "cannot discard [0x%" G_GINT64_MODIFIER
                         "x, +0x%" G_GINT64_MODIFIER "x) of guest RAM '%s'",
                         offset, len, rb->name);
        return false;
    }
    return true;
}

void ram_block_advise(RAMBlock *rb, bool mergeable, bool dump)
{
    if (mergeable) {
        madvise(rb->host, rb->size, MADV_MERGEABLE);
    }
    if (!dump) {
        madvise(rb->host, rb->size, MADV_DONTDUMP);
    }
}

void ram_block_set_exported(RAMBlock *rb, bool exported)
{
    if (exported) {
        rb->flags |= RAM_EXPORTED;
    } else {
        rb->flags &= ~RAM_EXPORTED;
    }
}

/*
 * The teardown table (docs/memory.md):
 *   anonymous, or a private mapping of a named file   munmap
 *   memfd, or a temporary file in a mem-path dir       ftruncate(fd, 0)
 *   ... whose fd another process maps                  keep it
 *   named file, share=on, discard-data=on              punch a hole
 *   named file, share=on, discard-data=off             keep it
 * Nothing a private or read-only mapping wrote can reach the file, so
 * those only unmap. An exported fd is never discarded: the peer still
 * maps the memory, whether the file is temporary or named.
 */
RamDiscardAction ram_block_discard_action(const RAMBlock *rb)
{
    if (rb->fd < 0) {
        return RAM_DISCARD_UNMAP;
    }
    if (rb->flags & RAM_EXPORTED) {
        return RAM_DISCARD_KEEP_EXPORTED;
    }
    if (rb->flags & RAM_TEMPORARY) {
        return RAM_DISCARD_TRUNCATE;
    }
    if (!(rb->flags & RAM_SHARED) || (rb->flags & RAM_READONLY)) {
        return RAM_DISCARD_UNMAP;
    }
    return (rb->flags & RAM_DISCARD) ? RAM_DISCARD_PUNCH_HOLE
                                     : RAM_DISCARD_KEEP;
}

const char *ram_block_backing(const RAMBlock *rb)
{
    if (rb->fd < 0) {
        return "anonymous";
    }
    if (rb->flags & RAM_MEMFD) {
        return "memfd";
    }
    return (rb->flags & RAM_TEMPORARY) ? "temporary-file" : "file";
}

void ram_block_teardown_info(const RAMBlock *rb, RamTeardownInfo *info)
{
    *info = (RamTeardownInfo) { .backing = ram_block_backing(rb) };
    switch (ram_block_discard_action(rb)) {
    case RAM_DISCARD_UNMAP:
        info->action = "unmap";
        info->reason = rb->fd < 0 ? "anonymous"
                       : (rb->flags & RAM_READONLY) ? "read-only" : "private";
        break;
    case RAM_DISCARD_TRUNCATE:
        info->action = "discard";
        info->method = "truncate";
        break;
    case RAM_DISCARD_PUNCH_HOLE:
        if (ram_discard_file_in_use(rb->fd)) {
            info->action = "keep";
            info->reason = "in-use";
        } else {
            info->action = "discard";
            info->method = "punch-hole";
        }
        break;
    case RAM_DISCARD_KEEP:
        info->action = "keep";
        info->reason = "discard-data-off";
        break;
    case RAM_DISCARD_KEEP_EXPORTED:
        info->action = "keep";
        info->reason = "exported";
        break;
    }
}

/* The -d guest_ram line for what the emulator does itself. */
static void log_teardown(const RAMBlock *rb, RamDiscardAction action,
                         int cs_err, const OsCacheStat *cs)
{
    static const char *const reasons[] = {
        [RAM_DISCARD_KEEP] = "discard-data-off",
        [RAM_DISCARD_KEEP_EXPORTED] = "exported",
    };
    bool discarded = action == RAM_DISCARD_TRUNCATE ||
                     action == RAM_DISCARD_PUNCH_HOLE;
    const char *reason = reasons[action];

    if (action == RAM_DISCARD_UNMAP) {
        reason = rb->fd < 0 ? "anonymous"
                 : (rb->flags & RAM_READONLY) ? "read-only" : "private";
    }
    ram_teardown_log(qemu_log_fd(), rb->name, ram_block_backing(rb),
                     discarded ? "discard"
                               : action == RAM_DISCARD_UNMAP ? "unmap"
                                                             : "keep",
                     discarded ? (action == RAM_DISCARD_TRUNCATE
                                  ? "truncate" : "punch-hole")
                               : reason,
                     cs_err, cs, discarded, false, (int)getpid());
}

void ram_block_discard_at_exit(RAMBlock *rb)
{
    RamDiscardAction action = ram_block_discard_action(rb);
    bool log = qemu_loglevel_mask(LOG_GUEST_RAM);
    OsCacheStat cs = { 0 };
    int cs_err = 0;

    /* What the page cache holds before anything is done to it. */
    if (log && rb->fd >= 0) {
        cs_err = os_cachestat(rb->fd, &cs);
    }
    switch (action) {
    case RAM_DISCARD_UNMAP:
    case RAM_DISCARD_KEEP:
        break;
    case RAM_DISCARD_KEEP_EXPORTED:
        if (qemu_loglevel) {
            qemu_log("guest RAM '%s': fd %d is shared with another process; "
                     "its contents are kept for it\n", rb->name, rb->fd);
        }
        break;
    case RAM_DISCARD_PUNCH_HOLE:
        /* A child punches it once we have exited (system/ram-discard.c). */
        if (ram_discard_defer(rb, true)) {
            log = false;        /* the child says what it did */
            break;
        }
        if (!ram_discard_file(rb->fd, rb->size, true) && qemu_loglevel) {
            qemu_log("guest RAM '%s': cannot discard its contents (%s); the "
                     "kernel may write them back\n", rb->name,
                     strerror(errno));
        } else if (log) {
            log_teardown(rb, action, cs_err, &cs);
        }
        log = false;
        break;
    case RAM_DISCARD_TRUNCATE:
        /*
         * Unmap first: truncating a mapped file must zap its page
         * tables too, so munmap after it walks them twice. With 1 GiB
         * dirty, munmap then ftruncate took 116 ms for a memfd and
         * 74 ms for an ext4 temporary file, the other order 133 and
         * 73 ms (medians of 11). Either way it is the freeing the last
         * close would do anyway, not extra work.
         */
        munmap(rb->host, rb->size);
        rb->host = NULL;
        if (ram_discard_defer(rb, false)) {
            return;             /* the child says what it did */
        }
        if (!ram_discard_file(rb->fd, rb->size, false) && qemu_loglevel) {
            qemu_log("guest RAM '%s': cannot truncate its file (%s)\n",
                     rb->name, strerror(errno));
        } else if (log) {
            log_teardown(rb, action, cs_err, &cs);
        }
        return;
    }
    if (log) {
        log_teardown(rb, action, cs_err, &cs);
    }
    munmap(rb->host, rb->size);
    rb->host = NULL;
}

void ram_block_free(RAMBlock *rb)
{
    if (!rb) {
        return;
    }
    if (ram_blocks) {
        g_ptr_array_remove(ram_blocks, rb);
    }
    ram_block_discard_at_exit(rb);
    if (rb->fd >= 0) {
        close(rb->fd);
    }
    g_free(rb->name);
    g_free(rb);
}
