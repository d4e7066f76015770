/*
 * acpi-pm: the ACPI power-management registers of a PIIX4-style PC (PM1
 * event and control blocks, the PM timer, a small GPE0 block) and the
 * PIIX3 reset control register at 0xcf9 that the FADT names as its reset
 * register. The FADT built by hw/i386/acpi-build.c describes exactly
 * this layout.
 */
#ifndef HW_ACPI_PM_H
#define HW_ACPI_PM_H

#include "system/memory.h"

typedef struct DeviceState DeviceState;

#define ACPI_PM_DEFAULT_IOBASE  0x600   /* where QEMU's pc puts PIIX4 PM */
#define ACPI_PM_DEFAULT_SCI_IRQ 9

/* Offsets of the register blocks from iobase, and their lengths. */
#define ACPI_PM1_EVT_OFFSET     0x00
#define ACPI_PM1_EVT_LEN        4       /* PM1_STS, PM1_EN: 16 bits each */
#define ACPI_PM1_CNT_OFFSET     0x04
#define ACPI_PM1_CNT_LEN        2
#define ACPI_PM_TMR_OFFSET      0x08
#define ACPI_PM_TMR_LEN         4
#define ACPI_GPE0_OFFSET        0x0c
#define ACPI_GPE0_LEN           4       /* GPE0_STS, GPE0_EN: 16 bits each */
#define ACPI_PM_IO_SIZE         0x10

/* PM1_STS / PM1_EN bits. */
#define ACPI_PM1_TMR_STS        (1u << 0)
#define ACPI_PM1_GBL_STS        (1u << 5)
#define ACPI_PM1_PWRBTN_STS     (1u << 8)
#define ACPI_PM1_RTC_STS        (1u << 10)
#define ACPI_PM1_WAK_STS        (1u << 15)
#define ACPI_PM1_TMR_EN         (1u << 0)
#define ACPI_PM1_GBL_EN         (1u << 5)
#define ACPI_PM1_PWRBTN_EN      (1u << 8)
#define ACPI_PM1_RTC_EN         (1u << 10)

/* PM1_CNT bits. */
#define ACPI_PM1_CNT_SCI_EN     (1u << 0)
#define ACPI_PM1_CNT_BM_RLD     (1u << 1)
#define ACPI_PM1_CNT_GBL_RLS    (1u << 2)
#define ACPI_PM1_CNT_SLP_TYP_SHIFT 10
#define ACPI_PM1_CNT_SLP_TYP_MASK  (7u << ACPI_PM1_CNT_SLP_TYP_SHIFT)
#define ACPI_PM1_CNT_SLP_EN     (1u << 13)

/*
 * SLP_TYP of soft-off, the value in the DSDT's _S5 package. PIIX4 and
 * QEMU use 0; there is no _S3/_S4, so no other sleep type is offered.
 */
#define ACPI_PM_SLP_TYP_S5      0

/*
 * The PM timer: 3.579545 MHz, 24 bits (FADT TMR_VAL_EXT clear); TMR_STS
 * is set each time bit 23 of the count changes.
 */
#define ACPI_PM_TIMER_FREQUENCY 3579545
#define ACPI_PM_TIMER_BITS      24

/* PIIX3 reset control register: bit 2 (RCPU) resets, bit 1 picks hard. */
#define ACPI_PM_RESET_PORT      0xcf9
#define ACPI_PM_RESET_VALUE     0x06

/*
 * Press the power button: set PWRBTN_STS and raise the SCI if enabled.
 * The device registers this as the machine's powerdown handler when it
 * is realized, so QMP system_powerdown reaches it.
 */
void acpi_pm_power_button(DeviceState *dev);
/*
 * The reset control register's ops (opaque: the acpi-pm device), for a
 * host bridge that decodes its port itself (i440fx_host_set_cf9()).
 */
extern const MemoryRegionOps acpi_pm_reset_ops;

#endif
