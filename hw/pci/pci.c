/*
 * The PCI bus (include/hw/pci/pci.h): plugging functions in at their
 * devfn with QEMU's multifunction rules, the configuration space with
 * its write masks, BAR sizing and mapping, INTx.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "qemu/log.h"
#include "system/datadir.h"
#include "vmstate/vmstate.h"

/*
 * QEMU's names for PCI classes (base class and subclass): query-pci's
 * description and the node name in firmware device paths.
 */
static const struct {
    uint16_t class_id;
    const char *desc;
    const char *fw_name;
} pci_class_names[] = {
    { 0x0100, "SCSI controller", "scsi" },
    { 0x0101, "IDE controller", "ide" },
    { 0x0106, "SATA controller", NULL },
    { 0x0180, "Storage controller", NULL },
    { 0x0200, "Ethernet controller", "ethernet" },
    { 0x0280, "Network controller", NULL },
    { 0x0300, "VGA controller", "display" },
    { 0x0380, "Display controller", NULL },
    { 0x0401, "Audio controller", "sound" },
    { 0x0403, "Audio controller", "sound" },
    { 0x0480, "Multimedia controller", NULL },
    { 0x0500, "RAM controller", "memory" },
    { 0x0580, "Memory controller", NULL },
    { 0x0600, "Host bridge", "host" },
    { 0x0601, "ISA bridge", "isa" },
    { 0x0604, "PCI bridge", "pci-bridge" },
    { 0x0680, "Bridge", NULL },
    { 0x0700, "Serial port", "serial" },
    { 0x0701, "Parallel port", "parallel" },
    { 0x0780, "Communication controller", NULL },
    { 0x0800, "Interrupt controller", "interrupt-controller" },
    { 0x0c03, "USB controller", "usb" },
    { 0x0c05, "SMBus", NULL },
};

static int pci_class_index(uint16_t class_id)
{
    for (size_t i = 0; i < G_N_ELEMENTS(pci_class_names); i++) {
        if (pci_class_names[i].class_id == class_id) {
            return i;
        }
    }
    return -1;
}

const char *pci_class_desc(uint16_t class_id)
{
    int i = pci_class_index(class_id);

    return i < 0 ? NULL : pci_class_names[i].desc;
}

/*
 * A function's node in firmware paths: its class's name, or
 * "pciVVVV,DDDD" without one, then "@slot" and ",function" unless 0.
 */
static char *pci_bus_fw_dev_path(const BusState *bus, const DeviceState *dev)
{
    const PCIDevice *d = (const PCIDevice *)dev;
    int i = pci_class_index(pci_get_word(d->config + PCI_CLASS_DEVICE));
    const char *name = i < 0 ? NULL : pci_class_names[i].fw_name;
    char *node = name ? g_strdup(name)
                 : g_strdup_printf("pci%04x,%04x",
                                   pci_get_word(d->config + PCI_VENDOR_ID),
                                   pci_get_word(d->config + PCI_DEVICE_ID));
    char *path;

    if (PCI_FUNC(d->devfn)) {
        path = g_strdup_printf("%s@%x,%x", node, PCI_SLOT(d->devfn),
                               PCI_FUNC(d->devfn));
    } else {
        path = g_strdup_printf("%s@%x", node, PCI_SLOT(d->devfn));
    }
    g_free(node);
    return path;
}

void pci_bus_init(PCIBus *bus, const char *name, MemoryRegion *mem,
                  MemoryRegion *io)
{
    qbus_init(&bus->qbus, name, BUS_TYPE_PCI, &address_space_memory);
    bus->qbus.fw_dev_path = pci_bus_fw_dev_path;
    bus->mem = mem;
    bus->io = io;
}

void pci_bus_deinit(PCIBus *bus)
{
    qbus_deinit(&bus->qbus);
}

void pci_bus_set_irq_router(PCIBus *bus, PCIMapIRQFunc map_irq,
                            PCISetIRQFunc set_irq, void *opaque, int nirq)
{
    g_assert(nirq <= PCI_NUM_PINS);
    bus->map_irq = map_irq;
    bus->set_irq = set_irq;
    bus->irq_opaque = opaque;
    bus->nirq = nirq;
}

