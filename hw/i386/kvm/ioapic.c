/*
 * "kvm-ioapic": the front of KVM's in-kernel irqchip, QEMU's name for it.
 * Its 24 inputs are GSIs: a level goes to KVM_IRQ_LINE, and KVM's routing
 * (accel/kvm/kvm-all.c, QEMU's) takes it to the in-kernel PIC pair and
 * IOAPIC, ISA IRQ 0 to the pin the board's irq0-pin property names (the
 * MADT's override, 2 on a PC). Reset puts both back in their
 * power-on state. The board creates it in place of "ioapic" when the
 * accelerator keeps the interrupt controllers (accel_device_type()).
 */
#include "hw/qdev.h"
#include "system/kvm.h"

#define KVM_IOAPIC_NUM_GSIS 24

typedef struct KVMIOAPICState {
    DeviceState parent;
    uint8_t irq0_pin;           /* the board's override: ISA IRQ 0's pin */
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
};
