/*
 * virtio-serial-pci (virtio 1.x, 5.3) with its bus of ports:
 * -device virtconsole,chardev=ID[,name=N][,nr=P] and
 * -device virtserialport,chardev=ID[,name=N][,nr=P].
 *
 * Queues: 0/1 receive/transmit of port 0, 2/3 the control receive and
 * transmit queues, then 4+2(P-1) and 5+2(P-1) for port P. Config:
 * cols (2), rows (2), max_nr_ports (4), emerg_wr (4). With
 * VIRTIO_CONSOLE_F_MULTIPORT the driver and the device talk over the
 * control queues in 8-byte messages {le32 id, le16 event, le16 value}
 * (PORT_NAME adds the name):
 *   driver -> device  DEVICE_READY, PORT_READY, PORT_OPEN
 *   device -> driver  DEVICE_ADD (port added), DEVICE_REMOVE,
 *                     CONSOLE_PORT, RESIZE, PORT_OPEN (host side),
 *                     PORT_NAME
 * Without it there is port 0 only, open once the driver is ready.
 *
 * Guest bytes go to the port's chardev. A serial port's go no faster
 * than the chardev takes them: a chain it has no room for waits (and
 * the queue behind it) until the host has read (write_ready). A console
 * never waits, as in QEMU (Linux spins on hvc output until the buffer
 * is used): what its chardev cannot queue is dropped. A port whose host
 * side is closed drops the guest's bytes, as QEMU does. Host bytes are read from the chardev
 * only while the guest has a receive buffer for them (can_read is the
 * size of the next buffer), so they wait in the chardev, never lost.
 * The guest opening or closing a port (PORT_OPEN) is told to the
 * chardev (query-chardev frontend-open) and, for a port with an id, in
 * the VSERPORT_CHANGE event. Nonsense on the control queue marks the
 * device broken (-d guest_errors).
 */
#include <limits.h>
#include <string.h>

#include "chardev/char.h"
#include "hw/bus.h"
#include "hw/virtio/virtio-pci.h"
#include "hw/virtio/virtio-serial.h"
#include "vmstate/vmstate.h"
#include "qapi/qapi-commands.h"
#include "qemu/log.h"

#define VIRTIO_CONSOLE_F_SIZE           0
#define VIRTIO_CONSOLE_F_MULTIPORT      1
#define VIRTIO_CONSOLE_F_EMERG_WRITE    2

#define VIRTIO_CONSOLE_BAD_ID           0xffffffffu
#define PCI_CLASS_COMMUNICATION_OTHER   0x0780

#define CTRL_DEVICE_READY       0
#define CTRL_DEVICE_ADD         1
#define CTRL_DEVICE_REMOVE      2
#define CTRL_PORT_READY         3
#define CTRL_CONSOLE_PORT       4
#define CTRL_RESIZE             5
#define CTRL_PORT_OPEN          6
#define CTRL_PORT_NAME          7

#define CTRL_HEADER_LEN         8
#define CTRL_MSG_MAX            4096    /* read of one driver message */
#define PORT_QUEUE_SIZE         128
#define CONTROL_QUEUE_SIZE      32
#define MAX_PORTS_SUPPORTED     511     /* 1024 queues, as QEMU */
#define CONFIG_LEN              12
#define CONFIG_MAX_NR_PORTS     4
#define CONFIG_EMERG_WR         8

typedef struct VirtIOSerialPort {
    DeviceState qdev;
    char *chardev;              /* "chardev" */
    char *name;                 /* "name" */
    uint32_t nr;                /* "nr", VIRTIO_CONSOLE_BAD_ID: pick one */
    bool is_console;
    VirtIOSerial *vser;
    unsigned id;
    CharBackend chr;
    bool guest_ready;           /* PORT_READY seen */
    bool guest_connected;       /* the guest has it open */
    bool host_connected;        /* the chardev's host side is there */
    VirtQueueElement *rx;       /* a receive buffer, waiting for bytes */
    VirtQueueElement *tx;       /* a transmit chain not yet taken whole */
    size_t tx_done;             /* ...and how much of it was */
    /*
     * Migration: how much of the held transmit chain the source had
     * written (the destination pops it again and skips that much).
     */
    uint64_t tx_skip;
} VirtIOSerialPort;