PCIBus *pci_bus_default(void)
{
    return (PCIBus *)qbus_find_type(BUS_TYPE_PCI);
}

/* --- BARs --- */

static bool bar_is_64bit(const PCIIORegion *r)
{
    return !(r->type & PCI_BASE_ADDRESS_SPACE_IO) &&
           (r->type & PCI_BASE_ADDRESS_MEM_TYPE_64);
}

static int bar_offset(int n)
{
    return n == PCI_ROM_SLOT ? PCI_ROM_ADDRESS : PCI_BASE_ADDRESS_0 + 4 * n;
}

void pci_register_bar(PCIDevice *d, int n, uint8_t type, MemoryRegion *mr)
{
    PCIIORegion *r = &d->io_regions[n];
    int off = bar_offset(n);
    uint64_t wmask;

    g_assert(n >= 0 && n < PCI_NUM_REGIONS);
    g_assert(mr->size && !(mr->size & (mr->size - 1)));
    r->mr = mr;
    r->size = mr->size;
    r->type = type;
    r->addr = PCI_BAR_UNMAPPED;
    wmask = ~(r->size - 1);
    if (n == PCI_ROM_SLOT) {
        wmask |= PCI_ROM_ADDRESS_ENABLE;
    }
    pci_set_long(d->config + off, type);
    if (bar_is_64bit(r)) {
        g_assert(n < PCI_NUM_BARS - 1);
        pci_set_long(d->wmask + off, wmask & 0xffffffff);
        pci_set_long(d->wmask + off + 4, wmask >> 32);
        pci_set_long(d->config + off + 4, 0);
    } else {
        pci_set_long(d->wmask + off, wmask & 0xffffffff);
    }
}

uint64_t pci_get_bar_addr(const PCIDevice *d, int n)
{
    return d->io_regions[n].addr;
}

/*
 * Where BAR n decodes now: PCI_BAR_UNMAPPED while its space is disabled
 * in the command register, at 0 (no address programmed, as QEMU), or when
 * the range wraps or leaves the 64 KiB of I/O space.
 */
static uint64_t bar_address(const PCIDevice *d, int n)
{
    const PCIIORegion *r = &d->io_regions[n];
    uint16_t cmd = pci_get_word(d->config + PCI_COMMAND);
    int off = bar_offset(n);
    uint64_t addr, last;

    if (r->type & PCI_BASE_ADDRESS_SPACE_IO) {
        if (!(cmd & PCI_COMMAND_IO)) {
            return PCI_BAR_UNMAPPED;
        }
        addr = pci_get_long(d->config + off) & PCI_BASE_ADDRESS_IO_MASK &
               ~(r->size - 1);
        last = addr + r->size - 1;
        if (!addr || last > 0xffff || last < addr) {
            return PCI_BAR_UNMAPPED;
        }
        return addr;
    }
    if (!(cmd & PCI_COMMAND_MEMORY)) {
        return PCI_BAR_UNMAPPED;
    }
    if (n == PCI_ROM_SLOT) {
        uint32_t v = pci_get_long(d->config + off);

        if (!(v & PCI_ROM_ADDRESS_ENABLE)) {
            return PCI_BAR_UNMAPPED;
        }
        addr = v & ~(uint64_t)0x7ff;
    } else {
        addr = pci_get_long(d->config + off);
        if (bar_is_64bit(r)) {
            addr |= (uint64_t)pci_get_long(d->config + off + 4) << 32;
        }
        addr &= PCI_BASE_ADDRESS_MEM_MASK;
    }
    addr &= ~(r->size - 1);
    last = addr + r->size - 1;
    if (!addr || last < addr) {
        return PCI_BAR_UNMAPPED;
    }
    return addr;
}

