/*
 * i440FX PCI host bridge (Intel 82441FX PMC), as QEMU's pc-i440fx-7.2:
 *
 * - Configuration mechanism #1: CONFADD at 0xcf8 (a dword write latches
 *   enable bit 31, bus 23-16, device 15-11, function 10-8, register
 *   7-2), CONFDATA at 0xcfc-0xcff (an access at 0xcfc + n reaches
 *   register + n). With the enable bit clear, or for a bus or function
 *   that is absent, reads are all ones and writes vanish. A byte access
 *   at 0xcf9 is the PIIX3's reset control register (i440fx_host_set_cf9).
 * - The PCI memory space "pci": seen where nothing else is (priority -1
 *   under the whole of guest-physical memory), and through the windows
 *   "pci-hole" [end of low RAM, 0xfec00000) and "pci-hole64" (2 GiB from
 *   the first GiB boundary above high RAM, at least 4 GiB). PCI I/O
 *   space is the port I/O space itself.
 * - Function 00.0 "i440FX": 8086:1237 rev 2, host bridge class, with the
 *   reset values QEMU shows (DRAMC 0x57 = 0x10, SMRAM 0x72 = 0x02).
 *   Once the board gave its RAM (i440fx_host_map_ram), the PAM registers
 *   (0x59-0x5f) switch the 13 segments of 0xc0000-0xfffff between RAM
 *   and PCI (pam.h; PAM0's high nibble is 0xf0000-0xfffff, each further
 *   nibble a 16 KiB segment from 0xc0000 up), and SMRAM's D_OPEN (bit 6)
 *   shows RAM at 0xa0000-0xbffff instead of PCI (the VGA window). There
 *   is no SMM (-machine smm=on is refused): G_SMRAME only holds a value.
 *   A reset (of the machine) clears the PAM registers, so the firmware
 *   ROM is seen again, as on the 82441FX.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/pci-host/i440fx.h"
#include "hw/pci-host/pam.h"
#include "hw/pci/pci.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define CONFADD_ENABLE          0x80000000u
#define I440FX_DRAMC            0x57
#define I440FX_PAM              0x59
#define I440FX_PAM_SIZE         7
#define I440FX_SMRAM            0x72
#define I440FX_SMRAM_D_OPEN     0x40
/* PAM0's high nibble, then two segments per register. */
#define I440FX_PAM_SEGMENTS     13
#define I440FX_SMRAM_BASE       0xa0000
#define I440FX_SMRAM_SIZE       0x20000
#define I440FX_LEGACY_END       0x100000

typedef struct I440FXHostState {
    DeviceState parent;
    uint64_t below_4g;          /* "below-4g-mem-size" */
    uint64_t above_4g;          /* "above-4g-mem-size" */
    uint64_t hole64_size;       /* "pci-hole64-size" */
    uint32_t hole_start;        /* read-only, computed at realize */
    uint32_t hole_end;
    uint64_t hole64_start;
    uint64_t hole64_end;
    uint32_t short_root_bus;
    bool hole64_fix;
    bool bypass_iommu;

    PCIBus bus;
    MemoryRegion pci_mem;
    MemoryRegion pci_hole;
    MemoryRegion pci_hole64;
    MemoryRegion conf_idx;
    MemoryRegion conf_data;
    uint32_t config_reg;
    const MemoryRegionOps *cf9_ops;
    void *cf9_opaque;
    /* Set by i440fx_host_map_ram(): the legacy windows. */
    MemoryRegion *ram;
    PAMSegment pam[I440FX_PAM_SEGMENTS];
    MemoryRegion smram_pci;     /* PCI at 0xa0000 while D_OPEN is clear */
    MemoryRegion legacy_none;   /* PCI below 1 MiB where no device is */
} I440FXHostState;

/* --- CONFADD / CONFDATA --- */

static uint64_t conf_idx_read(void *opaque, uint64_t addr, unsigned size)
{
    I440FXHostState *s = opaque;

    if (addr == 1 && size == 1) {
        return s->cf9_ops ? s->cf9_ops->read(s->cf9_opaque, 0, 1) : 0xff;
    }
    return s->config_reg >> (8 * addr);
}

static void conf_idx_write(void *opaque, uint64_t addr, uint64_t value,
                           unsigned size)
{
    I440FXHostState *s = opaque;

    if (addr == 1 && size == 1) {
        if (s->cf9_ops) {
            s->cf9_ops->write(s->cf9_opaque, 0, value, 1);
        }
        return;
    }
    /* Only a whole dword reaches CONFADD, as on the 82441FX. */
    if (addr == 0 && size == 4) {
        s->config_reg = value;
    }
}

