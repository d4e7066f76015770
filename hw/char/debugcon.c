/*
 * isa-debugcon: Bochs' debug console port (0xe9 by default; SeaBIOS
 * writes its log to 0x402 on QEMU), as QEMU's: every byte written goes
 * to the chardev, reads return readback (0xe9, so a guest can tell the
 * port is there).
 */
#include "chardev/char.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

typedef struct DebugconState {
    DeviceState parent;
    uint32_t iobase;
    uint32_t readback;
    char *chardev;
    CharBackend chr;
    MemoryRegion io;
} DebugconState;

static uint64_t debugcon_read(void *opaque, uint64_t addr, unsigned size)
{
    return ((DebugconState *)opaque)->readback;
}

static void debugcon_write(void *opaque, uint64_t addr, uint64_t value,
                           unsigned size)
{
    DebugconState *s = opaque;
    uint8_t b = value;

    qemu_chr_fe_write(&s->chr, &b, 1);
}

static const MemoryRegionOps debugcon_ops = {
    .read = debugcon_read,
    .write = debugcon_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

static bool debugcon_realize(DeviceState *dev, Error **errp)
{
    DebugconState *s = (DebugconState *)dev;
    Chardev *chr = NULL;

    if (s->iobase > 0xffff) {
        error_setg(errp, "Property 'isa-debugcon.iobase' doesn't take value "
                   "0x%x", s->iobase);
        return false;
    }
    if (!s->chardev || !(chr = qemu_chr_find(s->chardev))) {
        error_setg(errp, "Can't create debugcon device, empty char device");
        return false;
    }
    memory_region_init_io(&s->io, "isa-debugcon", &debugcon_ops, s, 1);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    if (!qemu_chr_fe_init(&s->chr, chr, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    return true;
}

static void debugcon_unrealize(DeviceState *dev)
{
    DebugconState *s = (DebugconState *)dev;

    qemu_chr_fe_deinit(&s->chr);
    memory_region_finalize(&s->io);
}

static const Property debugcon_props[] = {
    DEFINE_PROP_UINT32("iobase", DebugconState, iobase, 0xe9),
    DEFINE_PROP_UINT32("readback", DebugconState, readback, 0xe9),
    DEFINE_PROP_CHR("chardev", DebugconState, chardev),
    PROP_END,
};

/* Nothing a guest changes. */
static const VMStateDescription vmstate_debugcon = {
    .name = "isa-debugcon",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_END
    },
};

const DeviceClass isa_debugcon_device_class = {
    .name = "isa-debugcon",
    .parent = "isa-device",
    .desc = "Bochs' debug console port",
    .category = "Input devices",
    .instance_size = sizeof(DebugconState),
    .props = debugcon_props,
    .user_creatable = true,
    .realize = debugcon_realize,
    .unrealize = debugcon_unrealize,
    .vmsd = &vmstate_debugcon,
};

DEVICE_CLASS_REGISTER(isa_debugcon_device_class)
