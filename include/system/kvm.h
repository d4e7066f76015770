/*
 * KVM accelerator state shared with the machine.
 */
#ifndef SYSTEM_KVM_H
#define SYSTEM_KVM_H

#include <stdbool.h>

/* True once the kvm accelerator runs this VM. */
bool kvm_enabled(void);
/* The /dev/kvm and VM file descriptors, or -1. */
int kvm_get_fd(void);
int kvm_get_vm_fd(void);

#endif
