/*
 * Network clients: a NIC (the guest side) and a backend (socket, user,
 * a hub port) are peers; each sends packets to the other.
 *
 * Flow control, both ways: a packet the receiver cannot take now
 * (receive returns 0: a NIC without guest buffers, a backend whose
 * socket is full) is queued at the receiver, and the sender is paused:
 * qemu_send_packet() returns 0 and the sender stops producing (a
 * backend stops reading its fd, a NIC stops popping its TX queue)
 * until its resume() is called. The receiver calls
 * qemu_flush_queued_packets() when it can take packets again (the
 * guest added RX buffers, the socket became writable); once its queue
 * is empty the paused senders resume. Nothing is polled.
 *
 * A backend that carries a virtio-net header (tap with IFF_VNET_HDR)
 * says so with has_vnet_hdr; a NIC that wants it calls
 * qemu_set_vnet_hdr_len(), and from then on every packet both ways
 * starts with that header (offload flags, GSO). Until then, and for
 * every other pair, packets are plain Ethernet frames.
 *
 * A multiqueue backend (tap queues=N) is N clients of the same name,
 * queue_index 0..N-1; a NIC claims them all and peers one of its own
 * clients with each.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib-unix.h>

#include "qemu/error.h"
#include "qemu/option.h"

#define NET_MAX_PACKET          (64 * 1024 + 64)
#define NET_QUEUE_LIMIT         1024    /* packets queued per receiver */

typedef struct NetClientState NetClientState;
typedef struct _JsonObject JsonObject;

/* Offloads the receiving NIC's driver accepts (virtio GUEST_*). */
typedef struct NetOffloads {
    bool csum, tso4, tso6, ecn, ufo;
} NetOffloads;

typedef struct NetClientInfo {
    const char *type;           /* "socket", "user", "hub", "nic" */
    bool is_nic;
    /* A packet for this client: len taken (or dropped), 0 not now. */
    ssize_t (*receive)(NetClientState *nc, const uint8_t *buf, size_t len);
    /* A sender that got 0 may produce again. */
    void (*resume)(NetClientState *nc);
    /* nc->link_down changed (set_link). */
    void (*link_status_changed)(NetClientState *nc);
    /* NICs: the receive filter, for query-rx-filter. */
    JsonObject *(*query_rx_filter)(NetClientState *nc);
    void (*cleanup)(NetClientState *nc);
    /* Backends: frames may carry a virtio-net header. */
    bool (*has_vnet_hdr)(NetClientState *nc);
    /* Packets both ways carry a len-byte header (0: none). */
    void (*set_vnet_hdr_len)(NetClientState *nc, int len);
    /* What packets to this backend's peer may leave unfinished. */
    void (*set_offload)(NetClientState *nc, const NetOffloads *o);
    /* Multiqueue: this queue takes part in the interface's traffic. */
    bool (*set_queue_enabled)(NetClientState *nc, bool enabled,
                              Error **errp);
} NetClientInfo;


typedef struct NetPacket NetPacket;

struct NetClientState {
    const NetClientInfo *info;
    char *name;                 /* netdev id, or the NIC's id */
    char *info_str;             /* for messages */
    NetClientState *peer;
    void *opaque;               /* the backend's or device's state */
    bool link_down;
    bool paused;                /* got 0 from a send; waits for resume */
    bool claimed;               /* a NIC uses this netdev */
    bool receive_disabled;      /* receive said 0; queue until flushed */
    GQueue queue;               /* of NetPacket, waiting for receive */
    /* NICs: whether NIC_RX_FILTER_CHANGED may be sent (query re-arms). */
    bool rxfilter_notify;
    char *qom_path;             /* NICs: the device's path */
    unsigned queue_index;       /* of a multiqueue backend or NIC */
};

/* A new client, peered with peer when not NULL. */
NetClientState *qemu_new_net_client(const NetClientInfo *info,
                                    NetClientState *peer, const char *name,
                                    void *opaque);
