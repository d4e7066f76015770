/*
 * KVM accelerator state shared with the machine.
 *
 * The board builds in this order (hw/i386/pc_piix.c): RAM, then
 * kvm_pc_init() (in-kernel PIC/IOAPIC/LAPIC and PIT, which must exist
 * before vCPUs), vcpus_create() (system/cpus.h: vCPU fds and parked
 * threads), devices, the kernel loader and vcpus_reset(). vm_start() lets
 * the threads run. Memory slots follow address_space_memory by
 * themselves (a memory listener, accel/kvm/kvm-all.c).
 */
#ifndef SYSTEM_KVM_H
#define SYSTEM_KVM_H

#include <stdbool.h>

#include "hw/boards.h"
#include "qemu/error.h"

struct X86BootState;

/* True once the kvm accelerator runs this VM. */
bool kvm_enabled(void);
/* The /dev/kvm and VM file descriptors, or -1. */
int kvm_get_fd(void);
int kvm_get_vm_fd(void);

/*
 * The PC's in-kernel devices: TSS and identity map pages, PIC + IOAPIC +
 * LAPICs with QEMU's GSI routing (ISA IRQ 0 on IOAPIC pin 2), and with
 * pit the PIT (pit_discard: lost ticks are not reinjected). Also points
 * the IOAPIC's input lines at KVM_IRQ_LINE.
 */
bool kvm_pc_init(bool pit, bool pit_discard, Error **errp);
/* Put the in-kernel PIC, IOAPIC and PIT back in their power-on state. */
void kvm_pc_reset_irqchip(void);
/* Raise or lower a GSI of the in-kernel irqchip. */
void kvm_set_irq(int gsi, int level);

#endif
