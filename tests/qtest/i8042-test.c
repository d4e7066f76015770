/*
 * i8042 PS/2 controller: status and command byte, controller commands,
 * keyboard and mouse replies, IRQs 1 and 12, and the two ways a guest
 * resets the machine through it.
 */
#include <sys/wait.h>

#include "libqtest.h"

#define MACHINE     "-machine pc"
#define DATA        0x60
#define CMD         0x64

#define STAT_OBF    0x01
#define STAT_SYS    0x04
#define STAT_A2     0x08
#define STAT_UNLOCK 0x10
#define STAT_AUXOBF 0x20

#define KBD_IRQ     1
#define AUX_IRQ     12

static uint8_t status(QTestState *s)
{
    return qtest_inb(s, CMD);
}

/* Read the next byte, which must be there. */
static uint8_t read_byte(QTestState *s)
{
    g_assert_cmphex(status(s) & STAT_OBF, ==, STAT_OBF);
    return qtest_inb(s, DATA);
}

static void expect_bytes(QTestState *s, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        g_assert_cmphex(read_byte(s), ==, bytes[i]);
    }
    g_assert_cmphex(status(s) & STAT_OBF, ==, 0);
}

#define EXPECT(s, ...) do { \
        static const uint8_t want_[] = { __VA_ARGS__ }; \
        expect_bytes(s, want_, sizeof(want_)); \
    } while (0)

static void write_command_byte(QTestState *s, uint8_t val)
{
    qtest_outb(s, CMD, 0x60);
    qtest_outb(s, DATA, val);
}

static uint8_t read_command_byte(QTestState *s)
{
    qtest_outb(s, CMD, 0x20);
    return read_byte(s);
}

static void test_reset_state(void)
{
    QTestState *s = qtest_init(MACHINE);

    g_assert_cmphex(status(s), ==, STAT_A2 | STAT_UNLOCK);
    g_assert_cmphex(read_command_byte(s), ==, 0x03);
    g_assert_cmphex(status(s) & STAT_OBF, ==, 0);
    qtest_outb(s, CMD, 0xd0);               /* read output port */
    EXPECT(s, 0xcf);                        /* reset off, A20 on */
    qtest_quit(s);
}

static void test_self_test(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_outb(s, CMD, 0xaa);
    g_assert_cmphex(status(s), ==, STAT_OBF | STAT_SYS | STAT_A2 |
                                   STAT_UNLOCK);
    EXPECT(s, 0x55);
    g_assert_cmphex(status(s) & STAT_SYS, ==, STAT_SYS);
    qtest_outb(s, CMD, 0xab);               /* keyboard interface test */
    EXPECT(s, 0x00);
    qtest_outb(s, CMD, 0xa9);               /* aux interface test */
    EXPECT(s, 0x00);
    qtest_quit(s);
}

static void test_command_byte(void)
{
    QTestState *s = qtest_init(MACHINE);

    write_command_byte(s, 0x47);
    g_assert_cmphex(status(s) & STAT_A2, ==, 0);    /* last write: data */
    g_assert_cmphex(read_command_byte(s), ==, 0x47);
    g_assert_cmphex(status(s) & STAT_A2, ==, STAT_A2);

    qtest_outb(s, CMD, 0xa7);               /* aux off: bit 5 */
    g_assert_cmphex(read_command_byte(s), ==, 0x67);
    qtest_outb(s, CMD, 0xa8);
    g_assert_cmphex(read_command_byte(s), ==, 0x47);
    qtest_outb(s, CMD, 0xad);               /* keyboard off: bit 4 */
    g_assert_cmphex(read_command_byte(s), ==, 0x57);
    qtest_outb(s, CMD, 0xae);
    g_assert_cmphex(read_command_byte(s), ==, 0x47);

    /* Controller RAM beyond the command byte: 0x61 writes, 0x21 reads. */
    qtest_outb(s, CMD, 0x61);
    qtest_outb(s, DATA, 0x99);
    qtest_outb(s, CMD, 0x21);
    EXPECT(s, 0x99);
    g_assert_cmphex(read_command_byte(s), ==, 0x47);

    /* 0xd2 and 0xd3 echo a byte as keyboard or mouse data. */
    qtest_outb(s, CMD, 0xd2);
    qtest_outb(s, DATA, 0x33);
    g_assert_cmphex(status(s) & (STAT_OBF | STAT_AUXOBF), ==, STAT_OBF);
    EXPECT(s, 0x33);
    qtest_outb(s, CMD, 0xd3);
    qtest_outb(s, DATA, 0x5a);
    g_assert_cmphex(status(s) & (STAT_OBF | STAT_AUXOBF), ==,
                    STAT_OBF | STAT_AUXOBF);
    EXPECT(s, 0x5a);
    qtest_quit(s);
}

