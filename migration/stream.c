/*
 * The migration stream's buffered channel and framing (see stream.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "migration/stream.h"
#include "vmstate/vmstate.h"

void mig_stream_init(MigStream *s, int fd, int cancel_fd)
{
    memset(s, 0, offsetof(MigStream, buf));
    s->fd = fd;
    s->cancel_fd = cancel_fd;
    s->len = s->pos = 0;
    s->bytes = 0;
    s->error = s->eof = false;
}

bool mig_stream_can_pass_fds(const MigStream *s)
{
    int domain = 0;
    socklen_t len = sizeof(domain);

    return getsockopt(s->fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
           domain == AF_UNIX;
}

int mig_stream_take_fd(MigStream *s)
{
    int fd;

    if (!s->nfds) {
        return -1;
    }
    fd = s->fds[0];
    memmove(s->fds, s->fds + 1, --s->nfds * sizeof(s->fds[0]));
    return fd;
}

void mig_stream_close_fds(MigStream *s)
{
    while (s->nfds) {
        close(s->fds[--s->nfds]);
    }
}

/* Wait until fd is ready for events, false when cancelled. */
static bool wait_fd(MigStream *s, short events)
{
    struct pollfd p[2] = {
        { .fd = s->fd, .events = events },
        { .fd = s->cancel_fd, .events = POLLIN },
    };

    for (;;) {
        int n = poll(p, s->cancel_fd >= 0 ? 2 : 1, -1);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 || (s->cancel_fd >= 0 && p[1].revents)) {
            return false;
        }
        return true;
    }
}

static bool write_all(MigStream *s, const uint8_t *p, size_t len)
{
    while (len && !s->error) {
        ssize_t n = write(s->fd, p, len);

        if (n > 0) {
            p += n;
            len -= n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN && wait_fd(s, POLLOUT)) {
            continue;
        }
        s->error = true;
    }
    return !s->error;
}

bool mig_stream_flush(MigStream *s)
{
    bool ok = write_all(s, s->buf, s->len);

    s->len = 0;
    return ok;
}

bool mig_stream_send_ack(MigStream *s)
{
    uint8_t b = MIG_ACK_LOADED;

    return write_all(s, &b, 1);
}

bool mig_stream_wait_ack(MigStream *s, bool *cancelled)
{
    uint8_t b = 0;
    ssize_t n;

    *cancelled = false;
    do {
        if (s->cancel_fd >= 0 && !wait_fd(s, POLLIN)) {
            *cancelled = true;
            return false;
        }
        n = read(s->fd, &b, 1);
    } while (n < 0 && (errno == EINTR || errno == EAGAIN));
    return n == 1 && b == MIG_ACK_LOADED;
}

bool mig_stream_write(MigStream *s, const void *data, size_t len)
{
    const uint8_t *p = data;

    if (!len) {
        return !s->error;       /* an empty section body: data may be NULL */
    }
    s->bytes += len;
    if (s->len + len > sizeof(s->buf)) {
        if (!mig_stream_flush(s)) {
            return false;
        }
        if (len > sizeof(s->buf) / 2) {
            return write_all(s, p, len);
        }
    }
    memcpy(s->buf + s->len, p, len);
    s->len += len;
    return !s->error;
}

/*
 * Keep the descriptors a control message brought (the sender's
 * SCM_RIGHTS); past MIG_FDS_MAX untaken ones the stream is broken,
 * so a source cannot make us hold descriptors without end.
 */
static void keep_fds(MigStream *s, struct msghdr *msg)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        const unsigned char *data = CMSG_DATA(c);
        size_t n;

        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;

            memcpy(&fd, data + i * sizeof(int), sizeof(int));
            if (s->nfds < MIG_FDS_MAX) {
                s->fds[s->nfds++] = fd;
            } else {
                close(fd);
                s->error = true;
            }
        }
    }
    if (msg->msg_flags & MSG_CTRUNC) {
        s->error = true;        /* descriptors were lost */
    }
}

