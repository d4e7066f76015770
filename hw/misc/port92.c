/*
 * "port92": the PC's system control port A at 0x92, as QEMU's pc has
 * it. Bit 1 is the fast A20 gate, bit 0 the fast reset: setting it
 * (a rising edge) resets the machine. The port reads back what was
 * written; a reset clears bit 0 and keeps the rest, as QEMU's.
 *
 * The A20 gate is the GPIO output "a20", as the i8042's output port bit
 * is; the CPU keeps A20 enabled whatever they say (as QEMU's does under
 * KVM), so the board leaves both unconnected.
 */
#include "hw/irq.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "vmstate/vmstate.h"

#define PORT92_PORT         0x92
#define PORT92_RESET        0x01
#define PORT92_A20          0x02

typedef struct Port92State {
    DeviceState parent;
    MemoryRegion io;
    qemu_irq a20;
    uint8_t outport;
} Port92State;

static uint64_t port92_read(void *opaque, uint64_t addr, unsigned size)
{
    Port92State *s = opaque;

    return s->outport;
}

static void port92_write(void *opaque, uint64_t addr, uint64_t value,
                         unsigned size)
{
    Port92State *s = opaque;
    uint8_t old = s->outport;

    s->outport = value;
    qemu_set_irq(s->a20, !!(value & PORT92_A20));
    if ((value & PORT92_RESET) && !(old & PORT92_RESET)) {
        qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET);
    }
}

static const MemoryRegionOps port92_ops = {
    .read = port92_read,
    .write = port92_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
};

static void port92_reset(DeviceState *dev)
{
    Port92State *s = (Port92State *)dev;

    s->outport &= ~PORT92_RESET;
}

static bool port92_realize(DeviceState *dev, Error **errp)
{
    Port92State *s = (Port92State *)dev;

    memory_region_init_io(&s->io, "port92", &port92_ops, s, 1);
    if (!isa_register_ioport(dev, &s->io, PORT92_PORT, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    qdev_init_gpio_out_named(dev, &s->a20, "a20", 1);
    return true;
}

static void port92_unrealize(DeviceState *dev)
{
    Port92State *s = (Port92State *)dev;

    memory_region_finalize(&s->io);
}

static const VMStateDescription vmstate_port92 = {
    .name = "port92",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(Port92State, outport),
        VMSTATE_END
    },
};

const DeviceClass port92_device_class = {
    .name = "port92",
    .parent = "isa-device",
    .desc = "PC system control port A (fast A20, fast reset)",
    .instance_size = sizeof(Port92State),
    .realize = port92_realize,
    .reset = port92_reset,
    .vmsd = &vmstate_port92,
    .unrealize = port92_unrealize,
};

DEVICE_CLASS_REGISTER(port92_device_class)
