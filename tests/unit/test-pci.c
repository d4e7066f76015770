/*
 * Unit tests of the PCI pieces that are plain functions: the PIIX3's
 * INTx swizzle and PIRQ routing (hw/pci-host/piix3.c), and MSI's
 * multiple messages and per-vector masking (hw/pci/msi.c) on a device
 * that is only a config space, its messages landing in RAM; MSI-X's
 * table, PBA and masking the same way; the migratable state of such a
 * device (vmstate_pci_device with its MSI-X subsection): a round trip,
 * and a stream refused for a read-only byte that differs, a vector
 * pending past the table, another table size.
 */
#include <glib.h>
#include <string.h>

#include "hw/pci-host/piix3.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "vmstate/vmstate.h"
#include "system/memory.h"

/* Slot S pin P drives PIRQ (S + P - 1) mod 4, as on QEMU's pc. */
static void test_swizzle(void)
{
    for (int slot = 0; slot < PCI_SLOT_MAX; slot++) {
        for (int pin = 0; pin < PCI_NUM_PINS; pin++) {
            for (int fn = 0; fn < PCI_FUNC_MAX; fn++) {
                g_assert_cmpint(piix3_pirq_of(PCI_DEVFN(slot, fn), pin), ==,
                                (slot + pin + 3) % 4);
            }
        }
    }
}

static void test_route(void)
{
    uint8_t rc[4] = { 0x80, 0x80, 0x80, 0x80 };
    int level[4] = { 1, 1, 1, 1 };

    /* Reset: every PIRQ disabled, nothing reaches the ISA side. */
    g_assert_cmphex(piix3_route_pirqs(rc, level), ==, 0);
    /* SeaBIOS's choice: A, B to 10 and C, D to 11. */
    rc[0] = rc[1] = 10;
    rc[2] = rc[3] = 11;
    g_assert_cmphex(piix3_route_pirqs(rc, level), ==, 1u << 10 | 1u << 11);
    /* A shared IRQ stays up while any PIRQ routed there is. */
    level[0] = 0;
    g_assert_cmphex(piix3_route_pirqs(rc, level), ==, 1u << 10 | 1u << 11);
    level[1] = 0;
    g_assert_cmphex(piix3_route_pirqs(rc, level), ==, 1u << 11);
    /* Bit 7 disables; the reserved bits 6-4 do not matter. */
    rc[2] = 0x8b;
    rc[3] = 0x7b;
    g_assert_cmphex(piix3_route_pirqs(rc, level), ==, 1u << 11);
    level[3] = 0;
    g_assert_cmphex(piix3_route_pirqs(rc, level), ==, 0);
}

static const PCIDeviceClass msi_test_class = {
    .parent = { .name = "msi-test", .instance_size = sizeof(PCIDevice) },
};

static void cfg_write(PCIDevice *d, uint32_t addr, uint32_t val,
                      unsigned len)
{
    pci_default_write_config(d, addr, val, len);
}

static void test_msi_masking(void)
{
    static uint8_t ram[0x1000];
    MemoryRegion mr;
    PCIDevice *d = g_new0(PCIDevice, 1);
    Error *err = NULL;
    uint32_t msg;

    memory_region_init_ram_ptr(&mr, "ram", sizeof(ram), ram);
    g_assert_true(address_space_map_region(&address_space_memory, &mr,
                                           0x10000, &err));
    d->qdev.dc = &msi_test_class.parent;
    pci_set_word(d->wmask + PCI_COMMAND, PCI_COMMAND_MASTER);
    g_assert_true(msi_init(d, 0x50, 4, true, true, &err));
    g_assert_false(msi_init(d, 0x80, 3, false, false, &err));
    error_free_or_abort(&err);
    g_assert_cmphex(d->config[PCI_CAPABILITY_LIST], ==, 0x50);
    /* Control: 4 vectors capable (log2 2), 64-bit, per-vector masking. */
    g_assert_cmphex(pci_get_word(d->config + 0x52), ==, 0x0184);

    cfg_write(d, PCI_COMMAND, PCI_COMMAND_MASTER, 2);
    cfg_write(d, 0x54, 0x10100, 4);         /* address */
    cfg_write(d, 0x58, 0, 4);
    cfg_write(d, 0x5c, 0x0020, 2);          /* data */
    cfg_write(d, 0x60, 1u << 2, 4);         /* mask vector 2 */
    /* Disabled: nothing. Enabled with 4 messages (QSIZE 2). */
    msi_notify(d, 1);
    g_assert_false(msi_enabled(d));
    cfg_write(d, 0x52, 0x0021, 2);
    g_assert_true(msi_enabled(d));
    msi_notify(d, 1);
    memcpy(&msg, ram + 0x100, 4);
    g_assert_cmphex(msg, ==, 0x21);
    /* Masked: pending, not sent, until unmasked. */
    memset(ram, 0, sizeof(ram));
    msi_notify(d, 2);
    memcpy(&msg, ram + 0x100, 4);
    g_assert_cmphex(msg, ==, 0);
    g_assert_cmphex(pci_get_long(d->config + 0x64), ==, 1u << 2);
    cfg_write(d, 0x60, 0, 4);
    memcpy(&msg, ram + 0x100, 4);
    g_assert_cmphex(msg, ==, 0x22);
    g_assert_cmphex(pci_get_long(d->config + 0x64), ==, 0);
    /* A vector beyond the enabled ones is dropped. */
    memset(ram, 0, sizeof(ram));
    cfg_write(d, 0x52, 0x0001, 2);          /* one message */
    msi_notify(d, 3);
    memcpy(&msg, ram + 0x100, 4);
    g_assert_cmphex(msg, ==, 0);
    /* Reset: disabled, message cleared. */
    msi_reset(d);
    g_assert_false(msi_enabled(d));
    g_assert_cmphex(pci_get_long(d->config + 0x54), ==, 0);
    g_free(d);
    memory_region_finalize(&mr);
    memory_cleanup();
}