static void test_keyboard(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_outb(s, DATA, 0xf2);              /* identify */
    EXPECT(s, 0xfa, 0xab, 0x83);
    qtest_outb(s, DATA, 0xff);              /* reset */
    EXPECT(s, 0xfa, 0xaa);
    qtest_outb(s, DATA, 0xf5);
    EXPECT(s, 0xfa);
    qtest_outb(s, DATA, 0xf4);
    EXPECT(s, 0xfa);
    qtest_outb(s, DATA, 0xee);              /* echo */
    EXPECT(s, 0xee);
    qtest_outb(s, DATA, 0xed);              /* LEDs, then their value */
    EXPECT(s, 0xfa);
    qtest_outb(s, DATA, 0x07);
    EXPECT(s, 0xfa);
    qtest_outb(s, DATA, 0xf0);              /* get scan code set */
    EXPECT(s, 0xfa);
    qtest_outb(s, DATA, 0x00);
    EXPECT(s, 0xfa, 0x02);

    /* With translation on, the ID reads as the AT keyboard's. */
    write_command_byte(s, 0x43);
    qtest_outb(s, DATA, 0xf2);
    EXPECT(s, 0xfa, 0xab, 0x41);

    /* A disabled keyboard interface holds its bytes back. */
    qtest_outb(s, DATA, 0xee);
    qtest_outb(s, CMD, 0xad);
    qtest_outb(s, CMD, 0xae);
    EXPECT(s, 0xee);
    qtest_quit(s);
}

/* A byte for the mouse: controller command 0xd4, then the byte. */
static void aux(QTestState *s, uint8_t b)
{
    qtest_outb(s, CMD, 0xd4);
    qtest_outb(s, DATA, b);
}

static void aux_rate(QTestState *s, uint8_t rate)
{
    aux(s, 0xf3);
    EXPECT(s, 0xfa);
    aux(s, rate);
    EXPECT(s, 0xfa);
}

static void test_mouse(void)
{
    QTestState *s = qtest_init(MACHINE);

    aux(s, 0xf2);                           /* identify */
    g_assert_cmphex(status(s) & STAT_AUXOBF, ==, STAT_AUXOBF);
    EXPECT(s, 0xfa, 0x00);
    aux(s, 0xff);                           /* reset */
    EXPECT(s, 0xfa, 0xaa, 0x00);
    aux_rate(s, 200);
    aux(s, 0xe8);                           /* resolution 8 counts/mm */
    EXPECT(s, 0xfa);
    aux(s, 0x03);
    EXPECT(s, 0xfa);
    aux(s, 0xe9);                           /* status */
    EXPECT(s, 0xfa, 0x00, 0x03, 200);

    /* Reporting on, remote mode, 2:1 scaling: the status says so. */
    aux(s, 0xf4);
    EXPECT(s, 0xfa);
    aux(s, 0xf0);
    EXPECT(s, 0xfa);
    aux(s, 0xe7);
    EXPECT(s, 0xfa);
    aux(s, 0xe9);
    EXPECT(s, 0xfa, 0x70, 0x03, 200);
    /* Defaults: stream mode, reporting off, 100/s, 4 counts/mm. */
    aux(s, 0xf6);
    EXPECT(s, 0xfa);
    aux(s, 0xe9);
    EXPECT(s, 0xfa, 0x00, 0x02, 100);
    aux(s, 0xf5);                           /* reporting off */
    EXPECT(s, 0xfa);
    aux(s, 0xeb);                           /* read data: no motion */
    EXPECT(s, 0xfa, 0x08, 0x00, 0x00);

    /* Wrap mode echoes until 0xec. */
    aux(s, 0xee);
    EXPECT(s, 0xfa);
    aux(s, 0x42);
    EXPECT(s, 0x42);
    aux(s, 0xec);
    EXPECT(s, 0xfa);
    aux(s, 0xf2);
    EXPECT(s, 0xfa, 0x00);
    qtest_quit(s);
}

