/*
 * Migration transports: a URI to a descriptor (see transport.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "migration/transport.h"
#include "monitor/monitor.h"

void mig_channel_init(MigChannel *c)
{
    c->fd = -1;
    c->listen_fd = -1;
    c->child = 0;
    c->unlink_path = NULL;
}

static bool unix_addr(const char *path, struct sockaddr_un *sa, Error **errp)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (!*path || strlen(path) >= sizeof(sa->sun_path)) {
        error_setg(errp, "unix socket path '%s' is empty or too long", path);
        return false;
    }
    strcpy(sa->sun_path, path);
    return true;
}

/* "HOST:PORT", "[V6]:PORT", ":PORT" into host (NULL: any) and port. */
static bool split_host_port(const char *s, char **host, char **port,
                            Error **errp)
{
    const char *colon;

    if (s[0] == '[') {
        const char *end = strchr(s, ']');

        if (!end || end[1] != ':') {
            error_setg(errp, "'%s' is not [HOST]:PORT", s);
            return false;
        }
        *host = g_strndup(s + 1, end - s - 1);
        *port = g_strdup(end + 2);
        return true;
    }
    colon = strrchr(s, ':');
    if (!colon || !colon[1]) {
        error_setg(errp, "'%s' is not HOST:PORT", s);
        return false;
    }
    *host = colon == s ? NULL : g_strndup(s, colon - s);
    *port = g_strdup(colon + 1);
    return true;
}

static int tcp_socket(const char *spec, bool listen_on, Error **errp)
{
    struct addrinfo hints = {
        .ai_socktype = SOCK_STREAM,
        .ai_flags = listen_on ? AI_PASSIVE : 0,
    }, *res = NULL;
    char *host, *port;
    int fd = -1, err, saved = 0;

    if (!split_host_port(spec, &host, &port, errp)) {
        return -1;
    }
    err = getaddrinfo(host, port, &hints, &res);
    if (err) {
        error_setg(errp, "address resolution failed for %s: %s", spec,
                   gai_strerror(err));
        g_free(host);
        g_free(port);
        return -1;
    }
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int one = 1;

        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        if (listen_on) {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
            if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
                listen(fd, 1) == 0) {
                break;
            }
        } else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
                       sizeof(one));
            break;
        }
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        error_setg_errno(errp, saved, "Failed to %s socket %s",
                         listen_on ? "bind" : "connect", spec);
    }
    g_free(host);
    g_free(port);
    return fd;
}

static int unix_socket(const char *path, bool listen_on, MigChannel *c,
                       Error **errp)
{
    struct sockaddr_un sa;
    int fd;

    if (!unix_addr(path, &sa, errp)) {
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "Failed to create socket");
        return -1;
    }
    if (listen_on) {
        unlink(path);
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            listen(fd, 1) < 0) {
            error_setg_errno(errp, errno, "Failed to bind socket to %s",
                             path);
            close(fd);
            return -1;
        }
        c->unlink_path = g_strdup(path);
    } else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        error_setg_errno(errp, errno, "Failed to connect to '%s'", path);
        close(fd);
        return -1;
    }
    return fd;
}

