/*
 * i8042 PS/2 controller with a keyboard and a mouse that answer their
 * commands (no host input reaches them: there is no display).
 *
 *   port 0x60  data: read the output buffer; write a command's parameter,
 *              or a byte for the keyboard
 *   port 0x64  read status; write a controller command
 *
 * The controller has one output buffer (OBF in the status register);
 * bytes from the controller, the keyboard and the mouse wait their turn
 * in that order. IRQ 1 follows a full buffer from the keyboard side and
 * IRQ 12 from the mouse side, each gated by its command byte bit.
 * A guest resets the machine by pulsing the reset line (0xFE, or any
 * 0xF0-0xFF pulse with bit 0 clear) or by writing the output port with
 * bit 0 clear. The output port's A20 bit drives the GPIO output "a20",
 * as port 0x92's does (hw/misc/port92.c).
 */
#include <string.h>

#include <glib.h>

#include "hw/irq.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "vmstate/vmstate.h"

#define I8042_DATA_PORT     0x60
#define I8042_CMD_PORT      0x64
#define I8042_KBD_IRQ       1
#define I8042_AUX_IRQ       12

/* Status register */
#define STAT_OBF            0x01    /* output buffer full */
#define STAT_IBF            0x02    /* input buffer full (never: we're fast) */
#define STAT_SYS            0x04    /* self-test passed */
#define STAT_A2             0x08    /* last write went to port 0x64 */
#define STAT_UNLOCKED       0x10    /* keyboard not inhibited */
#define STAT_AUX_OBF        0x20    /* the output buffer is mouse data */

/* Command byte (controller RAM byte 0) */
#define MODE_KBD_INT        0x01
#define MODE_AUX_INT        0x02
#define MODE_DISABLE_KBD    0x10
#define MODE_DISABLE_AUX    0x20
#define MODE_XLATE          0x40    /* translate to scan code set 1 */

/* Output port */
#define OUT_RESET           0x01    /* 0 holds the CPU in reset */
#define OUT_A20             0x02
#define OUT_OBF             0x10
#define OUT_AUX_OBF         0x20
#define OUT_ONES            0xcc

/* Controller commands */
#define CCMD_READ_RAM       0x20    /* 0x20-0x3f */
#define CCMD_WRITE_RAM      0x60    /* 0x60-0x7f */
#define CCMD_AUX_DISABLE    0xa7
#define CCMD_AUX_ENABLE     0xa8
#define CCMD_AUX_TEST       0xa9
#define CCMD_SELF_TEST      0xaa
#define CCMD_KBD_TEST       0xab
#define CCMD_KBD_DISABLE    0xad
#define CCMD_KBD_ENABLE     0xae
#define CCMD_READ_INPORT    0xc0
#define CCMD_READ_OUTPORT   0xd0
#define CCMD_WRITE_OUTPORT  0xd1
#define CCMD_WRITE_KBD_OBUF 0xd2
#define CCMD_WRITE_AUX_OBUF 0xd3
#define CCMD_WRITE_AUX      0xd4
#define CCMD_DISABLE_A20    0xdd
#define CCMD_ENABLE_A20     0xdf
#define CCMD_READ_TEST      0xe0
#define CCMD_PULSE          0xf0    /* 0xf0-0xff: pulse bits 0-3 low */

/* Replies */
#define REPLY_SELF_TEST_OK  0x55
#define REPLY_ACK           0xfa
#define REPLY_RESEND        0xfe
#define REPLY_POR           0xaa    /* device self-test passed */
#define REPLY_ECHO          0xee

/* Keyboard commands */
#define KBD_CMD_SET_LEDS    0xed
#define KBD_CMD_ECHO        0xee
#define KBD_CMD_SCANCODE    0xf0
#define KBD_CMD_GET_ID      0xf2
#define KBD_CMD_SET_RATE    0xf3
#define KBD_CMD_ENABLE      0xf4
#define KBD_CMD_DISABLE     0xf5
#define KBD_CMD_DEFAULTS    0xf6
#define KBD_CMD_RESEND      0xfe
#define KBD_CMD_RESET       0xff

