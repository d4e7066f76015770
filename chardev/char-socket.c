/*
 * -chardev socket: a unix (path=) or tcp (host=, port=) stream socket,
 * as a server (server=on, one client at a time) or a client.
 *
 * A server listens with QEMU's backlog of 1 and watches the listening
 * socket only while no client is connected, so further clients wait in
 * the backlog until the current one leaves. With wait=on (the default
 * for servers) creation blocks until the first client connects. While
 * no client is connected, output is discarded, as in QEMU.
 *
 * fd=N takes a socket the process inherited instead of making one: a
 * listening one with server=on (libvirt binds the monitor socket and
 * connects to it before it starts the emulator), a connected one
 * otherwise. Its owner removes the socket file, not the emulator.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib-unix.h>

#include "chardev-internal.h"

typedef struct SocketChardev {
    Chardev parent;
    bool is_unix;
    bool is_listen;
    bool nodelay;
    char *path;             /* unix */
    char *host;             /* tcp; a server's bound address once bound */
    char *port;
    int family;             /* AF_UNSPEC unless ipv4= or ipv6= */
    int listen_fd;
    guint listen_watch;
    int fd;                 /* the connected peer, or -1 */
    bool fd_given;          /* fd=N: the socket was inherited */
    char *conn_name;        /* filename while connected */
} SocketChardev;

static const QemuOptDesc socket_opts[] = {
    { "path", QEMU_OPT_STRING },
    { "fd", QEMU_OPT_STRING },
    { "host", QEMU_OPT_STRING },
    { "port", QEMU_OPT_STRING },
    { "server", QEMU_OPT_BOOL },
    { "wait", QEMU_OPT_BOOL },
    { "nodelay", QEMU_OPT_BOOL },
    { "reconnect", QEMU_OPT_NUMBER },
    { "ipv4", QEMU_OPT_BOOL },
    { "ipv6", QEMU_OPT_BOOL },
    { NULL },
};

static char *socket_addr_string(const struct sockaddr *sa, socklen_t len)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];

    if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        return g_strdup("unknown");
    }
    if (sa->sa_family == AF_INET6) {
        return g_strdup_printf("[%s]:%s", host, serv);
    }
    return g_strdup_printf("%s:%s", host, serv);
}

/* QEMU's query-chardev form: "tcp:L:P,server=on <-> R:Q". */
static char *socket_conn_name(SocketChardev *s, int fd)
{
    struct sockaddr_storage local, peer;
    socklen_t llen = sizeof(local), plen = sizeof(peer);
    char *l, *p, *name;

    if (s->is_unix) {
        return g_strdup_printf("unix:%s%s", s->path,
                               s->is_listen ? ",server=on" : "");
    }
    if (getsockname(fd, (struct sockaddr *)&local, &llen) < 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &plen) < 0) {
        return g_strdup("unknown");
    }
    l = socket_addr_string((struct sockaddr *)&local, llen);
    p = socket_addr_string((struct sockaddr *)&peer, plen);
    name = g_strdup_printf("tcp:%s%s <-> %s", l,
                           s->is_listen ? ",server=on" : "", p);
    g_free(l);
    g_free(p);
    return name;
}

static char *socket_filename(const Chardev *chr)
{
    const SocketChardev *s = (const SocketChardev *)chr;
    const char *server = s->is_listen ? ",server=on" : "";

    if (s->fd >= 0) {
        return g_strdup(s->conn_name);
    }
    if (s->is_unix) {
        return g_strdup_printf("disconnected:unix:%s%s", s->path, server);
    }
    return g_strdup_printf("disconnected:tcp:%s:%s%s", s->host, s->port,
                           server);
}

static gboolean socket_accept_ready(gint fd, GIOCondition cond,
                                    gpointer opaque);

static void socket_watch_listener(SocketChardev *s)
{
    if (s->listen_fd >= 0 && !s->listen_watch) {
        s->listen_watch = g_unix_fd_add(s->listen_fd, G_IO_IN,
                                        socket_accept_ready, s);
    }
}

