/*
 * 16550A UART on the ISA bus ("isa-serial"), as the PC's COM ports.
 *
 * Transmission completes at once: a byte written to THR goes straight
 * to the chardev (or, in loopback, to the receiver), so the TX FIFO is
 * always empty again by the time the guest looks; THRE and TEMT drop
 * and rise around each write as a guest expects. Reception is paced by
 * the chardev (can_read) and the RX FIFO's character timeout runs on
 * the virtual clock at the programmed line speed.
 *
 * Reset values follow QEMU, which the guests we run were tested on:
 * MCR = OUT2 and a 9600 baud divisor, where the datasheet has 0 for both.
 * Like QEMU, the IRQ line is not gated by OUT2.
 *
 * Properties as QEMU has them: index, iobase and irq default to "auto";
 * index then takes the lowest COM number no other isa-serial uses, and
 * iobase and irq follow from the index (COM1-COM4 at 0x3f8/4, 0x2f8/3,
 * 0x3e8/4, 0x2e8/3).
 */
#include <glib.h>

#include "chardev/char.h"
#include "hw/irq.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

/* Register offsets (DLL/DLM overlay RBR/THR and IER when LCR.DLAB). */
#define UART_RBR        0   /* read: receive buffer; write: THR */
#define UART_IER        1
#define UART_IIR        2   /* read: interrupt identification; write: FCR */
#define UART_LCR        3
#define UART_MCR        4
#define UART_LSR        5
#define UART_MSR        6
#define UART_SCR        7
#define UART_NUM_REGS   8

#define UART_IER_RDI    0x01    /* received data / character timeout */
#define UART_IER_THRI   0x02    /* transmitter holding register empty */
#define UART_IER_RLSI   0x04    /* receiver line status */
#define UART_IER_MSI    0x08    /* modem status */

#define UART_IIR_NO_INT 0x01
#define UART_IIR_MSI    0x00
#define UART_IIR_THRI   0x02
#define UART_IIR_RDI    0x04
#define UART_IIR_RLSI   0x06
#define UART_IIR_CTI    0x0c    /* character timeout */
#define UART_IIR_ID     0x0f
#define UART_IIR_FIFO   0xc0    /* FIFOs enabled */

#define UART_FCR_FE     0x01    /* FIFO enable */
#define UART_FCR_RFR    0x02    /* RX FIFO reset (self-clearing) */
#define UART_FCR_XFR    0x04    /* TX FIFO reset (self-clearing) */
#define UART_FCR_DMA    0x08
#define UART_FCR_ITL    0xc0    /* RX trigger level */

#define UART_LCR_WLEN   0x03    /* word length - 5 */
#define UART_LCR_STOP   0x04    /* 2 stop bits (1.5 with 5-bit words) */
#define UART_LCR_PARITY 0x08
#define UART_LCR_DLAB   0x80

#define UART_MCR_DTR    0x01
#define UART_MCR_RTS    0x02
#define UART_MCR_OUT1   0x04
#define UART_MCR_OUT2   0x08
#define UART_MCR_LOOP   0x10

#define UART_LSR_DR     0x01
#define UART_LSR_OE     0x02
#define UART_LSR_PE     0x04
#define UART_LSR_FE     0x08
#define UART_LSR_BI     0x10
#define UART_LSR_THRE   0x20
#define UART_LSR_TEMT   0x40
#define UART_LSR_FIFOE  0x80    /* an error byte is in the RX FIFO */
#define UART_LSR_ERRORS (UART_LSR_OE | UART_LSR_PE | UART_LSR_FE | UART_LSR_BI)

#define UART_MSR_DCTS   0x01
#define UART_MSR_DDSR   0x02
#define UART_MSR_TERI   0x04    /* RI went from on to off */
#define UART_MSR_DDCD   0x08
#define UART_MSR_DELTAS 0x0f
#define UART_MSR_CTS    0x10
#define UART_MSR_DSR    0x20
#define UART_MSR_RI     0x40
#define UART_MSR_DCD    0x80

