/*
 * The ISA side of the PC: 16 interrupt lines that the board routes to
 * the interrupt controllers, and port I/O registration for devices.
 */
#ifndef HW_ISA_H
#define HW_ISA_H

#include <stdbool.h>

#include "hw/irq.h"
#include "hw/qdev.h"
#include "system/memory.h"

#define ISA_NUM_IRQS 16

/* The board installs its lines (NULL: none, as under -machine none). */
void isa_bus_set_irqs(qemu_irq *irqs);
/* ISA IRQ n, or NULL when there is no ISA bus. */
qemu_irq isa_get_irq(unsigned n);
/*
 * Map a device's port I/O region at port, with the device's path in the
 * error when it collides with another device.
 */
bool isa_register_ioport(DeviceState *dev, MemoryRegion *mr, uint16_t port,
                         Error **errp);

#endif
