/*
 * qtest for the pc's PCI bus: configuration mechanism #1, the i440FX
 * (00.0) and PIIX3 (01.0) functions with their reset values, absent
 * functions, BAR sizing, enabling and moving through pci-testdev (whose
 * test protocol is checked too), reset, and -device's PCI addressing
 * rules with QEMU's messages. Runs against QEMU 7.2 as well:
 * QTEST_QEMU_BINARY=/usr/bin/qemu-system-x86_64 QTEST_ACCEL=tcg.
 */
#include <string.h>
#include <sys/wait.h>

#include "libqpci.h"
#include "libqtest.h"

#define TESTDEV_VENDOR  0x1b36
#define TESTDEV_DEVICE  0x0005
#define TESTDEV_ARGS    "-nodefaults -device pci-testdev,membar=1M"

static QTestState *start(const char *args)
{
    qpci_alloc_reset();
    return qtest_init(args);
}

static void test_i440fx(void)
{
    QTestState *s = start("-nodefaults");
    int d = QPCI_DEVFN(0, 0);

    g_assert_cmphex(qpci_config_readl(s, d, 0x00), ==, 0x12378086);
    g_assert_cmphex(qpci_config_readl(s, d, 0x08), ==, 0x06000002);
    g_assert_cmphex(qpci_config_readb(s, d, QPCI_HEADER_TYPE), ==, 0);
    g_assert_cmphex(qpci_config_readl(s, d, 0x2c), ==, 0x11001af4);
    g_assert_cmphex(qpci_config_readb(s, d, 0x57), ==, 0x10);
    g_assert_cmphex(qpci_config_readb(s, d, 0x72), ==, 0x02);
    /* The IDs are read-only. */
    qpci_config_writel(s, d, 0x00, 0);
    g_assert_cmphex(qpci_config_readl(s, d, 0x00), ==, 0x12378086);
    /* Sub-dword reads of the data port. */
    g_assert_cmphex(qpci_config_readw(s, d, 0x02), ==, 0x1237);
    g_assert_cmphex(qpci_config_readb(s, d, 0x01), ==, 0x80);
    qtest_quit(s);
}

static void test_piix3(void)
{
    QTestState *s = start("-nodefaults");
    int d = QPCI_DEVFN(1, 0);

    g_assert_cmphex(qpci_config_readl(s, d, 0x00), ==, 0x70008086);
    g_assert_cmphex(qpci_config_readw(s, d, QPCI_STATUS), ==, 0x0200);
    g_assert_cmphex(qpci_config_readw(s, d, QPCI_CLASS_DEVICE), ==, 0x0601);
    g_assert_cmphex(qpci_config_readb(s, d, QPCI_HEADER_TYPE), ==, 0x80);
    g_assert_cmphex(qpci_config_readl(s, d, 0x4c), ==, 0x0003004d);
    g_assert_cmphex(qpci_config_readl(s, d, 0x60), ==, 0x80808080);
    g_assert_cmphex(qpci_config_readb(s, d, 0x69), ==, 0x02);
    g_assert_cmphex(qpci_config_readb(s, d, 0x70), ==, 0x80);
    g_assert_cmphex(qpci_config_readw(s, d, 0x76), ==, 0x0c0c);
    g_assert_cmphex(qpci_config_readb(s, d, 0xa8), ==, 0x0f);
    /* PIRQRC A-D are writable; a reset restores them. */
    qpci_config_writeb(s, d, 0x62, 0x0b);
    g_assert_cmphex(qpci_config_readl(s, d, 0x60), ==, 0x800b8080);
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    g_assert_cmphex(qpci_config_readl(s, d, 0x60), ==, 0x80808080);
    qtest_quit(s);
}

