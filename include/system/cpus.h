/*
 * The big lock (BQL). Device models are not thread safe: whoever touches
 * a device, the machine's run state or the monitor holds it.
 *
 * Under an accelerator with vCPU threads (kvm), the main thread takes it
 * once (bql_init_main_loop()) and keeps it, dropping it only while glib
 * polls for events; vCPU threads take it around each PIO/MMIO dispatch.
 * Under qtest there is one thread and the lock is never taken.
 */
#ifndef SYSTEM_CPUS_H
#define SYSTEM_CPUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "qemu/error.h"
#include "qom/object.h"

void bql_lock(void);
void bql_unlock(void);
/* True when this thread holds the lock. */
bool bql_locked(void);
/* Wait on cond with the lock released, as g_cond_wait. */
void bql_cond_wait(GCond *cond);

/*
 * The main thread takes the lock and keeps it, releasing it only while
 * the glib main context polls. bql_fini_main_loop() undoes it (at exit,
 * after the vCPU threads are gone).
 */
void bql_init_main_loop(void);
void bql_fini_main_loop(void);

struct MachineState;
struct X86BootState;
struct X86CPUDef;
struct X86CPUIDEntry;

/*
 * The vCPUs. The board asks for them once (vcpus_create) and frees them
 * in its cleanup (vcpus_destroy); the run state pauses and resumes them;
 * each call goes to the ops of the accelerator that runs the VM
 * (registered by accel_configure()). An accelerator with no vCPUs
 * (qtest) still creates what the CPUs carry (their local APICs).
 */
typedef struct AccelOps {
    /*
     * Create ms->smp_cpus vCPUs (model and features from -cpu, topology
     * from -smp) with their local APICs, parked until the VM runs; each
     * gets its record with cpu_state_add(), in index order.
     */
    bool (*create_vcpus)(struct MachineState *ms, Error **errp);
    /*
     * Reset every vCPU: vCPU 0 starts in boot (NULL: at the reset
     * vector), the others wait for INIT/SIPI. With the vCPUs paused.
     */
    void (*reset_vcpus)(const struct X86BootState *boot);
    /* With the big lock: no vCPU runs guest code once pause returns. */
    void (*pause_vcpus)(void);
    void (*resume_vcpus)(void);
    /* Undo create_vcpus (threads joined, APICs freed). */
    void (*destroy_vcpus)(void);
    /*
     * The vCPUs' model is AMD's with 40 or more physical address bits, so
     * the PC reserves AMD's HyperTransport range below 1 TiB, as QEMU
     * does (QEMU's TCG models are). QEMU does it under KVM on AMD hosts
     * too; kvm does not answer yet, since the guest outputs recorded from
     * QEMU on Intel hosts have no such range. May be NULL.
     */
    bool (*amd_ht_hole)(void);
    /*
     * Append vCPU index's registers in QEMU's "info registers" layout.
     * Called with the vCPUs paused. May be NULL (no vCPUs).
     */
    void (*dump_vcpu)(unsigned index, GString *out);
    /*
     * Deliver a message-signalled interrupt: addr in the local APICs'
     * 0xfeexxxxx window (destination, mode), data (vector, delivery
     * mode, trigger), as the PCI spec and Intel SDM 10.11 encode them.
     * With the big lock. May be NULL (the message is dropped).
     */
    void (*deliver_msi)(uint64_t addr, uint32_t data);
    /*
     * Eventfds the accelerator signals or reads in place of exits, where
     * it can; NULL (or false, or -errno) where it cannot, and devices
     * keep MMIO exits and deliver_msi. has_ioeventfds: it takes the
     * memory regions' ioeventfds (memory_region_add_eventfd()) in
     * address_space_memory, of any write size. msi_irqfd_add: writing
     * eventfd fd raises the message addr/data (KVM: a GSI route of its
     * own and an irqfd); returns the route's number for update (aim it
     * at another message) and del. With the big lock.
     */
    bool (*has_ioeventfds)(void);
    int (*msi_irqfd_add)(uint64_t addr, uint32_t data, int fd);
    int (*msi_irqfd_update)(int route, uint64_t addr, uint32_t data);
    void (*msi_irqfd_del)(int route, int fd);
    /*
     * Migration: the field table of one vCPU's state and the struct it
     * describes for vCPU index (the table's pre_save/post_load may move
     * the registers to and from the accelerator). With the vCPUs
     * paused. NULL: the vCPUs cannot migrate. The table's name is the
     * stream's section name, so each accelerator names its own ("cpu"
     * for tcg, "kvm-cpu").
     */
    const struct VMStateDescription *(*vcpu_vmstate)(void);
    void *(*vcpu_state)(unsigned index);
    /*
     * The VM's own state besides the vCPUs' and the devices' (KVM: its
     * clock), one section, instance 0: saved after the guest clock and
     * before the vCPUs, loaded in that order. NULL: none.
     */
    const struct VMStateDescription *(*vm_vmstate)(void);
    void *(*vm_state)(void);
    /*
     * The CPUID table that vCPU 0 of a one-vCPU machine with model def
     * would get (query-cpu-model-expansion): the number of entries put
     * in out, or 0 with errp set. NULL: no CPU models to expand.
     */
    unsigned (*model_cpuid)(const struct X86CPUDef *def,
                            struct X86CPUIDEntry *out, unsigned max,
                            Error **errp);
    /*
     * An NMI on vCPU index (QMP inject-nmi), which kicks it out of guest
     * code to take it. With the big lock. NULL: not supported.
     */
    void (*inject_nmi)(unsigned index);
} AccelOps;

