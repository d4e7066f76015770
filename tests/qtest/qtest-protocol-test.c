/*
 * The qtest line protocol, from the client side: every command's happy
 * path and the malformed input a server must answer (ERR/FAIL) without
 * crashing or losing its place in the stream.
 */
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libqtest.h"

#define MACHINE         "-machine pc -m 256M"
#define RAM_TEST_ADDR   0x100000ull     /* 1 MiB: plain RAM on pc */
/* Above the 256 MiB of RAM and below the PCI/BIOS area: nothing there. */
#define UNASSIGNED_ADDR 0x40000000ull
#define UNASSIGNED_PORT 0x2340

/* The server is in sync if endianness still answers exactly. */
static void assert_alive(QTestState *s)
{
    char *r = qtest_rsp(s, "endianness");

    g_assert_cmpstr(r, ==, "OK little");
    g_free(r);
}

/* Send a raw line and check the reply starts with ERR or FAIL. */
static void assert_rejected(QTestState *s, const char *line)
{
    char *r = qtest_rsp(s, "%s", line);

    if (!g_str_has_prefix(r, "ERR") && !g_str_has_prefix(r, "FAIL")) {
        g_error("'%s' was answered '%s', expected ERR or FAIL", line, r);
    }
    g_free(r);
    assert_alive(s);
}

static void assert_reply(QTestState *s, const char *line,
                         const char *expected)
{
    char *r = qtest_rsp(s, "%s", line);

    if (strcmp(r, expected) != 0) {
        g_error("'%s' was answered '%s', expected '%s'", line, r, expected);
    }
    g_free(r);
}

static void test_endianness(void)
{
    QTestState *s = qtest_init(MACHINE);

    g_assert_false(qtest_big_endian(s));
    assert_reply(s, "endianness", "OK little");
    qtest_quit(s);
}

static void test_ram_widths(void)
{
    QTestState *s = qtest_init(MACHINE);
    uint64_t a = RAM_TEST_ADDR;

    qtest_writeb(s, a, 0x5a);
    g_assert_cmphex(qtest_readb(s, a), ==, 0x5a);
    qtest_writew(s, a + 0x10, 0xbeef);
    g_assert_cmphex(qtest_readw(s, a + 0x10), ==, 0xbeef);
    qtest_writel(s, a + 0x20, 0xdeadbeef);
    g_assert_cmphex(qtest_readl(s, a + 0x20), ==, 0xdeadbeef);
    qtest_writeq(s, a + 0x30, 0x0123456789abcdefull);
    g_assert_cmphex(qtest_readq(s, a + 0x30), ==, 0x0123456789abcdefull);

    /* Little endian: the low byte is at the lowest address. */
    qtest_writel(s, a + 0x40, 0x11223344);
    g_assert_cmphex(qtest_readb(s, a + 0x40), ==, 0x44);
    g_assert_cmphex(qtest_readb(s, a + 0x43), ==, 0x11);
    g_assert_cmphex(qtest_readw(s, a + 0x42), ==, 0x1122);
    qtest_writeq(s, a + 0x50, 0xffeeddccbbaa9988ull);
    g_assert_cmphex(qtest_readl(s, a + 0x54), ==, 0xffeeddcc);

    /* Unaligned accesses to RAM work. */
    qtest_writel(s, a + 0x61, 0xcafef00d);
    g_assert_cmphex(qtest_readl(s, a + 0x61), ==, 0xcafef00d);
    g_assert_cmphex(qtest_readb(s, a + 0x61), ==, 0x0d);

    /* A narrow write leaves its neighbours alone. */
    qtest_writeb(s, a + 0x22, 0x00);
    g_assert_cmphex(qtest_readl(s, a + 0x20), ==, 0xde00beef);

    /* A value wider than the access is truncated to it, as in QEMU. */
    qtest_writeq(s, a + 0x70, 0);
    assert_reply(s, "writeb 0x100070 0x1ff", "OK");
    g_assert_cmphex(qtest_readw(s, a + 0x70), ==, 0x00ff);
    qtest_quit(s);
}

