/*
 * isa-serial (16550A) at COM1: registers, FIFOs, loopback, interrupts on
 * ISA IRQ 4, and bytes to and from a socket chardev the test holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "libqtest.h"

#define MACHINE     "-machine pc"
#define COM1        0x3f8
#define COM1_IRQ    4

#define RBR 0
#define THR 0
#define DLL 0
#define IER 1
#define DLM 1
#define IIR 2
#define FCR 2
#define LCR 3
#define MCR 4
#define LSR 5
#define MSR 6
#define SCR 7

#define LCR_8N1     0x03
#define LCR_DLAB    0x80
#define MCR_LOOP    0x10
#define LSR_DR      0x01
#define LSR_OE      0x02
#define LSR_THRE    0x20
#define LSR_TEMT    0x40
#define IER_RDI     0x01
#define IER_THRI    0x02
#define IER_MSI     0x08

/* A socket chardev as COM1, with the test at the other end. */
typedef struct SerialPeer {
    QTestState *qts;
    char *dir;
    char *path;
    int fd;
} SerialPeer;

static uint8_t reg_read(QTestState *s, int reg)
{
    return qtest_inb(s, COM1 + reg);
}

static void reg_write(QTestState *s, int reg, uint8_t val)
{
    qtest_outb(s, COM1 + reg, val);
}

static void peer_start(SerialPeer *p, const char *serial_fmt)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    char *args;

    p->dir = g_dir_make_tmp("serial-test-XXXXXX", NULL);
    g_assert_nonnull(p->dir);
    p->path = g_build_filename(p->dir, "sock", NULL);
    args = g_strdup_printf(serial_fmt, p->path);
    p->qts = qtest_initf("%s %s", MACHINE, args);
    g_free(args);

    p->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(p->fd, >=, 0);
    g_strlcpy(addr.sun_path, p->path, sizeof(addr.sun_path));
    g_assert_cmpint(connect(p->fd, (struct sockaddr *)&addr, sizeof(addr)),
                    ==, 0);
}

static void peer_stop(SerialPeer *p)
{
    close(p->fd);
    qtest_quit(p->qts);
    unlink(p->path);
    rmdir(p->dir);
    g_free(p->path);
    g_free(p->dir);
}

static void peer_send(SerialPeer *p, const char *data)
{
    size_t len = strlen(data);

    g_assert_cmpint(send(p->fd, data, len, 0), ==, (ssize_t)len);
}

/* Wait (in real time) until the UART has received something. */
static void wait_for_rx(QTestState *s)
{
    gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

    while (!(reg_read(s, LSR) & LSR_DR)) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(1000);
    }
}

static void wait_for_irq(QTestState *s, int irq)
{
    gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

    while (!qtest_get_irq(s, irq)) {
        g_assert_cmpint(g_get_monotonic_time(), <, deadline);
        g_usleep(1000);
    }
}

/* Read exactly len bytes the UART sent, with a timeout. */
static void peer_expect(SerialPeer *p, const char *expected)
{
    size_t len = strlen(expected);
    char *buf = g_malloc0(len + 1);
    size_t got = 0;

    while (got < len) {
        struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
        ssize_t n;

        g_assert_cmpint(poll(&pfd, 1, 10000), ==, 1);
        n = recv(p->fd, buf + got, len - got, 0);
        g_assert_cmpint(n, >, 0);
        got += n;
    }
    g_assert_cmpstr(buf, ==, expected);
    g_free(buf);
}

