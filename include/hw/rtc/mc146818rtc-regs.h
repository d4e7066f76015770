/*
 * The MC146818 RTC's ports, IRQ and register constants: what the device
 * (hw/rtc/mc146818rtc.c) implements and what a guest or a test
 * (tests/qtest/rtc-test.c) programs, with no device internals.
 */
#ifndef HW_RTC_MC146818RTC_REGS_H
#define HW_RTC_MC146818RTC_REGS_H

#define RTC_ISA_BASE        0x70
#define RTC_ISA_IRQ         8

/* Register indexes. */
#define RTC_SECONDS         0x00
#define RTC_SECONDS_ALARM   0x01
#define RTC_MINUTES         0x02
#define RTC_MINUTES_ALARM   0x03
#define RTC_HOURS           0x04
#define RTC_HOURS_ALARM     0x05
#define RTC_DAY_OF_WEEK     0x06
#define RTC_DAY_OF_MONTH    0x07
#define RTC_MONTH           0x08
#define RTC_YEAR            0x09
#define RTC_REG_A           0x0a
#define RTC_REG_B           0x0b
#define RTC_REG_C           0x0c
#define RTC_REG_D           0x0d
#define RTC_CENTURY         0x32
#define RTC_IBM_PS2_CENTURY 0x37

#define REG_A_UIP           0x80

#define REG_B_SET           0x80
#define REG_B_PIE           0x40
#define REG_B_AIE           0x20
#define REG_B_UIE           0x10
#define REG_B_SQWE          0x08
#define REG_B_DM            0x04
#define REG_B_24H           0x02
#define REG_B_DSE           0x01

#define REG_C_IRQF          0x80
#define REG_C_PF            0x40
#define REG_C_AF            0x20
#define REG_C_UF            0x10

#define REG_D_VRT           0x80

#define RTC_ALARM_DONT_CARE 0xc0

#endif