#define MSIX_BAR_ADDR   0x40000

static uint32_t ram_msg(const uint8_t *ram, unsigned off)
{
    uint32_t v;

    memcpy(&v, ram + off, 4);
    return v;
}

static void test_msix(void)
{
    static uint8_t ram[0x1000];
    MemoryRegion mr;
    PCIDevice *d = g_new0(PCIDevice, 1);
    AddressSpace *as = &address_space_memory;
    Error *err = NULL;

    memory_region_init_ram_ptr(&mr, "ram", sizeof(ram), ram);
    g_assert_true(address_space_map_region(as, &mr, 0x10000, &err));
    d->qdev.dc = &msi_test_class.parent;
    pci_set_word(d->wmask + PCI_COMMAND, PCI_COMMAND_MASTER);
    g_assert_true(msix_init_exclusive_bar(d, 3, 1, 0x60, &err));
    /* Table size - 1, table at 0 and PBA at 0x800 of BAR 1. */
    g_assert_cmphex(pci_get_long(d->config + 0x60), ==, 0x00020011);
    g_assert_cmphex(pci_get_long(d->config + 0x64), ==, 1);
    g_assert_cmphex(pci_get_long(d->config + 0x68), ==, 0x801);
    g_assert_cmphex(d->io_regions[1].size, ==, 4096);
    g_assert_true(address_space_map_region(as, d->io_regions[1].mr,
                                           MSIX_BAR_ADDR, &err));
    cfg_write(d, PCI_COMMAND, PCI_COMMAND_MASTER, 2);
    /* Every vector starts masked. */
    for (int v = 0; v < 3; v++) {
        g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + v * 16 +
                                                 12, 4), ==, 1);
    }
    /* Vector 1 to RAM at 0x10200 with data 0x77. */
    address_space_write_sized(as, MSIX_BAR_ADDR + 16, 0x10200, 4);
    address_space_write_sized(as, MSIX_BAR_ADDR + 20, 0, 4);
    address_space_write_sized(as, MSIX_BAR_ADDR + 24, 0x77, 4);
    /* Disabled: nothing, not even pending. */
    msix_notify(d, 1);
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 0x800, 4),
                    ==, 0);
    cfg_write(d, 0x62, 0x8000, 2);
    g_assert_true(msix_enabled(d));
    /* Masked: pending; unmasking the vector sends it. */
    msix_notify(d, 1);
    g_assert_cmphex(ram_msg(ram, 0x200), ==, 0);
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 0x800, 4),
                    ==, 1u << 1);
    address_space_write_sized(as, MSIX_BAR_ADDR + 28, 0, 4);
    g_assert_cmphex(ram_msg(ram, 0x200), ==, 0x77);
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 0x800, 4),
                    ==, 0);
    /* Function mask: pending until it is cleared. */
    memset(ram, 0, sizeof(ram));
    cfg_write(d, 0x62, 0xc000, 2);
    msix_notify(d, 1);
    g_assert_cmphex(ram_msg(ram, 0x200), ==, 0);
    cfg_write(d, 0x62, 0x8000, 2);
    g_assert_cmphex(ram_msg(ram, 0x200), ==, 0x77);
    /* Unmasked and enabled: at once. Vectors past the table: dropped. */
    memset(ram, 0, sizeof(ram));
    msix_notify(d, 1);
    g_assert_cmphex(ram_msg(ram, 0x200), ==, 0x77);
    msix_notify(d, 3);
    /* The PBA is read-only, writes past the table vanish. */
    address_space_write_sized(as, MSIX_BAR_ADDR + 0x800, 0xff, 4);
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 0x800, 4),
                    ==, 0);
    /* Reset: disabled, every vector masked again. */
    msix_reset(d);
    g_assert_false(msix_enabled(d));
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 28, 4), ==,
                    1);
    address_space_unmap_region(d->io_regions[1].mr);
    msix_uninit(d);
    g_free(d);
    memory_region_finalize(&mr);
    memory_cleanup();
}

