/*
 * "kvm-ioapic": the front of KVM's in-kernel irqchip, QEMU's name for it.
 * Its 24 inputs are GSIs: a level goes to KVM_IRQ_LINE, and KVM's routing
 * (accel/kvm/kvm-all.c, QEMU's) takes it to the in-kernel PIC pair and
 * IOAPIC, ISA IRQ 0 to the pin the board's irq0-pin property names (the
 * MADT's override, 2 on a PC). Reset puts both back in their
 * power-on state. The board creates it in place of "ioapic" when the
 * accelerator keeps the interrupt controllers (accel_device_type()).
 *
 * Migration: its table carries the whole in-kernel irqchip but the
 * LAPICs (which go with the vCPUs): both PICs and the IOAPIC as
 * KVM_GET_IRQCHIP gives them, put back with KVM_SET_IRQCHIP on load.
 */
#include <linux/kvm.h>

#include "hw/qdev.h"
#include "vmstate/vmstate.h"
#include "system/kvm.h"

#define KVM_IOAPIC_NUM_GSIS 24
#define KVM_PIC_COUNT       2   /* chip ids 0 (master) and 1 (slave) */

typedef struct KVMIOAPICState {
    DeviceState parent;
    uint8_t irq0_pin;           /* the board's override: ISA IRQ 0's pin */
    /* Migration's copy of the in-kernel chips. */
    struct kvm_pic_state pic[KVM_PIC_COUNT];
    struct kvm_ioapic_state ioapic;
} KVMIOAPICState;

static void kvm_ioapic_set_irq(void *opaque, int gsi, int level)
{
    kvm_set_irq(gsi, level);
}

static bool kvm_ioapic_realize(DeviceState *dev, Error **errp)
{
    KVMIOAPICState *s = (KVMIOAPICState *)dev;

    if (!kvm_enabled()) {
        error_setg(errp, "kvm-ioapic: KVM is not in use");
        return false;
    }
    if (!kvm_irqchip_route_isa0(s->irq0_pin, errp)) {
        error_prepend(errp, "kvm-ioapic: ");
        return false;
    }
    qdev_init_gpio_in_named(dev, kvm_ioapic_set_irq, NULL,
                            KVM_IOAPIC_NUM_GSIS);
    return true;
}

static void kvm_ioapic_reset(DeviceState *dev)
{
    kvm_pc_reset_irqchip();
}

/* --- migration ------------------------------------------------------- */

static int kvm_ioapic_pre_save(void *opaque)
{
    KVMIOAPICState *s = opaque;
    Error *err = NULL;

    for (unsigned id = 0; id <= KVM_PIC_COUNT; id++) {
        struct kvm_irqchip chip = { .chip_id = id };

        if (!kvm_irqchip_get(&chip, &err)) {
            warn_report_err(err);
            return -1;
        }
        if (id < KVM_PIC_COUNT) {
            s->pic[id] = chip.chip.pic;
        } else {
            s->ioapic = chip.chip.ioapic;
        }
    }
    return 0;
}

/* What no guest can change: the ELCR's mask, the IOAPIC's address. */
static bool kvm_ioapic_post_load(void *opaque, unsigned version,
                                 Error **errp)
{
    KVMIOAPICState *s = opaque;

    for (unsigned id = 0; id <= KVM_PIC_COUNT; id++) {
        const struct kvm_irqchip *reset = kvm_irqchip_reset_state(id);
        struct kvm_irqchip chip = { .chip_id = id };

        if (!reset) {
            error_setg(errp, "KVM has no in-kernel irqchip");
            return false;
        }
        if (id < KVM_PIC_COUNT) {
            if (s->pic[id].elcr_mask != reset->chip.pic.elcr_mask) {
                error_setg(errp, "field 'pic[%u].elcr_mask': 0x%x, this PIC's "
                           "is 0x%x", id, s->pic[id].elcr_mask,
                           reset->chip.pic.elcr_mask);
                return false;
            }
            if (s->pic[id].irq_base & 7) {
                error_setg(errp, "field 'pic[%u].irq_base': 0x%x is not a "
                           "multiple of 8", id, s->pic[id].irq_base);
                return false;
            }
            chip.chip.pic = s->pic[id];
        } else {
            if (s->ioapic.base_address != reset->chip.ioapic.base_address) {
                error_setg(errp, "field 'ioapic.base_address': 0x%llx, this "
                           "IOAPIC's is 0x%llx", s->ioapic.base_address,
                           reset->chip.ioapic.base_address);
                return false;
            }
            chip.chip.ioapic = s->ioapic;
        }
        if (!kvm_irqchip_set(&chip, errp)) {
            return false;
        }
    }
    return true;
}

