/*
 * libFuzzer target: the qcow2 driver (block/qcow2*.c) on whole images.
 * The input is a short script, then the image file: byte 0 the number
 * of operations (up to 8), byte 1 flags (bit 0 open read-only, bit 1 a
 * raw backing file below it), then 8 bytes per operation (kind: read,
 * write, write-zeroes, discard, flush; a sector number; a length in
 * sectors; a fill byte), then the image, which goes into a memfd the
 * driver opens. Seeds are qemu-img's images (tests/fuzz/qcow2-seeds).
 *
 * A crash, leak, UB report or hang is a bug; so is the image file
 * growing past what the operations could have allocated (a write
 * outside what the image maps). Refusing the image, failing a request
 * with an error, or marking the image corrupt are the expected answers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "block/block.h"

#define MAX_OPS         8
#define OP_BYTES        8
#define BACKING_SIZE    (1 << 20)
/* Per write: data, L2 table, refblocks, a grown refcount table. */
#define GROWTH_PER_OP   (24ull << 20)

static int image_fd = -1, backing_fd = -1;
static uint8_t *buf;

#define check(ok) do { \
        if (!(ok)) { \
            fprintf(stderr, "fuzz-qcow2: %s is false\n", #ok); \
            abort(); \
        } \
    } while (0)

static void setup(void)
{
    uint8_t *pattern = g_malloc(BACKING_SIZE);

    image_fd = memfd_create("fuzz-qcow2", MFD_CLOEXEC);
    backing_fd = memfd_create("fuzz-qcow2-backing", MFD_CLOEXEC);
    check(image_fd >= 0 && backing_fd >= 0);
    for (unsigned i = 0; i < BACKING_SIZE; i++) {
        pattern[i] = i * 31 + (i >> 9);
    }
    check(pwrite(backing_fd, pattern, BACKING_SIZE, 0) == BACKING_SIZE);
    g_free(pattern);
    buf = g_malloc(256 * 1024);
}

static BlockDriverState *open_file(int fd, bool read_only)
{
    g_autofree char *path = g_strdup_printf("/proc/self/fd/%d", fd);
    BlockDriverState *bs = bdrv_file_open("file", path, NULL, read_only,
                                          false, false, NULL);

    check(bs != NULL);
    check(bdrv_add(bs, NULL));
    return bs;
}

static uint64_t file_size(int fd)
{
    struct stat st;

    check(fstat(fd, &st) == 0);
    return st.st_size;
}

static void run_op(BlockDriverState *bs, const uint8_t *op)
{
    uint64_t sector = ((uint64_t)op[1] << 24) | (op[2] << 16) |
                      (op[3] << 8) | op[4];
    uint64_t len = ((((op[5] << 8) | op[6]) % 512) + 1) * 512;
    uint64_t off = bs->size ? (sector * 512) % bs->size : 0;
    struct iovec v = { .iov_base = buf };

    len = MIN(len, bs->size - off);
    v.iov_len = len;
    if (!len) {
        return;
    }
    switch (op[0] % 5) {
    case 0:
        bs->drv->preadv(bs, off, &v, 1);
        break;
    case 1:
        memset(buf, op[7], len);
        if (!bs->read_only) {
            bs->drv->pwritev(bs, off, &v, 1);
        }
        break;
    case 2:
        if (!bs->read_only) {
            bs->drv->write_zeroes(bs, off, len);
        }
        break;
    case 3:
        if (!bs->read_only) {
            bs->drv->discard(bs, off, len);
        }
        break;
    default:
        bs->drv->flush(bs);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    BlockQcow2Options opts = BLOCK_QCOW2_OPTIONS_DEFAULT;
    g_autofree char *backing_name = NULL, *backing_fmt = NULL;
    BlockDriverState *file, *bs;
    unsigned nops;
    bool read_only;
    uint64_t start_size;

    if (image_fd < 0) {
        setup();
    }
    if (size < 2) {
        return 0;
    }
    nops = MIN(data[0], MAX_OPS);
    read_only = data[1] & 1;
    if (size < 2 + nops * OP_BYTES) {
        return 0;
    }
    check(ftruncate(image_fd, 0) == 0);
    if (size > 2 + nops * OP_BYTES) {
        size_t n = size - 2 - nops * OP_BYTES;

        check(pwrite(image_fd, data + 2 + nops * OP_BYTES, n, 0) ==
              (ssize_t)n);
    }
    start_size = file_size(image_fd);

    file = open_file(image_fd, read_only);
    bs = bdrv_qcow2_open(file, &opts, NULL, &backing_name, &backing_fmt,
                         NULL);
    if (bs) {
        if (data[1] & 2) {
            BlockDriverState *raw = bdrv_raw_open(open_file(backing_fd, true),
                                                  NULL, NULL);

            check(bdrv_add(raw, NULL));
            bs->backing = raw;
        }
        check(bdrv_add(bs, NULL));
        for (unsigned i = 0; i < nops; i++) {
            run_op(bs, data + 2 + i * OP_BYTES);
        }
    }
    bdrv_close_all();
    /* Nothing written where the image does not map. */
    check(file_size(image_fd) <= ((start_size + (2 << 20)) & ~((2 << 20) - 1))
                                 + nops * GROWTH_PER_OP);
    if (read_only) {
        check(file_size(image_fd) == start_size);
    }
    return 0;
}
