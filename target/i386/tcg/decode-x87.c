/*
 * The x87 escape opcodes d8..df as tables (Intel SDM vol. 2 appendix
 * A.4, "Escape opcode instructions"): one row of eight memory forms per
 * escape byte, by modrm.reg, and one row of 64 register forms, by
 * modrm.reg and modrm.rm (c0..ff). An entry is the handler, its
 * operation, the memory format and the X87F_* flags; a missing entry
 * is #UD. The undocumented aliases the processors execute (fstp1,
 * fcom2, fcomp3, fxch4, fcomp5, ffreep, fxch7, fstp8, fstp9) are in.
 * fisttp (SSE3) is decoded whatever CPUID says.
 */
#include "target/i386/tcg/decode.h"
#include "target/i386/tcg/fpu-x87.h"

typedef struct X87Entry {
    InsnFn fn;
    uint8_t op;         /* Insn.aux */
    uint8_t fmt;        /* Insn.aux2 */
    uint16_t flags;     /* Insn.imm: X87F_* */
} X87Entry;

#define NOWAIT_CTL  (X87F_NOWAIT | X87F_CTL)

#define ARITH_M(op, fmt)    { x87_op_arith_m, X87_OP_##op, X87_FMT_##fmt, 0 }
#define COM_M(fmt, fl)      { x87_op_com_m, X87_CMP_COM, X87_FMT_##fmt, fl }
#define LD_M(fmt)           { x87_op_ld_m, 0, X87_FMT_##fmt, 0 }
#define ST_M(fmt, fl)       { x87_op_st_m, 0, X87_FMT_##fmt, fl }
#define CTL_M(fn, fl)       { fn, 0, 0, fl }

#define ARITH_M_ROW(fmt) \
    { ARITH_M(ADD, fmt), ARITH_M(MUL, fmt), COM_M(fmt, 0), \
      COM_M(fmt, X87F_POP), ARITH_M(SUB, fmt), ARITH_M(SUBR, fmt), \
      ARITH_M(DIV, fmt), ARITH_M(DIVR, fmt) }

static const X87Entry x87_mem[8][8] = {
    [0] = ARITH_M_ROW(F32),
    [1] = {
        LD_M(F32), { 0 }, ST_M(F32, 0), ST_M(F32, X87F_POP),
        CTL_M(x87_op_fldenv, X87F_CTL), CTL_M(x87_op_fldcw, X87F_CTL),
        CTL_M(x87_op_fnstenv, NOWAIT_CTL), CTL_M(x87_op_fnstcw, NOWAIT_CTL),
    },
    [2] = ARITH_M_ROW(I32),
    [3] = {
        LD_M(I32), ST_M(I32, X87F_POP | X87F_TRUNC), ST_M(I32, 0),
        ST_M(I32, X87F_POP), { 0 }, LD_M(F80), { 0 }, ST_M(F80, X87F_POP),
    },
    [4] = ARITH_M_ROW(F64),
    [5] = {
        LD_M(F64), ST_M(I64, X87F_POP | X87F_TRUNC), ST_M(F64, 0),
        ST_M(F64, X87F_POP), CTL_M(x87_op_frstor, X87F_CTL), { 0 },
        CTL_M(x87_op_fnsave, NOWAIT_CTL), CTL_M(x87_op_fnstsw, NOWAIT_CTL),
    },
    [6] = ARITH_M_ROW(I16),
    [7] = {
        LD_M(I16), ST_M(I16, X87F_POP | X87F_TRUNC), ST_M(I16, 0),
        ST_M(I16, X87F_POP), LD_M(BCD), LD_M(I64), ST_M(BCD, X87F_POP),
        ST_M(I64, X87F_POP),
    },
};

/* Eight register forms (rm = i) of one modrm.reg. */
#define R8(reg, e)      [(reg) * 8 ... (reg) * 8 + 7] = e
#define ARITH_R(op, fl) { x87_op_arith_r, X87_OP_##op, 0, fl }
#define COM_R(k, fl)    { x87_op_com_r, X87_CMP_##k, 0, fl }
#define HOST(op)        { x87_op_host, X87_H_##op, 0, 0 }
#define FCMOV(cond)     { x87_op_fcmov, cond, 0, 0 }
#define ONE(fn, op, fl) { fn, op, 0, fl }

#define STI_POP         (X87F_STI | X87F_POP)