/* A config-space-only device with MSI-X of n vectors at 0x60. */
static PCIDevice *mig_dev(unsigned n)
{
    PCIDevice *d = g_new0(PCIDevice, 1);
    Error *err = NULL;

    d->qdev.dc = &msi_test_class.parent;
    for (int i = 0; i < PCI_NUM_REGIONS; i++) {
        d->io_regions[i].addr = PCI_BAR_UNMAPPED;
    }
    pci_set_word(d->config + PCI_VENDOR_ID, 0x1af4);
    pci_set_word(d->config + PCI_DEVICE_ID, 0x1044);
    pci_set_word(d->wmask + PCI_COMMAND, PCI_COMMAND_MASTER);
    d->wmask[PCI_INTERRUPT_LINE] = 0xff;
    g_assert_true(msix_init_exclusive_bar(d, n, 1, 0x60, &err));
    return d;
}

static void mig_dev_free(PCIDevice *d)
{
    msix_uninit(d);
    g_free(d);
}

static GByteArray *mig_save(PCIDevice *d)
{
    GByteArray *out = g_byte_array_new();

    g_assert_true(vmstate_save(&vmstate_pci_device, d, out));
    return out;
}

/* Load out into a fresh device of n vectors: the error, or NULL. */
static char *mig_load(GByteArray *out, unsigned n)
{
    PCIDevice *b = mig_dev(n);
    Error *err = NULL;
    char *msg = NULL;

    if (!vmstate_load(&vmstate_pci_device, b, 1, out->data, out->len,
                      "pci-test instance 0", &err)) {
        msg = g_strdup(error_get_pretty(err));
        error_free(err);
    }
    mig_dev_free(b);
    return msg;
}

static void test_migration(void)
{
    PCIDevice *a = mig_dev(3), *b = mig_dev(3);
    AddressSpace *as = &address_space_memory;
    Error *err = NULL;
    GByteArray *out;
    char *field = NULL, *msg;

    g_assert_true(address_space_map_region(as, a->io_regions[1].mr,
                                           MSIX_BAR_ADDR, &err));
    cfg_write(a, PCI_COMMAND, PCI_COMMAND_MASTER, 2);
    cfg_write(a, PCI_INTERRUPT_LINE, 11, 1);
    cfg_write(a, 0x62, 0x8000, 2);                  /* MSI-X on */
    address_space_write_sized(as, MSIX_BAR_ADDR + 16, 0xfee00000, 4);
    address_space_write_sized(as, MSIX_BAR_ADDR + 24, 0x41, 4);
    msix_notify(a, 1);                              /* masked: pending */
    address_space_unmap_region(a->io_regions[1].mr);

    out = mig_save(a);
    g_assert_true(vmstate_load(&vmstate_pci_device, b, 1, out->data,
                               out->len, "pci-test instance 0", &err));
    g_assert_true(vmstate_equal(&vmstate_pci_device, a, b, &field));
    g_assert_true(msix_enabled(b));
    g_assert_cmpuint(b->config[PCI_INTERRUPT_LINE], ==, 11);
    g_assert_true(address_space_map_region(as, b->io_regions[1].mr,
                                           MSIX_BAR_ADDR, &err));
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 24, 4), ==,
                    0x41);
    g_assert_cmphex(address_space_read_sized(as, MSIX_BAR_ADDR + 0x800, 4),
                    ==, 1u << 1);
    address_space_unmap_region(b->io_regions[1].mr);

    /* Another table size is another device (its read-only size bits). */
    msg = mig_load(out, 4);
    g_assert_cmpstr(msg, ==, "pci-test instance 0: field 'config': byte "
                    "0x62 is 0x02, but its read-only bits are 0x03 here "
                    "(mask 0xff)");
    g_free(msg);
    g_byte_array_free(out, TRUE);

    /* A read-only byte (the capability's table offset) that differs. */
    a->config[0x64] = 0x11;
    out = mig_save(a);
    msg = mig_load(out, 3);
    g_assert_cmpstr(msg, ==, "pci-test instance 0: field 'config': byte "
                    "0x64 is 0x11, but its read-only bits are 0x01 here "
                    "(mask 0xff)");
    g_free(msg);
    g_byte_array_free(out, TRUE);
    a->config[0x64] = 0x01;

    /* A vector pending past the table. */
    out = mig_save(a);
    /* The PBA's first byte: 8 bytes and two subsection counts from the end. */
    out->data[out->len - 10] |= 1u << 5;
    msg = mig_load(out, 3);
    g_assert_cmpstr(msg, ==, "pci-test instance 0: field 'msix.pba': vector "
                    "5 is pending, the table has 3");
    g_free(msg);
    g_byte_array_free(out, TRUE);

    mig_dev_free(a);
    mig_dev_free(b);
    memory_cleanup();
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pci/migration", test_migration);
    g_test_add_func("/pci/piix3/swizzle", test_swizzle);
    g_test_add_func("/pci/piix3/route", test_route);
    g_test_add_func("/pci/msi/masking", test_msi_masking);
    g_test_add_func("/pci/msix", test_msix);
    return g_test_run();
}