struct VirtIOSerial {
    VirtIODevice *vdev;
    uint32_t max_ports;
    bool emergency_write;
    BusState bus;
    VirtIOSerialPort **ports;   /* [max_ports], by id */
    GQueue control;             /* of GByteArray *: for control receive */
    unsigned control_max;       /* most messages waiting there */
};

typedef struct VirtIOSerialPCI {
    VirtIOPCIProxy proxy;
    uint32_t max_ports;         /* "max_ports" */
    bool emergency_write;       /* "emergency-write" */
    VirtIOSerial ser;
} VirtIOSerialPCI;

static unsigned bus_counter;    /* virtio-serial-bus.N without an id */

static bool use_multiport(const VirtIOSerial *s)
{
    return virtio_has_feature(s->vdev, VIRTIO_CONSOLE_F_MULTIPORT);
}

static unsigned port_rx_queue(unsigned id)
{
    return id ? 2 + 2 * id : 0;
}

/* The port a data queue belongs to, or NULL (control queues, absent). */
static VirtIOSerialPort *port_of_queue(VirtIOSerial *s, unsigned q)
{
    unsigned id = q < 2 ? 0 : (q - 2) / 2;

    if ((q == 2 || q == 3) || id >= s->max_ports) {
        return NULL;
    }
    return s->ports[id];
}

static bool driver_ok(const VirtIOSerial *s)
{
    return (s->vdev->status & VIRTIO_CONFIG_S_DRIVER_OK) && !s->vdev->broken;
}

/* --- control messages to the driver ------------------------------------ */

static void control_flush(VirtIOSerial *s)
{
    VirtQueue *vq = &s->vdev->vq[2];
    bool pushed = false;
    VirtQueueElement *elem;

    virtqueue_new_pass(vq);
    while (!g_queue_is_empty(&s->control) && (elem = virtqueue_pop(vq))) {
        GByteArray *msg = g_queue_pop_head(&s->control);
        size_t n = virtqueue_buf_from(elem->in, elem->in_num, 0, msg->data,
                                      msg->len);

        if (n < msg->len) {
            qemu_log_mask(LOG_GUEST_ERROR, "virtio-serial: control buffer "
                          "of %zu bytes for a message of %u\n", n, msg->len);
        }
        virtqueue_push(vq, elem, n);
        g_byte_array_free(msg, TRUE);
        pushed = true;
    }
    if (pushed) {
        virtio_notify(s->vdev, vq);
    }
}

static void control_send(VirtIOSerial *s, uint32_t id, uint16_t event,
                         uint16_t value, const char *extra)
{
    uint8_t hdr[CTRL_HEADER_LEN] = {
        id, id >> 8, id >> 16, id >> 24, event, event >> 8, value, value >> 8,
    };
    GByteArray *msg;

    if (!use_multiport(s)) {
        return;
    }
    if (g_queue_get_length(&s->control) >= s->control_max) {
        /* The driver posts no control buffers: do not grow for ever. */
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-serial: control receive "
                      "queue full, event %u for port %u dropped\n", event, id);
        return;
    }
    msg = g_byte_array_new();
    g_byte_array_append(msg, hdr, sizeof(hdr));
    if (extra) {
        /* With its NUL, as QEMU sends PORT_NAME. */
        g_byte_array_append(msg, (const uint8_t *)extra, strlen(extra) + 1);
    }
    g_queue_push_tail(&s->control, msg);
    if (driver_ok(s)) {
        control_flush(s);
    }
}

static void control_clear(VirtIOSerial *s)
{
    GByteArray *msg;

    while ((msg = g_queue_pop_head(&s->control))) {
        g_byte_array_free(msg, TRUE);
    }
}

