/*
 * The MC146818 real-time clock and CMOS memory of the PC (ports 0x70,
 * 0x71, ISA IRQ 8).
 */
#ifndef HW_RTC_MC146818RTC_H
#define HW_RTC_MC146818RTC_H

#include "hw/qdev.h"
#include "hw/rtc/mc146818rtc-regs.h"

/*
 * The board hands the device -rtc's settings as properties: "x-clock"
 * (host, rt or vm) and "x-start", the guest's starting second since the
 * epoch (rtc_options_start(), include/system/vm-config.h), or
 * RTC_START_NOW for the host's clock at realize.
 */
#define RTC_START_NOW INT64_MIN

/* Store a CMOS byte (the board's: memory sizes, CPU count). */
void rtc_set_memory(DeviceState *rtc, int addr, int val);

#endif