/*
 * The IntelliMouse knocks, as Linux's psmouse sends them: rates 200,
 * 100, 80 make ID 3 (wheel, 4-byte packets), 200, 200, 80 ID 4; any
 * other sequence leaves the ID; a reset makes a plain PS/2 mouse again.
 */
static void test_mouse_intellimouse(void)
{
    QTestState *s = qtest_init(MACHINE);

    aux_rate(s, 200);
    aux_rate(s, 50);
    aux_rate(s, 80);
    aux(s, 0xf2);
    EXPECT(s, 0xfa, 0x00);

    aux_rate(s, 200);
    aux_rate(s, 100);
    aux_rate(s, 80);
    aux(s, 0xf2);
    EXPECT(s, 0xfa, 0x03);
    aux(s, 0xeb);                           /* 4-byte packet now */
    EXPECT(s, 0xfa, 0x08, 0x00, 0x00, 0x00);
    aux(s, 0xf6);                           /* defaults keep the ID */
    EXPECT(s, 0xfa);
    aux(s, 0xf2);
    EXPECT(s, 0xfa, 0x03);

    aux_rate(s, 200);
    aux_rate(s, 200);
    aux_rate(s, 80);
    aux(s, 0xf2);
    EXPECT(s, 0xfa, 0x04);

    aux(s, 0xff);
    EXPECT(s, 0xfa, 0xaa, 0x00);
    aux(s, 0xf2);
    EXPECT(s, 0xfa, 0x00);
    qtest_quit(s);
}

/*
 * The mouse's replies come with the aux bit in the status register and
 * on IRQ 12, each byte an edge; the keyboard's IRQ 1 stays quiet.
 */
static void test_mouse_irq(void)
{
    QTestState *s = qtest_init(MACHINE);
    unsigned raises;

    qtest_irq_intercept_in(s, "ioapic");
    raises = qtest_get_irq_raises(s, AUX_IRQ);
    aux(s, 0xff);
    for (int i = 0; i < 3; i++) {
        g_assert_cmphex(status(s) & (STAT_OBF | STAT_AUXOBF), ==,
                        STAT_OBF | STAT_AUXOBF);
        g_assert_true(qtest_get_irq(s, AUX_IRQ));
        g_assert_false(qtest_get_irq(s, KBD_IRQ));
        qtest_inb(s, DATA);
    }
    g_assert_false(qtest_get_irq(s, AUX_IRQ));
    g_assert_cmphex(status(s) & (STAT_OBF | STAT_AUXOBF), ==, 0);
    g_assert_cmpuint(qtest_get_irq_raises(s, AUX_IRQ) - raises, ==, 3);

    /* Command byte bit 1 off: the bytes come, IRQ 12 does not. */
    write_command_byte(s, 0x01);
    aux(s, 0xf2);
    g_assert_cmphex(status(s) & STAT_AUXOBF, ==, STAT_AUXOBF);
    g_assert_false(qtest_get_irq(s, AUX_IRQ));
    EXPECT(s, 0xfa, 0x00);
    qtest_quit(s);
}