static void test_absent(void)
{
    QTestState *s = start("-nodefaults");

    /* An empty slot, a function of the single-function 00.0, bus 1. */
    g_assert_cmphex(qpci_config_readl(s, QPCI_DEVFN(5, 0), 0), ==,
                    0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, QPCI_DEVFN(0, 1), 0), ==,
                    0xffffffff);
    g_assert_cmphex(qpci_config_readw(s, QPCI_DEVFN(5, 0), 2), ==, 0xffff);
    qtest_outl(s, 0xcf8, 0x80010000);
    g_assert_cmphex(qtest_inl(s, 0xcfc), ==, 0xffffffff);
    /* CONFADD reads back; without the enable bit nothing answers. */
    qtest_outl(s, 0xcf8, 0x00000000);
    g_assert_cmphex(qtest_inl(s, 0xcf8), ==, 0);
    g_assert_cmphex(qtest_inl(s, 0xcfc), ==, 0xffffffff);
    /* Writes to an absent function vanish. */
    qpci_config_writel(s, QPCI_DEVFN(5, 0), 0x10, 0x1234);
    g_assert_cmphex(qpci_config_readl(s, QPCI_DEVFN(5, 0), 0x10), ==,
                    0xffffffff);
    qtest_quit(s);
}

static void test_testdev_config(void)
{
    QTestState *s = start(TESTDEV_ARGS);
    int d = qpci_find_device(s, TESTDEV_VENDOR, TESTDEV_DEVICE);

    /* -nodefaults: the first free slot is 2. */
    g_assert_cmpint(d, ==, QPCI_DEVFN(2, 0));
    g_assert_cmphex(qpci_config_readl(s, d, 0x08), ==, 0x00ff0000);
    g_assert_cmphex(qpci_config_readl(s, d, 0x2c), ==, 0x11001af4);
    g_assert_cmphex(qpci_config_readb(s, d, QPCI_INTERRUPT_PIN), ==, 0);
    g_assert_cmphex(qpci_config_readw(s, d, QPCI_COMMAND), ==, 0);
    /* The writable command bits. */
    qpci_config_writew(s, d, QPCI_COMMAND, 0xffff);
    g_assert_cmphex(qpci_config_readw(s, d, QPCI_COMMAND), ==, 0x0507);
    /* Interrupt line is a plain register. */
    qpci_config_writeb(s, d, QPCI_INTERRUPT_LINE, 0x0b);
    g_assert_cmphex(qpci_config_readb(s, d, QPCI_INTERRUPT_LINE), ==, 0x0b);
    qtest_quit(s);
}

static void test_testdev_bar_sizes(void)
{
    QTestState *s = start(TESTDEV_ARGS);
    int d = qpci_find_device(s, TESTDEV_VENDOR, TESTDEV_DEVICE);
    QPCIBar b0 = qpci_bar_probe(s, d, 0), b1 = qpci_bar_probe(s, d, 1);
    QPCIBar b2 = qpci_bar_probe(s, d, 2), b4 = qpci_bar_probe(s, d, 4);

    g_assert_false(b0.io);
    g_assert_false(b0.is64);
    g_assert_cmphex(b0.size, ==, 4096);
    g_assert_true(b1.io);
    g_assert_cmphex(b1.size, ==, 256);
    g_assert_true(b2.is64);
    g_assert_cmphex(b2.size, ==, 1 << 20);
    g_assert_cmphex(b4.size, ==, 0);
    /* Raw values: the low bits are the type, read-only. */
    qpci_config_writel(s, d, 0x10, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, d, 0x10), ==, 0xfffff000);
    qpci_config_writel(s, d, 0x14, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, d, 0x14), ==, 0xffffff01);
    qpci_config_writel(s, d, 0x18, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, d, 0x18), ==, 0xfff0000c);
    qpci_config_writel(s, d, 0x1c, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, d, 0x1c), ==, 0xffffffff);
    qpci_config_writel(s, d, 0x20, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, d, 0x20), ==, 0);
    qpci_config_writel(s, d, 0x30, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(s, d, 0x30), ==, 0);
    qtest_quit(s);
}

/* The name of the selected test, read through the BAR. */
static void bar_name(QTestState *s, const QPCIBar *b, char *buf, size_t n)
{
    size_t i;

    for (i = 0; i + 1 < n; i++) {
        buf[i] = qpci_bar_read(s, b, 0x10 + i, 1);
        if (!buf[i]) {
            break;
        }
    }
    buf[i] = 0;
}