#define UART_FIFO_LEN   16
#define ISA_SERIAL_PORTS 4
#define PROP_AUTO       UINT32_MAX  /* index, iobase, irq: pick for me */
#define UART_BAUD_BASE  115200  /* 1.8432 MHz crystal / 16 */
/* What the host side of the line reports: carrier, data set ready, CTS. */
#define UART_HOST_LINES (UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS)

typedef struct SerialFIFO {
    uint8_t data[UART_FIFO_LEN];
    bool error[UART_FIFO_LEN];  /* received with a break */
    unsigned head;
    unsigned count;
    unsigned errors;            /* entries with error set */
} SerialFIFO;

typedef struct SerialState {
    DeviceState parent;
    /* Properties */
    uint32_t index;
    uint32_t iobase;
    uint32_t irq_num;
    char *chardev;

    MemoryRegion io;
    CharBackend chr;
    qemu_irq irq;
    QEMUTimer *timeout_timer;

    uint16_t divider;
    uint8_t rbr;                /* receive buffer when FIFOs are off */
    uint8_t ier;
    uint8_t iir;
    uint8_t fcr;
    uint8_t lcr;
    uint8_t mcr;
    uint8_t lsr;
    uint8_t msr;
    uint8_t scr;
    bool thr_ipending;          /* THRE interrupt not yet acknowledged */
    bool timeout_ipending;      /* character timeout not yet serviced */
    unsigned rx_trigger;
    int64_t char_time_ns;       /* one frame at the programmed speed */
    SerialFIFO rx;
} SerialState;

static const struct {
    uint32_t iobase;
    uint32_t irq;
} isa_serial_ports[ISA_SERIAL_PORTS] = {
    { 0x3f8, 4 }, { 0x2f8, 3 }, { 0x3e8, 4 }, { 0x2e8, 3 },
};

/* COM indexes taken by realized isa-serial devices. */
static unsigned isa_serial_used;

static bool serial_fifo_enabled(const SerialState *s)
{
    return s->fcr & UART_FCR_FE;
}

static bool serial_loopback(const SerialState *s)
{
    return s->mcr & UART_MCR_LOOP;
}

static void serial_fifo_reset(SerialFIFO *f)
{
    f->head = 0;
    f->count = 0;
    f->errors = 0;
}

static uint8_t serial_fifo_pop(SerialFIFO *f)
{
    uint8_t b = f->data[f->head];

    if (f->error[f->head]) {
        f->errors--;
    }
    f->head = (f->head + 1) % UART_FIFO_LEN;
    f->count--;
    return b;
}

static void serial_update_irq(SerialState *s)
{
    uint8_t id = UART_IIR_NO_INT;

    /* In the datasheet's priority order. */
    if ((s->ier & UART_IER_RLSI) && (s->lsr & UART_LSR_ERRORS)) {
        id = UART_IIR_RLSI;
    } else if ((s->ier & UART_IER_RDI) && s->timeout_ipending) {
        id = UART_IIR_CTI;
    } else if ((s->ier & UART_IER_RDI) && (s->lsr & UART_LSR_DR) &&
               (!serial_fifo_enabled(s) || s->rx.count >= s->rx_trigger)) {
        id = UART_IIR_RDI;
    } else if ((s->ier & UART_IER_THRI) && s->thr_ipending) {
        id = UART_IIR_THRI;
    } else if ((s->ier & UART_IER_MSI) && (s->msr & UART_MSR_DELTAS)) {
        id = UART_IIR_MSI;
    }
    s->iir = id | (serial_fifo_enabled(s) ? UART_IIR_FIFO : 0);
    qemu_set_irq(s->irq, id != UART_IIR_NO_INT);
}

/* LSR bit 7 tracks whether a byte received with an error is queued. */
static void serial_update_fifo_error(SerialState *s)
{
    if (serial_fifo_enabled(s) && s->rx.errors) {
        s->lsr |= UART_LSR_FIFOE;
    } else {
        s->lsr &= ~UART_LSR_FIFOE;
    }
}

