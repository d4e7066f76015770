/*
 * IRQ lines: a device raises or lowers a line; the sink is whatever the
 * board connected (the KVM irqchip, a userspace interrupt controller,
 * or a qtest interceptor).
 */
#ifndef HW_IRQ_H
#define HW_IRQ_H

typedef struct IRQState *qemu_irq;
typedef void (*qemu_irq_handler)(void *opaque, int n, int level);

qemu_irq qemu_allocate_irq(qemu_irq_handler handler, void *opaque, int n);
/* n lines numbered 0..n-1 sharing handler and opaque. */
qemu_irq *qemu_allocate_irqs(qemu_irq_handler handler, void *opaque, int n);
void qemu_free_irq(qemu_irq irq);
void qemu_free_irqs(qemu_irq *irqs, int n);

/* A NULL line is not connected: setting it does nothing. */
void qemu_set_irq(qemu_irq irq, int level);

static inline void qemu_irq_raise(qemu_irq irq)
{
    qemu_set_irq(irq, 1);
}

static inline void qemu_irq_lower(qemu_irq irq)
{
    qemu_set_irq(irq, 0);
}

static inline void qemu_irq_pulse(qemu_irq irq)
{
    qemu_set_irq(irq, 1);
    qemu_set_irq(irq, 0);
}

/*
 * Replace the handler of existing lines in place, so every holder of
 * the line now reaches the new handler (qtest's irq_intercept_in).
 * Line i gets number i.
 */
void qemu_irq_intercept(qemu_irq *irqs, qemu_irq_handler handler,
                        void *opaque, int n);

#endif