/* Bring every BAR's mapping in line with the config space. */
static void pci_update_mappings(PCIDevice *d)
{
    for (int n = 0; n < PCI_NUM_REGIONS; n++) {
        PCIIORegion *r = &d->io_regions[n];
        MemoryRegion *space;
        uint64_t addr;

        if (!r->mr) {
            continue;
        }
        addr = bar_address(d, n);
        if (addr == r->addr) {
            continue;
        }
        space = r->type & PCI_BASE_ADDRESS_SPACE_IO ? d->bus->io : d->bus->mem;
        if (addr == PCI_BAR_UNMAPPED) {
            memory_region_del_subregion(space, r->mr);
        } else if (r->addr == PCI_BAR_UNMAPPED) {
            /*
             * Priority 1, above what the board put in the space at 0
             * (ISA ports): BARs may overlap anything; the newest wins.
             */
            Error *err = NULL;

            if (!memory_region_add_subregion(space, addr, r->mr, 1, &err)) {
                /* Only a range past the container's end gets here. */
                qemu_log_mask(LOG_GUEST_ERROR, "%s: BAR %d at 0x%" PRIx64
                              " not mapped: %s\n", d->qdev.dc->name, n, addr,
                              error_get_pretty(err));
                error_free(err);
                addr = PCI_BAR_UNMAPPED;
            }
        } else {
            memory_region_set_address(r->mr, addr);
        }
        r->addr = addr;
    }
}

static void pci_unmap_all(PCIDevice *d)
{
    for (int n = 0; n < PCI_NUM_REGIONS; n++) {
        PCIIORegion *r = &d->io_regions[n];

        if (r->mr && r->addr != PCI_BAR_UNMAPPED) {
            memory_region_del_subregion(r->type & PCI_BASE_ADDRESS_SPACE_IO
                                        ? d->bus->io : d->bus->mem, r->mr);
            r->addr = PCI_BAR_UNMAPPED;
        }
    }
}

/* --- the option ROM --- */

static uint64_t pci_rom_read(void *opaque, uint64_t addr, unsigned size)
{
    PCIDevice *d = opaque;
    uint64_t v = 0;

    for (unsigned i = 0; i < size; i++) {
        if (addr + i < d->rom_len) {
            v |= (uint64_t)d->rom[addr + i] << (8 * i);
        }
    }
    return v;
}

static void pci_rom_write(void *opaque, uint64_t addr, uint64_t val,
                          unsigned size)
{
    /* Read-only memory: the write goes nowhere. */
}

