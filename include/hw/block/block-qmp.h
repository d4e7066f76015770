/*
 * QMP query-block (hw/block/block-qmp.c): the backends and the devices
 * they are attached to.
 */
#ifndef HW_BLOCK_BLOCK_QMP_H
#define HW_BLOCK_BLOCK_QMP_H

void block_qmp_register(void);

#endif
