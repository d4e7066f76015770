/*
 * A 64-bit IDT whose 256 gates all lead to isr_dispatch; programs hook
 * the vectors they expect, anything else ends the run with its details.
 */
#include "guest.h"
#include "asm.h"

struct idt_gate {
    uint16_t offset0;
    uint16_t selector;
    uint8_t ist;
    uint8_t type;                       /* present, DPL 0, interrupt gate */
    uint16_t offset1;
    uint32_t offset2;
    uint32_t reserved;
} __attribute__((packed));

struct idt_desc {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

#define GATE_INTERRUPT  0x8e
#define VEC_UD          6

extern const char isr_stubs[], user_return[];
_Noreturn void user_exit(uint64_t result);
static struct idt_gate idt[256] __attribute__((aligned(16)));
static irq_handler handlers[256];

void idt_init(void)
{
    struct idt_desc desc = { sizeof(idt) - 1, (uintptr_t)idt };

    for (int v = 0; v < 256; v++) {
        uint64_t stub = (uintptr_t)isr_stubs + 16 * v;
        idt[v] = (struct idt_gate) {
            .offset0 = stub,
            .selector = SEL_CODE64,
            .type = GATE_INTERRUPT,
            .offset1 = stub >> 16,
            .offset2 = stub >> 32,
        };
    }
    asm volatile("lidt %0" : : "m"(desc));
}

void idt_set_handler(unsigned vector, irq_handler h)
{
    handlers[vector] = h;
}

void idt_load_empty(void)
{
    struct idt_desc desc = { 0, 0 };

    asm volatile("lidt %0" : : "m"(desc));
}

void isr_dispatch(struct irq_frame *f);

void isr_dispatch(struct irq_frame *f)
{
    /* UD2 at user_return: the end of a run_user call (user.S). */
    if (f->vector == VEC_UD && (f->cs & 3) &&
        f->rip == (uintptr_t)user_return) {
        user_exit(f->rax);
    }
    if (handlers[f->vector]) {
        handlers[f->vector](f);
        return;
    }
    if (f->vector == SPURIOUS_VECTOR) {
        return;                         /* no EOI for spurious interrupts */
    }
    guest_fail_status(GUEST_UNEXPECTED,
                      "unexpected vector %lu error 0x%lx rip 0x%lx cr2 0x%lx",
                      f->vector, f->error, f->rip, read_cr2());
}