static void socket_connected(SocketChardev *s, int fd)
{
    Chardev *chr = &s->parent;
    int one = 1;

    if (!s->is_unix && s->nodelay) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    s->fd = fd;
    s->conn_name = socket_conn_name(s, fd);
    /* One client at a time: the next waits in the listen backlog. */
    if (s->listen_watch) {
        g_source_remove(s->listen_watch);
        s->listen_watch = 0;
    }
    chr_fd_attach(chr, fd, fd, true);
    chr_be_event(chr, CHR_EVENT_OPENED);
}

static void socket_drop_client(SocketChardev *s)
{
    Chardev *chr = &s->parent;

    if (s->fd < 0) {
        return;
    }
    chr_fd_detach(chr);
    close(s->fd);
    s->fd = -1;
    g_clear_pointer(&s->conn_name, g_free);
    socket_watch_listener(s);
    chr_be_event(chr, CHR_EVENT_CLOSED);
}

static int socket_accept(SocketChardev *s)
{
    int fd;

    do {
        fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

static gboolean socket_accept_ready(gint fd, GIOCondition cond,
                                    gpointer opaque)
{
    SocketChardev *s = opaque;
    int client = socket_accept(s);

    if (client < 0) {
        /* Gone before we took it, or out of fds: keep listening. */
        return G_SOURCE_CONTINUE;
    }
    s->listen_watch = 0;
    socket_connected(s, client);
    return G_SOURCE_REMOVE;
}

static bool socket_fill_unix(struct sockaddr_un *sun, const char *path,
                             Error **errp)
{
    memset(sun, 0, sizeof(*sun));
    sun->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sun->sun_path)) {
        error_setg(errp, "UNIX socket path '%s' is too long", path);
        return false;
    }
    strcpy(sun->sun_path, path);
    return true;
}

static struct addrinfo *socket_resolve(SocketChardev *s, bool passive,
                                       Error **errp)
{
    struct addrinfo hints = {
        .ai_family = s->family,
        .ai_socktype = SOCK_STREAM,
        .ai_flags = passive ? AI_PASSIVE : 0,
    };
    struct addrinfo *res;
    const char *host = s->host[0] ? s->host : NULL;
    int rc = getaddrinfo(host, s->port, &hints, &res);

    if (rc != 0) {
        error_setg(errp, "address resolution failed for %s:%s: %s",
                   s->host, s->port, gai_strerror(rc));
        return NULL;
    }
    return res;
}

static bool socket_listen_unix(SocketChardev *s, Error **errp)
{
    struct sockaddr_un sun;

    if (!socket_fill_unix(&sun, s->path, errp)) {
        return false;
    }
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          0);
    if (s->listen_fd < 0) {
        error_setg_errno(errp, errno, "Failed to create socket");
        return false;
    }
    /* A socket file left by an earlier run would make bind fail. */
    if (unlink(s->path) < 0 && errno != ENOENT) {
        error_setg_errno(errp, errno, "Failed to unlink socket %s", s->path);
        return false;
    }
    if (bind(s->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
        error_setg_errno(errp, errno, "Failed to bind socket to %s", s->path);
        return false;
    }
    return true;
}

static bool socket_listen_tcp(SocketChardev *s, Error **errp)
{
    struct addrinfo *res = socket_resolve(s, true, errp), *ai;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    int err = 0, one = 1;

    if (!res) {
        return false;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family,
                        SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

        if (fd < 0) {
            err = errno;
            continue;
        }
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            s->listen_fd = fd;
            break;
        }
        err = errno;
        close(fd);
    }
    freeaddrinfo(res);
    if (s->listen_fd < 0) {
        error_setg_errno(errp, err, "Failed to bind socket");
        return false;
    }
    /* Show the address really bound (port 0, or no host), as QEMU. */
    if (getsockname(s->listen_fd, (struct sockaddr *)&ss, &len) == 0 &&
        getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), serv,
                    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
        g_free(s->host);
        g_free(s->port);
        s->host = g_strdup(host);
        s->port = g_strdup(serv);
    }
    return true;
}

