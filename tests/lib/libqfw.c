/*
 * fw_cfg through the qtest protocol: the file directory and whole files,
 * read a byte at a time from the data port as a firmware without DMA
 * would.
 */
#include <string.h>

#include <glib.h>

#include "hw/nvram/fw_cfg.h"
#include "libqfw.h"

static void qfw_read(QTestState *s, void *buf, size_t len)
{
    uint8_t *p = buf;

    for (size_t i = 0; i < len; i++) {
        p[i] = qtest_inb(s, FW_CFG_IO_DATA);
    }
}

int64_t qfw_cfg_find_file(QTestState *s, const char *name, uint16_t *select)
{
    uint32_t count;

    qtest_outw(s, FW_CFG_IO_BASE, FW_CFG_FILE_DIR);
    qfw_read(s, &count, sizeof(count));
    count = GUINT32_FROM_BE(count);
    for (uint32_t i = 0; i < count; i++) {
        struct {
            uint32_t size;
            uint16_t select;
            uint16_t reserved;
            char name[FW_CFG_MAX_FILE_PATH];
        } f;

        qfw_read(s, &f, sizeof(f));
        if (!strncmp(f.name, name, sizeof(f.name))) {
            *select = GUINT16_FROM_BE(f.select);
            return GUINT32_FROM_BE(f.size);
        }
    }
    return -1;
}

uint8_t *qfw_cfg_load_file(QTestState *s, const char *name, size_t *len)
{
    uint16_t select;
    int64_t size = qfw_cfg_find_file(s, name, &select);
    uint8_t *buf;

    if (size < 0) {
        return NULL;
    }
    buf = g_malloc0(size + 1);
    qtest_outw(s, FW_CFG_IO_BASE, select);
    qfw_read(s, buf, size);
    *len = size;
    return buf;
}