static const MemoryRegionOps pci_rom_ops = {
    .read = pci_rom_read,
    .write = pci_rom_write,
    .valid = { .min_access_size = 1, .max_access_size = 8,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

const uint8_t *pci_get_rom(const PCIDevice *d, size_t *len)
{
    *len = d->rom_len;
    return d->rom;
}

static uint32_t pow2_ceil32(uint32_t v)
{
    uint32_t p = 1;

    while (p < v) {
        p <<= 1;
    }
    return p;
}

/*
 * romfile=NAME (the class's by default; empty: none), found in the
 * firmware search path or as given; the ROM BAR is romsize= bytes, or
 * the file's size rounded up to a power of two. QEMU's messages.
 */
static bool pci_add_option_rom(PCIDevice *d, Error **errp)
{
    const char *name = d->romfile;
    char *path;
    off_t len;
    int fd;

    if (d->romsize != UINT32_MAX && (d->romsize & (d->romsize - 1))) {
        error_setg(errp, "ROM size %u is not a power of two", d->romsize);
        return false;
    }
    if (!name || !*name) {
        return true;
    }
    path = qemu_find_file(name);
    fd = open(path ? path : name, O_RDONLY | O_CLOEXEC);
    g_free(path);
    /* The size as QEMU takes it: where the end is (0 for a device). */
    len = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
    if (len < 0) {
        if (fd >= 0) {
            close(fd);
        }
        if (!d->rombar) {
            /* QEMU goes on without it: the firmware would get it by fw_cfg. */
            warn_report("Could not open option rom '%s'", name);
            return true;
        }
        error_setg(errp, "failed to find romfile \"%s\"", name);
        return false;
    }
    if (!len || len > (1LL << 31) ||
        (d->romsize != UINT32_MAX && len > d->romsize)) {
        close(fd);
        if (!len) {
            error_setg(errp, "romfile \"%s\" is empty", name);
        } else if (len > (1LL << 31)) {
            error_setg(errp, "romfile \"%s\" too large (size cannot exceed "
                       "2 GiB)", name);
        } else {
            error_setg(errp, "romfile \"%s\" (%u bytes) is too large for "
                       "ROM size %u", name, (unsigned)len, d->romsize);
        }
        return false;
    }
    d->rom = g_malloc(len);
    if (pread(fd, d->rom, len, 0) != len) {
        close(fd);
        g_clear_pointer(&d->rom, g_free);
        error_setg(errp, "failed to load romfile \"%s\"", name);
        return false;
    }
    close(fd);
    d->rom_len = len;
    if (d->romsize == UINT32_MAX) {
        d->romsize = pow2_ceil32(len);
    }
    if (d->rombar) {
        memory_region_init_io(&d->rom_mr, "pci-rom", &pci_rom_ops, d,
                              d->romsize);
        pci_register_bar(d, PCI_ROM_SLOT, 0, &d->rom_mr);
    }
    return true;
}

static void pci_del_option_rom(PCIDevice *d)
{
    if (d->io_regions[PCI_ROM_SLOT].mr == &d->rom_mr) {
        memory_region_finalize(&d->rom_mr);
        d->io_regions[PCI_ROM_SLOT].mr = NULL;
    }
    g_clear_pointer(&d->rom, g_free);
    d->rom_len = 0;
}

/* --- INTx --- */

static int pci_intx_pin(const PCIDevice *d)
{
    return d->config[PCI_INTERRUPT_PIN] - 1;    /* -1: no pin */
}

static void pci_bus_change_irq(PCIDevice *d, int change)
{
    PCIBus *bus = d->bus;
    int irq;

    if (!bus->map_irq || pci_intx_pin(d) < 0) {
        return;
    }
    irq = bus->map_irq(bus->irq_opaque, d->devfn, pci_intx_pin(d));
    g_assert(irq >= 0 && irq < bus->nirq);
    bus->irq_count[irq] += change;
    g_assert(bus->irq_count[irq] >= 0);
    bus->set_irq(bus->irq_opaque, irq, bus->irq_count[irq] != 0);
}

/* What reaches the bus: the level unless INTx is disabled. */
static int pci_intx_seen(const PCIDevice *d)
{
    return d->intx_level &&
           !(pci_get_word(d->config + PCI_COMMAND) & PCI_COMMAND_INTX_DISABLE);
}

static void pci_intx_update(PCIDevice *d, int old_seen)
{
    int seen = pci_intx_seen(d);

    if (d->intx_level) {
        d->config[PCI_STATUS] |= PCI_STATUS_INTERRUPT;
    } else {
        d->config[PCI_STATUS] &= ~PCI_STATUS_INTERRUPT;
    }
    if (seen != old_seen) {
        pci_bus_change_irq(d, seen ? 1 : -1);
    }
}

void pci_set_irq(PCIDevice *d, int level)
{
    int old_seen = pci_intx_seen(d);

    d->intx_level = level != 0;
    pci_intx_update(d, old_seen);
}

uint8_t pci_add_capability(PCIDevice *d, uint8_t id, uint8_t offset,
                           uint8_t size)
{
    g_assert(offset >= PCI_CONFIG_HEADER_SIZE &&
             offset + size <= PCI_CONFIG_SPACE_SIZE);
    d->config[offset + PCI_CAP_LIST_ID] = id;
    d->config[offset + PCI_CAP_LIST_NEXT] = d->config[PCI_CAPABILITY_LIST];
    d->config[PCI_CAPABILITY_LIST] = offset;
    pci_set_word(d->config + PCI_STATUS,
                 pci_get_word(d->config + PCI_STATUS) | PCI_STATUS_CAP_LIST);
    /* Read-only unless the capability's code opens bits. */
    memset(d->wmask + offset, 0, size);
    return offset;
}

bool pci_dma_rw(PCIDevice *d, uint64_t addr, void *buf, uint64_t len,
                bool is_write)
{
    if (!(pci_get_word(d->config + PCI_COMMAND) & PCI_COMMAND_MASTER)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: DMA with bus mastering off\n",
                      d->qdev.dc->name);
        if (!is_write) {
            memset(buf, 0xff, len);
        }
        return false;
    }
    return address_space_rw(&address_space_memory, addr, buf, len, is_write);
}

/* --- configuration space --- */

uint32_t pci_default_read_config(PCIDevice *d, uint32_t addr, unsigned len)
{
    uint32_t v = 0;

    for (unsigned i = 0; i < len; i++) {
        v |= (uint32_t)d->config[addr + i] << (8 * i);
    }
    return v;
}

void pci_default_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                              unsigned len)
{
    int old_seen = pci_intx_seen(d);
    bool bars = false;

    for (unsigned i = 0; i < len; i++) {
        uint32_t a = addr + i;
        uint8_t b = val >> (8 * i);
        uint8_t w = d->wmask[a], c = d->w1cmask[a];

        d->config[a] = (d->config[a] & ~w) | (b & w);
        d->config[a] &= ~(b & c);
        if ((a >= PCI_BASE_ADDRESS_0 && a < PCI_BASE_ADDRESS_0 + 24) ||
            (a >= PCI_ROM_ADDRESS && a < PCI_ROM_ADDRESS + 4) ||
            a == PCI_COMMAND) {
            bars = true;
        }
    }
    if (bars) {
        pci_update_mappings(d);
    }
    if (addr <= PCI_COMMAND + 1 && addr + len > PCI_COMMAND + 1) {
        pci_intx_update(d, old_seen);
    }
    msi_write_config(d, addr, len);
    msix_write_config(d, addr, len);
}

