/*
 * The MC146818 real-time clock with its 128 bytes of CMOS memory.
 *
 * Port 0x70 takes the register index (bit 7 is the PC's NMI mask, not
 * part of the index); port 0x71 reads and writes the register.
 *
 * Guest time is kept as an offset from a host clock (-rtc clock=host,
 * the default; clock=vm follows the virtual clock, clock=rt the host
 * monotonic clock) and is frozen while the SET bit or the divider stops
 * the clock. The time registers are computed from it when read. Once a
 * second the update ends: UF is set and the alarm compared (AF); UIP
 * reads as set during the last 244 us before that. The periodic
 * interrupt always runs on the virtual clock, counted in 32.768 kHz
 * cycles so that rates stay exact.
 */
#include <string.h>
#include <time.h>

#include "hw/boards.h"
#include "hw/isa.h"
#include "hw/rtc/mc146818rtc.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define RTC_CMOS_SIZE       128
#define RTC_FREQ            32768
/* UIP is set for 8 cycles of the 32.768 kHz clock before an update. */
#define RTC_UIP_HOLD_NS     (8 * NANOSECONDS_PER_SECOND / RTC_FREQ)
#define REG_A_DV_MASK       0x70
#define REG_A_DV_RESET      0x60    /* 11x: divider chain held in reset */
#define REG_A_RS_MASK       0x0f
#define REG_C_FLAGS         (REG_C_PF | REG_C_AF | REG_C_UF)

typedef struct RTCState {
    DeviceState parent;
    int32_t base_year;
    uint16_t iobase;
    uint8_t isairq;
    MemoryRegion io;
    qemu_irq irq;
    uint8_t cmos[RTC_CMOS_SIZE];
    uint8_t index;
    QEMUClockType clock;
    /* From the board (-rtc): the clock's name, the starting second. */
    char *clock_name;               /* host (NULL too) | rt | vm */
    int64_t start;                  /* RTC_START_NOW: the host's now */
    /* While running: guest time = clock + offset (seconds, ns 0..1e9). */
    int64_t offset_sec, offset_nsec;
    /* While stopped: the guest time it stopped at. */
    int64_t frozen_sec, frozen_nsec;
    QEMUTimer *update_timer;        /* on s->clock */
    QEMUTimer *periodic_timer;      /* on the virtual clock */
    int64_t period;                 /* in 32.768 kHz cycles, 0: off */
    int64_t next_periodic;          /* cycle of the next periodic tick */
} RTCState;

static bool rtc_running_with(uint8_t reg_a, uint8_t reg_b)
{
    /* Dividers 000, 001 and 010 count; 11x is reset; SET stops updates. */
    return !(reg_b & REG_B_SET) && (reg_a & REG_A_DV_MASK) <= 0x20;
}

static bool rtc_running(RTCState *s)
{
    return rtc_running_with(s->cmos[RTC_REG_A], s->cmos[RTC_REG_B]);
}

static void rtc_get_guest(RTCState *s, int64_t *sec, int64_t *nsec)
{
    int64_t now;

    if (!rtc_running(s)) {
        *sec = s->frozen_sec;
        *nsec = s->frozen_nsec;
        return;
    }
    now = qemu_clock_get_ns(s->clock);
    *sec = now / NANOSECONDS_PER_SECOND + s->offset_sec;
    *nsec = now % NANOSECONDS_PER_SECOND + s->offset_nsec;
    if (*nsec >= NANOSECONDS_PER_SECOND) {
        *nsec -= NANOSECONDS_PER_SECOND;
        (*sec)++;
    }
}

/* Make the running clock read (sec, nsec) now. */
static void rtc_set_guest(RTCState *s, int64_t sec, int64_t nsec)
{
    int64_t now = qemu_clock_get_ns(s->clock);

    s->offset_sec = sec - now / NANOSECONDS_PER_SECOND;
    s->offset_nsec = nsec - now % NANOSECONDS_PER_SECOND;
    if (s->offset_nsec < 0) {
        s->offset_nsec += NANOSECONDS_PER_SECOND;
        s->offset_sec--;
    }
    s->frozen_sec = sec;
    s->frozen_nsec = nsec;
}

