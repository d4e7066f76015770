/*
 * The I/O APIC's 24 input lines (GSIs). Until the userspace interrupt
 * controllers land, an input only records its level and forwards it to
 * the accelerator's irqchip hook (KVM's in-kernel IOAPIC); under qtest,
 * irq_intercept_in ioapic replaces the inputs.
 */
#ifndef HW_INTC_IOAPIC_H
#define HW_INTC_IOAPIC_H

#define IOAPIC_NUM_PINS 24

/* Where GSI levels go: set by the accelerator (KVM_IRQ_LINE). */
void ioapic_set_irqchip_hook(void (*hook)(int gsi, int level));

#endif
