/*
 * Network clients, their queues and flow control (include/net/net.h),
 * the hub of the legacy -net option, and the command line:
 *   -netdev TYPE,id=ID[,...]        a backend a NIC names with netdev=ID
 *   -nic TYPE[,model=M][,mac=MAC][,...]  a backend and its NIC in one
 *   -net nic[,model=M][,macaddr=MAC][,netdev=ID]   a NIC on hub 0
 *   -net TYPE[,...]                 a backend on hub 0
 * and the QMP commands set_link and query-rx-filter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib-unix.h>

#include "net/net.h"
#include "qemu/registry.h"
#include "system/main-loop.h"
#include "qapi/qapi-commands.h"

struct NetPacket {
    size_t len;
    uint8_t data[];
};

static GPtrArray *net_clients;  /* of NetClientState *, creation order */

NetClientState *qemu_new_net_client(const NetClientInfo *info,
                                    NetClientState *peer, const char *name,
                                    void *opaque)
{
    NetClientState *nc = g_new0(NetClientState, 1);

    nc->info = info;
    nc->name = g_strdup(name);
    nc->opaque = opaque;
    nc->rxfilter_notify = true;
    g_queue_init(&nc->queue);
    if (peer) {
        g_assert(!peer->peer);
        nc->peer = peer;
        peer->peer = nc;
    }
    if (!net_clients) {
        net_clients = g_ptr_array_new();
    }
    g_ptr_array_add(net_clients, nc);
    return nc;
}

static void purge_queue(NetClientState *nc)
{
    NetPacket *p;

    while ((p = g_queue_pop_head(&nc->queue))) {
        g_free(p);
    }
    nc->receive_disabled = false;
}

void qemu_del_net_client(NetClientState *nc)
{
    if (!nc) {
        return;
    }
    if (nc->peer) {
        /* What waited for the peer came from nc: drop it. */
        purge_queue(nc->peer);
        nc->peer->peer = NULL;
        nc->peer->claimed = false;
    }
    if (nc->info->cleanup) {
        nc->info->cleanup(nc);
    }
    purge_queue(nc);
    g_ptr_array_remove(net_clients, nc);
    g_free(nc->name);
    g_free(nc->info_str);
    g_free(nc->qom_path);
    g_free(nc);
}

void qemu_set_info_str(NetClientState *nc, const char *fmt, ...)
{
    va_list ap;

    g_free(nc->info_str);
    va_start(ap, fmt);
    nc->info_str = g_strdup_vprintf(fmt, ap);
    va_end(ap);
}

static ssize_t enqueue(NetClientState *sender, NetClientState *rx,
                       const uint8_t *buf, size_t len)
{
    NetPacket *p;

    if (rx->queue.length >= NET_QUEUE_LIMIT) {
        return len;             /* dropped, as a full wire would */
    }
    p = g_malloc(sizeof(*p) + len);
    p->len = len;
    memcpy(p->data, buf, len);
    g_queue_push_tail(&rx->queue, p);
    sender->paused = true;
    return 0;
}

ssize_t qemu_send_packet(NetClientState *sender, const uint8_t *buf,
                         size_t len)
{
    NetClientState *rx = sender->peer;
    ssize_t ret;

    if (!rx || sender->link_down || rx->link_down || !len ||
        len > NET_MAX_PACKET) {
        return len;
    }
    if (rx->receive_disabled || rx->queue.length) {
        return enqueue(sender, rx, buf, len);
    }
    ret = rx->info->receive(rx, buf, len);
    if (ret == 0) {
        rx->receive_disabled = true;
        return enqueue(sender, rx, buf, len);
    }
    return ret < 0 ? (ssize_t)len : ret;
}

void qemu_flush_queued_packets(NetClientState *nc)
{
    NetPacket *p;
    NetClientState *sender = nc->peer;

    nc->receive_disabled = false;
    while ((p = g_queue_peek_head(&nc->queue))) {
        if (!nc->link_down && nc->info->receive(nc, p->data, p->len) == 0) {
            nc->receive_disabled = true;
            return;
        }
        g_queue_pop_head(&nc->queue);
        g_free(p);
    }
    if (sender && sender->paused) {
        sender->paused = false;
        if (sender->info->resume) {
            sender->info->resume(sender);
        }
    }
}

