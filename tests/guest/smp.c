/*
 * smp: reads the CPU count from fw_cfg, wakes every other CPU with the
 * INIT-SIPI-SIPI broadcast (all excluding self, so no MADT is needed),
 * and waits for each to reach long mode and check in.  Output lists the
 * APIC IDs that checked in, in order, so it does not depend on timing.
 * Then each AP in turn plays TSC ping-pong with the BSP: each side reads
 * its TSC after seeing the other's reading, which it must not be below
 * (the TSCs of a board start together and tick together; Linux checks
 * the same before it trusts them).
 */
#include "guest.h"
#include "asm.h"

const char guest_name[] = "smp";

#define ICR_INIT            0x00000500
#define ICR_STARTUP         0x00000600
#define ICR_ASSERT          0x00004000
#define ICR_ALL_BUT_SELF    0x000c0000

extern const char ap_trampoline[], ap_trampoline_end[];
static volatile uint32_t ap_count;
static volatile uint64_t ap_seen;       /* bit per APIC ID below 64 */
#define TSC_ROUNDS          100
#define TSC_NOBODY          0xffffffffu
static volatile uint32_t tsc_turn = TSC_NOBODY;   /* the AP playing */
static volatile uint64_t tsc_ping, tsc_pong;    /* the BSP's, the AP's */
static volatile uint32_t tsc_backwards, tsc_exchanges;

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return lo | (uint64_t)hi << 32;
}

void ap_main(void);

void ap_main(void)
{
    uint32_t id = lapic_id();

    if (id < 64) {
        __atomic_fetch_or(&ap_seen, 1ull << id, __ATOMIC_SEQ_CST);
    }
    __atomic_fetch_add(&ap_count, 1, __ATOMIC_SEQ_CST);

    while (tsc_turn != id) {
        cpu_relax();
    }
    for (int i = 0; i < TSC_ROUNDS; i++) {
        uint64_t seen;

        while (!(seen = tsc_ping)) {
            cpu_relax();
        }
        if (rdtsc() < seen) {
            tsc_backwards++;
        }
        tsc_pong = rdtsc();
        tsc_ping = 0;
        while (tsc_pong) {
            cpu_relax();
        }
    }
    tsc_turn = TSC_NOBODY;
}

/* The BSP's side of the ping-pong with the AP with APIC ID id. */
static void tsc_play(uint32_t id)
{
    tsc_turn = id;
    for (int i = 0; i < TSC_ROUNDS; i++) {
        uint64_t seen;

        tsc_ping = rdtsc();
        while (tsc_ping) {
            cpu_relax();
        }
        seen = tsc_pong;
        if (rdtsc() < seen) {
            tsc_backwards++;
        }
        tsc_exchanges += 2;
        tsc_pong = 0;
    }
    while (tsc_turn != TSC_NOBODY) {
        cpu_relax();
    }
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    uint16_t ncpus;
    uint32_t bsp = lapic_id();

    if (!fw_cfg_present()) {
        guest_fail("no fw_cfg signature");
    }
    fw_cfg_read(FW_CFG_NB_CPUS, &ncpus, sizeof(ncpus));
    printf("smp: fw_cfg reports %u cpus, bsp apic-id %u\n", ncpus, bsp);
    if (ncpus < 1 || ncpus > MAX_CPUS) {
        guest_fail("cpu count %u outside 1..%u", ncpus, MAX_CPUS);
    }

    memcpy((void *)TRAMPOLINE_BASE, ap_trampoline,
           ap_trampoline_end - ap_trampoline);
    /* The MP specification's sequence: INIT, 10 ms, SIPI, 200 us, SIPI. */
    lapic_send_ipi(0, ICR_ALL_BUT_SELF | ICR_ASSERT | ICR_INIT);
    lapic_udelay(10000);
    for (int i = 0; i < 2; i++) {
        lapic_send_ipi(0, ICR_ALL_BUT_SELF | ICR_ASSERT | ICR_STARTUP |
                       (TRAMPOLINE_BASE >> 12));
        lapic_udelay(200);
    }
    /* Up to 2 s for slow (emulated real mode) starts, then 10 ms more
     * so a CPU too many is seen too. */
    for (int ms = 0; ms < 2000 && ap_count < ncpus - 1u; ms++) {
        lapic_udelay(1000);
    }
    lapic_udelay(10000);

    uint32_t online = ap_count + 1;
    for (int id = 0; id < 64; id++) {
        if (id == (int)bsp || (ap_seen & (1ull << id))) {
            printf("smp: cpu apic-id %d online%s\n", id,
                   id == (int)bsp ? " (bsp)" : "");
        }
    }
    printf("smp: cpus: %u/%u\n", online, ncpus);
    if (online != ncpus) {
        guest_fail("%u of %u cpus checked in", online, ncpus);
    }
    for (int id = 0; id < 64; id++) {
        if (id != (int)bsp && (ap_seen & (1ull << id))) {
            tsc_play(id);
        }
    }
    if (tsc_backwards) {
        guest_fail("TSC went backwards between CPUs %u times in %u "
                   "exchanges", tsc_backwards, tsc_exchanges);
    }
    printf("smp: TSC never below the other CPU's reading (%u exchanges)\n",
           tsc_exchanges);
    guest_pass();
}