/* Mouse commands */
#define AUX_CMD_SCALE11     0xe6
#define AUX_CMD_SCALE21     0xe7
#define AUX_CMD_SET_RES     0xe8
#define AUX_CMD_STATUS      0xe9
#define AUX_CMD_STREAM      0xea
#define AUX_CMD_READ_DATA   0xeb
#define AUX_CMD_RESET_WRAP  0xec
#define AUX_CMD_WRAP        0xee
#define AUX_CMD_REMOTE      0xf0
#define AUX_CMD_GET_ID      0xf2
#define AUX_CMD_SET_RATE    0xf3
#define AUX_CMD_ENABLE      0xf4
#define AUX_CMD_DISABLE     0xf5
#define AUX_CMD_DEFAULTS    0xf6
#define AUX_CMD_RESET       0xff

/* Mouse IDs (GET ID), and the status byte's mode bits. */
#define AUX_TYPE_PS2        0x00
#define AUX_TYPE_IMPS2      0x03    /* IntelliMouse: wheel */
#define AUX_TYPE_IMEX       0x04    /* IntelliMouse Explorer: 5 buttons */
#define AUX_STATUS_REMOTE   0x40
#define AUX_STATUS_ENABLED  0x20
#define AUX_STATUS_SCALE21  0x10

#define PS2_QUEUE_LEN       16
#define I8042_RAM_SIZE      32

/* A PS/2 device's bytes waiting for the controller. */
typedef struct PS2Queue {
    uint8_t data[PS2_QUEUE_LEN];
    unsigned head;
    unsigned count;
} PS2Queue;

typedef struct PS2Kbd {
    PS2Queue queue;
    uint8_t pending_cmd;        /* command waiting for its parameter */
    bool scanning;
    uint8_t leds;
    uint8_t scancode_set;
} PS2Kbd;

typedef struct PS2Mouse {
    PS2Queue queue;
    uint8_t pending_cmd;
    bool streaming;             /* data reporting enabled */
    uint8_t rate;
    uint8_t resolution;
    bool scale21;
    bool wrap;
    bool remote;                /* remote (polled) mode */
    uint8_t type;               /* AUX_TYPE_*: what GET ID answers */
    /*
     * The IntelliMouse knock: sample rates 200, 100, 80 make an IMPS/2
     * mouse, 200, 200, 80 an Explorer (as QEMU's); this counts how far
     * the last rates went (0: none, 1: 200, 2: 200 100, 3: 200 200).
     */
    uint8_t knock;
} PS2Mouse;

typedef struct I8042State {
    DeviceState parent;
    MemoryRegion data_io;
    MemoryRegion cmd_io;
    qemu_irq kbd_irq;
    qemu_irq aux_irq;
    qemu_irq a20;

    uint8_t status;
    uint8_t ram[I8042_RAM_SIZE]; /* ram[0] is the command byte */
    uint8_t outport;
    uint8_t write_cmd;          /* controller command awaiting data */
    uint8_t obdata;             /* the output buffer */
    bool ctrl_pending;          /* a controller byte waits for the buffer */
    bool ctrl_aux;              /* ...and it is to look like mouse data */
    uint8_t ctrl_data;
    PS2Kbd kbd;
    PS2Mouse mouse;
} I8042State;

static void ps2_queue_reset(PS2Queue *q)
{
    q->head = 0;
    q->count = 0;
}

static void ps2_queue(PS2Queue *q, uint8_t b)
{
    if (q->count == PS2_QUEUE_LEN) {
        return;     /* the device's buffer is full; the byte is lost */
    }
    q->data[(q->head + q->count) % PS2_QUEUE_LEN] = b;
    q->count++;
}

static uint8_t ps2_dequeue(PS2Queue *q)
{
    uint8_t b = q->data[q->head];

    q->head = (q->head + 1) % PS2_QUEUE_LEN;
    q->count--;
    return b;
}

/*
 * Refill the output buffer if it is empty and drive the IRQ lines from
 * what it holds.
 */
