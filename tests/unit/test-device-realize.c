/*
 * Every way a device's realize can fail, and what the failure leaves
 * behind: the error a user would read, nothing leaked and nothing freed
 * twice (the ASan build runs this with detect_leaks=1), and whatever the
 * device had taken (ports, MMIO, its one-instance slot, a serial index,
 * a chardev) free again, shown by realizing the same device afterwards.
 *
 * A failure inside realize frees the device at once; a failure after
 * it (the name in the tree is taken, as when a board names two devices
 * alike) runs unrealize first, so each device is also put through that.
 */
#include <string.h>

#include <glib.h>

#include "chardev/char.h"
#include "hw/acpi/pm.h"
#include "hw/intc/apic.h"
#include "hw/bus.h"
#include "hw/qdev.h"
#include "system/memory.h"

/* Regions that occupy a port or an address, as another device would. */
#define MAX_BLOCKERS 4
static MemoryRegion blockers[MAX_BLOCKERS];
static unsigned n_blockers;

static uint64_t blocker_read(void *opaque, uint64_t addr, unsigned size)
{
    return 0;
}

static void blocker_write(void *opaque, uint64_t addr, uint64_t value,
                          unsigned size)
{
}

static const MemoryRegionOps blocker_ops = {
    .read = blocker_read,
    .write = blocker_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static void block(AddressSpace *as, uint64_t addr, uint64_t size)
{
    MemoryRegion *mr;
    Error *err = NULL;

    g_assert_cmpuint(n_blockers, <, MAX_BLOCKERS);
    mr = &blockers[n_blockers++];
    memory_region_init_io(mr, "blocker", &blocker_ops, NULL, size);
    g_assert_true(address_space_map_region(as, mr, addr, &err));
    g_assert_null(err);
}

static void unblock_all(void)
{
    while (n_blockers) {
        memory_region_finalize(&blockers[--n_blockers]);
    }
}

/* Between cases: no device, region, chardev or tree node is left. */
static void teardown(void)
{
    qdev_destroy_all();
    apic_free_all();
    unblock_all();
    qemu_chr_cleanup_all();
    object_cleanup();
}

/* props: name, value pairs ending in NULL. */
static DeviceState *make(const char *type, const char *const *props)
{
    Error *err = NULL;
    DeviceState *dev = qdev_new(type, &err);

    g_assert_null(err);
    g_assert_nonnull(dev);
    for (; props && props[0]; props += 2) {
        g_assert_true(qdev_prop_set(dev, props[0], props[1], &err));
        g_assert_null(err);
    }
    return dev;
}

static DeviceState *realize_ok(const char *type, const char *const *props)
{
    DeviceState *dev = make(type, props);
    Error *err = NULL;

    g_assert_true(qdev_realize(dev, &err));
    g_assert_null(err);
    return dev;
}

static void check_error(Error **errp, const char *msg)
{
    g_assert_nonnull(*errp);
    g_assert_cmpstr(error_get_pretty(*errp), ==, msg);
    error_free(*errp);
    *errp = NULL;
}

static void realize_fails(const char *type, const char *const *props,
                          const char *msg)
{
    DeviceState *dev = make(type, props);
    Error *err = NULL;

    g_assert_false(qdev_realize(dev, &err));
    check_error(&err, msg);
}

#define NAME_TAKEN \
    "attempt to add duplicate property 'dev' to object (type 'container')"

/*
 * Realize succeeds, then the device cannot go into the tree: unrealize
 * must give back everything, so the same device realizes right after.
 */
static void realize_name_taken(const char *type, const char *const *props)
{
    Object *parent = object_get_container("/machine/test");
    DeviceState *dev = make(type, props);
    Error *err = NULL;

    g_assert_nonnull(object_add_child(parent, "dev", "container", NULL, NULL,
                                      &err));
    qdev_set_parent(dev, parent, "dev");
    g_assert_false(qdev_realize(dev, &err));
    check_error(&err, NAME_TAKEN);
    realize_ok(type, props);
}

/* --- Local APIC (apic_new makes the device) ------------------------- */

static void test_apic(void)
{
    Object *unattached = object_get_container("/machine/unattached");
    APICState *bsp;
    Error *err = NULL;

    g_assert_null(apic_new(0xff, true, NULL, NULL, &err));
    check_error(&err, "APIC ID 255 needs x2APIC, which is not supported");

    block(&address_space_memory, APIC_DEFAULT_ADDRESS, 0x10);
    g_assert_null(apic_new(0, true, NULL, NULL, &err));
    check_error(&err, "region 'apic' at 0xfee00000 overlaps 'blocker' at "
                "0xfee00000 in the memory address space");
    unblock_all();

    /* A device property that does not exist, from -global. */
    qdev_add_global("apic", "nosuch", "1");
    g_assert_null(apic_new(0, true, NULL, NULL, &err));
    check_error(&err, "-global apic.nosuch=1: Property 'apic.nosuch' not "
                "found");
    qdev_destroy_all();

    /* The name is taken: the device is freed by qdev_realize(). */
    g_assert_nonnull(object_add_child(unattached, "lapic[0]", "container",
                                      NULL, NULL, &err));
    g_assert_null(apic_new(0, true, NULL, NULL, &err));
    check_error(&err, "attempt to add duplicate property 'lapic[0]' to "
                "object (type 'container')");
    object_unparent(object_resolve_path("/machine/unattached/lapic[0]",
                                        NULL));

    /* The MMIO page went with the only APIC, so it can be mapped again. */
    bsp = apic_new(0, true, NULL, NULL, &err);
    g_assert_null(err);
    g_assert_nonnull(bsp);
    g_assert_nonnull(object_resolve_path("/machine/unattached/lapic[0]",
                                         NULL));

    /* A second APIC that fails leaves the first one and the page. */
    g_assert_nonnull(object_add_child(unattached, "lapic[1]", "container",
                                      NULL, NULL, &err));
    g_assert_null(apic_new(1, false, NULL, NULL, &err));
    check_error(&err, "attempt to add duplicate property 'lapic[1]' to "
                "object (type 'container')");
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             APIC_DEFAULT_ADDRESS + 0x30, 4),
                    ==, 0x00050014);
    teardown();
}

