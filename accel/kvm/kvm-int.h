/*
 * What kvm-all.c (the VM) and kvm-cpus.c (the vCPUs) share.
 */
#ifndef ACCEL_KVM_INT_H
#define ACCEL_KVM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"
#include "target/i386/cpu.h"

/* KVM_CHECK_EXTENSION on the VM (or /dev/kvm before it exists). */
int kvm_check_cap(int cap);
/*
 * The PC's in-kernel irqchip (PIC pair, IOAPIC, LAPICs) with QEMU's GSI
 * routing (ISA IRQ 0 on IOAPIC pin 2), and VMX's identity-map and TSS
 * pages: before the first vCPU (kvm-cpus.c); once.
 */
bool kvm_irqchip_create(Error **errp);
/* What KVM_GET_SUPPORTED_CPUID offers; *out is g_malloc'ed. */
bool kvm_get_supported_cpuid(X86CPUIDEntry **out, unsigned *n, Error **errp);
/*
 * The GSI route table (kvm-eventfd.c): QEMU's PC routes (ISA IRQ 0 on
 * IOAPIC pin isa0_pin, 0: its own), then the MSI routes of irqfds.
 */
bool kvm_routes_init_pc(unsigned isa0_pin, Error **errp);
void kvm_routes_cleanup(void);
/* AccelOps' eventfd paths (include/system/cpus.h). */
bool kvm_has_ioeventfds(void);
int kvm_msi_irqfd_add(uint64_t addr, uint32_t data, int fd);
int kvm_msi_irqfd_update(int route, uint64_t addr, uint32_t data);
void kvm_msi_irqfd_del(int route, int fd);
/* Memory listener callbacks: the spaces' ioeventfds as KVM_IOEVENTFDs. */
struct MemoryListener;
struct MemoryRegionIoeventfd;
void kvm_eventfd_add(struct MemoryListener *l, uint64_t addr,
                     const struct MemoryRegionIoeventfd *e);
void kvm_eventfd_del(struct MemoryListener *l, uint64_t addr,
                     const struct MemoryRegionIoeventfd *e);
/* The vCPUs (kvm-cpus.c); destroyed by the board before the VM goes. */
extern const struct AccelOps kvm_accel_ops;
/*
 * Migration of a parked vCPU (kvm-cpus.c, for kvm-cpu-state.c): before
 * its state is read, a reset still pending is applied; once its state
 * was put, it runs from that state instead of a pending reset.
 */
struct KVMVcpu;
bool kvm_vcpu_before_save(struct KVMVcpu *cpu, Error **errp);
void kvm_vcpu_after_load(struct KVMVcpu *cpu);
/* The VM's own state, the clock (kvm-all.c): AccelOps' vm_vmstate. */
struct VMStateDescription;
const struct VMStateDescription *kvm_vm_vmstate(void);
void *kvm_vm_state(void);

#endif
