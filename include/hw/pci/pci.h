/*
 * PCI (PCI Local Bus 3.0, conventional): a bus of 32 slots with 8
 * functions each, a function's 256-byte configuration space, its BARs
 * mapped into the bus's memory and I/O spaces through the memory API
 * while the command register enables them, and INTx lines that the
 * host bridge's router (the PIIX3 on the pc) turns into ISA IRQs.
 *
 * A PCI device's state starts with PCIDevice; its class starts with a
 * DeviceClass whose realize/unrealize/reset are pci_device_realize() and
 * friends (PCI_DEVICE_CLASS_INIT), which plug it into the bus at its
 * "addr" and call the PCI-level hooks of PCIDeviceClass.
 */
#ifndef HW_PCI_PCI_H
#define HW_PCI_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/bus.h"
#include "hw/irq.h"
#include "hw/qdev.h"
#include "system/memory.h"

#define PCI_CONFIG_SPACE_SIZE   0x100
#define PCI_SLOT_MAX            32
#define PCI_FUNC_MAX            8
#define PCI_DEVFN_MAX           256
#define PCI_NUM_PINS            4       /* INTA#..INTD# */
#define PCI_NUM_BARS            6
#define PCI_ROM_SLOT            6
#define PCI_NUM_REGIONS         7       /* the BARs and the ROM */

#define PCI_DEVFN(slot, fn)     ((((slot) & 0x1f) << 3) | ((fn) & 7))
#define PCI_SLOT(devfn)         (((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn)         ((devfn) & 7)

/* Type 0 configuration header. */
#define PCI_VENDOR_ID           0x00
#define PCI_DEVICE_ID           0x02
#define PCI_COMMAND             0x04
#define PCI_STATUS              0x06
#define PCI_REVISION_ID         0x08
#define PCI_CLASS_PROG          0x09
#define PCI_CLASS_DEVICE        0x0a
#define PCI_CACHE_LINE_SIZE     0x0c
#define PCI_LATENCY_TIMER       0x0d
#define PCI_HEADER_TYPE         0x0e
#define PCI_BASE_ADDRESS_0      0x10
#define PCI_SUBSYSTEM_VENDOR_ID 0x2c
#define PCI_SUBSYSTEM_ID        0x2e
#define PCI_ROM_ADDRESS         0x30
#define PCI_CAPABILITY_LIST     0x34
#define PCI_INTERRUPT_LINE      0x3c
#define PCI_INTERRUPT_PIN       0x3d
#define PCI_CONFIG_HEADER_SIZE  0x40

#define PCI_COMMAND_IO          0x0001
#define PCI_COMMAND_MEMORY      0x0002
#define PCI_COMMAND_MASTER      0x0004
#define PCI_COMMAND_SERR        0x0100
#define PCI_COMMAND_INTX_DISABLE 0x0400
#define PCI_STATUS_INTERRUPT    0x0008
#define PCI_STATUS_CAP_LIST     0x0010
#define PCI_STATUS_DEVSEL_MEDIUM 0x0200
#define PCI_HEADER_TYPE_MULTI_FUNCTION 0x80

#define PCI_BASE_ADDRESS_SPACE_IO       0x01
#define PCI_BASE_ADDRESS_MEM_TYPE_64    0x04
#define PCI_BASE_ADDRESS_MEM_PREFETCH   0x08
#define PCI_BASE_ADDRESS_IO_MASK        (~0x03ULL)
#define PCI_BASE_ADDRESS_MEM_MASK       (~0x0fULL)
#define PCI_ROM_ADDRESS_ENABLE          0x01

#define PCI_CAP_LIST_ID         0
#define PCI_CAP_LIST_NEXT       1
#define PCI_CAP_ID_MSI          0x05
#define PCI_CAP_ID_VNDR         0x09
#define PCI_CAP_ID_MSIX         0x11

#define PCI_BAR_UNMAPPED        UINT64_MAX

#define PCI_VENDOR_ID_INTEL     0x8086
#define PCI_VENDOR_ID_REDHAT_QUMRANET 0x1af4
#define PCI_VENDOR_ID_REDHAT    0x1b36
#define PCI_SUBVENDOR_ID_REDHAT_QUMRANET 0x1af4
#define PCI_SUBDEVICE_ID_QEMU   0x1100

#define PCI_CLASS_OTHERS        0x00ff
#define PCI_CLASS_BRIDGE_HOST   0x0600
#define PCI_CLASS_BRIDGE_ISA    0x0601

typedef struct PCIBus PCIBus;
typedef struct PCIDevice PCIDevice;

