/*
 * The non-blocking fd I/O under stdio, file, pipe and socket.
 *
 * Output never blocks: bytes the host side cannot take at once wait in a
 * per-chardev queue of at most CHR_OUTPUT_LIMIT bytes, drained by a
 * G_IO_OUT watch; the excess is dropped and counted. Input is read only
 * while the frontend's can_read says it has room, and at most that many
 * bytes, so a frontend that stops taking input leaves the data in the
 * kernel (and the peer blocked), not in our memory.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>

#include "chardev-internal.h"
#include "system/main-loop.h"

static bool errno_is_transient(int err)
{
    return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

static ssize_t chr_fd_send(Chardev *chr, const uint8_t *buf, size_t len)
{
    ssize_t n;

    do {
        if (chr->out_is_socket) {
            n = send(chr->fd_out, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        } else {
            n = write(chr->fd_out, buf, len);
        }
    } while (n < 0 && errno == EINTR);
    return n;
}

static void chr_hangup(Chardev *chr)
{
    if (chr->cls->hangup) {
        chr->cls->hangup(chr);
        return;
    }
    /* A file or pipe that ends stays open for output, as in QEMU. */
    chr->in_eof = true;
    if (chr->in_watch) {
        g_source_remove(chr->in_watch);
        chr->in_watch = 0;
    }
    chr_be_event(chr, CHR_EVENT_CLOSED);
}

static gboolean chr_hangup_idle(gpointer opaque)
{
    Chardev *chr = opaque;

    chr->hangup_idle = 0;
    chr_hangup(chr);
    return G_SOURCE_REMOVE;
}

/*
 * Writing failed for good. The frontend may be inside qemu_chr_fe_write
 * right now, so a backend that reacts (a socket drops its client) does
 * so from an idle callback, never re-entering the frontend.
 */
static void chr_fd_out_failed(Chardev *chr)
{
    g_byte_array_set_size(chr->outq, 0);
    if (chr->out_watch) {
        g_source_remove(chr->out_watch);
        chr->out_watch = 0;
    }
    if (chr->cls->hangup) {
        if (!chr->hangup_idle) {
            chr->hangup_idle = g_idle_add(chr_hangup_idle, chr);
        }
    } else {
        chr->out_dead = true;
    }
}

static gboolean chr_fd_writable(gint fd, GIOCondition cond, gpointer opaque)
{
    Chardev *chr = opaque;
    ssize_t n = chr_fd_send(chr, chr->outq->data, chr->outq->len);

    if (n < 0) {
        if (errno_is_transient(errno)) {
            return G_SOURCE_CONTINUE;
        }
        chr->out_watch = 0;
        chr_fd_out_failed(chr);
        return G_SOURCE_REMOVE;
    }
    g_byte_array_remove_range(chr->outq, 0, n);
    if (chr->be && chr->be->write_ready) {
        /* Room again: the frontend may queue more (or fail the fd). */
        chr->be->write_ready(chr->be->opaque);
        if (!chr->out_watch) {
            return G_SOURCE_REMOVE;
        }
    }
    if (chr->outq->len == 0) {
        chr->out_watch = 0;
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

int chr_fd_write(Chardev *chr, const uint8_t *buf, int len)
{
    int done = 0, take;

    /* No host side (a server without client): discard, as QEMU does. */
    if (chr->fd_out < 0 || chr->out_dead) {
        return len;
    }
    if (chr->outq->len == 0) {
        ssize_t n = chr_fd_send(chr, buf, len);

        if (n < 0) {
            if (!errno_is_transient(errno)) {
                chr_fd_out_failed(chr);
                return len;
            }
            n = 0;
        }
        done = n;
    }
    take = chr->outq->len >= chr->out_limit ? 0
           : (int)MIN((size_t)(len - done), chr->out_limit - chr->outq->len);
    if (take > 0) {
        g_byte_array_append(chr->outq, buf + done, take);
    } else {
        take = 0;
    }
    chr->dropped += len - done - take;
    if (chr->outq->len && !chr->out_watch) {
        chr->out_watch = g_unix_fd_add(chr->fd_out,
                                       G_IO_OUT | G_IO_ERR | G_IO_HUP,
                                       chr_fd_writable, chr);
    }
    return done + take;
}

int chr_fd_write_room(Chardev *chr)
{
    /* Discarding (no host side, or it failed): everything fits. */
    if (chr->fd_out < 0 || chr->out_dead) {
        return INT_MAX;
    }
    return chr->outq->len >= chr->out_limit
           ? 0 : (int)MIN(chr->out_limit - chr->outq->len, INT_MAX);
}

/*
 * A socket's read, keeping the descriptors that came with the bytes
 * (SCM_RIGHTS; the QMP getfd command takes them) up to the limit.
 */
static ssize_t chr_fd_recv(Chardev *chr, int fd, uint8_t *buf, size_t len)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * CHR_MSGFDS_MAX)];
    } control;
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = control.buf, .msg_controllen = sizeof(control.buf),
    };
    ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);

    if (n < 0) {
        return n;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
         c = CMSG_NXTHDR(&msg, c)) {
        size_t nfds;
        int fds[CHR_MSGFDS_MAX];

        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
        for (size_t i = 0; i < nfds; i++) {
            if (chr->nmsgfds < CHR_MSGFDS_MAX) {
                chr->msgfds[chr->nmsgfds++] = fds[i];
            } else {
                close(fds[i]);
            }
        }
    }
    return n;
}

