/*
 * fw_cfg files through the qtest protocol (the I/O ports of the pc).
 */
#ifndef LIBQFW_H
#define LIBQFW_H

#include <stddef.h>
#include <stdint.h>

#include "libqtest.h"

/* The size of file name and its selector, or -1 when there is none. */
int64_t qfw_cfg_find_file(QTestState *s, const char *name, uint16_t *select);
/* The file's bytes (one more, 0, past the end; g_free) or NULL. */
uint8_t *qfw_cfg_load_file(QTestState *s, const char *name, size_t *len);

#endif
