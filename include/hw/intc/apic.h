/*
 * Userspace interrupt controllers, used under tcg and qtest (under kvm
 * the in-kernel ones stay): the local APIC of each vCPU
 * (hw/intc/apic.c), the I/O APIC's registers (hw/intc/ioapic.c) and the
 * i8259 pair (hw/intc/i8259.c).
 *
 * How an interrupt travels:
 *   device -> ISA line n -> i8259 input n  -> PIC INT -> LINT0 of each
 *                                             APIC (ExtINT; the board
 *                                             wires it, and the INTA)
 *                        -> ioapic input n (0 goes to pin 2) -> redirection
 *                           entry -> apic_deliver_irq() -> target APICs
 *   APIC with something to deliver -> hooks->interrupt(cpu, true) ->
 *   the vCPU takes it between instructions with apic_get_interrupt().
 */
#ifndef HW_INTC_APIC_H
#define HW_INTC_APIC_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

#define APIC_DEFAULT_ADDRESS    0xfee00000ull
#define APIC_SPACE_SIZE         0x1000
#define IOAPIC_DEFAULT_ADDRESS  0xfec00000ull

/* Delivery modes (ICR, LVT, IOAPIC redirection entries). */
#define APIC_DM_FIXED   0
#define APIC_DM_LOWPRI  1
#define APIC_DM_SMI     2
#define APIC_DM_NMI     4
#define APIC_DM_INIT    5
#define APIC_DM_SIPI    6
#define APIC_DM_EXTINT  7

typedef struct APICState APICState;

/* What an APIC asks of its vCPU (the accelerator implements these). */
typedef struct APICCpuHooks {
    /* The APIC now has (level true) or no longer has an interrupt. */
    void (*interrupt)(void *cpu, bool level);
    void (*nmi)(void *cpu);
    void (*init)(void *cpu);
    void (*sipi)(void *cpu, uint8_t vector);
    /* Guest TSC now, and the virtual-clock time a TSC value is reached. */
    uint64_t (*get_tsc)(void *cpu);
    int64_t (*tsc_to_ns)(void *cpu, uint64_t tsc);
} APICCpuHooks;

/*
 * Create the APIC of one vCPU; bsp sets IA32_APIC_BASE.BSP. The MMIO
 * page at APIC_DEFAULT_ADDRESS is mapped once for all APICs (the first
 * apic_new maps it); an access reaches the APIC of the vCPU that makes
 * it (the access's MemTxAttrs name the vCPU, whose index is its APIC's),
 * or CPU 0's under qtest.
 */
APICState *apic_new(uint32_t apic_id, bool bsp, const APICCpuHooks *hooks,
                    void *cpu, Error **errp);
void apic_free(APICState *s);
/* Every APIC created, torn down at machine cleanup. */
void apic_free_all(void);
/* Power-on or INIT reset (INIT keeps the APIC ID and base). */
void apic_reset(APICState *s, bool init);

/* The CPU side: IA32_APIC_BASE, CR8 (TPR bits 7:4), TSC_DEADLINE. */
uint64_t apic_get_base(APICState *s);
bool apic_set_base(APICState *s, uint64_t value);   /* false: #GP */
uint8_t apic_get_cr8(APICState *s);
void apic_set_cr8(APICState *s, uint8_t value);
uint64_t apic_get_tsc_deadline(APICState *s);
void apic_set_tsc_deadline(APICState *s, uint64_t tsc);

/* Is an interrupt deliverable now (IRR above PPR, or ExtINT/PIC)? */
bool apic_has_interrupt(APICState *s);
/*
 * Acknowledge: the vector to deliver (IRR -> ISR; for ExtINT the PIC's
 * INTA cycle), or -1 if nothing is pending any more (spurious).
 */
int apic_get_interrupt(APICState *s);

/* A message from the IOAPIC (or an MSI later) to the APICs it names. */
void apic_deliver_irq(uint8_t dest, bool logical, uint8_t delivery_mode,
                      uint8_t vector, bool level_triggered);
/*
 * An MSI (Intel SDM 10.11): address bits 19:12 the destination, bit 2
 * logical mode; data bits 7:0 the vector, 10:8 the delivery mode, 15 the
 * trigger mode (level). tcg and qtest deliver MSIs with it.
 */
#define APIC_MSI_BASE           0xfee00000ull
#define APIC_MSI_SIZE           0x100000ull
void apic_deliver_msi(uint64_t addr, uint32_t data);

/*
 * The board wires an interrupt controller that answers ExtINT's INTA
 * cycle (the i8259's INT to LINT0): ack returns the vector, or -1.
 */
struct DeviceState;
void apic_set_extint_ack(struct DeviceState *apic, int (*ack)(void *opaque),
                         void *opaque);
/* The device ("lapic[N]", pins "lint", "inta", "intr") of APIC n, or NULL. */
struct DeviceState *apic_device(unsigned index);

/*
 * The board connects what learns of EOIs of level-triggered vectors
 * (the I/O APIC's Remote IRR: ioapic_eoi_notify).
 */
void apic_set_eoi_notify(struct DeviceState *apic,
                         void (*notify)(void *opaque, uint8_t vector),
                         void *opaque);


#endif
