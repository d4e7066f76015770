/*
 * -netdev user: a NATed network on libslirp (the library QEMU uses).
 *   net=ADDR[/MASK]      the guest network (10.0.2.0/24)
 *   host=ADDR            the gateway, which is the host (net + 2)
 *   dns=ADDR             the DNS forwarder (net + 3)
 *   dhcpstart=ADDR       the first DHCP address (net + 15)
 *   hostname=, domainname=, tftp=, bootfile=
 *   restrict=on|off      no traffic leaves for the host's networks
 *   ipv4=on|off, ipv6=on|off, ipv6-net=, ipv6-host=, ipv6-dns=
 *   hostfwd=[tcp|udp]:[HOSTADDR]:HOSTPORT-[GUESTADDR]:GUESTPORT (repeatable)
 *   guestfwd=tcp:ADDR:PORT-cmd:COMMAND (repeatable)
 * slirp's sockets are polled from a GSource of the main loop (prepare
 * asks slirp_pollfds_fill() for its fds, dispatch hands the events to
 * slirp_pollfds_poll()); its timers are QEMU timers on the virtual
 * clock. While the NIC cannot take packets the sockets are not polled.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <slirp/libslirp.h>

#include "net/net.h"
#include "qemu/log.h"
#include "qemu/timer.h"

typedef struct SlirpSource {
    GSource source;
    struct NetUser *u;
} SlirpSource;

typedef struct NetUser {
    NetClientState *nc;
    Slirp *slirp;
    GSource *source;
    GArray *pollfds;            /* of GPollFD, this iteration's */
    GArray *burst;              /* of GPollFD, a burst round's */
    GArray *fill;               /* which of the two slirp fills */
} NetUser;

static const QemuOptDesc user_desc[] = {
    { "type", QEMU_OPT_STRING },
    { "id", QEMU_OPT_STRING },
    { "net", QEMU_OPT_STRING },
    { "host", QEMU_OPT_STRING },
    { "dns", QEMU_OPT_STRING },
    { "dhcpstart", QEMU_OPT_STRING },
    { "hostname", QEMU_OPT_STRING },
    { "domainname", QEMU_OPT_STRING },
    { "tftp", QEMU_OPT_STRING },
    { "bootfile", QEMU_OPT_STRING },
    { "restrict", QEMU_OPT_BOOL },
    { "ipv4", QEMU_OPT_BOOL },
    { "ipv6", QEMU_OPT_BOOL },
    { "ipv6-net", QEMU_OPT_STRING },
    { "ipv6-host", QEMU_OPT_STRING },
    { "ipv6-dns", QEMU_OPT_STRING },
    { "hostfwd", QEMU_OPT_STRING },
    { "guestfwd", QEMU_OPT_STRING },
    { NULL },
};

/* --- slirp's callbacks --- */

static ssize_t user_send_packet(const void *buf, size_t len, void *opaque)
{
    NetUser *u = opaque;

    /* 0 means queued at the NIC: prepare stops polling until resume. */
    qemu_send_packet(u->nc, buf, len);
    return len;
}

static void user_guest_error(const char *msg, void *opaque)
{
    qemu_log_mask(LOG_GUEST_ERROR, "slirp: %s\n", msg);
}

static int64_t user_clock_get_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

typedef struct UserTimer {
    NetUser *u;
    SlirpTimerId id;
    void *cb_opaque;
    QEMUTimer *timer;
} UserTimer;

static void user_timer_fire(void *opaque)
{
    UserTimer *t = opaque;

    slirp_handle_timer(t->u->slirp, t->id, t->cb_opaque);
}

static void *user_timer_new_opaque(SlirpTimerId id, void *cb_opaque,
                                   void *opaque)
{
    UserTimer *t = g_new0(UserTimer, 1);

    t->u = opaque;
    t->id = id;
    t->cb_opaque = cb_opaque;
    t->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, user_timer_fire, t);
    return t;
}

static void user_timer_free(void *timer, void *opaque)
{
    UserTimer *t = timer;

    timer_free(t->timer);
    g_free(t);
}

static void user_timer_mod(void *timer, int64_t expire_ms, void *opaque)
{
    UserTimer *t = timer;

    timer_mod(t->timer, expire_ms * 1000000);
}

static void user_register_poll_fd(int fd, void *opaque)
{
}

static void user_unregister_poll_fd(int fd, void *opaque)
{
}

static void user_notify(void *opaque)
{
    g_main_context_wakeup(NULL);
}