/* --- ports ---------------------------------------------------------------- */

static void port_tx_run(VirtIOSerialPort *port);

static void port_drop_rx(VirtIOSerialPort *port)
{
    virtqueue_element_free(port->rx);
    port->rx = NULL;
    virtqueue_element_free(port->tx);
    port->tx = NULL;
    port->tx_skip = 0;
}

static bool port_guest_open(const VirtIOSerialPort *port)
{
    return use_multiport(port->vser) ? port->guest_connected
                                     : port->id == 0;
}

/* Host bytes the guest can take now: the size of the next buffer. */
static int port_can_read(void *opaque)
{
    VirtIOSerialPort *port = opaque;
    VirtIOSerial *s = port->vser;
    VirtQueue *vq = &s->vdev->vq[port_rx_queue(port->id)];

    if (!driver_ok(s) || !port_guest_open(port)) {
        return 0;
    }
    virtqueue_new_pass(vq);
    while (port->rx || (port->rx = virtqueue_pop(vq))) {
        size_t len = 0;

        for (unsigned i = 0; i < port->rx->in_num; i++) {
            len += port->rx->in[i].len;
        }
        if (len) {
            return MIN(len, 4096);
        }
        /* A receive buffer with no room: give it back empty. */
        virtqueue_push(vq, port->rx, 0);
        port->rx = NULL;
        virtio_notify(s->vdev, vq);
    }
    return 0;
}

static void port_read(void *opaque, const uint8_t *buf, int size)
{
    VirtIOSerialPort *port = opaque;
    VirtQueue *vq = &port->vser->vdev->vq[port_rx_queue(port->id)];

    while (size > 0 && port_can_read(port) > 0) {
        size_t n = virtqueue_buf_from(port->rx->in, port->rx->in_num, 0,
                                      buf, size);

        virtqueue_push(vq, port->rx, n);
        port->rx = NULL;
        virtio_notify(port->vser->vdev, vq);
        buf += n;
        size -= n;
    }
    if (size > 0) {
        /* can_read promised room: a bug here, not the guest's doing. */
        qemu_log_mask(LOG_UNIMP, "virtio-serial: %d host bytes lost\n",
                      size);
    }
}

static void port_host_connected(VirtIOSerialPort *port, bool connected)
{
    if (port->host_connected == connected) {
        return;
    }
    port->host_connected = connected;
    if (port->guest_ready) {
        control_send(port->vser, port->id, CTRL_PORT_OPEN, connected, NULL);
    }
    /* Gone: what waits is dropped; back: it flows again. */
    virtqueue_new_pass(&port->vser->vdev->vq[port_rx_queue(port->id) + 1]);
    port_tx_run(port);
}

static void port_event(void *opaque, ChrEvent event)
{
    VirtIOSerialPort *port = opaque;

    if (event == CHR_EVENT_OPENED) {
        port_host_connected(port, true);
    } else if (event == CHR_EVENT_CLOSED) {
        port_host_connected(port, false);
    }
}

static void port_guest_connected(VirtIOSerialPort *port, bool open)
{
    if (port->guest_connected == open) {
        return;
    }
    port->guest_connected = open;
    if (!port->is_console) {
        qemu_chr_fe_set_open(&port->chr, open);
    }
    if (port->qdev.id) {
        qapi_event_send_vserport_change(port->qdev.id, open);
    }
    if (open) {
        qemu_chr_fe_accept_input(&port->chr);
    }
}

/*
 * Hand the held transmit chain to the chardev as far as it has room;
 * true once it is taken whole (or dropped: no host side) and pushed.
 */
