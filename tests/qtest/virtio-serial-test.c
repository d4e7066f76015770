/*
 * qtest for virtio-serial-pci with virtconsole and virtserialport
 * through libqvirtio. The test listens on unix sockets and the ports'
 * chardevs connect to it (-chardev socket,path=...), so every byte is
 * seen from both ends: guest to host on a transmit queue, host to guest
 * into receive buffers (and only once the guest has posted some). With
 * MULTIPORT the control handshake is played as Linux's driver does it
 * (DEVICE_READY, PORT_READY, PORT_OPEN) and the device's answers are
 * checked (DEVICE_ADD, CONSOLE_PORT, PORT_NAME, PORT_OPEN), as are the
 * guest's opening and closing as query-chardev and VSERPORT_CHANGE show
 * them, the host side closing, malformed control messages, and QEMU's
 * errors for bad port options. Runs against QEMU 7.2 as well
 * (QTEST_ACCEL=tcg).
 */
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "libqvirtio.h"

#define SERIAL_DEVICE_ID    0x1043
#define F_MULTIPORT         (1ULL << 1)
#define F_EMERG_WRITE       (1ULL << 2)

#define EV_DEVICE_READY     0
#define EV_DEVICE_ADD       1
#define EV_PORT_READY       3
#define EV_CONSOLE_PORT     4
#define EV_PORT_OPEN        6
#define EV_PORT_NAME        7

/* Modern only, so that QEMU 7.2 (QTEST_ACCEL=tcg) runs it too. */
#define VSER                "-device virtio-serial-pci,disable-legacy=on"
#define NQUEUES             6           /* ports 0 and 1, control */
#define QBUF_BASE           0x400000ull /* queue q's buffers at +q MiB */
#define QBUF_SIZE           0x100       /* one per descriptor */
#define AGENT_NAME          "org.qemu.guest_agent.0"

typedef struct Host {
    char *dir;
    char *path;
    int listen_fd;
    int fd;                     /* the emulator's connection */
} Host;

typedef struct Rig {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue vq[NQUEUES];
    QGuestAlloc alloc;
} Rig;

/* --- the host side: a unix socket the chardev connects to ------------- */

static void host_listen(Host *h, const char *name)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    h->dir = g_dir_make_tmp("vser-XXXXXX", NULL);
    h->path = g_build_filename(h->dir, name, NULL);
    g_assert_cmpuint(strlen(h->path), <, sizeof(sa.sun_path));
    strcpy(sa.sun_path, h->path);
    h->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(h->listen_fd, >=, 0);
    g_assert_cmpint(bind(h->listen_fd, (struct sockaddr *)&sa, sizeof(sa)),
                    ==, 0);
    g_assert_cmpint(listen(h->listen_fd, 1), ==, 0);
    h->fd = -1;
}

static void host_accept(Host *h)
{
    struct pollfd p = { .fd = h->listen_fd, .events = POLLIN };

    g_assert_cmpint(poll(&p, 1, 10000), ==, 1);
    h->fd = accept(h->listen_fd, NULL, NULL);
    g_assert_cmpint(h->fd, >=, 0);
}

static void host_close(Host *h)
{
    if (h->fd >= 0) {
        close(h->fd);
        h->fd = -1;
    }
}

static void host_free(Host *h)
{
    host_close(h);
    close(h->listen_fd);
    unlink(h->path);
    rmdir(h->dir);
    g_free(h->path);
    g_free(h->dir);
}

static void host_write(Host *h, const char *text)
{
    g_assert_cmpint(write(h->fd, text, strlen(text)), ==, strlen(text));
}

/* Read exactly len bytes, waiting 10 s at most for each part. */
static void host_read(Host *h, void *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        struct pollfd p = { .fd = h->fd, .events = POLLIN };
        ssize_t n;

        g_assert_cmpint(poll(&p, 1, 10000), ==, 1);
        n = read(h->fd, (char *)buf + got, len - got);
        g_assert_cmpint(n, >, 0);
        got += n;
    }
}

static void host_expect(Host *h, const char *want)
{
    size_t len = strlen(want);
    g_autofree char *buf = g_malloc0(len + 1);

    host_read(h, buf, len);
    g_assert_cmpstr(buf, ==, want);
}

