/*
 * IRQ lines.
 */
#include <glib.h>

#include "hw/irq.h"

struct IRQState {
    qemu_irq_handler handler;
    void *opaque;
    int n;
};

qemu_irq qemu_allocate_irq(qemu_irq_handler handler, void *opaque, int n)
{
    qemu_irq irq = g_new0(struct IRQState, 1);

    irq->handler = handler;
    irq->opaque = opaque;
    irq->n = n;
    return irq;
}

qemu_irq *qemu_allocate_irqs(qemu_irq_handler handler, void *opaque, int n)
{
    qemu_irq *irqs = g_new0(qemu_irq, n);

    for (int i = 0; i < n; i++) {
        irqs[i] = qemu_allocate_irq(handler, opaque, i);
    }
    return irqs;
}

void qemu_free_irq(qemu_irq irq)
{
    g_free(irq);
}

void qemu_free_irqs(qemu_irq *irqs, int n)
{
    if (!irqs) {
        return;
    }
    for (int i = 0; i < n; i++) {
        qemu_free_irq(irqs[i]);
    }
    g_free(irqs);
}

void qemu_set_irq(qemu_irq irq, int level)
{
    if (!irq) {
        return;
    }
    if (irq->handler) {
        irq->handler(irq->opaque, irq->n, level);
    }
}

void qemu_irq_intercept(qemu_irq *irqs, qemu_irq_handler handler,
                        void *opaque, int n)
{
    for (int i = 0; i < n; i++) {
        irqs[i]->handler = handler;
        irqs[i]->opaque = opaque;
        irqs[i]->n = i;
    }
}