static void test_reply_format(void)
{
    QTestState *s = qtest_init(MACHINE);

    /* As QEMU: memory reads print 16 hex digits, port reads 4 at least. */
    qtest_writel(s, RAM_TEST_ADDR, 0x12345678);
    assert_reply(s, "readb 0x100000", "OK 0x0000000000000078");
    assert_reply(s, "readw 0x100000", "OK 0x0000000000005678");
    assert_reply(s, "readl 0x100000", "OK 0x0000000012345678");
    assert_reply(s, "readq 0x100000", "OK 0x0000000012345678");
    assert_reply(s, "writeb 0x100000 0x1", "OK");
    assert_reply(s, "read 0x100000 4", "OK 0x01563412");
    assert_reply(s, "inb 0x2340", "OK 0x00ff");
    assert_reply(s, "inw 0x2340", "OK 0xffff");
    assert_reply(s, "inl 0x2340", "OK 0xffffffff");
    assert_reply(s, "outb 0x2340 0x1", "OK");
    qtest_quit(s);
}

static void test_decimal_numbers(void)
{
    QTestState *s = qtest_init(MACHINE);

    /* strtoul base 0: decimal, 0x hex and 0 octal all parse. */
    assert_reply(s, "writeb 1048576 255", "OK");
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR), ==, 0xff);
    assert_reply(s, "writew 0x100002 010", "OK");
    g_assert_cmphex(qtest_readw(s, RAM_TEST_ADDR + 2), ==, 8);
    assert_reply(s, "readb 1048576", "OK 0x00000000000000ff");
    qtest_quit(s);
}

static void test_hex_read_write(void)
{
    QTestState *s = qtest_init(MACHINE);
    uint8_t out[300];
    uint8_t in[300];

    for (size_t i = 0; i < sizeof(out); i++) {
        out[i] = i * 7 + 3;
    }
    qtest_memwrite(s, RAM_TEST_ADDR + 5, out, sizeof(out));
    memset(in, 0, sizeof(in));
    qtest_memread(s, RAM_TEST_ADDR + 5, in, sizeof(in));
    g_assert_cmpmem(in, sizeof(in), out, sizeof(out));
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR + 5), ==, 3);

    /* The raw form, upper-case hex digits included. */
    assert_reply(s, "write 0x100000 4 0xDEADbeef", "OK");
    g_assert_cmphex(qtest_readl(s, RAM_TEST_ADDR), ==, 0xefbeadde);
    assert_reply(s, "read 0x100000 2", "OK 0xdead");
    assert_reply(s, "read 0x100001 1", "OK 0xad");
    qtest_quit(s);
}

static void test_b64_round_trip(void)
{
    QTestState *s = qtest_init(MACHINE);
    size_t size = 4096;
    uint8_t *out = g_malloc(size);
    uint8_t *in = g_malloc0(size);
    uint8_t *hex = g_malloc0(size);
    GRand *rand = g_rand_new_with_seed(42);

    for (size_t i = 0; i < size; i++) {
        out[i] = g_rand_int(rand);
    }
    qtest_bufwrite(s, RAM_TEST_ADDR, out, size);
    qtest_bufread(s, RAM_TEST_ADDR, in, size);
    g_assert_cmpmem(in, size, out, size);
    /* Both encodings see the same memory. */
    qtest_memread(s, RAM_TEST_ADDR, hex, size);
    g_assert_cmpmem(hex, size, out, size);
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR + size - 1), ==,
                    out[size - 1]);

    /* A raw b64read of three known bytes. */
    qtest_memwrite(s, RAM_TEST_ADDR, "Man", 3);
    assert_reply(s, "b64read 0x100000 3", "OK TWFu");
    assert_reply(s, "b64write 0x100000 3 YWJj", "OK");
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR + 2), ==, 'c');

    g_rand_free(rand);
    g_free(out);
    g_free(in);
    g_free(hex);
    qtest_quit(s);
}

