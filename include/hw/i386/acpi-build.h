/*
 * ACPI tables of the pc machine, built as plain bytes: FACS, DSDT, FADT,
 * MADT, HPET (when there is one), RSDT, XSDT and the RSDP, laid out in one blob that the board
 * copies to guest-physical `base`. Nothing here touches guest memory or
 * devices, so unit tests check the bytes directly.
 *
 * Blob layout (offsets from base, each table 16-byte aligned):
 *   0x000  FACS (64 bytes; base must be 64-byte aligned, the FACS
 *          belongs in e820 ACPI NVS memory, the rest in ACPI data)
 *   ...    DSDT, FADT, MADT, [HPET], RSDT, XSDT
 *   *rsdp_offset  RSDP (ACPI_RSDP_SIZE bytes, 16-byte aligned): it holds
 *          absolute addresses, so the same bytes may also be copied to a
 *          16-byte boundary in 0xE0000-0xFFFFF for guests that scan there.
 *
 * The OEM ID and table ID are QEMU's ("BOCHS ", "BXPC    "): guests and
 * tools that recognise a QEMU virtual machine by them keep doing so.
 */
#ifndef HW_I386_ACPI_BUILD_H
#define HW_I386_ACPI_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#define ACPI_BUILD_OEM_ID           "BOCHS "
#define ACPI_BUILD_OEM_TABLE_ID     "BXPC    "
#define ACPI_BUILD_CREATOR_ID       "BXPC"

#define ACPI_RSDP_SIZE              36
#define ACPI_FACS_SIZE              64
#define ACPI_BUILD_ALIGN            64      /* what base must be aligned to */

#define ACPI_LAPIC_ADDR             0xfee00000u
/* The MADT's interrupt source override: ISA IRQ 0 (the PIT) is GSI 2. */
#define ACPI_PC_IRQ0_GSI            2
#define ACPI_IOAPIC_ADDR            0xfec00000u

typedef struct AcpiBuildConfig {
    unsigned ncpus;                 /* at least 1 */
    const uint32_t *apic_ids;       /* ncpus entries, vCPU order */
    uint16_t pm_io_base;            /* the acpi-pm device's iobase */
    uint8_t sci_irq;                /* ISA IRQ of the SCI (9 on a PC) */
    uint8_t ioapic_id;              /* KVM's in-kernel IOAPIC resets to 0 */
    uint16_t reset_port;            /* FADT reset register; 0: none */
    /*
     * ISA IRQs that PCI devices share (QEMU declares 5, 9, 10, 11):
     * declared level-triggered, active high in the MADT. The SCI's IRQ
     * always is.
     */
    uint16_t level_irq_mask;
    bool has_i8042;                 /* FADT IA-PC boot flag "8042" */
    /*
     * The PCI root bridge \_SB.PCI0: its 32-bit window [pci_hole_start,
     * pci_hole_end), its 64-bit one (none when end <= start), and the
     * ISA IRQ of each PIRQ link LNKA-LNKD.
     */
    bool has_pci;
    uint64_t pci_hole_start, pci_hole_end;
    uint64_t pci_hole64_start, pci_hole64_end;
    uint8_t pirq_irqs[4];
    /*
     * The ISA pvpanic device: Device (PEVT) { _HID "QEMU0001", _CRS its
     * port, _STA present }, which Linux's pvpanic driver binds to.
     */
    bool has_pvpanic;
    uint16_t pvpanic_port;
    /*
     * The HPET at 0xfed00000: its table (after the MADT in the RSDT and
     * XSDT) and Device (HPET), PNP0103, in \_SB.
     */
    bool has_hpet;
} AcpiBuildConfig;

/*
 * Build every table for placement at guest-physical base (a multiple of
 * ACPI_BUILD_ALIGN, below 4 GiB). Returns the blob and stores the
 * RSDP's offset in it in *rsdp_offset. The caller frees the blob with
 * g_byte_array_unref().
 */
GByteArray *acpi_build_tables(const AcpiBuildConfig *cfg, uint64_t base,
                              uint64_t *rsdp_offset);

/* Sum of len bytes modulo 256 (0 for a table with a correct checksum). */
uint8_t acpi_checksum(const uint8_t *data, size_t len);

#endif
