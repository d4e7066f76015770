/*
 * -netdev tap: frames through a Linux tap interface (/dev/net/tun, IFF_TAP
 * without packet information).
 *   ifname=NAME          the interface (default: the kernel's tapN)
 *   fd=N                 a tap descriptor opened by the caller (libvirt)
 *   fds=N:M:...          one descriptor per queue of a multiqueue tap
 *   queues=N             open N queues (IFF_MULTI_QUEUE), one fd each
 *   script=PATH|no       run PATH IFNAME once the interface exists
 *                        (default /etc/qemu-ifup), as QEMU does
 *   downscript=PATH|no   run PATH IFNAME at exit (default /etc/qemu-ifdown)
 *   vnet_hdr=on|off      frames with a virtio-net header (IFF_VNET_HDR);
 *                        by default when the kernel has it, on fails
 *                        when it has not; with fd=/fds= the descriptor's
 *                        own flag decides
 * Each queue is a client of its own (queue_index 0..N-1, all named id).
 * With a header, a NIC that takes it (qemu_set_vnet_hdr_len) gets and
 * gives the header unchanged, and its driver's offloads are set with
 * TUNSETOFFLOAD; a peer without one (a hub) gets plain frames: the
 * header is stripped on read and a zero one added on write.
 * Flow control as the socket backend: the fd is read only while the NIC
 * takes frames; a frame the interface refuses (EAGAIN) is queued and the
 * NIC paused until the fd is writable.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
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
#define TAP_MAX_QUEUES          256     /* the kernel's MAX_TAP_QUEUES */
#define TAP_VNET_HDR_LEN        10      /* IFF_VNET_HDR's until set */
#define TAP_MAX_HDR_LEN         16      /* what tap_receive can pad */

typedef struct NetTap {
    NetClientState *nc;
    int fd;
    char ifname[IFNAMSIZ];
    char *downscript;           /* queue 0's; NULL: none */
    bool vnet_hdr;              /* the fd has IFF_VNET_HDR */
    int hdr_len;                /* the kernel's header size with it */
    bool using_vnet_hdr;        /* the peer takes the header */
    bool multiqueue, enabled;   /* IFF_MULTI_QUEUE; attached */
    guint read_watch, write_watch;
    uint8_t buf[NET_MAX_PACKET];
} NetTap;