bool qemu_net_queue_pending(const NetClientState *nc)
{
    return nc->queue.length != 0;
}

static NetClientState *find_client(const char *name, bool nic)
{
    for (guint i = 0; net_clients && i < net_clients->len; i++) {
        NetClientState *nc = g_ptr_array_index(net_clients, i);

        if (nc->info->is_nic == nic && !g_strcmp0(nc->name, name)) {
            return nc;
        }
    }
    return NULL;
}

NetClientState *qemu_find_netdev(const char *id)
{
    return find_client(id, false);
}

NetClientState *qemu_net_backend_queue(NetClientState *nc, unsigned i)
{
    for (guint j = 0; net_clients && j < net_clients->len; j++) {
        NetClientState *q = g_ptr_array_index(net_clients, j);

        if (!q->info->is_nic && q->queue_index == i &&
            !g_strcmp0(q->name, nc->name)) {
            return q;
        }
    }
    return NULL;
}

NetClientState *qemu_net_claim_netdev(const char *devname, const char *id,
                                      unsigned *queues, Error **errp)
{
    NetClientState *nc = qemu_find_netdev(id), *q;
    unsigned n = 0;

    if (!nc) {
        error_setg(errp, "Property '%s.netdev' can't find value '%s'",
                   devname, id);
        return NULL;
    }
    if (nc->claimed || nc->peer) {
        error_setg(errp, "Property '%s.netdev' can't take value '%s', "
                   "it's in use", devname, id);
        return NULL;
    }
    while ((q = qemu_net_backend_queue(nc, n))) {
        q->claimed = true;
        n++;
    }
    *queues = n;
    return nc;
}

bool qemu_has_vnet_hdr(NetClientState *nc)
{
    return nc && nc->info->has_vnet_hdr && nc->info->has_vnet_hdr(nc);
}

void qemu_set_vnet_hdr_len(NetClientState *nc, int len)
{
    if (qemu_has_vnet_hdr(nc) && nc->info->set_vnet_hdr_len) {
        nc->info->set_vnet_hdr_len(nc, len);
    }
}

void qemu_set_offload(NetClientState *nc, const NetOffloads *o)
{
    if (qemu_has_vnet_hdr(nc) && nc->info->set_offload) {
        nc->info->set_offload(nc, o);
    }
}

bool qemu_set_queue_enabled(NetClientState *nc, bool enabled, Error **errp)
{
    if (!nc || !nc->info->set_queue_enabled) {
        return true;
    }
    return nc->info->set_queue_enabled(nc, enabled, errp);
}

void qemu_net_rx_filter_changed(NetClientState *nc)
{
    JsonObject *data;

    if (!nc->rxfilter_notify) {
        return;
    }
    nc->rxfilter_notify = false;
    data = json_object_new();
    if (nc->name) {
        json_object_set_string_member(data, "name", nc->name);
    }
    json_object_set_string_member(data, "path",
                                  nc->qom_path ? nc->qom_path : "");
    qapi_event_emit("NIC_RX_FILTER_CHANGED", data);
}

bool net_parse_macaddr(uint8_t mac[6], const char *str)
{
    for (int i = 0; i < 6; i++) {
        char *end;
        unsigned long v;

        if (!g_ascii_isxdigit(str[0])) {
            return false;
        }
        v = strtoul(str, &end, 16);
        if (v > 0xff || end - str > 2 ||
            (i < 5 ? *end != ':' && *end != '-' : *end != '\0')) {
            return false;
        }
        mac[i] = v;
        str = end + 1;
    }
    return true;
}

