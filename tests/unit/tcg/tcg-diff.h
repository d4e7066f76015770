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
#define DIFF_HOST_SSE3      (1u << 5)
#define DIFF_HOST_SSSE3     (1u << 6)
#define DIFF_HOST_SSE41     (1u << 7)
#define DIFF_HOST_SSE42     (1u << 8)
#define DIFF_HOST_AES       (1u << 9)
#define DIFF_HOST_PCLMUL    (1u << 10)

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
    /*
     * The x87/SSE state going in, as an FXSAVE image (64-bit layout), and
     * what is compared after (DIFF_FX_*; 0 for the integer classes,
     * which run from the default state and leave it alone).
     */
    uint8_t fx[512] __attribute__((aligned(16)));
    unsigned fx_cmp;
} DiffCase;

#define DIFF_FX_FCW     (1u << 0)
#define DIFF_FX_FSW     (1u << 1)       /* TOP, condition codes, flags */
#define DIFF_FX_FTW     (1u << 2)       /* the abridged tag word */
#define DIFF_FX_ST      (1u << 3)       /* the non-empty x87 registers */
#define DIFF_FX_MXCSR   (1u << 4)
#define DIFF_FX_XMM     (1u << 5)
#define DIFF_FX_ALL     0x3fu

/* The FXSAVE image of the state after fninit and a default MXCSR. */
void diff_fx_default(uint8_t *fx);


typedef struct DiffRand {
    uint64_t s;
} DiffRand;

uint64_t diff_rand(DiffRand *r);

/* A generator of one class of cases (the integer ISA, x87, SSE ...). */
typedef void DiffGenFn(DiffCase *c, DiffRand *r, uint64_t insn_va,
                       unsigned host, const X86Vendor *vendor, bool code32);

/*
 * Fill c with a random case for code at insn_va (the native and guest
 * address of its first byte), using only forms the host supports and
 * comparing only what the host's vendor defines; for 32-bit code
 * (compatibility mode) when code32.
 */
void diff_gen(DiffCase *c, DiffRand *r, uint64_t insn_va, unsigned host,
              const X86Vendor *vendor, bool code32);
/* The x87 class (tcg-diff-gen-x87.c). */
DiffGenFn diff_gen_x87;

/* The vector instructions: MMX, SSE .. SSE4.2 (tcg-diff-gen-sse.c). */
void diff_gen_sse(DiffCase *c, DiffRand *r, uint64_t insn_va, unsigned host,
                  const X86Vendor *vendor, bool code32);

/* --- the encoder and value pickers the generators share (tcg-diff-enc.c) --- */

/* Generating for 32-bit code (compatibility mode): no REX, no 64-bit. */
extern bool diff_m32;
extern const uint64_t diff_size_mask[4];

enum {
    MF_BASE, MF_BASE_D8, MF_BASE_D32, MF_SIB, MF_SIB_D8, MF_INDEX_D32,
    MF_RIP, MF_ABS, MF_NUM
};

typedef struct DiffOpnd {
    bool mem;
    unsigned reg;               /* modrm.reg: a register or /digit */
    unsigned rm;                /* the register operand when !mem */
    unsigned form;
    int base, index;
    unsigned scale;
    int32_t disp;
    bool a32;                   /* 67 prefix */
    uint64_t ea;
} DiffOpnd;

typedef struct DiffIns {
    uint8_t pfx[4];
    unsigned npfx;
    bool w;                     /* REX.W */
    bool force_rex;             /* a REX even with no bit set */
    bool rex_b;                 /* REX.B for a register in the opcode */
    uint8_t op[3];
    unsigned nop;
    DiffOpnd *o;                /* modrm operands, or NULL */
    uint64_t imm;
    unsigned immsize;
    uint64_t imm2;
    unsigned imm2size;
} DiffIns;

unsigned diff_rn(DiffRand *r, unsigned n);
/* Edge values and random ones, in every width. */
uint64_t diff_value(DiffRand *r);
/* An operand size: 0..3 (8..64 bits), 0..2 in 32-bit code. */
int diff_pick_size(DiffRand *r, int min);
/* A register 0..15 outside avoid. */
unsigned diff_pick_reg(DiffRand *r, uint32_t avoid);
void diff_poke(DiffCase *c, uint64_t addr, uint64_t value, unsigned size);
void diff_case_init(DiffCase *c, DiffRand *r, const char *name);
/*
 * A memory operand of size bytes in the data area: an addressing form,
 * base and index registers (outside avoid and never rsp) whose values
 * make the address come out right.
 */
void diff_pick_mem(DiffCase *c, DiffRand *r, DiffOpnd *o, unsigned size,
                   uint32_t avoid, unsigned align);
void diff_put(DiffCase *c, uint8_t b);
void diff_put_n(DiffCase *c, uint64_t v, unsigned n);
/* Append one instruction; va is the address of c->code[0]. */
void diff_emit(DiffCase *c, uint64_t va, const DiffIns *in);
/* Operand-size prefix and REX.W of a size (0..3 = 8..64 bits). */
void diff_size_prefix(DiffIns *in, DiffRand *r, int sz);
/* The register or memory operand rm: memory half of the time. */
void diff_pick_rm(DiffCase *c, DiffRand *r, DiffOpnd *o, int sz,
                  uint32_t avoid, bool allow_mem);

#endif