static void serial_update_params(SerialState *s)
{
    /* Frame length in half bits, so 1.5 stop bits need no fractions. */
    unsigned data_bits = (s->lcr & UART_LCR_WLEN) + 5;
    unsigned half_bits = 2 * (1 + data_bits);

    if (s->lcr & UART_LCR_PARITY) {
        half_bits += 2;
    }
    if (s->lcr & UART_LCR_STOP) {
        half_bits += data_bits == 5 ? 3 : 4;
    } else {
        half_bits += 2;
    }
    if (s->divider == 0) {
        /* The UART stops; keep the last speed for the timeout. */
        return;
    }
    s->char_time_ns = (int64_t)half_bits * NANOSECONDS_PER_SECOND *
                      s->divider / (2 * UART_BAUD_BASE);
}

/*
 * The character timeout fires after 4 character times without a byte
 * received or read while the RX FIFO holds data.
 */
static void serial_rearm_timeout(SerialState *s)
{
    timer_mod(s->timeout_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              4 * s->char_time_ns);
}

static void serial_timeout(void *opaque)
{
    SerialState *s = opaque;

    if (serial_fifo_enabled(s) && s->rx.count) {
        s->timeout_ipending = true;
        serial_update_irq(s);
    }
}

static void serial_receive_byte(SerialState *s, uint8_t b, bool error)
{
    if (serial_fifo_enabled(s)) {
        if (s->rx.count == UART_FIFO_LEN) {
            /* An overrun never overwrites what is queued. */
            s->lsr |= UART_LSR_OE;
        } else {
            unsigned tail = (s->rx.head + s->rx.count) % UART_FIFO_LEN;

            s->rx.data[tail] = b;
            s->rx.error[tail] = error;
            s->rx.errors += error;
            s->rx.count++;
        }
        serial_update_fifo_error(s);
        serial_rearm_timeout(s);
    } else {
        if (s->lsr & UART_LSR_DR) {
            s->lsr |= UART_LSR_OE;
        }
        s->rbr = b;
    }
    s->lsr |= UART_LSR_DR;
}

/* The modem inputs: the host's lines, or the MCR outputs in loopback. */
static uint8_t serial_msr_lines(const SerialState *s)
{
    uint8_t lines = 0;

    if (!serial_loopback(s)) {
        return UART_HOST_LINES;
    }
    if (s->mcr & UART_MCR_DTR) {
        lines |= UART_MSR_DSR;
    }
    if (s->mcr & UART_MCR_RTS) {
        lines |= UART_MSR_CTS;
    }
    if (s->mcr & UART_MCR_OUT1) {
        lines |= UART_MSR_RI;
    }
    if (s->mcr & UART_MCR_OUT2) {
        lines |= UART_MSR_DCD;
    }
    return lines;
}

static void serial_update_msr(SerialState *s)
{
    uint8_t old = s->msr & 0xf0;
    uint8_t now = serial_msr_lines(s);
    uint8_t changed = old ^ now;
    uint8_t deltas = s->msr & UART_MSR_DELTAS;

    if (changed & UART_MSR_CTS) {
        deltas |= UART_MSR_DCTS;
    }
    if (changed & UART_MSR_DSR) {
        deltas |= UART_MSR_DDSR;
    }
    if ((old & UART_MSR_RI) && !(now & UART_MSR_RI)) {
        deltas |= UART_MSR_TERI;
    }
    if (changed & UART_MSR_DCD) {
        deltas |= UART_MSR_DDCD;
    }
    s->msr = now | deltas;
}

static void serial_transmit(SerialState *s, uint8_t b)
{
    s->thr_ipending = false;
    s->lsr &= ~(UART_LSR_THRE | UART_LSR_TEMT);
    serial_update_irq(s);

    if (serial_loopback(s)) {
        /* The transmitter feeds the receiver; the line stays idle. */
        serial_receive_byte(s, b, false);
    } else {
        qemu_chr_fe_write(&s->chr, &b, 1);
    }

    s->lsr |= UART_LSR_THRE | UART_LSR_TEMT;
    s->thr_ipending = true;
    serial_update_irq(s);
}