static void test_large_transfer(void)
{
    QTestState *s = qtest_init(MACHINE);
    size_t size = 8 << 20;
    uint32_t *out = g_malloc(size);
    uint32_t *in = g_malloc0(size);

    for (size_t i = 0; i < size / 4; i++) {
        out[i] = i * 2654435761u;
    }
    /* Lines of about 11 MiB each way. */
    qtest_bufwrite(s, 0x1000000, out, size);
    qtest_bufread(s, 0x1000000, in, size);
    g_assert_true(memcmp(in, out, size) == 0);
    /* And 2 MiB as hex: a 4 MiB reply line. */
    memset(in, 0, size);
    qtest_memread(s, 0x1000000, in, 2 << 20);
    g_assert_true(memcmp(in, out, 2 << 20) == 0);
    g_free(out);
    g_free(in);
    qtest_quit(s);
}

static void test_memset(void)
{
    QTestState *s = qtest_init(MACHINE);
    uint8_t buf[64];
    uint8_t want[64];

    qtest_memset(s, RAM_TEST_ADDR, 0x11, sizeof(buf));
    qtest_memset(s, RAM_TEST_ADDR + 8, 0xa5, 16);
    qtest_memread(s, RAM_TEST_ADDR, buf, sizeof(buf));
    memset(want, 0x11, sizeof(want));
    memset(want + 8, 0xa5, 16);
    g_assert_cmpmem(buf, sizeof(buf), want, sizeof(want));

    /* A large memset over RAM. */
    qtest_memset(s, 0x200000, 0x3c, 8 << 20);
    g_assert_cmphex(qtest_readb(s, 0x200000), ==, 0x3c);
    g_assert_cmphex(qtest_readq(s, 0x200000 + (8 << 20) - 8), ==,
                    0x3c3c3c3c3c3c3c3cull);
    g_assert_cmphex(qtest_readb(s, 0x200000 + (8 << 20)), ==, 0);
    assert_reply(s, "memset 0x100000 0 0x77", "OK");
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR), ==, 0x11);
    qtest_quit(s);
}

static void test_unassigned_memory(void)
{
    QTestState *s = qtest_init(MACHINE);
    uint8_t buf[16];
    uint8_t ff[16];

    g_assert_cmphex(qtest_readb(s, UNASSIGNED_ADDR), ==, 0xff);
    g_assert_cmphex(qtest_readw(s, UNASSIGNED_ADDR), ==, 0xffff);
    g_assert_cmphex(qtest_readl(s, UNASSIGNED_ADDR), ==, 0xffffffff);
    g_assert_cmphex(qtest_readq(s, UNASSIGNED_ADDR), ==, UINT64_MAX);
    memset(ff, 0xff, sizeof(ff));
    qtest_memread(s, UNASSIGNED_ADDR, buf, sizeof(buf));
    g_assert_cmpmem(buf, sizeof(buf), ff, sizeof(ff));
    qtest_bufread(s, UNASSIGNED_ADDR, buf, sizeof(buf));
    g_assert_cmpmem(buf, sizeof(buf), ff, sizeof(ff));

    /* Writes there are dropped. */
    qtest_writel(s, UNASSIGNED_ADDR, 0);
    qtest_memset(s, UNASSIGNED_ADDR, 0, 64);
    g_assert_cmphex(qtest_readl(s, UNASSIGNED_ADDR), ==, 0xffffffff);

    /* A read straddling the end of RAM: RAM bytes, then 0xff. */
    qtest_writeb(s, (256 << 20) - 1, 0x42);
    qtest_memread(s, (256 << 20) - 1, buf, 2);
    g_assert_cmphex(buf[0], ==, 0x42);
    g_assert_cmphex(buf[1], ==, 0xff);
    qtest_quit(s);
}

