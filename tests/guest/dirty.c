/*
 * dirty: writes guest RAM so the host has to back it, for RSS, mem-lock
 * and teardown measurements.
 *   dirty=N       rep stosq over N MiB from 2 MiB (default 16 when no
 *                 option is given), then checks one word per page;
 *   dirty_high=N  writes an address-derived pattern over N MiB from 4 GiB
 *                 and reads all of it back, which catches RAM above 4 GiB
 *                 aliased onto low RAM.
 *   sweep=N       for bench/compaction.py: writes one word in every 4 KiB
 *                 page of N MiB from 2 MiB, over and over for seconds=S
 *                 (default 30), and every 100 ms prints the pages swept
 *                 as MiB/s.  Its output depends on time: no expected file.
 *   rate=R        with sweep: at most R MiB/s (pages written per 100 ms
 *                 slice, then the slice waits out its time), the fixed
 *                 dirty rate of bench/migrate.py.
 * Progress is printed every 64 MiB.  The loops run at CPL 3 (run_user),
 * which hosts like kvm_pvm execute natively and CPL 0 not.
 */
#include "guest.h"

const char guest_name[] = "dirty";

#define LOW_START   (2 * MiB)
#define HIGH_START  (4 * GiB)
#define STEP        (64 * MiB)
#define LOW_FILL    0xd1d1d1d1d1d1d1d1ul
#define HIGH_XOR    0x5a5aa5a5c3c33c3cul

/* One chunk of work for run_user; a mismatch address or 0 comes back. */
static struct {
    uint64_t start, len;
} job;

static uint64_t fill_low(uint64_t unused)
{
    void *p = (void *)(uintptr_t)job.start;
    uint64_t words = job.len / 8;

    asm volatile("rep stosq" : "+D"(p), "+c"(words) : "a"(LOW_FILL)
                 : "memory");
    return 0;
}

static uint64_t check_low(uint64_t unused)
{
    for (uint64_t a = job.start; a < job.start + job.len; a += 4096) {
        if (*(volatile uint64_t *)a != LOW_FILL) {
            return a;
        }
    }
    return 0;
}

static uint64_t fill_high(uint64_t unused)
{
    for (uint64_t a = job.start; a < job.start + job.len; a += 8) {
        *(volatile uint64_t *)a = a ^ HIGH_XOR;
    }
    return 0;
}

static uint64_t check_high(uint64_t unused)
{
    for (uint64_t a = job.start; a < job.start + job.len; a += 8) {
        if (*(volatile uint64_t *)a != (a ^ HIGH_XOR)) {
            return a;
        }
    }
    return 0;
}

/*
 * The sweep: CPL 3 writes one word per page from job.start + sweep.cursor
 * on, wrapping at job.len, until the TSC passes sweep.deadline, and
 * returns the pages it wrote.  The TSC is checked every 64 pages.
 */
static struct {
    uint64_t cursor, deadline, pass, budget;
} sweep;

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t sweep_until(uint64_t unused)
{
    uint64_t pages = 0;

    do {
        if (pages >= sweep.budget) {
            continue;           /* this slice's pages are written: wait */
        }
        for (int i = 0; i < 64; i++) {
            *(volatile uint64_t *)(job.start + sweep.cursor) = sweep.pass;
            sweep.cursor += 4096;
            if (sweep.cursor >= job.len) {
                sweep.cursor = 0;
                sweep.pass++;
            }
        }
        pages += 64;
    } while (rdtsc() < sweep.deadline);
    return pages;
}

static uint64_t option_mib(const char *cmdline, const char *key, bool *given)
{
    const char *v = cmdline_value(cmdline, key);
    bool ok;

    *given = v != NULL;
    if (!v) {
        return 0;
    }
    uint64_t n = parse_u64(v, &ok);
    if (!ok) {
        guest_fail("%s wants a number of MiB", key);
    }
    return n;
}

/* Is [base, base+len) inside one available region of the memory map? */
static bool ram_covers(struct mb_info *mb, uint64_t base, uint64_t len)
{
    uintptr_t p = mb->mmap_addr, end = p + mb->mmap_length;

    for (; p < end; p += ((struct mb_mmap_entry *)p)->size + 4) {
        struct mb_mmap_entry *e = (struct mb_mmap_entry *)p;
        if (e->type == MB_MEMORY_AVAILABLE && e->addr <= base &&
            e->addr + e->len >= base + len) {
            return true;
        }
    }
    return false;
}

static void dirty_low(struct mb_info *mb, uint64_t mib)
{
    uint64_t start = LOW_START;

    /* Leave the loader's modules alone. */
    if (mb->flags & MB_INFO_MODS) {
        struct mb_module *m = (struct mb_module *)(uintptr_t)mb->mods_addr;
        for (uint32_t i = 0; i < mb->mods_count; i++) {
            while (m[i].mod_end > start) {
                start += 2 * MiB;
            }
        }
    }
    if (!ram_covers(mb, start, mib * MiB)) {
        guest_fail("dirty=%lu: no RAM at 0x%lx-0x%lx", mib, start,
                   start + mib * MiB - 1);
    }
    printf("dirty: writing %lu MiB at 0x%lx\n", mib, start);
    for (uint64_t done = 0; done < mib * MiB; ) {
        uint64_t n = mib * MiB - done < STEP ? mib * MiB - done : STEP;
        job.start = start + done;
        job.len = n;
        run_user(fill_low, 0);
        done += n;
        printf("dirty: %lu MiB\n", done / MiB);
    }
    job.start = start;
    job.len = mib * MiB;
    uint64_t bad = run_user(check_low, 0);
    if (bad) {
        guest_fail("dirty: 0x%lx reads 0x%lx", bad, *(uint64_t *)bad);
    }
    printf("dirty: %lu MiB verified\n", mib);
}