static bool config_access_ok(uint32_t addr, unsigned len)
{
    return (len == 1 || len == 2 || len == 4) && !(addr & (len - 1)) &&
           addr + len <= PCI_CONFIG_SPACE_SIZE;
}

uint32_t pci_bus_config_read(PCIBus *bus, int devfn, uint32_t addr,
                             unsigned len)
{
    PCIDevice *d = devfn >= 0 && devfn < PCI_DEVFN_MAX ? bus->devices[devfn]
                                                        : NULL;
    const PCIDeviceClass *pc;

    if (!d || !config_access_ok(addr, len)) {
        return len == 4 ? UINT32_MAX : (1u << (8 * len)) - 1;
    }
    pc = pci_device_class(d);
    return pc->config_read ? pc->config_read(d, addr, len)
                           : pci_default_read_config(d, addr, len);
}

void pci_bus_config_write(PCIBus *bus, int devfn, uint32_t addr,
                          uint32_t val, unsigned len)
{
    PCIDevice *d = devfn >= 0 && devfn < PCI_DEVFN_MAX ? bus->devices[devfn]
                                                        : NULL;
    const PCIDeviceClass *pc;

    if (!d || !config_access_ok(addr, len)) {
        return;
    }
    pc = pci_device_class(d);
    if (pc->config_write) {
        pc->config_write(d, addr, val, len);
    } else {
        pci_default_write_config(d, addr, val, len);
    }
}

/* The standard header's writable bits, as QEMU sets them. */
static void pci_config_init(PCIDevice *d)
{
    const PCIDeviceClass *pc = pci_device_class(d);

    memset(d->config, 0, sizeof(d->config));
    memset(d->wmask, 0, sizeof(d->wmask));
    memset(d->w1cmask, 0, sizeof(d->w1cmask));
    pci_set_word(d->config + PCI_VENDOR_ID, pc->vendor_id);
    pci_set_word(d->config + PCI_DEVICE_ID, pc->device_id);
    d->config[PCI_REVISION_ID] = pc->revision;
    pci_set_word(d->config + PCI_CLASS_DEVICE, pc->class_id);
    pci_set_word(d->config + PCI_SUBSYSTEM_VENDOR_ID,
                 pc->subsystem_vendor_id ? pc->subsystem_vendor_id
                                         : PCI_SUBVENDOR_ID_REDHAT_QUMRANET);
    pci_set_word(d->config + PCI_SUBSYSTEM_ID,
                 pc->subsystem_vendor_id ? pc->subsystem_id
                                         : PCI_SUBDEVICE_ID_QEMU);
    if (d->multifunction) {
        d->config[PCI_HEADER_TYPE] = PCI_HEADER_TYPE_MULTI_FUNCTION;
    }
    pci_set_word(d->wmask + PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY |
                 PCI_COMMAND_MASTER | PCI_COMMAND_SERR |
                 PCI_COMMAND_INTX_DISABLE);
    d->wmask[PCI_CACHE_LINE_SIZE] = 0xff;
    d->wmask[PCI_LATENCY_TIMER] = 0xff;
    d->wmask[PCI_INTERRUPT_LINE] = 0xff;
    /* The status register's error bits are write-1-to-clear. */
    pci_set_word(d->w1cmask + PCI_STATUS, 0xf900);
    memset(d->wmask + PCI_CONFIG_HEADER_SIZE, 0xff,
           PCI_CONFIG_SPACE_SIZE - PCI_CONFIG_HEADER_SIZE);
}

