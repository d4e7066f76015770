/*
 * A KVM vCPU's migratable state (kvm-cpu-state.c): what the KVM_GET_*
 * ioctls give, as the field table "kvm-cpu" describes it.
 */
#ifndef ACCEL_KVM_CPU_STATE_H
#define ACCEL_KVM_CPU_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kvm.h>

#include "qemu/error.h"

/* The MSRs that travel (kvm-cpu-state.c's list). */
#define KVM_CPU_NR_MSRS     53
#define KVM_XSAVE_BYTES     4096        /* struct kvm_xsave's region */
#define KVM_LAPIC_LVR       0x30        /* the version register */

struct KVMVcpu;
struct VMStateDescription;

typedef struct KVMCPUState {
    /* Not saved: whose state it is. */
    struct KVMVcpu *vcpu;
    int fd;
    unsigned index;
    uint32_t lapic_version;             /* APIC_LVR after reset */

    struct kvm_regs regs;
    struct kvm_sregs sregs;
    /* KVM_GET_XSAVE where KVM has it, else KVM_GET_FPU only. */
    bool has_xsave;
    struct kvm_fpu fpu;
    uint32_t xsave[KVM_XSAVE_BYTES / 4];
    bool has_xcr0;
    uint64_t xcr0;
    /* Bit i: msrs[i] was read (this KVM has the MSR for this vCPU). */
    uint64_t msrs_present;
    uint64_t msrs[KVM_CPU_NR_MSRS];
    struct kvm_lapic_state lapic;
    bool has_events;
    struct kvm_vcpu_events events;
    uint32_t mp_state;
    bool has_debugregs;
    struct kvm_debugregs debugregs;
} KVMCPUState;

/* The table ("kvm-cpu"): pre_save reads the vCPU, post_load puts it. */
const struct VMStateDescription *kvm_cpu_vmstate(void);
/* Read all of st from vCPU st->fd; put st back into it. Vcpu parked. */
bool kvm_cpu_state_get(KVMCPUState *st, Error **errp);
bool kvm_cpu_state_put(KVMCPUState *st, Error **errp);

#endif