static bool port_flush_tx(VirtIOSerialPort *port, VirtQueue *vq)
{
    VirtQueueElement *e = port->tx;
    size_t total = 0;

    for (unsigned i = 0; i < e->out_num; i++) {
        total += e->out[i].len;
    }
    while (port->host_connected && port->tx_done < total) {
        uint8_t buf[4096];
        int room = port->is_console ? INT_MAX
                                    : qemu_chr_fe_write_room(&port->chr);
        size_t n = MIN(MIN(sizeof(buf), total - port->tx_done),
                       (size_t)MAX(room, 0));
        int w;

        if (!n) {
            return false;
        }
        n = virtqueue_buf_to(e->out, e->out_num, port->tx_done, buf, n);
        w = qemu_chr_fe_write(&port->chr, buf, n);
        if (port->is_console) {
            w = n;
        } else if (w <= 0) {
            return false;
        }
        port->tx_done += w;
    }
    port->tx = NULL;
    port->tx_skip = 0;
    virtqueue_push(vq, e, 0);
    return true;
}

static void port_tx_run(VirtIOSerialPort *port)
{
    VirtIOSerial *s = port->vser;
    VirtQueue *vq = &s->vdev->vq[port_rx_queue(port->id) + 1];
    bool pushed = false;

    if (!driver_ok(s)) {
        return;
    }
    for (;;) {
        if (!port->tx) {
            port->tx = virtqueue_pop(vq);
            port->tx_done = port->tx ? port->tx_skip : 0;
        }
        if (!port->tx || !port_flush_tx(port, vq)) {
            break;
        }
        pushed = true;
    }
    if (pushed) {
        virtio_notify(s->vdev, vq);
    }
}

/* The host took queued bytes: carry on with the guest's. */
static void port_write_ready(void *opaque)
{
    VirtIOSerialPort *port = opaque;

    virtqueue_new_pass(&port->vser->vdev->vq[port_rx_queue(port->id) + 1]);
    port_tx_run(port);
}

static void port_handle_tx(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIOSerialPort *port = port_of_queue(vdev->opaque, vq - vdev->vq);
    VirtQueueElement *elem;
    bool pushed = false;

    if (port) {
        port_tx_run(port);
        return;
    }
    /* No port there: the bytes go nowhere. */
    while ((elem = virtqueue_pop(vq))) {
        virtqueue_push(vq, elem, 0);
        pushed = true;
    }
    if (pushed) {
        virtio_notify(vdev, vq);
    }
}

/* The driver added receive buffers: host bytes may flow again. */
static void port_handle_rx(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIOSerialPort *port = port_of_queue(vdev->opaque, vq - vdev->vq);

    if (port) {
        qemu_chr_fe_accept_input(&port->chr);
    }
}

/* --- control messages from the driver ----------------------------------- */

static void port_ready(VirtIOSerial *s, VirtIOSerialPort *port,
                       uint16_t value)
{
    if (!value) {
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-serial: the driver failed "
                      "to add port %u\n", port->id);
        return;
    }
    port->guest_ready = true;
    if (port->is_console) {
        control_send(s, port->id, CTRL_CONSOLE_PORT, 1, NULL);
    }
    if (port->name) {
        control_send(s, port->id, CTRL_PORT_NAME, 1, port->name);
    }
    if (port->host_connected) {
        control_send(s, port->id, CTRL_PORT_OPEN, 1, NULL);
    }
}

void virtio_serial_control_message(VirtIOSerial *s, const uint8_t *msg,
                                   size_t len)
{
    VirtIOSerialPort *port = NULL;
    uint32_t id;
    uint16_t event, value;

    if (len < CTRL_HEADER_LEN) {
        virtio_error(s->vdev, "control message of %zu bytes", len);
        return;
    }
    id = msg[0] | msg[1] << 8 | msg[2] << 16 | (uint32_t)msg[3] << 24;
    event = msg[4] | msg[5] << 8;
    value = msg[6] | msg[7] << 8;
    if (event == CTRL_DEVICE_READY) {
        if (!value) {
            qemu_log_mask(LOG_GUEST_ERROR, "virtio-serial: the driver "
                          "failed to initialize the device\n");
            return;
        }
        for (unsigned i = 0; i < s->max_ports; i++) {
            if (s->ports[i]) {
                control_send(s, i, CTRL_DEVICE_ADD, 1, NULL);
            }
        }
        return;
    }
    if (event != CTRL_PORT_READY && event != CTRL_PORT_OPEN) {
        virtio_error(s->vdev, "control event %u is not the driver's to send",
                     event);
        return;
    }
    if (id < s->max_ports) {
        port = s->ports[id];
    }
    if (!port) {
        virtio_error(s->vdev, "control event %u for port %u, which does not "
                     "exist", event, id);
        return;
    }
    if (event == CTRL_PORT_READY) {
        port_ready(s, port, value);
    } else {
        port_guest_connected(port, value != 0);
    }
}