static const X87Entry x87_reg[8][64] = {
    [0] = {
        R8(0, ARITH_R(ADD, 0)), R8(1, ARITH_R(MUL, 0)),
        R8(2, COM_R(COM, 0)), R8(3, COM_R(COM, X87F_POP)),
        R8(4, ARITH_R(SUB, 0)), R8(5, ARITH_R(SUBR, 0)),
        R8(6, ARITH_R(DIV, 0)), R8(7, ARITH_R(DIVR, 0)),
    },
    [1] = {
        R8(0, ONE(x87_op_ld_r, 0, 0)), R8(1, ONE(x87_op_fxch, 0, 0)),
        [0x10] = ONE(x87_op_fnop, 0, 0),
        R8(3, ONE(x87_op_st_r, 0, X87F_POP | X87F_NOFAULT)),  /* fstp1 */
        [0x20] = ONE(x87_op_chs_abs, 0, 0), [0x21] = ONE(x87_op_chs_abs, 1, 0),
        [0x24] = COM_R(TST, 0), [0x25] = HOST(FXAM),
        [0x28] = HOST(FLD1), [0x29] = HOST(FLDL2T), [0x2a] = HOST(FLDL2E),
        [0x2b] = HOST(FLDPI), [0x2c] = HOST(FLDLG2), [0x2d] = HOST(FLDLN2),
        [0x2e] = HOST(FLDZ),
        [0x30] = HOST(F2XM1), [0x31] = HOST(FYL2X), [0x32] = HOST(FPTAN),
        [0x33] = HOST(FPATAN), [0x34] = HOST(FXTRACT), [0x35] = HOST(FPREM1),
        [0x36] = ONE(x87_op_incdecstp, 1, 0),
        [0x37] = ONE(x87_op_incdecstp, 0, 0),
        [0x38] = HOST(FPREM), [0x39] = HOST(FYL2XP1), [0x3a] = HOST(FSQRT),
        [0x3b] = HOST(FSINCOS), [0x3c] = HOST(FRNDINT), [0x3d] = HOST(FSCALE),
        [0x3e] = HOST(FSIN), [0x3f] = HOST(FCOS),
    },
    [2] = {
        /* fcmovb, fcmove, fcmovbe, fcmovu: jcc conditions B, Z, BE, P */
        R8(0, FCMOV(0x2)), R8(1, FCMOV(0x4)), R8(2, FCMOV(0x6)),
        R8(3, FCMOV(0xa)),
        [0x29] = COM_R(UCOM, X87F_POP2),                  /* fucompp */
    },
    [3] = {
        R8(0, FCMOV(0x3)), R8(1, FCMOV(0x5)), R8(2, FCMOV(0x7)),
        R8(3, FCMOV(0xb)),
        [0x20] = ONE(x87_op_fnop, 0, NOWAIT_CTL),           /* fneni */
        [0x21] = ONE(x87_op_fnop, 0, NOWAIT_CTL),           /* fndisi */
        [0x22] = ONE(x87_op_fnclex, 0, NOWAIT_CTL),
        [0x23] = ONE(x87_op_fninit, 0, NOWAIT_CTL),
        [0x24] = ONE(x87_op_fnop, 0, NOWAIT_CTL),           /* fnsetpm */
        R8(5, COM_R(UCOM, X87F_EFLAGS)), R8(6, COM_R(COM, X87F_EFLAGS)),
    },
    [4] = {
        R8(0, ARITH_R(ADD, X87F_STI)), R8(1, ARITH_R(MUL, X87F_STI)),
        R8(2, COM_R(COM, 0)), R8(3, COM_R(COM, X87F_POP)),  /* fcom2/3 */
        R8(4, ARITH_R(SUBR, X87F_STI)), R8(5, ARITH_R(SUB, X87F_STI)),
        R8(6, ARITH_R(DIVR, X87F_STI)), R8(7, ARITH_R(DIV, X87F_STI)),
    },
    [5] = {
        R8(0, ONE(x87_op_ffree, 0, 0)), R8(1, ONE(x87_op_fxch, 0, 0)),
        R8(2, ONE(x87_op_st_r, 0, 0)), R8(3, ONE(x87_op_st_r, 0, X87F_POP)),
        R8(4, COM_R(UCOM, 0)), R8(5, COM_R(UCOM, X87F_POP)),
    },
    [6] = {
        R8(0, ARITH_R(ADD, STI_POP)), R8(1, ARITH_R(MUL, STI_POP)),
        R8(2, COM_R(COM, X87F_POP)),                        /* fcomp5 */
        [0x19] = COM_R(COM, X87F_POP2),                     /* fcompp */
        R8(4, ARITH_R(SUBR, STI_POP)), R8(5, ARITH_R(SUB, STI_POP)),
        R8(6, ARITH_R(DIVR, STI_POP)), R8(7, ARITH_R(DIV, STI_POP)),
    },
    [7] = {
        R8(0, ONE(x87_op_ffree, 0, X87F_POP)),              /* ffreep */
        R8(1, ONE(x87_op_fxch, 0, 0)),                      /* fxch7 */
        R8(2, ONE(x87_op_st_r, 0, X87F_POP)),               /* fstp8 */
        R8(3, ONE(x87_op_st_r, 0, X87F_POP)),               /* fstp9 */
        [0x20] = ONE(x87_op_fnstsw_ax, 0, NOWAIT_CTL),
        R8(5, COM_R(UCOM, X87F_EFLAGS | X87F_POP)),         /* fucomip */
        R8(6, COM_R(COM, X87F_EFLAGS | X87F_POP)),          /* fcomip */
    },
};

void dec_x87(Dec *d, Insn *in, uint8_t b)
{
    unsigned esc = b & 7, start = d->pos;
    const X87Entry *e;
    uint8_t modrm;

    /* The modrm byte as it is (FOP keeps it), then its operands. */
    modrm = dec_u8(d);
    d->pos = start;
    dec_modrm(d, in);
    if (d->mod == 3) {
        e = &x87_reg[esc][modrm & 0x3f];
    } else {
        e = &x87_mem[esc][(modrm >> 3) & 7];
    }
    if (!e->fn) {
        dec_ud(d, in);
        return;
    }
    in->fn = e->fn;
    in->aux = e->op;
    in->aux2 = e->fmt;
    in->imm = e->flags;
    if (d->mod != 3) {
        in->imm |= X87F_MEM;
    }
    if (d->ot == OT_W) {
        in->imm |= X87F_O16;
    }
    in->rm = modrm & 7;
    in->imm2 = (esc << 8) | modrm;
}