typedef struct PCIIORegion {
    MemoryRegion *mr;           /* NULL: this BAR is not implemented */
    uint64_t size;              /* a power of two */
    uint8_t type;               /* the BAR's low bits (I/O, 64-bit, pref.) */
    uint64_t addr;              /* where mapped, or PCI_BAR_UNMAPPED */
} PCIIORegion;

struct PCIDevice {
    DeviceState qdev;
    PCIBus *bus;
    /* Properties (PCI_DEVICE_PROPS). */
    int32_t devfn;              /* "addr": -1 picks the first free slot */
    bool multifunction;
    uint32_t rombar;
    uint32_t romsize;
    uint32_t acpi_index;
    char *romfile;
    char *failover_pair_id;
    bool x_pcie_lnksta_dllla;
    bool x_pcie_extcap_init;
    /* Configuration space, what the guest may write, write-1-to-clear. */
    uint8_t config[PCI_CONFIG_SPACE_SIZE];
    uint8_t wmask[PCI_CONFIG_SPACE_SIZE];
    uint8_t w1cmask[PCI_CONFIG_SPACE_SIZE];
    /* A migration stream's config space, checked before it is taken. */
    uint8_t config_in[PCI_CONFIG_SPACE_SIZE];
    PCIIORegion io_regions[PCI_NUM_REGIONS];
    int intx_level;             /* what the device asserts on its pin */
    /* MSI (hw/pci/msi.c): the capability's offset (0: none). */
    uint8_t msi_cap;
    uint8_t msi_vectors;
    /* MSI-X (hw/pci/msix.c): the capability's offset and the tables. */
    uint8_t msix_cap;
    struct MSIXState *msix;
    /* The option ROM (romfile=), behind the ROM BAR unless rombar=0. */
    uint8_t *rom;
    size_t rom_len;             /* the file's bytes; the rest reads 0 */
    MemoryRegion rom_mr;
};

typedef struct PCIDeviceClass {
    DeviceClass parent;         /* first: dev->dc is one of these */
    uint16_t vendor_id;
    uint16_t device_id;
    uint8_t revision;
    uint16_t class_id;
    uint16_t subsystem_vendor_id;   /* 0: QEMU's 1af4:1100 */
    uint16_t subsystem_id;
    /* The romfile= a device gets by default (QEMU's), or NULL. */
    const char *romfile;
    /* The device's own part of realize/unrealize/reset; may be NULL. */
    bool (*realize)(PCIDevice *d, Error **errp);
    void (*exit)(PCIDevice *d);
    void (*reset)(PCIDevice *d);
    /* Config space hooks; NULL means the defaults below. */
    uint32_t (*config_read)(PCIDevice *d, uint32_t addr, unsigned len);
    void (*config_write)(PCIDevice *d, uint32_t addr, uint32_t val,
                         unsigned len);
} PCIDeviceClass;

bool pci_device_realize(DeviceState *dev, Error **errp);
void pci_device_unrealize(DeviceState *dev);
void pci_device_reset(DeviceState *dev);

/*
 * The migratable state common to PCI devices (config space, INTx level),
 * for a class's own table (or its vmsd when it has nothing else).
 */
struct VMStateDescription;
extern const struct VMStateDescription vmstate_pci_device;

#define PCI_DEVICE_CLASS_INIT \
    .parent = "pci-device", \
    .realize = pci_device_realize, \
    .unrealize = pci_device_unrealize, \
    .reset = pci_device_reset

/* QEMU's properties of every PCI device; put them after a device's own. */
#define PCI_DEVICE_PROPS \
    { .name = "acpi-index", .type = PROP_TYPE_UINT32, \
      .offset = offsetof(PCIDevice, acpi_index) }, \
    { .name = "addr", .type = PROP_TYPE_PCI_DEVFN, \
      .offset = offsetof(PCIDevice, devfn), .defval = (uint64_t)-1, \
      .description = "Slot and optional function number, example: 06.0 " \
                     "or 06" }, \
    { .name = "failover_pair_id", .type = PROP_TYPE_STRING, \
      .offset = offsetof(PCIDevice, failover_pair_id) }, \
    { .name = "multifunction", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(PCIDevice, multifunction), \
      .description = "on/off" }, \
    { .name = "rombar", .type = PROP_TYPE_UINT32, \
      .offset = offsetof(PCIDevice, rombar), .defval = 1 }, \
    { .name = "romfile", .type = PROP_TYPE_STRING, \
      .offset = offsetof(PCIDevice, romfile) }, \
    { .name = "romsize", .type = PROP_TYPE_UINT32, \
      .offset = offsetof(PCIDevice, romsize), .defval = UINT32_MAX }, \
    { .name = "x-pcie-extcap-init", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(PCIDevice, x_pcie_extcap_init), .defval = 1, \
      .description = "on/off" }, \
    { .name = "x-pcie-lnksta-dllla", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(PCIDevice, x_pcie_lnksta_dllla), .defval = 1, \
      .description = "on/off" }

