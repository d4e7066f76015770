/*
 * The I/O APIC's 24 input lines (GSIs). Under kvm an input goes to the
 * accelerator's irqchip hook (KVM's in-kernel IOAPIC); otherwise the
 * register model in hw/intc/ioapic.c turns it into an APIC message.
 * Under qtest, irq_intercept_in ioapic replaces the inputs.
 */
#ifndef HW_INTC_IOAPIC_H
#define HW_INTC_IOAPIC_H

#define IOAPIC_NUM_PINS 24

/* Where GSI levels go: set by the accelerator (KVM_IRQ_LINE). */
void ioapic_set_irqchip_hook(void (*hook)(int gsi, int level));

#endif