static void test_irq(void)
{
    QTestState *s = qtest_init(MACHINE);
    unsigned raises;

    qtest_irq_intercept_in(s, "ioapic");
    g_assert_false(qtest_get_irq(s, KBD_IRQ));

    /* Command byte 0x03 enables both interrupts. */
    qtest_outb(s, CMD, 0x20);
    g_assert_true(qtest_get_irq(s, KBD_IRQ));
    g_assert_false(qtest_get_irq(s, AUX_IRQ));
    g_assert_cmphex(qtest_inb(s, DATA), ==, 0x03);
    g_assert_false(qtest_get_irq(s, KBD_IRQ));

    /*
     * Several bytes: the line is up until the last one is read, and each
     * byte is an edge of its own (edge-triggered PIC and I/O APIC inputs
     * would see one interrupt for all three otherwise).
     */
    raises = qtest_get_irq_raises(s, KBD_IRQ);
    qtest_outb(s, DATA, 0xf2);
    g_assert_true(qtest_get_irq(s, KBD_IRQ));
    qtest_inb(s, DATA);
    qtest_inb(s, DATA);
    g_assert_true(qtest_get_irq(s, KBD_IRQ));
    qtest_inb(s, DATA);
    g_assert_false(qtest_get_irq(s, KBD_IRQ));
    g_assert_cmpuint(qtest_get_irq_raises(s, KBD_IRQ) - raises, ==, 3);

    /* Mouse data goes to IRQ 12. */
    qtest_outb(s, CMD, 0xd3);
    qtest_outb(s, DATA, 0x11);
    g_assert_true(qtest_get_irq(s, AUX_IRQ));
    g_assert_false(qtest_get_irq(s, KBD_IRQ));
    qtest_inb(s, DATA);
    g_assert_false(qtest_get_irq(s, AUX_IRQ));

    /* Interrupts off in the command byte: data, but no IRQ. */
    write_command_byte(s, 0x00);
    qtest_outb(s, DATA, 0xee);
    g_assert_cmphex(status(s) & STAT_OBF, ==, STAT_OBF);
    g_assert_false(qtest_get_irq(s, KBD_IRQ));
    /* Turning them on with a byte waiting raises the line. */
    write_command_byte(s, 0x01);
    g_assert_true(qtest_get_irq(s, KBD_IRQ));
    g_assert_cmphex(qtest_inb(s, DATA), ==, 0xee);
    g_assert_false(qtest_get_irq(s, KBD_IRQ));
    qtest_quit(s);
}

/* With -no-reboot a guest reset ends the emulator with status 0. */
static void expect_reset_exit(QTestState *s)
{
    int wstatus;

    qtest_qmp_eventwait_reason(s, "SHUTDOWN", "guest-reset");
    wstatus = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, 0);
    qtest_quit(s);
}

static void test_reset_pulse(void)
{
    QTestState *s = qtest_init(MACHINE " -no-reboot");

    /* Odd pulse commands leave the reset line alone. */
    qtest_outb(s, CMD, 0xff);
    qtest_outb(s, CMD, 0xf1);
    g_assert_cmphex(status(s) & STAT_UNLOCK, ==, STAT_UNLOCK);
    qtest_outb(s, CMD, 0xfe);
    expect_reset_exit(s);
}

static void test_reset_outport(void)
{
    QTestState *s = qtest_init(MACHINE " -no-reboot");

    qtest_outb(s, CMD, 0xd1);
    qtest_outb(s, DATA, 0xcd);              /* bit 0 stays set: no reset */
    qtest_outb(s, CMD, 0xd0);
    EXPECT(s, 0xcd);                        /* A20 off now */
    qtest_outb(s, CMD, 0xd1);
    qtest_outb(s, DATA, 0xde);
    expect_reset_exit(s);
}

/* Without -no-reboot the machine resets, and the controller with it. */
static void test_reset_reboot(void)
{
    QTestState *s = qtest_init(MACHINE);

    write_command_byte(s, 0x20);
    qtest_outb(s, CMD, 0xaa);
    qtest_outb(s, CMD, 0xfe);
    qtest_qmp_eventwait_reason(s, "RESET", "guest-reset");
    g_assert_cmphex(status(s), ==, STAT_A2 | STAT_UNLOCK);
    g_assert_cmphex(read_command_byte(s), ==, 0x03);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/i8042/reset-state", test_reset_state);
    qtest_add_func("/i8042/self-test", test_self_test);
    qtest_add_func("/i8042/command-byte", test_command_byte);
    qtest_add_func("/i8042/keyboard", test_keyboard);
    qtest_add_func("/i8042/mouse", test_mouse);
    qtest_add_func("/i8042/mouse/intellimouse", test_mouse_intellimouse);
    qtest_add_func("/i8042/mouse/irq", test_mouse_irq);
    qtest_add_func("/i8042/irq", test_irq);
    qtest_add_func("/i8042/reset-pulse", test_reset_pulse);
    qtest_add_func("/i8042/reset-outport", test_reset_outport);
    qtest_add_func("/i8042/reset-reboot", test_reset_reboot);
    return g_test_run();
}
