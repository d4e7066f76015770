/*
 * The 8259 PICs (only to silence them), the local APIC in xAPIC mode and
 * the IOAPIC: all interrupts go through the APICs.
 */
#include "guest.h"

#define PIC1_CMD        0x20
#define PIC1_DATA       0x21
#define PIC2_CMD        0xa0
#define PIC2_DATA       0xa1

#define LAPIC_ID        0x020
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0b0
#define LAPIC_SVR       0x0f0
#define LAPIC_ICR_LO    0x300
#define LAPIC_ICR_HI    0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TMR_INIT  0x380
#define LAPIC_TMR_CUR   0x390
#define LAPIC_TMR_DIV   0x3e0

#define SVR_ENABLE      (1u << 8)
#define LVT_MASKED      (1u << 16)
#define LVT_PERIODIC    (1u << 17)
#define TMR_DIV_1       0xb
#define ICR_PENDING     (1u << 12)

#define IOAPIC_REGSEL   0x00
#define IOAPIC_WINDOW   0x10
#define IOAPIC_REDIR(pin) (0x10 + 2 * (pin))
#define REDIR_MASKED    (1u << 16)

void pic_disable(void)
{
    /*
     * Reinitialise rather than only mask: without a BIOS the PICs are in
     * their reset state, and moving them to vectors 0x20-0x2f keeps a
     * stray spurious IRQ 7 off the exception vectors.
     */
    outb(PIC1_CMD, 0x11);
    outb(PIC2_CMD, 0x11);
    outb(PIC1_DATA, 0x20);
    outb(PIC2_DATA, 0x28);
    outb(PIC1_DATA, 0x04);
    outb(PIC2_DATA, 0x02);
    outb(PIC1_DATA, 0x01);
    outb(PIC2_DATA, 0x01);
    outb(PIC1_DATA, 0xff);
    outb(PIC2_DATA, 0xff);
}

static uint32_t lapic_read(unsigned reg)
{
    return mmio_read32(LAPIC_BASE + reg);
}

static void lapic_write(unsigned reg, uint32_t v)
{
    mmio_write32(LAPIC_BASE + reg, v);
}

void lapic_init(void)
{
    lapic_write(LAPIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
    lapic_write(LAPIC_TPR, 0);
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
    lapic_write(LAPIC_TMR_DIV, TMR_DIV_1);
}

uint32_t lapic_id(void)
{
    return lapic_read(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
    lapic_write(LAPIC_EOI, 0);
}

void lapic_timer_periodic(uint8_t vector, uint32_t count)
{
    lapic_write(LAPIC_TMR_DIV, TMR_DIV_1);
    lapic_write(LAPIC_LVT_TIMER, LVT_PERIODIC | vector);
    lapic_write(LAPIC_TMR_INIT, count);
}

void lapic_timer_oneshot(uint8_t vector, uint32_t count)
{
    lapic_write(LAPIC_TMR_DIV, TMR_DIV_1);
    lapic_write(LAPIC_LVT_TIMER, vector);
    lapic_write(LAPIC_TMR_INIT, count);
}

void lapic_timer_stop(void)
{
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
    lapic_write(LAPIC_TMR_INIT, 0);
}

void lapic_udelay(uint32_t us)
{
    lapic_write(LAPIC_TMR_DIV, TMR_DIV_1);
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);       /* one-shot, silent */
    while (us) {
        uint32_t chunk = us > 4000000 ? 4000000 : us;
        lapic_write(LAPIC_TMR_INIT, chunk * 1000);
        while (lapic_read(LAPIC_TMR_CUR)) {
            cpu_relax();
        }
        us -= chunk;
    }
}

void lapic_send_ipi(uint32_t dest_apic_id, uint32_t icr_low)
{
    lapic_write(LAPIC_ICR_HI, dest_apic_id << 24);
    lapic_write(LAPIC_ICR_LO, icr_low);
    while (lapic_read(LAPIC_ICR_LO) & ICR_PENDING) {
        cpu_relax();
    }
}

static void ioapic_write(unsigned reg, uint32_t v)
{
    mmio_write32(IOAPIC_BASE + IOAPIC_REGSEL, reg);
    mmio_write32(IOAPIC_BASE + IOAPIC_WINDOW, v);
}

/* Fixed delivery, physical destination, edge, active high: ISA style. */
void ioapic_route(unsigned pin, uint8_t vector, uint32_t dest_apic_id)
{
    ioapic_write(IOAPIC_REDIR(pin) + 1, dest_apic_id << 24);
    ioapic_write(IOAPIC_REDIR(pin), vector);
}

void ioapic_mask(unsigned pin)
{
    ioapic_write(IOAPIC_REDIR(pin), REDIR_MASKED);
}