static void test_testdev_protocol(void)
{
    static const struct {
        const char *name;
        uint32_t data;
    } tests[] = {
        { "no-eventfd", 0xfa },
        { "wildcard-eventfd", 0xce },
        { "datamatch-eventfd", 0xfa },
    };
    QTestState *s = start(TESTDEV_ARGS);
    int d = qpci_find_device(s, TESTDEV_VENDOR, TESTDEV_DEVICE);
    QPCIBar bars[2] = { qpci_map_bar(s, d, 0), qpci_map_bar(s, d, 1) };

    for (int b = 0; b < 2; b++) {
        const QPCIBar *bar = &bars[b];

        /* Nothing selected yet: the header reads as 0. */
        if (b == 0) {
            g_assert_cmphex(qpci_bar_read(s, bar, 0, 4), ==, 0);
        }
        for (int t = 0; t < 3; t++) {
            char name[48], want[48];
            int index = b * 3 + t;

            qpci_bar_write(s, bar, 0, t, 1);
            g_assert_cmphex(qpci_bar_read(s, bar, 0, 4), ==, 0x100 | index);
            g_assert_cmphex(qpci_bar_read(s, bar, 4, 4), ==,
                            bar->size / 2 + index);
            g_assert_cmphex(qpci_bar_read(s, bar, 8, 4), ==, tests[t].data);
            g_assert_cmphex(qpci_bar_read(s, bar, 12, 4), ==, 0);
            bar_name(s, bar, name, sizeof(name));
            g_snprintf(want, sizeof(want), "%s-%s", b ? "portio" : "mmio",
                       tests[t].name);
            g_assert_cmpstr(name, ==, want);
        }
        /* No test 3: nothing selected again. */
        qpci_bar_write(s, bar, 0, 3, 1);
        g_assert_cmphex(qpci_bar_read(s, bar, 0, 4), ==, 0);
        /* The no-eventfd test counts each write at its offset. */
        qpci_bar_write(s, bar, 0, 0, 1);
        qpci_bar_write(s, bar, bar->size / 2 + b * 3, 0xfa, 1);
        qpci_bar_write(s, bar, bar->size / 2 + b * 3, 0xfa, 4);
        qpci_bar_write(s, bar, bar->size / 2 + b * 3 + 1, 0xfa, 1);
        g_assert_cmphex(qpci_bar_read(s, bar, 12, 4), ==, 2);
        /* The eventfd tests' writes do not reach the count. */
        qpci_bar_write(s, bar, 0, 2, 1);
        qpci_bar_write(s, bar, bar->size / 2 + b * 3 + 2, 0xfa, 1);
        g_assert_cmphex(qpci_bar_read(s, bar, 12, 4), ==, 0);
    }
    qtest_quit(s);
}

static void test_testdev_bar_mapping(void)
{
    QTestState *s = start(TESTDEV_ARGS);
    int d = qpci_find_device(s, TESTDEV_VENDOR, TESTDEV_DEVICE);
    QPCIBar mem = qpci_bar_probe(s, d, 0), io = qpci_bar_probe(s, d, 1);
    /*
     * What nothing answers with (QEMU: 0 for memory, all ones for ports;
     * here all ones for both): read where nothing is yet.
     */
    uint32_t none_mem = qtest_readl(s, 0xe0000000);
    uint32_t none_io = qtest_inl(s, 0xc000);

    /* Programmed but not enabled: nothing decodes. */
    qpci_bar_set(s, d, 0, &mem, 0xe0000000);
    qpci_bar_set(s, d, 1, &io, 0xc000);
    qtest_writeb(s, 0xe0000000, 0);
    qtest_outb(s, 0xc000, 0);
    g_assert_cmphex(qtest_readl(s, 0xe0000000), ==, none_mem);
    g_assert_cmphex(qtest_inl(s, 0xc000), ==, none_io);
    /* Memory enabled only. */
    qpci_config_writew(s, d, QPCI_COMMAND, QPCI_COMMAND_MEMORY);
    qtest_writeb(s, 0xe0000000, 0);
    g_assert_cmphex(qtest_readl(s, 0xe0000000), ==, 0x100);
    g_assert_cmphex(qtest_inl(s, 0xc000), ==, none_io);
    /* Both. */
    qpci_config_writew(s, d, QPCI_COMMAND,
                       QPCI_COMMAND_MEMORY | QPCI_COMMAND_IO);
    qtest_outb(s, 0xc000, 1);
    g_assert_cmphex(qtest_inl(s, 0xc000), ==, 0x104);
    /* Moved while enabled: the old address goes dark. */
    qpci_bar_set(s, d, 0, &mem, 0xe0100000);
    qpci_bar_set(s, d, 1, &io, 0xd000);
    g_assert_cmphex(qtest_readl(s, 0xe0000000), ==, none_mem);
    g_assert_cmphex(qtest_inl(s, 0xc000), ==, none_io);
    g_assert_cmphex(qtest_readl(s, 0xe0100000), ==, 0x104);
    g_assert_cmphex(qtest_inl(s, 0xd000), ==, 0x104);
    /* Disabled again. */
    qpci_config_writew(s, d, QPCI_COMMAND, 0);
    g_assert_cmphex(qtest_readl(s, 0xe0100000), ==, none_mem);
    g_assert_cmphex(qtest_inl(s, 0xd000), ==, none_io);
    /* A memory BAR placed over RAM stays hidden behind it. */
    qtest_writel(s, 0x100000, 0x12345678);
    qpci_bar_set(s, d, 0, &mem, 0x100000);
    qpci_config_writew(s, d, QPCI_COMMAND, QPCI_COMMAND_MEMORY);
    g_assert_cmphex(qtest_readl(s, 0x100000), ==, 0x12345678);
    /* The upper half of a 64-bit BAR holds its value. */
    qpci_config_writel(s, d, 0x1c, 0x1);
    g_assert_cmphex(qpci_config_readl(s, d, 0x1c), ==, 0x1);
    qtest_quit(s);
}