#define B01     VMS_RANGE(0, 1)

static const VMStateDescription vmstate_kvm_pic = {
    .name = "kvm-pic",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(struct kvm_pic_state, last_irr),
        VMSTATE_U8(struct kvm_pic_state, irr),
        VMSTATE_U8(struct kvm_pic_state, imr),
        VMSTATE_U8(struct kvm_pic_state, isr),
        VMSTATE_U8(struct kvm_pic_state, priority_add, VMS_RANGE(0, 7)),
        VMSTATE_U8(struct kvm_pic_state, irq_base),
        VMSTATE_U8(struct kvm_pic_state, read_reg_select, B01),
        VMSTATE_U8(struct kvm_pic_state, poll, B01),
        VMSTATE_U8(struct kvm_pic_state, special_mask, B01),
        VMSTATE_U8(struct kvm_pic_state, init_state, VMS_RANGE(0, 3)),
        VMSTATE_U8(struct kvm_pic_state, auto_eoi, B01),
        VMSTATE_U8(struct kvm_pic_state, rotate_on_auto_eoi, B01),
        VMSTATE_U8(struct kvm_pic_state, special_fully_nested_mode, B01),
        VMSTATE_U8(struct kvm_pic_state, init4, B01),
        VMSTATE_U8(struct kvm_pic_state, elcr),
        VMSTATE_U8(struct kvm_pic_state, elcr_mask),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_kvm_ioapic_chip = {
    .name = "kvm-ioapic-chip",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_ULL(struct kvm_ioapic_state, base_address),
        VMSTATE_U32(struct kvm_ioapic_state, ioregsel, VMS_RANGE(0, 0xff)),
        VMSTATE_U32(struct kvm_ioapic_state, id, VMS_RANGE(0, 0xf)),
        VMSTATE_U32(struct kvm_ioapic_state, irr,
                    VMS_RANGE(0, (1u << KVM_IOAPIC_NUM_GSIS) - 1)),
        VMSTATE_BUFFER(struct kvm_ioapic_state, redirtbl),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_kvm_ioapic = {
    .name = "kvm-ioapic",
    .version = 1,
    .minimum_version = 1,
    .pre_save = kvm_ioapic_pre_save,
    .post_load = kvm_ioapic_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(KVMIOAPICState, pic, KVM_PIC_COUNT,
                             struct kvm_pic_state, vmstate_kvm_pic),
        VMSTATE_STRUCT(KVMIOAPICState, ioapic, struct kvm_ioapic_state,
                       vmstate_kvm_ioapic_chip),
        VMSTATE_END
    },
};

static const Property kvm_ioapic_props[] = {
    DEFINE_PROP_UINT8("irq0-pin", KVMIOAPICState, irq0_pin, 0),
    PROP_END,
};

const DeviceClass kvm_ioapic_device_class = {
    .name = "kvm-ioapic",
    .parent = "sys-bus-device",
    .desc = "I/O APIC (KVM's in-kernel irqchip)",
    .instance_size = sizeof(KVMIOAPICState),
    .props = kvm_ioapic_props,
    .realize = kvm_ioapic_realize,
    .reset = kvm_ioapic_reset,
    .vmsd = &vmstate_kvm_ioapic,
};

DEVICE_CLASS_REGISTER(kvm_ioapic_device_class)