/* --- I/O APIC -------------------------------------------------------- */

static void test_ioapic(void)
{
    realize_fails("ioapic", (const char *const[]){ "version", "0x12", NULL },
                  "ioapic: version 0x12 is not supported (0x11 or 0x20)");
    realize_fails("ioapic", (const char *const[]){ "irq0-pin", "24", NULL },
                  "ioapic: irq0-pin 24 does not exist");

    block(&address_space_memory, IOAPIC_DEFAULT_ADDRESS, 0x10);
    realize_fails("ioapic", NULL, "region 'ioapic' at 0xfec00000 overlaps "
                  "'blocker' at 0xfec00000 in the memory address space");
    unblock_all();

    realize_name_taken("ioapic", NULL);
    /*
     * A second one at the same address: its page is taken (there is no
     * one-I/O-APIC rule: each is an instance). The GPIO lines made before
     * this failure are freed with it.
     */
    realize_fails("ioapic", NULL, "region 'ioapic' at 0xfec00000 overlaps "
                  "'ioapic' at 0xfec00000 in the memory address space");
    teardown();
}

/* --- i8259 ----------------------------------------------------------- */

static const char *const pic_master_props[] = {
    "iobase", "0x20", "elcr_addr", "0x4d0", "master", "true", NULL,
};