static void test_testdev_reset(void)
{
    QTestState *s = start(TESTDEV_ARGS);
    int d = qpci_find_device(s, TESTDEV_VENDOR, TESTDEV_DEVICE);
    QPCIBar mem = qpci_map_bar(s, d, 0);

    qtest_writeb(s, mem.addr, 1);
    g_assert_cmphex(qtest_readl(s, mem.addr), ==, 0x101);
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    g_assert_cmphex(qpci_config_readw(s, d, QPCI_COMMAND), ==, 0);
    g_assert_cmphex(qpci_config_readl(s, d, 0x10), ==, 0);
    g_assert_cmphex(qpci_config_readl(s, d, 0x14), ==, 1);
    g_assert_cmphex(qtest_readl(s, mem.addr), !=, 0x101);
    qtest_quit(s);
}

/* Functions of one slot: multifunction=on on function 0 allows more. */
static void test_multifunction(void)
{
    QTestState *s = start("-nodefaults "
                          "-device pci-testdev,addr=5.0,multifunction=on "
                          "-device pci-testdev,addr=05.3 "
                          "-device pci-testdev,addr=0x6");

    g_assert_cmphex(qpci_config_readb(s, QPCI_DEVFN(5, 0), QPCI_HEADER_TYPE),
                    ==, 0x80);
    g_assert_cmphex(qpci_config_readl(s, QPCI_DEVFN(5, 3), 0), ==,
                    0x00051b36);
    g_assert_cmphex(qpci_config_readl(s, QPCI_DEVFN(6, 0), 0), ==,
                    0x00051b36);
    g_assert_cmphex(qpci_config_readl(s, QPCI_DEVFN(5, 1), 0), ==,
                    0xffffffff);
    qtest_quit(s);
}

/* The query-pci entry of slot.fn, or NULL. */
static JsonObject *find_function(JsonNode *reply, int slot, int fn)
{
    JsonArray *buses = json_object_get_array_member(
        json_node_get_object(reply), "return");
    JsonArray *devs = json_object_get_array_member(
        json_array_get_object_element(buses, 0), "devices");

    for (guint i = 0; i < json_array_get_length(devs); i++) {
        JsonObject *d = json_array_get_object_element(devs, i);

        if (json_object_get_int_member(d, "slot") == slot &&
            json_object_get_int_member(d, "function") == fn) {
            return d;
        }
    }
    return NULL;
}

