/*
 * -netdev socket: packets over a TCP connection or UDP datagrams.
 *   listen=[HOST]:PORT   wait for one connection (another after it ends)
 *   connect=HOST:PORT    connect at start-up
 *   udp=HOST:PORT[,localaddr=HOST:PORT]   datagrams to HOST:PORT, read
 *                        on localaddr (default: any address, any port)
 * On a stream each packet is a 4-byte big-endian length, then the packet
 * (QEMU's framing, so QEMU and this emulator talk to each other); a
 * datagram is one packet. While the NIC cannot take packets the fd is
 * not read (its watch is removed); while the socket cannot take ours,
 * the NIC is paused and the rest waits for G_IO_OUT.
 */
#include <errno.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <glib-unix.h>

#include "net/net.h"

#define SOCKET_READ_CHUNK   (64 * 1024)

typedef struct NetSocket {
    NetClientState *nc;
    bool udp;
    int listen_fd;
    int fd;                     /* the connection or the UDP socket */
    guint listen_watch, read_watch, write_watch;
    GByteArray *rx;             /* stream bytes not yet framed */
    GByteArray *tx;             /* stream bytes the socket did not take */
    struct sockaddr_storage dgram_dst;
    socklen_t dgram_dst_len;
} NetSocket;

static const QemuOptDesc socket_desc[] = {
    { "type", QEMU_OPT_STRING },
    { "id", QEMU_OPT_STRING },
    { "listen", QEMU_OPT_STRING },
    { "connect", QEMU_OPT_STRING },
    { "udp", QEMU_OPT_STRING },
    { "localaddr", QEMU_OPT_STRING },
    { "mcast", QEMU_OPT_STRING },
    { "fd", QEMU_OPT_STRING },
    { NULL },
};

static void socket_update_read(NetSocket *s);

/* "HOST:PORT" ([::1]:PORT for IPv6); an empty host is any (passive). */
static struct addrinfo *socket_resolve(const char *str, int socktype,
                                       bool passive, Error **errp)
{
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = socktype,
        .ai_flags = passive ? AI_PASSIVE : 0,
    };
    struct addrinfo *res = NULL;
    const char *colon = strrchr(str, ':');
    char *host;
    int rc;

    if (!colon || !colon[1]) {
        error_setg(errp, "host address '%s' doesn't contain ':' "
                   "separating host from port", str);
        return NULL;
    }
    host = g_strndup(str, colon - str);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host) - 2);
        host[strlen(host) - 2] = '\0';
    }
    rc = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &res);
    if (rc) {
        error_setg(errp, "address resolution failed for %s: %s", str,
                   gai_strerror(rc));
        res = NULL;
    }
    g_free(host);
    return res;
}

static void socket_disconnect(NetSocket *s);

/* Deliver the complete frames in rx, until the NIC says wait. */
static void socket_deliver_frames(NetSocket *s)
{
    size_t off = 0;

    while (!s->nc->paused && s->rx->len - off >= 4) {
        const uint8_t *p = s->rx->data + off;
        uint32_t len = (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];

        if (len > NET_MAX_PACKET) {
            warn_report("netdev %s: received a packet of %u bytes; "
                        "closing the connection", s->nc->name, len);
            g_byte_array_set_size(s->rx, 0);
            socket_disconnect(s);
            return;
        }
        if (s->rx->len - off - 4 < len) {
            break;
        }
        qemu_send_packet(s->nc, p + 4, len);
        off += 4 + len;
    }
    g_byte_array_remove_range(s->rx, 0, off);
}

static gboolean socket_readable(gint fd, GIOCondition cond, gpointer opaque)
{
    NetSocket *s = opaque;
    uint8_t *buf;
    ssize_t n;

    if (s->udp) {
        /* rx is only a buffer here: each datagram is one frame. */
        n = recv(fd, s->rx->data, s->rx->len, 0);
        if (n > 0) {
            qemu_send_packet(s->nc, s->rx->data, n);
        }
        socket_update_read(s);
        return G_SOURCE_CONTINUE;
    }
    g_byte_array_set_size(s->rx, s->rx->len + SOCKET_READ_CHUNK);
    buf = s->rx->data + s->rx->len - SOCKET_READ_CHUNK;
    n = recv(fd, buf, SOCKET_READ_CHUNK, 0);
    g_byte_array_set_size(s->rx, s->rx->len - SOCKET_READ_CHUNK +
                          MAX(n, 0));
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        s->read_watch = 0;
        socket_disconnect(s);
        return G_SOURCE_REMOVE;
    }
    socket_deliver_frames(s);
    if (s->fd < 0) {
        return G_SOURCE_REMOVE;     /* disconnected on a bad frame */
    }
    socket_update_read(s);
    return G_SOURCE_CONTINUE;
}