/* /bin/sh -c cmd with its stdin (to_child) or stdout joined to us. */
static int exec_command(const char *cmd, bool to_child, MigChannel *c,
                        Error **errp)
{
    int p[2];
    pid_t pid;

    if (pipe2(p, O_CLOEXEC) < 0) {
        error_setg_errno(errp, errno, "cannot make a pipe");
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        error_setg_errno(errp, errno, "cannot start '%s'", cmd);
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(to_child ? p[0] : p[1], to_child ? 0 : 1);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    c->child = pid;
    close(to_child ? p[0] : p[1]);
    return to_child ? p[1] : p[0];
}

/*
 * fd:N, a descriptor the process holds (dup'ed), or fd:NAME, one getfd
 * kept (taken: the name is gone afterwards, as in QEMU).
 */
static int fd_param(const char *s, Error **errp)
{
    char *end;
    long fd;

    if (*s && !g_ascii_isdigit(*s)) {
        fd = monitor_fd_take(s);
        if (fd < 0) {
            error_setg(errp, "File descriptor named '%s' has not been found",
                       s);
        }
        return fd;
    }
    fd = strtol(s, &end, 10);
    if (!*s || *end || fd < 0 || fd > INT32_MAX || fcntl(fd, F_GETFD) < 0) {
        error_setg(errp, "'%s' is not a descriptor this process holds", s);
        return -1;
    }
    return dup(fd);
}

static int file_open(const char *spec, bool write, Error **errp)
{
    const char *opt = strstr(spec, ",offset=");
    char *path = opt ? g_strndup(spec, opt - spec) : g_strdup(spec);
    off_t offset = 0;
    int fd;

    if (opt) {
        char *end;

        offset = g_ascii_strtoull(opt + 8, &end, 0);
        if (*end || end == opt + 8) {
            error_setg(errp, "invalid offset in 'file:%s'", spec);
            g_free(path);
            return -1;
        }
    }
    fd = open(path, write ? O_WRONLY | O_CREAT | O_CLOEXEC | (opt ? 0 : O_TRUNC)
                          : O_RDONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        error_setg_errno(errp, errno, "Could not open '%s'", path);
    } else if (offset && lseek(fd, offset, SEEK_SET) < 0) {
        error_setg_errno(errp, errno, "Could not seek in '%s'", path);
        close(fd);
        fd = -1;
    }
    g_free(path);
    return fd;
}

static bool bad_uri(const char *uri, Error **errp)
{
    error_setg(errp, "unknown migration protocol: %s", uri);
    return false;
}

bool mig_channel_connect(MigChannel *c, const char *uri, Error **errp)
{
    if (g_str_has_prefix(uri, "unix:")) {
        c->fd = unix_socket(uri + 5, false, c, errp);
    } else if (g_str_has_prefix(uri, "tcp:")) {
        c->fd = tcp_socket(uri + 4, false, errp);
    } else if (g_str_has_prefix(uri, "exec:")) {
        c->fd = exec_command(uri + 5, true, c, errp);
    } else if (g_str_has_prefix(uri, "fd:")) {
        c->fd = fd_param(uri + 3, errp);
    } else if (g_str_has_prefix(uri, "file:")) {
        c->fd = file_open(uri + 5, true, errp);
    } else {
        return bad_uri(uri, errp);
    }
    return c->fd >= 0;
}

bool mig_channel_listen(MigChannel *c, const char *uri, Error **errp)
{
    if (g_str_has_prefix(uri, "unix:")) {
        c->listen_fd = unix_socket(uri + 5, true, c, errp);
        return c->listen_fd >= 0;
    } else if (g_str_has_prefix(uri, "tcp:")) {
        c->listen_fd = tcp_socket(uri + 4, true, errp);
        return c->listen_fd >= 0;
    } else if (g_str_has_prefix(uri, "exec:")) {
        c->fd = exec_command(uri + 5, false, c, errp);
    } else if (g_str_has_prefix(uri, "fd:")) {
        c->fd = fd_param(uri + 3, errp);
    } else if (g_str_has_prefix(uri, "file:")) {
        c->fd = file_open(uri + 5, false, errp);
    } else {
        return bad_uri(uri, errp);
    }
    return c->fd >= 0;
}

bool mig_channel_accept(MigChannel *c, int cancel_fd, Error **errp)
{
    struct pollfd p[2] = {
        { .fd = c->listen_fd, .events = POLLIN },
        { .fd = cancel_fd, .events = POLLIN },
    };

    if (c->listen_fd < 0) {
        return true;
    }
    while (poll(p, 2, -1) < 0) {
        if (errno != EINTR) {
            error_setg_errno(errp, errno, "waiting for the connection");
            return false;
        }
    }
    if (p[1].revents) {
        error_setg(errp, "cancelled while waiting for the connection");
        return false;
    }
    c->fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c->fd < 0) {
        error_setg_errno(errp, errno, "accepting the connection failed");
        return false;
    }
    close(c->listen_fd);
    c->listen_fd = -1;
    return true;
}

void mig_channel_close(MigChannel *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    if (c->listen_fd >= 0) {
        close(c->listen_fd);
    }
    if (c->unlink_path) {
        unlink(c->unlink_path);
        g_free(c->unlink_path);
    }
    if (c->child > 0) {
        while (waitpid(c->child, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    mig_channel_init(c);
}
