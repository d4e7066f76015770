/*
 * The HPET (IA-PC HPET specification 1.0a) as QEMU's pc has it: one
 * block of timers at 0xfed00000, its main counter at 100 MHz. What the
 * board, the ACPI tables and the qtest share.
 */
#ifndef HW_TIMER_HPET_H
#define HW_TIMER_HPET_H

#define HPET_BASE               0xfed00000u
#define HPET_LEN                0x400
#define HPET_PERIOD_FS          10000000u   /* 10 ns: 100 MHz */
#define HPET_DEFAULT_TIMERS     3
#define HPET_MAX_TIMERS         32
/* IOAPIC pins a timer may be routed to on pc: pin 2 only, as QEMU. */
#define HPET_PC_INTCAP          0x4u
/* The board's GPIO outputs: one per GSI (0-15 are the ISA lines). */
#define HPET_NUM_IRQ_ROUTES     24
/*
 * Inputs "legacy", as QEMU's: the PIT's output (0) and the RTC's (1)
 * pass through to IRQ 0 and IRQ 8 unless legacy replacement is on.
 * Output "pit-enable": low while legacy replacement silences the PIT.
 */
#define HPET_LEGACY_PIT_INT     0
#define HPET_LEGACY_RTC_INT     1

/* General registers */
#define HPET_ID                 0x000       /* capabilities and ID */
#define HPET_PERIOD             0x004       /* its upper half */
#define HPET_CFG                0x010
#define HPET_STATUS             0x020       /* interrupt status */
#define HPET_COUNTER            0x0f0
/* Timer n's registers at HPET_TN_BASE + n * HPET_TN_SIZE */
#define HPET_TN_BASE            0x100
#define HPET_TN_SIZE            0x20
#define HPET_TN_CFG             0x00
#define HPET_TN_CMP             0x08
#define HPET_TN_ROUTE           0x10        /* FSB route (no FSB here) */

/* Capabilities: revision 1, 64-bit counter, legacy replacement. */
#define HPET_ID_REV             0x01u
#define HPET_ID_NUM_TIM_SHIFT   8
#define HPET_ID_COUNT_SIZE_CAP  (1u << 13)
#define HPET_ID_LEG_RT_CAP      (1u << 15)
#define HPET_ID_VENDOR          (0x8086u << 16)

#define HPET_CFG_ENABLE         0x1u
#define HPET_CFG_LEGACY         0x2u

#define HPET_TN_TYPE_LEVEL      (1u << 1)
#define HPET_TN_ENABLE          (1u << 2)
#define HPET_TN_PERIODIC        (1u << 3)
#define HPET_TN_PERIODIC_CAP    (1u << 4)
#define HPET_TN_SIZE_CAP        (1u << 5)   /* 64-bit comparator */
#define HPET_TN_SETVAL          (1u << 6)
#define HPET_TN_32BIT           (1u << 8)
#define HPET_TN_INT_ROUTE_SHIFT 9
#define HPET_TN_INT_ROUTE_MASK  (0x1fu << HPET_TN_INT_ROUTE_SHIFT)
#define HPET_TN_FSB_ENABLE      (1u << 14)
#define HPET_TN_FSB_CAP         (1u << 15)
/* The bits of a timer's configuration a guest writes. */
#define HPET_TN_CFG_WRITE_MASK  (HPET_TN_TYPE_LEVEL | HPET_TN_ENABLE | \
                                 HPET_TN_PERIODIC | HPET_TN_SETVAL | \
                                 HPET_TN_32BIT | HPET_TN_INT_ROUTE_MASK)

#endif
