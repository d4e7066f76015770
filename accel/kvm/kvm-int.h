/*
 * What kvm-all.c (the VM) and kvm-cpus.c (the vCPUs) share.
 */
#ifndef ACCEL_KVM_INT_H
#define ACCEL_KVM_INT_H

#include <stdbool.h>

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
/* The vCPUs (kvm-cpus.c); destroyed by the board before the VM goes. */
extern const struct AccelOps kvm_accel_ops;

#endif