static void test_i8259(void)
{
    block(&address_space_io, 0x21, 1);
    realize_fails("isa-i8259", pic_master_props, "isa-i8259: region 'pic' "
                  "at 0x20 overlaps 'blocker' at 0x21 in the I/O address "
                  "space");
    unblock_all();

    /* The ELCR port is taken: the command ports are given back. */
    block(&address_space_io, 0x4d0, 1);
    realize_fails("isa-i8259", pic_master_props, "isa-i8259: region 'elcr' "
                  "at 0x4d0 overlaps 'blocker' at 0x4d0 in the I/O address "
                  "space");
    unblock_all();

    realize_name_taken("isa-i8259", pic_master_props);
    teardown();
}

/* --- i8254 ----------------------------------------------------------- */

static void test_i8254(void)
{
    block(&address_space_io, 0x43, 1);
    realize_fails("isa-pit", NULL, "isa-pit: region 'pit' at 0x40 overlaps "
                  "'blocker' at 0x43 in the I/O address space");
    unblock_all();

    block(&address_space_io, 0x61, 1);
    realize_fails("isa-pit", NULL, "isa-pit: region 'pcspk' at 0x61 "
                  "overlaps 'blocker' at 0x61 in the I/O address space");
    unblock_all();

    realize_fails("isa-pit", (const char *const[]){
                      "iobase", "0xfffe", NULL },
                  "isa-pit: region 'pit' [0xfffe, +0x4] does not fit the "
                  "I/O address space");

    /* The channel 0 timer goes with the device. */
    realize_name_taken("isa-pit", NULL);
    teardown();
}

/* --- isa-serial ------------------------------------------------------ */

static void test_serial(void)
{
    Error *err = NULL;

    realize_fails("isa-serial", (const char *const[]){ "index", "4", NULL },
                  "Max. supported number of ISA serial ports is 4.");
    realize_fails("isa-serial", (const char *const[]){ "irq", "16", NULL },
                  "Maximum value for \"irq\" is: 15");
    realize_fails("isa-serial", (const char *const[]){
                      "iobase", "0xfffa", NULL },
                  "Property 'isa-serial.iobase' doesn't take value 0xfffa");
    realize_fails("isa-serial", (const char *const[]){
                      "chardev", "nosuch", NULL },
                  "Property 'isa-serial.chardev' can't find value 'nosuch'");

    block(&address_space_io, 0x3fd, 1);
    realize_fails("isa-serial", NULL, "isa-serial: region 'serial' at "
                  "0x3f8 overlaps 'blocker' at 0x3fd in the I/O address "
                  "space");
    unblock_all();

    /*
     * A chardev has one frontend. The failed realize gave back its
     * port and index: COM1 is free again.
     */
    g_assert_nonnull(qemu_chr_new("c0", "null", &err));
    g_assert_null(err);
    realize_ok("isa-serial", (const char *const[]){ "chardev", "c0", NULL });
    realize_fails("isa-serial", (const char *const[]){
                      "chardev", "c0", NULL },
                  "Device 'c0' is in use");

    /*
     * The name is taken once the chardev is attached: unrealize gives
     * back the chardev, the index and the port.
     */
    g_assert_nonnull(qemu_chr_new("c1", "null", &err));
    realize_name_taken("isa-serial", (const char *const[]){
                           "chardev", "c1", NULL });

    /* COM1 and COM2 are used: COM3, COM4, then no index is left. */
    realize_ok("isa-serial", NULL);
    realize_ok("isa-serial", NULL);
    realize_fails("isa-serial", NULL,
                  "Max. supported number of ISA serial ports is 4.");
    teardown();
}

/* --- i8042 ----------------------------------------------------------- */

static void test_i8042(void)
{
    block(&address_space_io, 0x60, 1);
    realize_fails("i8042", NULL, "i8042: region 'i8042-data' at 0x60 "
                  "overlaps 'blocker' at 0x60 in the I/O address space");
    unblock_all();

    /* The command port is taken: the data port is given back. */
    block(&address_space_io, 0x64, 1);
    realize_fails("i8042", NULL, "i8042: region 'i8042-cmd' at 0x64 "
                  "overlaps 'blocker' at 0x64 in the I/O address space");
    unblock_all();

    realize_name_taken("i8042", NULL);
    teardown();
}

