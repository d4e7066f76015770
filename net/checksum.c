/* The Internet checksum (include/net/checksum.h). */
#include "net/checksum.h"

uint32_t net_checksum_add(uint32_t sum, const uint8_t *buf, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        sum += buf[i] << 8 | buf[i + 1];
        /* Fold early: a 64 KiB packet could carry out of 32 bits. */
        if (sum & 0x80000000u) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
    }
    if (i < len) {
        sum += buf[i] << 8;
    }
    return sum;
}

uint16_t net_checksum_finish(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum & 0xffff;
}
