/*
 * virtio-net-pci (virtio 1.x, 5.1) on a netdev (netdev=ID).
 *
 * Queues: receiveq/transmitq pairs (2N, 2N+1), then the control queue.
 * Every buffer starts with the 12-byte virtio 1 header {flags (1),
 * gso_type (1), hdr_len (2), gso_size (2), csum_start (2),
 * csum_offset (2), num_buffers (2)}. Config: mac (6), status (2),
 * max_virtqueue_pairs (2), mtu (2).
 *
 * Offloads: socket and user carry plain Ethernet frames, no virtio
 * header, so with them nothing is offered that the device would have
 * to pass on: no TSO either way, no GUEST_CSUM. CSUM is offered because
 * the device finishes a partial checksum itself (NEEDS_CSUM: the 16-bit
 * one's-complement sum from csum_start to the end, stored at
 * csum_start + csum_offset) before the frame leaves.
 * A peer with a virtio-net header (tap vnet_hdr) is asked for the
 * 12-byte one, and then GUEST_CSUM, HOST/GUEST_TSO4/6, HOST/GUEST_ECN
 * and CTRL_GUEST_OFFLOADS are offered too: the header goes through
 * unchanged both ways (a transmit header is checked against what was
 * negotiated first), and what the driver accepts (GUEST_*) is told to
 * the peer at FEATURES_OK (TUNSETOFFLOAD), and again on
 * GUEST_OFFLOADS_SET. No UFO: Linux no longer produces it.
 *
 * Multiqueue (mq=on on a tap with queues=N): N pairs, pair i on the
 * tap's queue i; VQ_PAIRS_SET attaches the first pairs' tap queues and
 * detaches the others. A driver that does not take MQ finds the control
 * queue at 2, as the spec puts it.
 *
 * The control queue takes RX modes (promiscuous, all/no multicast,
 * all/no unicast, no broadcast), the MAC table, the MAC address and
 * VQ_PAIRS_SET and GUEST_OFFLOADS_SET; a change of the filter sends
 * NIC_RX_FILTER_CHANGED.
 * A header or chain that makes no sense breaks the device.
 */
#include <string.h>

#include "hw/virtio/virtio-pci.h"
#include "vmstate/vmstate.h"
#include "net/checksum.h"
#include "net/net.h"
#include "qemu/log.h"

#define VIRTIO_NET_F_CSUM           0
#define VIRTIO_NET_F_GUEST_CSUM     1
#define VIRTIO_NET_F_CTRL_GUEST_OFFLOADS 2
#define VIRTIO_NET_F_MAC            5
#define VIRTIO_NET_F_GUEST_TSO4     7
#define VIRTIO_NET_F_GUEST_TSO6     8
#define VIRTIO_NET_F_GUEST_ECN      9
#define VIRTIO_NET_F_HOST_TSO4      11
#define VIRTIO_NET_F_HOST_TSO6      12
#define VIRTIO_NET_F_HOST_ECN       13
#define VIRTIO_NET_F_STATUS         16
#define VIRTIO_NET_F_CTRL_VQ        17
#define VIRTIO_NET_F_CTRL_RX        18
#define VIRTIO_NET_F_MQ             22
#define VIRTIO_NET_F_CTRL_MAC_ADDR  23

#define VIRTIO_NET_S_LINK_UP        1

#define VIRTIO_NET_HDR_F_NEEDS_CSUM 1
#define VIRTIO_NET_HDR_GSO_NONE     0
#define VIRTIO_NET_HDR_GSO_TCPV4    1
#define VIRTIO_NET_HDR_GSO_TCPV6    4
#define VIRTIO_NET_HDR_GSO_ECN      0x80
#define VIRTIO_NET_HDR_LEN          12

#define VIRTIO_NET_CTRL_RX          0
#define VIRTIO_NET_CTRL_MAC         1
#define VIRTIO_NET_CTRL_MAC_TABLE_SET 0
#define VIRTIO_NET_CTRL_MAC_ADDR_SET  1
#define VIRTIO_NET_CTRL_MQ          4
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET 0
#define VIRTIO_NET_CTRL_GUEST_OFFLOADS 5
#define VIRTIO_NET_CTRL_GUEST_OFFLOADS_SET 0
#define GUEST_OFFLOADS  (1ULL << VIRTIO_NET_F_GUEST_CSUM | \
                         1ULL << VIRTIO_NET_F_GUEST_TSO4 | \
                         1ULL << VIRTIO_NET_F_GUEST_TSO6 | \
                         1ULL << VIRTIO_NET_F_GUEST_ECN)
#define VIRTIO_NET_OK               0
#define VIRTIO_NET_ERR              1

#define VIRTIO_NET_CONFIG_SIZE      12
#define MAC_TABLE_ENTRIES           64
#define CTRL_MAX_LEN                4096
#define ETH_ALEN                    6

/* CTRL_RX commands 0-5, in this order. */
enum { RX_PROMISC, RX_ALLMULTI, RX_ALLUNI, RX_NOMULTI, RX_NOUNI, RX_NOBCAST,
       RX_MODES };

