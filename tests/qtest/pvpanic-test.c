/*
 * pvpanic (ISA, port 0x505) and pvpanic-pci (1b36:0011, BAR0): a read
 * returns the events offered, a write of PANICKED (bit 0) or
 * CRASH_LOADED (bit 1) reports one; what a panic does is -action
 * panic=... (or set-action): GUEST_PANICKED with the action, then a
 * stop in guest-panicked, a shutdown with reason guest-panic (status 1
 * for exit-failure), or nothing. Runs against QEMU 7.2 too
 * (QTEST_ACCEL=tcg); every case holds there.
 */
#include <string.h>
#include <sys/wait.h>

#include "libqpci.h"
#include "libqtest.h"

#define PVPANIC_PORT            0x505
#define PVPANIC_PANICKED        0x01
#define PVPANIC_CRASH_LOADED    0x02
#define PVPANIC_PCI_VENDOR      0x1b36
#define PVPANIC_PCI_DEVICE      0x0011

#define MACHINE "-machine pc -device pvpanic"

static QTestState *start(const char *args)
{
    qpci_alloc_reset();
    return qtest_init(args);
}

/* Wait for event and check its data's "action". */
static void expect_event(QTestState *s, const char *event, const char *action)
{
    JsonNode *ev = qtest_qmp_eventwait_ref(s, event);
    JsonObject *data = qdict_get_qdict(ev, "data");

    g_assert_nonnull(data);
    g_assert_cmpstr(json_object_get_string_member(data, "action"), ==,
                    action);
    json_node_unref(ev);
}

static void expect_status(QTestState *s, const char *status, bool running)
{
    JsonNode *reply = qtest_qmp(s, "{\"execute\": \"query-status\"}");
    JsonObject *ret = qdict_get_qdict(reply, "return");

    g_assert_nonnull(ret);
    g_assert_cmpstr(json_object_get_string_member(ret, "status"), ==,
                    status);
    g_assert_cmpint(json_object_get_boolean_member(ret, "running"), ==,
                    running);
    json_node_unref(reply);
}

static void qmp_ok(QTestState *s, const char *cmd)
{
    JsonNode *reply = qtest_qmp(s, "%s", cmd);

    g_assert_false(qtest_qmp_has_error(reply));
    json_node_unref(reply);
}

/* The event's SHUTDOWN with reason guest-panic, then the exit status. */
static void expect_panic_exit(QTestState *s, int status)
{
    JsonNode *ev = qtest_qmp_eventwait_ref(s, "SHUTDOWN");
    JsonObject *data = qdict_get_qdict(ev, "data");
    int wstatus;

    g_assert_nonnull(data);
    g_assert_true(json_object_get_boolean_member(data, "guest"));
    g_assert_cmpstr(json_object_get_string_member(data, "reason"), ==,
                    "guest-panic");
    json_node_unref(ev);
    wstatus = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, status);
    qtest_quit(s);
}

/* The ISA port reads the "events" property; elsewhere nothing is. */
static void test_isa_events(void)
{
    QTestState *s = start(MACHINE);

    g_assert_cmphex(qtest_inb(s, PVPANIC_PORT), ==, 0x03);
    qtest_quit(s);

    s = start("-machine pc -device pvpanic,events=1,ioport=0x540");
    g_assert_cmphex(qtest_inb(s, 0x540), ==, 0x01);
    g_assert_cmphex(qtest_inb(s, PVPANIC_PORT), ==, 0xff);
    expect_status(s, "running", true);
    qtest_quit(s);
}

/* pvpanic-pci: QEMU 7.2's IDs, class and 2-byte memory BAR0. */
static void test_pci_config(void)
{
    QTestState *s = start("-machine pc -device pvpanic-pci,events=2");
    int devfn = qpci_find_device(s, PVPANIC_PCI_VENDOR, PVPANIC_PCI_DEVICE);
    QPCIBar bar;
    char *info;

    g_assert_cmpint(devfn, >=, 0);
    g_assert_cmphex(qpci_config_readw(s, devfn, QPCI_CLASS_DEVICE), ==,
                    0x0880);
    g_assert_cmphex(qpci_config_readb(s, devfn, 0x08), ==, 1);
    g_assert_cmphex(qpci_config_readw(s, devfn, 0x2c), ==, 0x1af4);
    g_assert_cmphex(qpci_config_readw(s, devfn, 0x2e), ==, 0x1100);
    g_assert_cmphex(qpci_config_readb(s, devfn, QPCI_INTERRUPT_PIN), ==, 0);
    /* A 2-byte memory BAR: all ones read back as ~1. */
    qpci_config_writel(s, devfn, QPCI_BASE_ADDRESS_0, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, devfn, QPCI_BASE_ADDRESS_0), ==,
                    0xfffffffe);
    qpci_config_writel(s, devfn, QPCI_BASE_ADDRESS_0, 0);
    bar = qpci_map_bar(s, devfn, 0);
    g_assert_false(bar.io);
    g_assert_cmphex(qpci_bar_read(s, &bar, 0, 1), ==, 0x02);
    g_assert_cmphex(qpci_bar_read(s, &bar, 1, 1), ==, 0x02);
    /* QEMU 7.2 names no class 0880: "Class 2176" in info pci. */
    info = qtest_hmp(s, "info pci");
    g_assert_nonnull(strstr(info, "Class 2176: PCI device 1b36:0011"));
    g_free(info);
    qtest_quit(s);
}

