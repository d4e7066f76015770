/*
 * What the monitor needs from the other subsystems, stubbed for the
 * tests and fuzz targets that run QMP sessions without a VM
 * (tests/lib/stub-monitor.c); the state the stubs keep is here for the
 * tests to look at.
 */
#ifndef TESTS_UNIT_STUB_MONITOR_H
#define TESTS_UNIT_STUB_MONITOR_H

#include "chardev/char.h"
#include "system/runstate.h"

extern RunState stub_runstate;
extern ShutdownCause stub_shutdown;
extern ShutdownCause stub_reset;
extern int stub_powerdowns;
extern char *stub_set_value;
extern CharBackend *stub_be;        /* the last frontend attached */
extern GString *stub_chr_out;       /* what frontends wrote */

#endif