typedef struct VirtIONetPCI {
    VirtIOPCIProxy proxy;
    /* Properties. */
    char *netdev;
    int32_t bootindex;              /* firmware boot order (bootorder) */
    char *mac_str;
    bool mq;
    bool csum;
    bool offload_props[7];          /* as offload_features[] */
    uint16_t rx_queue_size, tx_queue_size;
    /* State. */
    NetClientState *nc;             /* ncs[0] */
    NetClientState **ncs;           /* one per queue pair */
    bool vnet_hdr;                  /* the peer carries our header */
    uint64_t guest_offloads;        /* GUEST_* bits the driver takes now */
    uint8_t conf_mac[ETH_ALEN];     /* the property's (or the default) */
    uint8_t mac[ETH_ALEN];          /* the guest's (MAC_ADDR_SET) */
    unsigned max_pairs, curr_pairs;
    bool rx_mode[RX_MODES];
    unsigned uni_count, multi_count;    /* table: unicast first */
    bool uni_overflow, multi_overflow;
    uint8_t mac_table[MAC_TABLE_ENTRIES][ETH_ALEN];
    uint8_t *tx_buf;                /* NET_MAX_PACKET */
    bool link_up;                   /* migration: the link as the guest saw it */
} VirtIONetPCI;

static VirtQueue *rx_vq(VirtIONetPCI *n, unsigned pair)
{
    return &n->proxy.vdev.vq[2 * pair];
}

static unsigned ctrl_index(VirtIONetPCI *n)
{
    return 2 * n->max_pairs;
}

static unsigned vq_pair(VirtIONetPCI *n, VirtQueue *vq)
{
    return (vq - n->proxy.vdev.vq) / 2;
}

/* The features a header-carrying peer adds (properties of these names). */
static const unsigned offload_features[] = {
    VIRTIO_NET_F_GUEST_CSUM,    /* guest_csum */
    VIRTIO_NET_F_GUEST_TSO4,    /* guest_tso4 */
    VIRTIO_NET_F_GUEST_TSO6,    /* guest_tso6 */
    VIRTIO_NET_F_GUEST_ECN,     /* guest_ecn */
    VIRTIO_NET_F_HOST_TSO4,     /* host_tso4 */
    VIRTIO_NET_F_HOST_TSO6,     /* host_tso6 */
    VIRTIO_NET_F_HOST_ECN,      /* host_ecn */
};

/* Tell the peer's queues what the driver accepts (all off at reset). */
static void net_set_offloads(VirtIONetPCI *n)
{
    uint64_t f = n->guest_offloads;
    NetOffloads o = {
        .csum = f >> VIRTIO_NET_F_GUEST_CSUM & 1,
        .tso4 = f >> VIRTIO_NET_F_GUEST_TSO4 & 1,
        .tso6 = f >> VIRTIO_NET_F_GUEST_TSO6 & 1,
        .ecn = f >> VIRTIO_NET_F_GUEST_ECN & 1,
    };

    for (unsigned i = 0; n->vnet_hdr && i < n->max_pairs; i++) {
        qemu_set_offload(n->ncs[i]->peer, &o);
    }
}

/* The tap queues of the pairs in use attached, the others detached. */
static void net_set_queue_pairs(VirtIONetPCI *n)
{
    for (unsigned i = 0; i < n->max_pairs; i++) {
        Error *err = NULL;

        if (!qemu_set_queue_enabled(n->ncs[i]->peer, i < n->curr_pairs,
                                    &err)) {
            warn_report_err(err);
        }
    }
}

static void net_get_config(VirtIODevice *vdev, uint8_t *c)
{
    VirtIONetPCI *n = vdev->opaque;
    uint16_t status = n->nc->link_down ? 0 : VIRTIO_NET_S_LINK_UP;

    memset(c, 0, VIRTIO_NET_CONFIG_SIZE);
    memcpy(c, n->mac, ETH_ALEN);
    c[6] = status;
    c[7] = status >> 8;
    c[8] = n->max_pairs;
    c[9] = n->max_pairs >> 8;
}

/* A legacy way to set the MAC; a virtio 1 driver uses the ctrl queue. */
static void net_set_config(VirtIODevice *vdev, const uint8_t *c)
{
    VirtIONetPCI *n = vdev->opaque;

    if (!virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_MAC_ADDR) &&
        !virtio_has_feature(vdev, VIRTIO_F_VERSION_1)) {
        memcpy(n->mac, c, ETH_ALEN);
    }
}

static void net_reset(VirtIODevice *vdev)
{
    VirtIONetPCI *n = vdev->opaque;

    memset(n->rx_mode, 0, sizeof(n->rx_mode));
    n->rx_mode[RX_PROMISC] = true;  /* until the driver says otherwise */
    n->uni_count = n->multi_count = 0;
    n->uni_overflow = n->multi_overflow = false;
    memcpy(n->mac, n->conf_mac, ETH_ALEN);
    n->curr_pairs = 1;
    n->guest_offloads = 0;
    if (n->ncs) {               /* not in virtio_init's reset */
        net_set_queue_pairs(n);
        net_set_offloads(n);
    }
}

