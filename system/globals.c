/*
 * Process-wide settings; set while parsing the command line, read by
 * the rest of the emulator.
 */
#include "system/system.h"

MlockState mlock_state = MLOCK_OFF;
bool enable_cpu_pm;
const char *qemu_name;
bool qemu_uuid_set;
uint8_t qemu_uuid[16];
bool autostart = true;