static int rtc_to_bcd(RTCState *s, int v)
{
    if (s->cmos[RTC_REG_B] & REG_B_DM) {
        return v & 0xff;
    }
    return (((v / 10) % 10) << 4) | (v % 10);
}

/* Values 0xc0-0xff are "don't care" in alarms; decode them as -1. */
static int rtc_from_bcd(RTCState *s, int v)
{
    if ((v & 0xc0) == 0xc0) {
        return -1;
    }
    if (s->cmos[RTC_REG_B] & REG_B_DM) {
        return v;
    }
    return (v >> 4) * 10 + (v & 0x0f);
}

static int rtc_encode_hours(RTCState *s, int hour)
{
    int h12 = hour % 12 ? hour % 12 : 12;

    if (s->cmos[RTC_REG_B] & REG_B_24H) {
        return rtc_to_bcd(s, hour);
    }
    return rtc_to_bcd(s, h12) | (hour >= 12 ? 0x80 : 0);
}

static int rtc_decode_hours(RTCState *s, int reg)
{
    int hour = rtc_from_bcd(s, reg & 0x7f);

    if (!(s->cmos[RTC_REG_B] & REG_B_24H)) {
        hour = hour % 12 + (reg & 0x80 ? 12 : 0);
    }
    return hour;
}

/* Write guest second sec into the time registers, in the current format. */
static void rtc_sec_to_regs(RTCState *s, int64_t sec)
{
    time_t t = sec;
    struct tm tm;
    int year;

    if (!gmtime_r(&t, &tm)) {
        return;
    }
    year = tm.tm_year + 1900 - s->base_year;
    if (year < 0) {
        year = 0;
    }
    s->cmos[RTC_SECONDS] = rtc_to_bcd(s, tm.tm_sec);
    s->cmos[RTC_MINUTES] = rtc_to_bcd(s, tm.tm_min);
    s->cmos[RTC_HOURS] = rtc_encode_hours(s, tm.tm_hour);
    s->cmos[RTC_DAY_OF_WEEK] = rtc_to_bcd(s, tm.tm_wday + 1);
    s->cmos[RTC_DAY_OF_MONTH] = rtc_to_bcd(s, tm.tm_mday);
    s->cmos[RTC_MONTH] = rtc_to_bcd(s, tm.tm_mon + 1);
    s->cmos[RTC_YEAR] = rtc_to_bcd(s, year % 100);
    s->cmos[RTC_CENTURY] = rtc_to_bcd(s, year / 100);
}

/* The guest second the time registers say (out-of-range fields wrap). */
static int64_t rtc_regs_to_sec(RTCState *s)
{
    struct tm tm = { 0 };

    tm.tm_sec = rtc_from_bcd(s, s->cmos[RTC_SECONDS]);
    tm.tm_min = rtc_from_bcd(s, s->cmos[RTC_MINUTES]);
    tm.tm_hour = rtc_decode_hours(s, s->cmos[RTC_HOURS]);
    tm.tm_mday = rtc_from_bcd(s, s->cmos[RTC_DAY_OF_MONTH]);
    tm.tm_mon = rtc_from_bcd(s, s->cmos[RTC_MONTH]) - 1;
    tm.tm_year = rtc_from_bcd(s, s->cmos[RTC_YEAR]) + s->base_year +
                 rtc_from_bcd(s, s->cmos[RTC_CENTURY]) * 100 - 1900;
    return timegm(&tm);
}

/* Bring the time registers up to date when the clock runs. */
static void rtc_refresh_regs(RTCState *s)
{
    int64_t sec, nsec;

    if (rtc_running(s)) {
        rtc_get_guest(s, &sec, &nsec);
        rtc_sec_to_regs(s, sec);
    }
}

static bool rtc_update_in_progress(RTCState *s)
{
    int64_t sec, nsec;

    if (!rtc_running(s)) {
        return false;
    }
    rtc_get_guest(s, &sec, &nsec);
    return nsec >= NANOSECONDS_PER_SECOND - RTC_UIP_HOLD_NS;
}

