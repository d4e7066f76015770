/*
 * aio=io_uring (include/block/io-uring.h): reads, writes and flushes of
 * protocol nodes go to the kernel through one io_uring; the main loop
 * polls the ring's own fd (readable while completions wait, so a reap
 * that emptied the queue leaves no wakeup behind, unlike an eventfd),
 * reaps completions and runs their callbacks. A short transfer is
 * resubmitted for the rest; a read that reaches the end of the file
 * sees zeroes, as the thread pool's preadv loop does. Submissions
 * beyond the ring's size wait in a queue until completions make room.
 * Between luring_plug() and luring_unplug() (a device's pass over its
 * queue, a reap) submissions collect in the ring and go to the kernel
 * in one call; what the kernel completed during that call (page-cache
 * and tmpfs reads often are) is reaped at once by the outermost
 * unplug, so the device sees it before the main loop polls again.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>
#include <glib-unix.h>

#include "config-host.h"
#include "qemu/iov.h"
#include "block/aio-engine.h"
#include "system/main-loop.h"

#if HAVE_LIBURING
#include <liburing.h>

#define LURING_ENTRIES  128

typedef struct LuringReq {
    int fd;
    BlockAioOp op;
    uint64_t offset;
    struct iovec *iov;          /* a working copy: short transfers move it */
    int niov;
    BlockAioDone *done;
    void *opaque;
} LuringReq;

static struct io_uring ring;
static bool ring_ready;
static guint ring_source;
static unsigned in_ring;            /* submitted to the kernel */
static GQueue waiting = G_QUEUE_INIT;
static unsigned plugged;            /* luring_plug() depth */
static bool unsubmitted;            /* SQEs the kernel has not seen */
static bool reaping;                /* in reap(): no nested reap */

static void req_finish(LuringReq *r, int ret)
{
    r->done(r->opaque, ret);
    g_free(r->iov);
    g_free(r);
}

/* Put r in the ring, or queue it when the ring is full. */
static void req_submit(LuringReq *r)
{
    struct io_uring_sqe *sqe = in_ring < LURING_ENTRIES ?
                               io_uring_get_sqe(&ring) : NULL;

    if (!sqe) {
        g_queue_push_tail(&waiting, r);
        return;
    }
    switch (r->op) {
    /* At most IOV_MAX segments at once: the rest is a short transfer. */
    case BLOCK_AIO_READ:
        io_uring_prep_readv(sqe, r->fd, r->iov, MIN(r->niov, IOV_MAX),
                            r->offset);
        break;
    case BLOCK_AIO_WRITE:
        io_uring_prep_writev(sqe, r->fd, r->iov, MIN(r->niov, IOV_MAX),
                             r->offset);
        break;
    case BLOCK_AIO_FLUSH:
        io_uring_prep_fsync(sqe, r->fd, IORING_FSYNC_DATASYNC);
        break;
    }
    io_uring_sqe_set_data(sqe, r);
    in_ring++;
    if (plugged) {
        unsubmitted = true;
    } else {
        io_uring_submit(&ring);
    }
}

static void luring_plug(void)
{
    plugged++;
}

static void reap(void);

static void luring_unplug(void)
{
    g_assert(plugged);
    if (--plugged == 0 && unsubmitted) {
        unsubmitted = false;
        io_uring_submit(&ring);
        /* The end of a batch: what is already done completes now. */
        if (!reaping && io_uring_cq_ready(&ring)) {
            reap();
        }
    }
}

/* The part of a transfer the kernel did: advance, or finish. */
static void req_progress(LuringReq *r, int res)
{
    int left;

    if (res == -EINTR || res == -EAGAIN) {
        req_submit(r);
        return;
    }
    if (res < 0 || r->op == BLOCK_AIO_FLUSH) {
        req_finish(r, res < 0 ? res : 0);
        return;
    }
    r->offset += res;
    left = iov_progress(r->iov, &r->niov, res, r->op == BLOCK_AIO_WRITE);
    if (left > 0) {
        req_submit(r);
    } else {
        req_finish(r, left);
    }
}

/*
 * Run the callbacks of what completed. What they (and short transfers)
 * submit goes in one call per pass; a pass whose submissions completed
 * at once is followed by another, up to a bound, so one caller does not
 * keep the main loop for long.
 */
static void reap(void)
{
    struct io_uring_cqe *cqe;
    bool outer = reaping;       /* a callback may drain: reap nests */

    reaping = true;
    for (unsigned pass = 0; pass < 8 && io_uring_cq_ready(&ring); pass++) {
        luring_plug();
        while (io_uring_peek_cqe(&ring, &cqe) == 0) {
            LuringReq *r = io_uring_cqe_get_data(cqe);
            int res = cqe->res;

            io_uring_cqe_seen(&ring, cqe);
            in_ring--;
            req_progress(r, res);
        }
        while (in_ring < LURING_ENTRIES && !g_queue_is_empty(&waiting)) {
            req_submit(g_queue_pop_head(&waiting));
        }
        luring_unplug();
    }
    reaping = outer;
}

static gboolean on_ready(gint fd, GIOCondition cond, gpointer data)
{
    reap();
    return G_SOURCE_CONTINUE;
}

static bool luring_init(Error **errp)
{
    int r;

    if (ring_ready) {
        return true;
    }
    r = io_uring_queue_init(LURING_ENTRIES, &ring, 0);
    if (r < 0) {
        error_setg_errno(errp, -r, "failed to init linux io_uring ring");
        return false;
    }
    ring_source = main_loop_add_fd(ring.ring_fd, G_IO_IN, on_ready, NULL);
    ring_ready = true;
    return true;
}

static void luring_submit(int fd, BlockAioOp op, uint64_t offset,
                   const struct iovec *iov, int niov, BlockAioDone *done,
                   void *opaque)
{
    LuringReq *r = g_new0(LuringReq, 1);

    r->fd = fd;
    r->op = op;
    r->offset = offset;
    r->iov = niov ? g_memdup2(iov, niov * sizeof(*iov)) : NULL;
    r->niov = niov;
    r->done = done;
    r->opaque = opaque;
    req_submit(r);
}

static void luring_drain(void)
{
    if (unsubmitted) {
        /* Drained inside a plug: what it holds must go now. */
        unsubmitted = false;
        io_uring_submit(&ring);
    }
    while (ring_ready && (in_ring || !g_queue_is_empty(&waiting))) {
        struct io_uring_cqe *cqe;

        if (io_uring_wait_cqe(&ring, &cqe) == 0) {
            reap();
        }
    }
}

static void luring_cleanup(void)
{
    if (!ring_ready) {
        return;
    }
    luring_drain();
    g_source_remove(ring_source);
    io_uring_queue_exit(&ring);
    ring_ready = false;
}

#else

static bool luring_init(Error **errp)
{
    error_setg(errp, "aio=io_uring was specified, but is not supported in "
               "this build.");
    return false;
}

static void luring_submit(int fd, BlockAioOp op, uint64_t offset,
                   const struct iovec *iov, int niov, BlockAioDone *done,
                   void *opaque)
{
    g_assert_not_reached();
}

static void luring_plug(void)
{
}

static void luring_unplug(void)
{
}

static void luring_drain(void)
{
}

static void luring_cleanup(void)
{
}

#endif

const BlockAioEngine block_aio_io_uring = {
    .flush = true,
    .init = luring_init,
    .submit = luring_submit,
    .plug = luring_plug,
    .unplug = luring_unplug,
    .drain = luring_drain,
    .cleanup = luring_cleanup,
};
