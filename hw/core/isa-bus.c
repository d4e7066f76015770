/*
 * ISA interrupt lines and port registration.
 */
#include "hw/isa.h"

static qemu_irq *isa_irqs;

void isa_bus_set_irqs(qemu_irq *irqs)
{
    isa_irqs = irqs;
}

qemu_irq isa_get_irq(unsigned n)
{
    return isa_irqs && n < ISA_NUM_IRQS ? isa_irqs[n] : NULL;
}

bool isa_register_ioport(DeviceState *dev, MemoryRegion *mr, uint16_t port,
                         Error **errp)
{
    if (!address_space_map_region(&address_space_io, mr, port, errp)) {
        error_prepend(errp, "%s: ", dev->dc->name);
        return false;
    }
    return true;
}