void qemu_macaddr_default(uint8_t mac[6])
{
    static unsigned index;
    static const uint8_t base[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

    memcpy(mac, base, 6);
    mac[5] += index++;
}

/* --- the hub of -net: a packet into one port goes out of all others --- */

static GPtrArray *hub_ports;    /* hub 0's ports */

static ssize_t hub_receive(NetClientState *port, const uint8_t *buf,
                           size_t len)
{
    for (guint i = 0; i < hub_ports->len; i++) {
        NetClientState *out = g_ptr_array_index(hub_ports, i);

        if (out != port) {
            qemu_send_packet(out, buf, len);
        }
    }
    return len;
}

static void hub_cleanup(NetClientState *port)
{
    g_ptr_array_remove(hub_ports, port);
}

static const NetClientInfo hub_port_info = {
    .type = "hubport",
    .receive = hub_receive,
    .cleanup = hub_cleanup,
};

static NetClientState *hub_add_port(void)
{
    char *name;
    NetClientState *nc;

    if (!hub_ports) {
        hub_ports = g_ptr_array_new();
    }
    name = g_strdup_printf("hub0port%u", hub_ports->len);
    nc = qemu_new_net_client(&hub_port_info, NULL, name, NULL);
    qemu_set_info_str(nc, "hub 0");
    g_free(name);
    g_ptr_array_add(hub_ports, nc);
    return nc;
}

void net_update_read_watch(NetClientState *nc, int fd, guint *watch,
                           GUnixFDSourceFunc fn, void *opaque)
{
    bool want = fd >= 0 && !nc->paused;

    if (want && !*watch) {
        *watch = main_loop_add_fd(fd, G_IO_IN, fn, opaque);
    } else if (!want && *watch) {
        g_source_remove(*watch);
        *watch = 0;
    }
}

/* --- the command line --- */

/* The registered -netdev types, sorted by type. */
static Registry netdev_classes;

void netdev_class_register(const NetdevClass *nc)
{
    registry_add(&netdev_classes, nc, nc->type, 0);
}

static const NetdevClass *netdev_type_find(const char *type)
{
    return registry_find(&netdev_classes, type);
}

static bool check_type(const char *type, bool nic_ok, Error **errp)
{
    if (!type) {
        error_setg(errp, "Parameter 'type' is missing");
        return false;
    }
    if (!netdev_type_find(type) && !(nic_ok && !strcmp(type, "nic")) &&
        strcmp(type, "none")) {
        error_setg(errp, "Parameter 'type' does not accept value '%s'",
                   type);
        return false;
    }
    return true;
}

bool netdev_check(const QemuOpts *opts, Error **errp)
{
    const char *type = qemu_opt_get(opts, "type");
    const char *id = qemu_opt_get(opts, "id");

    if (type && !strcmp(type, "none")) {
        error_setg(errp, "Parameter 'type' does not accept value 'none'");
        return false;
    }
    if (!check_type(type, false, errp)) {
        return false;
    }
    if (!id) {
        error_setg(errp, "Parameter 'id' is missing");
        return false;
    }
    if (!id_wellformed(id)) {
        error_setg(errp, "Parameter 'id' expects an identifier");
        return false;
    }
    return true;
}

bool nic_check(const QemuOpts *opts, Error **errp)
{
    return check_type(qemu_opt_get(opts, "type"), false, errp);
}

bool net_legacy_check(const QemuOpts *opts, Error **errp)
{
    return check_type(qemu_opt_get(opts, "type"), true, errp);
}

static NetClientState *netdev_create(const QemuOpts *opts, const char *id,
                                     NetClientState *peer, Error **errp)
{
    const NetdevClass *nc = netdev_type_find(qemu_opt_get(opts, "type"));

    if (qemu_find_netdev(id)) {
        error_setg(errp, "Duplicate ID '%s' for netdev", id);
        return NULL;
    }
    return nc->init(opts, id, peer, errp);
}

bool netdev_add(const QemuOpts *opts, Error **errp)
{
    return netdev_create(opts, qemu_opt_get(opts, "id"), NULL, errp) != NULL;
}

/* The NIC models -nic and -net nic know, sorted, as model=help lists them. */
static const char *const nic_models[] = { "e1000", "virtio-net-pci", NULL };
static const char *default_nic_model = "virtio-net-pci";

void nic_print_models(void)
{
    printf("Supported NIC models:\n");
    for (int i = 0; nic_models[i]; i++) {
        printf("%s\n", nic_models[i]);
    }
}

void net_set_default_nic_model(const char *model)
{
    default_nic_model = model;
}

/* model= of -nic and -net nic: the machine's default when absent. */
static const char *nic_model(const char *model, Error **errp)
{
    if (!model) {
        return default_nic_model;
    }
    if (!strcmp(model, "virtio")) {
        return "virtio-net-pci";
    }
    for (int i = 0; nic_models[i]; i++) {
        if (!strcmp(model, nic_models[i])) {
            return nic_models[i];
        }
    }
    error_setg(errp, "Unsupported NIC model: %s", model);
    return NULL;
}

/* opts without the keys in drop (NULL-terminated), as a new set. */
static QemuOpts *opts_without(const QemuOpts *opts, const char *const *drop)
{
    QemuOpts *out = qemu_opts_new();

    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const QemuOpt *o = qemu_opts_nth(opts, i);

        if (!g_strv_contains(drop, o->name)) {
            qemu_opts_set(out, o->name, o->value);
        }
    }
    return out;
}

