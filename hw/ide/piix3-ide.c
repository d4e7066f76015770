/*
 * piix3-ide: the PIIX3's IDE function (82371SB, 8086:7010), class 0101
 * in legacy mode (programming interface 0x80: fixed ports, ISA IRQs,
 * bus master). The primary channel (bus ide.0) decodes 0x1f0-0x1f7 and
 * 0x3f6 and raises ISA IRQ 14, the secondary (ide.1) 0x170-0x177 and
 * 0x376, IRQ 15, whatever the command register says, as QEMU's. BAR4
 * (16 ports) holds the two bus masters: command at +0, status at +2,
 * the PRD table address at +4, the secondary's at +8.
 *
 * The IDE timing registers (0x40-0x43) are plain config space: SeaBIOS
 * (and, for a kernel booted directly, the pc board) sets their decode
 * enable bits, which Linux's ata_piix reads before it probes a channel.
 */
#include <string.h>

#include "hw/isa.h"
#include "hw/pci/pci.h"
#include "ide-internal.h"
#include "vmstate/vmstate.h"

#define PIIX3_IDE_DEVICE_ID     0x7010
#define PIIX3_IDE_BMDMA_BAR     4
#define PIIX3_IDE_BMDMA_SIZE    16

typedef struct PIIX3IDEState {
    PCIDevice parent;
    IDEBus bus[IDE_NUM_BUSES];
    MemoryRegion bmdma;
} PIIX3IDEState;

static const struct {
    uint16_t cmd, ctl;
    unsigned irq;
} piix3_ide_ports[IDE_NUM_BUSES] = {
    { 0x1f0, 0x3f6, 14 },
    { 0x170, 0x376, 15 },
};