static void test_reset_values(void)
{
    QTestState *s = qtest_init(MACHINE);

    g_assert_cmphex(reg_read(s, IER), ==, 0x00);
    g_assert_cmphex(reg_read(s, IIR), ==, 0x01);
    g_assert_cmphex(reg_read(s, LCR), ==, 0x00);
    g_assert_cmphex(reg_read(s, MCR), ==, 0x08);    /* OUT2, as QEMU */
    g_assert_cmphex(reg_read(s, LSR), ==, LSR_THRE | LSR_TEMT);
    g_assert_cmphex(reg_read(s, MSR), ==, 0xb0);    /* DCD, DSR, CTS */
    g_assert_cmphex(reg_read(s, SCR), ==, 0x00);
    reg_write(s, LCR, LCR_DLAB);
    g_assert_cmphex(reg_read(s, DLL), ==, 0x0c);    /* 9600 baud */
    g_assert_cmphex(reg_read(s, DLM), ==, 0x00);
    qtest_quit(s);
}

static void test_scratch(void)
{
    QTestState *s = qtest_init(MACHINE);
    static const uint8_t values[] = { 0x00, 0x55, 0xaa, 0xff, 0x5a };

    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
        reg_write(s, SCR, values[i]);
        g_assert_cmphex(reg_read(s, SCR), ==, values[i]);
    }
    qtest_quit(s);
}

static void test_divisor_latch(void)
{
    QTestState *s = qtest_init(MACHINE);

    reg_write(s, IER, 0x05);
    reg_write(s, LCR, LCR_DLAB | LCR_8N1);
    reg_write(s, DLL, 0x01);
    reg_write(s, DLM, 0x02);
    g_assert_cmphex(reg_read(s, DLL), ==, 0x01);
    g_assert_cmphex(reg_read(s, DLM), ==, 0x02);
    g_assert_cmphex(reg_read(s, LCR), ==, LCR_DLAB | LCR_8N1);

    /* With DLAB clear, offsets 0 and 1 are RBR/THR and IER again. */
    reg_write(s, LCR, LCR_8N1);
    g_assert_cmphex(reg_read(s, IER), ==, 0x05);
    reg_write(s, LCR, LCR_DLAB);
    g_assert_cmphex(reg_read(s, DLL), ==, 0x01);
    g_assert_cmphex(reg_read(s, DLM), ==, 0x02);
    qtest_quit(s);
}

static void test_lcr_lsr(void)
{
    QTestState *s = qtest_init(MACHINE);

    for (int v = 0; v < 0x80; v += 0x0b) {
        reg_write(s, LCR, v);
        g_assert_cmphex(reg_read(s, LCR), ==, v);
    }
    reg_write(s, LCR, LCR_8N1);
    /* LSR is read-only: a write changes nothing. */
    reg_write(s, LSR, 0x1f);
    g_assert_cmphex(reg_read(s, LSR), ==, LSR_THRE | LSR_TEMT);
    /* THR written and sent at once: THRE and TEMT are back. */
    reg_write(s, THR, 'x');
    g_assert_cmphex(reg_read(s, LSR), ==, LSR_THRE | LSR_TEMT);
    qtest_quit(s);
}

