/*
 * nmi: counts the NMIs it is sent (QMP inject-nmi, HMP nmi) while it
 * halts with interrupts off, so only an NMI can wake it. Each NMI prints
 * "nmi: received N" from the vector 2 handler.
 */
#include "guest.h"

const char guest_name[] = "nmi";

static volatile unsigned nmis;

static void nmi_handler(struct irq_frame *f)
{
    nmis++;
    printf("nmi: received %u\n", nmis);
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    idt_init();
    idt_set_handler(2, nmi_handler);
    printf("nmi: waiting\n");
    for (;;) {
        asm volatile("cli; hlt" ::: "memory");
    }
}