void chr_fd_close_msgfds(Chardev *chr)
{
    while (chr->nmsgfds) {
        close(chr->msgfds[--chr->nmsgfds]);
    }
}

int qemu_chr_fe_get_msgfd(CharBackend *be)
{
    Chardev *chr = be->chr;
    int fd;

    if (!chr || !chr->nmsgfds) {
        return -1;
    }
    fd = chr->msgfds[0];
    chr->nmsgfds--;
    memmove(chr->msgfds, chr->msgfds + 1, chr->nmsgfds * sizeof(int));
    return fd;
}

static gboolean chr_fd_readable(gint fd, GIOCondition cond, gpointer opaque)
{
    Chardev *chr = opaque;
    guint self = chr->in_watch;
    uint8_t buf[4096];
    int max = chr_be_can_read(chr);
    ssize_t n;

    if (max <= 0) {
        chr->in_watch = 0;
        return G_SOURCE_REMOVE;
    }
    do {
        n = chr->out_is_socket ? chr_fd_recv(chr, fd, buf,
                                             MIN((size_t)max, sizeof(buf)))
                               : read(fd, buf, MIN((size_t)max, sizeof(buf)));
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return G_SOURCE_CONTINUE;
    }
    if (n <= 0) {
        chr->in_watch = 0;
        chr_hangup(chr);
        return G_SOURCE_REMOVE;
    }
    chr_be_write(chr, buf, n);
    /* The frontend may have disconnected us from its read handler. */
    if (chr->in_watch != self) {
        return G_SOURCE_REMOVE;
    }
    if (chr_be_can_read(chr) <= 0) {
        chr->in_watch = 0;
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

static gboolean chr_fd_hup(gint fd, GIOCondition cond, gpointer opaque)
{
    Chardev *chr = opaque;

    chr->hup_watch = 0;
    chr_hangup(chr);
    return G_SOURCE_REMOVE;
}

void chr_fd_update_read(Chardev *chr)
{
    bool want = chr->fd_in >= 0 && !chr->in_eof && chr_be_can_read(chr) > 0;
    bool want_hup = chr->fd_in >= 0 && !want && chr->out_is_socket;

    if (want && !chr->in_watch) {
        chr->in_watch = main_loop_add_fd(chr->fd_in,
                                         G_IO_IN | G_IO_HUP | G_IO_ERR,
                                         chr_fd_readable, chr);
    } else if (!want && chr->in_watch) {
        g_source_remove(chr->in_watch);
        chr->in_watch = 0;
    }
    /*
     * While the frontend takes no input, still notice a peer that hangs
     * up (a unix socket peer's close is a HUP), so a server can take its
     * next client instead of holding a dead one.
     */
    if (want_hup && !chr->hup_watch) {
        chr->hup_watch = g_unix_fd_add(chr->fd_in, G_IO_HUP | G_IO_ERR,
                                       chr_fd_hup, chr);
    } else if (!want_hup && chr->hup_watch) {
        g_source_remove(chr->hup_watch);
        chr->hup_watch = 0;
    }
}

void chr_fd_attach(Chardev *chr, int fd_in, int fd_out, bool is_socket)
{
    chr->fd_in = fd_in;
    chr->fd_out = fd_out;
    chr->out_is_socket = is_socket;
    chr->in_eof = false;
    chr->out_dead = false;
    chr_fd_update_read(chr);
}

void chr_fd_detach(Chardev *chr)
{
    chr_fd_close_msgfds(chr);
    /* Last chance for queued output; a peer that is not reading loses it. */
    if (chr->fd_out >= 0 && chr->outq->len && !chr->out_dead) {
        (void)chr_fd_send(chr, chr->outq->data, chr->outq->len);
    }
    if (chr->in_watch) {
        g_source_remove(chr->in_watch);
        chr->in_watch = 0;
    }
    if (chr->out_watch) {
        g_source_remove(chr->out_watch);
        chr->out_watch = 0;
    }
    if (chr->hup_watch) {
        g_source_remove(chr->hup_watch);
        chr->hup_watch = 0;
    }
    if (chr->hangup_idle) {
        g_source_remove(chr->hangup_idle);
        chr->hangup_idle = 0;
    }
    g_byte_array_set_size(chr->outq, 0);
    chr->fd_in = -1;
    chr->fd_out = -1;
}