static void i8042_update(I8042State *s)
{
    uint8_t mode = s->ram[0];

    if (!(s->status & STAT_OBF)) {
        if (s->ctrl_pending) {
            s->ctrl_pending = false;
            s->obdata = s->ctrl_data;
            s->status |= STAT_OBF | (s->ctrl_aux ? STAT_AUX_OBF : 0);
        } else if (s->kbd.queue.count && !(mode & MODE_DISABLE_KBD)) {
            s->obdata = ps2_dequeue(&s->kbd.queue);
            s->status |= STAT_OBF;
        } else if (s->mouse.queue.count && !(mode & MODE_DISABLE_AUX)) {
            s->obdata = ps2_dequeue(&s->mouse.queue);
            s->status |= STAT_OBF | STAT_AUX_OBF;
        }
    }
    s->outport &= ~(OUT_OBF | OUT_AUX_OBF);
    if (s->status & STAT_OBF) {
        s->outport |= OUT_OBF;
        if (s->status & STAT_AUX_OBF) {
            s->outport |= OUT_AUX_OBF;
        }
    }
    qemu_set_irq(s->kbd_irq, (s->status & STAT_OBF) &&
                             !(s->status & STAT_AUX_OBF) &&
                             (mode & MODE_KBD_INT));
    qemu_set_irq(s->aux_irq, (s->status & STAT_AUX_OBF) &&
                             (mode & MODE_AUX_INT));
}

/* A reply from the controller itself (to 0x20, 0xaa, 0xd2...). */
static void i8042_reply(I8042State *s, uint8_t b, bool aux)
{
    s->ctrl_pending = true;
    s->ctrl_data = b;
    s->ctrl_aux = aux;
    i8042_update(s);
}

static void ps2_kbd_reset(PS2Kbd *k)
{
    ps2_queue_reset(&k->queue);
    k->pending_cmd = 0;
    k->scanning = true;
    k->leds = 0;
    k->scancode_set = 2;
}

static void ps2_mouse_reset(PS2Mouse *m)
{
    ps2_queue_reset(&m->queue);
    m->pending_cmd = 0;
    m->streaming = false;
    m->rate = 100;
    m->resolution = 2;
    m->scale21 = false;
    m->wrap = false;
    m->remote = false;
    m->type = AUX_TYPE_PS2;
    m->knock = 0;
}

/* A sample rate: the rate, and a step of the IntelliMouse knock. */
static void ps2_mouse_set_rate(PS2Mouse *m, uint8_t rate)
{
    m->rate = rate;
    switch (m->knock) {
    case 1:
        m->knock = rate == 100 ? 2 : rate == 200 ? 3 : 0;
        break;
    case 2:
    case 3:
        if (rate == 80) {
            m->type = m->knock == 2 ? AUX_TYPE_IMPS2 : AUX_TYPE_IMEX;
        }
        m->knock = 0;
        break;
    default:
        m->knock = rate == 200;
        break;
    }
}