/* Nothing arrives within a while. */
static void host_expect_silence(Host *h)
{
    struct pollfd p = { .fd = h->fd, .events = POLLIN };

    g_assert_cmpint(poll(&p, 1, 100), ==, 0);
}

/* --- the guest side ------------------------------------------------------ */

static uint64_t qbuf(unsigned q, uint16_t head)
{
    return QBUF_BASE + (uint64_t)q * 0x100000 + (uint64_t)head * QBUF_SIZE;
}

static void rig_start(Rig *r, const char *args, uint64_t features)
{
    qpci_alloc_reset();
    r->s = qtest_init(args);
    qalloc_init(&r->alloc, 0x100000, 0x400000);
    g_assert_true(qvirtio_pci_find(r->s, SERIAL_DEVICE_ID, &r->dev));
    g_assert_true(qvirtio_negotiate(&r->dev, features));
    for (unsigned q = 0; q < NQUEUES; q++) {
        qvirtqueue_setup(&r->dev, &r->vq[q], &r->alloc, q, 32);
    }
    qvirtio_set_driver_ok(&r->dev);
}

static bool wait_buf(Rig *r, unsigned q, uint32_t *id, uint32_t *len)
{
    for (int i = 0; i < 5000; i++) {
        if (qvirtqueue_get_buf(&r->dev, &r->vq[q], id, len)) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

/* Post n empty receive buffers on queue q. */
static void post_rx(Rig *r, unsigned q, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint16_t head = r->vq[q].free_head;

        qvirtqueue_add(&r->dev, &r->vq[q], qbuf(q, head), QBUF_SIZE, true,
                       false);
        qvirtqueue_kick(&r->dev, &r->vq[q], head);
    }
}

/* Send len bytes on transmit queue q and wait until they are used. */
static void guest_send(Rig *r, unsigned q, const void *data, size_t len)
{
    uint16_t head = r->vq[q].free_head;

    qtest_memwrite(r->s, qbuf(q, head), data, len);
    qvirtqueue_add(&r->dev, &r->vq[q], qbuf(q, head), len, false, false);
    qvirtqueue_kick(&r->dev, &r->vq[q], head);
    g_assert_true(wait_buf(r, q, NULL, NULL));
}

/* The next bytes the guest received on queue q, as a string. */
static char *guest_receive(Rig *r, unsigned q)
{
    uint32_t id, len;
    char *buf;

    g_assert_true(wait_buf(r, q, &id, &len));
    g_assert_cmpuint(len, <=, QBUF_SIZE);
    buf = g_malloc0(len + 1);
    qtest_memread(r->s, qbuf(q, id), buf, len);
    return buf;
}

static void control_send(Rig *r, uint32_t id, uint16_t event, uint16_t value)
{
    uint8_t m[8] = { id, id >> 8, id >> 16, id >> 24, event, event >> 8,
                     value, value >> 8 };

    guest_send(r, 3, m, sizeof(m));
}

/* The next control message from the device; *extra gets what follows. */
static void control_expect(Rig *r, uint32_t id, uint16_t event,
                           uint16_t value, const char *extra)
{
    uint32_t head, len;
    uint8_t m[QBUF_SIZE];

    g_assert_true(wait_buf(r, 2, &head, &len));
    g_assert_cmpuint(len, >=, 8);
    qtest_memread(r->s, qbuf(2, head), m, len);
    g_assert_cmpuint(m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24,
                     ==, id);
    g_assert_cmpuint(m[4] | m[5] << 8, ==, event);
    g_assert_cmpuint(m[6] | m[7] << 8, ==, value);
    if (extra) {
        g_assert_cmpuint(len, ==, 8 + strlen(extra) + 1);
        g_assert_cmpstr((char *)m + 8, ==, extra);
    } else {
        g_assert_cmpuint(len, ==, 8);
    }
    /* Give the buffer back for the next message. */
    post_rx(r, 2, 1);
}

static bool chardev_frontend_open(Rig *r, const char *label)
{
    JsonNode *reply = qtest_qmp(r->s, "{\"execute\": \"query-chardev\"}");
    JsonArray *list = json_object_get_array_member(
        json_node_get_object(reply), "return");
    int open = -1;

    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *c = json_array_get_object_element(list, i);

        if (!strcmp(json_object_get_string_member(c, "label"), label)) {
            open = json_object_get_boolean_member(c, "frontend-open");
        }
    }
    json_node_unref(reply);
    g_assert_cmpint(open, >=, 0);
    return open;
}