static const SlirpCb user_callbacks = {
    .send_packet = user_send_packet,
    .guest_error = user_guest_error,
    .clock_get_ns = user_clock_get_ns,
    .timer_free = user_timer_free,
    .timer_mod = user_timer_mod,
    .register_poll_fd = user_register_poll_fd,
    .unregister_poll_fd = user_unregister_poll_fd,
    .notify = user_notify,
    .timer_new_opaque = user_timer_new_opaque,
};

/* --- the main loop's GSource --- */

#define USER_BURST      64      /* extra poll rounds per dispatch */

static int user_add_poll(int fd, int events, void *opaque)
{
    NetUser *u = opaque;
    GPollFD pfd = { .fd = fd };

    pfd.events = (events & SLIRP_POLL_IN ? G_IO_IN : 0) |
                 (events & SLIRP_POLL_OUT ? G_IO_OUT : 0) |
                 (events & SLIRP_POLL_PRI ? G_IO_PRI : 0) |
                 (events & SLIRP_POLL_ERR ? G_IO_ERR : 0) |
                 (events & SLIRP_POLL_HUP ? G_IO_HUP : 0);
    g_array_append_val(u->fill, pfd);
    return u->fill->len - 1;
}

static int user_get_revents(int idx, void *opaque)
{
    NetUser *u = opaque;
    GPollFD *pfd = &g_array_index(u->fill, GPollFD, idx);

    return (pfd->revents & G_IO_IN ? SLIRP_POLL_IN : 0) |
           (pfd->revents & G_IO_OUT ? SLIRP_POLL_OUT : 0) |
           (pfd->revents & G_IO_PRI ? SLIRP_POLL_PRI : 0) |
           (pfd->revents & G_IO_ERR ? SLIRP_POLL_ERR : 0) |
           (pfd->revents & G_IO_HUP ? SLIRP_POLL_HUP : 0);
}

static void user_remove_polls(NetUser *u)
{
    for (guint i = 0; i < u->pollfds->len; i++) {
        g_source_remove_poll(u->source,
                             &g_array_index(u->pollfds, GPollFD, i));
    }
    g_array_set_size(u->pollfds, 0);
}

static bool same_polls(GArray *a, GArray *b)
{
    if (a->len != b->len) {
        return false;
    }
    for (guint i = 0; i < a->len; i++) {
        GPollFD *x = &g_array_index(a, GPollFD, i);
        GPollFD *y = &g_array_index(b, GPollFD, i);

        if (x->fd != y->fd || x->events != y->events) {
            return false;
        }
    }
    return true;
}

static gboolean user_prepare(GSource *source, gint *timeout)
{
    NetUser *u = ((SlirpSource *)source)->u;
    uint32_t ms = UINT32_MAX;

    *timeout = -1;
    if (u->nc->paused) {
        user_remove_polls(u);
        return FALSE;           /* the NIC is full: read nothing */
    }
    g_array_set_size(u->burst, 0);
    u->fill = u->burst;
    slirp_pollfds_fill(u->slirp, &ms, user_add_poll, u);
    /*
     * Adding or removing a GPollFD wakes the context (an eventfd write,
     * and the next poll returns at once): keep the registered ones while
     * slirp asks for the same fds and events, as it does between packets.
     */
    if (!same_polls(u->burst, u->pollfds)) {
        user_remove_polls(u);
        g_array_append_vals(u->pollfds, u->burst->data, u->burst->len);
        /* GPollFDs are held by address: add them once the array is final. */
        for (guint i = 0; i < u->pollfds->len; i++) {
            g_source_add_poll(source,
                              &g_array_index(u->pollfds, GPollFD, i));
        }
    }
    u->fill = u->pollfds;
    *timeout = ms == UINT32_MAX ? -1 : (gint)MIN(ms, G_MAXINT);
    return FALSE;
}

static bool user_has_input(NetUser *u)
{
    for (guint i = 0; i < u->pollfds->len; i++) {
        if (g_array_index(u->pollfds, GPollFD, i).revents & G_IO_IN) {
            return true;
        }
    }
    return false;
}

static gboolean user_check(GSource *source)
{
    NetUser *u = ((SlirpSource *)source)->u;

    for (guint i = 0; i < u->pollfds->len; i++) {
        if (g_array_index(u->pollfds, GPollFD, i).revents) {
            return TRUE;
        }
    }
    /* slirp's own timeouts (TCP fast/slow timers) run in poll too. */
    return u->pollfds->len > 0;
}