static void test_loopback_fifo(void)
{
    QTestState *s = qtest_init(MACHINE);

    reg_write(s, LCR, LCR_8N1);
    reg_write(s, FCR, 0x07);            /* enable, reset both FIFOs */
    g_assert_cmphex(reg_read(s, IIR), ==, 0xc1);
    reg_write(s, MCR, MCR_LOOP);

    for (int i = 0; i < 16; i++) {
        reg_write(s, THR, 'a' + i);
    }
    g_assert_cmphex(reg_read(s, LSR), ==, LSR_DR | LSR_THRE | LSR_TEMT);
    for (int i = 0; i < 16; i++) {
        g_assert_cmphex(reg_read(s, LSR) & LSR_DR, ==, LSR_DR);
        g_assert_cmphex(reg_read(s, RBR), ==, 'a' + i);
    }
    g_assert_cmphex(reg_read(s, LSR) & LSR_DR, ==, 0);

    /* A 17th byte overruns: OE, reported once, FIFO contents kept. */
    for (int i = 0; i < 17; i++) {
        reg_write(s, THR, 'A' + i);
    }
    g_assert_cmphex(reg_read(s, LSR) & (LSR_OE | LSR_DR), ==,
                    LSR_OE | LSR_DR);
    g_assert_cmphex(reg_read(s, LSR) & LSR_OE, ==, 0);
    for (int i = 0; i < 16; i++) {
        g_assert_cmphex(reg_read(s, RBR), ==, 'A' + i);
    }
    g_assert_cmphex(reg_read(s, LSR) & LSR_DR, ==, 0);

    /* FCR's RX reset empties the FIFO. */
    reg_write(s, THR, 'z');
    reg_write(s, FCR, 0x03);
    g_assert_cmphex(reg_read(s, LSR) & LSR_DR, ==, 0);

    /* Without FIFOs, a second byte overruns the first. */
    reg_write(s, FCR, 0x00);
    g_assert_cmphex(reg_read(s, IIR), ==, 0x01);
    reg_write(s, THR, '1');
    reg_write(s, THR, '2');
    g_assert_cmphex(reg_read(s, LSR) & (LSR_OE | LSR_DR), ==,
                    LSR_OE | LSR_DR);
    g_assert_cmphex(reg_read(s, RBR), ==, '2');
    g_assert_cmphex(reg_read(s, LSR) & LSR_DR, ==, 0);
    qtest_quit(s);
}

static void test_loopback_msr(void)
{
    QTestState *s = qtest_init(MACHINE);

    reg_read(s, MSR);
    /* Linux's probe: RTS and OUT2 come back as CTS and DCD. */
    reg_write(s, MCR, MCR_LOOP | 0x0a);
    g_assert_cmphex(reg_read(s, MSR) & 0xf0, ==, 0x90);
    /* DTR -> DSR, RTS -> CTS, OUT1 -> RI, OUT2 -> DCD. */
    reg_write(s, MCR, MCR_LOOP | 0x0f);
    g_assert_cmphex(reg_read(s, MSR), ==, 0xf0 | 0x02);  /* DDSR */
    g_assert_cmphex(reg_read(s, MSR), ==, 0xf0);         /* deltas read */
    reg_write(s, MCR, MCR_LOOP);
    /* All four dropped: DCTS, DDSR, TERI, DDCD. */
    g_assert_cmphex(reg_read(s, MSR), ==, 0x0f);
    g_assert_cmphex(reg_read(s, MSR), ==, 0x00);

    /* A modem status change interrupts when IER.MSI is set. */
    qtest_irq_intercept_in(s, "ioapic");
    reg_write(s, IER, IER_MSI);
    g_assert_false(qtest_get_irq(s, COM1_IRQ));
    reg_write(s, MCR, MCR_LOOP | 0x02);
    g_assert_true(qtest_get_irq(s, COM1_IRQ));
    g_assert_cmphex(reg_read(s, IIR), ==, 0x00);
    reg_read(s, MSR);
    g_assert_false(qtest_get_irq(s, COM1_IRQ));
    g_assert_cmphex(reg_read(s, IIR), ==, 0x01);

    /* Out of loopback the host's lines are back. */
    reg_write(s, IER, 0);
    reg_write(s, MCR, 0x08);
    g_assert_cmphex(reg_read(s, MSR) & 0xf0, ==, 0xb0);
    qtest_quit(s);
}