static const QemuOptDesc tap_desc[] = {
    { "type", QEMU_OPT_STRING },
    { "id", QEMU_OPT_STRING },
    { "ifname", QEMU_OPT_STRING },
    { "fd", QEMU_OPT_STRING },
    { "fds", QEMU_OPT_STRING },
    { "queues", QEMU_OPT_NUMBER },
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

        size_t strip = t->vnet_hdr && !t->using_vnet_hdr ? t->hdr_len : 0;

        if (n <= (ssize_t)strip) {
            break;
        }
        qemu_send_packet(t->nc, t->buf + strip, n - strip);
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
    /* A detached queue polls as an error: no watch on it. */
    net_update_read_watch(t->nc, t->enabled ? t->fd : -1, &t->read_watch,
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
    static const uint8_t zero_hdr[TAP_MAX_HDR_LEN];
    struct iovec iov[2] = {
        { (void *)zero_hdr, t->hdr_len }, { (void *)buf, len }
    };
    bool add_hdr = t->vnet_hdr && !t->using_vnet_hdr;
    ssize_t n;

    do {
        n = writev(t->fd, iov + !add_hdr, 1 + add_hdr);
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

static bool tap_has_vnet_hdr(NetClientState *nc)
{
    return ((NetTap *)nc->opaque)->vnet_hdr;
}

static void tap_set_vnet_hdr_len(NetClientState *nc, int len)
{
    NetTap *t = nc->opaque;

    if (len && (len > TAP_MAX_HDR_LEN ||
                ioctl(t->fd, TUNSETVNETHDRSZ, &len) < 0)) {
        /* Every kernel with IFF_VNET_HDR since 2.6.35 has it. */
        warn_report("tap %s: TUNSETVNETHDRSZ %d: %s", t->ifname, len,
                    g_strerror(errno));
        len = 0;
    }
    if (len) {
        t->hdr_len = len;
    }
    t->using_vnet_hdr = len != 0;
}

static void tap_set_offload(NetClientState *nc, const NetOffloads *o)
{
    NetTap *t = nc->opaque;
    unsigned flags = (o->csum ? TUN_F_CSUM : 0) |
                     (o->tso4 ? TUN_F_TSO4 : 0) |
                     (o->tso6 ? TUN_F_TSO6 : 0) |
                     (o->ecn ? TUN_F_TSO_ECN : 0) |
                     (o->ufo ? TUN_F_UFO : 0);

    if (ioctl(t->fd, TUNSETOFFLOAD, flags) < 0 &&
        ioctl(t->fd, TUNSETOFFLOAD, flags & ~TUN_F_UFO) < 0) {
        /* The kernel then sends finished frames only: still correct. */
        qemu_log_mask(LOG_UNIMP, "tap %s: TUNSETOFFLOAD 0x%x: %s\n",
                      t->ifname, flags, g_strerror(errno));
    }
}

static bool tap_set_queue_enabled(NetClientState *nc, bool enabled,
                                  Error **errp)
{
    NetTap *t = nc->opaque;
    struct ifreq ifr = {
        .ifr_flags = enabled ? IFF_ATTACH_QUEUE : IFF_DETACH_QUEUE
    };

    if (!t->multiqueue || t->enabled == enabled) {
        return true;
    }
    if (ioctl(t->fd, TUNSETQUEUE, &ifr) < 0) {
        error_setg_errno(errp, errno, "could not %s queue %u of %s",
                         enabled ? "attach" : "detach", nc->queue_index,
                         t->ifname);
        return false;
    }
    t->enabled = enabled;
    tap_update_read(t);
    return true;
}

static const NetClientInfo net_tap_info = {
    .type = "tap",
    .receive = tap_receive,
    .resume = tap_resume,
    .cleanup = tap_cleanup,
    .has_vnet_hdr = tap_has_vnet_hdr,
    .set_vnet_hdr_len = tap_set_vnet_hdr_len,
    .set_offload = tap_set_offload,
    .set_queue_enabled = tap_set_queue_enabled,
};

/*
 * /dev/net/tun as ifname (a pattern like "tap%d" is the default), with
 * flags added to IFF_TAP | IFF_NO_PI.
 */
static int tap_open(const char *ifname, short flags, char *actual,
                    Error **errp)
{
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | flags };
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

/* Whether the kernel's tun has IFF_VNET_HDR (TUNGETFEATURES). */
static bool tap_probe_vnet_hdr(void)
{
    unsigned features = 0;
    int fd = open(PATH_NET_TUN, O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        return false;
    }
    if (ioctl(fd, TUNGETFEATURES, &features) < 0) {
        features = 0;
    }
    close(fd);
    return features & IFF_VNET_HDR;
}

/*
 * fd=N or one of fds=: a tap descriptor the caller opened; its name and
 * flags from TUNGETIFF.
 */
static int tap_take_fd(const char *str, char *actual, short *flags,
                       Error **errp)
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
    *flags = ifr.ifr_flags;
    return fd;
}

/* One queue's client on fd (taken over: closed with it). */
static NetTap *tap_new_queue(int fd, const char *ifname, short flags,
                             unsigned index, const char *id,
                             NetClientState *peer)
{
    NetTap *t = g_new0(NetTap, 1);

    t->fd = fd;
    g_strlcpy(t->ifname, ifname, sizeof(t->ifname));
    t->vnet_hdr = flags & IFF_VNET_HDR;
    /* A caller's descriptor may have another size set already. */
    if (t->vnet_hdr && (ioctl(fd, TUNGETVNETHDRSZ, &t->hdr_len) < 0 ||
                        t->hdr_len > TAP_MAX_HDR_LEN)) {
        t->hdr_len = TAP_VNET_HDR_LEN;
        ioctl(fd, TUNSETVNETHDRSZ, &t->hdr_len);
    }
    t->multiqueue = flags & IFF_MULTI_QUEUE;
    t->enabled = true;
    t->nc = qemu_new_net_client(&net_tap_info, peer, id, t);
    t->nc->queue_index = index;
    return t;
}

/* The descriptors: fd=, fds=, or opened here; their count or -1. */
static int tap_get_fds(const QemuOpts *opts, int *fds, unsigned queues,
                       short vnet_flag, char *actual, short *flags,
                       Error **errp)
{
    const char *fd_str = qemu_opt_get(opts, "fd");
    const char *fds_str = qemu_opt_get(opts, "fds");
    const char *ifname = qemu_opt_get(opts, "ifname");
    g_auto(GStrv) strs = NULL;
    unsigned n = 0;

    if (fd_str) {
        fds[0] = tap_take_fd(fd_str, actual, flags, errp);
        return fds[0] < 0 ? -1 : 1;
    }
    if (fds_str) {
        strs = g_strsplit(fds_str, ":", 0);
        if (g_strv_length(strs) > TAP_MAX_QUEUES) {
            error_setg(errp, "fds= gives more than %d descriptors",
                       TAP_MAX_QUEUES);
            return -1;
        }
        for (; strs[n]; n++) {
            short f;

            fds[n] = tap_take_fd(strs[n], actual, &f, errp);
            if (fds[n] < 0) {
                return -1;      /* the caller's fds stay open */
            }
            if (n && (f & IFF_VNET_HDR) != (*flags & IFF_VNET_HDR)) {
                error_setg(errp, "vnet_hdr not consistent across given "
                           "tap fds");
                return -1;
            }
            *flags = f;
        }
        return n;
    }
    *flags = vnet_flag | (queues > 1 ? IFF_MULTI_QUEUE : 0);
    for (; n < queues; n++) {
        fds[n] = tap_open(n ? actual : ifname, *flags, actual, errp);
        if (fds[n] < 0) {
            while (n--) {
                close(fds[n]);
            }
            return -1;
        }
    }
    return n;
}

static NetClientState *net_init_tap(const QemuOpts *opts, const char *id,
                                    NetClientState *peer, Error **errp)
{
    const char *fd_str = qemu_opt_get(opts, "fd");
    const char *fds_str = qemu_opt_get(opts, "fds");
    const char *ifname = qemu_opt_get(opts, "ifname");
    const char *script = qemu_opt_get(opts, "script");
    const char *downscript = qemu_opt_get(opts, "downscript");
    bool vnet_hdr = true, vhost = false;
    uint64_t queues = 1;
    char actual[IFNAMSIZ];
    int fds[TAP_MAX_QUEUES];
    short flags = 0, vnet_flag = 0;
    NetTap *t0 = NULL;
    int n;

    if (!qemu_opts_validate(opts, tap_desc, errp) ||
        !qemu_opt_get_bool(opts, "vnet_hdr", &vnet_hdr, errp) ||
        !qemu_opt_get_bool(opts, "vhost", &vhost, errp) ||
        !qemu_opt_get_number(opts, "queues", &queues, errp)) {
        return NULL;
    }
    if (vhost) {
        error_setg(errp, "vhost-net is not supported");
        return NULL;
    }
    if (fd_str && (ifname || script || downscript || fds_str ||
                   qemu_opt_get(opts, "vnet_hdr") ||
                   qemu_opt_get(opts, "queues"))) {
        error_setg(errp, "ifname=, script=, downscript=, vnet_hdr=, "
                   "helper=, queues=, fds=, and vhostfds= are invalid "
                   "with fd=");
        return NULL;
    }
    if (fds_str && (ifname || script || downscript ||
                    qemu_opt_get(opts, "vnet_hdr") ||
                    qemu_opt_get(opts, "queues"))) {
        error_setg(errp, "ifname=, script=, downscript=, vnet_hdr=, "
                   "helper=, queues=, and vhostfd= are invalid with fds=");
        return NULL;
    }
    if (queues < 1 || queues > TAP_MAX_QUEUES) {
        error_setg(errp, "queues=%" PRIu64 ": must be 1 to %d", queues,
                   TAP_MAX_QUEUES);
        return NULL;
    }
    if (vnet_hdr && tap_probe_vnet_hdr()) {
        vnet_flag = IFF_VNET_HDR;
    } else if (vnet_hdr && qemu_opt_get(opts, "vnet_hdr")) {
        error_setg(errp, "vnet_hdr=1 requested, but no kernel support for "
                   "IFF_VNET_HDR available");
        return NULL;
    }
    n = tap_get_fds(opts, fds, queues, vnet_flag, actual, &flags, errp);
    if (n < 0) {
        return NULL;
    }
    if (n > 1 && peer) {
        error_setg(errp, "Multiqueue tap cannot be used with hubs");
        goto err_fds;
    }
    if (!fd_str && !fds_str) {
        script = script ? script : DEFAULT_SCRIPT;
        downscript = downscript ? downscript : DEFAULT_DOWNSCRIPT;
        if (strcmp(script, "no") && !tap_run_script(script, actual, errp)) {
            goto err_fds;
        }
    }
    for (int i = 0; i < n; i++) {
        if (!g_unix_set_fd_nonblocking(fds[i], TRUE, NULL)) {
            error_setg_errno(errp, errno, "could not make the tap "
                             "non-blocking");
            goto err_fds;
        }
    }
    for (int i = 0; i < n; i++) {
        NetTap *t = tap_new_queue(fds[i], actual, flags, i, id, peer);

        if (fd_str || fds_str) {
            qemu_set_info_str(t->nc, "fd=%d", fds[i]);
        } else {
            qemu_set_info_str(t->nc, "ifname=%s,script=%s,downscript=%s",
                              actual, script, downscript);
        }
        tap_update_read(t);
        t0 = t0 ? t0 : t;
    }
    if (downscript && strcmp(downscript, "no")) {
        t0->downscript = g_strdup(downscript);
    }
    return t0->nc;

err_fds:
    if (!fd_str && !fds_str) {
        for (int i = 0; i < n; i++) {
            close(fds[i]);
        }
    }
    return NULL;
}

static const NetdevClass netdev_tap_class = {
    .type = "tap",
    .init = net_init_tap,
};

NETDEV_CLASS_REGISTER(netdev_tap_class)