static void test_unassigned_ports(void)
{
    QTestState *s = qtest_init(MACHINE);

    g_assert_cmphex(qtest_inb(s, UNASSIGNED_PORT), ==, 0xff);
    g_assert_cmphex(qtest_inw(s, UNASSIGNED_PORT), ==, 0xffff);
    g_assert_cmphex(qtest_inl(s, UNASSIGNED_PORT), ==, 0xffffffff);
    qtest_outb(s, UNASSIGNED_PORT, 0x12);
    qtest_outw(s, UNASSIGNED_PORT, 0x1234);
    qtest_outl(s, UNASSIGNED_PORT, 0x12345678);
    g_assert_cmphex(qtest_inl(s, UNASSIGNED_PORT), ==, 0xffffffff);
    /* The top of the 64 KiB port space. */
    g_assert_cmphex(qtest_inb(s, 0xffff), ==, 0xff);
    qtest_quit(s);
}

static void test_clock(void)
{
    QTestState *s = qtest_init(MACHINE);
    int64_t t0 = qtest_clock_step(s, 0);
    int64_t t1 = qtest_clock_step(s, 1000);
    int64_t t2;
    int64_t t3;
    char *r;

    g_assert_cmpint(t0, >=, 0);
    g_assert_cmpint(t1, ==, t0 + 1000);
    t2 = qtest_clock_set(s, t1 + 5000000);
    g_assert_cmpint(t2, ==, t1 + 5000000);
    /* A step is relative to the current time, not an absolute time. */
    t2 = qtest_clock_step(s, 1000);
    g_assert_cmpint(t2, ==, t1 + 5001000);
    /* Virtual time never runs backwards, even when asked to. */
    t3 = qtest_clock_set(s, t0);
    g_assert_cmpint(t3, >=, t2);
    g_assert_cmpint(qtest_clock_step(s, 0), ==, t3);

    /* Under qtest virtual time stands still between commands. */
    g_usleep(20000);
    g_assert_cmpint(qtest_clock_step(s, 0), ==, t3);

    /* Decimal and hex step sizes. */
    r = qtest_rsp(s, "clock_step 0x10");
    g_assert_true(g_str_has_prefix(r, "OK "));
    g_assert_cmpint(g_ascii_strtoll(r + 3, NULL, 10), ==, t3 + 16);
    g_free(r);
    qtest_quit(s);
}

static void test_clock_step_no_timers(void)
{
    /* No devices, so no timers: "clock_step" has nowhere to go. */
    QTestState *s = qtest_init("-machine none");
    char *r = qtest_rsp(s, "clock_step");

    g_assert_true(g_str_has_prefix(r, "FAIL"));
    g_free(r);
    assert_alive(s);
    g_assert_cmpint(qtest_clock_step(s, 10), >=, 10);
    qtest_quit(s);
}

static void test_irq_intercept(void)
{
    QTestState *s = qtest_init(MACHINE);
    char *r;

    /* A partial path, as QEMU resolves it. */
    qtest_irq_intercept_in(s, "ioapic");
    g_assert_false(qtest_get_irq(s, 5));

    /* Driving an intercepted input reports it to the test. */
    qtest_set_irq_in(s, "ioapic", NULL, 5, 1);
    g_assert_true(qtest_get_irq(s, 5));
    g_assert_false(qtest_get_irq(s, 4));
    qtest_set_irq_in(s, "ioapic", NULL, 5, 0);
    g_assert_false(qtest_get_irq(s, 5));

    /* The "IRQ" line arrives before the reply of the command causing it. */
    r = qtest_rsp(s, "set_irq_in ioapic unnamed-gpio-in 9 1");
    g_assert_cmpstr(r, ==, "OK");
    g_free(r);
    g_assert_true(qtest_get_irq(s, 9));

    /*
     * As in QEMU, one device may be intercepted: asking again for the same
     * one (here by its full path) is fine, another device is refused.
     */
    assert_reply(s, "irq_intercept_in /machine/i440fx/ioapic", "OK");
    assert_rejected(s, "irq_intercept_in /machine/fw_cfg");
    assert_rejected(s, "irq_intercept_out /machine/fw_cfg");
    g_assert_true(qtest_get_irq(s, 9));
    qtest_quit(s);
}