/* One read into the buffer; over a unix socket with recvmsg(2). */
static ssize_t read_some(MigStream *s)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * MIG_FDS_MAX)];
        struct cmsghdr align;
    } control;
    struct iovec iov = { .iov_base = s->buf, .iov_len = sizeof(s->buf) };
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = control.buf, .msg_controllen = sizeof(control.buf),
    };
    ssize_t n;

    if (s->not_socket) {
        return read(s->fd, s->buf, sizeof(s->buf));
    }
    n = recvmsg(s->fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == ENOTSOCK) {
        s->not_socket = true;
        return read(s->fd, s->buf, sizeof(s->buf));
    }
    if (n >= 0) {
        keep_fds(s, &msg);
    }
    return n;
}

/* Refill the buffer: false at end of input, on error or cancel. */
static bool fill(MigStream *s)
{
    for (;;) {
        ssize_t n;

        if (s->cancel_fd >= 0 && !wait_fd(s, POLLIN)) {
            s->error = true;
            return false;
        }
        n = read_some(s);
        if (s->error) {
            return false;
        }
        if (n > 0) {
            s->len = n;
            s->pos = 0;
            return true;
        }
        if (n == 0) {
            s->eof = true;
            return false;
        }
        if (errno != EINTR && errno != EAGAIN) {
            s->error = true;
            return false;
        }
    }
}

bool mig_stream_read(MigStream *s, void *data, size_t len)
{
    uint8_t *p = data;

    while (len) {
        size_t chunk;

        if (s->pos == s->len && !fill(s)) {
            return false;
        }
        chunk = MIN(len, s->len - s->pos);
        memcpy(p, s->buf + s->pos, chunk);
        s->pos += chunk;
        s->bytes += chunk;
        p += chunk;
        len -= chunk;
    }
    return true;
}

/* --- CRC32C (Castagnoli, reflected polynomial 0x82f63b78) ---------------- */

static uint32_t crc_table[256];

static void crc_table_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;

        for (int k = 0; k < 8; k++) {
            c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        }
        crc_table[i] = c;
    }
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;

    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;

        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    for (; len; p++, len--) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p);
    }
    return c;
}
#endif