static gboolean user_dispatch(GSource *source, GSourceFunc cb, gpointer data)
{
    NetUser *u = ((SlirpSource *)source)->u;
    bool input = user_has_input(u);

    slirp_pollfds_poll(u->slirp, 0, user_get_revents, u);
    /*
     * slirp takes one datagram per socket per poll: take what else is
     * waiting now, a burst at most, rather than one per main loop
     * iteration (host to guest UDP ran at half QEMU's rate). Only after
     * a read: an iteration woken by something else (a guest sending, a
     * qtest command) must not pay a poll of slirp's sockets.
     */
    for (int i = 0; input && i < USER_BURST && !u->nc->paused; i++) {
        uint32_t ms = UINT32_MAX;

        g_array_set_size(u->burst, 0);
        u->fill = u->burst;
        slirp_pollfds_fill(u->slirp, &ms, user_add_poll, u);
        if (g_poll((GPollFD *)u->burst->data, u->burst->len, 0) <= 0) {
            break;
        }
        slirp_pollfds_poll(u->slirp, 0, user_get_revents, u);
    }
    u->fill = u->pollfds;
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs user_source_funcs = {
    .prepare = user_prepare,
    .check = user_check,
    .dispatch = user_dispatch,
};

/* --- the client --- */

static ssize_t user_receive(NetClientState *nc, const uint8_t *buf,
                            size_t len)
{
    NetUser *u = nc->opaque;

    slirp_input(u->slirp, buf, len);
    return len;
}

static void user_resume(NetClientState *nc)
{
    g_main_context_wakeup(NULL);
}

static void user_cleanup(NetClientState *nc)
{
    NetUser *u = nc->opaque;

    user_remove_polls(u);
    g_source_destroy(u->source);
    g_source_unref(u->source);
    slirp_cleanup(u->slirp);
    g_array_unref(u->pollfds);
    g_array_unref(u->burst);
    g_free(u);
}

static const NetClientInfo net_user_info = {
    .type = "user",
    .receive = user_receive,
    .resume = user_resume,
    .cleanup = user_cleanup,
};

/* --- options --- */

static bool parse_in_addr(const char *key, const char *str,
                          struct in_addr *a, Error **errp)
{
    if (!inet_aton(str, a)) {
        error_setg(errp, "Parameter '%s' expects an IPv4 address", key);
        return false;
    }
    return true;
}

/* net=ADDR[/BITS|/MASK] */
static bool parse_net(const char *str, struct in_addr *net,
                      struct in_addr *mask, Error **errp)
{
    g_autofree char *addr = g_strdup(str);
    char *slash = strchr(addr, '/');

    mask->s_addr = htonl(0xffffff00);
    if (slash) {
        char *end;
        long bits;

        *slash++ = '\0';
        bits = strtol(slash, &end, 10);
        if (*end) {
            if (!inet_aton(slash, mask)) {
                goto bad;
            }
        } else if (bits < 0 || bits > 32 || !*slash) {
            goto bad;
        } else {
            mask->s_addr = htonl(bits ? ~0u << (32 - bits) : 0);
        }
    }
    if (!inet_aton(addr, net)) {
        goto bad;
    }
    net->s_addr &= mask->s_addr;
    return true;
bad:
    error_setg(errp, "Parameter 'net' expects an IPv4 network "
               "(ADDR[/MASK])");
    return false;
}

static bool in_net(struct in_addr a, struct in_addr net, struct in_addr mask)
{
    return (a.s_addr & mask.s_addr) == net.s_addr;
}

static struct in_addr net_plus(struct in_addr net, uint32_t n)
{
    return (struct in_addr) { .s_addr = htonl(ntohl(net.s_addr) + n) };
}

/* [ADDR]:PORT into addr (unchanged when empty) and port. */
static bool parse_addr_port(const char *str, struct in_addr *addr, int *port)
{
    const char *colon = strchr(str, ':');
    g_autofree char *host = NULL;
    char *end;
    long p;

    if (!colon) {
        return false;
    }
    host = g_strndup(str, colon - str);
    if (*host && !inet_aton(host, addr)) {
        return false;
    }
    p = strtol(colon + 1, &end, 10);
    if (*end || !colon[1] || p < 0 || p > 65535) {
        return false;
    }
    *port = p;
    return true;
}

/* [tcp|udp]:[HOSTADDR]:HOSTPORT-[GUESTADDR]:GUESTPORT */
static bool add_hostfwd(NetUser *u, const char *rule, struct in_addr guest,
                        Error **errp)
{
    g_autofree char *copy = g_strdup(rule);
    char *p = copy, *dash;
    struct in_addr host = { .s_addr = INADDR_ANY };
    int host_port, guest_port;
    bool udp = false;

    if (g_str_has_prefix(p, "tcp:")) {
        p += 4;
    } else if (g_str_has_prefix(p, "udp:")) {
        udp = true;
        p += 4;
    } else if (*p != ':') {
        goto bad;
    } else {
        p++;
    }
    dash = strchr(p, '-');
    if (!dash) {
        goto bad;
    }
    *dash = '\0';
    if (!parse_addr_port(p, &host, &host_port) ||
        !parse_addr_port(dash + 1, &guest, &guest_port) || !guest_port) {
        goto bad;
    }
    if (slirp_add_hostfwd(u->slirp, udp, host, host_port, guest,
                          guest_port) < 0) {
        error_setg(errp, "could not set up host forwarding rule '%s'", rule);
        return false;
    }
    return true;
bad:
    error_setg(errp, "Invalid host forwarding rule '%s' (Bad protocol name "
               "or address)", rule);
    return false;
}

/* tcp:ADDR:PORT-cmd:COMMAND */
static bool add_guestfwd(NetUser *u, const char *rule, Error **errp)
{
    g_autofree char *copy = g_strdup(rule);
    char *p = copy, *dash;
    struct in_addr addr = { 0 };
    int port;

    if (g_str_has_prefix(p, "tcp:")) {
        p += 4;
    }
    dash = strchr(p, '-');
    if (!dash) {
        goto bad;
    }
    *dash = '\0';
    if (!parse_addr_port(p, &addr, &port) || !addr.s_addr) {
        goto bad;
    }
    if (!g_str_has_prefix(dash + 1, "cmd:")) {
        error_setg(errp, "guestfwd '%s': only cmd:COMMAND targets are "
                   "supported, not chardevs", rule);
        return false;
    }
    if (slirp_add_exec(u->slirp, dash + 5, &addr, port) < 0) {
        error_setg(errp, "conflicting/invalid host:port in guest "
                   "forwarding rule '%s'", rule);
        return false;
    }
    return true;
bad:
    error_setg(errp, "invalid guest forwarding rule '%s'", rule);
    return false;
}

typedef struct UserConfig {
    SlirpConfig cfg;
    bool restrict_on, ipv4, ipv6;
} UserConfig;

static bool user_parse_v4(const QemuOpts *opts, SlirpConfig *cfg,
                          Error **errp)
{
    const char *s;

    inet_aton("10.0.2.0", &cfg->vnetwork);
    inet_aton("255.255.255.0", &cfg->vnetmask);
    if ((s = qemu_opt_get(opts, "net")) &&
        !parse_net(s, &cfg->vnetwork, &cfg->vnetmask, errp)) {
        return false;
    }
    cfg->vhost = net_plus(cfg->vnetwork, 2);
    cfg->vnameserver = net_plus(cfg->vnetwork, 3);
    cfg->vdhcp_start = net_plus(cfg->vnetwork, 15);
    if ((s = qemu_opt_get(opts, "host")) &&
        !parse_in_addr("host", s, &cfg->vhost, errp)) {
        return false;
    }
    if ((s = qemu_opt_get(opts, "dns")) &&
        !parse_in_addr("dns", s, &cfg->vnameserver, errp)) {
        return false;
    }
    if ((s = qemu_opt_get(opts, "dhcpstart")) &&
        !parse_in_addr("dhcpstart", s, &cfg->vdhcp_start, errp)) {
        return false;
    }
    if (!in_net(cfg->vhost, cfg->vnetwork, cfg->vnetmask)) {
        error_setg(errp, "host address '%s' doesn't belong to network",
                   inet_ntoa(cfg->vhost));
        return false;
    }
    if (!in_net(cfg->vnameserver, cfg->vnetwork, cfg->vnetmask)) {
        error_setg(errp, "DNS server address '%s' doesn't belong to "
                   "network", inet_ntoa(cfg->vnameserver));
        return false;
    }
    if (!in_net(cfg->vdhcp_start, cfg->vnetwork, cfg->vnetmask)) {
        error_setg(errp, "DHCP server address '%s' doesn't belong to "
                   "network", inet_ntoa(cfg->vdhcp_start));
        return false;
    }
    return true;
}

static bool parse_in6(const char *key, const char *str, struct in6_addr *a,
                      Error **errp)
{
    if (inet_pton(AF_INET6, str, a) != 1) {
        error_setg(errp, "Parameter '%s' expects an IPv6 address", key);
        return false;
    }
    return true;
}

static bool user_parse_v6(const QemuOpts *opts, SlirpConfig *cfg,
                          Error **errp)
{
    const char *s = qemu_opt_get(opts, "ipv6-net");
    g_autofree char *prefix = g_strdup(s ? s : "fec0::/64");
    char *slash = strchr(prefix, '/');

    cfg->vprefix_len = 64;
    if (slash) {
        *slash++ = '\0';
        cfg->vprefix_len = atoi(slash);
        if (cfg->vprefix_len < 1 || cfg->vprefix_len > 126) {
            error_setg(errp, "Parameter 'ipv6-prefixlen' expects a number "
                       "between 1 and 126");
            return false;
        }
    }
    if (!parse_in6("ipv6-net", prefix, &cfg->vprefix_addr6, errp)) {
        return false;
    }
    cfg->vhost6 = cfg->vprefix_addr6;
    cfg->vhost6.s6_addr[15] |= 2;
    cfg->vnameserver6 = cfg->vprefix_addr6;
    cfg->vnameserver6.s6_addr[15] |= 3;
    if ((s = qemu_opt_get(opts, "ipv6-host")) &&
        !parse_in6("ipv6-host", s, &cfg->vhost6, errp)) {
        return false;
    }
    if ((s = qemu_opt_get(opts, "ipv6-dns")) &&
        !parse_in6("ipv6-dns", s, &cfg->vnameserver6, errp)) {
        return false;
    }
    return true;
}

static bool user_parse(const QemuOpts *opts, UserConfig *uc, Error **errp)
{
    SlirpConfig *cfg = &uc->cfg;

    uc->ipv4 = uc->ipv6 = true;
    uc->restrict_on = false;
    if (!qemu_opts_validate(opts, user_desc, errp) ||
        !qemu_opt_get_bool(opts, "restrict", &uc->restrict_on, errp) ||
        !qemu_opt_get_bool(opts, "ipv4", &uc->ipv4, errp) ||
        !qemu_opt_get_bool(opts, "ipv6", &uc->ipv6, errp)) {
        return false;
    }
    if (!uc->ipv4 && !uc->ipv6) {
        error_setg(errp, "IPv4 and IPv6 disabled simultaneously");
        return false;
    }
    cfg->version = 4;
    cfg->restricted = uc->restrict_on;
    cfg->in_enabled = uc->ipv4;
    cfg->in6_enabled = uc->ipv6;
    cfg->vhostname = qemu_opt_get(opts, "hostname");
    cfg->vdomainname = qemu_opt_get(opts, "domainname");
    cfg->tftp_path = qemu_opt_get(opts, "tftp");
    cfg->bootfile = qemu_opt_get(opts, "bootfile");
    return user_parse_v4(opts, cfg, errp) &&
           (!uc->ipv6 || user_parse_v6(opts, cfg, errp));
}

static bool user_add_forwards(NetUser *u, const QemuOpts *opts,
                              struct in_addr dhcp_start, Error **errp)
{
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const QemuOpt *o = qemu_opts_nth(opts, i);

        if (!strcmp(o->name, "hostfwd") &&
            !add_hostfwd(u, o->value, dhcp_start, errp)) {
            return false;
        }
        if (!strcmp(o->name, "guestfwd") &&
            !add_guestfwd(u, o->value, errp)) {
            return false;
        }
    }
    return true;
}

