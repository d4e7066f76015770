/*
 * isa-debug-exit: a port that ends the emulator with a status the guest
 * chooses, for test guests that have no other way to report a result.
 * A write of V exits with status (V << 1) | 1, so a guest can never
 * fake a clean exit (0); the OS keeps the low 8 bits. Reads return 0,
 * as QEMU's do.
 */
#include "hw/isa.h"
#include "hw/qdev.h"
#include "vmstate/vmstate.h"
#include "system/memory.h"
#include "system/runstate.h"

typedef struct DebugExitState {
    DeviceState parent;
    uint32_t iobase;
    uint32_t iosize;
    MemoryRegion io;
} DebugExitState;

static uint64_t debug_exit_read(void *opaque, uint64_t addr, unsigned size)
{
    return 0;
}

static void debug_exit_write(void *opaque, uint64_t addr, uint64_t value,
                             unsigned size)
{
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_GUEST_SHUTDOWN,
                                 (int)((value << 1) | 1));
}

static const MemoryRegionOps debug_exit_ops = {
    .read = debug_exit_read,
    .write = debug_exit_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static bool debug_exit_realize(DeviceState *dev, Error **errp)
{
    DebugExitState *s = (DebugExitState *)dev;

    if (s->iosize == 0 || s->iobase > 0xffff ||
        s->iosize > 0x10000 - s->iobase) {
        error_setg(errp, "isa-debug-exit: iobase 0x%x and iosize 0x%x must "
                   "describe a non-empty range of ports 0-0xffff",
                   s->iobase, s->iosize);
        return false;
    }
    memory_region_init_io(&s->io, "isa-debug-exit", &debug_exit_ops, s,
                          s->iosize);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    return true;
}

static void debug_exit_unrealize(DeviceState *dev)
{
    DebugExitState *s = (DebugExitState *)dev;

    memory_region_finalize(&s->io);
}

static const Property debug_exit_props[] = {
    DEFINE_PROP_UINT32("iobase", DebugExitState, iobase, 0x501),
    DEFINE_PROP_UINT32("iosize", DebugExitState, iosize, 0x02),
    PROP_END,
};

/* Nothing a guest changes: its section is empty. */
static const VMStateDescription vmstate_debug_exit = {
    .name = "isa-debug-exit",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_END
    },
};

const DeviceClass isa_debug_exit_device_class = {
    .name = "isa-debug-exit",
    .parent = "isa-device",
    .desc = "exit the emulator with a status the guest writes",
    .category = "Misc devices",
    .instance_size = sizeof(DebugExitState),
    .props = debug_exit_props,
    .user_creatable = true,
    .realize = debug_exit_realize,
    .unrealize = debug_exit_unrealize,
    .vmsd = &vmstate_debug_exit,
};

DEVICE_CLASS_REGISTER(isa_debug_exit_device_class)
