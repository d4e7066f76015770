/*
 * The 8254 programmable interval timer ("isa-pit") and the PC's port
 * 0x61 (NMI status and control: channel 2's gate, the speaker enable,
 * the refresh toggle and channel 2's output), used under tcg and qtest;
 * under kvm the in-kernel PIT stays.
 *
 * Ports: 0x40-0x42 are the counters, 0x43 the control word (counter
 * latch, read-back, mode setting). Channel 0's OUT drives the unnamed
 * GPIO out pin (ISA IRQ 0 unless the board rewires it), channel 1 is
 * the old DRAM refresh counter, channel 2 feeds the speaker and is
 * gated by port 0x61 bit 0 (QEMU's "pcspk": bit 1 the speaker data, bit
 * 4 the refresh toggle, bit 5 channel 2's OUT; no sound here).
 *
 * Time: the counters are clocked at 1.193182 MHz derived from
 * QEMU_CLOCK_VIRTUAL on a fixed grid: CLK edge k falls at
 * ceil(k * 1e9 / 1193182) ns, so under qtest clock_step moves the
 * counters exactly. A written count reaches the counting element at
 * the next CLK edge (the datasheet's "load" pulse); nothing is
 * decremented between edges. Channel 0 arms a virtual-clock timer for
 * the next change of OUT instead of polling; a timer that fires late
 * still produces every edge it missed, up to PIT_MAX_LAG_NS behind.
 *
 * Mode semantics follow the Intel 8254 datasheet: a new count in modes
 * 2 and 3 waits for the end of the current period (mode 2) or
 * half-cycle (mode 3), modes 1 and 5 wait for a rising gate, GATE low
 * suspends modes 0 and 4 and stops modes 2 and 3 with OUT high. After
 * reset nothing counts until programmed, as with KVM's PIT. The control
 * port reads 0 (it is write-only); port 0x61's refresh bit follows the
 * virtual clock.
 */
#include <stdint.h>

#include "hw/isa.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define PIT_FREQ            1193182
#define PIT_NUM_CHANNELS    3
#define PIT_NONE            INT64_MAX
/* A timer this far behind resynchronizes instead of replaying edges. */
#define PIT_MAX_LAG_NS      NANOSECONDS_PER_SECOND
/* Port 0x61: the refresh request toggles every 15.085 us on a PC. */
#define PIT_REFRESH_NS      15085

#define CTRL_SC(v)          (((v) >> 6) & 3)
#define CTRL_RW(v)          (((v) >> 4) & 3)
#define CTRL_MODE(v)        (((v) >> 1) & 7)
#define CTRL_BCD            0x01
#define CTRL_READ_BACK      3
#define RW_LATCH            0
#define RW_LSB              1
#define RW_MSB              2
#define RW_LSB_MSB          3
#define READ_BACK_NO_COUNT  0x20
#define READ_BACK_NO_STATUS 0x10
#define STATUS_OUT          0x80
#define STATUS_NULL_COUNT   0x40

#define SPK_GATE2           0x01
/*
 * Gate and speaker data read back; the parity and IOCHK enables (bits
 * 2-3) read 0, as on QEMU's pcspk and KVM's speaker port.
 */
#define SPK_RW_BITS         0x03
#define SPK_REFRESH         0x10
#define SPK_OUT2            0x20

/*
 * A count being counted: the counting element holds n (1..65536, or
 * 1..10000 in BCD) from CLK edge load_tick on; before that edge OUT
 * keeps its state from before the load. d = tick - start counts the
 * edges since the count was (notionally) loaded; start lies before
 * load_tick only when a square wave resumes in its low half.
 */
typedef struct PITSegment {
    uint32_t n;
    int64_t start;
    int64_t load_tick;
} PITSegment;

typedef struct PITChannel {
    uint8_t mode;           /* 0-5 */
    uint8_t ctrl;           /* control word bits 5-0, for the status */
    bool bcd;
    uint8_t rw;             /* RW_LSB, RW_MSB, RW_LSB_MSB */
    uint16_t cr;            /* the count register as written */
    bool has_cr;            /* a count was written since the mode */
    bool null_count;        /* CR written, waiting for a gate to load */
    uint8_t cr_lsb;
    bool write_msb_next;
    bool read_msb_next;
    bool gate;

    bool running;           /* cur is valid */
    PITSegment cur;
    bool pending;           /* next takes over at next.load_tick */
    PITSegment next;
    bool frozen;            /* modes 0 and 4 with GATE low */
    int64_t frozen_d;
    uint32_t held;          /* what the counter reads while not running */

    bool count_latched;
    uint16_t latch;
    bool latch_msb_next;
    bool status_latched;
    uint8_t status;

    /* Channel 0: the output line and its timer. */
    qemu_irq *irq;
    QEMUTimer *timer;
    bool irq_level;
    int64_t timer_ns;       /* when the armed timer is due */
} PITChannel;