/* --- mc146818rtc ----------------------------------------------------- */

static void test_rtc(void)
{
    realize_fails("mc146818rtc", (const char *const[]){ "irq", "16", NULL },
                  "Maximum value for \"irq\" is: 15");
    realize_fails("mc146818rtc", (const char *const[]){
                      "base_year", "10000", NULL },
                  "mc146818rtc: base_year must be between 0 and 9999");
    realize_fails("mc146818rtc", (const char *const[]){
                      "base_year", "-1", NULL },
                  "mc146818rtc: base_year must be between 0 and 9999");

    block(&address_space_io, 0x71, 1);
    realize_fails("mc146818rtc", NULL, "mc146818rtc: region 'rtc' at 0x70 "
                  "overlaps 'blocker' at 0x71 in the I/O address space");
    unblock_all();

    /* Both timers go with the device. */
    realize_name_taken("mc146818rtc", NULL);
    teardown();
}

/* --- fw_cfg_io ------------------------------------------------------- */

static void test_fw_cfg(void)
{
    block(&address_space_io, 0x511, 1);
    realize_fails("fw_cfg_io", NULL, "fw_cfg_io: region 'fwcfg' at 0x510 "
                  "overlaps 'blocker' at 0x511 in the I/O address space");
    unblock_all();

    /* The DMA port is taken: the selector and data ports go back. */
    block(&address_space_io, 0x51b, 1);
    realize_fails("fw_cfg_io", NULL, "fw_cfg_io: region 'fwcfg.dma' at "
                  "0x514 overlaps 'blocker' at 0x51b in the I/O address "
                  "space");
    unblock_all();

    /* The items realize added (signature, ID, UUID) are freed. */
    realize_name_taken("fw_cfg_io", NULL);
    /* A second one: its ports are taken (each is an instance). */
    realize_fails("fw_cfg_io", NULL, "fw_cfg_io: region 'fwcfg' at 0x510 "
                  "overlaps 'fwcfg' at 0x510 in the I/O address space");
    teardown();
}

/* --- isa-debug-exit -------------------------------------------------- */

static void test_debugexit(void)
{
    realize_fails("isa-debug-exit", (const char *const[]){
                      "iosize", "0", NULL },
                  "isa-debug-exit: iobase 0x501 and iosize 0x0 must "
                  "describe a non-empty range of ports 0-0xffff");
    realize_fails("isa-debug-exit", (const char *const[]){
                      "iobase", "0x10000", NULL },
                  "isa-debug-exit: iobase 0x10000 and iosize 0x2 must "
                  "describe a non-empty range of ports 0-0xffff");
    realize_fails("isa-debug-exit", (const char *const[]){
                      "iobase", "0xffff", NULL },
                  "isa-debug-exit: iobase 0xffff and iosize 0x2 must "
                  "describe a non-empty range of ports 0-0xffff");

    block(&address_space_io, 0x502, 1);
    realize_fails("isa-debug-exit", NULL, "isa-debug-exit: region "
                  "'isa-debug-exit' at 0x501 overlaps 'blocker' at 0x502 "
                  "in the I/O address space");
    unblock_all();

    realize_name_taken("isa-debug-exit", NULL);
    teardown();
}

/* --- pvpanic: its port, and its one-instance slot ------------------- */

static void test_pvpanic(void)
{
    block(&address_space_io, 0x505, 1);
    realize_fails("pvpanic", NULL, "pvpanic: region 'pvpanic' at 0x505 "
                  "overlaps 'blocker' at 0x505 in the I/O address space");
    unblock_all();

    /* Unrealize gives the slot back: the device realizes again. */
    realize_name_taken("pvpanic", NULL);
    realize_fails("pvpanic", (const char *const[]){
                      "ioport", "0x506", NULL },
                  "duplicate fw_cfg file name: etc/pvpanic-port");
    teardown();
    realize_ok("pvpanic", NULL);
    teardown();
}

