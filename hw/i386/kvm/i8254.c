/*
 * "kvm-pit": the front of KVM's in-kernel 8254 PIT, QEMU's name for it.
 * Realize creates it (KVM_CREATE_PIT2, after the irqchip); reset puts it
 * back in its power-on state. lost_tick_policy=discard drops the ticks a
 * guest missed instead of reinjecting them (-global
 * kvm-pit.lost_tick_policy=discard, as QEMU takes it); delay (the
 * default) reinjects; QEMU's slew and merge are refused as QEMU does.
 */
#include <string.h>

#include "hw/qdev.h"
#include "system/kvm.h"

typedef struct KVMPITState {
    DeviceState parent;
    char *lost_tick_policy;
} KVMPITState;

static bool kvm_pit_realize(DeviceState *dev, Error **errp)
{
    KVMPITState *s = (KVMPITState *)dev;
    const char *policy = s->lost_tick_policy ? s->lost_tick_policy
                                             : "delay";

    /* QEMU's LostTickPolicy values, and its words for the others. */
    if (strcmp(policy, "delay") && strcmp(policy, "discard") &&
        strcmp(policy, "slew") && strcmp(policy, "merge")) {
        error_setg(errp, "can't apply global kvm-pit.lost_tick_policy=%s: "
                   "Parameter 'lost_tick_policy' does not accept value "
                   "'%s'", policy, policy);
        return false;
    }
    if (strcmp(policy, "delay") && strcmp(policy, "discard")) {
        error_setg(errp, "Lost tick policy not supported.");
        return false;
    }
    if (!kvm_enabled()) {
        error_setg(errp, "kvm-pit: KVM is not in use");
        return false;
    }
    return kvm_pit_create(!strcmp(policy, "discard"), errp);
}

static void kvm_pit_dev_reset(DeviceState *dev)
{
    kvm_pit_reset();
}

static const Property kvm_pit_props[] = {
    DEFINE_PROP_STRING("lost_tick_policy", KVMPITState, lost_tick_policy),
    PROP_END,
};

const DeviceClass kvm_pit_device_class = {
    .name = "kvm-pit",
    .parent = "isa-device",
    .desc = "8254 PIT (KVM's in-kernel one)",
    .instance_size = sizeof(KVMPITState),
    .props = kvm_pit_props,
    .realize = kvm_pit_realize,
    .reset = kvm_pit_dev_reset,
};