static void test_irq_errors(void)
{
    QTestState *s = qtest_init(MACHINE);

    assert_reply(s, "irq_intercept_in /machine/no/such/device",
                 "FAIL Unknown device");
    assert_reply(s, "irq_intercept_out nosuchdevice", "FAIL Unknown device");
    assert_reply(s, "set_irq_in nosuchdevice unnamed-gpio-in 0 1",
                 "FAIL Unknown device");
    assert_rejected(s, "set_irq_in ioapic unnamed-gpio-in 9999 1");
    assert_rejected(s, "set_irq_in ioapic no-such-gpio 0 1");
    assert_rejected(s, "set_irq_in ioapic unnamed-gpio-in zz 1");
    /* Failed attempts did not use up the one interception. */
    qtest_irq_intercept_in(s, "ioapic");
    qtest_quit(s);
}

static void test_irq_intercept_out(void)
{
    QTestState *s = qtest_init(MACHINE);

    /* The IOAPIC has inputs only: intercepting its outputs is a no-op. */
    qtest_irq_intercept_out(s, "ioapic");
    assert_reply(s, "irq_intercept_out /machine/i440fx/ioapic", "OK");
    g_assert_false(qtest_get_irq(s, 0));
    qtest_quit(s);
}

static void test_unknown_command(void)
{
    QTestState *s = qtest_init(MACHINE);

    assert_reply(s, "foo", "FAIL Unknown command 'foo'");
    assert_reply(s, "foo bar baz", "FAIL Unknown command 'foo'");
    /* Commands are case sensitive. */
    assert_reply(s, "OUTB 0x80 1", "FAIL Unknown command 'OUTB'");
    assert_alive(s);
    qtest_quit(s);
}

static void test_argument_counts(void)
{
    static const char *const lines[] = {
        "outb", "outb 0x2340", "outb 0x2340 1 2", "inw", "inl 1 2",
        "writeb 0x100000", "writeq", "readb", "readq 0x100000 8",
        "read 0x100000", "read", "write 0x100000 1", "b64read 0",
        "b64write 0 4", "memset 0x100000 1", "memset", "clock_set",
        "clock_step 1 2", "irq_intercept_in",
        "set_irq_in ioapic unnamed-gpio-in 1",
    };
    QTestState *s = qtest_init(MACHINE);

    for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
        assert_rejected(s, lines[i]);
    }
    qtest_quit(s);
}

static void test_bad_numbers(void)
{
    static const char *const lines[] = {
        "outb 0xzz 1", "outb 0x2340 0xzz", "inb zz", "inb 0x", "inb 12abc",
        "inb 0x10000", "writeb 0x100000 zz", "writel 1O 1", "readl 0xg",
        "read 0x100000 four", "memset 0x100000 1 x", "clock_step soon",
        "clock_set yesterday", "b64read 0 0x1q",
    };
    QTestState *s = qtest_init(MACHINE);

    qtest_writeb(s, RAM_TEST_ADDR, 0x33);
    for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
        assert_rejected(s, lines[i]);
    }
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR), ==, 0x33);
    qtest_quit(s);
}

static void test_oversized_lengths(void)
{
    QTestState *s = qtest_init(MACHINE);

    assert_rejected(s, "read 0 99999999999");
    assert_rejected(s, "b64read 0 99999999999");
    assert_rejected(s, "write 0 99999999999 0x00");
    assert_rejected(s, "read 0xffffffffffffffff 2");
    assert_rejected(s, "read 0 0x1ffffffffffffffff");
    /* The process survived without allocating the impossible. */
    g_assert_cmpint(kill(qtest_pid(s), 0), ==, 0);
    qtest_quit(s);
}

static void test_bad_write_data(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_writel(s, RAM_TEST_ADDR, 0x11223344);
    assert_rejected(s, "b64write 0x100000 4 !!!!");
    assert_rejected(s, "b64write 0x100000 4 AA*A");
    assert_rejected(s, "write 0x100000 2 0xzzzz");
    assert_rejected(s, "write 0x100000 2 1234");
    assert_rejected(s, "write 0x100000 1 0x1234");
    assert_rejected(s, "write 0x100000 2 0x123");
    g_assert_cmphex(qtest_readl(s, RAM_TEST_ADDR), ==, 0x11223344);
    qtest_quit(s);
}