typedef struct PITState {
    DeviceState parent;
    uint16_t iobase;
    MemoryRegion io;
    MemoryRegion speaker_io;
    qemu_irq irq;
    PITChannel ch[PIT_NUM_CHANNELS];
    uint8_t port61;         /* the writable bits of port 0x61 */
} PITState;

static int64_t pit_tick(int64_t ns)
{
    return (int64_t)((__int128)ns * PIT_FREQ / NANOSECONDS_PER_SECOND);
}

static int64_t pit_tick_ns(int64_t tick)
{
    return (int64_t)(((__int128)tick * NANOSECONDS_PER_SECOND +
                      PIT_FREQ - 1) / PIT_FREQ);
}

static int64_t pit_now_tick(void)
{
    return pit_tick(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
}

static uint32_t pit_modulus(PITChannel *c)
{
    return c->bcd ? 10000 : 65536;
}

/* The decimal count a written CR stands for (0 is the maximum). */
static uint32_t pit_cr_count(PITChannel *c)
{
    uint32_t v = c->cr;

    if (c->bcd) {
        v = 0;
        for (int shift = 12; shift >= 0; shift -= 4) {
            unsigned digit = (c->cr >> shift) & 0xf;

            if (digit > 9) {
                qemu_log_mask(LOG_GUEST_ERROR, "i8254: count 0x%04x is not "
                              "BCD\n", c->cr);
            }
            v = v * 10 + digit;
        }
        v %= 10000;
    }
    return v ? v : pit_modulus(c);
}

static uint16_t pit_encode(PITChannel *c, uint32_t v)
{
    if (!c->bcd) {
        return v & 0xffff;
    }
    v %= 10000;
    return (v / 1000) << 12 | (v / 100 % 10) << 8 | (v / 10 % 10) << 4 |
           (v % 10);
}

/* OUT before any count is loaded: low in mode 0, high otherwise. */
static bool pit_initial_out(PITChannel *c)
{
    return c->mode != 0;
}

/* OUT d edges into a count of n. */
static bool pit_out_d(PITChannel *c, uint32_t n, int64_t d)
{
    switch (c->mode) {
    case 0:
    case 1:
        return d >= n;
    case 2:
        return d % n != n - 1;
    case 3:
        return d % n < (n + 1) / 2;
    default:
        return d != n;
    }
}

/* The counting element d edges into a count of n. */
static uint32_t pit_count_d(PITChannel *c, uint32_t n, int64_t d)
{
    uint32_t m = pit_modulus(c);
    uint32_t h = (n + 1) / 2;
    uint32_t k;

    switch (c->mode) {
    case 2:
        k = d % n;
        return (k ? n - k : n) % m;
    case 3:
        /*
         * Counts down by two; an odd count spends one extra edge in the
         * high half (N, N-1, N-3, ...) and one less in the low half
         * (N, N-3, ...).
         */
        k = d % n;
        if (k < h) {
            return (k == 0 ? n : n - 2 * k + (n & 1)) % m;
        }
        k -= h;
        return (k == 0 ? n : n - 2 * k - (n & 1)) % m;
    default:
        return (uint32_t)((((int64_t)n - d) % m + m) % m);
    }
}

/* The smallest d' > d where OUT changes, or PIT_NONE. */
static int64_t pit_next_d(PITChannel *c, uint32_t n, int64_t d)
{
    int64_t k, h = (n + 1) / 2;

    switch (c->mode) {
    case 0:
    case 1:
        return d < n ? n : PIT_NONE;
    case 2:
        if (n == 1) {
            return PIT_NONE;
        }
        k = d % n;
        return k == n - 1 ? d + 1 : d + (n - 1 - k);
    case 3:
        if (n == 1) {
            return PIT_NONE;
        }
        k = d % n;
        return k < h ? d + (h - k) : d + (n - k);
    default:
        if (d < n) {
            return n;
        }
        return d == n ? n + 1 : PIT_NONE;
    }
}

/*
 * A pending count takes over once its edge has come. Reads need not
 * call this (pit_segment_at looks at the time); state changes do.
 */
static void pit_sync(PITChannel *c, int64_t tick)
{
    if (c->pending && tick >= c->next.load_tick) {
        c->cur = c->next;
        c->pending = false;
    }
}

static const PITSegment *pit_segment_at(PITChannel *c, int64_t tick)
{
    return c->pending && tick >= c->next.load_tick ? &c->next : &c->cur;
}

static bool pit_out_at(PITChannel *c, int64_t tick)
{
    const PITSegment *s = pit_segment_at(c, tick);

    if (!c->running) {
        return pit_initial_out(c);
    }
    if (c->frozen) {
        return pit_out_d(c, s->n, c->frozen_d);
    }
    if (tick < s->load_tick) {
        return pit_initial_out(c);
    }
    return pit_out_d(c, s->n, tick - s->start);
}

static uint32_t pit_count_at(PITChannel *c, int64_t tick)
{
    const PITSegment *s = pit_segment_at(c, tick);

    if (!c->running) {
        return c->held;
    }
    if (c->frozen) {
        return pit_count_d(c, s->n, c->frozen_d);
    }
    if (tick < s->load_tick) {
        return s->n % pit_modulus(c);
    }
    return pit_count_d(c, s->n, tick - s->start);
}

/* The first edge after tick where OUT changes within segment s. */
static int64_t pit_segment_next(PITChannel *c, const PITSegment *s,
                                int64_t tick)
{
    int64_t d;

    if (tick < s->load_tick) {
        if (pit_out_d(c, s->n, s->load_tick - s->start) !=
            pit_initial_out(c)) {
            return s->load_tick;
        }
        tick = s->load_tick;
    }
    d = pit_next_d(c, s->n, tick - s->start);
    return d == PIT_NONE ? PIT_NONE : s->start + d;
}

static int64_t pit_next_change(PITChannel *c, int64_t tick)
{
    int64_t t;

    if (!c->running || c->frozen) {
        return PIT_NONE;
    }
    if (!c->pending || tick >= c->next.load_tick) {
        return pit_segment_next(c, pit_segment_at(c, tick), tick);
    }
    t = pit_segment_next(c, &c->cur, tick);
    if (t < c->next.load_tick) {
        return t;
    }
    if (pit_out_at(c, c->next.load_tick) != pit_out_at(c, tick)) {
        return c->next.load_tick;
    }
    return pit_segment_next(c, &c->next, c->next.load_tick);
}

/* Bring the IRQ line to OUT at tick and arm the timer for the next edge. */
static void pit_update_irq(PITChannel *c, int64_t tick)
{
    int64_t next;
    bool out;

    if (!c->timer) {
        return;
    }
    out = pit_out_at(c, tick);
    if (out != c->irq_level) {
        c->irq_level = out;
        qemu_set_irq(*c->irq, out);
    }
    next = pit_next_change(c, tick);
    if (next == PIT_NONE) {
        timer_del(c->timer);
        return;
    }
    c->timer_ns = pit_tick_ns(next);
    timer_mod(c->timer, c->timer_ns);
}

static void pit_timer_cb(void *opaque)
{
    PITChannel *c = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t due = c->timer_ns;

    /*
     * Evaluate at the edge the timer was armed for, not at now, so a
     * late callback still shows every transition; far behind (a host
     * stall), start again from now.
     */
    if (now - due > PIT_MAX_LAG_NS) {
        due = now;
    }
    pit_sync(c, pit_tick(due));
    pit_update_irq(c, pit_tick(due));
}

/* Start counting n from the next CLK edge. */
static void pit_start(PITChannel *c, uint32_t n, int64_t tick)
{
    c->running = true;
    c->pending = false;
    c->frozen = false;
    c->null_count = false;
    c->cur = (PITSegment) { .n = n, .start = tick + 1, .load_tick = tick + 1 };
    if (!c->gate && (c->mode == 0 || c->mode == 4)) {
        /* Loaded, but GATE low holds the count. */
        c->frozen = true;
        c->frozen_d = 0;
    }
}

/* Stop counting; the counter keeps reading what it holds now. */
static void pit_stop(PITChannel *c, int64_t tick)
{
    c->held = pit_count_at(c, tick);
    c->running = false;
    c->pending = false;
    c->frozen = false;
}

/*
 * A new count in mode 2 or 3 while counting: it is loaded at the end of
 * the current period (mode 2) or half-cycle (mode 3).
 */
static void pit_reload_later(PITChannel *c, uint32_t n, int64_t tick)
{
    uint32_t on = c->cur.n;
    int64_t d = tick - c->cur.start;
    int64_t k = d % on, h = (on + 1) / 2;
    int64_t edge;

    c->pending = true;
    c->null_count = false;
    c->next.n = n;
    if (c->mode == 2) {
        edge = c->cur.start + d - k + on;
        c->next.start = edge;
    } else if (k < h) {
        /* The high half ends: the new count starts in its low half. */
        edge = c->cur.start + d - k + h;
        c->next.start = edge - (n + 1) / 2;
    } else {
        edge = c->cur.start + d - k + on;
        c->next.start = edge;
    }
    c->next.load_tick = edge;
}

/* The count register is complete: what loading it means per mode. */
static void pit_load_cr(PITChannel *c, int64_t tick)
{
    uint32_t n = pit_cr_count(c);

    c->has_cr = true;
    switch (c->mode) {
    case 0:
    case 4:
        pit_start(c, n, tick);
        break;
    case 1:
    case 5:
        /* Counting begins at the next rising edge of GATE. */
        c->null_count = true;
        break;
    default:
        if (!c->gate) {
            c->null_count = true;
        } else if (c->running && tick >= c->cur.load_tick) {
            pit_reload_later(c, n, tick);
        } else {
            pit_start(c, n, tick);
        }
        break;
    }
}

static void pit_set_gate(PITChannel *c, bool gate, int64_t tick)
{
    bool rising = gate && !c->gate;

    if (gate == c->gate) {
        return;
    }
    c->gate = gate;
    switch (c->mode) {
    case 0:
    case 4:
        if (!c->running) {
            break;
        }
        if (!gate) {
            if (tick < c->cur.load_tick) {
                c->cur.start = c->cur.load_tick = tick;
            }
            c->frozen = true;
            c->frozen_d = tick - c->cur.start;
        } else if (c->frozen) {
            c->frozen = false;
            c->cur.start = tick - c->frozen_d;
            c->cur.load_tick = MIN(c->cur.load_tick, c->cur.start);
        }
        break;
    case 1:
    case 5:
        if (rising && c->has_cr) {
            pit_start(c, pit_cr_count(c), tick);
        }
        break;
    default:
        if (!gate) {
            if (c->running) {
                pit_stop(c, tick);
            }
            if (c->has_cr) {
                c->null_count = true;
            }
        } else if (c->has_cr) {
            pit_start(c, pit_cr_count(c), tick);
        }
        break;
    }
}

static uint8_t pit_status(PITChannel *c, int64_t tick)
{
    bool null = c->null_count || c->pending ||
                (c->running && !c->frozen && tick < c->cur.load_tick);

    return (pit_out_at(c, tick) ? STATUS_OUT : 0) |
           (null ? STATUS_NULL_COUNT : 0) | c->ctrl;
}

static void pit_latch_count(PITChannel *c, int64_t tick)
{
    if (!c->count_latched) {
        c->latch = pit_encode(c, pit_count_at(c, tick));
        c->count_latched = true;
        c->latch_msb_next = c->rw == RW_MSB;
    }
}

static void pit_set_mode(PITChannel *c, uint8_t val, int64_t tick)
{
    if (c->running) {
        pit_stop(c, tick);
    }
    c->ctrl = val & 0x3f;
    c->rw = CTRL_RW(val);
    c->mode = CTRL_MODE(val);
    if (c->mode > 5) {
        c->mode -= 4;   /* 110 and 111 are modes 2 and 3 */
    }
    c->bcd = val & CTRL_BCD;
    c->has_cr = false;
    c->null_count = true;
    c->write_msb_next = false;
    c->read_msb_next = false;
    c->count_latched = false;
    c->status_latched = false;
}

static void pit_write_control(PITState *s, uint8_t val, int64_t tick)
{
    PITChannel *c;

    if (CTRL_SC(val) == CTRL_READ_BACK) {
        for (int i = 0; i < PIT_NUM_CHANNELS; i++) {
            c = &s->ch[i];
            if (!(val & (2 << i))) {
                continue;
            }
            if (!(val & READ_BACK_NO_COUNT)) {
                pit_latch_count(c, tick);
            }
            if (!(val & READ_BACK_NO_STATUS) && !c->status_latched) {
                c->status = pit_status(c, tick);
                c->status_latched = true;
            }
        }
        return;
    }
    c = &s->ch[CTRL_SC(val)];
    if (CTRL_RW(val) == RW_LATCH) {
        pit_latch_count(c, tick);
    } else {
        pit_set_mode(c, val, tick);
        pit_update_irq(c, tick);
    }
}

static void pit_write_counter(PITChannel *c, uint8_t val, int64_t tick)
{
    switch (c->rw) {
    case RW_LSB:
        c->cr = val;
        break;
    case RW_MSB:
        c->cr = val << 8;
        break;
    default:
        if (!c->write_msb_next) {
            c->cr_lsb = val;
            c->write_msb_next = true;
            if (c->mode == 0 && c->running) {
                /* The first byte stops the count; OUT goes low. */
                pit_stop(c, tick);
            }
            pit_update_irq(c, tick);
            return;
        }
        c->cr = c->cr_lsb | val << 8;
        c->write_msb_next = false;
        break;
    }
    pit_load_cr(c, tick);
    pit_update_irq(c, tick);
}

static uint8_t pit_read_counter(PITChannel *c, int64_t tick)
{
    uint16_t v;
    bool msb;

    if (c->status_latched) {
        c->status_latched = false;
        return c->status;
    }
    if (c->count_latched) {
        msb = c->latch_msb_next;
        if (c->rw == RW_LSB_MSB && !msb) {
            c->latch_msb_next = true;
        } else {
            c->count_latched = false;
        }
        return msb ? c->latch >> 8 : c->latch & 0xff;
    }
    v = pit_encode(c, pit_count_at(c, tick));
    switch (c->rw) {
    case RW_LSB:
        return v & 0xff;
    case RW_MSB:
        return v >> 8;
    default:
        msb = c->read_msb_next;
        c->read_msb_next = !msb;
        return msb ? v >> 8 : v & 0xff;
    }
}

static uint64_t pit_io_read(void *opaque, uint64_t addr, unsigned size)
{
    PITState *s = opaque;
    int64_t tick = pit_now_tick();
    PITChannel *c;

    if (addr == 3) {
        return 0;   /* the control word is write-only */
    }
    c = &s->ch[addr];
    return pit_read_counter(c, tick);
}

static void pit_io_write(void *opaque, uint64_t addr, uint64_t value,
                         unsigned size)
{
    PITState *s = opaque;
    int64_t tick = pit_now_tick();

    for (int i = 0; i < PIT_NUM_CHANNELS; i++) {
        pit_sync(&s->ch[i], tick);
    }
    if (addr == 3) {
        pit_write_control(s, value, tick);
    } else {
        pit_write_counter(&s->ch[addr], value, tick);
    }
}

static const MemoryRegionOps pit_io_ops = {
    .read = pit_io_read,
    .write = pit_io_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

static uint64_t pit_speaker_read(void *opaque, uint64_t addr, unsigned size)
{
    PITState *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    PITChannel *c = &s->ch[2];
    int64_t tick = pit_tick(now);

    return (s->port61 & SPK_RW_BITS) |
           ((now / PIT_REFRESH_NS) & 1 ? SPK_REFRESH : 0) |
           (pit_out_at(c, tick) ? SPK_OUT2 : 0);
}

static void pit_speaker_write(void *opaque, uint64_t addr, uint64_t value,
                              unsigned size)
{
    PITState *s = opaque;
    PITChannel *c = &s->ch[2];
    int64_t tick = pit_now_tick();

    s->port61 = value & SPK_RW_BITS;
    pit_sync(c, tick);
    pit_set_gate(c, value & SPK_GATE2, tick);
}

static const MemoryRegionOps pit_speaker_ops = {
    .read = pit_speaker_read,
    .write = pit_speaker_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

/*
 * Reset: no channel counts until the guest programs it, OUT is low and
 * channel 2's gate is low. This is what KVM's in-kernel PIT does, and
 * this board has no firmware to program the PIT (QEMU's userspace PIT
 * starts channel 0 at 18.2 Hz instead, for its BIOS to take over).
 */
static void pit_reset(DeviceState *dev)
{
    PITState *s = (PITState *)dev;
    int64_t tick = pit_now_tick();

    s->port61 = 0;
    for (int i = 0; i < PIT_NUM_CHANNELS; i++) {
        PITChannel *c = &s->ch[i];

        c->gate = i != 2;
        c->running = false;
        c->held = 0;
        pit_set_mode(c, RW_LSB_MSB << 4, tick);
        pit_update_irq(c, tick);
    }
}

static bool pit_realize(DeviceState *dev, Error **errp)
{
    PITState *s = (PITState *)dev;
    PITChannel *c0 = &s->ch[0];

    memory_region_init_io(&s->io, "pit", &pit_io_ops, s, 4);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    memory_region_init_io(&s->speaker_io, "pcspk", &pit_speaker_ops, s, 1);
    if (!isa_register_ioport(dev, &s->speaker_io, 0x61, errp)) {
        memory_region_finalize(&s->speaker_io);
        memory_region_finalize(&s->io);
        return false;
    }
    s->irq = isa_get_irq(0);
    qdev_init_gpio_out_named(dev, &s->irq, NULL, 1);
    c0->irq = &s->irq;
    c0->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, pit_timer_cb, c0);
    pit_reset(dev);
    return true;
}

static void pit_unrealize(DeviceState *dev)
{
    PITState *s = (PITState *)dev;

    timer_free(s->ch[0].timer);
    s->ch[0].timer = NULL;
    memory_region_finalize(&s->speaker_io);
    memory_region_finalize(&s->io);
}

static const Property pit_props[] = {
    DEFINE_PROP_UINT16("iobase", PITState, iobase, 0x40),
    PROP_END,
};

/* Migration: each channel's counting segments, latches and timer. */
static const VMStateDescription vmstate_pit_segment = {
    .name = "pit-segment",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U32(PITSegment, n),
        VMSTATE_I64(PITSegment, start),
        VMSTATE_I64(PITSegment, load_tick),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_pit_channel = {
    .name = "pit-channel",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(PITChannel, mode, VMS_RANGE(0, 5)),
        VMSTATE_U8(PITChannel, ctrl, VMS_RANGE(0, 0x3f)),
        VMSTATE_BOOL(PITChannel, bcd),
        VMSTATE_U8(PITChannel, rw, VMS_RANGE(0, 3)),
        VMSTATE_U16(PITChannel, cr),
        VMSTATE_BOOL(PITChannel, has_cr),
        VMSTATE_BOOL(PITChannel, null_count),
        VMSTATE_U8(PITChannel, cr_lsb),
        VMSTATE_BOOL(PITChannel, write_msb_next),
        VMSTATE_BOOL(PITChannel, read_msb_next),
        VMSTATE_BOOL(PITChannel, gate),
        VMSTATE_BOOL(PITChannel, running),
        VMSTATE_STRUCT(PITChannel, cur, PITSegment, vmstate_pit_segment),
        VMSTATE_BOOL(PITChannel, pending),
        VMSTATE_STRUCT(PITChannel, next, PITSegment, vmstate_pit_segment),
        VMSTATE_BOOL(PITChannel, frozen),
        VMSTATE_I64(PITChannel, frozen_d),
        VMSTATE_U32(PITChannel, held),
        VMSTATE_BOOL(PITChannel, count_latched),
        VMSTATE_U16(PITChannel, latch),
        VMSTATE_BOOL(PITChannel, latch_msb_next),
        VMSTATE_BOOL(PITChannel, status_latched),
        VMSTATE_U8(PITChannel, status),
        VMSTATE_BOOL(PITChannel, irq_level),
        VMSTATE_I64(PITChannel, timer_ns),
        VMSTATE_END
    },
};

/* Channel 0's timer is the only one armed; the others have none. */
static const VMStateDescription vmstate_pit = {
    .name = "isa-pit",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(PITState, ch, PIT_NUM_CHANNELS, PITChannel,
                             vmstate_pit_channel),
        VMSTATE_TIMER(PITState, ch[0].timer),
        VMSTATE_U8(PITState, port61),
        VMSTATE_END
    },
};
const DeviceClass i8254_device_class = {
    .name = "isa-pit",
    .parent = "isa-device",
    .desc = "8254 programmable interval timer and port 0x61",
    .instance_size = sizeof(PITState),
    .props = pit_props,
    .user_creatable = false,
    .realize = pit_realize,
    .reset = pit_reset,
    .vmsd = &vmstate_pit,
    .unrealize = pit_unrealize,
};

DEVICE_CLASS_REGISTER(i8254_device_class)