uint32_t mig_crc32c(uint32_t crc, const void *data, size_t len)
{
    static gsize once;
    static bool hw;
    const uint8_t *p = data;

    if (g_once_init_enter(&once)) {
        crc_table_init();
#if defined(__x86_64__)
        hw = __builtin_cpu_supports("sse4.2");
#endif
        g_once_init_leave(&once, 1);
    }
    crc = ~crc;
#if defined(__x86_64__)
    if (hw) {
        return ~crc32c_hw(crc, p, len);
    }
#endif
    for (; len; p++, len--) {
        crc = crc_table[(crc ^ *p) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}

/* --- framing ------------------------------------------------------------- */

bool mig_stream_write_header(MigStream *s)
{
    uint8_t h[8] = { 0 };

    memcpy(h, MIG_MAGIC, 4);
    h[4] = MIG_VERSION;
    return mig_stream_write(s, h, sizeof(h));
}

bool mig_section_write(MigStream *s, uint8_t kind, const char *name,
                       uint32_t instance, uint32_t version,
                       const void *payload, size_t len)
{
    GByteArray *h = g_byte_array_sized_new(16 + 256);
    size_t name_len = MIN(strlen(name), 255);
    uint32_t crc;
    uint8_t tail[4];
    bool ok;

    vmstate_put_le(h, kind, 1);
    vmstate_put_le(h, name_len, 1);
    g_byte_array_append(h, (const uint8_t *)name, name_len);
    vmstate_put_le(h, instance, 4);
    vmstate_put_le(h, version, 4);
    vmstate_put_le(h, len, 4);
    crc = mig_crc32c(0, h->data, h->len);
    crc = mig_crc32c(crc, payload, len);
    for (int i = 0; i < 4; i++) {
        tail[i] = crc >> (8 * i);
    }
    ok = mig_stream_write(s, h->data, h->len) &&
         mig_stream_write(s, payload, len) &&
         mig_stream_write(s, tail, 4);
    g_byte_array_free(h, TRUE);
    return ok;
}

/* Write out what is buffered; its first bytes carry fd (SCM_RIGHTS). */
static bool flush_with_fd(MigStream *s, int fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = { .iov_base = s->buf, .iov_len = s->len };
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = control.buf, .msg_controllen = sizeof(control.buf),
    };
    struct cmsghdr *c;
    ssize_t n;

    memset(&control, 0, sizeof(control));
    c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    do {
        n = sendmsg(s->fd, &msg, MSG_NOSIGNAL);
    } while (n < 0 && (errno == EINTR ||
                       (errno == EAGAIN && wait_fd(s, POLLOUT))));
    if (n <= 0) {
        s->error = true;
        return false;
    }
    /* The descriptor went with the first byte; the rest as usual. */
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
    return mig_stream_flush(s);
}

bool mig_section_write_fd(MigStream *s, uint8_t kind, const char *name,
                          uint32_t instance, uint32_t version,
                          const void *payload, size_t len, int fd)
{
    /* Nothing of this section may be written before the descriptor. */
    return mig_stream_flush(s) &&
           len + 300 <= sizeof(s->buf) &&
           mig_section_write(s, kind, name, instance, version, payload,
                             len) &&
           flush_with_fd(s, fd);
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

bool mig_stream_read_header(MigStream *s, Error **errp)
{
    uint8_t h[8];
    uint32_t version;

    if (!mig_stream_read(s, h, sizeof(h))) {
        error_setg(errp, "the stream ends before its header");
        return false;
    }
    if (!memcmp(h, MIG_QEMU_MAGIC, 4)) {
        error_setg(errp, "this is a QEMU migration stream (magic QEVM), "
                   "not one of this emulator's");
        return false;
    }
    if (memcmp(h, MIG_MAGIC, 4)) {
        error_setg(errp, "not a migration stream (magic %02x %02x %02x %02x)",
                   h[0], h[1], h[2], h[3]);
        return false;
    }
    version = le32(h + 4);
    if (version != MIG_VERSION) {
        error_setg(errp, "stream version %" PRIu32 " is %s this release's %d",
                   version, version > MIG_VERSION ? "newer than" : "not",
                   MIG_VERSION);
        return false;
    }
    return true;
}

static bool truncated(MigStream *s, unsigned index, const char *prev,
                      const char *where, Error **errp)
{
    if (s->error) {
        error_setg(errp, "reading section %u failed (after '%s')", index,
                   prev);
    } else {
        error_setg(errp, "the stream ends %s section %u (after '%s'), "
                   "before its end marker", where, index, prev);
    }
    return false;
}

bool mig_section_read(MigStream *s, MigSection *sec, unsigned index,
                      const char *prev, Error **errp)
{
    uint8_t h[2 + 255 + 12], tail[4];
    uint32_t crc;
    size_t name_len;

    memset(sec, 0, sizeof(*sec));
    if (!mig_stream_read(s, h, 2)) {
        return truncated(s, index, prev, "at", errp);
    }
    name_len = h[1];
    if (!mig_stream_read(s, h + 2, name_len + 12)) {
        return truncated(s, index, prev, "inside", errp);
    }
    sec->kind = h[0];
    memcpy(sec->name, h + 2, name_len);
    sec->name[name_len] = 0;
    sec->instance = le32(h + 2 + name_len);
    sec->version = le32(h + 6 + name_len);
    sec->len = le32(h + 10 + name_len);
    if (sec->len > MIG_SECTION_MAX) {
        error_setg(errp, "section %u ('%s') claims %" PRIu32 " bytes, more "
                   "than the %u a section may have", index, sec->name,
                   sec->len, MIG_SECTION_MAX);
        return false;
    }
    sec->payload = g_malloc(sec->len ? sec->len : 1);
    if (!mig_stream_read(s, sec->payload, sec->len) ||
        !mig_stream_read(s, tail, 4)) {
        g_clear_pointer(&sec->payload, g_free);
        return truncated(s, index, prev, "inside", errp);
    }
    crc = mig_crc32c(0, h, 14 + name_len);
    crc = mig_crc32c(crc, sec->payload, sec->len);
    if (crc != le32(tail)) {
        error_setg(errp, "section %u ('%s' instance %" PRIu32 ") is corrupt: "
                   "checksum %08" PRIx32 ", expected %08" PRIx32, index,
                   sec->name, sec->instance, le32(tail), crc);
        g_clear_pointer(&sec->payload, g_free);
        return false;
    }
    return true;
}