/* A panic through the BAR, as through the port. */
static void test_pci_panic(void)
{
    QTestState *s = start("-machine pc -device pvpanic-pci "
                          "-action panic=pause");
    int devfn = qpci_find_device(s, PVPANIC_PCI_VENDOR, PVPANIC_PCI_DEVICE);
    QPCIBar bar;

    g_assert_cmpint(devfn, >=, 0);
    bar = qpci_map_bar(s, devfn, 0);
    g_assert_cmphex(qpci_bar_read(s, &bar, 0, 1), ==, 0x03);
    qpci_bar_write(s, &bar, 0, PVPANIC_PANICKED, 1);
    expect_event(s, "GUEST_PANICKED", "pause");
    qtest_qmp_eventwait(s, "STOP");
    expect_status(s, "guest-panicked", false);
    qtest_quit(s);
}

/* What a write to the port does under an -action. */
typedef enum PanicOutcome {
    PANIC_STOPS,                /* guest-panicked; cont resumes */
    PANIC_EXITS_0,              /* SHUTDOWN for guest-panic, status 0 */
    PANIC_EXITS_1,
    PANIC_RUNS_ON,
} PanicOutcome;

typedef struct PanicCase {
    const char *path;
    const char *args;
    uint8_t value;
    const char *event;
    const char *action;
    PanicOutcome outcome;
} PanicCase;

static const PanicCase panic_cases[] = {
    { "/pvpanic/panic/pause", "-action panic=pause", PVPANIC_PANICKED,
      "GUEST_PANICKED", "pause", PANIC_STOPS },
    /* -no-shutdown (shutdown=pause): the default panic=shutdown stops. */
    { "/pvpanic/panic/no-shutdown", "-no-shutdown", PVPANIC_PANICKED,
      "GUEST_PANICKED", "pause", PANIC_STOPS },
    /* The default, panic=shutdown. */
    { "/pvpanic/panic/shutdown", "", PVPANIC_PANICKED,
      "GUEST_PANICKED", "poweroff", PANIC_EXITS_0 },
    /* PANICKED wins over CRASH_LOADED; unknown bits do not matter. */
    { "/pvpanic/panic/shutdown-all-bits", "-action panic=shutdown", 0xff,
      "GUEST_PANICKED", "poweroff", PANIC_EXITS_0 },
    { "/pvpanic/panic/exit-failure", "-action panic=exit-failure",
      PVPANIC_PANICKED, "GUEST_PANICKED", "poweroff", PANIC_EXITS_1 },
    { "/pvpanic/panic/none", "-action panic=none", PVPANIC_PANICKED,
      "GUEST_PANICKED", "run", PANIC_RUNS_ON },
    /* CRASH_LOADED: GUEST_CRASHLOADED, whatever the panic action. */
    { "/pvpanic/crash-loaded", "-action panic=pause", PVPANIC_CRASH_LOADED,
      "GUEST_CRASHLOADED", "run", PANIC_RUNS_ON },
    /* A later -action value wins; -no-shutdown is one of them. */
    { "/pvpanic/action/merge", "-action panic=pause -no-shutdown "
      "-action panic=none", PVPANIC_PANICKED, "GUEST_PANICKED", "run",
      PANIC_RUNS_ON },
};

static void test_panic(const void *data)
{
    const PanicCase *c = data;
    QTestState *s = qtest_initf(MACHINE " %s", c->args);

    qtest_outb(s, PVPANIC_PORT, c->value);
    expect_event(s, c->event, c->action);
    switch (c->outcome) {
    case PANIC_STOPS:
        qtest_qmp_eventwait(s, "STOP");
        expect_status(s, "guest-panicked", false);
        qmp_ok(s, "{\"execute\": \"cont\"}");
        qtest_qmp_eventwait(s, "RESUME");
        expect_status(s, "running", true);
        break;
    case PANIC_EXITS_0:
    case PANIC_EXITS_1:
        expect_panic_exit(s, c->outcome == PANIC_EXITS_1);
        return;
    case PANIC_RUNS_ON:
        expect_status(s, "running", true);
        break;
    }
    qtest_quit(s);
}