static void test_query_pci(void)
{
    QTestState *s = start("-nodefaults -device pci-testdev,id=td,membar=1M");
    int d = qpci_find_device(s, TESTDEV_VENDOR, TESTDEV_DEVICE);
    JsonNode *reply;
    JsonObject *host, *td, *r;
    JsonArray *regions;
    QPCIBar io;
    char *hmp;

    qpci_map_bar(s, d, 0);
    io = qpci_map_bar(s, d, 1);
    reply = qtest_qmp(s, "{\"execute\": \"query-pci\"}");
    host = find_function(reply, 0, 0);
    g_assert_nonnull(host);
    g_assert_cmpint(json_object_get_int_member(
        json_object_get_object_member(host, "class_info"), "class"), ==,
        0x0600);
    g_assert_cmpstr(json_object_get_string_member(
        json_object_get_object_member(host, "class_info"), "desc"), ==,
        "Host bridge");
    g_assert_cmpint(json_object_get_int_member(
        json_object_get_object_member(host, "id"), "device"), ==, 0x1237);
    g_assert_nonnull(find_function(reply, 1, 0));
    td = find_function(reply, 2, 0);
    g_assert_nonnull(td);
    g_assert_cmpstr(json_object_get_string_member(td, "qdev_id"), ==, "td");
    g_assert_false(json_object_has_member(td, "irq"));
    g_assert_false(json_object_has_member(
        json_object_get_object_member(td, "class_info"), "desc"));
    regions = json_object_get_array_member(td, "regions");
    g_assert_cmpint(json_array_get_length(regions), ==, 3);
    r = json_array_get_object_element(regions, 0);
    g_assert_cmpstr(json_object_get_string_member(r, "type"), ==, "memory");
    g_assert_cmphex(json_object_get_int_member(r, "address"), ==, 0xe0000000);
    g_assert_cmpint(json_object_get_int_member(r, "size"), ==, 4096);
    g_assert_false(json_object_get_boolean_member(r, "mem_type_64"));
    r = json_array_get_object_element(regions, 1);
    g_assert_cmpstr(json_object_get_string_member(r, "type"), ==, "io");
    g_assert_cmphex(json_object_get_int_member(r, "address"), ==, io.addr);
    r = json_array_get_object_element(regions, 2);
    g_assert_cmpint(json_object_get_int_member(r, "address"), ==, -1);
    g_assert_true(json_object_get_boolean_member(r, "prefetch"));
    json_node_unref(reply);

    hmp = qtest_hmp(s, "info pci");
    /* The monitor ends lines in CR LF, as QEMU's does. */
    for (char *p = hmp, *q = hmp;; p++) {
        if (*p != '\r') {
            *q++ = *p;
        }
        if (!*p) {
            break;
        }
    }
    g_assert_nonnull(strstr(hmp,
        "  Bus  0, device   2, function 0:\n"
        "    Class 0255: PCI device 1b36:0005\n"
        "      PCI subsystem 1af4:1100\n"
        "      BAR0: 32 bit memory at 0xe0000000 [0xe0000fff].\n"
        "      BAR1: I/O at 0xc000 [0xc0ff].\n"
        "      BAR2: 64 bit prefetchable memory at 0xffffffffffffffff "
        "[0x000ffffe].\n"
        "      id \"td\"\n"));
    g_assert_nonnull(strstr(hmp,
        "  Bus  0, device   1, function 0:\n"
        "    ISA bridge: PCI device 8086:7000\n"));
    g_free(hmp);
    qtest_quit(s);
}

static void test_device_list_properties(void)
{
    QTestState *s = start("-nodefaults");
    JsonNode *reply = qtest_qmp(s, "{\"execute\": \"device-list-properties\", "
                                "\"arguments\": {\"typename\": "
                                "\"pci-testdev\"}}");
    JsonArray *props = json_object_get_array_member(
        json_node_get_object(reply), "return");
    bool addr = false, membar = false;

    for (guint i = 0; i < json_array_get_length(props); i++) {
        JsonObject *p = json_array_get_object_element(props, i);
        const char *name = json_object_get_string_member(p, "name");

        if (!strcmp(name, "addr")) {
            addr = true;
            g_assert_cmpstr(json_object_get_string_member(p, "type"), ==,
                            "int32");
            g_assert_cmpint(json_object_get_int_member(p, "default-value"),
                            ==, -1);
            g_assert_cmpstr(json_object_get_string_member(p, "description"),
                            ==, "Slot and optional function number, "
                            "example: 06.0 or 06");
        } else if (!strcmp(name, "membar")) {
            membar = true;
            g_assert_cmpstr(json_object_get_string_member(p, "type"), ==,
                            "size");
        }
    }
    g_assert_true(addr && membar);
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"device-list-properties\", "
                      "\"arguments\": {\"typename\": \"nope\"}}");
    g_assert_cmpstr(json_object_get_string_member(
        qdict_get_qdict(reply, "error"), "class"), ==, "DeviceNotFound");
    g_assert_cmpstr(json_object_get_string_member(
        qdict_get_qdict(reply, "error"), "desc"), ==, "Device 'nope' not found");
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"device-list-properties\", "
                      "\"arguments\": {\"typename\": \"pci-device\"}}");
    g_assert_cmpstr(json_object_get_string_member(
        qdict_get_qdict(reply, "error"), "desc"), ==,
        "Parameter 'typename' expects a non-abstract device type");
    json_node_unref(reply);
    qtest_quit(s);
}

