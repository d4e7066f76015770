/*
 * KVM accelerator state shared with the machine.
 *
 * The board builds in this order (hw/i386/pc_piix.c): RAM, then
 * kvm_pc_init() (in-kernel PIC/IOAPIC/LAPIC and PIT, which must exist
 * before vCPUs), kvm_cpus_create() (vCPU fds and parked threads),
 * devices, the kernel loader, kvm_memory_init() (one slot per RAM
 * region) and kvm_cpus_set_boot_state(). vm_start() lets the threads run.
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
/* One KVM memory slot per RAM region of address_space_memory. */
bool kvm_memory_init(Error **errp);

/*
 * Create ms->smp_cpus vCPUs (model and features from ms->cfg->cpu,
 * topology from ms->cfg->smp), each with its thread, parked until the
 * VM runs. Registers the pause/resume hooks and query-cpus-fast.
 */
bool kvm_cpus_create(MachineState *ms, Error **errp);
/*
 * Reset every vCPU: vCPU 0 starts in boot (NULL: at the reset vector),
 * the others wait for INIT/SIPI. Call with the vCPUs paused (at machine
 * creation or from a reset handler); each applies it on its own thread
 * before it next runs.
 */
void kvm_cpus_reset(const struct X86BootState *boot);

#endif