/* Raise IRQ 8 when an enabled flag is set; it stays up until C is read. */
static void rtc_update_irq(RTCState *s)
{
    if (s->cmos[RTC_REG_C] & s->cmos[RTC_REG_B] & REG_C_FLAGS) {
        s->cmos[RTC_REG_C] |= REG_C_IRQF;
        qemu_irq_raise(s->irq);
    }
}

/* Arm the timer for the next update-ended event, when it can matter. */
static void rtc_arm_update(RTCState *s)
{
    int64_t sec, nsec;

    timer_del(s->update_timer);
    if (!rtc_running(s) ||
        (s->cmos[RTC_REG_C] & (REG_C_UF | REG_C_AF)) ==
            (REG_C_UF | REG_C_AF)) {
        return;     /* Nothing new to report until C is read. */
    }
    rtc_get_guest(s, &sec, &nsec);
    timer_mod(s->update_timer, qemu_clock_get_ns(s->clock) +
              NANOSECONDS_PER_SECOND - nsec);
}

static bool rtc_alarm_field_matches(RTCState *s, int reg, int value,
                                    bool hours)
{
    if ((reg & 0xc0) == 0xc0) {
        return true;
    }
    return (hours ? rtc_decode_hours(s, reg) : rtc_from_bcd(s, reg)) ==
           value;
}

static void rtc_update_timer_cb(void *opaque)
{
    RTCState *s = opaque;
    int64_t sec, nsec;
    time_t t;
    struct tm tm;

    rtc_get_guest(s, &sec, &nsec);
    t = sec;
    s->cmos[RTC_REG_C] |= REG_C_UF;
    if (gmtime_r(&t, &tm) &&
        rtc_alarm_field_matches(s, s->cmos[RTC_SECONDS_ALARM], tm.tm_sec,
                                false) &&
        rtc_alarm_field_matches(s, s->cmos[RTC_MINUTES_ALARM], tm.tm_min,
                                false) &&
        rtc_alarm_field_matches(s, s->cmos[RTC_HOURS_ALARM], tm.tm_hour,
                                true)) {
        s->cmos[RTC_REG_C] |= REG_C_AF;
    }
    rtc_update_irq(s);
    rtc_arm_update(s);
}

/* Periodic rate: RS 1 and 2 are 256 and 128 Hz, RS >= 3 is 65536 >> RS. */
static int64_t rtc_period_cycles(RTCState *s)
{
    int rs = s->cmos[RTC_REG_A] & REG_A_RS_MASK;

    if (!rs || !(s->cmos[RTC_REG_B] & REG_B_PIE)) {
        return 0;
    }
    if (rs <= 2) {
        rs += 7;
    }
    return 1 << (rs - 1);
}

static int64_t rtc_ns_to_cycles(int64_t ns)
{
    return ns / NANOSECONDS_PER_SECOND * RTC_FREQ +
           ns % NANOSECONDS_PER_SECOND * RTC_FREQ / NANOSECONDS_PER_SECOND;
}

/* The first nanosecond at or after the start of cycle c. */
static int64_t rtc_cycles_to_ns(int64_t c)
{
    return c / RTC_FREQ * NANOSECONDS_PER_SECOND +
           (c % RTC_FREQ * NANOSECONDS_PER_SECOND + RTC_FREQ - 1) / RTC_FREQ;
}

/*
 * Follow a change of rate or PIE. A new rate takes effect one new period
 * after the last tick, so a guest switching rates right after an
 * interrupt gets exactly the new period.
 */
