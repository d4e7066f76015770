/*
 * What a block device does about a failed request beyond telling the
 * guest (hw/block/block-qmp.c): QEMU's BLOCK_IO_ERROR event, and for
 * action stop the io-status and a stop in run state io-error.
 */
#ifndef HW_BLOCK_BLOCK_QMP_H
#define HW_BLOCK_BLOCK_QMP_H

#include <stdbool.h>

#include "block/block.h"

/* error: a positive errno; action from blk_get_error_action(). */
void blk_error_action(BlockBackend *blk, BlockErrorAction action,
                      bool is_read, int error);

/*
 * A removable drive's tray moved (the guest's START STOP UNIT, or QMP):
 * QEMU's DEVICE_TRAY_MOVED event, the device named by its id or path.
 */
void blk_tray_moved_event(BlockBackend *blk, bool open);

#endif