static void test_long_garbage_line(void)
{
    QTestState *s = qtest_init(MACHINE);
    GString *junk = g_string_new(NULL);
    GRand *rand = g_rand_new_with_seed(7);
    char *r;

    /* 1 MiB of printable junk with spaces, no newline inside. */
    while (junk->len < (1 << 20)) {
        char c = g_rand_int_range(rand, 32, 127);

        g_string_append_c(junk, c);
    }
    junk->str[0] = '#';
    r = qtest_rsp(s, "%s", junk->str);
    g_assert_true(g_str_has_prefix(r, "FAIL") || g_str_has_prefix(r, "ERR"));
    g_free(r);
    assert_alive(s);
    /* Control characters and high bytes in a command word. */
    assert_rejected(s, "\x01\x02\x7f\xff 0x100000");
    g_rand_free(rand);
    g_string_free(junk, TRUE);
    qtest_quit(s);
}

static void test_empty_lines_and_pipelining(void)
{
    QTestState *s = qtest_init(MACHINE);
    const char *batch = "writeb 0x100000 0x11\nwriteb 0x100001 0x22\n"
                        "readw 0x100000\n";
    char *r;

    /* Empty lines get no reply, as in QEMU. */
    qtest_send_raw(s, "\n\n", 2);
    assert_alive(s);

    /* Several commands in one write: replies come in order. */
    qtest_send_raw(s, batch, strlen(batch));
    r = qtest_rsp(s, "readb 0x100001");
    g_assert_cmpstr(r, ==, "OK");
    g_free(r);
    r = qtest_rsp(s, "%s", "");
    g_assert_cmpstr(r, ==, "OK");
    g_free(r);
    r = qtest_rsp(s, "%s", "");
    g_assert_cmpstr(r, ==, "OK 0x0000000000002211");
    g_free(r);
    r = qtest_rsp(s, "%s", "");
    g_assert_cmpstr(r, ==, "OK 0x0000000000000022");
    g_free(r);

    /* A command split over several writes is put back together. */
    qtest_send_raw(s, "wri", 3);
    g_usleep(10000);
    qtest_send_raw(s, "teb 0x1000", 10);
    g_usleep(10000);
    r = qtest_rsp(s, "00 0x5a");
    g_assert_cmpstr(r, ==, "OK");
    g_free(r);
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR), ==, 0x5a);
    qtest_quit(s);
}

/* The write-family syscalls the emulator made so far (/proc/PID/io). */
static uint64_t write_syscalls(QTestState *s)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/io", qtest_pid(s));
    g_autofree char *text = NULL;
    const char *p;

    if (!g_file_get_contents(path, &text, NULL, NULL) ||
        !(p = strstr(text, "syscw: "))) {
        return UINT64_MAX;
    }
    return g_ascii_strtoull(p + 7, NULL, 10);
}

/* -qtest-log FILE gets each command and each reply as a line. */
static void test_log_file(void)
{
    g_autofree char *dir = g_dir_make_tmp("qtest-log-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "log", NULL);
    g_autofree char *args = g_strdup_printf(MACHINE " -qtest-log %s", path);
    g_autofree char *log = NULL;
    static const char *const want[] = {
        "[R +", "] readb 0x100000\n", "[S +", "] OK 0x000000000000005a\n",
    };
    QTestState *s = qtest_init(args);

    qtest_writeb(s, RAM_TEST_ADDR, 0x5a);
    g_assert_cmphex(qtest_readb(s, RAM_TEST_ADDR), ==, 0x5a);
    qtest_quit(s);
    g_assert_true(g_file_get_contents(path, &log, NULL, NULL));
    /* Received and sent lines, each with its time stamp. */
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        if (!strstr(log, want[i])) {
            g_error("no '%s' in the qtest log:\n%s", want[i], log);
        }
    }
    unlink(path);
    rmdir(dir);
}

