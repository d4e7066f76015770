/*
 * The decoder's working state, shared by decode.c (prefixes, modrm,
 * the one-byte map, blocks) and decode-0f.c (the two-byte map).
 */
#ifndef TARGET_I386_DECODE_H
#define TARGET_I386_DECODE_H

#include <setjmp.h>

#include "target/i386/tcg/ops-tables.h"

/* Legacy prefixes seen (Dec.prefix). */
#define P_66    0x01u
#define P_67    0x02u
#define P_F2    0x04u
#define P_F3    0x08u
#define P_LOCK  0x10u
#define P_REX   0x20u

/* REX bits (Dec.rex). */
#define REX_B   0x1u
#define REX_X   0x2u
#define REX_R   0x4u
#define REX_W   0x8u

/*
 * Optional instructions, decoded only when the vCPU's CPUID offers them
 * (otherwise #UD, or the older meaning: bsf/bsr for tzcnt/lzcnt).
 */
#define ISA_POPCNT  (1u << 0)       /* CPUID.1:ECX[23] */
#define ISA_MOVBE   (1u << 1)       /* CPUID.1:ECX[22] */
#define ISA_CX16    (1u << 2)       /* CPUID.1:ECX[13] */
#define ISA_LZCNT   (1u << 3)       /* CPUID.80000001h:ECX[5] (ABM) */
#define ISA_LAHF64  (1u << 4)       /* CPUID.80000001h:ECX[0] */
#define ISA_RDTSCP  (1u << 5)       /* CPUID.80000001h:EDX[27] */
#define ISA_TZCNT   (1u << 6)       /* CPUID.7.0:EBX[3] (BMI1) */
#define ISA_MMX     (1u << 7)       /* CPUID.1:EDX[23] */
#define ISA_FXSR    (1u << 8)       /* CPUID.1:EDX[24] */
#define ISA_SSE     (1u << 9)       /* CPUID.1:EDX[25] */
#define ISA_SSE2    (1u << 10)      /* CPUID.1:EDX[26] */
#define ISA_SSE3    (1u << 11)      /* CPUID.1:ECX[0] */
#define ISA_SSSE3   (1u << 12)      /* CPUID.1:ECX[9] */
#define ISA_SSE41   (1u << 13)      /* CPUID.1:ECX[19] */
#define ISA_SSE42   (1u << 14)      /* CPUID.1:ECX[20] */
#define ISA_XSAVE   (1u << 15)      /* CPUID.1:ECX[26] */
#define ISA_XSAVEOPT (1u << 16)     /* CPUID.0Dh.1:EAX[0] */
#define ISA_PCLMUL  (1u << 17)      /* CPUID.1:ECX[1] */
#define ISA_AES     (1u << 18)      /* CPUID.1:ECX[25] */
#define ISA_ALL     0x7ffffu

/* What decoding one instruction asks of the block (Dec.end). */
enum { DEC_GO_ON, DEC_END_BLOCK };

typedef struct Dec {
    CPUX86State *env;
    DecodedBlock *db;
    jmp_buf abort;          /* leave the instruction: DEC_ABORT_* */

    /* Code fetch: the pages of the block (linear) and their host copy. */
    uint64_t page_lin[2];
    const uint8_t *page_host[2];
    unsigned npages;
    bool first;             /* decoding the block's first instruction */
    uint64_t pc;            /* rip of the instruction */
    uint64_t lin;           /* its linear address */
    unsigned pos;           /* bytes fetched so far */

    /* The mode. */
    bool code64;
    int def_ot;             /* OT_W or OT_L */
    int def_aot;            /* OT_W, OT_L or OT_Q */
    unsigned stk;           /* STK_* of this mode */
    bool addseg;            /* DS/ES/SS bases may be non-zero */
    unsigned isa;           /* ISA_* the vCPU offers */

    /* The instruction. */
    unsigned prefix;
    unsigned rex;
    int seg_override;       /* -1 for none */
    int ot, aot;
    bool lock_ok;           /* a lock prefix is allowed here */
    bool riprel;
    bool chain;             /* a direct branch: EA_CHAIN */
    int follow;             /* jmp/call rel: BR_*_IN to go on at imm */
    int fuse;               /* an ALU op a jcc may pair with: DEC_FUSE() */
    int jcc;                /* a jcc: its condition */
    const X86Handler *handler;  /* the row of the handler it chose */
    int end;                /* DEC_* */

    /* modrm */
    int mod, regf, rmf;     /* rmf includes REX.B; regf REX.R */
} Dec;

enum { DEC_ABORT_TOO_LONG = 1, DEC_ABORT_CROSS };

/* FUSE_* operation, F_* form and size of an instruction, for pairing. */
#define DEC_FUSE(op, form, ot)  ((op) << 6 | (form) << 2 | (ot))