static bool socket_open_server(SocketChardev *s, bool wait, Error **errp)
{
    bool ok = s->fd_given || (s->is_unix ? socket_listen_unix(s, errp)
                                         : socket_listen_tcp(s, errp));

    if (!ok) {
        return false;
    }
    if (!s->fd_given && listen(s->listen_fd, 1) < 0) {
        error_setg_errno(errp, errno, "Failed to listen on socket");
        return false;
    }
    if (wait) {
        char *name = socket_filename(&s->parent);
        struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
        int fd = -1;

        info_report("QEMU waiting for connection on: %s", name);
        g_free(name);
        while (fd < 0) {
            if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
                error_setg_errno(errp, errno, "Failed to accept connection");
                return false;
            }
            fd = socket_accept(s);
            if (fd < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
                errno != ECONNABORTED) {
                error_setg_errno(errp, errno, "Failed to accept connection");
                return false;
            }
        }
        socket_connected(s, fd);
        return true;
    }
    socket_watch_listener(s);
    return true;
}

static int socket_connect_unix(SocketChardev *s, Error **errp)
{
    struct sockaddr_un sun;
    int fd;

    if (!socket_fill_unix(&sun, s->path, errp)) {
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "Failed to create socket");
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
        error_setg_errno(errp, errno, "Failed to connect to '%s'", s->path);
        close(fd);
        return -1;
    }
    return fd;
}

static int socket_connect_tcp(SocketChardev *s, Error **errp)
{
    struct addrinfo *res = socket_resolve(s, false, errp), *ai;
    int fd = -1, err = 0;

    if (!res) {
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            break;
        }
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        error_setg_errno(errp, err, "Failed to connect to '%s:%s'",
                         s->host, s->port);
    }
    return fd;
}

static bool socket_open_client(SocketChardev *s, Error **errp)
{
    /* A blocking connect at creation, as QEMU does without reconnect. */
    int fd = s->fd_given ? s->listen_fd
             : s->is_unix ? socket_connect_unix(s, errp)
                          : socket_connect_tcp(s, errp);

    if (s->fd_given) {
        s->listen_fd = -1;          /* it is the connection, not a listener */
    }
    if (fd < 0) {
        return false;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    socket_connected(s, fd);
    return true;
}

/*
 * fd=N: check that N is an open stream socket, listening when server=on,
 * and learn its address for query-chardev.
 */
static bool socket_take_fd(SocketChardev *s, const char *arg, Error **errp)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int type = 0, listening = 0;
    socklen_t olen = sizeof(int);
    char *end;
    long fd = strtol(arg, &end, 10);

    if (*end || end == arg || fd < 0 || fd > INT_MAX ||
        fcntl((int)fd, F_GETFD) < 0) {
        error_setg(errp, "Parameter 'fd' expects an open file descriptor "
                   "number; '%s' is not", arg);
        return false;
    }
    if (getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &olen) < 0 ||
        type != SOCK_STREAM ||
        getsockname((int)fd, (struct sockaddr *)&ss, &len) < 0) {
        error_setg(errp, "File descriptor '%ld' is not a stream socket", fd);
        return false;
    }
    olen = sizeof(int);
    getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &olen);
    if (s->is_listen != !!listening) {
        error_setg(errp, "File descriptor '%ld' is %s listening socket, "
                   "but server=%s", fd, listening ? "a" : "not a",
                   s->is_listen ? "on" : "off");
        return false;
    }
    s->fd_given = true;
    s->listen_fd = (int)fd;
    fcntl(s->listen_fd, F_SETFD, FD_CLOEXEC);
    fcntl(s->listen_fd, F_SETFL, fcntl(s->listen_fd, F_GETFL) | O_NONBLOCK);
    if (ss.ss_family == AF_UNIX) {
        s->is_unix = true;
        s->path = g_strndup(((struct sockaddr_un *)&ss)->sun_path,
                            sizeof(((struct sockaddr_un *)&ss)->sun_path));
    } else {
        char *addr = socket_addr_string((struct sockaddr *)&ss, len);
        char *colon = strrchr(addr, ':');

        *colon = 0;
        s->host = g_strdup(addr);
        s->port = g_strdup(colon + 1);
        g_free(addr);
    }
    return true;
}