/*
 * libqtest's -qtest-log /dev/null costs the emulator nothing: no write
 * per command (replies go out with sendto, which syscw does not count).
 */
static void test_log_dev_null(void)
{
    QTestState *s = qtest_init(MACHINE);
    uint64_t before = write_syscalls(s), after;

    if (before == UINT64_MAX) {
        qtest_quit(s);
        g_test_skip("no /proc/PID/io here");
        return;
    }
    for (unsigned i = 0; i < 1000; i++) {
        qtest_readb(s, RAM_TEST_ADDR);
    }
    after = write_syscalls(s);
    qtest_quit(s);
    g_assert_cmpuint(after - before, <, 100);
}

static void test_disconnect_mid_line(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply;
    JsonObject *ret;

    qtest_writeb(s, RAM_TEST_ADDR, 0x77);
    /* Half a command, then the client goes away. */
    qtest_send_raw(s, "writeb 0x100000 0x", 18);
    qtest_close_qtest(s);
    g_usleep(100000);

    /* The emulator neither crashed nor exited: QMP still answers. */
    g_assert_cmpint(kill(qtest_pid(s), 0), ==, 0);
    reply = qtest_qmp(s, "{\"execute\": \"query-status\"}");
    ret = qdict_get_qdict(reply, "return");
    g_assert_nonnull(ret);
    g_assert_true(json_object_has_member(ret, "status"));
    json_node_unref(reply);
    /* And SIGTERM still ends it with status 0 (checked by qtest_quit). */
    qtest_quit(s);
}

static void test_failed_start(void)
{
    QTestState *s = qtest_init_without_qmp_handshake(
        "-machine no-such-machine-type");
    int status = qtest_wait_exit(s);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_nonnull(strstr(qtest_stderr(s), "qemu-system-x86_64: "));
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("qtest/endianness", test_endianness);
    qtest_add_func("qtest/ram/widths", test_ram_widths);
    qtest_add_func("qtest/ram/reply-format", test_reply_format);
    qtest_add_func("qtest/ram/decimal-numbers", test_decimal_numbers);
    qtest_add_func("qtest/ram/hex", test_hex_read_write);
    qtest_add_func("qtest/ram/b64", test_b64_round_trip);
    qtest_add_func("qtest/ram/large-transfer", test_large_transfer);
    qtest_add_func("qtest/ram/memset", test_memset);
    qtest_add_func("qtest/unassigned/memory", test_unassigned_memory);
    qtest_add_func("qtest/unassigned/ports", test_unassigned_ports);
    qtest_add_func("qtest/clock/step-set", test_clock);
    qtest_add_func("qtest/clock/step-no-timers", test_clock_step_no_timers);
    qtest_add_func("qtest/irq/intercept", test_irq_intercept);
    qtest_add_func("qtest/irq/intercept-out", test_irq_intercept_out);
    qtest_add_func("qtest/irq/errors", test_irq_errors);
    qtest_add_func("qtest/errors/unknown-command", test_unknown_command);
    qtest_add_func("qtest/errors/argument-counts", test_argument_counts);
    qtest_add_func("qtest/errors/bad-numbers", test_bad_numbers);
    qtest_add_func("qtest/errors/oversized-lengths", test_oversized_lengths);
    qtest_add_func("qtest/errors/bad-write-data", test_bad_write_data);
    qtest_add_func("qtest/errors/long-garbage-line", test_long_garbage_line);
    qtest_add_func("qtest/stream/empty-lines-pipelining",
                   test_empty_lines_and_pipelining);
    qtest_add_func("qtest/stream/disconnect-mid-line",
                   test_disconnect_mid_line);
    qtest_add_func("qtest/libqtest/failed-start", test_failed_start);
    qtest_add_func("qtest/log/file", test_log_file);
    qtest_add_func("qtest/log/dev-null", test_log_dev_null);

    return g_test_run();
}
