/*
 * libFuzzer target: virtio-net's header and packet path
 * (hw/virtio/virtio-net.c, included here so its static handlers run
 * as they are). The input fills guest RAM, where the transmit, control
 * and receive rings lie at fixed places (the ring parser itself has
 * fuzz-virtqueue); its first bytes pick the negotiated features,
 * whether the backend takes packets or makes the NIC wait, whether it
 * carries a virtio-net header (tap vnet_hdr: the header checks and
 * pass-through, offloads offered), and a packet for the receive side.
 * The device pops every chain, checks headers, finishes checksums, runs
 * control commands, filters and receives. A crash, leak, UB or hang is
 * a bug; a broken device is a fine answer.
 */
#include <string.h>

#include <glib.h>

/* The device's own class stays in the emulator's library. */
#define virtio_net_pci_device_class fuzz_virtio_net_pci_device_class
#include "../../hw/virtio/virtio-net.c"

#define RAM_BASE        0x10000u
#define RAM_SIZE        0x10000u
#define QUEUE_SIZE      4
#define HEAD_BYTES      8

static uint8_t ram[RAM_SIZE];
static MemoryRegion ram_mr;
static bool sink_full, sink_vnet_hdr;

static ssize_t sink_receive(NetClientState *nc, const uint8_t *buf,
                            size_t len)
{
    return sink_full ? 0 : (ssize_t)len;
}

static bool sink_has_vnet_hdr(NetClientState *nc)
{
    return sink_vnet_hdr;
}

static void sink_set_offload(NetClientState *nc, const NetOffloads *o)
{
}

static const NetClientInfo sink_info = {
    .type = "sink",
    .receive = sink_receive,
    .has_vnet_hdr = sink_has_vnet_hdr,
    .set_offload = sink_set_offload,
};

/*
 * Queue n's rings, packed at the start of the RAM the input fills (so
 * short inputs reach them): 4 descriptors at 0x80 * n, the available
 * ring at +0x40, the used ring at +0x50.
 */
static void place_queue(VirtQueue *vq, unsigned n)
{
    uint64_t base = RAM_BASE + 0x80 * n;

    vq->num = QUEUE_SIZE;
    vq->desc = base;
    vq->avail = base + 0x40;
    vq->used = base + 0x50;
    vq->enabled = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool mapped;
    VirtIONetPCI *n;
    VirtIODevice *vdev;
    NetClientState *sink;
    size_t pkt_len;

    if (!mapped) {
        memory_region_init_ram_ptr(&ram_mr, "ram", sizeof(ram), ram);
        address_space_map_region(&address_space_memory, &ram_mr, RAM_BASE,
                                 NULL);
        mapped = true;
    }
    if (size < HEAD_BYTES) {
        return 0;
    }
    memset(ram, 0, sizeof(ram));
    memcpy(ram, data + HEAD_BYTES, MIN(size - HEAD_BYTES, sizeof(ram)));

    n = g_new0(VirtIONetPCI, 1);
    vdev = &n->proxy.vdev;
    n->max_pairs = 1;
    n->tx_buf = g_malloc(NET_MAX_PACKET);
    memcpy(n->conf_mac, "\x52\x54\x00\x12\x34\x56", 6);
    virtio_init(vdev, "virtio-net", &virtio_net_ops, n, 3);
    virtio_add_queue(vdev, 0, QUEUE_SIZE, net_handle_rx);
    virtio_add_queue(vdev, 1, QUEUE_SIZE, net_handle_tx);
    virtio_add_queue(vdev, 2, QUEUE_SIZE, net_handle_ctrl);
    vdev->host_features |= 1ULL << VIRTIO_NET_F_CSUM |
                           1ULL << VIRTIO_NET_F_MQ;
    sink_vnet_hdr = data[2] & 2;
    sink = qemu_new_net_client(&sink_info, NULL, "sink", NULL);
    n->vnet_hdr = qemu_has_vnet_hdr(sink);
    for (size_t i = 0; n->vnet_hdr && i < G_N_ELEMENTS(offload_features);
         i++) {
        vdev->host_features |= 1ULL << offload_features[i];
    }
    n->nc = qemu_new_net_client(&net_virtio_info, sink, "fuzz", n);
    n->ncs = &n->nc;
    net_reset(vdev);
    /*
     * data[0..1]: the driver's features 16-31, data[7] 7-14 (TSO, ECN),
     * data[0] bit 1 GUEST_CSUM; within what is offered.
     */
    vdev->guest_features = ((uint64_t)(data[0] | data[1] << 8) << 16 |
                            (uint64_t)data[7] << 7 | (data[0] & 2) |
                            1ULL << VIRTIO_NET_F_CSUM |
                            1ULL << VIRTIO_F_VERSION_1) &
                           (vdev->host_features |
                            1ULL << VIRTIO_F_VERSION_1);
    if (!(data[0] & 1)) {
        vdev->guest_features &= ~(1ULL << VIRTIO_NET_F_CSUM);
    }
    sink_full = data[2] & 1;
    for (unsigned i = 0; i < 3; i++) {
        place_queue(&vdev->vq[i], i);
    }
    vdev->status = VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
                   VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK;
    /* data[3]: which queues run first. */
    if (data[3] & 1) {
        virtio_queue_notify(vdev, 2);
    }
    virtio_queue_notify(vdev, 1);
    virtio_queue_notify(vdev, 2);
    net_set_status(vdev, vdev->status);     /* offloads to the sink */
    /* A packet for the guest: data[4..5] its length, from the input. */
    pkt_len = MIN((size_t)(data[4] | data[5] << 8), size - HEAD_BYTES);
    net_receive(n->nc, data + HEAD_BYTES, pkt_len);
    virtio_queue_notify(vdev, 0);
    /* The backend drains: queued packets flow, the NIC resumes. */
    sink_full = false;
    qemu_flush_queued_packets(sink);
    /* What the guest's commands left: config and query-rx-filter. */
    if (data[6] & 1) {
        uint8_t config[VIRTIO_NET_CONFIG_SIZE];

        n->nc->link_down = data[6] & 2;
        net_link_status_changed(n->nc);
        net_get_config(vdev, config);
        json_object_unref(net_query_rx_filter(n->nc));
    }

    qemu_del_net_client(n->nc);
    qemu_del_net_client(sink);
    virtio_cleanup(vdev);
    g_free(n->tx_buf);
    g_free(n);
    return 0;
}
