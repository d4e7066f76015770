/*
 * qtest for port 0x92 (system control port A) of the pc machine: the
 * fast A20 bit reads back, and setting the fast reset bit resets the
 * machine (a reset clears that bit and keeps A20).
 */
#include <string.h>
#include <sys/wait.h>

#include "libqtest.h"

#define MACHINE     "-machine pc"
#define PORT92      0x92

static void test_readback(void)
{
    QTestState *s = qtest_init(MACHINE);
    char *qtree = qtest_hmp(s, "info qtree");

    g_assert_nonnull(strstr(qtree, "dev: port92"));
    g_free(qtree);
    g_assert_cmphex(qtest_inb(s, PORT92), ==, 0x00);
    qtest_outb(s, PORT92, 0x02);            /* A20 on */
    g_assert_cmphex(qtest_inb(s, PORT92), ==, 0x02);
    qtest_outb(s, PORT92, 0xf0);            /* A20 off; other bits kept */
    g_assert_cmphex(qtest_inb(s, PORT92), ==, 0xf0);
    qtest_quit(s);
}

/* Bit 0 set: a guest reset; with -no-reboot the emulator exits 0. */
static void test_reset_no_reboot(void)
{
    QTestState *s = qtest_init(MACHINE " -no-reboot");
    int wstatus;

    qtest_outb(s, PORT92, 0x03);
    qtest_qmp_eventwait_reason(s, "SHUTDOWN", "guest-reset");
    wstatus = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, 0);
    qtest_quit(s);
}

/* The reset clears bit 0 only; bit 0 held set does not reset again. */
static void test_reset(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_outb(s, PORT92, 0x02);
    qtest_outb(s, PORT92, 0x03);
    qtest_qmp_eventwait_reason(s, "RESET", "guest-reset");
    g_assert_cmphex(qtest_inb(s, PORT92), ==, 0x02);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/port92/readback", test_readback);
    qtest_add_func("/port92/reset-no-reboot", test_reset_no_reboot);
    qtest_add_func("/port92/reset", test_reset);
    return g_test_run();
}