/* --- pc-testdev: five regions, each taken in turn -------------------- */

static void test_pc_testdev(void)
{
    static const struct {
        bool mmio;
        uint64_t addr;
        const char *msg;
    } taken[] = {
        { false, 0xe0, "pc-testdev: region 'pc-testdev-ioport' at 0xe0 "
          "overlaps 'blocker' at 0xe0 in the I/O address space" },
        { false, 0xe4, "pc-testdev: region 'pc-testdev-flush-page' at 0xe4 "
          "overlaps 'blocker' at 0xe4 in the I/O address space" },
        { false, 0xe8, "pc-testdev: region 'pc-testdev-ioport-byte' at "
          "0xe8 overlaps 'blocker' at 0xe8 in the I/O address space" },
        { false, 0x2000, "pc-testdev: region 'pc-testdev-irq-line' at "
          "0x2000 overlaps 'blocker' at 0x2000 in the I/O address space" },
        { true, 0xff000000, "region 'pc-testdev-iomem' at 0xff000000 "
          "overlaps 'blocker' at 0xff000000 in the memory address space" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(taken); i++) {
        block(taken[i].mmio ? &address_space_memory : &address_space_io,
              taken[i].addr, 1);
        realize_fails("pc-testdev", NULL, taken[i].msg);
        unblock_all();
    }
    realize_name_taken("pc-testdev", NULL);
    teardown();
}

/* --- acpi-pm --------------------------------------------------------- */

static void test_acpi_pm(void)
{
    realize_fails("acpi-pm", (const char *const[]){
                      "iobase", "0xfff1", NULL },
                  "acpi-pm: iobase 0xfff1: the 16 ports must lie in "
                  "0-0xffff");
    realize_fails("acpi-pm", (const char *const[]){
                      "sci-irq", "16", NULL },
                  "acpi-pm: sci-irq 16: must be an ISA IRQ, 0-15");
    realize_fails("acpi-pm", (const char *const[]){
                      "reset-port", "0x10000", NULL },
                  "acpi-pm: reset-port 0x10000: must be a port 0-0xffff "
                  "(0: none)");

    block(&address_space_io, 0x608, 1);
    realize_fails("acpi-pm", NULL, "acpi-pm: region 'acpi-pm' at 0x600 "
                  "overlaps 'blocker' at 0x608 in the I/O address space");
    unblock_all();

    /* The reset port is taken: the PM block goes back. */
    block(&address_space_io, 0xcf9, 1);
    realize_fails("acpi-pm", (const char *const[]){
                      "reset-port", "0xcf9", NULL },
                  "acpi-pm: region 'acpi-pm-reset' at 0xcf9 overlaps "
                  "'blocker' at 0xcf9 in the I/O address space");
    unblock_all();

    /* The PM timer and the reset port go with the device. */
    realize_name_taken("acpi-pm", (const char *const[]){
                           "reset-port", "0xcf9", NULL });
    teardown();
}

/* --- Before realize: properties and -device ------------------------- */

static void test_bad_property(void)
{
    DeviceState *dev = make("isa-serial", (const char *const[]){
                                "chardev", "c0", NULL });
    QemuOpts *opts;
    Error *err = NULL;

    /* The chardev string set before is freed with the device. */
    g_assert_false(qdev_prop_set(dev, "irq", "four", &err));
    check_error(&err, "Parameter 'irq' expects a number");
    g_assert_false(qdev_prop_set(dev, "irq", "0x100000000", &err));
    check_error(&err, "Property isa-serial.irq doesn't take value "
                "4294967296 (minimum: 0, maximum: 4294967295)");
    g_assert_false(qdev_prop_set(dev, "nosuch", "1", &err));
    check_error(&err, "Property 'isa-serial.nosuch' not found");
    qdev_free_unrealized(dev);

    /* -global with a bad value: qdev_new() fails, for every instance. */
    qdev_add_global("isa-debug-exit", "iobase", "port");
    g_assert_null(qdev_new("isa-debug-exit", &err));
    check_error(&err, "-global isa-debug-exit.iobase=port: Parameter "
                "'iobase' expects a number");
    qdev_destroy_all();

    /* -device: a bad property after a string one, then a realize error. */
    opts = qemu_opts_parse("driver=isa-serial,chardev=c0,irq=four", NULL,
                           &err);
    g_assert_nonnull(opts);
    g_assert_null(qdev_device_add(opts, &err));
    check_error(&err, "Parameter 'irq' expects a number");
    qemu_opts_free(opts);

    opts = qemu_opts_parse("driver=isa-debug-exit,id=de,iosize=0", NULL,
                           &err);
    g_assert_null(qdev_device_add(opts, &err));
    check_error(&err, "isa-debug-exit: iobase 0x501 and iosize 0x0 must "
                "describe a non-empty range of ports 0-0xffff");
    g_assert_null(object_resolve_path("/machine/peripheral/de", NULL));
    qemu_opts_free(opts);
    teardown();
}

/*
 * Devices plug into a bus of their class's type: the board's isa.0 for
 * ISA devices, the root bus for the rest; a failed realize leaves none
 * behind and teardown takes them off.
 */
static void test_buses(void)
{
    BusState *isa = qbus_new("isa.0", BUS_TYPE_ISA, &address_space_io);
    BusState *root = qbus_main_system_bus();
    guint root_children = root->children->len;
    DeviceState *dbg, *ioapic;

    g_assert_true(qbus_find("isa.0") == isa);
    g_assert_true(qbus_find_type(BUS_TYPE_ISA) == isa);
    g_assert_null(qbus_find("pci.0"));
    dbg = realize_ok("isa-debug-exit", NULL);
    ioapic = realize_ok("ioapic", NULL);
    g_assert_true(dbg->bus == isa);
    g_assert_true(ioapic->bus == root);
    g_assert_cmpuint(isa->children->len, ==, 1);
    g_assert_true(g_ptr_array_index(isa->children, 0) == dbg);
    g_assert_cmpuint(root->children->len, ==, root_children + 1);
    /* Port taken: the second one never reaches the bus. */
    realize_fails("isa-debug-exit", NULL, "isa-debug-exit: region "
                  "'isa-debug-exit' at 0x501 overlaps 'isa-debug-exit' at "
                  "0x501 in the I/O address space");
    g_assert_cmpuint(isa->children->len, ==, 1);
    teardown();
    g_assert_cmpuint(isa->children->len, ==, 0);
    g_assert_cmpuint(root->children->len, ==, root_children);
    qbus_free(isa);
    g_assert_null(qbus_find("isa.0"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/device-realize/apic", test_apic);
    g_test_add_func("/device-realize/buses", test_buses);
    g_test_add_func("/device-realize/ioapic", test_ioapic);
    g_test_add_func("/device-realize/i8259", test_i8259);
    g_test_add_func("/device-realize/i8254", test_i8254);
    g_test_add_func("/device-realize/serial", test_serial);
    g_test_add_func("/device-realize/i8042", test_i8042);
    g_test_add_func("/device-realize/rtc", test_rtc);
    g_test_add_func("/device-realize/fw_cfg", test_fw_cfg);
    g_test_add_func("/device-realize/debugexit", test_debugexit);
    g_test_add_func("/device-realize/pvpanic", test_pvpanic);
    g_test_add_func("/device-realize/pc-testdev", test_pc_testdev);
    g_test_add_func("/device-realize/acpi-pm", test_acpi_pm);
    g_test_add_func("/device-realize/bad-property", test_bad_property);
    return g_test_run();
}
