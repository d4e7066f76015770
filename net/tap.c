/*
 * -netdev tap: frames through a Linux tap interface (/dev/net/tun, IFF_TAP
 * without packet information).
 *   ifname=NAME          the interface (default: the kernel's tapN)
 *   fd=N                 a tap descriptor opened by the caller (libvirt)
 *   script=PATH|no       run PATH IFNAME once the interface exists
 *                        (default /etc/qemu-ifup), as QEMU does
 *   downscript=PATH|no   run PATH IFNAME at exit (default /etc/qemu-ifdown)
 *   vnet_hdr=off         frames without a virtio-net header (on is refused:
 *                        the NIC cannot pass offloads through yet)
 * Flow control as the socket backend: the fd is read only while the NIC
 * takes frames; a frame the interface refuses (EAGAIN) is queued and the
 * NIC paused until the fd is writable.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/if.h>
#include <linux/if_tun.h>

#include <glib-unix.h>

#include "net/net.h"
#include "qemu/log.h"

#define PATH_NET_TUN            "/dev/net/tun"
#define DEFAULT_SCRIPT          "/etc/qemu-ifup"
#define DEFAULT_DOWNSCRIPT      "/etc/qemu-ifdown"

typedef struct NetTap {
    NetClientState *nc;
    int fd;
    char ifname[IFNAMSIZ];
    char *downscript;           /* NULL: none */
    guint read_watch, write_watch;
    uint8_t buf[NET_MAX_PACKET];
} NetTap;

static const QemuOptDesc tap_desc[] = {
    { "type", QEMU_OPT_STRING },
    { "id", QEMU_OPT_STRING },
    { "ifname", QEMU_OPT_STRING },
    { "fd", QEMU_OPT_STRING },
    { "script", QEMU_OPT_STRING },
    { "downscript", QEMU_OPT_STRING },
    { "vnet_hdr", QEMU_OPT_BOOL },
    { "vhost", QEMU_OPT_BOOL },
    { "sndbuf", QEMU_OPT_SIZE },
    { NULL },
};

static void tap_update_read(NetTap *t);