static void control_handle_tx(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIOSerial *s = vdev->opaque;
    VirtQueueElement *elem;
    bool pushed = false;

    while ((elem = virtqueue_pop(vq))) {
        uint8_t buf[CTRL_MSG_MAX];
        size_t n = virtqueue_buf_to(elem->out, elem->out_num, 0, buf,
                                    sizeof(buf));

        virtqueue_push(vq, elem, 0);
        pushed = true;
        virtio_serial_control_message(s, buf, n);
    }
    if (pushed) {
        virtio_notify(vdev, vq);
    }
}

static void control_handle_rx(VirtIODevice *vdev, VirtQueue *vq)
{
    control_flush(vdev->opaque);
}

/* --- the device ---------------------------------------------------------- */

static void serial_get_config(VirtIODevice *vdev, uint8_t *config)
{
    VirtIOSerial *s = vdev->opaque;

    memset(config, 0, CONFIG_LEN);
    for (int i = 0; i < 4; i++) {
        config[CONFIG_MAX_NR_PORTS + i] = s->max_ports >> (8 * i);
    }
}

/* emerg_wr: one byte for port 0's chardev, whatever the port's state. */
static void serial_set_config(VirtIODevice *vdev, const uint8_t *config)
{
    VirtIOSerial *s = vdev->opaque;
    uint8_t ch = config[CONFIG_EMERG_WR];
    bool written = config[CONFIG_EMERG_WR] | config[CONFIG_EMERG_WR + 1] |
                   config[CONFIG_EMERG_WR + 2] | config[CONFIG_EMERG_WR + 3];

    if (written && virtio_has_feature(vdev, VIRTIO_CONSOLE_F_EMERG_WRITE) &&
        s->ports[0]) {
        qemu_chr_fe_write(&s->ports[0]->chr, &ch, 1);
    }
}

static void serial_reset(VirtIODevice *vdev)
{
    VirtIOSerial *s = vdev->opaque;

    control_clear(s);
    for (unsigned i = 0; s->ports && i < s->max_ports; i++) {
        VirtIOSerialPort *port = s->ports[i];

        if (port) {
            port_drop_rx(port);
            port->guest_ready = false;
            port_guest_connected(port, false);
        }
    }
}

static void serial_set_status(VirtIODevice *vdev, uint8_t status)
{
    VirtIOSerial *s = vdev->opaque;

    if (!(status & VIRTIO_CONFIG_S_DRIVER_OK)) {
        return;
    }
    control_flush(s);
    for (unsigned i = 0; i < s->max_ports; i++) {
        if (s->ports[i]) {
            qemu_chr_fe_accept_input(&s->ports[i]->chr);
        }
    }
}

static const VirtioDeviceOps virtio_serial_ops = {
    .device_id = VIRTIO_ID_CONSOLE,
    .config_len = CONFIG_LEN,
    .get_config = serial_get_config,
    .set_config = serial_set_config,
    .reset = serial_reset,
    .set_status = serial_set_status,
};

