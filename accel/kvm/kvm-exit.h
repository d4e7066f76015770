/*
 * What a vCPU does after KVM_RUN returns, as a pure function of the
 * kvm_run page: port I/O and MMIO go to the bus callbacks, everything
 * else becomes an action for the run loop. No ioctls, no locks, no
 * global state, so every exit reason is unit-tested without /dev/kvm
 * (tests/unit/test-kvm-exit.c).
 */
#ifndef ACCEL_KVM_EXIT_H
#define ACCEL_KVM_EXIT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <linux/kvm.h>

typedef enum KVMExitAction {
    KVM_EXIT_ACTION_RUN,        /* handled: enter the guest again */
    KVM_EXIT_ACTION_HALT,       /* HLT without in-kernel irqchip */
    KVM_EXIT_ACTION_RESET,      /* triple fault or reset system event */
    KVM_EXIT_ACTION_POWEROFF,   /* shutdown system event (PSCI-like) */
    KVM_EXIT_ACTION_ERROR,      /* diagnostic, then internal-error */
} KVMExitAction;

/* Where guest accesses go; sizes are 1, 2, 4 or 8. */
typedef struct KVMExitBus {
    uint64_t (*pio_read)(void *opaque, uint16_t port, unsigned size);
    void (*pio_write)(void *opaque, uint16_t port, uint64_t value,
                      unsigned size);
    uint64_t (*mmio_read)(void *opaque, uint64_t addr, unsigned size);
    void (*mmio_write)(void *opaque, uint64_t addr, uint64_t value,
                       unsigned size);
    void *opaque;
} KVMExitBus;

KVMExitAction kvm_handle_exit(struct kvm_run *run, const KVMExitBus *bus);

/* Name of an exit reason ("KVM_EXIT_IO"), or "unknown". */
const char *kvm_exit_reason_name(uint32_t reason);

/*
 * The diagnostic of an exit that ended in KVM_EXIT_ACTION_ERROR: the
 * reason, the suberror and its data, then the registers as QEMU's
 * "info registers" prints them.
 */
void kvm_exit_describe(const struct kvm_run *run, GString *out);
void kvm_dump_registers(const struct kvm_regs *regs,
                        const struct kvm_sregs *sregs, GString *out);

#endif
