/*
 * apictimer: the local APIC timer modes timer.c does not cover.
 *   - one-shot (1 ms at divide-by-1): exactly one interrupt, the current
 *     count stays 0 afterwards and nothing more arrives; writing an
 *     initial count of 0 stops a running one-shot; a one-shot of a
 *     single tick (it has expired by the time the write completes)
 *     still interrupts, each of 1000 times (what a tickless Linux asks
 *     for when its next event is due at once);
 *   - TSC-deadline (LVT mode 2, IA32_TSC_DEADLINE): fires once when the
 *     TSC passes the deadline and then reads 0; a deadline already in the
 *     past fires at once; writing 0 disarms.  Only where CPUID.01H:ECX[24]
 *     advertises it (QEMU: -cpu qemu64,+tsc-deadline; QEMU 7.2's TCG
 *     does not have it), else a line says so.
 * tsc_deadline=off skips the TSC-deadline part.  Waits are bounded by
 * the TSC (2^32 ticks, about a second or more), so a silent timer fails
 * the run instead of hanging it; nothing printed depends on time.
 */
#include "trial.h"

const char guest_name[] = "apictimer";

#define VEC_TIMER           0x40
#define LAPIC_IRR(v)        (0x200 + 0x10 * ((v) / 32))
#define LAPIC_LVT_TIMER     0x320
#define LAPIC_TMR_INIT      0x380
#define LAPIC_TMR_CUR       0x390
#define LVT_MASKED          (1u << 16)
#define LVT_TSC_DEADLINE    (2u << 17)
#define MSR_TSC_DEADLINE    0x6e0
#define CPUID_1_ECX_TSC_DEADLINE (1u << 24)
#define ONE_MS              1000000u    /* timer ticks at 1 GHz */
#define TSC_BOUND           (1ull << 32)
#define TSC_QUIET           (3ull << 20)    /* a few ms: no more events */

static volatile unsigned fired;

static void on_timer(struct irq_frame *f)
{
    fired++;
    lapic_eoi();
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return lo | (uint64_t)hi << 32;
}

static uint32_t lapic_reg(unsigned reg)
{
    return mmio_read32(LAPIC_BASE + reg);
}

static void lapic_set(unsigned reg, uint32_t v)
{
    mmio_write32(LAPIC_BASE + reg, v);
}

static bool irr_pending(void)
{
    return lapic_reg(LAPIC_IRR(VEC_TIMER)) & (1u << (VEC_TIMER % 32));
}

/* Spin (interrupts off) until done() or the TSC bound; false on timeout. */
static bool spin_until(bool (*done)(void))
{
    uint64_t start = rdtsc();

    while (!done()) {
        if (rdtsc() - start > TSC_BOUND) {
            return false;
        }
        cpu_relax();
    }
    return true;
}

static bool count_is_zero(void)
{
    return lapic_reg(LAPIC_TMR_CUR) == 0;
}

static bool deadline_is_zero(void)
{
    return rdmsr(MSR_TSC_DEADLINE) == 0;
}

/* The timer has expired: take its interrupt (sti; hlt wakes at once). */
static void take_interrupt(const char *what, unsigned want)
{
    uint64_t start = rdtsc();

    while (fired < want) {
        if (rdtsc() - start > TSC_BOUND) {
            guest_fail("%s: no interrupt", what);
        }
        wait_for_interrupt();
    }
    if (fired != want) {
        guest_fail("%s: %u interrupts, expected %u", what, fired, want);
    }
}

/* Let a few ms of TSC pass with interrupts off: nothing may arrive. */
static void expect_quiet_for(const char *what, unsigned want,
                             uint64_t ticks)
{
    uint64_t start = rdtsc();

    while (rdtsc() - start < ticks) {
        cpu_relax();
    }
    if (irr_pending() || fired != want) {
        guest_fail("%s: another interrupt (%u taken, IRR %d)", what, fired,
                   irr_pending());
    }
}