/* QEMU's rules for functions of one slot, with its messages. */
static bool pci_check_multifunction(PCIBus *bus, PCIDevice *d, Error **errp)
{
    int slot = PCI_SLOT(d->devfn), fn = PCI_FUNC(d->devfn);
    PCIDevice *f0 = bus->devices[PCI_DEVFN(slot, 0)];

    if (fn && f0 && !f0->multifunction) {
        error_setg(errp, "PCI: single function device can't be populated "
                   "in function %x.%x", slot, fn);
        return false;
    }
    if (!fn && !d->multifunction) {
        for (int i = 1; i < PCI_FUNC_MAX; i++) {
            if (bus->devices[PCI_DEVFN(slot, i)]) {
                error_setg(errp, "PCI: %x.0 indicates single function, but "
                           "%x.%x is already populated.", slot, slot, i);
                return false;
            }
        }
    }
    return true;
}

static bool pci_plug(PCIBus *bus, PCIDevice *d, Error **errp)
{
    const char *name = d->qdev.dc->name;

    if (d->devfn < 0) {
        for (int devfn = 0; devfn < PCI_DEVFN_MAX; devfn += PCI_FUNC_MAX) {
            if (!bus->devices[devfn]) {
                d->devfn = devfn;
                break;
            }
        }
        if (d->devfn < 0) {
            error_setg(errp, "PCI: no slot/function available for %s, all "
                       "in use or reserved", name);
            return false;
        }
    } else if (bus->devices[d->devfn]) {
        PCIDevice *o = bus->devices[d->devfn];

        error_setg(errp, "PCI: slot %d function %d not available for %s, in "
                   "use by %s,id=%s", PCI_SLOT(d->devfn), PCI_FUNC(d->devfn),
                   name, o->qdev.dc->name, o->qdev.id ? o->qdev.id : "(null)");
        return false;
    }
    if (!pci_check_multifunction(bus, d, errp)) {
        return false;
    }
    bus->devices[d->devfn] = d;
    d->bus = bus;
    return true;
}

bool pci_device_realize(DeviceState *dev, Error **errp)
{
    PCIDevice *d = (PCIDevice *)dev;
    const PCIDeviceClass *pc = pci_device_class(d);

    if (!dev->bus) {
        error_setg(errp, "No '%s' bus found for device '%s'", BUS_TYPE_PCI,
                   dev->dc->name);
        return false;
    }
    for (int n = 0; n < PCI_NUM_REGIONS; n++) {
        d->io_regions[n].addr = PCI_BAR_UNMAPPED;
    }
    if (!pci_plug((PCIBus *)dev->bus, d, errp)) {
        return false;
    }
    pci_config_init(d);
    if (!d->romfile && pc->romfile) {
        d->romfile = g_strdup(pc->romfile);
    }
    if (pc->realize && !pc->realize(d, errp)) {
        d->bus->devices[d->devfn] = NULL;
        d->bus = NULL;
        return false;
    }
    if (!pci_add_option_rom(d, errp)) {
        if (pc->exit) {
            pc->exit(d);
        }
        d->bus->devices[d->devfn] = NULL;
        d->bus = NULL;
        return false;
    }
    return true;
}

void pci_device_unrealize(DeviceState *dev)
{
    PCIDevice *d = (PCIDevice *)dev;
    const PCIDeviceClass *pc = pci_device_class(d);

    if (!d->bus) {
        return;
    }
    pci_set_irq(d, 0);
    pci_unmap_all(d);
    if (pc->exit) {
        pc->exit(d);
    }
    pci_del_option_rom(d);
    d->bus->devices[d->devfn] = NULL;
    d->bus = NULL;
}