static const MemoryRegionOps ide_cmd_ops = {
    .read = ide_cmd_read,
    .write = ide_cmd_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static const MemoryRegionOps ide_ctl_ops = {
    .read = ide_ctl_read,
    .write = ide_ctl_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

static uint64_t bmdma_read(void *opaque, uint64_t addr, unsigned size)
{
    PIIX3IDEState *d = opaque;
    BMDMAState *bm = &d->bus[addr >> 3].bm;
    uint64_t v = 0;

    for (unsigned i = 0; i < size; i++) {
        unsigned reg = (addr + i) & 7;
        uint8_t b;

        switch (reg) {
        case 0:
            b = bm->cmd;
            break;
        case 2:
            b = bm->status;
            break;
        case 4: case 5: case 6: case 7:
            b = bm->prd_table >> (8 * (reg - 4));
            break;
        default:
            b = 0;
            break;
        }
        v |= (uint64_t)b << (8 * i);
    }
    return v;
}

static void bmdma_write(void *opaque, uint64_t addr, uint64_t val,
                        unsigned size)
{
    PIIX3IDEState *d = opaque;
    IDEBus *bus = &d->bus[addr >> 3];
    BMDMAState *bm = &bus->bm;

    for (unsigned i = 0; i < size; i++) {
        unsigned reg = (addr + i) & 7;
        uint8_t b = val >> (8 * i);

        switch (reg) {
        case 0:
            bmdma_cmd_write(bus, b);
            break;
        case 2:
            bmdma_status_write(bus, b);
            break;
        case 4: case 5: case 6: case 7: {
            unsigned shift = 8 * (reg - 4);

            bm->prd_table = (bm->prd_table & ~(0xffu << shift)) |
                            (uint32_t)b << shift;
            bm->prd_table &= ~3u;
            break;
        }
        }
    }
}

static const MemoryRegionOps bmdma_ops = {
    .read = bmdma_read,
    .write = bmdma_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static bool piix3_ide_dma_rw(void *opaque, uint64_t addr, void *buf,
                             uint64_t len, bool to_memory)
{
    return pci_dma_rw(opaque, addr, buf, len, to_memory);
}

/* The drives' paths: ".../ide@1,1/drive@CHANNEL" (the unit is the suffix). */
static char *ide_bus_fw_dev_path(const BusState *bus, const DeviceState *dev)
{
    return g_strdup_printf("drive@%x", ((const IDEBus *)bus)->bus_id);
}

/* Undo the realize of the first n channels, and the bus masters. */
static void piix3_ide_teardown(PIIX3IDEState *d, int n)
{
    for (int i = 0; i < n; i++) {
        address_space_unmap_region(&d->bus[i].cmd_io);
        address_space_unmap_region(&d->bus[i].ctl_io);
        memory_region_finalize(&d->bus[i].cmd_io);
        memory_region_finalize(&d->bus[i].ctl_io);
        ide_bus_deinit(&d->bus[i]);
    }
    memory_region_finalize(&d->bmdma);
}

static bool piix3_ide_realize(PCIDevice *pd, Error **errp)
{
    PIIX3IDEState *d = (PIIX3IDEState *)pd;
    int i;

    pd->config[PCI_CLASS_PROG] = 0x80;
    memory_region_init_io(&d->bmdma, "piix-bmdma-container", &bmdma_ops, d,
                          PIIX3_IDE_BMDMA_SIZE);
    pci_register_bar(pd, PIIX3_IDE_BMDMA_BAR, PCI_BASE_ADDRESS_SPACE_IO,
                     &d->bmdma);
    for (i = 0; i < IDE_NUM_BUSES; i++) {
        IDEBus *bus = &d->bus[i];
        g_autofree char *name = g_strdup_printf("ide.%d", i);

        ide_bus_init(bus, i, name);
        bus->qbus.fw_dev_path = ide_bus_fw_dev_path;
        bus->irq = isa_get_irq(piix3_ide_ports[i].irq);
        bus->dma_rw = piix3_ide_dma_rw;
        bus->dma_opaque = pd;
        memory_region_init_io(&bus->cmd_io, "ide", &ide_cmd_ops, bus, 8);
        memory_region_init_io(&bus->ctl_io, "ide", &ide_ctl_ops, bus, 1);
        if (!isa_register_ioport(&pd->qdev, &bus->cmd_io,
                                 piix3_ide_ports[i].cmd, errp) ||
            !isa_register_ioport(&pd->qdev, &bus->ctl_io,
                                 piix3_ide_ports[i].ctl, errp)) {
            goto fail;
        }
        qbus_set_parent(&bus->qbus, &pd->qdev);
    }
    return true;

fail:
    piix3_ide_teardown(d, i + 1);
    return false;
}

static void piix3_ide_exit(PCIDevice *pd)
{
    piix3_ide_teardown((PIIX3IDEState *)pd, IDE_NUM_BUSES);
}

static void piix3_ide_reset(PCIDevice *pd)
{
    PIIX3IDEState *d = (PIIX3IDEState *)pd;

    for (int i = 0; i < IDE_NUM_BUSES; i++) {
        ide_bus_reset(&d->bus[i]);
    }
    pci_set_word(pd->config + PCI_STATUS, PCI_STATUS_DEVSEL_MEDIUM | 0x80);
}

static const Property piix3_ide_props[] = {
    PCI_DEVICE_PROPS,
    PROP_END,
};

/*
 * The register files, the bus masters and the CD-ROMs' tray and sense:
 * the migration drains the block layer first, so no read or write is in
 * flight. A PIO data block half moved is not carried (its data stays
 * behind): the destination's drive shows no DRQ.
 */
static const VMStateDescription vmstate_ide_drive = {
    .name = "ide-drive",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(IDEState, feature),
        VMSTATE_U8(IDEState, error),
        VMSTATE_U8(IDEState, nsector),
        VMSTATE_U8(IDEState, sector),
        VMSTATE_U8(IDEState, lcyl),
        VMSTATE_U8(IDEState, hcyl),
        VMSTATE_U8(IDEState, hob_feature),
        VMSTATE_U8(IDEState, hob_nsector),
        VMSTATE_U8(IDEState, hob_sector),
        VMSTATE_U8(IDEState, hob_lcyl),
        VMSTATE_U8(IDEState, hob_hcyl),
        VMSTATE_U8(IDEState, select),
        VMSTATE_U8(IDEState, status),
        VMSTATE_U8(IDEState, mult_sectors, VMS_RANGE(0, IDE_MAX_MULT)),
        VMSTATE_BOOL(IDEState, write_cache),
        VMSTATE_U16(IDEState, cur_heads),
        VMSTATE_U16(IDEState, cur_sectors),
        VMSTATE_U8(IDEState, sense_key),
        VMSTATE_U8(IDEState, asc),
        VMSTATE_BOOL(IDEState, tray_open),
        VMSTATE_BOOL(IDEState, tray_locked),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_bmdma = {
    .name = "ide-bmdma",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(BMDMAState, cmd),
        VMSTATE_U8(BMDMAState, status),
        VMSTATE_U32(BMDMAState, prd_table),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_ide_bus = {
    .name = "ide-bus",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_INT(IDEBus, unit, VMS_RANGE(0, 1)),
        VMSTATE_U8(IDEBus, ctrl),
        VMSTATE_STRUCT(IDEBus, bm, BMDMAState, vmstate_bmdma),
        VMSTATE_STRUCT_ARRAY(IDEBus, ifs, IDE_NUM_UNITS, IDEState,
                             vmstate_ide_drive),
        VMSTATE_END
    },
};

/* The ide drives' bits above; the status loses what was in flight. */
static bool piix3_ide_post_load(void *opaque, unsigned version, Error **errp)
{
    PIIX3IDEState *d = opaque;

    for (int i = 0; i < IDE_NUM_BUSES; i++) {
        for (int u = 0; u < IDE_NUM_UNITS; u++) {
            IDEState *s = &d->bus[i].ifs[u];

            s->status &= ~(IDE_STAT_BSY | IDE_STAT_DRQ);
            ide_transfer_stop(s);
        }
    }
    return true;
}

static const VMStateDescription vmstate_piix3_ide = {
    .name = "piix3-ide",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(PIIX3IDEState, parent, PCIDevice, vmstate_pci_device),
        VMSTATE_STRUCT_ARRAY(PIIX3IDEState, bus, IDE_NUM_BUSES, IDEBus,
                             vmstate_ide_bus),
        VMSTATE_END
    },
    .post_load = piix3_ide_post_load,
};

const PCIDeviceClass piix3_ide_pci_device_class = {
    .parent = {
        .name = "piix3-ide",
        .category = "Storage devices",
        .instance_size = sizeof(PIIX3IDEState),
        .props = piix3_ide_props,
        .vmsd = &vmstate_piix3_ide,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_INTEL,
    .device_id = PIIX3_IDE_DEVICE_ID,
    .class_id = 0x0101,
    .realize = piix3_ide_realize,
    .exit = piix3_ide_exit,
    .reset = piix3_ide_reset,
};

DEVICE_CLASS_REGISTER(piix3_ide_pci_device_class)