static void net_set_status(VirtIODevice *vdev, uint8_t status)
{
    VirtIONetPCI *n = vdev->opaque;

    if (status & VIRTIO_CONFIG_S_FEATURES_OK) {
        /* The features are final now. */
        n->guest_offloads = vdev->guest_features & GUEST_OFFLOADS;
        net_set_offloads(n);
    }
    if (status & VIRTIO_CONFIG_S_DRIVER_OK) {
        /* Buffers added before DRIVER_OK came without a usable kick. */
        for (unsigned i = 0; i < n->max_pairs; i++) {
            qemu_flush_queued_packets(n->ncs[i]);
        }
    }
}

/* --- receive: backend to guest --- */

static bool mac_in_table(VirtIONetPCI *n, const uint8_t *dst,
                         unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++) {
        if (!memcmp(n->mac_table[i], dst, ETH_ALEN)) {
            return true;
        }
    }
    return false;
}

static bool net_rx_accept(VirtIONetPCI *n, const uint8_t *buf, size_t len)
{
    static const uint8_t bcast[ETH_ALEN] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff
    };
    unsigned table_end = n->uni_count + n->multi_count;

    if (n->rx_mode[RX_PROMISC]) {
        return true;
    }
    if (len < ETH_ALEN) {
        return false;
    }
    if (!memcmp(buf, bcast, ETH_ALEN)) {
        return !n->rx_mode[RX_NOBCAST];
    }
    if (buf[0] & 1) {
        if (n->rx_mode[RX_NOMULTI]) {
            return false;
        }
        return n->rx_mode[RX_ALLMULTI] || n->multi_overflow ||
               mac_in_table(n, buf, n->uni_count, table_end);
    }
    if (n->rx_mode[RX_NOUNI]) {
        return false;
    }
    return n->rx_mode[RX_ALLUNI] || n->uni_overflow ||
           !memcmp(buf, n->mac, ETH_ALEN) ||
           mac_in_table(n, buf, 0, n->uni_count);
}

static ssize_t net_receive(NetClientState *nc, const uint8_t *buf,
                           size_t len)
{
    VirtIONetPCI *n = nc->opaque;
    VirtIODevice *vdev = &n->proxy.vdev;
    VirtQueue *vq = rx_vq(n, nc->queue_index);
    uint8_t hdr[VIRTIO_NET_HDR_LEN] = { [10] = 1 };
    size_t room = 0, full = len;
    VirtQueueElement *elem;

    if (vdev->broken || nc->queue_index >= n->curr_pairs) {
        return len;
    }
    if (!(vdev->status & VIRTIO_CONFIG_S_DRIVER_OK) || !vq->enabled) {
        return 0;               /* wait for the driver */
    }
    if (n->vnet_hdr) {
        /* The peer's header as it is, but num_buffers (no MRG_RXBUF). */
        if (len < VIRTIO_NET_HDR_LEN) {
            return len;
        }
        memcpy(hdr, buf, VIRTIO_NET_HDR_LEN - 2);
        if (!(n->guest_offloads & 1ULL << VIRTIO_NET_F_GUEST_CSUM)) {
            hdr[0] = 0;         /* no DATA_VALID the driver cannot take */
        }
        buf += VIRTIO_NET_HDR_LEN;
        len -= VIRTIO_NET_HDR_LEN;
    }
    if (!net_rx_accept(n, buf, len)) {
        return full;
    }
    elem = virtqueue_pop(vq);
    if (!elem) {
        return vdev->broken ? (ssize_t)len : 0;
    }
    for (unsigned i = 0; i < elem->in_num; i++) {
        room += elem->in[i].len;
    }
    if (elem->out_num || room < VIRTIO_NET_HDR_LEN) {
        virtio_error(vdev, "receive buffer of %zu bytes with %u "
                     "device-readable parts", room, elem->out_num);
        virtqueue_element_free(elem);
        return full;
    }
    if (room < VIRTIO_NET_HDR_LEN + len) {
        /* Too big for the guest's buffers (no MRG_RXBUF): drop it. */
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-net: %zu-byte packet in a "
                      "%zu-byte buffer, dropped\n", len, room);
        virtqueue_unpop(vq, elem);
        return full;
    }
    virtqueue_buf_from(elem->in, elem->in_num, 0, hdr, sizeof(hdr));
    virtqueue_buf_from(elem->in, elem->in_num, VIRTIO_NET_HDR_LEN, buf, len);
    virtqueue_push(vq, elem, VIRTIO_NET_HDR_LEN + len);
    virtio_notify(vdev, vq);
    return full;
}

static void net_handle_ctrl(VirtIODevice *vdev, VirtQueue *vq);

/* The guest added receive buffers. */
static void net_handle_rx(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIONetPCI *n = vdev->opaque;

    if (vq == &vdev->vq[2] && !virtio_has_feature(vdev, VIRTIO_NET_F_MQ)) {
        net_handle_ctrl(vdev, vq);      /* without MQ, 2 is control */
        return;
    }
    qemu_flush_queued_packets(n->ncs[vq_pair(n, vq)]);
}

/* --- transmit: guest to backend --- */

static uint16_t get_le16(const uint8_t *p)
{
    return p[0] | p[1] << 8;
}