static void ps2_kbd_write(I8042State *s, uint8_t val)
{
    PS2Kbd *k = &s->kbd;
    PS2Queue *q = &k->queue;

    switch (k->pending_cmd) {
    case KBD_CMD_SET_LEDS:
        k->leds = val;
        ps2_queue(q, REPLY_ACK);
        k->pending_cmd = 0;
        return;
    case KBD_CMD_SET_RATE:
        ps2_queue(q, REPLY_ACK);
        k->pending_cmd = 0;
        return;
    case KBD_CMD_SCANCODE:
        k->pending_cmd = 0;
        if (val == 0) {
            ps2_queue(q, REPLY_ACK);
            /* Reported as translated when the controller translates. */
            if (s->ram[0] & MODE_XLATE) {
                ps2_queue(q, k->scancode_set == 1 ? 0x43 :
                             k->scancode_set == 2 ? 0x41 : 0x3f);
            } else {
                ps2_queue(q, k->scancode_set);
            }
        } else if (val <= 3) {
            k->scancode_set = val;
            ps2_queue(q, REPLY_ACK);
        } else {
            ps2_queue(q, REPLY_RESEND);
        }
        return;
    }

    switch (val) {
    case KBD_CMD_SET_LEDS:
    case KBD_CMD_SET_RATE:
    case KBD_CMD_SCANCODE:
        k->pending_cmd = val;
        ps2_queue(q, REPLY_ACK);
        break;
    case KBD_CMD_ECHO:
        ps2_queue(q, REPLY_ECHO);
        break;
    case KBD_CMD_GET_ID:
        ps2_queue(q, REPLY_ACK);
        ps2_queue(q, 0xab);
        ps2_queue(q, (s->ram[0] & MODE_XLATE) ? 0x41 : 0x83);
        break;
    case KBD_CMD_ENABLE:
        k->scanning = true;
        ps2_queue(q, REPLY_ACK);
        break;
    case KBD_CMD_DISABLE:
        k->scanning = false;
        ps2_queue(q, REPLY_ACK);
        break;
    case KBD_CMD_DEFAULTS:
    case KBD_CMD_RESEND:
    case 0xf7 ... 0xfd:         /* scan code set 3 key modes */
        ps2_queue(q, REPLY_ACK);
        break;
    case KBD_CMD_RESET:
        ps2_kbd_reset(k);
        ps2_queue(q, REPLY_ACK);
        ps2_queue(q, REPLY_POR);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "i8042: unknown keyboard command "
                      "0x%02x\n", val);
        ps2_queue(q, REPLY_RESEND);
        break;
    }
}

static void ps2_mouse_write(I8042State *s, uint8_t val)
{
    PS2Mouse *m = &s->mouse;
    PS2Queue *q = &m->queue;

    if (m->pending_cmd) {
        if (m->pending_cmd == AUX_CMD_SET_RATE) {
            ps2_mouse_set_rate(m, val);
        } else {
            m->resolution = val;
        }
        m->pending_cmd = 0;
        ps2_queue(q, REPLY_ACK);
        return;
    }
    if (m->wrap && val != AUX_CMD_RESET_WRAP && val != AUX_CMD_RESET) {
        /* Wrap mode echoes everything but its two ways out. */
        ps2_queue(q, val);
        return;
    }

    switch (val) {
    case AUX_CMD_SET_RES:
    case AUX_CMD_SET_RATE:
        m->pending_cmd = val;
        ps2_queue(q, REPLY_ACK);
        break;
    case AUX_CMD_SCALE11:
    case AUX_CMD_SCALE21:
        m->scale21 = val == AUX_CMD_SCALE21;
        ps2_queue(q, REPLY_ACK);
        break;
    case AUX_CMD_STATUS:
        ps2_queue(q, REPLY_ACK);
        ps2_queue(q, (m->remote ? AUX_STATUS_REMOTE : 0) |
                     (m->streaming ? AUX_STATUS_ENABLED : 0) |
                     (m->scale21 ? AUX_STATUS_SCALE21 : 0));
        ps2_queue(q, m->resolution);
        ps2_queue(q, m->rate);
        break;
    case AUX_CMD_READ_DATA:
        /* No movement and no buttons: an empty packet (and wheel). */
        ps2_queue(q, REPLY_ACK);
        ps2_queue(q, 0x08);
        ps2_queue(q, 0x00);
        ps2_queue(q, 0x00);
        if (m->type != AUX_TYPE_PS2) {
            ps2_queue(q, 0x00);
        }
        break;
    case AUX_CMD_RESET_WRAP:
    case AUX_CMD_WRAP:
        m->wrap = val == AUX_CMD_WRAP;
        ps2_queue(q, REPLY_ACK);
        break;
    case AUX_CMD_GET_ID:
        ps2_queue(q, REPLY_ACK);
        ps2_queue(q, m->type);
        break;
    case AUX_CMD_STREAM:
    case AUX_CMD_REMOTE:
        m->remote = val == AUX_CMD_REMOTE;
        ps2_queue(q, REPLY_ACK);
        break;
    case AUX_CMD_ENABLE:
    case AUX_CMD_DISABLE:
        m->streaming = val == AUX_CMD_ENABLE;
        ps2_queue(q, REPLY_ACK);
        break;
    case AUX_CMD_DEFAULTS:
        /* The mode, rate and resolution; the ID stays (as QEMU's). */
        m->rate = 100;
        m->resolution = 2;
        m->scale21 = false;
        m->streaming = false;
        m->remote = false;
        ps2_queue(q, REPLY_ACK);
        break;
    case AUX_CMD_RESET:
        ps2_mouse_reset(m);
        ps2_queue(q, REPLY_ACK);
        ps2_queue(q, REPLY_POR);
        ps2_queue(q, m->type);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "i8042: unknown mouse command "
                      "0x%02x\n", val);
        ps2_queue(q, REPLY_RESEND);
        break;
    }
}