static void serial_init(VirtIOSerial *s, VirtIODevice *vdev,
                        uint32_t max_ports, bool emergency_write)
{
    s->vdev = vdev;
    s->max_ports = max_ports;
    s->emergency_write = emergency_write;
    s->ports = g_new0(VirtIOSerialPort *, max_ports);
    s->control_max = 4 * max_ports + 64;
    g_queue_init(&s->control);
    virtio_init(vdev, "virtio-serial", &virtio_serial_ops, s,
                2 * (max_ports + 1));
    if (max_ports > 1) {
        vdev->host_features |= 1ULL << VIRTIO_CONSOLE_F_MULTIPORT;
    }
    if (emergency_write) {
        vdev->host_features |= 1ULL << VIRTIO_CONSOLE_F_EMERG_WRITE;
    }
    virtio_add_queue(vdev, 0, PORT_QUEUE_SIZE, port_handle_rx);
    virtio_add_queue(vdev, 1, PORT_QUEUE_SIZE, port_handle_tx);
    virtio_add_queue(vdev, 2, CONTROL_QUEUE_SIZE, control_handle_rx);
    virtio_add_queue(vdev, 3, CONTROL_QUEUE_SIZE, control_handle_tx);
    for (unsigned i = 1; i < max_ports; i++) {
        virtio_add_queue(vdev, port_rx_queue(i), PORT_QUEUE_SIZE,
                         port_handle_rx);
        virtio_add_queue(vdev, port_rx_queue(i) + 1, PORT_QUEUE_SIZE,
                         port_handle_tx);
    }
}

static void serial_deinit(VirtIOSerial *s)
{
    control_clear(s);
    virtio_cleanup(s->vdev);
    g_free(s->ports);
    s->ports = NULL;
}

static bool virtio_serial_pci_realize(PCIDevice *d, Error **errp)
{
    VirtIOSerialPCI *p = (VirtIOSerialPCI *)d;
    VirtIOSerial *s = &p->ser;
    char *bus_name;

    if (!p->max_ports) {
        error_setg(errp, "Maximum number of serial ports not specified");
        return false;
    }
    if (p->max_ports > MAX_PORTS_SUPPORTED) {
        error_setg(errp, "maximum ports supported: %u", MAX_PORTS_SUPPORTED);
        return false;
    }
    serial_init(s, &p->proxy.vdev, p->max_ports, p->emergency_write);
    if (!virtio_pci_realize(&p->proxy, p->max_ports + 1, errp)) {
        serial_deinit(s);
        return false;
    }
    bus_name = d->qdev.id ? g_strdup_printf("%s.0", d->qdev.id)
                          : g_strdup_printf("virtio-serial-bus.%u",
                                            bus_counter++);
    qbus_init(&s->bus, bus_name, BUS_TYPE_VIRTIO_SERIAL, NULL);
    qbus_set_parent(&s->bus, &d->qdev);
    g_free(bus_name);
    return true;
}

static void virtio_serial_pci_exit(PCIDevice *d)
{
    VirtIOSerialPCI *p = (VirtIOSerialPCI *)d;

    qbus_deinit(&p->ser.bus);
    virtio_pci_exit(&p->proxy);
    serial_deinit(&p->ser);
}

static void virtio_serial_pci_reset(PCIDevice *d)
{
    virtio_pci_reset(&((VirtIOSerialPCI *)d)->proxy);
}

static const Property virtio_serial_pci_props[] = {
    DEFINE_PROP_UINT32("max_ports", VirtIOSerialPCI, max_ports, 31),
    DEFINE_PROP_BOOL("emergency-write", VirtIOSerialPCI, emergency_write,
                     true),
    VIRTIO_PCI_PROPS,
    PCI_DEVICE_PROPS,
    PROP_END,
};

/*
 * The ports' own sections carry what each knows; a receive or transmit
 * chain a port holds is popped again on the destination. Control
 * messages not yet taken by the driver do not travel.
 */
static const VMStateDescription vmstate_virtio_serial_pci = {
    .name = "virtio-serial-pci",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(VirtIOSerialPCI, proxy, VirtIOPCIProxy,
                       vmstate_virtio_pci),
        VMSTATE_END
    },
};

