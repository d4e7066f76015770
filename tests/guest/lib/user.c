/*
 * CPL 3 support.  Some KVM hosts (kvm_pvm) run a non-paravirtual guest's
 * CPL 0 code through the instruction emulator (~1 us per instruction)
 * but CPL 3 code natively, so programs do their heavy loops in user mode.
 * It also gives the software CPU privilege transitions to prove: IRETQ to
 * CPL 3, and an exception back through the TSS stack switch.
 */
#include "guest.h"
#include "asm.h"

#define TSS_AVAILABLE   0x89ull         /* present, 64-bit TSS */

struct tss {
    uint32_t reserved0;
    uint64_t rsp0, rsp1, rsp2;
    uint64_t reserved1, ist[7], reserved2;
    uint16_t reserved3, iomap_base;
} __attribute__((packed));

extern uint64_t gdt[GDT_ENTRIES];
static struct tss tss __attribute__((aligned(16)));
static uint8_t kernel_stack[8192] __attribute__((aligned(16)));
uint8_t user_stack[USER_STACK_SIZE] __attribute__((aligned(16)));

void user_init(void)
{
    uint64_t base = (uintptr_t)&tss;

    /* Exceptions taken at CPL 3 switch to this stack. */
    tss.rsp0 = (uintptr_t)kernel_stack + sizeof(kernel_stack);
    tss.iomap_base = sizeof(tss);       /* no I/O bitmap: no port access */
    gdt[SEL_TSS / 8] = (sizeof(tss) - 1) | (base & 0xffffff) << 16 |
                       TSS_AVAILABLE << 40 | ((base >> 24) & 0xff) << 56;
    gdt[SEL_TSS / 8 + 1] = base >> 32;
    asm volatile("ltr %w0" : : "r"(SEL_TSS));
}