static uint8_t serial_read_rbr(SerialState *s)
{
    uint8_t b = 0;

    if (serial_fifo_enabled(s)) {
        if (s->rx.count) {
            b = serial_fifo_pop(&s->rx);
        }
        if (s->rx.count) {
            serial_rearm_timeout(s);
        } else {
            s->lsr &= ~(UART_LSR_DR | UART_LSR_BI);
            timer_del(s->timeout_timer);
        }
        s->timeout_ipending = false;
        serial_update_fifo_error(s);
    } else {
        b = s->rbr;
        s->lsr &= ~(UART_LSR_DR | UART_LSR_BI);
    }
    serial_update_irq(s);
    if (!serial_loopback(s)) {
        qemu_chr_fe_accept_input(&s->chr);
    }
    return b;
}

static uint64_t serial_read(void *opaque, uint64_t addr, unsigned size)
{
    SerialState *s = opaque;
    uint8_t ret;

    switch (addr) {
    case UART_RBR:
        if (s->lcr & UART_LCR_DLAB) {
            return s->divider & 0xff;
        }
        return serial_read_rbr(s);
    case UART_IER:
        if (s->lcr & UART_LCR_DLAB) {
            return s->divider >> 8;
        }
        return s->ier;
    case UART_IIR:
        ret = s->iir;
        /* Reading IIR acknowledges a THRE interrupt it reports. */
        if ((ret & UART_IIR_ID) == UART_IIR_THRI) {
            s->thr_ipending = false;
            serial_update_irq(s);
        }
        return ret;
    case UART_LCR:
        return s->lcr;
    case UART_MCR:
        return s->mcr;
    case UART_LSR:
        ret = s->lsr;
        if (s->lsr & UART_LSR_ERRORS) {
            s->lsr &= ~UART_LSR_ERRORS;
            serial_update_irq(s);
        }
        return ret;
    case UART_MSR:
        ret = s->msr;
        if (s->msr & UART_MSR_DELTAS) {
            s->msr &= ~UART_MSR_DELTAS;
            serial_update_irq(s);
        }
        return ret;
    case UART_SCR:
        return s->scr;
    }
    return 0xff;
}

static void serial_write_fcr(SerialState *s, uint8_t val)
{
    static const unsigned trigger[4] = { 1, 4, 8, 14 };

    /* Turning the FIFOs on or off empties them. */
    if ((val ^ s->fcr) & UART_FCR_FE) {
        val |= UART_FCR_RFR | UART_FCR_XFR;
    }
    if (val & UART_FCR_RFR) {
        serial_fifo_reset(&s->rx);
        s->lsr &= ~(UART_LSR_DR | UART_LSR_BI);
        timer_del(s->timeout_timer);
        s->timeout_ipending = false;
    }
    if (val & UART_FCR_XFR) {
        /* The TX FIFO is always empty here (see the top of the file). */
        s->lsr |= UART_LSR_THRE | UART_LSR_TEMT;
        s->thr_ipending = true;
    }
    /* The other bits are only written while the FIFOs are enabled. */
    s->fcr = (val & UART_FCR_FE) ? val & (UART_FCR_FE | UART_FCR_DMA |
                                          UART_FCR_ITL) : 0;
    s->rx_trigger = trigger[(s->fcr & UART_FCR_ITL) >> 6];
    serial_update_fifo_error(s);
    serial_update_irq(s);
}

static void serial_write(void *opaque, uint64_t addr, uint64_t value,
                         unsigned size)
{
    SerialState *s = opaque;
    uint8_t val = value;
    uint8_t changed;

    switch (addr) {
    case UART_RBR:
        if (s->lcr & UART_LCR_DLAB) {
            s->divider = (s->divider & 0xff00) | val;
            serial_update_params(s);
        } else {
            serial_transmit(s, val);
        }
        break;
    case UART_IER:
        if (s->lcr & UART_LCR_DLAB) {
            s->divider = (s->divider & 0x00ff) | (val << 8);
            serial_update_params(s);
            break;
        }
        val &= 0x0f;
        changed = s->ier ^ val;
        /* Enabling ETBEI with THR empty interrupts even if acked before. */
        if ((changed & UART_IER_THRI) && (val & UART_IER_THRI) &&
            (s->lsr & UART_LSR_THRE)) {
            s->thr_ipending = true;
        }
        s->ier = val;
        serial_update_irq(s);
        break;
    case UART_IIR:
        serial_write_fcr(s, val);
        break;
    case UART_LCR:
        s->lcr = val;
        serial_update_params(s);
        break;
    case UART_MCR:
        changed = s->mcr ^ val;
        s->mcr = val & 0x1f;
        serial_update_msr(s);
        serial_update_irq(s);
        if ((changed & UART_MCR_LOOP) && !serial_loopback(s)) {
            /* The receiver listens to the line again. */
            qemu_chr_fe_accept_input(&s->chr);
        }
        break;
    case UART_LSR:
    case UART_MSR:
        /* Factory test registers on the real part; writes do nothing. */
        qemu_log_mask(LOG_GUEST_ERROR, "isa-serial: write 0x%02x to "
                      "read-only register %u\n", val, (unsigned)addr);
        break;
    case UART_SCR:
        s->scr = val;
        break;
    }
}

