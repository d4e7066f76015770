/*
 * The I/O APIC's 24 input lines, GSIs (ISA IRQ n is GSI n):
 * hw/intc/ioapic.c turns them into APIC messages. Under kvm the board
 * creates "kvm-ioapic" instead (hw/i386/kvm/ioapic.c), whose inputs are
 * the in-kernel irqchip's GSIs. Under qtest, irq_intercept_in ioapic
 * replaces the inputs.
 */
#ifndef HW_INTC_IOAPIC_H
#define HW_INTC_IOAPIC_H

#define IOAPIC_NUM_PINS 24

/*
 * An EOI of a level-triggered vector (the board connects each local
 * APIC's EOIs to its I/O APIC): entries with that vector drop Remote IRR
 * and are serviced again if still asserted. ioapic: the device.
 */
void ioapic_eoi_notify(void *ioapic, uint8_t vector);

#endif
