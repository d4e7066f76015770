/*
 * pvpanic: the panic register (hw/misc/pvpanic.c) at one ISA port,
 * 0x505 by default. The pc board tells the guest where: the fw_cfg file
 * "etc/pvpanic-port" and a QEMU0001 device in the DSDT, which Linux's
 * pvpanic driver binds to. One per machine, as QEMU's fw_cfg file
 * allows.
 */
#include "hw/isa.h"
#include "hw/misc/pvpanic.h"
#include "hw/qdev.h"
#include "vmstate/vmstate.h"

#define PVPANIC_ISA_DEFAULT_PORT 0x505

typedef struct PVPanicISAState {
    DeviceState parent;
    uint16_t ioport;
    PVPanicState pvpanic;
} PVPanicISAState;

static PVPanicISAState *pvpanic_isa;   /* the realized one, or NULL */

bool pvpanic_isa_port(uint16_t *port)
{
    if (!pvpanic_isa) {
        return false;
    }
    *port = pvpanic_isa->ioport;
    return true;
}

static bool pvpanic_isa_realize(DeviceState *dev, Error **errp)
{
    PVPanicISAState *s = (PVPanicISAState *)dev;

    if (pvpanic_isa) {
        /* QEMU 7.2's words: its second device adds the file again. */
        error_setg(errp, "duplicate fw_cfg file name: etc/pvpanic-port");
        return false;
    }
    pvpanic_init_region(&s->pvpanic, 1);
    if (!isa_register_ioport(dev, &s->pvpanic.mr, s->ioport, errp)) {
        memory_region_finalize(&s->pvpanic.mr);
        return false;
    }
    pvpanic_isa = s;
    return true;
}

static void pvpanic_isa_unrealize(DeviceState *dev)
{
    PVPanicISAState *s = (PVPanicISAState *)dev;

    memory_region_finalize(&s->pvpanic.mr);
    pvpanic_isa = NULL;
}

static const Property pvpanic_isa_props[] = {
    DEFINE_PROP_UINT8("events", PVPanicISAState, pvpanic.events,
                      PVPANIC_EVENTS),
    DEFINE_PROP_UINT16("ioport", PVPanicISAState, ioport,
                       PVPANIC_ISA_DEFAULT_PORT),
    PROP_END,
};

/* Nothing a guest changes: its section is empty. */
static const VMStateDescription vmstate_pvpanic_isa = {
    .name = "pvpanic",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_END
    },
};

const DeviceClass pvpanic_isa_device_class = {
    .name = "pvpanic",
    .parent = "isa-device",
    .category = "Misc devices",
    .instance_size = sizeof(PVPanicISAState),
    .props = pvpanic_isa_props,
    .user_creatable = true,
    .realize = pvpanic_isa_realize,
    .unrealize = pvpanic_isa_unrealize,
    .vmsd = &vmstate_pvpanic_isa,
};

DEVICE_CLASS_REGISTER(pvpanic_isa_device_class)