static inline const PCIDeviceClass *pci_device_class(const PCIDevice *d)
{
    return (const PCIDeviceClass *)d->qdev.dc;
}

/*
 * The host bridge's INTx router: pin (0 = INTA#) of devfn drives one of
 * nirq lines; set_irq gets the line's new level (any device asserting).
 */
typedef int (*PCIMapIRQFunc)(void *opaque, int devfn, int pin);
typedef void (*PCISetIRQFunc)(void *opaque, int irq, int level);

struct PCIBus {
    BusState qbus;              /* first: "pci.0" in the bus registry */
    MemoryRegion *mem;          /* the PCI memory space (a container) */
    MemoryRegion *io;           /* the PCI I/O space (a container) */
    PCIDevice *devices[PCI_DEVFN_MAX];
    PCIMapIRQFunc map_irq;
    PCISetIRQFunc set_irq;
    void *irq_opaque;
    int nirq;
    int irq_count[PCI_NUM_PINS];    /* devices asserting each line */
};

void pci_bus_init(PCIBus *bus, const char *name, MemoryRegion *mem,
                  MemoryRegion *io);
void pci_bus_deinit(PCIBus *bus);
void pci_bus_set_irq_router(PCIBus *bus, PCIMapIRQFunc map_irq,
                            PCISetIRQFunc set_irq, void *opaque, int nirq);
/* The first PCI bus (pci.0), or NULL on a machine without PCI. */
PCIBus *pci_bus_default(void);
/* QEMU's description of a class ("SCSI controller"), or NULL. */
const char *pci_class_desc(uint16_t class_id);

/* Configuration cycles as the host bridge forwards them (len 1, 2, 4). */
uint32_t pci_bus_config_read(PCIBus *bus, int devfn, uint32_t addr,
                             unsigned len);
void pci_bus_config_write(PCIBus *bus, int devfn, uint32_t addr,
                          uint32_t val, unsigned len);
/* What a device's config hooks fall back to. */
uint32_t pci_default_read_config(PCIDevice *d, uint32_t addr, unsigned len);
void pci_default_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                              unsigned len);

/*
 * The device's option ROM, as its romfile= names it (found through the
 * firmware search path): its bytes and length, or NULL when it has
 * none. With rombar=1 it is also behind the expansion ROM BAR.
 */
const uint8_t *pci_get_rom(const PCIDevice *d, size_t *len);

/* A BAR over mr (size a power of two), type its low bits. */
void pci_register_bar(PCIDevice *d, int n, uint8_t type, MemoryRegion *mr);
/* The BAR's current guest address, or PCI_BAR_UNMAPPED. */
uint64_t pci_get_bar_addr(const PCIDevice *d, int n);
/* Level on the device's INTx pin (PCI_INTERRUPT_PIN; none: ignored). */
void pci_set_irq(PCIDevice *d, int level);
/*
 * Add capability id of size bytes at offset (in the device-specific
 * area, 0x40 up) to the front of the capability list; the caller fills
 * its body. Returns offset.
 */
uint8_t pci_add_capability(PCIDevice *d, uint8_t id, uint8_t offset,
                           uint8_t size);
/*
 * The device as bus master reads or writes guest memory: nothing
 * happens unless the command register enables bus mastering. False
 * when mastering is off or part of the range is not mapped.
 */
bool pci_dma_rw(PCIDevice *d, uint64_t addr, void *buf, uint64_t len,
                bool is_write);

/* QMP query-pci (hw/pci/pci-monitor.c). */

/* Little-endian config space accessors. */
static inline void pci_set_byte(uint8_t *p, uint8_t v)
{
    p[0] = v;
}

static inline void pci_set_word(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static inline void pci_set_long(uint8_t *p, uint32_t v)
{
    pci_set_word(p, v);
    pci_set_word(p + 2, v >> 16);
}

static inline uint16_t pci_get_word(const uint8_t *p)
{
    return p[0] | (p[1] << 8);
}

static inline uint32_t pci_get_long(const uint8_t *p)
{
    return pci_get_word(p) | ((uint32_t)pci_get_word(p + 2) << 16);
}

#endif
