/*
 * The software CPU accelerator (accel/tcg) as the machine sees it.
 *
 * The board builds in this order (hw/i386/pc_piix.c): RAM, then
 * tcg_cpus_create() (vCPUs with their local APICs, and the thread that
 * runs them, parked), the e820 map (tcg_cpus_amd_ht_hole()), devices,
 * the kernel loader, and tcg_cpus_reset(). vm_start() lets the thread
 * run.
 *
 * One host thread runs every vCPU in turn (see accel/tcg/tcg-cpus.c).
 */
#ifndef SYSTEM_TCG_H
#define SYSTEM_TCG_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/boards.h"
#include "qemu/error.h"

struct X86BootState;

/* -accel tcg,tb-size= default, in MiB. */
#define TCG_TB_SIZE_DEFAULT_MIB 32
/* Instructions a vCPU runs before the next one gets its turn. */
#define TCG_QUANTUM             100000

/* True once the tcg accelerator runs this VM. */
bool tcg_enabled(void);

/*
 * Create ms->smp_cpus vCPUs (model and features from ms->cfg->cpu,
 * default qemu64; topology from ms->cfg->smp) with their APICs, and the
 * vCPU thread, parked until the VM runs. Registers the pause/resume
 * hooks and query-cpus-fast.
 */
bool tcg_cpus_create(MachineState *ms, Error **errp);
/*
 * Reset every vCPU: vCPU 0 starts in boot (NULL: at the reset vector),
 * the others wait for INIT/SIPI. Decoded code is dropped (the loader
 * wrote RAM). Call with the vCPUs paused.
 */
void tcg_cpus_reset(const struct X86BootState *boot);
void tcg_cpus_cleanup(void);
/*
 * The CPU model is an AMD one with 40 physical address bits (QEMU's TCG
 * models are): the PC then reserves the HyperTransport range below
 * 1 TiB in its e820 map, as QEMU does.
 */
bool tcg_cpus_amd_ht_hole(void);

/*
 * Guest RAM [addr, addr + len) was written other than by a vCPU (DMA,
 * qtest, a loader): decoded code of those pages must go. Any thread (the
 * block cache locks itself).
 */
void tcg_ram_written(uint64_t addr, uint64_t len);

#endif