static void expect_vserport_change(Rig *r, const char *id, bool open)
{
    JsonNode *ev = qtest_qmp_eventwait_ref(r->s, "VSERPORT_CHANGE");
    JsonObject *data = qdict_get_qdict(ev, "data");

    g_assert_cmpstr(json_object_get_string_member(data, "id"), ==, id);
    g_assert_cmpint(json_object_get_boolean_member(data, "open"), ==, open);
    json_node_unref(ev);
}

/* --- tests ------------------------------------------------------------- */

static void test_config(void)
{
    QVirtioDev d;
    QTestState *s;
    uint64_t f;

    qpci_alloc_reset();
    s = qtest_init("-nodefaults " VSER ",max_ports=4");
    g_assert_true(qvirtio_pci_find(s, SERIAL_DEVICE_ID, &d));
    /* Class: simple communication controller, other. */
    g_assert_cmphex(qpci_config_readl(s, d.devfn, 0x08) >> 8, ==, 0x078000);
    f = qvirtio_get_features(&d);
    g_assert_cmphex(f & (F_MULTIPORT | F_EMERG_WRITE | QVIRTIO_F_VERSION_1),
                    ==, F_MULTIPORT | F_EMERG_WRITE | QVIRTIO_F_VERSION_1);
    /* max_nr_ports, and two queues per port plus the control pair. */
    g_assert_cmpuint(qvirtio_config_readl(&d, 4), ==, 4);
    g_assert_cmpuint(qpci_bar_read(s, &d.bar, 0x12, 2), ==, 10);
    qtest_quit(s);
}

/* A console on port 0 alone, no MULTIPORT, connected to h. */
static void console_start(Rig *r, Host *h)
{
    g_autofree char *args = NULL;

    host_listen(h, "console");
    args = g_strdup_printf("-nodefaults " VSER " "
                           "-chardev socket,id=con,path=%s "
                           "-device virtconsole,chardev=con", h->path);
    rig_start(r, args, QVIRTIO_F_VERSION_1 | F_EMERG_WRITE);
    host_accept(h);
}

/*
 * Without MULTIPORT: port 0 only (the console), open as soon as the
 * driver is; host bytes wait for a receive buffer.
 */
static void test_console_single(void)
{
    Host h;
    g_autofree char *got = NULL;
    Rig r;

    console_start(&r, &h);
    guest_send(&r, 1, "hello host\n", 11);
    host_expect(&h, "hello host\n");
    /* emerg_wr: one byte straight to port 0's chardev. */
    qpci_bar_write(r.s, &r.dev.bar, r.dev.device + 8, '!', 4);
    host_expect(&h, "!");
    /* No receive buffer yet: the bytes stay in the socket. */
    host_write(&h, "hello guest");
    g_usleep(100000);
    g_assert_false(qvirtqueue_get_buf(&r.dev, &r.vq[0], NULL, NULL));
    post_rx(&r, 0, 1);
    got = guest_receive(&r, 0);
    g_assert_cmpstr(got, ==, "hello guest");
    qtest_quit(r.s);
    host_free(&h);
}

/*
 * More host bytes than one buffer holds: they fill buffer after buffer
 * as the guest posts them, in order, none lost.
 */
static void test_console_backpressure(void)
{
    Host h;
    GString *all = g_string_new(NULL);
    GString *got = g_string_new(NULL);
    Rig r;

    console_start(&r, &h);
    for (int i = 0; i < 100; i++) {
        g_string_append_printf(all, "line %03d of host output\n", i);
    }
    host_write(&h, all->str);
    while (got->len < all->len) {
        g_autofree char *part = NULL;

        post_rx(&r, 0, 1);
        part = guest_receive(&r, 0);
        g_assert_cmpuint(strlen(part), >, 0);
        g_string_append(got, part);
    }
    g_assert_cmpstr(got->str, ==, all->str);
    g_string_free(all, TRUE);
    g_string_free(got, TRUE);
    qtest_quit(r.s);
    host_free(&h);
}