void qemu_del_net_client(NetClientState *nc);
/*
 * From sender to its peer: len when taken or dropped (no peer, link
 * down, queue full), 0 when queued (the sender is paused until resume).
 */
ssize_t qemu_send_packet(NetClientState *sender, const uint8_t *buf,
                         size_t len);
/* nc may receive again: deliver its queue; resume senders once empty. */
void qemu_flush_queued_packets(NetClientState *nc);
/* Whether nc has packets waiting for it. */
bool qemu_net_queue_pending(const NetClientState *nc);
void qemu_set_info_str(NetClientState *nc, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

/*
 * The unclaimed netdev id for a NIC property, claimed for it with all
 * its queues: queue 0, and *queues their number.
 */
NetClientState *qemu_net_claim_netdev(const char *devname, const char *id,
                                      unsigned *queues, Error **errp);
/* Queue i of the multiqueue backend nc is queue 0 of; NULL if none. */
NetClientState *qemu_net_backend_queue(NetClientState *nc, unsigned i);
/* The header and offload operations; false/no-op for other clients. */
bool qemu_has_vnet_hdr(NetClientState *nc);
void qemu_set_vnet_hdr_len(NetClientState *nc, int len);
void qemu_set_offload(NetClientState *nc, const NetOffloads *o);
bool qemu_set_queue_enabled(NetClientState *nc, bool enabled,
                            Error **errp);
NetClientState *qemu_find_netdev(const char *id);
/* A NIC's rx filter changed: the event, throttled until queried. */
void qemu_net_rx_filter_changed(NetClientState *nc);

/*
 * A backend's read watch on fd (G_IO_IN, fn), present exactly while the
 * backend may read: fd open and nc not paused.
 */
void net_update_read_watch(NetClientState *nc, int fd, guint *watch,
                           GUnixFDSourceFunc fn, void *opaque);

/* Parse a MAC "52:54:00:12:34:56"; false if malformed. */
bool net_parse_macaddr(uint8_t mac[6], const char *str);
/* QEMU's default MACs: 52:54:00:12:34:56, then :57, ... per NIC. */
void qemu_macaddr_default(uint8_t mac[6]);

/* Command line (system/vl.c): check at parse time, create later. */
bool netdev_check(const QemuOpts *opts, Error **errp);
bool nic_check(const QemuOpts *opts, Error **errp);
bool net_legacy_check(const QemuOpts *opts, Error **errp);
bool netdev_add(const QemuOpts *opts, Error **errp);
/* model=help of -nic and -net nic. */
void nic_print_models(void);
/* The model of -nic and -net nic without model= (the machine's). */
void net_set_default_nic_model(const char *model);
/*
 * -nic TYPE,model=,mac=,...: the netdev, and the device's options in
 * *dev (to add after the user's -device).
 */
bool nic_add(const QemuOpts *opts, unsigned index, QemuOpts **dev,
             Error **errp);
/* -net nic|TYPE: on hub 0; a nic gives device options in *dev. */
bool net_legacy_add(const QemuOpts *opts, unsigned index, QemuOpts **dev,
                    Error **errp);
/* After the devices: warn about netdevs nobody uses. */
void net_check_clients(void);
void net_cleanup(void);

/* A -netdev TYPE backend (net/<type>.c). */
typedef struct NetdevClass {
    const char *type;           /* "socket", "user", "tap" */
    /* Create netdev id from its options, peered with peer if given. */
    NetClientState *(*init)(const QemuOpts *opts, const char *id,
                            NetClientState *peer, Error **errp);
} NetdevClass;

/*
 * The backends of this binary: each backend file ends with
 * NETDEV_CLASS_REGISTER(its_class), which adds it to the registry of
 * net/net.c before main() runs. The registry is sorted by type; nothing
 * lists it, -netdev, -nic and -net look a type up in it.
 */
void netdev_class_register(const NetdevClass *nc);
#define NETDEV_CLASS_REGISTER(cls) \
    static void __attribute__((constructor)) cls##_register(void) \
    { \
        netdev_class_register(&(cls)); \
    }

#endif