static void i8042_write_outport(I8042State *s, uint8_t val)
{
    s->outport = val;
    qemu_set_irq(s->a20, !!(val & OUT_A20));
    if (!(val & OUT_RESET)) {
        qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET);
    }
}

static void i8042_write_command(I8042State *s, uint8_t val)
{
    s->status |= STAT_A2;

    if (val >= CCMD_PULSE) {
        /* Bits 0-3 clear are pulsed; only bit 0 (reset) does anything. */
        if (!(val & OUT_RESET)) {
            qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET);
        }
        return;
    }
    if (val >= CCMD_READ_RAM && val < CCMD_READ_RAM + I8042_RAM_SIZE) {
        i8042_reply(s, s->ram[val - CCMD_READ_RAM], false);
        return;
    }
    if (val >= CCMD_WRITE_RAM && val < CCMD_WRITE_RAM + I8042_RAM_SIZE) {
        s->write_cmd = val;
        return;
    }

    switch (val) {
    case CCMD_WRITE_OUTPORT:
    case CCMD_WRITE_KBD_OBUF:
    case CCMD_WRITE_AUX_OBUF:
    case CCMD_WRITE_AUX:
        s->write_cmd = val;
        break;
    case CCMD_AUX_DISABLE:
        s->ram[0] |= MODE_DISABLE_AUX;
        i8042_update(s);
        break;
    case CCMD_AUX_ENABLE:
        s->ram[0] &= ~MODE_DISABLE_AUX;
        i8042_update(s);
        break;
    case CCMD_AUX_TEST:
    case CCMD_KBD_TEST:
        i8042_reply(s, 0x00, false);    /* no clock or data line stuck */
        break;
    case CCMD_SELF_TEST:
        s->status |= STAT_SYS;
        i8042_reply(s, REPLY_SELF_TEST_OK, false);
        break;
    case CCMD_KBD_DISABLE:
        s->ram[0] |= MODE_DISABLE_KBD;
        i8042_update(s);
        break;
    case CCMD_KBD_ENABLE:
        s->ram[0] &= ~MODE_DISABLE_KBD;
        i8042_update(s);
        break;
    case CCMD_READ_INPORT:
        i8042_reply(s, 0x80, false);    /* keyboard not locked */
        break;
    case CCMD_READ_OUTPORT:
        i8042_reply(s, s->outport, false);
        break;
    case CCMD_DISABLE_A20:
        s->outport &= ~OUT_A20;
        qemu_irq_lower(s->a20);
        break;
    case CCMD_ENABLE_A20:
        s->outport |= OUT_A20;
        qemu_irq_raise(s->a20);
        break;
    case CCMD_READ_TEST:
        i8042_reply(s, 0x00, false);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "i8042: unsupported controller "
                      "command 0x%02x\n", val);
        break;
    }
}