/*
 * MULTIPORT with a console at port 0 and the guest agent channel (id
 * agent) at port 1, each on a socket the test accepted.
 */
static void two_ports_start(Rig *r, Host *con, Host *agent)
{
    g_autofree char *args = NULL;

    host_listen(con, "console");
    host_listen(agent, "agent");
    args = g_strdup_printf(
        "-nodefaults " VSER ",max_ports=2 "
        "-chardev socket,id=con,path=%s -device virtconsole,chardev=con "
        "-chardev socket,id=ga,path=%s "
        "-device virtserialport,chardev=ga,name=" AGENT_NAME ",id=agent",
        con->path, agent->path);
    rig_start(r, args, QVIRTIO_F_VERSION_1 | F_MULTIPORT);
    host_accept(con);
    host_accept(agent);
}

#define BIG_BASE        0x1000000ull
#define BIG_CHAIN       0x10000u
#define BIG_CHAINS      16u

/* Queue BIG_CHAINS chains of BIG_CHAIN bytes of sent on queue q. */
static void send_big(Rig *r, unsigned q, const uint8_t *sent)
{
    qtest_memwrite(r->s, BIG_BASE, sent, BIG_CHAIN * BIG_CHAINS);
    for (unsigned c = 0; c < BIG_CHAINS; c++) {
        uint16_t head = qvirtqueue_add(&r->dev, &r->vq[q],
                                       BIG_BASE + c * BIG_CHAIN, BIG_CHAIN,
                                       false, false);

        qvirtqueue_kick(&r->dev, &r->vq[q], head);
    }
    g_usleep(200000);
}

static unsigned count_used(Rig *r, unsigned q)
{
    unsigned used = 0;

    while (qvirtqueue_get_buf(&r->dev, &r->vq[q], NULL, NULL)) {
        used++;
    }
    return used;
}

/*
 * Guest bytes faster than the host reads, 1 MiB in 64 KiB chains while
 * the test does not read. A serial port keeps the chains (not used)
 * rather than let its chardev drop what it cannot queue; once the host
 * reads, every byte arrives in order and every chain is used. A console
 * never holds the guest up (as in QEMU): its chains are all used.
 */
static void test_guest_backpressure(void)
{
    g_autofree uint8_t *sent = g_malloc(BIG_CHAIN * BIG_CHAINS);
    g_autofree uint8_t *got = g_malloc(BIG_CHAIN * BIG_CHAINS);
    Host con, agent;
    unsigned used;
    Rig r;

    two_ports_start(&r, &con, &agent);
    for (size_t i = 0; i < BIG_CHAIN * BIG_CHAINS; i++) {
        sent[i] = i * 31 + i / 251;
    }
    send_big(&r, 5, sent);
    /* A unix socket holds a few hundred KiB: most chains still wait. */
    used = count_used(&r, 5);
    g_assert_cmpuint(used, <, BIG_CHAINS / 2);
    host_read(&agent, got, BIG_CHAIN * BIG_CHAINS);
    g_assert_true(memcmp(got, sent, BIG_CHAIN * BIG_CHAINS) == 0);
    for (; used < BIG_CHAINS; used++) {
        g_assert_true(wait_buf(&r, 5, NULL, NULL));
    }

    send_big(&r, 1, sent);
    g_assert_cmpuint(count_used(&r, 1), ==, BIG_CHAINS);
    qtest_quit(r.s);
    host_free(&con);
    host_free(&agent);
}

/*
 * MULTIPORT: a console at port 0 and the guest agent channel at port
 * 1, the handshake, data both ways, open and close on both sides.
 */
