/*
 * libFuzzer target: the e1000 (hw/net/e1000.c, included here so its
 * static handlers run as they are) driven the way a guest drives it.
 * The input is a header, a script of register accesses and frames, and
 * the guest RAM the rings and buffers lie in:
 *   bytes 0-7     ring setup: TDLEN/RDLEN in 128-byte units, RCTL and
 *                 TCTL low bytes, whether the backend takes frames, the
 *                 PHY loopback, CTRL.VME, bus mastering
 *   bytes 8-9     the number of script steps (at most 64)
 *   steps of 7    op, register (2 bytes, a word index), value (4 bytes);
 *                 op: write, read, I/O window write, a frame from the
 *                 backend (its length the value, its bytes from RAM),
 *                 the backend drains, link down/up, reset
 *   the rest      guest RAM at 0x10000 (64 KiB); the NIC's own BAR0 is
 *                 at 0x30000, so rings and buffers may point at it.
 * A crash, leak, UB or hang is a bug; a ring the device refuses is a
 * fine answer.
 */
#include <string.h>

#include <glib.h>

/* The device's own class stays in the emulator's library. */
#define e1000_pci_device_class fuzz_e1000_pci_device_class
#include "../../hw/net/e1000.c"

#define RAM_BASE        0x10000u
#define RAM_SIZE        0x10000u
#define BAR0_BASE       0x30000u
#define HEAD_BYTES      10
#define STEP_BYTES      7
#define MAX_STEPS       64

static uint8_t ram[RAM_SIZE];
static MemoryRegion ram_mr;
/* One device's memory, reused: a 90 KiB malloc per input is slow. */
static E1000State *dev;
static PCIBus bus;
static bool sink_full;

static ssize_t sink_receive(NetClientState *nc, const uint8_t *buf,
                            size_t len)
{
    return sink_full ? 0 : (ssize_t)len;
}

static const NetClientInfo sink_info = {
    .type = "sink",
    .receive = sink_receive,
};

static uint32_t get_le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void step(E1000State *s, NetClientState *sink, const uint8_t *p)
{
    uint32_t reg = ((p[1] | p[2] << 8) * 4) % E1000_MMIO_SIZE;
    uint32_t val = get_le32(p + 3);

    switch (p[0] % 8) {
    case 0:
    case 1:
        e1000_mmio_write(s, reg, val, 4);
        break;
    case 2:
        e1000_mmio_read(s, reg, 4);
        break;
    case 3:
        e1000_io_write(s, p[1] & 4, val, 4);
        e1000_io_read(s, E1000_IODATA, 4);
        break;
    case 4:
        /* A frame from the backend, its bytes somewhere in RAM. */
        qemu_send_packet(sink, ram + (reg % RAM_SIZE),
                         MIN(val & 0xffff, RAM_SIZE - reg % RAM_SIZE));
        break;
    case 5:
        sink_full = !sink_full;
        if (!sink_full) {
            qemu_flush_queued_packets(sink);
        }
        qemu_flush_queued_packets(s->nc);
        break;
    case 6:
        s->nc->link_down = val & 1;
        e1000_link_status_changed(s->nc);
        if (val & 2) {
            e1000_autoneg_done(s);
        }
        break;
    default:
        e1000_reset(&s->parent);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool mapped;
    E1000State *s;
    PCIDevice *d;
    NetClientState *sink;
    size_t steps, script;
    Error *err = NULL;

    if (!mapped) {
        memory_region_init_ram_ptr(&ram_mr, "ram", sizeof(ram), ram);
        address_space_map_region(&address_space_memory, &ram_mr, RAM_BASE,
                                 NULL);
        mapped = true;
    }
    if (size < HEAD_BYTES) {
        return 0;
    }
    steps = MIN((size_t)(data[8] | data[9] << 8), MAX_STEPS);
    steps = MIN(steps, (size - HEAD_BYTES) / STEP_BYTES);
    script = HEAD_BYTES + steps * STEP_BYTES;
    memset(ram, 0, sizeof(ram));
    memcpy(ram, data + script, MIN(size - script, sizeof(ram)));

    if (!dev) {
        dev = g_new(E1000State, 1);
    }
    s = dev;
    memset(s, 0, sizeof(*s));
    d = &s->parent;
    d->qdev.dc = &fuzz_e1000_pci_device_class.parent;
    d->bus = &bus;
    s->autoneg = true;
    s->init_vet = true;
    sink = qemu_new_net_client(&sink_info, NULL, "sink", NULL);
    s->netdev = g_strdup("sink");
    if (!e1000_realize(d, &err)) {
        g_error("e1000_realize: %s", error_get_pretty(err));
    }
    address_space_map_region(&address_space_memory, &s->mmio, BAR0_BASE,
                             NULL);
    pci_set_word(d->config + PCI_COMMAND,
                 data[7] & 1 ? 0 : PCI_COMMAND_MASTER | PCI_COMMAND_MEMORY);

    /* Rings at the start of RAM, so short inputs reach them. */
    REG(s, E1000_TDBAL) = RAM_BASE;
    REG(s, E1000_TDLEN) = (data[0] % 8) * 128;
    REG(s, E1000_RDBAL) = RAM_BASE + 0x800;
    REG(s, E1000_RDLEN) = (data[1] % 8) * 128;
    REG(s, E1000_RCTL) = E1000_RCTL_EN | (uint32_t)data[2] << 2 |
                         (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
    REG(s, E1000_TCTL) = E1000_TCTL_EN;
    REG(s, E1000_IMS) = 0xff;
    sink_full = data[5] & 1;
    if (data[5] & 2) {
        s->phy[MII_BMCR] |= MII_BMCR_LOOPBACK;
    }
    if (data[6] & 1) {
        REG(s, E1000_CTRL) |= E1000_CTRL_VME;
    }
    for (size_t i = 0; i < steps; i++) {
        step(s, sink, data + HEAD_BYTES + i * STEP_BYTES);
    }
    sink_full = false;
    qemu_flush_queued_packets(sink);

    address_space_unmap_region(&s->mmio);
    e1000_exit(d);
    qemu_del_net_client(sink);
    g_free(s->netdev);
    g_free(s->mac_str);
    return 0;
}
