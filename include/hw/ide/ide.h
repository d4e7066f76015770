/*
 * IDE (ATA/ATAPI) as the pc has it: the PIIX3's IDE function
 * (piix3-ide, 8086:7010 at 00:01.1) with two channels, buses "ide.0"
 * (ports 0x1f0-0x1f7, 0x3f6, IRQ 14) and "ide.1" (0x170-0x177, 0x376,
 * IRQ 15), each with a master (unit 0) and a slave (unit 1): ide-hd
 * disks and ide-cd CD-ROMs (hw/ide/).
 */
#ifndef HW_IDE_IDE_H
#define HW_IDE_IDE_H

#include <stdbool.h>

#include "qemu/error.h"

#define IDE_NUM_BUSES       2
#define IDE_NUM_UNITS       2

/*
 * The board's part: ide-hd or ide-cd devices for the -drive if=ide
 * drives (-hda.., -cdrom) on the buses of the piix3-ide it made, as
 * QEMU's pc does. A drive on a bus that does not exist is an error.
 */
bool ide_create_drives(Error **errp);

#endif