static bool socket_parse(SocketChardev *s, const QemuOpts *opts, bool *wait,
                         Error **errp)
{
    const char *fd = qemu_opt_get(opts, "fd");
    const char *path = qemu_opt_get(opts, "path");
    const char *host = qemu_opt_get(opts, "host");
    const char *port = qemu_opt_get(opts, "port");
    bool ipv4 = false, ipv6 = false;
    uint64_t reconnect = 0;

    if (!qemu_opt_get_bool(opts, "server", &s->is_listen, errp) ||
        !qemu_opt_get_bool(opts, "wait", wait, errp) ||
        !qemu_opt_get_bool(opts, "nodelay", &s->nodelay, errp) ||
        !qemu_opt_get_bool(opts, "ipv4", &ipv4, errp) ||
        !qemu_opt_get_bool(opts, "ipv6", &ipv6, errp) ||
        !qemu_opt_get_number(opts, "reconnect", &reconnect, errp)) {
        return false;
    }
    if (!s->is_listen && qemu_opt_get(opts, "wait")) {
        error_setg(errp, "'wait' option is incompatible with "
                   "socket in client connect mode");
        return false;
    }
    if (s->is_listen && qemu_opt_get(opts, "reconnect")) {
        error_setg(errp, "'reconnect' option is incompatible with "
                   "socket in server listen mode");
        return false;
    }
    if (reconnect) {
        error_setg(errp, "chardev: socket: 'reconnect' is not supported");
        return false;
    }
    if (fd) {
        if (path || host || port) {
            error_setg(errp, "chardev: socket: 'fd' cannot be used with "
                       "'path', 'host' or 'port'");
            return false;
        }
        return socket_take_fd(s, fd, errp);
    }
    if (path) {
        s->is_unix = true;
        s->path = g_strdup(path);
        return true;
    }
    if (!host) {
        error_setg(errp, "chardev: socket: no host given");
        return false;
    }
    if (!port) {
        error_setg(errp, "chardev: socket: no port given");
        return false;
    }
    s->host = g_strdup(host);
    s->port = g_strdup(port);
    if (ipv4 && !ipv6) {
        s->family = AF_INET;
    } else if (ipv6 && !ipv4) {
        s->family = AF_INET6;
    }
    return true;
}

static void socket_close(Chardev *chr)
{
    SocketChardev *s = (SocketChardev *)chr;

    if (s->listen_watch) {
        g_source_remove(s->listen_watch);
        s->listen_watch = 0;
    }
    if (s->fd >= 0) {
        chr_fd_detach(chr);
        close(s->fd);
        s->fd = -1;
    }
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
        if (s->is_unix && !s->fd_given) {
            unlink(s->path);
        }
        s->listen_fd = -1;
    }
    g_free(s->conn_name);
    g_free(s->path);
    g_free(s->host);
    g_free(s->port);
}

static bool socket_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    SocketChardev *s = (SocketChardev *)chr;
    bool wait = true;
    bool ok;

    s->fd = -1;
    s->listen_fd = -1;
    s->family = AF_UNSPEC;
    ok = socket_parse(s, opts, &wait, errp);
    if (ok) {
        ok = s->is_listen ? socket_open_server(s, wait, errp)
                          : socket_open_client(s, errp);
    }
    if (!ok) {
        /* A half-made server must not leave its socket file behind. */
        if (s->listen_fd >= 0 && s->is_unix) {
            struct sockaddr_un sun;
            socklen_t len = sizeof(sun);

            if (getsockname(s->listen_fd, (struct sockaddr *)&sun,
                            &len) < 0 || sun.sun_path[0] == '\0') {
                close(s->listen_fd);
                s->listen_fd = -1;
            }
        }
        socket_close(chr);
    }
    return ok;
}

static void socket_hangup(Chardev *chr)
{
    socket_drop_client((SocketChardev *)chr);
}

static const ChardevClass chardev_socket_class = {
    .name = "socket",
    .instance_size = sizeof(SocketChardev),
    .opts = socket_opts,
    .open = socket_open,
    .close = socket_close,
    .filename = socket_filename,
    .hangup = socket_hangup,
    .disconnect = socket_hangup,
    CHR_FD_OPS,
};

CHARDEV_CLASS_REGISTER(chardev_socket_class)
