/*
 * The "file" and "host_device" protocol drivers: an image is a host
 * file (or block device) read and written with preadv/pwritev; flush is
 * fdatasync, discard FALLOC_FL_PUNCH_HOLE, write-zeroes
 * FALLOC_FL_ZERO_RANGE (falling back to writing zeroes).
 *
 * Image locking (locking=auto|on) publishes a user's permissions as
 * open-file-description locks, in the byte layout QEMU uses, so ours
 * and QEMU's processes see each other: a shared lock on byte 100 + n
 * means "I use permission n", on byte 200 + n "I do not let others use
 * permission n" (n: 0 consistent read, 1 write, 2 write unchanged,
 * 3 resize). A new user takes its locks first, then looks for another
 * process's lock on the opposite byte (F_OFD_GETLK ignores our own).
 */
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "block/block.h"

static int file_rw(BlockDriverState *bs, uint64_t offset,
                   const struct iovec *iov, int niov, bool write)
{
    /* A working copy: partial transfers move its start. */
    g_autofree struct iovec *local = g_memdup2(iov, niov * sizeof(*iov));
    struct iovec *cur = local;
    int n = niov;
    uint64_t total = 0;

    /* Whole requests, retried where the kernel did part of one. */
    for (int i = 0; i < niov; i++) {
        total += iov[i].iov_len;
    }
    while (total) {
        /* Any number of segments: at most IOV_MAX per call. */
        int now = MIN(n, IOV_MAX);
        ssize_t r = write ? pwritev(bs->fd, cur, now, offset)
                          : preadv(bs->fd, cur, now, offset);
        size_t left;

        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        if (r == 0) {
            /* Past the end of the file: reads see zeroes. */
            if (write) {
                return -EIO;
            }
            for (int i = 0; i < n; i++) {
                memset(cur[i].iov_base, 0, cur[i].iov_len);
            }
            return 0;
        }
        offset += r;
        total -= r;
        left = r;
        while (n && left >= cur[0].iov_len) {
            left -= cur[0].iov_len;
            cur++;
            n--;
        }
        if (n) {
            cur[0].iov_base = (char *)cur[0].iov_base + left;
            cur[0].iov_len -= left;
        }
    }
    return 0;
}

static int file_preadv(BlockDriverState *bs, uint64_t offset,
                       const struct iovec *iov, int niov)
{
    return file_rw(bs, offset, iov, niov, false);
}

static int file_pwritev(BlockDriverState *bs, uint64_t offset,
                        const struct iovec *iov, int niov)
{
    return file_rw(bs, offset, iov, niov, true);
}

static int file_flush(BlockDriverState *bs)
{
    return fdatasync(bs->fd) < 0 ? -errno : 0;
}

static int file_discard(BlockDriverState *bs, uint64_t offset, uint64_t len)
{
    if (fallocate(bs->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  offset, len) < 0) {
        /* Discard is advisory: the data may stay. */
        return errno == EOPNOTSUPP ? 0 : -errno;
    }
    return 0;
}

static int file_write_zeroes(BlockDriverState *bs, uint64_t offset,
                             uint64_t len)
{
    static const uint8_t zeroes[65536];

    if (fallocate(bs->fd, FALLOC_FL_ZERO_RANGE, offset, len) == 0) {
        return 0;
    }
    while (len) {
        struct iovec v = {
            .iov_base = (void *)zeroes, .iov_len = MIN(len, sizeof(zeroes)),
        };
        int r = file_rw(bs, offset, &v, 1, true);

        if (r < 0) {
            return r;
        }
        offset += v.iov_len;
        len -= v.iov_len;
    }
    return 0;
}

#define LOCK_PERM_BASE      100
#define LOCK_SHARED_BASE    200

static const char *const perm_names[] = {
    "consistent read", "write", "write unchanged", "resize",
};

static int lock_byte(int fd, int cmd, short type, off_t byte)
{
    struct flock fl = {
        .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1,
    };

    if (fcntl(fd, cmd, &fl) < 0) {
        return -errno;
    }
    return cmd == F_OFD_GETLK && fl.l_type != F_UNLCK ? -EAGAIN : 0;
}