typedef struct DeviceErrorCase {
    const char *args;
    const char *message;
} DeviceErrorCase;

static const DeviceErrorCase device_errors[] = {
    { "-device pci-testdev,addr=zz",
      "qemu-system-x86_64: -device pci-testdev,addr=zz: Property "
      "'pci-testdev.addr' doesn't take value 'zz'\n" },
    { "-device pci-testdev,addr=2.9",
      "qemu-system-x86_64: -device pci-testdev,addr=2.9: Property "
      "'pci-testdev.addr' doesn't take value '2.9'\n" },
    { "-device pci-testdev,addr=0x20",
      "qemu-system-x86_64: -device pci-testdev,addr=0x20: Property "
      "'pci-testdev.addr' doesn't take value '0x20'\n" },
    { "-device pci-testdev,addr=0",
      "qemu-system-x86_64: -device pci-testdev,addr=0: PCI: slot 0 function "
      "0 not available for pci-testdev, in use by i440FX,id=(null)\n" },
    { "-device pci-testdev,addr=3,id=a -device pci-testdev,addr=3",
      "qemu-system-x86_64: -device pci-testdev,addr=3: PCI: slot 3 function "
      "0 not available for pci-testdev, in use by pci-testdev,id=a\n" },
    { "-device pci-testdev,addr=3.1 -device pci-testdev,addr=3",
      "qemu-system-x86_64: -device pci-testdev,addr=3: PCI: 3.0 indicates "
      "single function, but 3.1 is already populated.\n" },
    { "-device pci-testdev,addr=3 -device pci-testdev,addr=3.1",
      "qemu-system-x86_64: -device pci-testdev,addr=3.1: PCI: single "
      "function device can't be populated in function 3.1\n" },
    { "-device pci-testdev,bus=pci.1",
      "qemu-system-x86_64: -device pci-testdev,bus=pci.1: Bus 'pci.1' not "
      "found\n" },
    { "-device pci-testdev,bus=isa.0",
      "qemu-system-x86_64: -device pci-testdev,bus=isa.0: Device "
      "'pci-testdev' can't go on ISA bus\n" },
    { "-device isa-debug-exit,bus=pci.0",
      "qemu-system-x86_64: -device isa-debug-exit,bus=pci.0: Device "
      "'isa-debug-exit' can't go on PCI bus\n" },
};

static void test_device_error(const void *data)
{
    const DeviceErrorCase *c = data;
    char *args = g_strdup_printf("-nodefaults %s", c->args);
    QTestState *s = qtest_init_without_qmp_handshake(args);
    int status = qtest_wait_exit(s);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(qtest_stderr(s), ==, c->message);
    qtest_quit(s);
    g_free(args);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("pci/host/i440fx", test_i440fx);
    qtest_add_func("pci/host/piix3", test_piix3);
    qtest_add_func("pci/host/absent", test_absent);
    qtest_add_func("pci/testdev/config", test_testdev_config);
    qtest_add_func("pci/testdev/bar-sizes", test_testdev_bar_sizes);
    qtest_add_func("pci/testdev/protocol", test_testdev_protocol);
    qtest_add_func("pci/testdev/bar-mapping", test_testdev_bar_mapping);
    qtest_add_func("pci/testdev/reset", test_testdev_reset);
    qtest_add_func("pci/device/multifunction", test_multifunction);
    qtest_add_func("pci/monitor/query-pci", test_query_pci);
    qtest_add_func("pci/monitor/device-list-properties",
                   test_device_list_properties);
    for (size_t i = 0; i < G_N_ELEMENTS(device_errors); i++) {
        char *path = g_strdup_printf("pci/device/error/%zu", i);

        qtest_add_data_func(path, &device_errors[i], test_device_error);
        g_free(path);
    }
    return g_test_run();
}