/* Finish a partial checksum (NEEDS_CSUM) the guest left to us. */
static bool net_finish_csum(uint8_t *pkt, size_t len, uint16_t start,
                            uint16_t offset)
{
    uint16_t sum;

    if ((size_t)start + offset + 2 > len) {
        return false;
    }
    sum = net_checksum_finish(net_checksum_add(0, pkt + start,
                                               len - start));
    pkt[start + offset] = sum >> 8;
    pkt[start + offset + 1] = sum;
    return true;
}

/*
 * A transmit header for a peer that takes it: what it asks for was
 * negotiated, and its offsets lie in the packet of len bytes.
 */
static bool net_tx_hdr_valid(VirtIODevice *vdev, uint8_t *hdr, size_t len)
{
    uint8_t gso = hdr[1] & ~VIRTIO_NET_HDR_GSO_ECN;
    bool ok;

    switch (gso) {
    case VIRTIO_NET_HDR_GSO_NONE:
        ok = !(hdr[1] & VIRTIO_NET_HDR_GSO_ECN);
        break;
    case VIRTIO_NET_HDR_GSO_TCPV4:
        ok = virtio_has_feature(vdev, VIRTIO_NET_F_HOST_TSO4);
        break;
    case VIRTIO_NET_HDR_GSO_TCPV6:
        ok = virtio_has_feature(vdev, VIRTIO_NET_F_HOST_TSO6);
        break;
    default:
        ok = false;             /* UDP (UFO) is not offered */
        break;
    }
    if ((hdr[1] & VIRTIO_NET_HDR_GSO_ECN) &&
        !virtio_has_feature(vdev, VIRTIO_NET_F_HOST_ECN)) {
        ok = false;
    }
    if (gso != VIRTIO_NET_HDR_GSO_NONE &&
        (!get_le16(hdr + 4) || get_le16(hdr + 2) > len)) {
        ok = false;             /* no gso_size, or hdr_len past the end */
    }
    if (!ok) {
        virtio_error(vdev, "gso_type 0x%x (gso_size %u, hdr_len %u) not "
                     "negotiated or malformed", hdr[1], get_le16(hdr + 4),
                     get_le16(hdr + 2));
        return false;
    }
    hdr[0] &= VIRTIO_NET_HDR_F_NEEDS_CSUM;  /* the only one a driver sets */
    hdr[10] = hdr[11] = 0;
    return true;
}

/*
 * Check and send one chain's packet: false when the device broke.
 * *sent is false when the backend queued it (stop until resume).
 */
static bool net_tx_one(VirtIONetPCI *n, unsigned pair, VirtQueueElement *elem,
                       bool *sent)
{
    VirtIODevice *vdev = &n->proxy.vdev;
    uint8_t *hdr = n->tx_buf, *pkt = n->tx_buf + VIRTIO_NET_HDR_LEN;
    size_t total = 0, len;

    for (unsigned i = 0; i < elem->out_num; i++) {
        total += elem->out[i].len;
    }
    if (elem->in_num || total < VIRTIO_NET_HDR_LEN) {
        virtio_error(vdev, "transmit chain of %zu bytes with %u writable "
                     "parts", total, elem->in_num);
        return false;
    }
    len = total - VIRTIO_NET_HDR_LEN;
    if (total > NET_MAX_PACKET) {
        virtio_error(vdev, "transmit packet of %zu bytes", len);
        return false;
    }
    virtqueue_buf_to(elem->out, elem->out_num, 0, n->tx_buf, total);
    if (hdr[0] & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
        if (!virtio_has_feature(vdev, VIRTIO_NET_F_CSUM) ||
            (size_t)get_le16(hdr + 6) + get_le16(hdr + 8) + 2 > len) {
            virtio_error(vdev, "bad NEEDS_CSUM header (start %u, offset "
                         "%u, packet %zu bytes)", get_le16(hdr + 6),
                         get_le16(hdr + 8), len);
            return false;
        }
    }
    if (n->vnet_hdr) {
        /* The peer segments and checksums: the header goes with it. */
        if (!net_tx_hdr_valid(vdev, hdr, len)) {
            return false;
        }
        *sent = qemu_send_packet(n->ncs[pair], n->tx_buf, total) != 0;
        return true;
    }
    if (hdr[1] != VIRTIO_NET_HDR_GSO_NONE) {
        virtio_error(vdev, "gso_type %u without a segmentation offload",
                     hdr[1]);
        return false;
    }
    if (hdr[0] & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
        net_finish_csum(pkt, len, get_le16(hdr + 6), get_le16(hdr + 8));
    }
    *sent = qemu_send_packet(n->ncs[pair], pkt, len) != 0;
    return true;
}

static void net_handle_tx(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIONetPCI *n = vdev->opaque;
    unsigned pair = vq_pair(n, vq);
    VirtQueueElement *elem;
    bool pushed = false, sent = true;

    while (sent && !n->ncs[pair]->paused && (elem = virtqueue_pop(vq))) {
        if (!net_tx_one(n, pair, elem, &sent)) {
            virtqueue_element_free(elem);
            return;
        }
        virtqueue_push(vq, elem, 0);
        pushed = true;
    }
    if (pushed) {
        virtio_notify(vdev, vq);
    }
}