static void rtc_update_periodic(RTCState *s)
{
    int64_t period = rtc_period_cycles(s);
    int64_t now;

    if (period == s->period) {
        return;
    }
    if (!period) {
        timer_del(s->periodic_timer);
        s->period = 0;
        return;
    }
    now = rtc_ns_to_cycles(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    if (s->period && s->next_periodic - s->period + period > now) {
        s->next_periodic += period - s->period;
    } else {
        s->next_periodic = now + period;
    }
    s->period = period;
    timer_mod(s->periodic_timer, rtc_cycles_to_ns(s->next_periodic));
}

static void rtc_periodic_timer_cb(void *opaque)
{
    RTCState *s = opaque;
    int64_t now = rtc_ns_to_cycles(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));

    s->cmos[RTC_REG_C] |= REG_C_PF;
    rtc_update_irq(s);
    s->next_periodic += s->period;
    if (s->next_periodic <= now) {
        /* The clock jumped (a paused VM): drop the missed ticks. */
        s->next_periodic = now + s->period;
    }
    timer_mod(s->periodic_timer, rtc_cycles_to_ns(s->next_periodic));
}

/* Stop the clock: the registers keep the time it stopped at. */
static void rtc_freeze(RTCState *s)
{
    int64_t sec, nsec;

    rtc_get_guest(s, &sec, &nsec);
    rtc_sec_to_regs(s, sec);
    s->frozen_sec = sec;
    s->frozen_nsec = nsec;
}

/*
 * Start the clock from the time registers. After a divider reset the
 * first update comes half a second later (datasheet); after SET the
 * clock keeps the fraction of a second it stopped at.
 */
static void rtc_thaw(RTCState *s, bool divider_reset)
{
    rtc_set_guest(s, rtc_regs_to_sec(s),
                  divider_reset ? NANOSECONDS_PER_SECOND / 2
                                : s->frozen_nsec);
}

static void rtc_write_time_reg(RTCState *s, uint8_t index, uint8_t data)
{
    int64_t sec, nsec;

    if (!rtc_running(s)) {
        s->cmos[index] = data;
        return;
    }
    /* A write while running moves the running clock to the new value. */
    rtc_get_guest(s, &sec, &nsec);
    rtc_sec_to_regs(s, sec);
    s->cmos[index] = data;
    rtc_set_guest(s, rtc_regs_to_sec(s), nsec);
    rtc_arm_update(s);
}

static void rtc_write_reg_a(RTCState *s, uint8_t data)
{
    uint8_t old = s->cmos[RTC_REG_A];
    bool was_running = rtc_running(s);
    bool runs = rtc_running_with(data, s->cmos[RTC_REG_B]);

    if (was_running && !runs) {
        rtc_freeze(s);
    } else if (!was_running && runs) {
        rtc_thaw(s, (old & REG_A_DV_RESET) == REG_A_DV_RESET);
    }
    s->cmos[RTC_REG_A] = data & ~REG_A_UIP;     /* UIP is read-only */
    rtc_update_periodic(s);
    rtc_arm_update(s);
}

static void rtc_write_reg_b(RTCState *s, uint8_t data)
{
    bool was_running = rtc_running(s);
    bool runs;

    if (data & REG_B_SET) {
        data &= ~REG_B_UIE;     /* SET clears UIE (datasheet) */
    }
    runs = rtc_running_with(s->cmos[RTC_REG_A], data);
    /* Registers are in the old format until B changes. */
    if (was_running && !runs) {
        rtc_freeze(s);
    } else if (!was_running && runs) {
        rtc_thaw(s, false);
    }
    s->cmos[RTC_REG_B] = data;
    /* A flag already set when its interrupt is enabled fires at once. */
    if (s->cmos[RTC_REG_C] & data & REG_C_FLAGS) {
        s->cmos[RTC_REG_C] |= REG_C_IRQF;
        qemu_irq_raise(s->irq);
    } else {
        s->cmos[RTC_REG_C] &= ~REG_C_IRQF;
        qemu_irq_lower(s->irq);
    }
    rtc_update_periodic(s);
    rtc_arm_update(s);
}