const PCIDeviceClass virtio_serial_pci_device_class = {
    .parent = {
        .name = "virtio-serial-pci",
        .virtio_backend = "virtio-serial-device",
        .category = "Input devices",
        .instance_size = sizeof(VirtIOSerialPCI),
        .props = virtio_serial_pci_props,
        .user_creatable = true,
        .vmsd = &vmstate_virtio_serial_pci,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT_QUMRANET,
    .class_id = PCI_CLASS_COMMUNICATION_OTHER,
    .realize = virtio_serial_pci_realize,
    .exit = virtio_serial_pci_exit,
    .reset = virtio_serial_pci_reset,
};

/* --- port devices ------------------------------------------------------ */

static bool port_pick_id(VirtIOSerial *s, VirtIOSerialPort *port,
                         Error **errp)
{
    unsigned id = port->nr;

    if (port->nr == VIRTIO_CONSOLE_BAD_ID) {
        /* Port 0 is the first console's; the rest take the lowest free. */
        id = port->is_console && !s->ports[0] ? 0 : 1;
        while (id < s->max_ports && s->ports[id]) {
            id++;
        }
        if (id >= s->max_ports) {
            error_setg(errp, "virtio-serial-bus: Maximum port limit for "
                       "this device reached");
            return false;
        }
    } else if (port->nr >= s->max_ports) {
        error_setg(errp, "virtio-serial-bus: Out-of-range port id "
                   "specified, max. allowed: %u", s->max_ports - 1);
        return false;
    } else if (port->nr == 0 && !port->is_console) {
        error_setg(errp, "Port number 0 on virtio-serial devices reserved "
                   "for virtconsole devices for backward compatibility.");
        return false;
    } else if (s->ports[id]) {
        error_setg(errp, "virtio-serial-bus: A port already exists at id "
                   "%u", id);
        return false;
    }
    port->id = id;
    return true;
}

static bool port_realize(DeviceState *dev, Error **errp)
{
    VirtIOSerialPort *port = (VirtIOSerialPort *)dev;
    VirtIOSerial *s;
    Chardev *chr = NULL;

    if (!dev->bus) {
        error_setg(errp, "No '%s' bus found for device '%s'",
                   BUS_TYPE_VIRTIO_SERIAL, dev->dc->name);
        return false;
    }
    s = (VirtIOSerial *)((char *)dev->bus - offsetof(VirtIOSerial, bus));
    port->is_console = !strcmp(dev->dc->name, "virtconsole");
    for (unsigned i = 0; port->name && i < s->max_ports; i++) {
        if (s->ports[i] && s->ports[i]->name &&
            !strcmp(s->ports[i]->name, port->name)) {
            error_setg(errp, "virtio-serial-bus: A port already exists by "
                       "name %s", port->name);
            return false;
        }
    }
    if (!port_pick_id(s, port, errp)) {
        return false;
    }
    if (port->chardev) {
        chr = qemu_chr_find(port->chardev);
        if (!chr) {
            error_setg(errp, "Property '%s.chardev' can't find value '%s'",
                       dev->dc->name, port->chardev);
            return false;
        }
    }
    if (!qemu_chr_fe_init(&port->chr, chr, errp)) {
        return false;
    }
    port->vser = s;
    s->ports[port->id] = port;
    /*
     * A console's output goes out whether or not a client is there; a
     * serial port's host side opens with the chardev's OPENED event
     * (sent by set_handlers when the host side is already there).
     */
    port->host_connected = port->is_console;
    qemu_chr_fe_set_handlers(&port->chr, port_can_read, port_read,
                             port_event, port);
    qemu_chr_fe_set_write_ready(&port->chr, port_write_ready);
    if (!port->is_console) {
        qemu_chr_fe_set_open(&port->chr, false);
    }
    return true;
}

static void port_unrealize(DeviceState *dev)
{
    VirtIOSerialPort *port = (VirtIOSerialPort *)dev;
    VirtIOSerial *s = port->vser;

    if (port->guest_ready) {
        control_send(s, port->id, CTRL_DEVICE_REMOVE, 1, NULL);
    }
    qemu_chr_fe_deinit(&port->chr);
    port_drop_rx(port);
    s->ports[port->id] = NULL;
}

static const Property port_props[] = {
    DEFINE_PROP_CHR("chardev", VirtIOSerialPort, chardev),
    DEFINE_PROP_STRING("name", VirtIOSerialPort, name),
    DEFINE_PROP_UINT32("nr", VirtIOSerialPort, nr, VIRTIO_CONSOLE_BAD_ID),
    PROP_END,
};

/* --- port migration --- */

static int port_pre_save(void *opaque)
{
    VirtIOSerialPort *port = opaque;

    port->tx_skip = port->tx ? port->tx_done : 0;
    return 0;
}

/* The chardev hears that the guest has the port open, as on the source. */
static bool port_post_load(void *opaque, unsigned version, Error **errp)
{
    VirtIOSerialPort *port = opaque;

    if (!port->is_console && port->guest_connected) {
        qemu_chr_fe_set_open(&port->chr, true);
    }
    return true;
}

static const VMStateDescription vmstate_virtio_serial_port = {
    .name = "virtio-serial-port",
    .version = 1,
    .minimum_version = 1,
    .pre_save = port_pre_save,
    .post_load = port_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(VirtIOSerialPort, guest_ready),
        VMSTATE_BOOL(VirtIOSerialPort, guest_connected),
        VMSTATE_U64(VirtIOSerialPort, tx_skip),
        VMSTATE_END
    },
};