/*
 * The decoder's passes over a block. h[i] is the row of db->insns[i]'s
 * handler (NULL for one the passes know nothing of: x87, vector, #UD,
 * the block's end); a pass that gives an Insn another version of its
 * handler puts that version's row in h[i] too.
 */
/* Flag-less handlers where a block's flags are dead (decode-flags.c). */
void x86_dead_flags(DecodedBlock *db, const X86Handler **h);
/* The address form's version of memory handlers (decode-ea.c). */
void x86_ea_forms(DecodedBlock *db, const X86Handler **h);
/*
 * The versions without the rip store where the next instruction does
 * not read rip (decode-rip.c); after the other passes and with the
 * block's end in place (h[db->n] NULL).
 */
void x86_rip_stores(DecodedBlock *db, const X86Handler **h);

/* Make in run row h's handler, and keep the row for the passes. */
static inline void dec_handler(Dec *d, Insn *in, const X86Handler *h)
{
    in->fn = h->fn;
    d->handler = h;
}

uint8_t dec_u8(Dec *d);
uint16_t dec_u16(Dec *d);
uint32_t dec_u32(Dec *d);
/* The immediate of operand size ot (imm32 sign-extended for OT_Q). */
uint64_t dec_imm(Dec *d, int ot);

/* Read modrm and the address it names into in (eaf, base, ...). */
void dec_modrm(Dec *d, Insn *in);
/* The register operand encoding of register n at size ot. */
unsigned dec_reg(Dec *d, int ot, unsigned n);
/* in->reg and in->rm from the modrm fields at size ot. */
void dec_regs(Dec *d, Insn *in, int ot);
/* The operand size of instructions that default to 64 bits in 64-bit
 * code (push, pop, near branches). */
int dec_ot64(Dec *d);

/* An invalid encoding: #UD when reached; the block ends. */
void dec_ud(Dec *d, Insn *in);

/*
 * The opcode maps are tables of rows, one per opcode (decode.c: the
 * one-byte map, decode-0f.c: the two-byte map). A row names the form
 * that reads the operands and picks the handler, the handler (or the
 * table of its versions by operand size) where the form does not know
 * it, the form's argument, the operand size and the facts that hold
 * for every encoding of the opcode.
 */
typedef struct DecRow DecRow;
typedef void DecForm(Dec *d, Insn *in, const DecRow *r, uint8_t b);

/* Operand size of a row (DecRow.size). */
enum {
    DEC_SZ_V,       /* the operand size: 16, 32 or 64 bits */
    DEC_SZ_B,       /* a byte */
    DEC_SZ_64,      /* 64 bits in 64-bit code unless 66 (dec_ot64) */
    DEC_SZ_IO,      /* 16 or 32 bits (in, out, ins, outs) */
};
#define DEC_NO64    0x01u   /* #UD in 64-bit code */
#define DEC_END     0x02u   /* ends the block */

struct DecRow {
    DecForm *form;          /* NULL: not in this map */
    const X86Handler *fns;  /* the handler, or its versions [OT_*] */
    uint8_t arg;            /* the form's argument (see the form) */
    uint8_t size;           /* DEC_SZ_* */
    uint8_t flags;          /* DEC_NO64, DEC_END */
};

/* Decode opcode b by its row r; false if the map has no such row. */
bool dec_row(Dec *d, Insn *in, const DecRow *r, uint8_t b);
/* The operand size row r names. */
int dec_row_ot(Dec *d, const DecRow *r);
/*
 * Forms both maps use: the row's handler without operands (dec_fixed);
 * a stack instruction with the row's handler and its segment (push/pop
 * sreg) as the argument (dec_stack); jcc, the argument 0 for rel8 and
 * 1 for rel16/32 (dec_jcc); Gv, M with the row's handler and its
 * argument in aux, the segment of lds, les, lss, lfs, lgs (dec_gv_m).
 */
void dec_fixed(Dec *d, Insn *in, const DecRow *r, uint8_t b);
void dec_stack(Dec *d, Insn *in, const DecRow *r, uint8_t b);
void dec_jcc(Dec *d, Insn *in, const DecRow *r, uint8_t b);
void dec_gv_m(Dec *d, Insn *in, const DecRow *r, uint8_t b);

/* The two-byte map (0f xx), after the 0f. */
void dec_0f(Dec *d, Insn *in, uint8_t b);

/* The x87 escapes d8..df (decode-x87.c). */
void dec_x87(Dec *d, Insn *in, uint8_t b);
/*
 * The vector instructions of the two-byte map (MMX, SSE and later),
 * after the 0f: the opcodes dec_0f() does not decode itself
 * (decode-vec.c). Unknown ones decode to #UD.
 */
void dec_vec(Dec *d, Insn *in, uint8_t b);
/* The same for opcode b whose modrm dec_0f() has read (0f ae). */
void dec_vec_modrm(Dec *d, Insn *in, uint8_t b);

#endif