static void rtc_data_write(RTCState *s, uint8_t data)
{
    switch (s->index) {
    case RTC_SECONDS:
    case RTC_MINUTES:
    case RTC_HOURS:
    case RTC_DAY_OF_WEEK:
    case RTC_DAY_OF_MONTH:
    case RTC_MONTH:
    case RTC_YEAR:
    case RTC_CENTURY:
        rtc_write_time_reg(s, s->index, data);
        break;
    case RTC_IBM_PS2_CENTURY:
        rtc_write_time_reg(s, RTC_CENTURY, data);
        break;
    case RTC_SECONDS_ALARM:
    case RTC_MINUTES_ALARM:
    case RTC_HOURS_ALARM:
        s->cmos[s->index] = data;
        rtc_arm_update(s);
        break;
    case RTC_REG_A:
        rtc_write_reg_a(s, data);
        break;
    case RTC_REG_B:
        rtc_write_reg_b(s, data);
        break;
    case RTC_REG_C:
    case RTC_REG_D:
        qemu_log_mask(LOG_GUEST_ERROR, "mc146818rtc: write 0x%02x to "
                      "read-only register 0x%x\n", data, s->index);
        break;
    default:
        s->cmos[s->index] = data;
        break;
    }
}

static uint8_t rtc_data_read(RTCState *s)
{
    uint8_t val;

    switch (s->index) {
    case RTC_SECONDS:
    case RTC_MINUTES:
    case RTC_HOURS:
    case RTC_DAY_OF_WEEK:
    case RTC_DAY_OF_MONTH:
    case RTC_MONTH:
    case RTC_YEAR:
    case RTC_CENTURY:
        rtc_refresh_regs(s);
        return s->cmos[s->index];
    case RTC_IBM_PS2_CENTURY:
        rtc_refresh_regs(s);
        return s->cmos[RTC_CENTURY];
    case RTC_REG_A:
        return (s->cmos[RTC_REG_A] & ~REG_A_UIP) |
               (rtc_update_in_progress(s) ? REG_A_UIP : 0);
    case RTC_REG_C:
        /* Reading C acknowledges: flags clear and the IRQ goes down. */
        val = s->cmos[RTC_REG_C];
        s->cmos[RTC_REG_C] = 0;
        qemu_irq_lower(s->irq);
        if (val & (REG_C_UF | REG_C_AF)) {
            rtc_arm_update(s);
        }
        return val;
    default:
        return s->cmos[s->index];
    }
}

static uint64_t rtc_io_read(void *opaque, uint64_t addr, unsigned size)
{
    if (addr == 0) {
        return 0xff;    /* the index register is write-only */
    }
    return rtc_data_read(opaque);
}

static void rtc_io_write(void *opaque, uint64_t addr, uint64_t value,
                         unsigned size)
{
    RTCState *s = opaque;

    if (addr == 0) {
        s->index = value & 0x7f;    /* bit 7 masks NMIs, not our business */
    } else {
        rtc_data_write(s, value);
    }
}

static const MemoryRegionOps rtc_io_ops = {
    .read = rtc_io_read,
    .write = rtc_io_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

void rtc_set_memory(DeviceState *rtc, int addr, int val)
{
    RTCState *s = (RTCState *)rtc;

    if (addr >= 0 && addr < RTC_CMOS_SIZE) {
        s->cmos[addr] = val;
    }
}

static bool rtc_realize(DeviceState *dev, Error **errp)
{
    RTCState *s = (RTCState *)dev;
    const char *clock = s->clock_name;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_HOST) / NANOSECONDS_PER_SECOND;

    if (s->isairq >= ISA_NUM_IRQS) {
        error_setg(errp, "Maximum value for \"irq\" is: %u",
                   ISA_NUM_IRQS - 1);
        return false;
    }
    if (s->base_year < 0 || s->base_year > 9999) {
        error_setg(errp, "mc146818rtc: base_year must be between 0 and "
                   "9999");
        return false;
    }
    memory_region_init_io(&s->io, "rtc", &rtc_io_ops, s, 2);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    if (clock && !strcmp(clock, "vm")) {
        s->clock = QEMU_CLOCK_VIRTUAL;
    } else if (clock && !strcmp(clock, "rt")) {
        s->clock = QEMU_CLOCK_REALTIME;
    } else {
        s->clock = QEMU_CLOCK_HOST;
    }
    s->irq = isa_get_irq(s->isairq);
    /* The board may pass the line through the HPET instead. */
    qdev_init_gpio_out_named(dev, &s->irq, NULL, 1);
    s->cmos[RTC_REG_A] = 0x26;      /* 32.768 kHz divider, 1024 Hz rate */
    s->cmos[RTC_REG_B] = REG_B_24H;
    s->cmos[RTC_REG_C] = 0;
    s->cmos[RTC_REG_D] = REG_D_VRT;
    rtc_set_guest(s, s->start == RTC_START_NOW ? now : s->start, 0);
    rtc_sec_to_regs(s, s->frozen_sec);
    s->update_timer = timer_new_ns(s->clock, rtc_update_timer_cb, s);
    s->periodic_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                     rtc_periodic_timer_cb, s);
    return true;
}