static void test_multiport(void)
{
    Host con, agent;
    g_autofree char *got = NULL;
    Rig r;

    two_ports_start(&r, &con, &agent);
    post_rx(&r, 2, 8);
    control_send(&r, 0xffffffff, EV_DEVICE_READY, 1);
    control_expect(&r, 0, EV_DEVICE_ADD, 1, NULL);
    control_expect(&r, 1, EV_DEVICE_ADD, 1, NULL);
    control_send(&r, 0, EV_PORT_READY, 1);
    control_expect(&r, 0, EV_CONSOLE_PORT, 1, NULL);
    control_expect(&r, 0, EV_PORT_OPEN, 1, NULL);
    control_send(&r, 1, EV_PORT_READY, 1);
    control_expect(&r, 1, EV_PORT_NAME, 1, AGENT_NAME);
    control_expect(&r, 1, EV_PORT_OPEN, 1, NULL);

    /* Not open in the guest yet: host bytes wait. */
    post_rx(&r, 4, 2);
    host_write(&agent, "{\"execute\":\"guest-ping\"}");
    g_usleep(100000);
    g_assert_false(qvirtqueue_get_buf(&r.dev, &r.vq[4], NULL, NULL));
    g_assert_false(chardev_frontend_open(&r, "ga"));

    control_send(&r, 1, EV_PORT_OPEN, 1);
    expect_vserport_change(&r, "agent", true);
    g_assert_true(chardev_frontend_open(&r, "ga"));
    got = guest_receive(&r, 4);
    g_assert_cmpstr(got, ==, "{\"execute\":\"guest-ping\"}");
    guest_send(&r, 5, "{\"return\": {}}\n", 15);
    host_expect(&agent, "{\"return\": {}}\n");
    /* The console's bytes go to the console's chardev only. */
    guest_send(&r, 1, "console\n", 8);
    host_expect(&con, "console\n");
    host_expect_silence(&agent);

    /* The host side goes away: the guest is told. */
    host_close(&agent);
    control_expect(&r, 1, EV_PORT_OPEN, 0, NULL);
    /* The guest closes its side. */
    control_send(&r, 1, EV_PORT_OPEN, 0);
    expect_vserport_change(&r, "agent", false);
    g_assert_false(chardev_frontend_open(&r, "ga"));
    qtest_quit(r.s);
    host_free(&con);
    host_free(&agent);
}

/* A device reset closes what the guest had open. */
static void test_reset_closes(void)
{
    Host agent;
    g_autofree char *args = NULL;
    Rig r;

    host_listen(&agent, "agent");
    args = g_strdup_printf(
        "-nodefaults " VSER ",max_ports=2 "
        "-chardev socket,id=ga,path=%s "
        "-device virtserialport,chardev=ga,name=" AGENT_NAME ",id=agent",
        agent.path);
    rig_start(&r, args, QVIRTIO_F_VERSION_1 | F_MULTIPORT);
    host_accept(&agent);
    post_rx(&r, 2, 8);
    control_send(&r, 1, EV_PORT_READY, 1);
    control_send(&r, 1, EV_PORT_OPEN, 1);
    expect_vserport_change(&r, "agent", true);
    qvirtio_reset(&r.dev);
    expect_vserport_change(&r, "agent", false);
    g_assert_false(chardev_frontend_open(&r, "ga"));
    qtest_quit(r.s);
    host_free(&agent);
}

/* Each sends one bad control message. */
typedef struct BadControl {
    const char *name;
    uint8_t msg[8];
    size_t len;
} BadControl;

static const BadControl bad_controls[] = {
    { "short", { 0, 0, 0, 0, EV_PORT_READY }, 6 },
    { "no-such-port", { 7, 0, 0, 0, EV_PORT_OPEN, 0, 1, 0 }, 8 },
    { "huge-port", { 0xff, 0xff, 0xff, 0x7f, EV_PORT_READY, 0, 1, 0 }, 8 },
    { "device-event", { 1, 0, 0, 0, EV_PORT_NAME, 0, 1, 0 }, 8 },
    { "unknown-event", { 1, 0, 0, 0, 0x99, 0x99, 1, 0 }, 8 },
};

