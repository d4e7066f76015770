/* The Internet checksum (include/net/checksum.h). */
#include "net/checksum.h"

static uint32_t word(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

uint32_t net_checksum_add(uint32_t sum, const uint8_t *buf, size_t len)
{
    /* 64 bits cannot carry out: no folding inside the loops. */
    uint64_t s = sum;
    size_t i = 0;

    /* Four words a round: fewer loop tests (and fuzzer trace calls). */
    for (; i + 8 <= len; i += 8) {
        s += word(buf + i) + word(buf + i + 2) + word(buf + i + 4) +
             word(buf + i + 6);
    }
    for (; i + 1 < len; i += 2) {
        s += word(buf + i);
    }
    if (i < len) {
        s += buf[i] << 8;
    }
    while (s >> 16) {
        s = (s & 0xffff) + (s >> 16);
    }
    return s;
}

uint16_t net_checksum_finish(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum & 0xffff;
}
