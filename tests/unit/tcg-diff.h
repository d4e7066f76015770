/*
 * The host differential tester of the software CPU: a case is one
 * instruction form (or a short sequence) with its input registers,
 * flags and memory; test-tcg-diff.c runs it natively and in the
 * interpreter and compares; tcg-diff-gen.c makes random cases.
 *
 * Both runs see the same virtual addresses: the native code page and
 * the scratch memory are mapped at fixed addresses below 2 GiB (so
 * 32-bit address forms work natively too), and the guest maps the same
 * virtual pages with its page tables.
 */
#ifndef TESTS_UNIT_TCG_DIFF_H
#define TESTS_UNIT_TCG_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "target/i386/vendor.h"

#define DIFF_CODE_VA    0x60000000ull
#define DIFF_SCR_VA     0x60010000ull
#define DIFF_SCR_SIZE   0x4000u
/* Memory operands land in [DIFF_DATA, DIFF_DATA + DIFF_DATA_SIZE). */
#define DIFF_DATA       (DIFF_SCR_VA + 0x400)
#define DIFF_DATA_SIZE  0x1800u
/* The stack pointer at the start of a case. */
#define DIFF_STACK      (DIFF_SCR_VA + 0x3000)

/* Host features some forms need. */
#define DIFF_HOST_POPCNT    (1u << 0)
#define DIFF_HOST_LZCNT     (1u << 1)
#define DIFF_HOST_TZCNT     (1u << 2)
#define DIFF_HOST_MOVBE     (1u << 3)
#define DIFF_HOST_CX16      (1u << 4)

typedef struct DiffCase {
    const char *name;
    uint8_t code[64];
    unsigned len;
    uint64_t regs[16];
    uint32_t flags;             /* arithmetic flags and DF going in */
    uint32_t flag_mask;         /* flags the architecture defines after */
    uint16_t reg_mask;          /* registers whose results are defined */
    unsigned npoke;             /* memory set up for the case */
    struct {
        uint64_t addr, value;
        unsigned size;
    } poke[4];
} DiffCase;

typedef struct DiffRand {
    uint64_t s;
} DiffRand;

uint64_t diff_rand(DiffRand *r);

/*
 * Fill c with a random case for code at insn_va (the native and guest
 * address of its first byte), using only forms the host supports and
 * comparing only what the host's vendor defines; for 32-bit code
 * (compatibility mode) when code32.
 */
void diff_gen(DiffCase *c, DiffRand *r, uint64_t insn_va, unsigned host,
              const X86Vendor *vendor, bool code32);

#endif