/* Writes with no known bit report nothing. */
static void test_unknown_bits(void)
{
    QTestState *s = start(MACHINE);

    qtest_outb(s, PVPANIC_PORT, 0xfc);
    qtest_outb(s, PVPANIC_PORT, 0);
    expect_status(s, "running", true);
    qtest_quit(s);
}

/* set-action changes the panic action of a running VM. */
static void test_set_action(void)
{
    QTestState *s = start(MACHINE " -action panic=none");
    JsonNode *reply;
    JsonObject *err;

    reply = qtest_qmp(s, "{\"execute\": \"set-action\", "
                         "\"arguments\": {\"panic\": \"bogus\"}}");
    err = qdict_get_qdict(reply, "error");
    g_assert_nonnull(err);
    g_assert_cmpstr(json_object_get_string_member(err, "class"), ==,
                    "GenericError");
    g_assert_cmpstr(json_object_get_string_member(err, "desc"), ==,
                    "Parameter 'panic' does not accept value 'bogus'");
    json_node_unref(reply);

    qmp_ok(s, "{\"execute\": \"set-action\", "
              "\"arguments\": {\"panic\": \"pause\"}}");
    qtest_outb(s, PVPANIC_PORT, PVPANIC_PANICKED);
    expect_event(s, "GUEST_PANICKED", "pause");
    qtest_qmp_eventwait(s, "STOP");
    expect_status(s, "guest-panicked", false);

    /* shutdown=pause makes panic=shutdown a stop too. */
    qmp_ok(s, "{\"execute\": \"set-action\", "
              "\"arguments\": {\"panic\": \"shutdown\", "
              "\"shutdown\": \"pause\"}}");
    qmp_ok(s, "{\"execute\": \"cont\"}");
    qtest_qmp_eventwait(s, "RESUME");
    qtest_outb(s, PVPANIC_PORT, PVPANIC_PANICKED);
    expect_event(s, "GUEST_PANICKED", "pause");
    expect_status(s, "guest-panicked", false);

    qmp_ok(s, "{\"execute\": \"set-action\", "
              "\"arguments\": {\"shutdown\": \"poweroff\"}}");
    qmp_ok(s, "{\"execute\": \"cont\"}");
    qtest_outb(s, PVPANIC_PORT, PVPANIC_PANICKED);
    expect_event(s, "GUEST_PANICKED", "poweroff");
    expect_panic_exit(s, 0);
}

/*
 * QEMU 7.2's words. The values are checked after the whole command line,
 * and the error names the first -action (or -no-shutdown, -no-reboot).
 */
static const QTestStartError start_errors[] = {
    { "-action panic=bogus",
      "qemu-system-x86_64: -action panic=bogus: Parameter 'panic' does "
      "not accept value 'bogus'\n" },
    { "-action panic=none -action watchdog=exit-failure",
      "qemu-system-x86_64: -action panic=none: Parameter 'watchdog' does "
      "not accept value 'exit-failure'\n" },
    { "-no-shutdown -action reboot=pause",
      "qemu-system-x86_64: -no-shutdown: Parameter 'reboot' does not "
      "accept value 'pause'\n" },
    { "-action shutdown=reset",
      "qemu-system-x86_64: -action shutdown=reset: Parameter 'shutdown' "
      "does not accept value 'reset'\n" },
    { "-action foo=bar",
      "qemu-system-x86_64: -action foo=bar: Invalid parameter 'foo'\n" },
    { "-device pvpanic -device pvpanic",
      "qemu-system-x86_64: -device pvpanic: duplicate fw_cfg file name: "
      "etc/pvpanic-port\n" },
};

static void test_start_error(const void *data)
{
    const QTestStartError *c = data;

    qtest_assert_start_error(c->args, c->message);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/pvpanic/isa/events", test_isa_events);
    qtest_add_func("/pvpanic/pci/config", test_pci_config);
    qtest_add_func("/pvpanic/pci/panic", test_pci_panic);
    qtest_add_func("/pvpanic/unknown-bits", test_unknown_bits);
    qtest_add_func("/pvpanic/set-action", test_set_action);
    for (size_t i = 0; i < G_N_ELEMENTS(panic_cases); i++) {
        qtest_add_data_func(panic_cases[i].path, &panic_cases[i],
                            test_panic);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(start_errors); i++) {
        char *path = g_strdup_printf("/pvpanic/start-error/%zu", i);

        qtest_add_data_func(path, &start_errors[i], test_start_error);
        g_free(path);
    }
    return g_test_run();
}
