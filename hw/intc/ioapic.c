/*
 * I/O APIC input lines. The register model comes with the software CPU;
 * this device is what boards wire ISA lines to and what qtest intercepts.
 */
#include "hw/intc/ioapic.h"
#include "hw/qdev.h"

typedef struct IOAPICState {
    DeviceState parent;
} IOAPICState;

static void (*irqchip_hook)(int gsi, int level);

void ioapic_set_irqchip_hook(void (*hook)(int gsi, int level))
{
    irqchip_hook = hook;
}

static void ioapic_set_irq(void *opaque, int gsi, int level)
{
    if (irqchip_hook) {
        irqchip_hook(gsi, level);
    }
}

static bool ioapic_realize(DeviceState *dev, Error **errp)
{
    qdev_init_gpio_in_named(dev, ioapic_set_irq, NULL, IOAPIC_NUM_PINS);
    return true;
}

const DeviceClass ioapic_device_class = {
    .name = "ioapic",
    .parent = "sys-bus-device",
    .desc = "I/O APIC input lines",
    .instance_size = sizeof(IOAPICState),
    .realize = ioapic_realize,
};