void cpus_register_accel(const AccelOps *ops);
bool vcpus_create(struct MachineState *ms, Error **errp);
void vcpus_reset(const struct X86BootState *boot);
void vcpus_pause(void);
void vcpus_resume(void);
void vcpus_destroy(void);
bool vcpus_amd_ht_hole(void);
/* An MSI to the APICs, through the accelerator (kvm: KVM_SIGNAL_MSI). */
void vcpus_deliver_msi(uint64_t addr, uint32_t data);
/* The accelerator's eventfd paths (AccelOps); -ENOSYS where it has none. */
bool vcpus_has_ioeventfds(void);
int vcpus_msi_irqfd_add(uint64_t addr, uint32_t data, int fd);
int vcpus_msi_irqfd_update(int route, uint64_t addr, uint32_t data);
void vcpus_msi_irqfd_del(int route, int fd);
/*
 * The registers of vCPU index (all of them, each after "\nCPU#N\n", when
 * index is -1), pausing the vCPUs around it if the VM runs. False when
 * there is no such vCPU.
 */
bool vcpus_dump(int index, GString *out);
/* The accelerator's vCPU state table and vCPU index's state, or NULL. */
const struct VMStateDescription *vcpus_vmstate(void);
void *vcpus_state(unsigned index);
/* The accelerator's VM-wide state table and its struct, or NULL. */
const struct VMStateDescription *vcpus_vm_vmstate(void);
void *vcpus_vm_state(void);
/* An NMI on every vCPU (QMP inject-nmi); false with errp where none. */
bool vcpus_inject_nmi(Error **errp);
/* The accelerator's model_cpuid, or an error where it has none. */
unsigned vcpus_model_cpuid(const struct X86CPUDef *def,
                           struct X86CPUIDEntry *out, unsigned max,
                           Error **errp);

/*
 * One vCPU as the rest of the emulator sees it (query-cpus-fast, QOM);
 * the accelerator keeps its own state beside it.
 */
typedef struct CPUState {
    unsigned index;                     /* 0 .. smp_cpus-1 */
    uint32_t apic_id;
    unsigned socket, core, thread;      /* topology IDs */
    bool no_topology;                   /* none of them (machine none) */
    pid_t thread_id;                    /* host thread running it */
    Object *obj;                        /* /machine/unattached/device[N] */
    void *opaque;                       /* the accelerator's vCPU */
} CPUState;

/*
 * The record of the next vCPU, with its QOM object of type (QEMU's CPUs
 * are the first unattached devices) whose properties are props over
 * state (both may be NULL). The records go with vcpus_destroy().
 */
CPUState *cpu_state_add(const char *type, void *opaque, void *state,
                        const Property *props, Error **errp);
unsigned cpu_state_count(void);
CPUState *cpu_state_get(unsigned index);
/* query-cpus-fast's list, as QEMU gives it for x86 (caller owns it). */
JsonArray *cpus_query_fast(void);

#endif