static const MemoryRegionOps conf_idx_ops = {
    .read = conf_idx_read,
    .write = conf_idx_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static bool conf_target(I440FXHostState *s, int *devfn, uint32_t *reg)
{
    if (!(s->config_reg & CONFADD_ENABLE) || (s->config_reg >> 16) & 0xff) {
        return false;
    }
    *devfn = (s->config_reg >> 8) & 0xff;
    *reg = s->config_reg & 0xfc;
    return true;
}

static uint64_t conf_data_read(void *opaque, uint64_t addr, unsigned size)
{
    I440FXHostState *s = opaque;
    uint32_t reg;
    int devfn;

    if (!conf_target(s, &devfn, &reg)) {
        return size == 4 ? UINT32_MAX : (1u << (8 * size)) - 1;
    }
    return pci_bus_config_read(&s->bus, devfn, reg + addr, size);
}

static void conf_data_write(void *opaque, uint64_t addr, uint64_t value,
                            unsigned size)
{
    I440FXHostState *s = opaque;
    uint32_t reg;
    int devfn;

    if (conf_target(s, &devfn, &reg)) {
        pci_bus_config_write(&s->bus, devfn, reg + addr, value, size);
    }
}

static const MemoryRegionOps conf_data_ops = {
    .read = conf_data_read,
    .write = conf_data_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

/* --- the host --- */

PCIBus *i440fx_host_bus(DeviceState *host)
{
    return &((I440FXHostState *)host)->bus;
}

void i440fx_host_holes(DeviceState *host, uint64_t *hole_start,
                       uint64_t *hole_end, uint64_t *hole64_start,
                       uint64_t *hole64_end)
{
    I440FXHostState *s = (I440FXHostState *)host;

    *hole_start = s->hole_start;
    *hole_end = s->hole_end;
    *hole64_start = s->hole64_start;
    *hole64_end = s->hole64_end;
}

void i440fx_host_set_cf9(DeviceState *host, const MemoryRegionOps *ops,
                         void *opaque)
{
    I440FXHostState *s = (I440FXHostState *)host;

    s->cf9_ops = ops;
    s->cf9_opaque = opaque;
}

/*
 * A PCI read nobody claims ends in a master abort: all ones; the write
 * is lost. Below the windows' PCI view of 0xa0000-0xfffff, so that it
 * does not fall through to the RAM under the windows.
 */
static uint64_t legacy_none_read(void *opaque, uint64_t addr, unsigned size)
{
    return size == 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
}

static void legacy_none_write(void *opaque, uint64_t addr, uint64_t value,
                              unsigned size)
{
}

static const MemoryRegionOps legacy_none_ops = {
    .read = legacy_none_read,
    .write = legacy_none_write,
    .valid = { .min_access_size = 1, .max_access_size = 8,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

MemoryRegion *i440fx_host_pci_memory(DeviceState *host)
{
    return &((I440FXHostState *)host)->pci_mem;
}

/* Segment n: 0 is 0xf0000-0xfffff, 1-12 the 16 KiB ones from 0xc0000. */
static void pam_segment_range(unsigned n, uint64_t *start, uint64_t *size)
{
    *start = n == 0 ? 0xf0000 : 0xc0000 + (n - 1) * 0x4000ULL;
    *size = n == 0 ? 0x10000 : 0x4000;
}

/* The windows as function 00.0's PAM and SMRAM registers say. */
static void i440fx_host_update_windows(I440FXHostState *s,
                                       const uint8_t *config)
{
    if (!s->ram) {
        return;
    }
    memory_region_transaction_begin();
    for (unsigned n = 0; n < I440FX_PAM_SEGMENTS; n++) {
        uint8_t reg = config[I440FX_PAM + (n + 1) / 2];

        pam_segment_set(&s->pam[n], n & 1 ? reg : reg >> 4);
    }
    memory_region_set_enabled(&s->smram_pci,
                              !(config[I440FX_SMRAM] & I440FX_SMRAM_D_OPEN));
    memory_region_transaction_commit();
}

bool i440fx_host_map_ram(DeviceState *host, MemoryRegion *ram, Error **errp)
{
    I440FXHostState *s = (I440FXHostState *)host;
    MemoryRegion *sysmem = address_space_root(&address_space_memory);
    unsigned n;

    g_assert(!s->ram);
    memory_region_init_io(&s->legacy_none, "pci-legacy-unassigned",
                          &legacy_none_ops, s,
                          I440FX_LEGACY_END - I440FX_SMRAM_BASE);
    memory_region_init_alias(&s->smram_pci, "smram-region", &s->pci_mem,
                             I440FX_SMRAM_BASE, I440FX_SMRAM_SIZE);
    if (!memory_region_add_subregion(&s->pci_mem, I440FX_SMRAM_BASE,
                                     &s->legacy_none, INT16_MIN, errp) ||
        !memory_region_add_subregion(sysmem, I440FX_SMRAM_BASE,
                                     &s->smram_pci, 1, errp)) {
        memory_region_finalize(&s->smram_pci);
        memory_region_finalize(&s->legacy_none);
        return false;
    }
    for (n = 0; n < I440FX_PAM_SEGMENTS; n++) {
        uint64_t start, size;

        pam_segment_range(n, &start, &size);
        if (!pam_segment_init(&s->pam[n], sysmem, ram, &s->pci_mem, start,
                              size, errp)) {
            while (n--) {
                pam_segment_exit(&s->pam[n]);
            }
            memory_region_finalize(&s->smram_pci);
            memory_region_finalize(&s->legacy_none);
            return false;
        }
    }
    s->ram = ram;
    return true;
}

static void i440fx_host_unmap_ram(I440FXHostState *s)
{
    if (!s->ram) {
        return;
    }
    memory_region_transaction_begin();
    for (unsigned n = 0; n < I440FX_PAM_SEGMENTS; n++) {
        pam_segment_exit(&s->pam[n]);
    }
    memory_region_finalize(&s->smram_pci);
    memory_region_finalize(&s->legacy_none);
    memory_region_transaction_commit();
    s->ram = NULL;
}

static bool i440fx_host_realize(DeviceState *dev, Error **errp)
{
    I440FXHostState *s = (I440FXHostState *)dev;
    MemoryRegion *sysmem = address_space_root(&address_space_memory);
    MemoryRegion *io = address_space_root(&address_space_io);
    const uint64_t gib = 1ULL << 30;

    if (s->below_4g > I440FX_PCI_HOLE_END) {
        error_setg(errp, "i440FX-pcihost: below-4g-mem-size 0x%" PRIx64
                   " reaches into the I/O APIC's page", s->below_4g);
        return false;
    }
    s->hole_start = s->below_4g;
    s->hole_end = I440FX_PCI_HOLE_END;
    s->hole64_start = 0x100000000ULL;
    if (s->above_4g) {
        s->hole64_start = (s->hole64_start + s->above_4g + gib - 1) &
                          ~(gib - 1);
    }
    s->hole64_end = s->hole64_start + s->hole64_size;

    memory_region_init_container(&s->pci_mem, "pci", UINT64_MAX);
    memory_region_init_alias(&s->pci_hole, "pci-hole", &s->pci_mem,
                             s->hole_start, s->hole_end - s->hole_start);
    memory_region_init_alias(&s->pci_hole64, "pci-hole64", &s->pci_mem,
                             s->hole64_start, s->hole64_size);
    memory_region_init_io(&s->conf_idx, "pci-conf-idx", &conf_idx_ops, s, 4);
    memory_region_init_io(&s->conf_data, "pci-conf-data", &conf_data_ops, s,
                          4);
    if (!memory_region_add_subregion(sysmem, 0, &s->pci_mem, -1, errp) ||
        (s->hole_end > s->hole_start &&
         !memory_region_add_subregion(sysmem, s->hole_start, &s->pci_hole, 0,
                                      errp)) ||
        (s->hole64_size &&
         !memory_region_add_subregion(sysmem, s->hole64_start,
                                      &s->pci_hole64, 0, errp)) ||
        !memory_region_add_subregion(io, 0xcf8, &s->conf_idx, 0, errp) ||
        !memory_region_add_subregion(io, 0xcfc, &s->conf_data, 0, errp)) {
        memory_region_finalize(&s->conf_data);
        memory_region_finalize(&s->conf_idx);
        memory_region_finalize(&s->pci_hole64);
        memory_region_finalize(&s->pci_hole);
        memory_region_finalize(&s->pci_mem);
        return false;
    }
    pci_bus_init(&s->bus, "pci.0", &s->pci_mem, io);
    qbus_set_parent(&s->bus.qbus, dev);
    return true;
}

static void i440fx_host_unrealize(DeviceState *dev)
{
    I440FXHostState *s = (I440FXHostState *)dev;

    i440fx_host_unmap_ram(s);
    pci_bus_deinit(&s->bus);
    memory_region_finalize(&s->conf_data);
    memory_region_finalize(&s->conf_idx);
    memory_region_finalize(&s->pci_hole64);
    memory_region_finalize(&s->pci_hole);
    memory_region_finalize(&s->pci_mem);
}

static void i440fx_host_reset(DeviceState *dev)
{
    ((I440FXHostState *)dev)->config_reg = 0;
}

static const Property i440fx_host_props[] = {
    DEFINE_PROP_SIZE("below-4g-mem-size", I440FXHostState, below_4g, 0),
    DEFINE_PROP_SIZE("above-4g-mem-size", I440FXHostState, above_4g, 0),
    DEFINE_PROP_SIZE("pci-hole64-size", I440FXHostState, hole64_size,
                     I440FX_HOST_PROP_PCI_HOLE64_SIZE_DEFAULT),
    DEFINE_PROP_UINT32("pci-hole-start", I440FXHostState, hole_start, 0),
    DEFINE_PROP_UINT32("pci-hole-end", I440FXHostState, hole_end, 0),
    DEFINE_PROP_UINT64("pci-hole64-start", I440FXHostState, hole64_start, 0),
    DEFINE_PROP_UINT64("pci-hole64-end", I440FXHostState, hole64_end, 0),
    DEFINE_PROP_UINT32("short_root_bus", I440FXHostState, short_root_bus, 0),
    DEFINE_PROP_BOOL("x-pci-hole64-fix", I440FXHostState, hole64_fix, true),
    DEFINE_PROP_BOOL("bypass-iommu", I440FXHostState, bypass_iommu, false),
    PROP_END,
};

/* Migration: CONFADD (the PCI devices carry their own config spaces). */
static const VMStateDescription vmstate_i440fx_host = {
    .name = "i440FX-pcihost",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U32(I440FXHostState, config_reg),
        VMSTATE_END
    },
};
const DeviceClass i440fx_host_device_class = {
    .name = "i440FX-pcihost",
    .parent = "sys-bus-device",
    .desc = "i440FX PCI host bridge",
    .category = "Controller/Bridge/Hub devices",
    .instance_size = sizeof(I440FXHostState),
    .props = i440fx_host_props,
    .fw_name = "pci@i0cf8",     /* "pci" at CONFADDR, its first port */
    .realize = i440fx_host_realize,
    .unrealize = i440fx_host_unrealize,
    .reset = i440fx_host_reset,
    .vmsd = &vmstate_i440fx_host,
};

/* --- function 00.0 --- */

/* The host whose bus the function is on: its PAM and SMRAM windows. */
static I440FXHostState *i440fx_host_of(PCIDevice *d)
{
    return d->bus ? (I440FXHostState *)((char *)d->bus -
                                        offsetof(I440FXHostState, bus))
                  : NULL;
}

static void i440fx_update_windows(PCIDevice *d)
{
    I440FXHostState *s = i440fx_host_of(d);

    if (s) {
        i440fx_host_update_windows(s, d->config);
    }
}

static void i440fx_config_write(PCIDevice *d, uint32_t addr, uint32_t val,
                                unsigned len)
{
    pci_default_write_config(d, addr, val, len);
    if (addr < I440FX_SMRAM + 1 && addr + len > I440FX_PAM) {
        i440fx_update_windows(d);
    }
}

static bool i440fx_realize(PCIDevice *d, Error **errp)
{
    d->config[I440FX_DRAMC] = 0x10;
    for (int i = 0; i < I440FX_PAM_SIZE; i++) {
        d->wmask[I440FX_PAM + i] = 0xff;
    }
    d->config[I440FX_SMRAM] = 0x02;
    d->wmask[I440FX_SMRAM] = 0x78;
    return true;
}

static void i440fx_reset(PCIDevice *d)
{
    memset(d->config + I440FX_PAM, 0, I440FX_PAM_SIZE);
    d->config[I440FX_SMRAM] = 0x02;
    i440fx_update_windows(d);
}

static bool i440fx_post_load(void *opaque, unsigned version, Error **errp)
{
    i440fx_update_windows(opaque);
    return true;
}

/* The config space, and the windows it selects once loaded. */
typedef struct I440FXState {
    PCIDevice parent;
} I440FXState;

static const VMStateDescription vmstate_i440fx = {
    .name = "I440FX",
    .version = 1,
    .minimum_version = 1,
    .post_load = i440fx_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(I440FXState, parent, PCIDevice, vmstate_pci_device),
        VMSTATE_END
    },
};

static const Property i440fx_props[] = {
    PCI_DEVICE_PROPS,
    PROP_END,
};

const PCIDeviceClass i440fx_pci_device_class = {
    .parent = {
        .name = "i440FX",
        .desc = "Host bridge",
        .category = "Controller/Bridge/Hub devices",
        .instance_size = sizeof(I440FXState),
        .props = i440fx_props,
        PCI_DEVICE_CLASS_INIT,
        .vmsd = &vmstate_i440fx,
    },
    .vendor_id = PCI_VENDOR_ID_INTEL,
    .device_id = PCI_DEVICE_ID_INTEL_82441,
    .revision = 0x02,
    .class_id = PCI_CLASS_BRIDGE_HOST,
    .realize = i440fx_realize,
    .reset = i440fx_reset,
    .config_write = i440fx_config_write,
};

DEVICE_CLASS_REGISTER(i440fx_host_device_class)

DEVICE_CLASS_REGISTER(i440fx_pci_device_class)