static void i8042_write_data(I8042State *s, uint8_t val)
{
    uint8_t cmd = s->write_cmd;

    s->status &= ~STAT_A2;
    s->write_cmd = 0;

    if (cmd >= CCMD_WRITE_RAM && cmd < CCMD_WRITE_RAM + I8042_RAM_SIZE) {
        s->ram[cmd - CCMD_WRITE_RAM] = val;
        i8042_update(s);    /* the interrupt enables may have changed */
        return;
    }
    switch (cmd) {
    case 0:
        /* Talking to the keyboard enables its interface again. */
        s->ram[0] &= ~MODE_DISABLE_KBD;
        ps2_kbd_write(s, val);
        break;
    case CCMD_WRITE_OUTPORT:
        i8042_write_outport(s, val);
        break;
    case CCMD_WRITE_KBD_OBUF:
        i8042_reply(s, val, false);
        break;
    case CCMD_WRITE_AUX_OBUF:
        i8042_reply(s, val, true);
        break;
    case CCMD_WRITE_AUX:
        s->ram[0] &= ~MODE_DISABLE_AUX;
        ps2_mouse_write(s, val);
        break;
    }
    i8042_update(s);
}

static uint8_t i8042_read_data(I8042State *s)
{
    uint8_t val = s->obdata;

    /*
     * Reading empties the buffer; the next byte moves in behind it. The
     * lines drop in between, so each byte is an edge again: the PIC and
     * the I/O APIC take ISA IRQs on edges (QEMU pulses them the same way).
     */
    s->status &= ~(STAT_OBF | STAT_AUX_OBF);
    qemu_set_irq(s->kbd_irq, 0);
    qemu_set_irq(s->aux_irq, 0);
    i8042_update(s);
    return val;
}

static uint64_t i8042_data_read(void *opaque, uint64_t addr, unsigned size)
{
    return i8042_read_data(opaque);
}

static void i8042_data_write(void *opaque, uint64_t addr, uint64_t value,
                             unsigned size)
{
    i8042_write_data(opaque, value);
}

static uint64_t i8042_cmd_read(void *opaque, uint64_t addr, unsigned size)
{
    I8042State *s = opaque;

    return s->status;
}

static void i8042_cmd_write(void *opaque, uint64_t addr, uint64_t value,
                            unsigned size)
{
    i8042_write_command(opaque, value);
}

static const MemoryRegionOps i8042_data_ops = {
    .read = i8042_data_read,
    .write = i8042_data_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
};

static const MemoryRegionOps i8042_cmd_ops = {
    .read = i8042_cmd_read,
    .write = i8042_cmd_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
};

static void i8042_reset(DeviceState *dev)
{
    I8042State *s = (I8042State *)dev;

    memset(s->ram, 0, sizeof(s->ram));
    s->ram[0] = MODE_KBD_INT | MODE_AUX_INT;
    s->status = STAT_A2 | STAT_UNLOCKED;
    s->outport = OUT_RESET | OUT_A20 | OUT_ONES;
    s->write_cmd = 0;
    s->obdata = 0;
    s->ctrl_pending = false;
    ps2_kbd_reset(&s->kbd);
    ps2_mouse_reset(&s->mouse);
    i8042_update(s);
}

static bool i8042_realize(DeviceState *dev, Error **errp)
{
    I8042State *s = (I8042State *)dev;

    memory_region_init_io(&s->data_io, "i8042-data", &i8042_data_ops, s, 1);
    memory_region_init_io(&s->cmd_io, "i8042-cmd", &i8042_cmd_ops, s, 1);
    if (!isa_register_ioport(dev, &s->data_io, I8042_DATA_PORT, errp) ||
        !isa_register_ioport(dev, &s->cmd_io, I8042_CMD_PORT, errp)) {
        memory_region_finalize(&s->data_io);
        memory_region_finalize(&s->cmd_io);
        return false;
    }
    s->kbd_irq = isa_get_irq(I8042_KBD_IRQ);
    s->aux_irq = isa_get_irq(I8042_AUX_IRQ);
    qdev_init_gpio_out_named(dev, &s->a20, "a20", 1);
    return true;
}

static void i8042_unrealize(DeviceState *dev)
{
    I8042State *s = (I8042State *)dev;

    memory_region_finalize(&s->data_io);
    memory_region_finalize(&s->cmd_io);
}