static void test_bad_control(const void *data)
{
    const BadControl *c = data;
    Rig r;

    if (g_getenv("QTEST_ACCEL")) {
        /* Which this emulator refuses, as the virtio spec allows. */
        g_test_skip("QEMU 7.2 logs and ignores bad control messages");
        return;
    }
    rig_start(&r, "-nodefaults -d guest_errors "
              VSER ",max_ports=2 "
              "-device virtserialport,name=x",
              QVIRTIO_F_VERSION_1 | F_MULTIPORT);
    guest_send(&r, 3, c->msg, c->len);
    for (int i = 0; !(qvirtio_get_status(&r.dev) & QVIRTIO_NEEDS_RESET); i++) {
        g_assert_cmpint(i, <, 2000);
        g_usleep(1000);
    }
    for (int i = 0; !strstr(qtest_stderr(r.s), "virtio-serial: "); i++) {
        g_assert_cmpint(i, <, 2000);
        g_usleep(1000);
    }
    /* A reset brings it back: the handshake works again. */
    g_assert_true(qvirtio_negotiate(&r.dev, QVIRTIO_F_VERSION_1 |
                                    F_MULTIPORT));
    for (unsigned q = 0; q < NQUEUES; q++) {
        qvirtqueue_setup(&r.dev, &r.vq[q], &r.alloc, q, 32);
    }
    qvirtio_set_driver_ok(&r.dev);
    post_rx(&r, 2, 4);
    control_send(&r, 0xffffffff, EV_DEVICE_READY, 1);
    control_expect(&r, 1, EV_DEVICE_ADD, 1, NULL);
    qtest_quit(r.s);
}

static const QTestStartError bad_args[] = {
    { "-device virtserialport,name=x",
      "qemu-system-x86_64: -device virtserialport,name=x: No "
      "'virtio-serial-bus' bus found for device 'virtserialport'\n" },
    { "-device virtio-serial-pci -device virtconsole,chardev=nope",
      "qemu-system-x86_64: -device virtconsole,chardev=nope: Property "
      "'virtconsole.chardev' can't find value 'nope'\n" },
    { "-device virtio-serial-pci,max_ports=2 -device virtserialport,nr=5",
      "qemu-system-x86_64: -device virtserialport,nr=5: virtio-serial-bus: "
      "Out-of-range port id specified, max. allowed: 1\n" },
    { "-device virtio-serial-pci -device virtserialport,nr=0",
      "qemu-system-x86_64: -device virtserialport,nr=0: Port number 0 on "
      "virtio-serial devices reserved for virtconsole devices for "
      "backward compatibility.\n" },
    { "-device virtio-serial-pci -device virtserialport,nr=3 "
      "-device virtserialport,nr=3",
      "qemu-system-x86_64: -device virtserialport,nr=3: virtio-serial-bus: "
      "A port already exists at id 3\n" },
    { "-device virtio-serial-pci -device virtserialport,name=a "
      "-device virtserialport,name=a",
      "qemu-system-x86_64: -device virtserialport,name=a: "
      "virtio-serial-bus: A port already exists by name a\n" },
    { "-device virtio-serial-pci,max_ports=0",
      "qemu-system-x86_64: -device virtio-serial-pci,max_ports=0: Maximum "
      "number of serial ports not specified\n" },
    { "-device virtio-serial-pci,max_ports=512",
      "qemu-system-x86_64: -device virtio-serial-pci,max_ports=512: "
      "maximum ports supported: 511\n" },
    { "-chardev null,id=n -device virtio-serial-pci "
      "-device virtconsole,chardev=n -device virtserialport,chardev=n",
      "qemu-system-x86_64: -device virtserialport,chardev=n: Device 'n' is "
      "in use\n" },
};

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("virtio-serial/config", test_config);
    qtest_add_func("virtio-serial/console/single", test_console_single);
    qtest_add_func("virtio-serial/console/host-backpressure",
                   test_console_backpressure);
    qtest_add_func("virtio-serial/guest-backpressure",
                   test_guest_backpressure);
    qtest_add_func("virtio-serial/multiport", test_multiport);
    qtest_add_func("virtio-serial/reset-closes", test_reset_closes);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_controls); i++) {
        char *path = g_strdup_printf("virtio-serial/bad-control/%s",
                                     bad_controls[i].name);

        qtest_add_data_func(path, &bad_controls[i], test_bad_control);
        g_free(path);
    }
    qtest_add_start_errors("virtio-serial/bad-args", bad_args,
                           G_N_ELEMENTS(bad_args));
    return g_test_run();
}
