/*
 * The Internet checksum (RFC 1071): a 16-bit one's-complement sum of
 * big-endian words, an odd last byte as the high half of a word. NICs
 * finish or insert the checksums a guest leaves to the device.
 */
#ifndef NET_CHECKSUM_H
#define NET_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* sum plus the words of buf[0, len), not yet folded. */
uint32_t net_checksum_add(uint32_t sum, const uint8_t *buf, size_t len);
/* The folded, inverted checksum of sum. */
uint16_t net_checksum_finish(uint32_t sum);

#endif
