/*
 * "kvm-pit": the front of KVM's in-kernel 8254 PIT, QEMU's name for it.
 * Realize creates it (KVM_CREATE_PIT2, after the irqchip); reset puts it
 * back in its power-on state. lost_tick_policy=discard drops the ticks a
 * guest missed instead of reinjecting them (-global
 * kvm-pit.lost_tick_policy=discard, as QEMU takes it); delay (the
 * default) reinjects; QEMU's slew and merge are refused as QEMU does.
 *
 * Migration: its table carries KVM_GET_PIT2's three channels and flags.
 * The time each channel's count was loaded is the host's monotonic clock
 * in KVM: it travels as its age at the save, so it means the same on
 * another host. KVM_SET_PIT2 reloads the counts and restarts the timer.
 */
#include <string.h>
#include <time.h>

#include <linux/kvm.h>

#include "hw/qdev.h"
#include "vmstate/vmstate.h"
#include "system/kvm.h"

#define KVM_PIT_CHANNELS    3
#define KVM_PIT_FLAGS_ALL   (KVM_PIT_FLAGS_HPET_LEGACY | \
                             KVM_PIT_FLAGS_SPEAKER_DATA_ON)

typedef struct KVMPITState {
    DeviceState parent;
    char *lost_tick_policy;
    /* Migration's copy; count_load_time as an age (ns before the save). */
    struct kvm_pit_state2 pit;
    uint64_t load_age_ns[KVM_PIT_CHANNELS];
} KVMPITState;

/*
 * The HPET's "pit-enable" line: legacy replacement routing silences the
 * PIT, which KVM's does with KVM_PIT_FLAGS_HPET_LEGACY (as QEMU's).
 */
static void kvm_pit_irq_control(void *opaque, int n, int enable)
{
    struct kvm_pit_state2 pit;
    Error *err = NULL;

    if (!kvm_pit_get(&pit, &err)) {
        warn_report_err(err);
        return;
    }
    if (!(pit.flags & KVM_PIT_FLAGS_HPET_LEGACY) == !!enable) {
        return;
    }
    pit.flags ^= KVM_PIT_FLAGS_HPET_LEGACY;
    if (!kvm_pit_set(&pit, &err)) {
        warn_report_err(err);
    }
}

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
    if (!kvm_pit_create(!strcmp(policy, "discard"), errp)) {
        return false;
    }
    qdev_init_gpio_in_named(dev, kvm_pit_irq_control, NULL, 1);
    return true;
}

static void kvm_pit_dev_reset(DeviceState *dev)
{
    kvm_pit_reset();
}

/* --- migration ------------------------------------------------------- */

static int64_t host_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static int kvm_pit_pre_save(void *opaque)
{
    KVMPITState *s = opaque;
    Error *err = NULL;
    int64_t now;

    if (!kvm_pit_get(&s->pit, &err)) {
        warn_report_err(err);
        return -1;
    }
    now = host_monotonic_ns();
    for (unsigned i = 0; i < KVM_PIT_CHANNELS; i++) {
        int64_t age = now - s->pit.channels[i].count_load_time;

        s->load_age_ns[i] = age > 0 ? age : 0;
    }
    return 0;
}

static bool kvm_pit_post_load(void *opaque, unsigned version, Error **errp)
{
    KVMPITState *s = opaque;
    int64_t now = host_monotonic_ns();

    for (unsigned i = 0; i < KVM_PIT_CHANNELS; i++) {
        s->pit.channels[i].count_load_time =
            now - (int64_t)MIN(s->load_age_ns[i], (uint64_t)now);
    }
    return kvm_pit_set(&s->pit, errp);
}

#define B01     VMS_RANGE(0, 1)
#define KVM_PIT_MODE_UNSET  0xff    /* KVM's reset: never programmed */

/* Modes 0-5 (6 and 7 alias 2 and 3), or KVM's "never programmed". */
static bool check_mode(void *opaque, const VMStateField *f, Error **errp)
{
    const struct kvm_pit_channel_state *c = opaque;

    if (c->mode > 5 && c->mode != KVM_PIT_MODE_UNSET) {
        error_setg(errp, "mode %u is none of 0..5 (or 0xff, unset)",
                   c->mode);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_kvm_pit_channel = {
    .name = "kvm-pit-channel",
    .version = 1,
    .fields = (const VMStateField[]) {
        /* A count of 0 is loaded as 0x10000. */
        VMSTATE_U32(struct kvm_pit_channel_state, count,
                    VMS_RANGE(0, 0x10000)),
        VMSTATE_U16(struct kvm_pit_channel_state, latched_count),
        VMSTATE_U8(struct kvm_pit_channel_state, count_latched,
                   VMS_RANGE(0, 3)),
        VMSTATE_U8(struct kvm_pit_channel_state, status_latched, B01),
        VMSTATE_U8(struct kvm_pit_channel_state, status),
        VMSTATE_U8(struct kvm_pit_channel_state, read_state, VMS_RANGE(0, 4)),
        VMSTATE_U8(struct kvm_pit_channel_state, write_state,
                   VMS_RANGE(0, 4)),
        VMSTATE_U8(struct kvm_pit_channel_state, write_latch),
        VMSTATE_U8(struct kvm_pit_channel_state, rw_mode, VMS_RANGE(0, 3)),
        VMSTATE_U8(struct kvm_pit_channel_state, mode, .check = check_mode),
        VMSTATE_U8(struct kvm_pit_channel_state, bcd, B01),
        VMSTATE_U8(struct kvm_pit_channel_state, gate, B01),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_kvm_pit = {
    .name = "kvm-pit",
    .version = 1,
    .minimum_version = 1,
    .pre_save = kvm_pit_pre_save,
    .post_load = kvm_pit_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(KVMPITState, pit.channels, KVM_PIT_CHANNELS,
                             struct kvm_pit_channel_state,
                             vmstate_kvm_pit_channel),
        VMSTATE_U32(KVMPITState, pit.flags, VMS_RANGE(0, KVM_PIT_FLAGS_ALL)),
        VMSTATE_U64_ARRAY(KVMPITState, load_age_ns, KVM_PIT_CHANNELS),
        VMSTATE_END
    },
};

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
    .vmsd = &vmstate_kvm_pit,
};

DEVICE_CLASS_REGISTER(kvm_pit_device_class)