const DeviceClass virtconsole_device_class = {
    .name = "virtconsole",
    .parent = "virtio-serial-port",
    .category = "Input devices",
    .instance_size = sizeof(VirtIOSerialPort),
    .props = port_props,
    .user_creatable = true,
    .vmsd = &vmstate_virtio_serial_port,
    .realize = port_realize,
    .unrealize = port_unrealize,
};

const DeviceClass virtserialport_device_class = {
    .name = "virtserialport",
    .parent = "virtio-serial-port",
    .category = "Input devices",
    .instance_size = sizeof(VirtIOSerialPort),
    .props = port_props,
    .user_creatable = true,
    .vmsd = &vmstate_virtio_serial_port,
    .realize = port_realize,
    .unrealize = port_unrealize,
};

/* --- without a transport, for the fuzz target ------------------------- */

VirtIOSerial *virtio_serial_new_unplugged(unsigned max_ports)
{
    VirtIOSerial *s = g_new0(VirtIOSerial, 1);

    serial_init(s, g_new0(VirtIODevice, 1), max_ports, false);
    for (unsigned i = 0; i < max_ports; i++) {
        VirtIOSerialPort *port = g_new0(VirtIOSerialPort, 1);

        port->vser = s;
        port->id = i;
        port->is_console = i == 0;
        port->name = i & 1 ? g_strdup_printf("port%u", i) : NULL;
        port->host_connected = i % 3 == 0;
        s->ports[i] = port;
    }
    virtio_serial_reset(s);
    return s;
}

void virtio_serial_reset(VirtIOSerial *s)
{
    virtio_reset(s->vdev);
    s->vdev->guest_features = 1ULL << VIRTIO_F_VERSION_1 |
                              1ULL << VIRTIO_CONSOLE_F_MULTIPORT;
    virtio_set_status(s->vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE |
                      VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK |
                      VIRTIO_CONFIG_S_DRIVER_OK);
}

bool virtio_serial_broken(const VirtIOSerial *s)
{
    return s->vdev->broken;
}

void virtio_serial_free_unplugged(VirtIOSerial *s)
{
    VirtIODevice *vdev = s->vdev;

    for (unsigned i = 0; i < s->max_ports; i++) {
        port_drop_rx(s->ports[i]);
        g_free(s->ports[i]->name);
        g_free(s->ports[i]);
    }
    serial_deinit(s);
    g_free(vdev);
    g_free(s);
}

DEVICE_CLASS_REGISTER(virtio_serial_pci_device_class)

DEVICE_CLASS_REGISTER(virtconsole_device_class)

DEVICE_CLASS_REGISTER(virtserialport_device_class)