/* Read the fd only while the NIC takes packets. */
static void socket_update_read(NetSocket *s)
{
    net_update_read_watch(s->nc, s->fd, &s->read_watch,
                          socket_readable, s);
}

/* The NIC has room again: frames already read first, then the fd. */
static void socket_resume(NetClientState *nc)
{
    NetSocket *s = nc->opaque;

    if (!s->udp) {
        socket_deliver_frames(s);
    }
    socket_update_read(s);
}

static bool socket_flush_tx(NetSocket *s)
{
    while (s->tx->len) {
        ssize_t n = send(s->fd, s->tx->data, s->tx->len,
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN;
        }
        g_byte_array_remove_range(s->tx, 0, n);
    }
    return true;
}

static gboolean socket_writable(gint fd, GIOCondition cond, gpointer opaque)
{
    NetSocket *s = opaque;

    if (!socket_flush_tx(s)) {
        s->write_watch = 0;
        socket_disconnect(s);
        return G_SOURCE_REMOVE;
    }
    if (s->tx->len) {
        return G_SOURCE_CONTINUE;
    }
    s->write_watch = 0;
    /* Packets the NIC queued while we were full; it resumes after. */
    qemu_flush_queued_packets(s->nc);
    return G_SOURCE_REMOVE;
}

static ssize_t socket_receive(NetClientState *nc, const uint8_t *buf,
                              size_t len)
{
    NetSocket *s = nc->opaque;
    uint8_t hdr[4] = { len >> 24, len >> 16, len >> 8, len };

    if (s->fd < 0) {
        return len;             /* nobody connected: the wire drops it */
    }
    if (s->udp) {
        sendto(s->fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&s->dgram_dst,
               s->dgram_dst_len);
        return len;
    }
    if (s->tx->len) {
        return 0;               /* still full: queue, pause the NIC */
    }
    g_byte_array_append(s->tx, hdr, 4);
    g_byte_array_append(s->tx, buf, len);
    if (!socket_flush_tx(s)) {
        g_byte_array_set_size(s->tx, 0);
        return len;             /* the connection broke; read sees it */
    }
    if (s->tx->len && !s->write_watch) {
        s->write_watch = g_unix_fd_add(s->fd, G_IO_OUT, socket_writable, s);
    }
    return len;
}

static gboolean socket_accept(gint fd, GIOCondition cond, gpointer opaque)
{
    NetSocket *s = opaque;
    int conn = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (conn < 0) {
        return G_SOURCE_CONTINUE;
    }
    s->fd = conn;
    s->listen_watch = 0;
    qemu_set_info_str(s->nc, "socket: connection from a peer");
    socket_update_read(s);
    return G_SOURCE_REMOVE;     /* one peer at a time */
}

static void socket_disconnect(NetSocket *s)
{
    if (s->read_watch) {
        g_source_remove(s->read_watch);
        s->read_watch = 0;
    }
    if (s->write_watch) {
        g_source_remove(s->write_watch);
        s->write_watch = 0;
    }
    if (s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
    g_byte_array_set_size(s->rx, s->udp ? NET_MAX_PACKET : 0);
    g_byte_array_set_size(s->tx, 0);
    /* Whatever the NIC queued for us is lost with the connection. */
    qemu_flush_queued_packets(s->nc);
    if (s->listen_fd >= 0 && !s->listen_watch) {
        s->listen_watch = g_unix_fd_add(s->listen_fd, G_IO_IN,
                                        socket_accept, s);
    }
}

static void socket_cleanup(NetClientState *nc)
{
    NetSocket *s = nc->opaque;

    if (s->listen_watch) {
        g_source_remove(s->listen_watch);
    }
    s->listen_watch = 0;
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
        s->listen_fd = -1;
    }
    s->nc->paused = true;       /* no more reads */
    socket_disconnect(s);
    g_byte_array_unref(s->rx);
    g_byte_array_unref(s->tx);
    g_free(s);
}

static const NetClientInfo net_socket_info = {
    .type = "socket",
    .receive = socket_receive,
    .resume = socket_resume,
    .cleanup = socket_cleanup,
};

/* A socket on the first address of res that works (bind or connect). */
static int socket_open(struct addrinfo *res, int type, bool do_bind,
                       bool do_listen, int *err)
{
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, type | SOCK_CLOEXEC, 0);
        int on = 1;

        if (fd < 0) {
            *err = errno;
            continue;
        }
        if (do_bind) {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        }
        if ((do_bind ? bind(fd, ai->ai_addr, ai->ai_addrlen)
                     : connect(fd, ai->ai_addr, ai->ai_addrlen)) == 0 &&
            (!do_listen || listen(fd, 1) == 0)) {
            return fd;
        }
        *err = errno;
        close(fd);
    }
    return -1;
}