static QemuOpts *nic_device_opts(const char *model, const char *netdev,
                                 const char *mac)
{
    QemuOpts *dev = qemu_opts_new();

    qemu_opts_set(dev, "driver", model);
    qemu_opts_set(dev, "netdev", netdev);
    if (mac) {
        qemu_opts_set(dev, "mac", mac);
    }
    return dev;
}

bool nic_add(const QemuOpts *opts, unsigned index, QemuOpts **dev,
             Error **errp)
{
    static const char *const drop[] = { "model", "mac", "id", NULL };
    const char *type = qemu_opt_get(opts, "type");
    const char *model;
    char *id;
    QemuOpts *backend;
    NetClientState *nc;

    *dev = NULL;
    if (!strcmp(type, "none")) {
        return true;
    }
    model = nic_model(qemu_opt_get(opts, "model"), errp);
    if (!model) {
        return false;
    }
    id = g_strdup_printf("__org.qemu.nic%u", index);
    backend = opts_without(opts, drop);
    qemu_opts_set(backend, "id", id);
    nc = netdev_create(backend, id, NULL, errp);
    qemu_opts_free(backend);
    if (nc) {
        *dev = nic_device_opts(model, id, qemu_opt_get(opts, "mac"));
    }
    g_free(id);
    return nc != NULL;
}

bool net_legacy_add(const QemuOpts *opts, unsigned index, QemuOpts **dev,
                    Error **errp)
{
    static const char *const drop[] = { "name", "id", NULL };
    static const char *const nic_keys[] = {
        "type", "model", "macaddr", "netdev", "name", "id", "addr",
        "vectors", NULL
    };
    const char *type = qemu_opt_get(opts, "type");
    NetClientState *nc;
    QemuOpts *backend;
    char *id;

    *dev = NULL;
    if (!strcmp(type, "none")) {
        return true;
    }
    if (!strcmp(type, "nic")) {
        const char *model = nic_model(qemu_opt_get(opts, "model"), errp);
        const char *netdev = qemu_opt_get(opts, "netdev");

        for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
            const char *key = qemu_opts_nth(opts, i)->name;

            if (!g_strv_contains(nic_keys, key)) {
                error_setg(errp, "Invalid parameter '%s'", key);
                return false;
            }
        }
        if (!model) {
            return false;
        }
        if (!netdev) {
            netdev = hub_add_port()->name;
        }
        *dev = nic_device_opts(model, netdev, qemu_opt_get(opts, "macaddr"));
        if (qemu_opt_get(opts, "id")) {
            qemu_opts_set(*dev, "id", qemu_opt_get(opts, "id"));
        }
        return true;
    }
    id = qemu_opt_get(opts, "id") ? g_strdup(qemu_opt_get(opts, "id"))
         : qemu_opt_get(opts, "name") ? g_strdup(qemu_opt_get(opts, "name"))
         : g_strdup_printf("%s.%u", type, index);
    backend = opts_without(opts, drop);
    qemu_opts_set(backend, "id", id);
    nc = netdev_create(backend, id, hub_add_port(), errp);
    qemu_opts_free(backend);
    g_free(id);
    return nc != NULL;
}