/* The backend takes packets again: go on where each TX queue stopped. */
static void net_resume(NetClientState *nc)
{
    VirtIONetPCI *n = nc->opaque;

    virtio_queue_notify(&n->proxy.vdev, 2 * nc->queue_index + 1);
}

static void net_link_status_changed(NetClientState *nc)
{
    VirtIONetPCI *n = nc->opaque;
    VirtIODevice *vdev = &n->proxy.vdev;

    if (virtio_has_feature(vdev, VIRTIO_NET_F_STATUS) && !nc->queue_index) {
        virtio_notify_config(vdev);
    }
}

/* --- the control queue --- */

static void rx_filter_changed(VirtIONetPCI *n)
{
    DeviceState *dev = &n->proxy.pci.qdev;

    if (!n->nc->qom_path && dev->obj) {
        n->nc->qom_path = object_get_canonical_path(dev->obj);
    }
    qemu_net_rx_filter_changed(n->nc);
}

/* One table of MAC_TABLE_SET at *off: entries (le32), then the MACs. */
static bool mac_table_read(VirtIONetPCI *n, const uint8_t *d, size_t len,
                           size_t *off, bool *overflow, unsigned *count)
{
    uint32_t entries;

    if (len - *off < 4) {
        return false;
    }
    entries = d[*off] | d[*off + 1] << 8 | d[*off + 2] << 16 |
              (uint32_t)d[*off + 3] << 24;
    *off += 4;
    if (entries > (len - *off) / ETH_ALEN) {
        return false;
    }
    *count = 0;
    *overflow = false;
    if (n->uni_count + n->multi_count + entries > MAC_TABLE_ENTRIES) {
        *overflow = true;
    } else {
        memcpy(n->mac_table[n->uni_count + n->multi_count], d + *off,
               entries * ETH_ALEN);
        *count = entries;
    }
    *off += entries * ETH_ALEN;
    return true;
}

static uint8_t ctrl_mac(VirtIONetPCI *n, uint8_t cmd, const uint8_t *d,
                        size_t len)
{
    size_t off = 0;

    if (cmd == VIRTIO_NET_CTRL_MAC_ADDR_SET) {
        if (len != ETH_ALEN) {
            return VIRTIO_NET_ERR;
        }
        memcpy(n->mac, d, ETH_ALEN);
        return VIRTIO_NET_OK;
    }
    if (cmd != VIRTIO_NET_CTRL_MAC_TABLE_SET) {
        return VIRTIO_NET_ERR;
    }
    n->uni_count = n->multi_count = 0;
    if (!mac_table_read(n, d, len, &off, &n->uni_overflow, &n->uni_count) ||
        !mac_table_read(n, d, len, &off, &n->multi_overflow,
                        &n->multi_count) || off != len) {
        n->uni_count = n->multi_count = 0;
        return VIRTIO_NET_ERR;
    }
    return VIRTIO_NET_OK;
}

static uint8_t ctrl_command(VirtIONetPCI *n, uint8_t cls, uint8_t cmd,
                            const uint8_t *d, size_t len)
{
    VirtIODevice *vdev = &n->proxy.vdev;
    uint8_t ack;

    switch (cls) {
    case VIRTIO_NET_CTRL_RX:
        if (cmd >= RX_MODES || len != 1 ||
            !virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_RX)) {
            return VIRTIO_NET_ERR;
        }
        n->rx_mode[cmd] = d[0];
        rx_filter_changed(n);
        return VIRTIO_NET_OK;
    case VIRTIO_NET_CTRL_MAC:
        ack = ctrl_mac(n, cmd, d, len);
        if (ack == VIRTIO_NET_OK) {
            rx_filter_changed(n);
        }
        return ack;
    case VIRTIO_NET_CTRL_GUEST_OFFLOADS: {
        /* le64: a subset of the negotiated GUEST_* offloads. */
        uint64_t want = 0;

        for (size_t i = 0; len == 8 && i < 8; i++) {
            want |= (uint64_t)d[i] << 8 * i;
        }
        if (cmd != VIRTIO_NET_CTRL_GUEST_OFFLOADS_SET || len != 8 ||
            !virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_GUEST_OFFLOADS) ||
            (want & ~(vdev->guest_features & GUEST_OFFLOADS))) {
            return VIRTIO_NET_ERR;
        }
        n->guest_offloads = want;
        net_set_offloads(n);
        return VIRTIO_NET_OK;
    }
    case VIRTIO_NET_CTRL_MQ: {
        uint16_t pairs = len == 2 ? get_le16(d) : 0;

        if (cmd != VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET ||
            !virtio_has_feature(vdev, VIRTIO_NET_F_MQ) ||
            pairs < 1 || pairs > n->max_pairs) {
            return VIRTIO_NET_ERR;
        }
        n->curr_pairs = pairs;
        net_set_queue_pairs(n);
        return VIRTIO_NET_OK;
    }
    default:
        return VIRTIO_NET_ERR;
    }
}