static void test_thre_irq(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_irq_intercept_in(s, "ioapic");
    g_assert_false(qtest_get_irq(s, COM1_IRQ));

    reg_write(s, IER, IER_THRI);
    g_assert_true(qtest_get_irq(s, COM1_IRQ));
    /* Reading IIR while THRE is the source acknowledges it. */
    g_assert_cmphex(reg_read(s, IIR), ==, 0x02);
    g_assert_false(qtest_get_irq(s, COM1_IRQ));
    g_assert_cmphex(reg_read(s, IIR), ==, 0x01);

    /* Each byte sent empties THR again and re-raises the interrupt. */
    reg_write(s, THR, 'x');
    g_assert_true(qtest_get_irq(s, COM1_IRQ));
    g_assert_cmphex(reg_read(s, IIR), ==, 0x02);
    g_assert_false(qtest_get_irq(s, COM1_IRQ));

    /* Re-enabling ETBEI with THR empty interrupts again. */
    reg_write(s, IER, 0);
    reg_write(s, IER, IER_THRI);
    g_assert_true(qtest_get_irq(s, COM1_IRQ));
    reg_write(s, IER, 0);
    g_assert_false(qtest_get_irq(s, COM1_IRQ));

    /* With FIFOs on, IIR carries 0xc0. */
    reg_write(s, FCR, 0x01);
    reg_write(s, IER, IER_THRI);
    g_assert_cmphex(reg_read(s, IIR), ==, 0xc2);
    qtest_quit(s);
}

/* Line status outranks received data, which outranks THRE. */
static void test_irq_priority(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_irq_intercept_in(s, "ioapic");
    reg_write(s, MCR, MCR_LOOP);
    reg_write(s, THR, '1');
    reg_write(s, THR, '2');             /* overrun: OE */
    reg_write(s, IER, 0x07);
    g_assert_true(qtest_get_irq(s, COM1_IRQ));
    g_assert_cmphex(reg_read(s, IIR), ==, 0x06);
    reg_read(s, LSR);                   /* clears OE */
    g_assert_cmphex(reg_read(s, IIR), ==, 0x04);
    g_assert_cmphex(reg_read(s, RBR), ==, '2');
    g_assert_cmphex(reg_read(s, IIR), ==, 0x02);
    g_assert_cmphex(reg_read(s, IIR), ==, 0x01);
    g_assert_false(qtest_get_irq(s, COM1_IRQ));
    qtest_quit(s);
}

/* Two-byte accesses are split into byte cycles, as on the ISA bus. */
static void test_wide_access(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_outw(s, COM1 + MSR, 0x5a00);  /* MSR ignores, SCR = 0x5a */
    g_assert_cmphex(reg_read(s, SCR), ==, 0x5a);
    g_assert_cmphex(qtest_inw(s, COM1 + MSR), ==, 0x5ab0);
    qtest_quit(s);
}

/*
 * -device isa-serial takes the first free COM port (COM1 is the board's
 * serial0 here), or where iobase and irq say.
 */
static void test_device_placement(void)
{
    QTestState *s = qtest_init(MACHINE " -device isa-serial "
                               "-device isa-serial,iobase=0x3e8,irq=5");

    g_assert_cmphex(qtest_inb(s, 0x2f8 + LSR), ==, LSR_THRE | LSR_TEMT);
    qtest_irq_intercept_in(s, "ioapic");
    qtest_outb(s, 0x2f8 + IER, IER_THRI);
    g_assert_true(qtest_get_irq(s, 3));
    qtest_outb(s, 0x3e8 + IER, IER_THRI);
    g_assert_true(qtest_get_irq(s, 5));
    g_assert_false(qtest_get_irq(s, COM1_IRQ));
    qtest_quit(s);
}

static void test_rx_irq(void)
{
    SerialPeer p;

    peer_start(&p, "-serial unix:%s,server=on,wait=off");
    qtest_irq_intercept_in(p.qts, "ioapic");
    reg_write(p.qts, LCR, LCR_8N1);
    reg_write(p.qts, IER, IER_RDI);
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));

    peer_send(&p, "A");
    wait_for_rx(p.qts);
    g_assert_true(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, IIR), ==, 0x04);
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'A');
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, LSR), ==, LSR_THRE | LSR_TEMT);

    /* Without FIFOs the UART takes the next byte only after a read. */
    peer_send(&p, "BC");
    wait_for_rx(p.qts);
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'B');
    wait_for_rx(p.qts);
    g_assert_cmphex(reg_read(p.qts, LSR) & LSR_OE, ==, 0);
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'C');
    peer_stop(&p);
}