static NetClientState *net_init_user(const QemuOpts *opts, const char *id,
                                     NetClientState *peer, Error **errp)
{
    UserConfig uc = { 0 };
    NetUser *u;

    if (!user_parse(opts, &uc, errp)) {
        return NULL;
    }
    u = g_new0(NetUser, 1);
    u->pollfds = g_array_new(FALSE, FALSE, sizeof(GPollFD));
    u->slirp = slirp_new(&uc.cfg, &user_callbacks, u);
    if (!u->slirp) {
        g_array_unref(u->pollfds);
        g_free(u);
        error_setg(errp, "could not start the user network (slirp)");
        return NULL;
    }
    u->burst = g_array_new(FALSE, FALSE, sizeof(GPollFD));
    u->fill = u->pollfds;
    u->source = g_source_new(&user_source_funcs, sizeof(SlirpSource));
    ((SlirpSource *)u->source)->u = u;
    u->nc = qemu_new_net_client(&net_user_info, peer, id, u);
    qemu_set_info_str(u->nc, "net=%s,restrict=%s", inet_ntoa(uc.cfg.vnetwork),
                      uc.restrict_on ? "on" : "off");
    g_source_attach(u->source, NULL);
    if (!user_add_forwards(u, opts, uc.cfg.vdhcp_start, errp)) {
        qemu_del_net_client(u->nc);
        return NULL;
    }
    return u->nc;
}

static const NetdevClass netdev_user_class = {
    .type = "user",
    .init = net_init_user,
};

NETDEV_CLASS_REGISTER(netdev_user_class)