/* Reset clears the interrupt enables and flags; the time runs on. */
static void rtc_reset(DeviceState *dev)
{
    RTCState *s = (RTCState *)dev;

    if (s->cmos[0x0f] != 0xfe) {    /* shutdown status, unless S3 resume */
        s->cmos[0x0f] = 0;
    }
    s->cmos[RTC_REG_B] &= ~(REG_B_PIE | REG_B_AIE | REG_B_UIE | REG_B_SQWE);
    s->cmos[RTC_REG_C] = 0;
    qemu_irq_lower(s->irq);
    rtc_update_periodic(s);
    rtc_arm_update(s);
}

static void rtc_unrealize(DeviceState *dev)
{
    RTCState *s = (RTCState *)dev;

    timer_free(s->update_timer);
    timer_free(s->periodic_timer);
    s->update_timer = s->periodic_timer = NULL;
    memory_region_finalize(&s->io);
}

static const Property rtc_props[] = {
    DEFINE_PROP_INT32("base_year", RTCState, base_year, 0),
    /* Set by the board from -rtc clock= and base=. */
    DEFINE_PROP_STRING("x-clock", RTCState, clock_name),
    DEFINE_PROP_INT64("x-start", RTCState, start, RTC_START_NOW),
    DEFINE_PROP_UINT16("iobase", RTCState, iobase, RTC_ISA_BASE),
    DEFINE_PROP_UINT8("irq", RTCState, isairq, RTC_ISA_IRQ),
    PROP_END,
};

/*
 * Migration: the CMOS, the guest time as an offset from the clock
 * (both processes read the same host clocks) and the timers.
 */
static const VMStateDescription vmstate_rtc = {
    .name = "mc146818rtc",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8_ARRAY(RTCState, cmos, RTC_CMOS_SIZE),
        VMSTATE_U8(RTCState, index, VMS_RANGE(0, RTC_CMOS_SIZE - 1)),
        VMSTATE_I64(RTCState, offset_sec),
        VMSTATE_I64(RTCState, offset_nsec,
                    VMS_RANGE(0, NANOSECONDS_PER_SECOND - 1)),
        VMSTATE_I64(RTCState, frozen_sec),
        VMSTATE_I64(RTCState, frozen_nsec,
                    VMS_RANGE(0, NANOSECONDS_PER_SECOND - 1)),
        VMSTATE_TIMER(RTCState, update_timer),
        VMSTATE_TIMER(RTCState, periodic_timer),
        VMSTATE_I64(RTCState, period, VMS_RANGE(0, 65536)),
        VMSTATE_I64(RTCState, next_periodic),
        VMSTATE_END
    },
};
const DeviceClass mc146818rtc_device_class = {
    .name = "mc146818rtc",
    .parent = "isa-device",
    .desc = "MC146818 real-time clock and CMOS memory",
    .instance_size = sizeof(RTCState),
    .props = rtc_props,
    .user_creatable = false,
    .realize = rtc_realize,
    .reset = rtc_reset,
    .vmsd = &vmstate_rtc,
    .unrealize = rtc_unrealize,
};

DEVICE_CLASS_REGISTER(mc146818rtc_device_class)