static void net_handle_ctrl(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIONetPCI *n = vdev->opaque;
    VirtQueueElement *elem;
    bool pushed = false;

    while ((elem = virtqueue_pop(vq))) {
        size_t out = 0, in = 0;
        uint8_t *cmd, ack;

        for (unsigned i = 0; i < elem->out_num; i++) {
            out += elem->out[i].len;
        }
        for (unsigned i = 0; i < elem->in_num; i++) {
            in += elem->in[i].len;
        }
        if (out < 2 || out > CTRL_MAX_LEN || in < 1) {
            virtio_error(vdev, "control command of %zu bytes, ack of %zu",
                         out, in);
            virtqueue_element_free(elem);
            break;
        }
        cmd = g_malloc(out);
        virtqueue_buf_to(elem->out, elem->out_num, 0, cmd, out);
        ack = ctrl_command(n, cmd[0], cmd[1], cmd + 2, out - 2);
        g_free(cmd);
        virtqueue_buf_from(elem->in, elem->in_num, 0, &ack, 1);
        virtqueue_push(vq, elem, 1);
        pushed = true;
    }
    if (pushed) {
        virtio_notify(vdev, vq);
    }
}

/* --- query-rx-filter --- */

static const char *rx_state(bool all, bool none)
{
    return all ? "all" : none ? "none" : "normal";
}

static JsonArray *mac_list(VirtIONetPCI *n, unsigned from, unsigned to)
{
    JsonArray *a = json_array_new();

    for (unsigned i = from; i < to; i++) {
        const uint8_t *m = n->mac_table[i];
        char *s = g_strdup_printf("%02x:%02x:%02x:%02x:%02x:%02x", m[0],
                                  m[1], m[2], m[3], m[4], m[5]);

        json_array_add_string_element(a, s);
        g_free(s);
    }
    return a;
}

static JsonObject *net_query_rx_filter(NetClientState *nc)
{
    VirtIONetPCI *n = nc->opaque;
    JsonObject *o = json_object_new();
    JsonArray *a;
    char *mac = g_strdup_printf("%02x:%02x:%02x:%02x:%02x:%02x", n->mac[0],
                                n->mac[1], n->mac[2], n->mac[3], n->mac[4],
                                n->mac[5]);

    json_object_set_string_member(o, "name", nc->name);
    json_object_set_boolean_member(o, "promiscuous", n->rx_mode[RX_PROMISC]);
    json_object_set_string_member(o, "multicast",
                                  rx_state(n->rx_mode[RX_ALLMULTI],
                                           n->rx_mode[RX_NOMULTI]));
    json_object_set_string_member(o, "unicast",
                                  rx_state(n->rx_mode[RX_ALLUNI],
                                           n->rx_mode[RX_NOUNI]));
    /* No VLAN filter is offered: every VLAN passes. */
    json_object_set_string_member(o, "vlan", "all");
    json_object_set_boolean_member(o, "broadcast-allowed",
                                   !n->rx_mode[RX_NOBCAST]);
    json_object_set_boolean_member(o, "multicast-overflow",
                                   n->multi_overflow);
    json_object_set_boolean_member(o, "unicast-overflow", n->uni_overflow);
    json_object_set_string_member(o, "main-mac", mac);
    g_free(mac);
    json_object_set_array_member(o, "vlan-table", json_array_new());
    a = mac_list(n, 0, n->uni_count);
    json_object_set_array_member(o, "unicast-table", a);
    a = mac_list(n, n->uni_count, n->uni_count + n->multi_count);
    json_object_set_array_member(o, "multicast-table", a);
    return o;
}

/* --- the device --- */

static const VirtioDeviceOps virtio_net_ops = {
    .device_id = VIRTIO_ID_NET,
    .config_len = VIRTIO_NET_CONFIG_SIZE,
    .features = 1ULL << VIRTIO_NET_F_MAC | 1ULL << VIRTIO_NET_F_STATUS |
                1ULL << VIRTIO_NET_F_CTRL_VQ | 1ULL << VIRTIO_NET_F_CTRL_RX |
                1ULL << VIRTIO_NET_F_CTRL_MAC_ADDR,
    .get_config = net_get_config,
    .set_config = net_set_config,
    .reset = net_reset,
    .set_status = net_set_status,
};

static const NetClientInfo net_virtio_info = {
    .type = "nic",
    .is_nic = true,
    .receive = net_receive,
    .resume = net_resume,
    .link_status_changed = net_link_status_changed,
    .query_rx_filter = net_query_rx_filter,
};

static bool check_queue_size(const char *name, uint16_t size, Error **errp)
{
    if (size < 256 || size > VIRTQUEUE_MAX_SIZE || (size & (size - 1))) {
        error_setg(errp, "Invalid %s (= %u), must be a power of 2 between "
                   "256 and %d", name, size, VIRTQUEUE_MAX_SIZE);
        return false;
    }
    return true;
}

static void net_del_clients(VirtIONetPCI *n)
{
    for (unsigned i = 0; i < n->max_pairs; i++) {
        qemu_del_net_client(n->ncs[i]);
    }
    g_clear_pointer(&n->ncs, g_free);
    n->nc = NULL;
}

