/*
 * The command line, parsed into a VmConfig (system/cmdline.c).
 */
#ifndef SYSTEM_CMDLINE_H
#define SYSTEM_CMDLINE_H

#include "qemu/error.h"
#include "system/vm-config.h"

/*
 * Check every word of argv against the option table, then handle each
 * option into *cfg (which vm_config_init() prepared). -help, -version
 * and "help" arguments print and exit(0). On error the location of the
 * offending option is set for error_report.
 */
bool cmdline_parse(int argc, char **argv, VmConfig *cfg, Error **errp);

#endif