void net_check_clients(void)
{
    bool hub_nic = false, hub_host = false;

    /* QEMU's warnings: a hub with NICs only, or backends only. */
    for (guint i = 0; hub_ports && i < hub_ports->len; i++) {
        NetClientState *peer = ((NetClientState *)
                                g_ptr_array_index(hub_ports, i))->peer;

        if (peer && peer->info->is_nic) {
            hub_nic = true;
        } else if (peer) {
            hub_host = true;
        }
    }
    if (hub_nic && !hub_host) {
        warn_report("hub 0 is not connected to host network");
    } else if (hub_host && !hub_nic) {
        warn_report("hub 0 with no nics");
    }
    for (guint i = 0; net_clients && i < net_clients->len; i++) {
        NetClientState *nc = g_ptr_array_index(net_clients, i);

        /* Claimed without a peer: a tap queue a NIC without mq leaves. */
        if (!nc->peer && !nc->claimed && nc->info != &hub_port_info) {
            warn_report("%s %s has no peer", nc->info->is_nic ? "nic"
                                                              : "netdev",
                        nc->name);
        }
    }
}

void net_cleanup(void)
{
    /* NICs went with their devices; the backends and hub ports now. */
    while (net_clients && net_clients->len) {
        qemu_del_net_client(g_ptr_array_index(net_clients,
                                              net_clients->len - 1));
    }
    g_clear_pointer(&net_clients, g_ptr_array_unref);
    g_clear_pointer(&hub_ports, g_ptr_array_unref);
}

/* --- QMP --- */

bool qmp_set_link(const q_obj_set_link_arg *args, JsonNode **ret,
                  Error **errp)
{
    bool found = false;

    for (guint i = 0; net_clients && i < net_clients->len; i++) {
        NetClientState *nc = g_ptr_array_index(net_clients, i);
        NetClientState *peer = nc->peer;

        if (g_strcmp0(nc->name, args->name)) {
            continue;
        }
        found = true;
        nc->link_down = !args->up;
        if (nc->info->link_status_changed) {
            nc->info->link_status_changed(nc);
        }
        /* A NIC's backend follows it, and a backend's NIC (not a hub). */
        if (peer && peer->info != &hub_port_info) {
            peer->link_down = !args->up;
            if (peer->info->link_status_changed) {
                peer->info->link_status_changed(peer);
            }
        }
        if (args->up) {
            qemu_flush_queued_packets(nc);
            if (peer) {
                qemu_flush_queued_packets(peer);
            }
        }
    }
    if (!found) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                  "Device '%s' not found", args->name);
        return false;
    }
    return true;
}

bool qmp_query_rx_filter(const q_obj_query_rx_filter_arg *args,
                         JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    for (guint i = 0; net_clients && i < net_clients->len; i++) {
        NetClientState *nc = g_ptr_array_index(net_clients, i);

        if ((args->name && g_strcmp0(nc->name, args->name)) ||
            nc->queue_index) {
            continue;           /* a NIC's other queues: listed once */
        }
        if (!nc->info->is_nic) {
            if (args->name) {
                error_setg(errp, "net client(%s) isn't a NIC", args->name);
                json_array_unref(list);
                return false;
            }
            continue;
        }
        if (!nc->info->query_rx_filter) {
            if (args->name) {
                error_setg(errp, "net client(%s) doesn't support rx-filter "
                           "querying", args->name);
                json_array_unref(list);
                return false;
            }
            continue;
        }
        json_array_add_object_element(list, nc->info->query_rx_filter(nc));
        nc->rxfilter_notify = true;
    }
    if (args->name && !json_array_get_length(list)) {
        error_setg(errp, "invalid net client name: %s", args->name);
        json_array_unref(list);
        return false;
    }
    *ret = json_node_init_array(json_node_alloc(), list);
    json_array_unref(list);
    return true;
}
