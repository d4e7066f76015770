/* QEMU's fw_cfg, I/O port interface: select a key, then read bytes. */
#include "guest.h"

#define FW_CFG_PORT_SEL     0x510
#define FW_CFG_PORT_DATA    0x511

void fw_cfg_read(uint16_t key, void *buf, size_t len)
{
    uint8_t *p = buf;

    outw(FW_CFG_PORT_SEL, key);
    for (size_t i = 0; i < len; i++) {
        p[i] = inb(FW_CFG_PORT_DATA);
    }
}

bool fw_cfg_present(void)
{
    char sig[4];

    fw_cfg_read(FW_CFG_SIGNATURE, sig, sizeof(sig));
    return !memcmp(sig, "QEMU", 4);
}