static const MemoryRegionOps serial_io_ops = {
    .read = serial_read,
    .write = serial_write,
    /* Wider accesses are split into byte cycles, as on the ISA bus. */
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

static int serial_can_receive(void *opaque)
{
    SerialState *s = opaque;

    if (serial_loopback(s)) {
        /* The receiver is wired to the transmitter, not the line. */
        return 0;
    }
    if (serial_fifo_enabled(s)) {
        return UART_FIFO_LEN - s->rx.count;
    }
    return !(s->lsr & UART_LSR_DR);
}

static void serial_receive(void *opaque, const uint8_t *buf, int size)
{
    SerialState *s = opaque;

    if (serial_loopback(s)) {
        return;
    }
    for (int i = 0; i < size; i++) {
        serial_receive_byte(s, buf[i], false);
    }
    serial_update_irq(s);
}

static void serial_event(void *opaque, ChrEvent event)
{
    SerialState *s = opaque;

    if (event == CHR_EVENT_BREAK && !serial_loopback(s)) {
        /* A break arrives as a NUL byte flagged with BI. */
        serial_receive_byte(s, 0, true);
        s->lsr |= UART_LSR_BI;
        serial_update_irq(s);
    }
}

static void serial_reset(DeviceState *dev)
{
    SerialState *s = (SerialState *)dev;

    s->rbr = 0;
    s->ier = 0;
    s->fcr = 0;
    s->rx_trigger = 1;
    s->lcr = 0;
    s->mcr = UART_MCR_OUT2;
    s->lsr = UART_LSR_THRE | UART_LSR_TEMT;
    s->msr = UART_HOST_LINES;
    s->scr = 0;
    s->divider = 0x0c;          /* 9600 baud */
    s->thr_ipending = false;
    s->timeout_ipending = false;
    serial_fifo_reset(&s->rx);
    timer_del(s->timeout_timer);
    serial_update_params(s);
    serial_update_irq(s);
}

static bool serial_realize(DeviceState *dev, Error **errp)
{
    SerialState *s = (SerialState *)dev;
    Chardev *chr = NULL;

    if (s->index == PROP_AUTO) {
        for (s->index = 0; s->index < ISA_SERIAL_PORTS; s->index++) {
            if (!(isa_serial_used & (1u << s->index))) {
                break;
            }
        }
    }
    if (s->index >= ISA_SERIAL_PORTS) {
        error_setg(errp, "Max. supported number of ISA serial ports is %d.",
                   ISA_SERIAL_PORTS);
        return false;
    }
    if (s->iobase == PROP_AUTO) {
        s->iobase = isa_serial_ports[s->index].iobase;
    }
    if (s->irq_num == PROP_AUTO) {
        s->irq_num = isa_serial_ports[s->index].irq;
    }
    if (s->irq_num >= ISA_NUM_IRQS) {
        error_setg(errp, "Maximum value for \"irq\" is: %u",
                   ISA_NUM_IRQS - 1);
        return false;
    }
    if (s->iobase > 0xffff - (UART_NUM_REGS - 1)) {
        error_setg(errp, "Property 'isa-serial.iobase' doesn't take value "
                   "0x%x", s->iobase);
        return false;
    }
    if (s->chardev) {
        chr = qemu_chr_find(s->chardev);
        if (!chr) {
            error_setg(errp, "Property 'isa-serial.chardev' can't find "
                       "value '%s'", s->chardev);
            return false;
        }
    }

    memory_region_init_io(&s->io, "serial", &serial_io_ops, s,
                          UART_NUM_REGS);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    if (chr) {
        if (!qemu_chr_fe_init(&s->chr, chr, errp)) {
            memory_region_finalize(&s->io);
            return false;
        }
        qemu_chr_fe_set_handlers(&s->chr, serial_can_receive, serial_receive,
                                 serial_event, s);
    }
    s->irq = isa_get_irq(s->irq_num);
    s->timeout_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, serial_timeout, s);
    isa_serial_used |= 1u << s->index;
    return true;
}