static gboolean tap_readable(gint fd, GIOCondition cond, gpointer opaque)
{
    NetTap *t = opaque;

    /* A burst at most per wake-up, so the main loop stays responsive. */
    for (int i = 0; i < 64 && !t->nc->paused; i++) {
        ssize_t n = read(fd, t->buf, sizeof(t->buf));

        if (n <= 0) {
            break;
        }
        qemu_send_packet(t->nc, t->buf, n);
    }
    if (t->nc->paused) {
        t->read_watch = 0;
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

/* Read the interface only while the NIC takes frames. */
static void tap_update_read(NetTap *t)
{
    net_update_read_watch(t->nc, t->fd, &t->read_watch,
                          tap_readable, t);
}

static void tap_resume(NetClientState *nc)
{
    tap_update_read(nc->opaque);
}

static gboolean tap_writable(gint fd, GIOCondition cond, gpointer opaque)
{
    NetTap *t = opaque;

    t->write_watch = 0;
    qemu_flush_queued_packets(t->nc);
    return G_SOURCE_REMOVE;
}

static ssize_t tap_receive(NetClientState *nc, const uint8_t *buf, size_t len)
{
    NetTap *t = nc->opaque;
    ssize_t n;

    do {
        n = write(t->fd, buf, len);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) {
        if (!t->write_watch) {
            t->write_watch = g_unix_fd_add(t->fd, G_IO_OUT, tap_writable, t);
        }
        return 0;               /* queued; the NIC waits */
    }
    /* Other errors (the interface is down): the wire drops the frame. */
    return len;
}

/* Run script with the interface's name; false (with why) if it failed. */
static bool tap_run_script(const char *script, const char *ifname,
                           Error **errp)
{
    const char *argv[] = { script, ifname, NULL };
    GError *gerr = NULL;
    int status;

    if (!g_spawn_sync(NULL, (char **)argv, NULL,
                      G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL,
                      &status, &gerr)) {
        error_setg(errp, "could not launch network script %s", script);
        g_error_free(gerr);
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        error_setg(errp, "network script %s failed with status %d", script,
                   status);
        return false;
    }
    return true;
}

static void tap_cleanup(NetClientState *nc)
{
    NetTap *t = nc->opaque;

    if (t->read_watch) {
        g_source_remove(t->read_watch);
    }
    if (t->write_watch) {
        g_source_remove(t->write_watch);
    }
    if (t->downscript) {
        Error *err = NULL;

        if (!tap_run_script(t->downscript, t->ifname, &err)) {
            warn_report_err(err);
        }
    }
    close(t->fd);
    g_free(t->downscript);
    g_free(t);
}

static const NetClientInfo net_tap_info = {
    .type = "tap",
    .receive = tap_receive,
    .resume = tap_resume,
    .cleanup = tap_cleanup,
};

/* /dev/net/tun as ifname (a pattern like "tap%d" is the default). */
static int tap_open(const char *ifname, char *actual, Error **errp)
{
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
    int fd = open(PATH_NET_TUN, O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        error_setg_errno(errp, errno, "could not open %s", PATH_NET_TUN);
        return -1;
    }
    g_strlcpy(ifr.ifr_name, ifname ? ifname : "tap%d", IFNAMSIZ);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        error_setg_errno(errp, errno, "could not configure %s (%s)",
                         PATH_NET_TUN, ifr.ifr_name);
        close(fd);
        return -1;
    }
    g_strlcpy(actual, ifr.ifr_name, IFNAMSIZ);
    return fd;
}

/* fd=N: a tap descriptor the caller opened; its name from TUNGETIFF. */
static int tap_take_fd(const char *str, char *actual, Error **errp)
{
    struct ifreq ifr = { 0 };
    char *end;
    long fd = strtol(str, &end, 10);

    if (!*str || *end || fd < 0 || fd > INT_MAX ||
        fcntl(fd, F_GETFD) < 0) {
        error_setg(errp, "Invalid file descriptor number '%s'", str);
        return -1;
    }
    if (ioctl(fd, TUNGETIFF, &ifr) < 0 || !(ifr.ifr_flags & IFF_TAP)) {
        error_setg(errp, "file descriptor %ld is not a tap device", fd);
        return -1;
    }
    g_strlcpy(actual, ifr.ifr_name, IFNAMSIZ);
    return fd;
}

NetClientState *net_init_tap(const QemuOpts *opts, const char *id,
                             NetClientState *peer, Error **errp)
{
    const char *fd_str = qemu_opt_get(opts, "fd");
    const char *ifname = qemu_opt_get(opts, "ifname");
    const char *script = qemu_opt_get(opts, "script");
    const char *downscript = qemu_opt_get(opts, "downscript");
    bool vnet_hdr = false, vhost = false;
    char actual[IFNAMSIZ];
    NetTap *t;
    int fd;

    if (!qemu_opts_validate(opts, tap_desc, errp) ||
        !qemu_opt_get_bool(opts, "vnet_hdr", &vnet_hdr, errp) ||
        !qemu_opt_get_bool(opts, "vhost", &vhost, errp)) {
        return NULL;
    }
    if (vhost) {
        error_setg(errp, "vhost-net is not supported");
        return NULL;
    }
    if (vnet_hdr) {
        error_setg(errp, "vnet_hdr=on is not supported yet: the NIC does not "
                   "pass offloads through");
        return NULL;
    }
    if (fd_str) {
        if (ifname || script || downscript) {
            error_setg(errp, "ifname=, script=, downscript=, vnet_hdr=, "
                       "helper=, queues=, fds=, and vhostfds= are invalid "
                       "with fd=");
            return NULL;
        }
        fd = tap_take_fd(fd_str, actual, errp);
    } else {
        fd = tap_open(ifname, actual, errp);
    }
    if (fd < 0) {
        return NULL;
    }
    if (!fd_str) {
        script = script ? script : DEFAULT_SCRIPT;
        downscript = downscript ? downscript : DEFAULT_DOWNSCRIPT;
        if (strcmp(script, "no") && !tap_run_script(script, actual, errp)) {
            close(fd);
            return NULL;
        }
    }
    if (!g_unix_set_fd_nonblocking(fd, TRUE, NULL)) {
        error_setg_errno(errp, errno, "could not make the tap non-blocking");
        close(fd);
        return NULL;
    }
    t = g_new0(NetTap, 1);
    t->fd = fd;
    g_strlcpy(t->ifname, actual, sizeof(t->ifname));
    if (downscript && strcmp(downscript, "no")) {
        t->downscript = g_strdup(downscript);
    }
    t->nc = qemu_new_net_client(&net_tap_info, peer, id, t);
    if (fd_str) {
        qemu_set_info_str(t->nc, "fd=%d", fd);
    } else {
        qemu_set_info_str(t->nc, "ifname=%s,script=%s,downscript=%s",
                          actual, script, downscript);
    }
    tap_update_read(t);
    return t->nc;
}