static bool virtio_net_pci_realize(PCIDevice *d, Error **errp)
{
    static unsigned count;
    VirtIONetPCI *n = (VirtIONetPCI *)d;
    VirtIODevice *vdev = &n->proxy.vdev;
    NetClientState *peer = NULL;
    unsigned queues = 1;
    char *name;

    if (n->mac_str) {
        if (!net_parse_macaddr(n->conf_mac, n->mac_str)) {
            error_setg(errp, "Property 'virtio-net-device.mac' doesn't take "
                       "value '%s'", n->mac_str);
            return false;
        }
    } else {
        qemu_macaddr_default(n->conf_mac);
    }
    if (!check_queue_size("rx_queue_size", n->rx_queue_size, errp) ||
        !check_queue_size("tx_queue_size", n->tx_queue_size, errp)) {
        return false;
    }
    if (n->netdev) {
        peer = qemu_net_claim_netdev("virtio-net-device", n->netdev,
                                     &queues, errp);
        if (!peer) {
            return false;
        }
    }
    /* A pair per backend queue with mq=on (socket and user have one). */
    n->max_pairs = n->mq ? queues : 1;
    n->vnet_hdr = qemu_has_vnet_hdr(peer);
    virtio_init(vdev, "virtio-net", &virtio_net_ops, n, 2 * n->max_pairs + 1);
    for (unsigned i = 0; i < n->max_pairs; i++) {
        virtio_add_queue(vdev, 2 * i, n->rx_queue_size, net_handle_rx);
        virtio_add_queue(vdev, 2 * i + 1, n->tx_queue_size, net_handle_tx);
    }
    virtio_add_queue(vdev, ctrl_index(n), 64, net_handle_ctrl);
    if (n->csum) {
        vdev->host_features |= 1ULL << VIRTIO_NET_F_CSUM;
    }
    if (n->vnet_hdr) {
        vdev->host_features |= 1ULL << VIRTIO_NET_F_CTRL_GUEST_OFFLOADS;
    }
    for (size_t i = 0; n->vnet_hdr && i < G_N_ELEMENTS(offload_features);
         i++) {
        /* Host TSO and ECN need CSUM; guest ones are the driver's say. */
        if (n->offload_props[i] &&
            (n->csum || offload_features[i] < VIRTIO_NET_F_HOST_TSO4)) {
            vdev->host_features |= 1ULL << offload_features[i];
        }
    }
    if (n->mq) {
        vdev->host_features |= 1ULL << VIRTIO_NET_F_MQ;
    }
    n->tx_buf = g_malloc(NET_MAX_PACKET);
    name = d->qdev.id ? g_strdup(d->qdev.id)
                      : g_strdup_printf("virtio-net-pci.%u", count++);
    n->ncs = g_new0(NetClientState *, n->max_pairs);
    for (unsigned i = 0; i < n->max_pairs; i++) {
        n->ncs[i] = qemu_new_net_client(&net_virtio_info,
                                        i ? qemu_net_backend_queue(peer, i)
                                          : peer, name, n);
        n->ncs[i]->queue_index = i;
        qemu_set_vnet_hdr_len(n->ncs[i]->peer,
                              n->vnet_hdr ? VIRTIO_NET_HDR_LEN : 0);
    }
    n->nc = n->ncs[0];
    g_free(name);
    for (unsigned i = n->max_pairs; i < queues; i++) {
        /* Without mq=on: no flows to tap queues nobody reads. */
        Error *err = NULL;

        if (!qemu_set_queue_enabled(qemu_net_backend_queue(peer, i), false,
                                    &err)) {
            warn_report_err(err);
        }
    }
    qemu_set_info_str(n->nc, "model=virtio-net-pci,macaddr="
                      "%02x:%02x:%02x:%02x:%02x:%02x", n->conf_mac[0],
                      n->conf_mac[1], n->conf_mac[2], n->conf_mac[3],
                      n->conf_mac[4], n->conf_mac[5]);
    net_reset(vdev);
    if (!virtio_pci_realize(&n->proxy, 2 * n->max_pairs + 2, errp)) {
        net_del_clients(n);
        g_free(n->tx_buf);
        virtio_cleanup(vdev);
        return false;
    }
    return true;
}

static void virtio_net_pci_exit(PCIDevice *d)
{
    VirtIONetPCI *n = (VirtIONetPCI *)d;

    virtio_pci_exit(&n->proxy);
    net_del_clients(n);
    g_free(n->tx_buf);
    n->tx_buf = NULL;
}

static void virtio_net_pci_reset(PCIDevice *d)
{
    virtio_pci_reset(&((VirtIONetPCI *)d)->proxy);
}