static void serial_unrealize(DeviceState *dev)
{
    SerialState *s = (SerialState *)dev;

    isa_serial_used &= ~(1u << s->index);
    timer_free(s->timeout_timer);
    s->timeout_timer = NULL;
    qemu_chr_fe_deinit(&s->chr);
    memory_region_finalize(&s->io);
}

static const Property serial_props[] = {
    DEFINE_PROP_UINT32("index", SerialState, index, PROP_AUTO),
    DEFINE_PROP_UINT32("iobase", SerialState, iobase, PROP_AUTO),
    DEFINE_PROP_UINT32("irq", SerialState, irq_num, PROP_AUTO),
    DEFINE_PROP_CHR("chardev", SerialState, chardev),
    PROP_END,
};

/* Migration: the UART's registers, its receive FIFO and timeout. */
static bool serial_fifo_check(void *opaque, const VMStateField *f,
                              Error **errp)
{
    SerialState *s = opaque;

    if (s->rx.head >= UART_FIFO_LEN || s->rx.count > UART_FIFO_LEN ||
        s->rx.errors > s->rx.count) {
        error_setg(errp, "head %u, count %u, errors %u do not fit a FIFO of "
                   "%d", s->rx.head, s->rx.count, s->rx.errors,
                   UART_FIFO_LEN);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_serial_fifo = {
    .name = "serial-fifo",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8_ARRAY(SerialFIFO, data, UART_FIFO_LEN),
        VMSTATE_BOOL_ARRAY(SerialFIFO, error, UART_FIFO_LEN),
        VMSTATE_UINT(SerialFIFO, head),
        VMSTATE_UINT(SerialFIFO, count),
        VMSTATE_UINT(SerialFIFO, errors),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_serial = {
    .name = "isa-serial",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U16(SerialState, divider),
        VMSTATE_U8(SerialState, rbr),
        VMSTATE_U8(SerialState, ier),
        VMSTATE_U8(SerialState, iir),
        VMSTATE_U8(SerialState, fcr),
        VMSTATE_U8(SerialState, lcr),
        VMSTATE_U8(SerialState, mcr),
        VMSTATE_U8(SerialState, lsr),
        VMSTATE_U8(SerialState, msr),
        VMSTATE_U8(SerialState, scr),
        VMSTATE_BOOL(SerialState, thr_ipending),
        VMSTATE_BOOL(SerialState, timeout_ipending),
        VMSTATE_UINT(SerialState, rx_trigger, VMS_RANGE(1, UART_FIFO_LEN)),
        VMSTATE_I64(SerialState, char_time_ns,
                    VMS_RANGE(0, 10 * NANOSECONDS_PER_SECOND)),
        VMSTATE_STRUCT(SerialState, rx, SerialFIFO, vmstate_serial_fifo,
                       .check = serial_fifo_check),
        VMSTATE_TIMER(SerialState, timeout_timer),
        VMSTATE_END
    },
};
const DeviceClass isa_serial_device_class = {
    .name = "isa-serial",
    .parent = "isa-device",
    .desc = "16550A UART",
    .category = "Input devices",    /* where QEMU lists it */
    .instance_size = sizeof(SerialState),
    .props = serial_props,
    .user_creatable = true,
    .realize = serial_realize,
    .reset = serial_reset,
    .vmsd = &vmstate_serial,
    .unrealize = serial_unrealize,
};

DEVICE_CLASS_REGISTER(isa_serial_device_class)