static bool file_set_perm(BlockDriverState *bs, unsigned perm,
                          unsigned shared, Error **errp)
{
    unsigned n;
    int r;

    if (!bs->locking) {
        return true;
    }
    for (n = 0; n < G_N_ELEMENTS(perm_names); n++) {
        short mine = perm & (1u << n) ? F_RDLCK : F_UNLCK;
        short unshared = shared & (1u << n) ? F_UNLCK : F_RDLCK;

        if ((r = lock_byte(bs->fd, F_OFD_SETLK, mine,
                           LOCK_PERM_BASE + n)) < 0 ||
            (r = lock_byte(bs->fd, F_OFD_SETLK, unshared,
                           LOCK_SHARED_BASE + n)) < 0) {
            error_setg_errno(errp, -r, "Failed to lock byte %u",
                             LOCK_PERM_BASE + n);
            goto fail;
        }
    }
    for (n = 0; n < G_N_ELEMENTS(perm_names); n++) {
        if ((perm & (1u << n)) &&
            lock_byte(bs->fd, F_OFD_GETLK, F_WRLCK,
                      LOCK_SHARED_BASE + n) < 0) {
            error_setg(errp, "Failed to get \"%s\" lock\nIs another "
                       "process using the image [%s]?", perm_names[n],
                       bs->filename);
            goto fail;
        }
        if (!(shared & (1u << n)) &&
            lock_byte(bs->fd, F_OFD_GETLK, F_WRLCK,
                      LOCK_PERM_BASE + n) < 0) {
            error_setg(errp, "Failed to get shared \"%s\" lock\nIs "
                       "another process using the image [%s]?",
                       perm_names[n], bs->filename);
            goto fail;
        }
    }
    return true;

fail:
    for (n = 0; n < G_N_ELEMENTS(perm_names); n++) {
        lock_byte(bs->fd, F_OFD_SETLK, F_UNLCK, LOCK_PERM_BASE + n);
        lock_byte(bs->fd, F_OFD_SETLK, F_UNLCK, LOCK_SHARED_BASE + n);
    }
    return false;
}

static int file_truncate(BlockDriverState *bs, uint64_t size)
{
    if (size > INT64_MAX) {
        return -EFBIG;
    }
    return ftruncate(bs->fd, size) < 0 ? -errno : 0;
}

static void file_close(BlockDriverState *bs)
{
    if (bs->fd >= 0 && bs->temporary &&
        ftruncate(bs->fd, 0) < 0) {
        /* Unlinked anyway: its pages go when the last fd does. */
    }
    if (bs->fd >= 0) {
        close(bs->fd);
        bs->fd = -1;
    }
}

/* The two drivers differ only in what they open. */
#define FILE_POSIX_OPS \
    .preadv = file_preadv, \
    .pwritev = file_pwritev, \
    .flush = file_flush, \
    .discard = file_discard, \
    .write_zeroes = file_write_zeroes, \
    .set_perm = file_set_perm, \
    .close = file_close

static const BlockDriver bdrv_file = {
    .name = "file", .truncate = file_truncate, FILE_POSIX_OPS
};
static const BlockDriver bdrv_host_device = {
    .name = "host_device", FILE_POSIX_OPS
};

BlockDriverState *bdrv_file_open(const char *driver, const char *filename,
                                 const char *node_name, bool read_only,
                                 bool direct, bool locking, Error **errp)
{
    bool host_device = !strcmp(driver, "host_device");
    BlockDriverState *bs;
    struct stat st;
    uint64_t size;
    int fd;

    /* A directory is refused by name, before open() says EISDIR. */
    if (!host_device && stat(filename, &st) == 0 && S_ISDIR(st.st_mode)) {
        error_setg(errp, "'file' driver requires '%s' to be a regular file",
                   filename);
        return NULL;
    }
    fd = open(filename, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC |
              (direct ? O_DIRECT : 0));
    if (fd < 0) {
        error_setg_errno(errp, errno, "Could not open '%s'", filename);
        return NULL;
    }
    if (fstat(fd, &st) < 0) {
        error_setg_errno(errp, errno, "Could not stat '%s'", filename);
        close(fd);
        return NULL;
    }
    if (!host_device && !S_ISREG(st.st_mode)) {
        error_setg(errp, "'file' driver requires '%s' to be a regular file",
                   filename);
        close(fd);
        return NULL;
    }
    if (host_device && !S_ISBLK(st.st_mode)) {
        error_setg(errp, "'host_device' driver requires '%s' to be either a "
                   "character or block device", filename);
        close(fd);
        return NULL;
    }
    size = st.st_size;
    if (host_device && ioctl(fd, BLKGETSIZE64, &size) < 0) {
        error_setg_errno(errp, errno, "Could not get the size of '%s'",
                         filename);
        close(fd);
        return NULL;
    }
    bs = g_new0(BlockDriverState, 1);
    bs->drv = host_device ? &bdrv_host_device : &bdrv_file;
    bs->fd = fd;
    bs->size = size;
    bs->filename = g_strdup(filename);
    bs->read_only = read_only;
    bs->direct = direct;
    bs->locking = locking;
    bs->node_name = g_strdup(node_name);
    return bs;
}