static void test_rx_trigger_level(void)
{
    SerialPeer p;

    peer_start(&p, "-serial unix:%s,server=on,wait=off");
    qtest_irq_intercept_in(p.qts, "ioapic");
    reg_write(p.qts, LCR, LCR_8N1);
    reg_write(p.qts, FCR, 0x47);        /* FIFOs on, trigger at 4 */
    reg_write(p.qts, IER, IER_RDI);

    peer_send(&p, "wxyz");
    wait_for_irq(p.qts, COM1_IRQ);
    g_assert_cmphex(reg_read(p.qts, IIR), ==, 0xc4);
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'w');
    /* Below the trigger level now: no interrupt until the timeout. */
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, IIR), ==, 0xc1);
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'x');
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'y');
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'z');
    g_assert_cmphex(reg_read(p.qts, LSR) & LSR_DR, ==, 0);
    peer_stop(&p);
}

/*
 * 8N1 at divisor 12 (9600 baud) is 1041666 ns a character, so the
 * timeout is due 4166664 ns after the last byte arrived.
 */
static void test_rx_timeout(void)
{
    SerialPeer p;

    peer_start(&p, "-serial unix:%s,server=on,wait=off");
    qtest_irq_intercept_in(p.qts, "ioapic");
    reg_write(p.qts, LCR, LCR_DLAB | LCR_8N1);
    reg_write(p.qts, DLL, 12);
    reg_write(p.qts, DLM, 0);
    reg_write(p.qts, LCR, LCR_8N1);
    reg_write(p.qts, FCR, 0xc7);        /* trigger at 14 */
    reg_write(p.qts, IER, IER_RDI);

    peer_send(&p, "abc");
    wait_for_rx(p.qts);
    /* Let all three bytes land before the clock runs. */
    g_usleep(100 * 1000);
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, IIR), ==, 0xc1);

    qtest_clock_step(p.qts, 4000000);
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    qtest_clock_step(p.qts, 200000);
    g_assert_true(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, IIR), ==, 0xcc);

    /* Reading a byte clears the indication and restarts the timer. */
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'a');
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    qtest_clock_step(p.qts, 4200000);
    g_assert_true(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'b');
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'c');
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    g_assert_cmphex(reg_read(p.qts, IIR), ==, 0xc1);
    qtest_clock_step(p.qts, 10000000);
    g_assert_false(qtest_get_irq(p.qts, COM1_IRQ));
    peer_stop(&p);
}

static void test_tx(const void *data)
{
    SerialPeer p;
    const char *msg = "hello, world\n";

    peer_start(&p, data);
    /* A byte from our side proves the emulator accepted the connection. */
    peer_send(&p, "!");
    wait_for_rx(p.qts);
    g_assert_cmphex(reg_read(p.qts, RBR), ==, '!');

    for (const char *c = msg; *c; c++) {
        reg_write(p.qts, THR, *c);
        g_assert_cmphex(reg_read(p.qts, LSR) & LSR_TEMT, ==, LSR_TEMT);
    }
    peer_expect(&p, msg);

    /* In loopback nothing reaches the line. */
    reg_write(p.qts, MCR, MCR_LOOP);
    reg_write(p.qts, THR, 'L');
    g_assert_cmphex(reg_read(p.qts, RBR), ==, 'L');
    reg_write(p.qts, MCR, 0x08);
    reg_write(p.qts, THR, 'N');
    peer_expect(&p, "N");
    peer_stop(&p);
}

