/*
 * timer: interrupts from three sources, each counted to a fixed number
 * and then stopped, so the output does not depend on how fast time runs:
 *   - the LAPIC timer, periodic, 1 ms;
 *   - the RTC periodic interrupt (1024 Hz, register B PIE) on ISA IRQ 8,
 *     routed through IOAPIC pin 8;
 *   - the PIT, channel 0 rate generator at ~1 kHz, on ISA IRQ 0, which a
 *     PC wires to IOAPIC pin 2 (the MADT's interrupt source override).
 */
#include "guest.h"

const char guest_name[] = "timer";

#define VEC_LAPIC_TIMER 0x40
#define VEC_RTC         0x48
#define VEC_PIT         0x42
#define VEC_WAKEUP      0x41
#define TICKS           20

#define CMOS_INDEX      0x70
#define CMOS_DATA       0x71
#define CMOS_NMI_OFF    0x80
#define RTC_REG_A       0x0a
#define RTC_REG_B       0x0b
#define RTC_REG_C       0x0c
#define RTC_A_1024HZ    0x26            /* 32.768 kHz base, rate 6 */
#define RTC_B_PIE       0x40
#define RTC_IRQ_PIN     8

#define PIT_CH0         0x40
#define PIT_CMD         0x43
#define PIT_CH0_RATE    0x34            /* channel 0, lo/hi, mode 2 */
#define PIT_DIVISOR     1193            /* 1.193182 MHz / 1193 ~ 1 kHz */
#define PIT_IRQ_PIN     2

static volatile unsigned lapic_ticks, rtc_ticks, pit_ticks;

/* One more interrupt may slip in before a source is stopped: count to
 * TICKS only, so the printed counts are exact. */
static void count_tick(volatile unsigned *count)
{
    if (*count < TICKS) {
        (*count)++;
    }
}

static uint8_t cmos_read(uint8_t reg)
{
    outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
    return inb(CMOS_DATA);
}

static void cmos_write(uint8_t reg, uint8_t v)
{
    outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
    outb(CMOS_DATA, v);
}

static void on_lapic_timer(struct irq_frame *f)
{
    count_tick(&lapic_ticks);
    lapic_eoi();
}

static void on_rtc(struct irq_frame *f)
{
    /* Reading C acknowledges the RTC; without it IRQ 8 stays high. */
    cmos_read(RTC_REG_C);
    count_tick(&rtc_ticks);
    lapic_eoi();
}

static void on_pit(struct irq_frame *f)
{
    count_tick(&pit_ticks);
    lapic_eoi();
}

static void on_wakeup(struct irq_frame *f)
{
    lapic_eoi();
}

/*
 * Halt until *count reaches TICKS, failing after ~2 s.  A 1 ms one-shot
 * LAPIC timer ends every halt, so a source that never fires cannot hang
 * the program.
 */
static void wait_ticks(volatile unsigned *count, const char *what)
{
    for (int i = 0; i < 2000 && *count < TICKS; i++) {
        lapic_timer_oneshot(VEC_WAKEUP, 1000000);
        wait_for_interrupt();
    }
    lapic_timer_stop();
    if (*count < TICKS) {
        guest_fail("%s: %u of %u interrupts", what, *count, TICKS);
    }
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    uint32_t bsp = lapic_id();

    idt_set_handler(VEC_LAPIC_TIMER, on_lapic_timer);
    idt_set_handler(VEC_RTC, on_rtc);
    idt_set_handler(VEC_PIT, on_pit);
    idt_set_handler(VEC_WAKEUP, on_wakeup);

    lapic_timer_periodic(VEC_LAPIC_TIMER, 1000000);
    while (lapic_ticks < TICKS) {
        wait_for_interrupt();
    }
    lapic_timer_stop();
    printf("timer: lapic timer periodic: %u ticks\n", lapic_ticks);

    cmos_write(RTC_REG_A, RTC_A_1024HZ);
    cmos_read(RTC_REG_C);
    ioapic_route(RTC_IRQ_PIN, VEC_RTC, bsp);
    cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) | RTC_B_PIE);
    wait_ticks(&rtc_ticks, "rtc");
    cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) & ~RTC_B_PIE);
    ioapic_mask(RTC_IRQ_PIN);
    printf("timer: rtc irq 8 via ioapic pin 8: %u interrupts\n", rtc_ticks);

    ioapic_route(PIT_IRQ_PIN, VEC_PIT, bsp);
    outb(PIT_CMD, PIT_CH0_RATE);
    outb(PIT_CH0, PIT_DIVISOR & 0xff);
    outb(PIT_CH0, PIT_DIVISOR >> 8);
    wait_ticks(&pit_ticks, "pit");
    ioapic_mask(PIT_IRQ_PIN);
    printf("timer: pit irq 0 via ioapic pin 2: %u interrupts\n", pit_ticks);

    guest_pass();
}