static int socket_setup_stream(const char *listen_addr, const char *connect,
                               Error **errp)
{
    const char *addr = listen_addr ? listen_addr : connect;
    struct addrinfo *res = socket_resolve(addr, SOCK_STREAM, !!listen_addr,
                                          errp);
    int err = 0, fd;

    if (!res) {
        return -1;
    }
    fd = socket_open(res, SOCK_STREAM, !!listen_addr, !!listen_addr, &err);
    freeaddrinfo(res);
    if (fd < 0) {
        error_setg_errno(errp, err, listen_addr ? "can't bind to %s"
                         : "can't connect to %s", addr);
    }
    return fd;
}

static int socket_setup_udp(NetSocket *s, const char *udp,
                            const char *localaddr, Error **errp)
{
    struct addrinfo *dst = socket_resolve(udp, SOCK_DGRAM, false, errp);
    struct addrinfo *local;
    int err = 0, fd;

    if (!dst) {
        return -1;
    }
    memcpy(&s->dgram_dst, dst->ai_addr, dst->ai_addrlen);
    s->dgram_dst_len = dst->ai_addrlen;
    local = socket_resolve(localaddr ? localaddr
                           : dst->ai_family == AF_INET6 ? "[::]:0"
                           : "0.0.0.0:0", SOCK_DGRAM, true, errp);
    freeaddrinfo(dst);
    if (!local) {
        return -1;
    }
    fd = socket_open(local, SOCK_DGRAM, true, false, &err);
    freeaddrinfo(local);
    if (fd < 0) {
        error_setg_errno(errp, err, "can't bind to %s",
                         localaddr ? localaddr : "any address");
    }
    return fd;
}

static NetClientState *net_init_socket(const QemuOpts *opts, const char *id,
                                       NetClientState *peer, Error **errp)
{
    const char *listen_addr = qemu_opt_get(opts, "listen");
    const char *connect = qemu_opt_get(opts, "connect");
    const char *udp = qemu_opt_get(opts, "udp");
    const char *localaddr = qemu_opt_get(opts, "localaddr");
    NetSocket *s;
    int modes = !!listen_addr + !!connect + !!udp +
                !!qemu_opt_get(opts, "mcast") + !!qemu_opt_get(opts, "fd");
    int fd;

    if (!qemu_opts_validate(opts, socket_desc, errp)) {
        return NULL;
    }
    if (modes != 1) {
        error_setg(errp, "exactly one of listen=, connect=, mcast= or udp= "
                   "is required");
        return NULL;
    }
    if (qemu_opt_get(opts, "mcast") || qemu_opt_get(opts, "fd")) {
        error_setg(errp, "socket: mcast= and fd= are not supported; use "
                   "listen=, connect= or udp=");
        return NULL;
    }
    if (localaddr && !udp) {
        error_setg(errp, "localaddr= is only valid with udp=");
        return NULL;
    }
    s = g_new0(NetSocket, 1);
    s->listen_fd = s->fd = -1;
    s->udp = !!udp;
    fd = udp ? socket_setup_udp(s, udp, localaddr, errp)
             : socket_setup_stream(listen_addr, connect, errp);
    if (fd < 0) {
        g_free(s);
        return NULL;
    }
    if (!g_unix_set_fd_nonblocking(fd, TRUE, NULL)) {
        /* Not expected for a fresh socket; reads would block the loop. */
        close(fd);
        g_free(s);
        error_setg(errp, "socket: cannot make the socket non-blocking");
        return NULL;
    }
    s->rx = g_byte_array_new();
    s->tx = g_byte_array_new();
    if (udp) {
        g_byte_array_set_size(s->rx, NET_MAX_PACKET);
    }
    s->nc = qemu_new_net_client(&net_socket_info, peer, id, s);
    if (listen_addr) {
        s->listen_fd = fd;
        s->listen_watch = g_unix_fd_add(fd, G_IO_IN, socket_accept, s);
        qemu_set_info_str(s->nc, "socket: wait connection on %s",
                          listen_addr);
    } else {
        s->fd = fd;
        qemu_set_info_str(s->nc, udp ? "socket: udp=%s" : "socket: "
                          "connect to %s", udp ? udp : connect);
        socket_update_read(s);
    }
    return s->nc;
}

static const NetdevClass netdev_socket_class = {
    .type = "socket",
    .init = net_init_socket,
};

NETDEV_CLASS_REGISTER(netdev_socket_class)