/* The pty path of "char device redirected to PATH (label LABEL)". */
static char *pty_path_from_stderr(QTestState *s, const char *label)
{
    gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
    char *tail = g_strdup_printf(" (label %s)\n", label);
    char *path = NULL;

    while (!path) {
        const char *err = qtest_stderr(s);
        const char *at = strstr(err, "char device redirected to ");
        const char *end = at ? strstr(at, tail) : NULL;

        if (end) {
            at += strlen("char device redirected to ");
            path = g_strndup(at, end - at);
        } else {
            g_assert_cmpint(g_get_monotonic_time(), <, deadline);
            g_usleep(1000);
        }
    }
    g_free(tail);
    return path;
}

/* query-chardev's filename of label. */
static char *chardev_filename(QTestState *s, const char *label)
{
    JsonNode *r = qtest_qmp(s, "{\"execute\": \"query-chardev\"}");
    JsonArray *list = json_object_get_array_member(
        json_node_get_object(r), "return");
    char *filename = NULL;

    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *c = json_array_get_object_element(list, i);

        if (!strcmp(json_object_get_string_member(c, "label"), label)) {
            filename = g_strdup(json_object_get_string_member(c,
                                                              "filename"));
        }
    }
    json_node_unref(r);
    return filename;
}

/*
 * -serial pty, as QEMU 7.2 takes it: the path on stderr and in
 * query-chardev, and bytes both ways through the terminal.
 */
static void test_serial_pty(void)
{
    QTestState *s = qtest_init(MACHINE " -serial pty");
    char *path = pty_path_from_stderr(s, "serial0");
    char *filename = chardev_filename(s, "serial0");
    char *want = g_strdup_printf("pty:%s", path);
    const char *msg = "to the pty\n";
    struct termios tty;
    char buf[32] = "";
    size_t got = 0;
    int fd;

    g_assert_true(g_str_has_prefix(path, "/dev/pts/"));
    g_assert_cmpstr(filename, ==, want);
    fd = open(path, O_RDWR | O_NOCTTY);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(tcgetattr(fd, &tty), ==, 0);
    cfmakeraw(&tty);
    g_assert_cmpint(tcsetattr(fd, TCSANOW, &tty), ==, 0);

    g_assert_cmpint(write(fd, "!", 1), ==, 1);
    wait_for_rx(s);
    g_assert_cmphex(reg_read(s, RBR), ==, '!');
    for (const char *c = msg; *c; c++) {
        reg_write(s, THR, *c);
    }
    while (got < strlen(msg)) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;

        g_assert_cmpint(poll(&pfd, 1, 10000), ==, 1);
        n = read(fd, buf + got, sizeof(buf) - 1 - got);
        g_assert_cmpint(n, >, 0);
        got += n;
    }
    g_assert_cmpstr(buf, ==, msg);
    close(fd);
    qtest_quit(s);
    g_free(want);
    g_free(filename);
    g_free(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/serial/reset-values", test_reset_values);
    qtest_add_func("/serial/scratch", test_scratch);
    qtest_add_func("/serial/divisor-latch", test_divisor_latch);
    qtest_add_func("/serial/lcr-lsr", test_lcr_lsr);
    qtest_add_func("/serial/loopback", test_loopback_fifo);
    qtest_add_func("/serial/loopback-msr", test_loopback_msr);
    qtest_add_func("/serial/thre-irq", test_thre_irq);
    qtest_add_func("/serial/irq-priority", test_irq_priority);
    qtest_add_func("/serial/wide-access", test_wide_access);
    qtest_add_func("/serial/device-placement", test_device_placement);
    qtest_add_func("/serial/rx-irq", test_rx_irq);
    qtest_add_func("/serial/rx-trigger-level", test_rx_trigger_level);
    qtest_add_func("/serial/rx-timeout", test_rx_timeout);
    qtest_add_func("/serial/pty", test_serial_pty);
    qtest_add_data_func("/serial/tx-serial-unix",
                        "-serial unix:%s,server=on,wait=off", test_tx);
    qtest_add_data_func("/serial/tx-chardev",
                        "-chardev socket,path=%s,server=on,wait=off,id=c0 "
                        "-serial chardev:c0", test_tx);
    return g_test_run();
}
