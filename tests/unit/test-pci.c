/*
 * Unit tests of the PCI pieces that are plain functions: the PIIX3's
 * INTx swizzle and PIRQ routing (hw/pci-host/piix3.c).
 */
#include <glib.h>

#include "hw/pci-host/piix3.h"
#include "hw/pci/pci.h"

/* Slot S pin P drives PIRQ (S + P) mod 4: the table QEMU's _PRT lists. */
static void test_swizzle(void)
{
    for (int slot = 0; slot < PCI_SLOT_MAX; slot++) {
        for (int pin = 0; pin < PCI_NUM_PINS; pin++) {
            for (int fn = 0; fn < PCI_FUNC_MAX; fn++) {
                g_assert_cmpint(piix3_pirq_of(PCI_DEVFN(slot, fn), pin), ==,
                                (slot + pin) % 4);
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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pci/piix3/swizzle", test_swizzle);
    g_test_add_func("/pci/piix3/route", test_route);
    return g_test_run();
}
