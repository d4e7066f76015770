/*
 * PIIX3 PCI-to-ISA bridge (Intel 82371SB), function 01.0 on QEMU's pc:
 * 8086:7000, ISA bridge class, multifunction header, with the register
 * reset values of the datasheet that QEMU shows.
 *
 * It routes PCI interrupts: the pin of the device in slot S, INTA#
 * being 0, drives PIRQ (S + pin - 1) mod 4 (QEMU's pc), and PIRQRC
 * A-D (config 0x60-0x63) steer each PIRQ to an ISA IRQ: bit 7 set
 * disables the routing, bits 3-0 name the IRQ. An ISA IRQ is asserted
 * while any PIRQ routed to it is. The ISA devices sit behind it on
 * isa.0 (the board's).
 *
 * Its reset control register (0xcf9) is acpi-pm's, which the FADT names
 * as the reset register; the host bridge forwards that port to it.
 */
#include "hw/isa.h"
#include "hw/pci-host/piix3.h"
#include "hw/pci/pci.h"
#include "vmstate/vmstate.h"

#define PIIX_PIRQRC             0x60
#define PIIX_NUM_PIRQS          4
#define PIIX_PIRQ_DISABLE       0x80
#define PIIX_PIRQ_IRQ_MASK      0x0f

#define PCI_DEVICE_ID_INTEL_82371SB_0 0x7000

typedef struct PIIX3State {
    PCIDevice parent;
    int pirq_level[PIIX_NUM_PIRQS];
    uint16_t isa_asserted;      /* ISA IRQs this bridge drives high */
} PIIX3State;

/* Register reset values (82371SB datasheet, as QEMU sets them). */
static const struct {
    uint8_t reg, value;
} piix3_reset_values[] = {
    { 0x4c, 0x4d }, { 0x4e, 0x03 }, { 0x4f, 0x00 },
    { 0x60, 0x80 }, { 0x61, 0x80 }, { 0x62, 0x80 }, { 0x63, 0x80 },
    { 0x69, 0x02 }, { 0x70, 0x80 }, { 0x76, 0x0c }, { 0x77, 0x0c },
    { 0x78, 0x02 }, { 0x79, 0x00 }, { 0x80, 0x00 }, { 0x82, 0x00 },
    { 0xa0, 0x08 }, { 0xa2, 0x00 }, { 0xa3, 0x00 }, { 0xa4, 0x00 },
    { 0xa5, 0x00 }, { 0xa6, 0x00 }, { 0xa7, 0x00 }, { 0xa8, 0x0f },
    { 0xaa, 0x00 }, { 0xab, 0x00 }, { 0xac, 0x00 }, { 0xae, 0x00 },
};

uint16_t piix3_route_pirqs(const uint8_t *pirqrc, const int *pirq_level)
{
    uint16_t mask = 0;

    for (int i = 0; i < PIIX_NUM_PIRQS; i++) {
        if (pirq_level[i] && !(pirqrc[i] & PIIX_PIRQ_DISABLE)) {
            mask |= 1u << (pirqrc[i] & PIIX_PIRQ_IRQ_MASK);
        }
    }
    return mask;
}

static void piix3_update_isa_irqs(PIIX3State *s)
{
    uint16_t mask = piix3_route_pirqs(s->parent.config + PIIX_PIRQRC,
                                      s->pirq_level);
    uint16_t changed = mask ^ s->isa_asserted;

    s->isa_asserted = mask;
    for (int n = 0; n < ISA_NUM_IRQS; n++) {
        if (changed & (1u << n)) {
            qemu_set_irq(isa_get_irq(n), (mask >> n) & 1);
        }
    }
}

int piix3_pirq_of(int devfn, int pin)
{
    return (PCI_SLOT(devfn) + pin - 1) & 3;
}

static int piix3_map_irq(void *opaque, int devfn, int pin)
{
    return piix3_pirq_of(devfn, pin);
}

static void piix3_set_irq(void *opaque, int pirq, int level)
{
    PIIX3State *s = opaque;

    s->pirq_level[pirq] = level;
    piix3_update_isa_irqs(s);
}

static void piix3_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                               unsigned len)
{
    pci_default_write_config(d, addr, val, len);
    if (addr < PIIX_PIRQRC + PIIX_NUM_PIRQS && addr + len > PIIX_PIRQRC) {
        piix3_update_isa_irqs((PIIX3State *)d);
    }
}

static bool piix3_realize(PCIDevice *d, Error **errp)
{
    if (PCI_FUNC(d->devfn) != 0) {
        error_setg(errp, "PIIX3: must be function 0 of its slot");
        return false;
    }
    pci_set_word(d->config + PCI_STATUS, PCI_STATUS_DEVSEL_MEDIUM);
    d->config[PCI_HEADER_TYPE] = PCI_HEADER_TYPE_MULTI_FUNCTION;
    pci_bus_set_irq_router(d->bus, piix3_map_irq, piix3_set_irq, d,
                           PIIX_NUM_PIRQS);
    return true;
}

static void piix3_exit(PCIDevice *d)
{
    pci_bus_set_irq_router(d->bus, NULL, NULL, NULL, 0);
}

static void piix3_reset(PCIDevice *d)
{
    PIIX3State *s = (PIIX3State *)d;

    for (size_t i = 0; i < G_N_ELEMENTS(piix3_reset_values); i++) {
        d->config[piix3_reset_values[i].reg] = piix3_reset_values[i].value;
    }
    piix3_update_isa_irqs(s);
}

static const Property piix3_props[] = {
    PCI_DEVICE_PROPS,
    PROP_END,
};

/* Migration: the config space and the PIRQ levels it routes. */
static const VMStateDescription vmstate_piix3 = {
    .name = "PIIX3",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(PIIX3State, parent, PCIDevice, vmstate_pci_device),
        VMS_ARRAY("pirq_level", PIIX3State, pirq_level, VMS_U32, int,
                  PIIX_NUM_PIRQS, VMS_RANGE(0, 1)),
        VMSTATE_U16(PIIX3State, isa_asserted),
        VMSTATE_END
    },
};

const PCIDeviceClass piix3_pci_device_class = {
    .parent = {
        .name = "PIIX3",
        .desc = "ISA bridge",
        .category = "Controller/Bridge/Hub devices",
        .instance_size = sizeof(PIIX3State),
        .props = piix3_props,
        PCI_DEVICE_CLASS_INIT,
        .vmsd = &vmstate_piix3,
    },
    .vendor_id = PCI_VENDOR_ID_INTEL,
    .device_id = PCI_DEVICE_ID_INTEL_82371SB_0,
    .class_id = PCI_CLASS_BRIDGE_ISA,
    .realize = piix3_realize,
    .exit = piix3_exit,
    .reset = piix3_reset,
    .config_write = piix3_write_config,
};

DEVICE_CLASS_REGISTER(piix3_pci_device_class)
