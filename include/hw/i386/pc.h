/*
 * The PC board's RAM layout: RAM below the 4 GiB PCI hole and the rest
 * above 4 GiB, as QEMU's i440FX machine lays it out (and as KVM slots
 * and the e820 map use it).
 */
#ifndef HW_I386_PC_H
#define HW_I386_PC_H

#include <stdint.h>

#define PC_4GIB             0x100000000ULL
/* Guests with at least this much RAM get the hole from 3 GiB up. */
#define PC_LOWMEM_LIMIT     0xe0000000ULL
#define PC_LOWMEM_ALIGNED   0xc0000000ULL

typedef struct PCRamLayout {
    uint64_t below_4g;          /* bytes at [0, below_4g) */
    uint64_t above_4g;          /* bytes at [4 GiB, 4 GiB + above_4g) */
} PCRamLayout;

PCRamLayout pc_ram_layout(uint64_t ram_size);

#endif