static const Property virtio_net_pci_props[] = {
    DEFINE_PROP_INT32("bootindex", VirtIONetPCI, bootindex, -1),
    DEFINE_PROP_STRING("netdev", VirtIONetPCI, netdev),
    DEFINE_PROP_STRING("mac", VirtIONetPCI, mac_str),
    DEFINE_PROP_BOOL("mq", VirtIONetPCI, mq, false),
    DEFINE_PROP_BOOL("csum", VirtIONetPCI, csum, true),
    DEFINE_PROP_BOOL("guest_csum", VirtIONetPCI, offload_props[0], true),
    DEFINE_PROP_BOOL("guest_tso4", VirtIONetPCI, offload_props[1], true),
    DEFINE_PROP_BOOL("guest_tso6", VirtIONetPCI, offload_props[2], true),
    DEFINE_PROP_BOOL("guest_ecn", VirtIONetPCI, offload_props[3], true),
    DEFINE_PROP_BOOL("host_tso4", VirtIONetPCI, offload_props[4], true),
    DEFINE_PROP_BOOL("host_tso6", VirtIONetPCI, offload_props[5], true),
    DEFINE_PROP_BOOL("host_ecn", VirtIONetPCI, offload_props[6], true),
    DEFINE_PROP_UINT16("rx_queue_size", VirtIONetPCI, rx_queue_size, 256),
    DEFINE_PROP_UINT16("tx_queue_size", VirtIONetPCI, tx_queue_size, 256),
    VIRTIO_PCI_PROPS,
    PCI_DEVICE_PROPS,
    PROP_END,
};

/* --- migration ----------------------------------------------------------- */

static int net_pre_save(void *opaque)
{
    VirtIONetPCI *n = opaque;

    n->link_up = !n->nc->link_down;
    return 0;
}

static bool net_pairs_check(void *opaque, const VMStateField *f,
                            Error **errp)
{
    VirtIONetPCI *n = opaque;

    if (n->curr_pairs < 1 || n->curr_pairs > n->max_pairs) {
        error_setg(errp, "%u queue pairs, the device has 1..%u",
                   n->curr_pairs, n->max_pairs);
        return false;
    }
    return true;
}

static bool net_table_check(void *opaque, const VMStateField *f,
                            Error **errp)
{
    VirtIONetPCI *n = opaque;

    if (n->uni_count > MAC_TABLE_ENTRIES ||
        n->multi_count > MAC_TABLE_ENTRIES - n->uni_count) {
        error_setg(errp, "%u unicast and %u multicast entries in a table of "
                   "%u", n->uni_count, n->multi_count, MAC_TABLE_ENTRIES);
        return false;
    }
    return true;
}

/* The offloads the driver takes: a subset of what it negotiated. */
static bool net_offloads_check(void *opaque, const VMStateField *f,
                               Error **errp)
{
    VirtIONetPCI *n = opaque;
    uint64_t allowed = n->proxy.vdev.guest_features & GUEST_OFFLOADS;

    if (n->guest_offloads & ~allowed) {
        error_setg(errp, "offloads 0x%" G_GINT64_MODIFIER "x beyond the "
                   "negotiated 0x%" G_GINT64_MODIFIER "x",
                   n->guest_offloads, allowed);
        return false;
    }
    return true;
}

/*
 * The link follows the stream, as it did for the guest on the source;
 * so do the tap's offloads and attached queues, which the source set
 * when its driver wrote them.
 */
static bool net_post_load(void *opaque, unsigned version, Error **errp)
{
    VirtIONetPCI *n = opaque;

    n->nc->link_down = !n->link_up;
    if (version < 2) {
        n->guest_offloads = n->proxy.vdev.guest_features & GUEST_OFFLOADS;
    }
    if (n->vnet_hdr) {
        net_set_offloads(n);
    }
    net_set_queue_pairs(n);
    return true;
}

static const VMStateDescription vmstate_virtio_net_pci = {
    .name = "virtio-net-pci",
    .version = 2,
    .minimum_version = 1,
    .pre_save = net_pre_save,
    .post_load = net_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(VirtIONetPCI, proxy, VirtIOPCIProxy,
                       vmstate_virtio_pci),
        VMSTATE_U8_ARRAY(VirtIONetPCI, mac, ETH_ALEN),
        VMSTATE_BOOL(VirtIONetPCI, link_up),
        VMSTATE_UINT(VirtIONetPCI, curr_pairs, .check = net_pairs_check),
        VMSTATE_BOOL_ARRAY(VirtIONetPCI, rx_mode, RX_MODES),
        VMSTATE_UINT(VirtIONetPCI, uni_count),
        VMSTATE_UINT(VirtIONetPCI, multi_count, .check = net_table_check),
        VMSTATE_BOOL(VirtIONetPCI, uni_overflow),
        VMSTATE_BOOL(VirtIONetPCI, multi_overflow),
        VMSTATE_BUFFER(VirtIONetPCI, mac_table),
        VMSTATE_U64(VirtIONetPCI, guest_offloads, .version = 2,
                    .check = net_offloads_check),
        VMSTATE_END
    },
};

const PCIDeviceClass virtio_net_pci_device_class = {
    .parent = {
        .name = "virtio-net-pci",
        .category = "Network devices",
        .instance_size = sizeof(VirtIONetPCI),
        .boot_suffix = "/ethernet-phy@0",
        .props = virtio_net_pci_props,
        .user_creatable = true,
        .vmsd = &vmstate_virtio_net_pci,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT_QUMRANET,
    .class_id = 0x0200,
    .realize = virtio_net_pci_realize,
    .exit = virtio_net_pci_exit,
    .reset = virtio_net_pci_reset,
};

DEVICE_CLASS_REGISTER(virtio_net_pci_device_class)