static void expect_quiet(const char *what, unsigned want)
{
    expect_quiet_for(what, want, TSC_QUIET);
}

static void check_oneshot(void)
{
    fired = 0;
    lapic_timer_oneshot(VEC_TIMER, ONE_MS);
    if (!spin_until(count_is_zero)) {
        guest_fail("one-shot: current count still 0x%x",
                   lapic_reg(LAPIC_TMR_CUR));
    }
    take_interrupt("one-shot", 1);
    expect_quiet("one-shot", 1);
    if (lapic_reg(LAPIC_TMR_CUR) != 0) {
        guest_fail("one-shot: current count 0x%x after expiry",
                   lapic_reg(LAPIC_TMR_CUR));
    }
    printf("apictimer: one-shot 1 ms: 1 interrupt, current count 0 after "
           "it, no second one\n");

    /*
     * 50 ms, and quiet for 200 M TSC ticks (over 50 ms at any TSC rate
     * up to 4 GHz): a host that preempts the vCPU between the two writes
     * (a software CPU on a loaded host) cannot make it expire first.
     */
    lapic_timer_oneshot(VEC_TIMER, 50 * ONE_MS);
    lapic_set(LAPIC_TMR_INIT, 0);
    if (lapic_reg(LAPIC_TMR_CUR) != 0) {
        guest_fail("one-shot stopped: current count 0x%x",
                   lapic_reg(LAPIC_TMR_CUR));
    }
    expect_quiet_for("one-shot stopped by initial count 0", 1,
                     200 * (uint64_t)ONE_MS);
    printf("apictimer: initial count 0 stopped a running one-shot\n");

    fired = 0;
    for (unsigned i = 1; i <= 1000; i++) {
        lapic_timer_oneshot(VEC_TIMER, 1);
        take_interrupt("one-shot of 1 tick", i);
    }
    printf("apictimer: one-shot of 1 tick, 1000 times: %u interrupts\n",
           fired);
    lapic_timer_stop();
}

static void check_tsc_deadline(void)
{
    uint32_t r[4];

    cpuid(1, 0, r);
    if (!(r[2] & CPUID_1_ECX_TSC_DEADLINE)) {
        printf("apictimer: TSC-deadline mode not advertised "
               "(CPUID.01H:ECX[24])\n");
        return;
    }
    fired = 0;
    lapic_set(LAPIC_LVT_TIMER, LVT_TSC_DEADLINE | VEC_TIMER);
    wrmsr(MSR_TSC_DEADLINE, rdtsc() + (1u << 20));
    if (!spin_until(deadline_is_zero)) {
        guest_fail("TSC-deadline: IA32_TSC_DEADLINE still 0x%lx",
                   rdmsr(MSR_TSC_DEADLINE));
    }
    take_interrupt("TSC-deadline", 1);
    expect_quiet("TSC-deadline", 1);
    printf("apictimer: TSC-deadline: 1 interrupt, IA32_TSC_DEADLINE 0 "
           "after it\n");

    wrmsr(MSR_TSC_DEADLINE, 1);
    take_interrupt("TSC-deadline in the past", 2);
    printf("apictimer: TSC-deadline in the past: fired at once\n");

    /* Far enough ahead that a preempted vCPU still disarms it first. */
    wrmsr(MSR_TSC_DEADLINE, rdtsc() + 50 * (uint64_t)ONE_MS);
    wrmsr(MSR_TSC_DEADLINE, 0);
    expect_quiet_for("TSC-deadline disarmed", 2, 100 * (uint64_t)ONE_MS);
    printf("apictimer: TSC-deadline: writing 0 disarmed it\n");
    lapic_set(LAPIC_LVT_TIMER, LVT_MASKED);
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    idt_set_handler(VEC_TIMER, on_timer);
    check_oneshot();
    if (option_on(mb, "tsc_deadline")) {
        check_tsc_deadline();
    } else {
        printf("apictimer: TSC-deadline skipped (tsc_deadline=off)\n");
    }
    guest_pass();
}
