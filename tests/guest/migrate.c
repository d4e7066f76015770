/*
 * migrate: a workload for live migration tests. It writes pseudo-random
 * words over a 16 MiB region from 8 MiB, keeping a running checksum of
 * the region (each write adds new - old, old read back from memory), and
 * counts LAPIC timer (1 ms periodic) and PIT (IOAPIC pin 2, ~1 kHz)
 * interrupts. Every 64Ki writes it sums the whole region and prints
 *   migrate: scan N ok lapic=L pit=P
 * or, when the sum disagrees (a page lost or stale), "scan N BAD" and
 * fails. A lost write stays in the checksum's difference for good, so
 * any page a migration missed shows at the next scan. It runs until the
 * machine is stopped; scans=N ends it after N scans. mib=N (1..16) keeps
 * the region to N MiB and each scan's writes to 4Ki per MiB: a scan
 * under a slow KVM (nested, every interrupt an exit) stays short.
 */
#include "guest.h"

const char guest_name[] = "migrate";

#define REGION_START    (8 * MiB)
#define REGION_MAX_MIB  16
#define WRITES_PER_MIB  (4 * 1024)
#define VEC_LAPIC_TIMER 0x40
#define VEC_PIT         0x42
#define PIT_CMD         0x43
#define PIT_CH0         0x40
#define PIT_RATE_MODE   0x34
#define PIT_DIVISOR     1193
#define PIT_IOAPIC_PIN  2

static volatile unsigned lapic_ticks, pit_ticks;
static uint64_t checksum;
static uint64_t rng = 0x2545f4914f6cdd1dull;

static void on_lapic_timer(struct irq_frame *f)
{
    lapic_ticks++;
    lapic_eoi();
}

static void on_pit(struct irq_frame *f)
{
    pit_ticks++;
    lapic_eoi();
}

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t region_words = REGION_MAX_MIB * MiB / 8;

static uint64_t region_sum(void)
{
    volatile uint64_t *w = (volatile uint64_t *)REGION_START;
    uint64_t sum = 0;

    for (uint64_t i = 0; i < region_words; i++) {
        sum += w[i];
    }
    return sum;
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    volatile uint64_t *w = (volatile uint64_t *)REGION_START;
    const char *cmdline = (mb->flags & MB_INFO_CMDLINE)
                          ? (const char *)(uintptr_t)mb->cmdline : "";
    const char *arg = cmdline_value(cmdline, "scans");
    uint64_t scans = 0, mib = REGION_MAX_MIB, writes;
    bool ok = true;

    if (arg) {
        scans = parse_u64(arg, &ok);
    }
    arg = cmdline_value(cmdline, "mib");
    if (arg) {
        mib = parse_u64(arg, &ok);
    }
    if (!ok || mib < 1 || mib > REGION_MAX_MIB) {
        guest_fail("bad scans= or mib= (1..16)");
    }
    region_words = mib * MiB / 8;
    writes = mib * WRITES_PER_MIB;
    idt_set_handler(VEC_LAPIC_TIMER, on_lapic_timer);
    idt_set_handler(VEC_PIT, on_pit);
    lapic_timer_periodic(VEC_LAPIC_TIMER, 1000000);
    ioapic_route(PIT_IOAPIC_PIN, VEC_PIT, lapic_id());
    outb(PIT_CMD, PIT_RATE_MODE);
    outb(PIT_CH0, PIT_DIVISOR & 0xff);
    outb(PIT_CH0, PIT_DIVISOR >> 8);
    asm volatile("sti");
    checksum = region_sum();
    printf("migrate: start sum=%lx\n", checksum);
    for (uint64_t scan = 1; !scans || scan <= scans; scan++) {
        uint64_t sum;

        for (uint64_t i = 0; i < writes; i++) {
            uint64_t r = next_random(), at = r % region_words;
            uint64_t old = w[at];

            w[at] = r;
            checksum += r - old;
        }
        sum = region_sum();
        if (sum != checksum) {
            printf("migrate: scan %lu BAD sum=%lx expected=%lx\n", scan, sum,
                   checksum);
            guest_fail("checksum mismatch");
        }
        printf("migrate: scan %lu ok lapic=%u pit=%u\n", scan, lapic_ticks,
               pit_ticks);
    }
    guest_pass();
}
