/*
 * isa-debug-exit: a write of V ends the emulator with exit status
 * (V << 1) | 1 (the OS keeps the low 8 bits), at the default port 0x501
 * or where iobase/iosize put it.
 */
#include <sys/wait.h>

#include "libqtest.h"

typedef struct ExitCase {
    const char *path;
    const char *args;
    uint16_t port;
    unsigned width;
    uint32_t value;
    int status;
} ExitCase;

static const ExitCase exit_cases[] = {
    { "/debugexit/exit-0", "", 0x501, 1, 0x00, 1 },
    { "/debugexit/exit-1", "", 0x501, 1, 0x01, 3 },
    { "/debugexit/exit-7f", "", 0x501, 1, 0x7f, 255 },
    /* 0x80 -> 0x101: only the low byte survives. */
    { "/debugexit/exit-80", "", 0x501, 1, 0x80, 1 },
    { "/debugexit/second-port", "", 0x502, 1, 0x10, 0x21 },
    { "/debugexit/word", "", 0x501, 2, 0x0102, 0x05 },
    { "/debugexit/iobase-iosize", ",iobase=0xf4,iosize=0x04", 0xf4, 4,
      0x12345620, 0x41 },
    { "/debugexit/iobase-byte", ",iobase=0x400", 0x401, 1, 0x2a, 0x55 },
    /* On the pc's ISA bus by name, as QEMU's users write it. */
    { "/debugexit/bus-isa0", ",bus=isa.0", 0x501, 1, 0x01, 0x03 },
};

static void test_exit(const void *data)
{
    const ExitCase *c = data;
    QTestState *s = qtest_initf("-machine pc -device isa-debug-exit%s",
                                c->args);
    JsonNode *event;
    JsonObject *ev_data;
    int wstatus;

    switch (c->width) {
    case 1:
        qtest_outb(s, c->port, c->value);
        break;
    case 2:
        qtest_outw(s, c->port, c->value);
        break;
    default:
        qtest_outl(s, c->port, c->value);
        break;
    }
    event = qtest_qmp_eventwait_ref(s, "SHUTDOWN");
    ev_data = qdict_get_qdict(event, "data");
    g_assert_nonnull(ev_data);
    g_assert_cmpstr(json_object_get_string_member(ev_data, "reason"), ==,
                    "guest-shutdown");
    g_assert_true(json_object_get_boolean_member(ev_data, "guest"));
    json_node_unref(event);

    wstatus = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, c->status);
    qtest_quit(s);
}

/* Reads do nothing and return 0; the emulator keeps running. */
static void test_read(void)
{
    QTestState *s = qtest_init("-machine pc -device isa-debug-exit");

    g_assert_cmphex(qtest_inb(s, 0x501), ==, 0);
    g_assert_cmphex(qtest_inw(s, 0x501), ==, 0);
    g_assert_cmphex(qtest_inb(s, 0x502), ==, 0);
    /* Past iosize nothing is mapped. */
    g_assert_cmphex(qtest_inb(s, 0x503), ==, 0xff);
    qtest_quit(s);
}

/* Without -device the port is empty and writes vanish. */
static void test_absent(void)
{
    QTestState *s = qtest_init("-machine pc");

    qtest_outb(s, 0x501, 0x01);
    g_assert_cmphex(qtest_inb(s, 0x501), ==, 0xff);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    for (size_t i = 0; i < G_N_ELEMENTS(exit_cases); i++) {
        qtest_add_data_func(exit_cases[i].path, &exit_cases[i], test_exit);
    }
    qtest_add_func("/debugexit/read", test_read);
    qtest_add_func("/debugexit/absent", test_absent);
    return g_test_run();
}