/* Migration: the controller, the keyboard and the mouse. */
static bool ps2_queue_check(void *opaque, const VMStateField *f,
                            Error **errp)
{
    I8042State *s = opaque;
    const PS2Queue *q[2] = { &s->kbd.queue, &s->mouse.queue };

    for (int i = 0; i < 2; i++) {
        if (q[i]->head >= PS2_QUEUE_LEN || q[i]->count > PS2_QUEUE_LEN) {
            error_setg(errp, "queue head %u, count %u do not fit %d bytes",
                       q[i]->head, q[i]->count, PS2_QUEUE_LEN);
            return false;
        }
    }
    return true;
}

static const VMStateDescription vmstate_ps2_queue = {
    .name = "ps2-queue",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8_ARRAY(PS2Queue, data, PS2_QUEUE_LEN),
        VMSTATE_UINT(PS2Queue, head),
        VMSTATE_UINT(PS2Queue, count),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_ps2_kbd = {
    .name = "ps2-kbd",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(PS2Kbd, queue, PS2Queue, vmstate_ps2_queue),
        VMSTATE_U8(PS2Kbd, pending_cmd),
        VMSTATE_BOOL(PS2Kbd, scanning),
        VMSTATE_U8(PS2Kbd, leds),
        VMSTATE_U8(PS2Kbd, scancode_set, VMS_RANGE(1, 3)),
        VMSTATE_END
    },
};

static bool ps2_mouse_check(void *opaque, const VMStateField *f,
                            Error **errp)
{
    const PS2Mouse *m = &((I8042State *)opaque)->mouse;

    if (m->type != AUX_TYPE_PS2 && m->type != AUX_TYPE_IMPS2 &&
        m->type != AUX_TYPE_IMEX) {
        error_setg(errp, "mouse type %u is none of 0, 3, 4", m->type);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_ps2_mouse = {
    .name = "ps2-mouse",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(PS2Mouse, queue, PS2Queue, vmstate_ps2_queue),
        VMSTATE_U8(PS2Mouse, pending_cmd),
        VMSTATE_BOOL(PS2Mouse, streaming),
        VMSTATE_U8(PS2Mouse, rate),
        VMSTATE_U8(PS2Mouse, resolution),
        VMSTATE_BOOL(PS2Mouse, scale21),
        VMSTATE_BOOL(PS2Mouse, wrap),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_i8042 = {
    .name = "i8042",
    .version = 2,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(I8042State, status),
        VMSTATE_U8_ARRAY(I8042State, ram, I8042_RAM_SIZE),
        VMSTATE_U8(I8042State, outport),
        VMSTATE_U8(I8042State, write_cmd),
        VMSTATE_U8(I8042State, obdata),
        VMSTATE_BOOL(I8042State, ctrl_pending),
        VMSTATE_BOOL(I8042State, ctrl_aux),
        VMSTATE_U8(I8042State, ctrl_data),
        VMSTATE_STRUCT(I8042State, kbd, PS2Kbd, vmstate_ps2_kbd),
        VMSTATE_STRUCT(I8042State, mouse, PS2Mouse, vmstate_ps2_mouse,
                       .check = ps2_queue_check),
        /* Version 2: the mouse's remote mode and IntelliMouse ID. */
        VMSTATE_BOOL(I8042State, mouse.remote, VMS_SINCE(2)),
        VMSTATE_U8(I8042State, mouse.type, VMS_SINCE(2),
                   .check = ps2_mouse_check),
        VMSTATE_U8(I8042State, mouse.knock, VMS_SINCE(2), VMS_RANGE(0, 3)),
        VMSTATE_END
    },
};
const DeviceClass i8042_device_class = {
    .name = "i8042",
    .parent = "isa-device",
    .desc = "PS/2 keyboard and mouse controller",
    .category = "Input devices",
    .instance_size = sizeof(I8042State),
    .realize = i8042_realize,
    .reset = i8042_reset,
    .vmsd = &vmstate_i8042,
    .unrealize = i8042_unrealize,
};

DEVICE_CLASS_REGISTER(i8042_device_class)
