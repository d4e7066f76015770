/*
 * KVM accelerator state shared with the machine.
 *
 * The board never calls these: it creates vCPUs through system/cpus.h
 * (the in-kernel irqchip comes with the first), and the fronts in
 * hw/i386/kvm/ ("kvm-ioapic", "kvm-pit", which accel_device_type() names
 * for it) forward lines and reset the in-kernel devices.
 * Memory slots follow address_space_memory by themselves (a memory
 * listener, accel/kvm/kvm-all.c).
 */
#ifndef SYSTEM_KVM_H
#define SYSTEM_KVM_H

#include <stdbool.h>

#include "qemu/error.h"

struct X86BootState;
struct kvm_irqchip;
struct kvm_pit_state2;

/* True once the kvm accelerator runs this VM. */
bool kvm_enabled(void);
/* The /dev/kvm and VM file descriptors, or -1. */
int kvm_get_fd(void);
int kvm_get_vm_fd(void);

/* The in-kernel PIT (hw/i386/kvm/i8254.c's front); discard: no reinjection. */
bool kvm_pit_create(bool discard, Error **errp);
void kvm_pit_reset(void);
/* Put the in-kernel PIC and IOAPIC back in their power-on state. */
void kvm_pc_reset_irqchip(void);
/* Route GSI 0 (ISA IRQ 0) to IOAPIC pin pin (the MADT's override). */
bool kvm_irqchip_route_isa0(unsigned pin, Error **errp);
/* Raise or lower a GSI of the in-kernel irqchip. */
void kvm_set_irq(int gsi, int level);
/*
 * Migration of the in-kernel devices (their fronts' field tables): one
 * chip of the irqchip by its chip_id (KVM_IRQCHIP_PIC_MASTER, _SLAVE,
 * _IOAPIC) and its power-on state (NULL: no irqchip), and the PIT.
 */
bool kvm_irqchip_get(struct kvm_irqchip *chip, Error **errp);
bool kvm_irqchip_set(const struct kvm_irqchip *chip, Error **errp);
const struct kvm_irqchip *kvm_irqchip_reset_state(unsigned chip_id);
bool kvm_pit_get(struct kvm_pit_state2 *pit, Error **errp);
bool kvm_pit_set(const struct kvm_pit_state2 *pit, Error **errp);

#endif
