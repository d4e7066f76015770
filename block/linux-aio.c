/*
 * aio=native (include/block/linux-aio.h): reads and writes of protocol
 * nodes opened with O_DIRECT go to the kernel with io_submit(2), the
 * UAPI of <linux/aio_abi.h> called through syscall(2) (no libaio).
 * Each iocb carries IOCB_FLAG_RESFD, so the kernel bumps an eventfd on
 * completion; the main loop watches it and reaps with io_getevents(2).
 * A short transfer is resubmitted for the rest, a read that reaches the
 * end of the file sees zeroes (as the thread pool's preadv loop does).
 * At most LAIO_EVENTS requests are in the kernel; the rest wait.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/aio_abi.h>

#include <glib.h>
#include <glib-unix.h>

#include "qemu/iov.h"
#include "block/aio-engine.h"
#include "system/main-loop.h"

#define LAIO_EVENTS     128

typedef struct LaioReq {
    struct iocb iocb;
    int fd;
    bool write;
    uint64_t offset;
    struct iovec *iov;          /* a working copy: short transfers move it */
    int niov;
    BlockAioDone *done;
    void *opaque;
} LaioReq;

static aio_context_t ctx;
static bool ctx_ready;
static int laio_efd = -1;
static guint laio_source;
static unsigned in_kernel;
static GQueue waiting = G_QUEUE_INIT;

static void req_finish(LaioReq *r, int ret)
{
    r->done(r->opaque, ret);
    g_free(r->iov);
    g_free(r);
}

/* Hand r to the kernel, or queue it while LAIO_EVENTS are in flight. */
static void req_submit(LaioReq *r)
{
    struct iocb *p = &r->iocb;
    long ret;

    if (in_kernel >= LAIO_EVENTS) {
        g_queue_push_tail(&waiting, r);
        return;
    }
    memset(p, 0, sizeof(*p));
    p->aio_data = (uintptr_t)r;
    p->aio_fildes = r->fd;
    p->aio_lio_opcode = r->write ? IOCB_CMD_PWRITEV : IOCB_CMD_PREADV;
    p->aio_buf = (uintptr_t)r->iov;
    /* At most IOV_MAX segments at once: the rest is a short transfer. */
    p->aio_nbytes = MIN(r->niov, IOV_MAX);
    p->aio_offset = r->offset;
    p->aio_flags = IOCB_FLAG_RESFD;
    p->aio_resfd = laio_efd;
    do {
        ret = syscall(SYS_io_submit, ctx, 1L, &p);
    } while (ret < 0 && errno == EINTR);
    if (ret == 1) {
        in_kernel++;
    } else if (ret < 0 && errno == EAGAIN && in_kernel) {
        /* Kernel resources are short: retry after a completion. */
        g_queue_push_tail(&waiting, r);
    } else {
        req_finish(r, ret < 0 ? -errno : -EIO);
    }
}

/* The part of a transfer the kernel did: advance, or finish. */
static void req_progress(LaioReq *r, long res)
{
    int left;

    if (res == -EINTR || res == -EAGAIN) {
        req_submit(r);
        return;
    }
    if (res < 0) {
        req_finish(r, res);
        return;
    }
    r->offset += res;
    left = iov_progress(r->iov, &r->niov, res, r->write);
    if (left > 0) {
        req_submit(r);
    } else {
        req_finish(r, left);
    }
}

/* Reap what has completed; wait for at least min_nr of them. */
static void reap(long min_nr)
{
    struct io_event ev[LAIO_EVENTS];
    long n;

    do {
        n = syscall(SYS_io_getevents, ctx, min_nr, (long)LAIO_EVENTS, ev,
                    NULL);
    } while (n < 0 && errno == EINTR);
    for (long i = 0; i < n; i++) {
        in_kernel--;
        req_progress((LaioReq *)(uintptr_t)ev[i].data, (long)ev[i].res);
    }
    while (in_kernel < LAIO_EVENTS && !g_queue_is_empty(&waiting)) {
        req_submit(g_queue_pop_head(&waiting));
    }
}

static gboolean on_wake(gint fd, GIOCondition cond, gpointer data)
{
    uint64_t count;

    while (read(fd, &count, sizeof(count)) < 0 && errno == EINTR) {
    }
    reap(0);
    return G_SOURCE_CONTINUE;
}

static bool laio_init(Error **errp)
{
    if (ctx_ready) {
        return true;
    }
    ctx = 0;
    if (syscall(SYS_io_setup, (long)LAIO_EVENTS, &ctx) < 0) {
        error_setg_errno(errp, errno, "Unable to use native AIO");
        return false;
    }
    laio_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (laio_efd < 0) {
        error_setg_errno(errp, errno, "Unable to use native AIO");
        syscall(SYS_io_destroy, ctx);
        return false;
    }
    laio_source = main_loop_add_fd(laio_efd, G_IO_IN, on_wake, NULL);
    ctx_ready = true;
    return true;
}

static void laio_submit(int fd, bool write, uint64_t offset,
                 const struct iovec *iov, int niov, BlockAioDone *done,
                 void *opaque)
{
    LaioReq *r = g_new0(LaioReq, 1);

    r->fd = fd;
    r->write = write;
    r->offset = offset;
    r->iov = g_memdup2(iov, MAX(niov, 1) * sizeof(*iov));
    r->niov = niov;
    r->done = done;
    r->opaque = opaque;
    req_submit(r);
}

static void laio_drain(void)
{
    while (ctx_ready && (in_kernel || !g_queue_is_empty(&waiting))) {
        reap(in_kernel ? 1 : 0);
    }
}

static void laio_cleanup(void)
{
    if (!ctx_ready) {
        return;
    }
    laio_drain();
    g_source_remove(laio_source);
    syscall(SYS_io_destroy, ctx);
    close(laio_efd);
    laio_efd = -1;
    ctx_ready = false;
}

/* Reads and writes only: flushes go to the thread pool. */
static void laio_submit_op(int fd, BlockAioOp op, uint64_t offset,
                           const struct iovec *iov, int niov,
                           BlockAioDone *done, void *opaque)
{
    laio_submit(fd, op == BLOCK_AIO_WRITE, offset, iov, niov, done, opaque);
}

const BlockAioEngine block_aio_native = {
    .init = laio_init,
    .submit = laio_submit_op,
    .drain = laio_drain,
    .cleanup = laio_cleanup,
};