/*
 * Reset: command and status cleared, BARs and the interrupt line back to
 * 0 (the BARs' type bits stay), INTx lowered; then the device's own.
 */
void pci_device_reset(DeviceState *dev)
{
    PCIDevice *d = (PCIDevice *)dev;
    const PCIDeviceClass *pc = pci_device_class(d);

    pci_set_irq(d, 0);
    pci_set_word(d->config + PCI_COMMAND, 0);
    d->config[PCI_STATUS] &= ~PCI_STATUS_INTERRUPT;
    pci_set_word(d->config + PCI_STATUS,
                 pci_get_word(d->config + PCI_STATUS) & ~0xf900);
    d->config[PCI_CACHE_LINE_SIZE] = 0;
    d->config[PCI_LATENCY_TIMER] = 0;
    d->config[PCI_INTERRUPT_LINE] = 0;
    for (int n = 0; n < PCI_NUM_REGIONS; n++) {
        PCIIORegion *r = &d->io_regions[n];
        int off = bar_offset(n);

        if (!r->mr) {
            continue;
        }
        pci_set_long(d->config + off, r->type);
        if (bar_is_64bit(r)) {
            pci_set_long(d->config + off + 4, 0);
        }
    }
    pci_update_mappings(d);
    msi_reset(d);
    msix_reset(d);
    if (pc->reset) {
        pc->reset(d);
    }
}

/* --- migration -------------------------------------------------------- */

/*
 * The stream's config space may differ from this device's only where
 * the guest can write (wmask, w1cmask) or the device itself sets bits
 * (the interrupt status, MSI pending bits): anything else (IDs, BAR
 * types, capability layout) means another device or a forged stream.
 */
static bool pci_config_check(void *opaque, const VMStateField *f,
                             Error **errp)
{
    PCIDevice *d = opaque;
    uint16_t vendor = pci_get_word(d->config_in + PCI_VENDOR_ID);
    uint16_t device = pci_get_word(d->config_in + PCI_DEVICE_ID);
    uint16_t my_vendor = pci_get_word(d->config + PCI_VENDOR_ID);
    uint16_t my_device = pci_get_word(d->config + PCI_DEVICE_ID);
    uint8_t dev_bits[PCI_CONFIG_SPACE_SIZE] = { 0 };

    if (vendor != my_vendor || device != my_device) {
        error_setg(errp, "device %04x:%04x, this one is %04x:%04x", vendor,
                   device, my_vendor, my_device);
        return false;
    }
    dev_bits[PCI_STATUS] = PCI_STATUS_INTERRUPT;
    msi_device_bits(d, dev_bits);
    for (unsigned i = 0; i < PCI_CONFIG_SPACE_SIZE; i++) {
        uint8_t ro = ~(d->wmask[i] | d->w1cmask[i] | dev_bits[i]);

        if ((d->config_in[i] ^ d->config[i]) & ro) {
            error_setg(errp, "byte 0x%02x is 0x%02x, but its read-only bits "
                       "are 0x%02x here (mask 0x%02x)", i, d->config_in[i],
                       d->config[i] & ro, ro);
            return false;
        }
    }
    memcpy(d->config, d->config_in, sizeof(d->config));
    return true;
}

static int pci_pre_save(void *opaque)
{
    PCIDevice *d = opaque;

    memcpy(d->config_in, d->config, sizeof(d->config));
    return 0;
}

static bool pci_post_load(void *opaque, unsigned version, Error **errp)
{
    pci_update_mappings(opaque);
    return true;
}

const VMStateDescription vmstate_pci_device = {
    .name = "pci-device",
    .version = 1,
    .minimum_version = 1,
    .pre_save = pci_pre_save,
    .post_load = pci_post_load,
    .fields = (const VMStateField[]) {
        { .name = "config", .offset = offsetof(PCIDevice, config_in),
          .type = VMS_BUFFER, .count = 1, .size = PCI_CONFIG_SPACE_SIZE,
          .check = pci_config_check },
        VMSTATE_INT(PCIDevice, intx_level, VMS_RANGE(0, 1)),
        VMSTATE_END
    },
    .subsections = (const VMStateDescription *const[]) {
        &vmstate_pci_msix, NULL
    },
};