static void dirty_high(struct mb_info *mb, uint64_t mib)
{
    uint64_t len = mib * MiB;

    if (!ram_covers(mb, HIGH_START, len)) {
        guest_fail("dirty_high=%lu: no RAM at 0x%lx-0x%lx", mib, HIGH_START,
                   HIGH_START + len - 1);
    }
    if (!paging_map(HIGH_START, len, PTE_KERNEL_RW)) {
        guest_fail("dirty_high=%lu: out of page tables", mib);
    }
    printf("dirty_high: writing %lu MiB at 0x%lx\n", mib, HIGH_START);
    for (uint64_t done = 0; done < len; ) {
        uint64_t n = len - done < STEP ? len - done : STEP;
        job.start = HIGH_START + done;
        job.len = n;
        run_user(fill_high, 0);
        done += n;
        printf("dirty_high: %lu MiB\n", done / MiB);
    }
    job.start = HIGH_START;
    job.len = len;
    uint64_t bad = run_user(check_high, 0);
    if (bad) {
        guest_fail("dirty_high: 0x%lx reads 0x%lx, wrote 0x%lx", bad,
                   *(uint64_t *)bad, bad ^ HIGH_XOR);
    }
    printf("dirty_high: %lu MiB verified\n", mib);
}

static void sweep_loop(struct mb_info *mb, uint64_t mib, uint64_t seconds,
                       uint64_t rate)
{
    uint64_t t0, tsc_per_ms, start_tsc, ms = 0;

    if (!mib || !ram_covers(mb, LOW_START, mib * MiB)) {
        guest_fail("sweep=%lu: no RAM at 0x%lx-0x%lx", mib, LOW_START,
                   LOW_START + mib * MiB - 1);
    }
    /* The LAPIC timer counts at 1 GHz: it tells the TSC's rate. */
    t0 = rdtsc();
    lapic_udelay(50000);
    tsc_per_ms = (rdtsc() - t0) / 50;
    printf("sweep: %lu MiB at 0x%lx for %lu s, TSC %lu kHz\n", mib,
           LOW_START, seconds, tsc_per_ms);
    job.start = LOW_START;
    job.len = mib * MiB;
    /* The first pass makes the working set resident. */
    sweep.cursor = 0;
    sweep.pass = 1;
    sweep.budget = UINT64_MAX;
    while (sweep.pass == 1) {
        sweep.deadline = rdtsc() + 100 * tsc_per_ms;
        run_user(sweep_until, 0);
    }
    printf("sweep: %lu MiB resident\n", mib);
    if (rate) {
        /* Pages per 100 ms slice, rounded up to sweep_until's 64. */
        sweep.budget = (rate * MiB / 4096 / 10 + 63) / 64 * 64;
        printf("sweep: at most %lu MiB/s\n", rate);
    }
    start_tsc = rdtsc();
    while (ms < seconds * 1000) {
        uint64_t pages, prev_ms = ms;

        sweep.deadline = start_tsc + (ms + 100) * tsc_per_ms;
        pages = run_user(sweep_until, 0);
        ms = (rdtsc() - start_tsc) / tsc_per_ms;
        printf("sweep: t=%lu ms %lu MiB/s\n", ms,
               pages * 4096 * 1000 / MiB / (ms > prev_ms ? ms - prev_ms : 1));
    }
    printf("sweep: %lu passes\n", sweep.pass - 1);
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    const char *cmdline = "";
    bool low_given, high_given;

    if (mb->flags & MB_INFO_CMDLINE) {
        cmdline = (const char *)(uintptr_t)mb->cmdline;
    }
    if (!(mb->flags & MB_INFO_MEM_MAP)) {
        guest_fail("no memory map");
    }
    uint64_t low = option_mib(cmdline, "dirty", &low_given);
    uint64_t high = option_mib(cmdline, "dirty_high", &high_given);
    bool sweep_given, seconds_given;
    uint64_t sweep_mib = option_mib(cmdline, "sweep", &sweep_given);
    uint64_t seconds = option_mib(cmdline, "seconds", &seconds_given);
    bool rate_given;
    uint64_t rate = option_mib(cmdline, "rate", &rate_given);

    if (sweep_given) {
        sweep_loop(mb, sweep_mib, seconds_given ? seconds : 30, rate);
        guest_pass();
    }
    if (!low_given && !high_given) {
        low = 16;
    }
    if (low) {
        dirty_low(mb, low);
    }
    if (high) {
        dirty_high(mb, high);
    }
    guest_pass();
}
