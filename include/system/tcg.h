/*
 * The software CPU accelerator (accel/tcg) as the machine sees it.
 *
 * The board builds in this order (hw/i386/pc_piix.c): RAM, then
 * vcpus_create() (system/cpus.h: vCPUs with their local APICs, and the
 * thread that runs them, parked), the e820 map (vcpus_amd_ht_hole()),
 * devices, the kernel loader, and vcpus_reset(). vm_start() lets the
 * thread run.
 *
 * One host thread runs every vCPU in turn (see accel/tcg/tcg-cpus.c).
 */
#ifndef SYSTEM_TCG_H
#define SYSTEM_TCG_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

struct X86BootState;

/* -accel tcg,tb-size= default, in MiB. */
#define TCG_TB_SIZE_DEFAULT_MIB 32
/* Instructions a vCPU runs before the next one gets its turn. */
#define TCG_QUANTUM             100000

/* The vCPUs (accel/tcg/tcg-cpus.c), through system/cpus.h. */
struct AccelOps;
extern const struct AccelOps tcg_accel_ops;


#endif
