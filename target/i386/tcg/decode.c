/*
 * The decoder: guest code to pre-decoded blocks. Prefixes, modrm/SIB
 * addressing in the 16-, 32- and 64-bit forms, the one-byte opcode map,
 * and the block builder. The two-byte map is in decode-0f.c.
 *
 * Each instruction becomes one Insn whose handler is chosen for its
 * operation, operand size and operand form; nothing is decoded again
 * when the block runs. Opcode map and encodings: Intel SDM vol. 2,
 * appendix A; AMD APM vol. 3, chapter 1.
 */
#include "target/i386/tcg/decode.h"
#include "target/i386/tcg/fpu-x87.h"

/* Code fetch ------------------------------------------------------------ */

/* Map the page holding lin for fetching (may raise #PF). */
static void dec_map_page(Dec *d, uint64_t lin)
{
    uint8_t *host = NULL;
    uint64_t phys = x86_translate(d->env, lin, MMU_FETCH, &host);
    unsigned n = d->npages++;

    d->page_lin[n] = lin & X86_PAGE_MASK;
    d->page_host[n] = host ? host - (lin & ~X86_PAGE_MASK) : NULL;
    d->db->phys[n] = phys & X86_PAGE_MASK;
    if (!host) {
        d->db->cacheable = false;
    }
}

uint8_t dec_u8(Dec *d)
{
    uint64_t lin;
    unsigned p;

    if (d->pos >= 15) {
        longjmp(d->abort, DEC_ABORT_TOO_LONG);
    }
    lin = d->lin + d->pos;
    if (!d->code64) {
        lin = (uint32_t)lin;
    }
    if ((lin & X86_PAGE_MASK) == d->page_lin[0]) {
        p = 0;
    } else if (d->npages == 2 && (lin & X86_PAGE_MASK) == d->page_lin[1]) {
        p = 1;
    } else if (d->first && d->npages == 1) {
        /* Only a block's first instruction may straddle two pages. */
        dec_map_page(d, lin);
        p = 1;
    } else {
        longjmp(d->abort, DEC_ABORT_CROSS);
    }
    d->pos++;
    if (d->page_host[p]) {
        return d->page_host[p][lin & ~X86_PAGE_MASK];
    }
    return x86_ld_slow(d->env, lin, 1, MMU_FETCH);
}

uint16_t dec_u16(Dec *d)
{
    uint16_t v = dec_u8(d);

    return v | (uint16_t)dec_u8(d) << 8;
}

uint32_t dec_u32(Dec *d)
{
    uint32_t v = dec_u16(d);

    return v | (uint32_t)dec_u16(d) << 16;
}

static uint64_t dec_u64(Dec *d)
{
    uint64_t v = dec_u32(d);

    return v | (uint64_t)dec_u32(d) << 32;
}

uint64_t dec_imm(Dec *d, int ot)
{
    switch (ot) {
    case OT_B:
        return dec_u8(d);
    case OT_W:
        return dec_u16(d);
    case OT_L:
        return dec_u32(d);
    default:
        return (uint64_t)(int64_t)(int32_t)dec_u32(d);
    }
}

static uint64_t dec_imm8s(Dec *d)
{
    return (uint64_t)(int64_t)(int8_t)dec_u8(d);
}

/* Operands ------------------------------------------------------------- */

unsigned dec_reg(Dec *d, int ot, unsigned n)
{
    return ot == OT_B ? reg8_offset(n, d->prefix & P_REX) : n;
}

void dec_regs(Dec *d, Insn *in, int ot)
{
    in->reg = dec_reg(d, ot, d->regf);
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
    }
}

void dec_modrm(Dec *d, Insn *in)
{
    uint8_t m = dec_u8(d);
    unsigned rm = m & 7, f = EA_MEM;
    int seg = R_DS;
    int64_t disp = 0;

    d->mod = m >> 6;
    d->regf = ((m >> 3) & 7) | (d->rex & REX_R ? 8 : 0);
    if (d->mod == 3) {
        d->rmf = rm | (d->rex & REX_B ? 8 : 0);
        return;
    }
    d->rmf = -1;
    if (d->aot == OT_W) {
        static const int8_t base16[8] = { R_EBX, R_EBX, R_EBP, R_EBP,
                                          -1, -1, R_EBP, R_EBX };
        static const int8_t index16[8] = { R_ESI, R_EDI, R_ESI, R_EDI,
                                           R_ESI, R_EDI, -1, -1 };

        f |= EA_A16;
        if (d->mod == 0 && rm == 6) {
            disp = dec_u16(d);
        } else {
            if (base16[rm] >= 0) {
                f |= EA_BASE;
                in->base = base16[rm];
            }
            if (index16[rm] >= 0) {
                f |= EA_INDEX;
                in->index = index16[rm];
            }
            if (rm == 2 || rm == 3 || rm == 6) {
                seg = R_SS;
            }
        }
        if (d->mod == 1) {
            disp = (int8_t)dec_u8(d);
        } else if (d->mod == 2) {
            disp = (int16_t)dec_u16(d);
        }
    } else {
        int base = -1;

        if (d->aot == OT_L) {
            f |= EA_A32;
        }
        if (rm == 4) {
            uint8_t sib = dec_u8(d);
            unsigned index = ((sib >> 3) & 7) | (d->rex & REX_X ? 8 : 0);

            if (index != 4) {
                f |= EA_INDEX;
                in->index = index;
                in->scale = sib >> 6;
            }
            if ((sib & 7) == 5 && d->mod == 0) {
                disp = (int32_t)dec_u32(d);
            } else {
                base = (sib & 7) | (d->rex & REX_B ? 8 : 0);
            }
        } else if (rm == 5 && d->mod == 0) {
            disp = (int32_t)dec_u32(d);
            d->riprel = d->code64;
        } else {
            base = rm | (d->rex & REX_B ? 8 : 0);
        }
        if (base >= 0) {
            f |= EA_BASE;
            in->base = base;
            if (base == R_ESP || base == R_EBP) {
                seg = R_SS;
            }
        }
        if (d->mod == 1) {
            disp = (int8_t)dec_u8(d);
        } else if (d->mod == 2) {
            disp = (int32_t)dec_u32(d);
        }
    }
    if (d->seg_override >= 0) {
        seg = d->seg_override;
    }
    in->seg = seg;
    if (d->code64 ? seg >= R_FS
                  : d->addseg || seg == R_CS || seg >= R_FS) {
        f |= EA_SEG;
    }
    if (!d->code64) {
        f |= EA_LIN32;
    }
    in->eaf = f;
    in->disp = disp;
}

int dec_ot64(Dec *d)
{
    if (d->code64) {
        return (d->prefix & P_66) ? OT_W : OT_Q;
    }
    return d->ot;
}

void dec_ud(Dec *d, Insn *in)
{
    in->fn = op_ud;
    d->end = DEC_END_BLOCK;
}

/* The EA flags of implicit memory operands (strings, xlat, moffs). */
static void dec_implicit_ea(Dec *d, Insn *in)
{
    unsigned f = in->eaf & EA_MEM;

    if (d->aot == OT_W) {
        f |= EA_A16;
    } else if (d->aot == OT_L) {
        f |= EA_A32;
    }
    if (!d->code64) {
        f |= EA_LIN32;
    }
    in->eaf = f;
    in->seg = d->seg_override >= 0 ? d->seg_override : R_DS;
}

/* A near branch target, wrapped to the operand size outside 64-bit. */
static uint64_t dec_target(Dec *d, int ot, int64_t rel)
{
    uint64_t t = d->pc + d->pos + rel;

    if (d->code64) {
        return t;
    }
    return ot == OT_W ? (uint16_t)t : (uint32_t)t;
}

/* Common shapes --------------------------------------------------------- */

/* The pairing class of ALU operation op (group-1 order), or -1. */
static int fuse_op(int op)
{
    switch (op) {
    case 0:
        return FUSE_ADD;
    case 4:
        return FUSE_AND;
    case 5:
        return FUSE_SUB;
    case 7:
        return FUSE_CMP;
    default:
        return -1;
    }
}

static void dec_fuse(Dec *d, int op, int form, int ot)
{
    d->fuse = op < 0 ? -1 : DEC_FUSE(op, form, ot);
}

/* op Ev,Gv (to_reg false) or op Gv,Ev (true) from a [form][ot] table. */
static void dec_ev_gv(Dec *d, Insn *in, const InsnFn tab[F_NUM][4], int ot,
                      bool to_reg)
{
    dec_modrm(d, in);
    dec_regs(d, in, ot);
    if (d->mod == 3) {
        if (to_reg) {
            uint8_t t = in->rm;

            in->rm = in->reg;
            in->reg = t;
        }
        in->fn = tab[F_RR][ot];
    } else {
        in->fn = tab[to_reg ? F_RM : F_MR][ot];
        d->lock_ok = !to_reg;
    }
}

static void dec_alu(Dec *d, Insn *in, int op, int ot, bool to_reg)
{
    dec_modrm(d, in);
    dec_regs(d, in, ot);
    if (d->mod == 3) {
        if (to_reg) {
            uint8_t t = in->rm;

            in->rm = in->reg;
            in->reg = t;
        }
        in->fn = x86_alu_fn[F_RR][op][ot];
        dec_fuse(d, fuse_op(op), F_RR, ot);
    } else {
        in->fn = x86_alu_fn[to_reg ? F_RM : F_MR][op][ot];
        d->lock_ok = !to_reg && op != 7;
        dec_fuse(d, fuse_op(op), to_reg ? F_RM : F_MR, ot);
    }
}

/* Group 1 with the modrm already read: op Ev, imm. */
static void dec_alu_imm(Dec *d, Insn *in, int op, int ot, uint64_t imm)
{
    in->imm = imm & ot_mask(ot);
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
        in->fn = x86_alu_fn[F_RI][op][ot];
        dec_fuse(d, fuse_op(op), F_RI, ot);
    } else {
        in->fn = x86_alu_fn[F_MI][op][ot];
        d->lock_ok = op != 7;
        dec_fuse(d, fuse_op(op), F_MI, ot);
    }
}

static void dec_push_reg(Dec *d, Insn *in, unsigned r, bool pop)
{
    int ot = dec_ot64(d);
    const InsnFn *tab = pop ? x86_pop_fn : x86_push_fn;

    in->rm = r;
    in->aux2 = ot;
    in->stk = d->stk;
    if (d->stk == STK_64 && ot == OT_Q) {
        in->fn = tab[PUSH_R64];
    } else if (d->stk == STK_32 && ot == OT_L) {
        in->fn = tab[PUSH_R32];
    } else {
        in->fn = tab[PUSH_R];
    }
}

static void dec_string(Dec *d, Insn *in, int kind, int ot)
{
    dec_implicit_ea(d, in);
    in->aux2 = ot;
    if (d->prefix & P_F3) {
        in->aux = REP_E;
    } else if (d->prefix & P_F2) {
        in->aux = REP_NE;
    }
    in->fn = x86_string_fn[kind][ot];
}

static void dec_sreg_push(Dec *d, Insn *in, int seg, bool pop)
{
    in->aux = seg;
    in->aux2 = dec_ot64(d);
    in->stk = d->stk;
    in->fn = x86_stack_fn[pop ? STK_OP_POP_SREG : STK_OP_PUSH_SREG];
    if (pop) {
        d->end = DEC_END_BLOCK;
    }
}

/* Group 2 shifts with the count source (CL or an immediate). */
static void dec_shift(Dec *d, Insn *in, int ot, int count_src)
{
    dec_modrm(d, in);
    if (count_src < 0) {
        in->aux = 1;
    } else if (count_src == 2) {
        in->imm = dec_u8(d);
    } else {
        in->imm = 1;
    }
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
    }
    in->fn = x86_shift_fn[d->mod != 3][d->regf & 7][ot];
}

/* Group 3: test/not/neg/mul/imul/div/idiv. */
static void dec_grp3(Dec *d, Insn *in, int ot)
{
    int op;

    dec_modrm(d, in);
    op = d->regf & 7;
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
    }
    switch (op) {
    case 0:
    case 1:
        in->imm = dec_imm(d, ot) & ot_mask(ot);
        in->fn = x86_test_fn[d->mod == 3 ? F_RI : F_MI][ot];
        dec_fuse(d, FUSE_TEST, d->mod == 3 ? F_RI : F_MI, ot);
        break;
    case 2:
    case 3:
        in->fn = x86_unary_fn[d->mod != 3][op][ot];
        d->lock_ok = d->mod != 3;
        break;
    default:
        in->fn = x86_muldiv_fn[d->mod != 3][op - 4][ot];
        break;
    }
}

/* Group 4/5: inc/dec (and for ff: call, jmp, push). */
static void dec_grp5(Dec *d, Insn *in, int ot, bool byte_form)
{
    int op, bot;

    dec_modrm(d, in);
    op = d->regf & 7;
    if (byte_form && op > 1) {
        dec_ud(d, in);
        return;
    }
    switch (op) {
    case 0:
    case 1:
        if (d->mod == 3) {
            in->rm = dec_reg(d, ot, d->rmf);
        }
        in->fn = x86_unary_fn[d->mod != 3][op][ot];
        d->lock_ok = d->mod != 3;
        return;
    case 2:
    case 4:
        /* Near indirect: 64 bits in 64-bit code whatever 66 says. */
        bot = d->code64 ? OT_Q : d->ot;
        in->aux2 = bot;
        in->stk = d->stk;
        if (d->mod == 3) {
            in->rm = d->rmf;
            in->fn = x86_branch_fn[op == 2 ? BR_CALL_R : BR_JMP_R];
        } else {
            in->fn = x86_branch_fn[op == 2 ? BR_CALL_M : BR_JMP_M];
        }
        d->end = DEC_END_BLOCK;
        return;
    case 3:
    case 5:
        if (d->mod == 3) {
            dec_ud(d, in);
            return;
        }
        in->aux2 = d->ot;
        in->stk = d->stk;
        in->fn = x86_far_fn[op == 3 ? FAR_LCALL_M : FAR_LJMP_M];
        d->end = DEC_END_BLOCK;
        return;
    case 6:
        bot = dec_ot64(d);
        in->aux2 = bot;
        in->stk = d->stk;
        if (d->mod == 3) {
            in->rm = d->rmf;
            in->fn = x86_push_fn[PUSH_R];
        } else {
            in->fn = x86_push_fn[PUSH_M];
        }
        return;
    default:
        dec_ud(d, in);
        return;
    }
}

/* The one-byte map ------------------------------------------------------ */

static void dec_onebyte(Dec *d, Insn *in, uint8_t b)
{
    int ot = d->ot, bot;
    bool c64 = d->code64;

    /* The regular ALU block 00..3f: op Eb,Gb / Ev,Gv / Gb,Eb / Gv,Ev /
     * AL,Ib / eAX,Iz. */
    if (b < 0x40 && (b & 7) < 6) {
        int op = b >> 3;

        switch (b & 7) {
        case 0:
            dec_alu(d, in, op, OT_B, false);
            return;
        case 1:
            dec_alu(d, in, op, ot, false);
            return;
        case 2:
            dec_alu(d, in, op, OT_B, true);
            return;
        case 3:
            dec_alu(d, in, op, ot, true);
            return;
        case 4:
            ot = OT_B;
            /* fall through */
        default:
            in->rm = R_EAX;
            in->imm = dec_imm(d, ot) & ot_mask(ot);
            in->fn = x86_alu_fn[F_RI][op][ot];
            dec_fuse(d, fuse_op(op), F_RI, ot);
            return;
        }
    }
    if (b >= 0x40 && b < 0x50) {
        /* inc/dec r (outside 64-bit code, where these are REX). */
        in->rm = b & 7;
        in->fn = x86_unary_fn[0][(b >> 3) & 1][ot];
        return;
    }
    if (b >= 0x50 && b < 0x60) {
        dec_push_reg(d, in, (b & 7) | (d->rex & REX_B ? 8 : 0), b >= 0x58);
        return;
    }
    if (b >= 0x70 && b < 0x80) {
        int64_t rel = (int8_t)dec_u8(d);

        bot = c64 ? OT_Q : ot;
        in->imm = dec_target(d, bot, rel);
        in->fn = x86_jcc_fn[b & 15];
        d->chain = true;
        d->jcc = b & 15;
        return;
    }
    if (b >= 0x91 && b < 0x98) {
        in->rm = R_EAX;
        in->reg = (b & 7) | (d->rex & REX_B ? 8 : 0);
        in->fn = x86_xchg_fn[0][ot];
        return;
    }
    if (b >= 0xb0 && b < 0xb8) {
        in->rm = dec_reg(d, OT_B, (b & 7) | (d->rex & REX_B ? 8 : 0));
        in->imm = dec_u8(d);
        in->fn = x86_mov_fn[F_RI][OT_B];
        return;
    }
    if (b >= 0xb8 && b < 0xc0) {
        in->rm = (b & 7) | (d->rex & REX_B ? 8 : 0);
        in->imm = ot == OT_Q ? dec_u64(d) : dec_imm(d, ot);
        in->fn = x86_mov_fn[F_RI][ot];
        return;
    }
    if (b >= 0xd8 && b < 0xe0) {
        dec_x87(d, in, b);
        return;
    }

    switch (b) {
    case 0x06:
    case 0x0e:
    case 0x16:
    case 0x1e:
        if (c64) {
            break;
        }
        dec_sreg_push(d, in, b >> 3, false);
        return;
    case 0x07:
    case 0x17:
    case 0x1f:
        if (c64) {
            break;
        }
        dec_sreg_push(d, in, b >> 3, true);
        return;
    case 0x27:
    case 0x2f:
    case 0x37:
    case 0x3f:
        if (c64) {
            break;
        }
        in->fn = x86_flag_fn[b == 0x27 ? FL_DAA : b == 0x2f ? FL_DAS :
                             b == 0x37 ? FL_AAA : FL_AAS];
        return;
    case 0x60:
    case 0x61:
        if (c64) {
            break;
        }
        in->aux2 = ot;
        in->stk = d->stk;
        in->fn = x86_stack_fn[b == 0x60 ? STK_OP_PUSHA : STK_OP_POPA];
        return;
    case 0x62:
        /* bound Gv, Ma (EVEX where mod is 3, and in 64-bit code). */
        if (c64) {
            break;
        }
        dec_modrm(d, in);
        if (d->mod == 3) {
            break;
        }
        in->reg = d->regf;
        in->aux2 = ot;
        in->fn = x86_sys_fn[SYS_BOUND];
        return;
    case 0x63:
        dec_modrm(d, in);
        if (c64) {
            /* movsxd Gv, Ed */
            dec_regs(d, in, OT_L);
            in->fn = x86_movx_fn[d->mod != 3][1][OT_L][ot];
            return;
        }
        /* arpl Ew, Gw */
        dec_regs(d, in, OT_W);
        in->aux2 = OT_W;
        in->fn = x86_sys_fn[SYS_ARPL];
        return;
    case 0x68:
    case 0x6a:
        bot = dec_ot64(d);
        in->imm = b == 0x6a ? dec_imm8s(d)
                            : dec_imm(d, bot == OT_W ? OT_W : OT_Q);
        in->aux2 = bot;
        in->stk = d->stk;
        in->fn = x86_push_fn[PUSH_I];
        return;
    case 0x69:
    case 0x6b:
        if (ot == OT_B) {
            break;
        }
        dec_modrm(d, in);
        dec_regs(d, in, ot);
        in->imm = b == 0x6b ? dec_imm8s(d) : dec_imm(d, ot);
        in->aux = 1;
        in->fn = x86_imul_fn[d->mod != 3][ot];
        return;
    case 0x6c:
    case 0x6d:
    case 0x6e:
    case 0x6f:
        dec_string(d, in, b < 0x6e ? STR_INS : STR_OUTS,
                   b & 1 ? (ot == OT_W ? OT_W : OT_L) : OT_B);
        return;
    case 0x80:
    case 0x82:
        if (b == 0x82 && c64) {
            break;
        }
        dec_modrm(d, in);
        dec_alu_imm(d, in, d->regf & 7, OT_B, dec_u8(d));
        return;
    case 0x81:
        dec_modrm(d, in);
        dec_alu_imm(d, in, d->regf & 7, ot, dec_imm(d, ot));
        return;
    case 0x83:
        dec_modrm(d, in);
        dec_alu_imm(d, in, d->regf & 7, ot, dec_imm8s(d));
        return;
    case 0x84:
    case 0x85:
        dec_ev_gv(d, in, x86_test_fn, b & 1 ? ot : OT_B, false);
        d->lock_ok = false;
        dec_fuse(d, FUSE_TEST, d->mod == 3 ? F_RR : F_MR, b & 1 ? ot : OT_B);
        return;
    case 0x86:
    case 0x87:
        ot = b & 1 ? ot : OT_B;
        dec_modrm(d, in);
        dec_regs(d, in, ot);
        in->fn = x86_xchg_fn[d->mod != 3][ot];
        d->lock_ok = d->mod != 3;
        return;
    case 0x88:
    case 0x89:
    case 0x8a:
    case 0x8b:
        dec_ev_gv(d, in, x86_mov_fn, b & 1 ? ot : OT_B, b & 2);
        d->lock_ok = false;
        return;
    case 0x8c:
    case 0x8e:
        dec_modrm(d, in);
        in->aux = d->regf & 7;
        if (in->aux > R_GS || (b == 0x8e && in->aux == R_CS)) {
            break;
        }
        if (d->mod == 3) {
            in->rm = d->rmf;
        }
        in->aux2 = ot;
        if (b == 0x8e) {
            in->fn = x86_sys_fn[SYS_MOV_TO_SREG];
            d->end = DEC_END_BLOCK;
        } else {
            in->fn = x86_sys_fn[SYS_MOV_FROM_SREG];
        }
        return;
    case 0x8d:
        dec_modrm(d, in);
        if (d->mod == 3 || ot == OT_B) {
            break;
        }
        in->reg = d->regf;
        in->eaf &= ~EA_SEG;
        in->fn = x86_lea_fn[ot];
        return;
    case 0x8f:
        dec_modrm(d, in);
        if ((d->regf & 7) != 0) {
            break;
        }
        bot = dec_ot64(d);
        in->aux2 = bot;
        in->stk = d->stk;
        if (d->mod == 3) {
            in->rm = d->rmf;
            in->fn = x86_pop_fn[PUSH_R];
        } else {
            in->fn = x86_pop_fn[PUSH_M];
        }
        return;
    case 0x90:
        if (d->rex & REX_B) {
            in->rm = R_EAX;
            in->reg = R_R8;
            in->fn = x86_xchg_fn[0][ot];
        } else if (d->prefix & P_F3) {
            in->fn = x86_sys_fn[SYS_PAUSE];
        } else {
            in->fn = op_nop;
        }
        return;
    case 0x98:
        in->aux2 = ot;
        in->fn = x86_cbw_fn;
        return;
    case 0x99:
        in->aux2 = ot;
        in->fn = x86_cwd_fn;
        return;
    case 0x9a:
        if (c64) {
            break;
        }
        in->imm = dec_imm(d, ot);
        in->imm2 = dec_u16(d);
        in->aux2 = ot;
        in->stk = d->stk;
        in->fn = x86_far_fn[FAR_LCALL_I];
        d->end = DEC_END_BLOCK;
        return;
    case 0x9b:
        in->fn = x87_op_fwait;
        return;
    case 0x9c:
    case 0x9d:
        in->aux2 = dec_ot64(d);
        in->stk = d->stk;
        in->fn = x86_stack_fn[b == 0x9c ? STK_OP_PUSHF : STK_OP_POPF];
        if (b == 0x9d) {
            d->end = DEC_END_BLOCK;
        }
        return;
    case 0x9e:
    case 0x9f:
        if (c64 && !(d->isa & ISA_LAHF64)) {
            break;
        }
        in->fn = x86_flag_fn[b == 0x9e ? FL_SAHF : FL_LAHF];
        return;
    case 0xa0:
    case 0xa1:
    case 0xa2:
    case 0xa3:
        dec_implicit_ea(d, in);
        in->imm = d->aot == OT_Q ? dec_u64(d) : dec_imm(d, d->aot);
        in->aux2 = b & 1 ? ot : OT_B;
        in->fn = x86_moffs_fn[b >= 0xa2];
        return;
    case 0xa4:
    case 0xa5:
        dec_string(d, in, STR_MOVS, b & 1 ? ot : OT_B);
        return;
    case 0xa6:
    case 0xa7:
        dec_string(d, in, STR_CMPS, b & 1 ? ot : OT_B);
        return;
    case 0xa8:
    case 0xa9:
        ot = b & 1 ? ot : OT_B;
        in->rm = R_EAX;
        in->imm = dec_imm(d, ot) & ot_mask(ot);
        in->fn = x86_test_fn[F_RI][ot];
        dec_fuse(d, FUSE_TEST, F_RI, ot);
        return;
    case 0xaa:
    case 0xab:
        dec_string(d, in, STR_STOS, b & 1 ? ot : OT_B);
        return;
    case 0xac:
    case 0xad:
        dec_string(d, in, STR_LODS, b & 1 ? ot : OT_B);
        return;
    case 0xae:
    case 0xaf:
        dec_string(d, in, STR_SCAS, b & 1 ? ot : OT_B);
        return;
    case 0xc0:
    case 0xc1:
        dec_shift(d, in, b & 1 ? ot : OT_B, 2);
        return;
    case 0xc2:
    case 0xc3:
        bot = d->code64 ? OT_Q : ot;
        in->imm2 = b == 0xc2 ? dec_u16(d) : 0;
        in->aux2 = bot;
        in->stk = d->stk;
        in->fn = x86_branch_fn[d->stk == STK_64 ? BR_RET64 : BR_RET];
        d->end = DEC_END_BLOCK;
        return;
    case 0xc4:
    case 0xc5:
        /* les/lds outside 64-bit code; VEX (no AVX here) otherwise. */
        if (c64) {
            break;
        }
        dec_modrm(d, in);
        if (d->mod == 3) {
            break;
        }
        in->reg = d->regf;
        in->aux = b == 0xc4 ? R_ES : R_DS;
        in->aux2 = ot;
        in->fn = x86_sys_fn[SYS_LXS];
        d->end = DEC_END_BLOCK;
        return;
    case 0xc6:
    case 0xc7:
        ot = b & 1 ? ot : OT_B;
        dec_modrm(d, in);
        if ((d->regf & 7) != 0) {
            break;
        }
        in->imm = dec_imm(d, ot) & ot_mask(ot);
        if (d->mod == 3) {
            in->rm = dec_reg(d, ot, d->rmf);
            in->fn = x86_mov_fn[F_RI][ot];
        } else {
            in->fn = x86_mov_fn[F_MI][ot];
        }
        return;
    case 0xc8:
        in->imm2 = dec_u16(d);
        in->imm = dec_u8(d);
        in->aux2 = dec_ot64(d);
        in->stk = d->stk;
        in->fn = x86_stack_fn[STK_OP_ENTER];
        return;
    case 0xc9:
        in->aux2 = dec_ot64(d);
        in->stk = d->stk;
        in->fn = x86_stack_fn[STK_OP_LEAVE];
        return;
    case 0xca:
    case 0xcb:
        in->imm2 = b == 0xca ? dec_u16(d) : 0;
        in->aux2 = ot;
        in->fn = x86_far_fn[FAR_LRET];
        d->end = DEC_END_BLOCK;
        return;
    case 0xcc:
    case 0xcd:
    case 0xf1:
        in->imm = b == 0xcc ? EXCP03_INT3 : b == 0xf1 ? EXCP01_DB
                                                      : dec_u8(d);
        in->fn = x86_far_fn[FAR_INT];
        d->end = DEC_END_BLOCK;
        return;
    case 0xce:
        if (c64) {
            break;
        }
        in->fn = x86_far_fn[FAR_INTO];
        d->end = DEC_END_BLOCK;
        return;
    case 0xcf:
        in->aux2 = ot;
        in->fn = x86_far_fn[FAR_IRET];
        d->end = DEC_END_BLOCK;
        return;
    case 0xd0:
    case 0xd1:
        dec_shift(d, in, b & 1 ? ot : OT_B, 1);
        return;
    case 0xd2:
    case 0xd3:
        dec_shift(d, in, b & 1 ? ot : OT_B, -1);
        return;
    case 0xd4:
    case 0xd5:
        if (c64) {
            break;
        }
        in->imm = dec_u8(d);
        in->fn = x86_flag_fn[b == 0xd4 ? FL_AAM : FL_AAD];
        return;
    case 0xd6:
        if (c64) {
            break;
        }
        in->fn = x86_flag_fn[FL_SALC];
        return;
    case 0xd7:
        dec_implicit_ea(d, in);
        in->fn = x86_xlat_fn;
        return;
    case 0xe0:
    case 0xe1:
    case 0xe2:
    case 0xe3: {
        int64_t rel = (int8_t)dec_u8(d);

        dec_implicit_ea(d, in);
        in->imm = dec_target(d, c64 ? OT_Q : ot, rel);
        in->aux = b - 0xe0;
        in->fn = x86_loop_fn;
        d->chain = true;
        return;
    }
    case 0xe4:
    case 0xe5:
    case 0xe6:
    case 0xe7:
    case 0xec:
    case 0xed:
    case 0xee:
    case 0xef:
        if (b < 0xe8) {
            in->imm = dec_u8(d);
        } else {
            in->aux = 1;
        }
        in->aux2 = b & 1 ? (ot == OT_W ? OT_W : OT_L) : OT_B;
        in->fn = x86_sys_fn[b & 2 ? SYS_OUT : SYS_IN];
        return;
    case 0xe8: {
        int64_t rel;

        bot = c64 ? OT_Q : ot;
        rel = bot == OT_W ? (int16_t)dec_u16(d) : (int32_t)dec_u32(d);
        in->imm = dec_target(d, bot, rel);
        in->aux2 = bot;
        in->stk = d->stk;
        in->fn = x86_branch_fn[d->stk == STK_64 ? BR_CALL64 : BR_CALL];
        d->end = DEC_END_BLOCK;
        d->chain = true;
        d->follow = d->stk == STK_64 ? BR_CALL64_IN : BR_CALL_IN;
        return;
    }
    case 0xe9:
    case 0xeb: {
        int64_t rel;

        bot = c64 ? OT_Q : ot;
        if (b == 0xeb) {
            rel = (int8_t)dec_u8(d);
        } else {
            rel = bot == OT_W ? (int16_t)dec_u16(d) : (int32_t)dec_u32(d);
        }
        in->imm = dec_target(d, bot, rel);
        in->fn = x86_branch_fn[BR_JMP];
        d->end = DEC_END_BLOCK;
        d->chain = true;
        d->follow = BR_JMP_IN;
        return;
    }
    case 0xea:
        if (c64) {
            break;
        }
        in->imm = dec_imm(d, ot);
        in->imm2 = dec_u16(d);
        in->aux2 = ot;
        in->fn = x86_far_fn[FAR_LJMP_I];
        d->end = DEC_END_BLOCK;
        return;
    case 0xf4:
        in->fn = x86_sys_fn[SYS_HLT];
        d->end = DEC_END_BLOCK;
        return;
    case 0xf5:
        in->fn = x86_flag_fn[FL_CMC];
        return;
    case 0xf6:
    case 0xf7:
        dec_grp3(d, in, b & 1 ? ot : OT_B);
        return;
    case 0xf8:
    case 0xf9:
        in->fn = x86_flag_fn[b == 0xf8 ? FL_CLC : FL_STC];
        return;
    case 0xfa:
        in->fn = x86_sys_fn[SYS_CLI];
        return;
    case 0xfb:
        in->fn = x86_sys_fn[SYS_STI];
        d->end = DEC_END_BLOCK;
        return;
    case 0xfc:
    case 0xfd:
        in->fn = x86_flag_fn[b == 0xfc ? FL_CLD : FL_STD];
        return;
    case 0xfe:
    case 0xff:
        dec_grp5(d, in, b & 1 ? ot : OT_B, b == 0xfe);
        return;
    case 0x0f:
        dec_0f(d, in, dec_u8(d));
        return;
    default:
        break;
    }
    dec_ud(d, in);
}

/* One instruction ------------------------------------------------------- */

static int dec_one(Dec *d, Insn *in)
{
    uint8_t b;
    int r;

    memset(in, 0, sizeof(*in));
    d->pos = 0;
    d->prefix = 0;
    d->rex = 0;
    d->seg_override = -1;
    d->lock_ok = false;
    d->riprel = false;
    d->chain = false;
    d->follow = -1;
    d->fuse = -1;
    d->jcc = -1;
    d->end = DEC_GO_ON;
    d->mod = 0;

    r = setjmp(d->abort);
    if (r == DEC_ABORT_CROSS) {
        return -1;
    }
    if (r == DEC_ABORT_TOO_LONG) {
        memset(in, 0, sizeof(*in));
        in->fn = op_gp0;
        in->len = 15;
        return DEC_END_BLOCK;
    }

    for (;;) {
        b = dec_u8(d);
        switch (b) {
        case 0x66:
            d->prefix |= P_66;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        case 0x67:
            d->prefix |= P_67;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        case 0xf0:
            d->prefix |= P_LOCK;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        case 0xf2:
            d->prefix = (d->prefix & ~P_F3) | P_F2;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        case 0xf3:
            d->prefix = (d->prefix & ~P_F2) | P_F3;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        case 0x26:
        case 0x2e:
        case 0x36:
        case 0x3e:
            /* In 64-bit code these are null prefixes. */
            d->seg_override = d->code64 ? -1 : (b >> 3) & 3;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        case 0x64:
        case 0x65:
            d->seg_override = b == 0x64 ? R_FS : R_GS;
            d->rex = 0;
            d->prefix &= ~P_REX;
            continue;
        default:
            break;
        }
        if (d->code64 && (b & 0xf0) == 0x40) {
            /* REX counts only right before the opcode. */
            d->rex = b & 0xf;
            d->prefix |= P_REX;
            continue;
        }
        break;
    }

    if (d->rex & REX_W) {
        d->ot = OT_Q;
    } else if (d->prefix & P_66) {
        d->ot = d->def_ot == OT_W ? OT_L : OT_W;
    } else {
        d->ot = d->def_ot;
    }
    if (d->prefix & P_67) {
        d->aot = d->code64 ? OT_L : (d->def_aot == OT_W ? OT_L : OT_W);
    } else {
        d->aot = d->def_aot;
    }

    dec_onebyte(d, in, b);

    if ((d->prefix & P_LOCK) && !d->lock_ok) {
        dec_ud(d, in);
    }
    in->len = d->pos;
    if (d->riprel) {
        in->disp += d->pc + d->pos;
    }
    return d->end;
}

/* Blocks ----------------------------------------------------------------- */

/*
 * An add or sub to a register (code prev) right before the compare or
 * test of the pair at i, all on registers of 32 or 64 bits and of one
 * size: the three run as one (x86_fused3_fn).
 */
static void fuse_loop_end(DecodedBlock *db, unsigned i, int prev, int pair,
                          int cond)
{
    int aop = prev >> 6, aform = (prev >> 2) & 15, ot = prev & 3;
    int cop = pair >> 6, cform = (pair >> 2) & 15;

    if (prev < 0 || (aop != FUSE_ADD && aop != FUSE_SUB) ||
        (aform != F_RR && aform != F_RI) || ot < OT_L ||
        (cop != FUSE_CMP && cop != FUSE_TEST) ||
        (cform != F_RR && cform != F_RI) || (pair & 3) != ot) {
        return;
    }
    db->insns[i - 1].fn = x86_fused3_fn[aop == FUSE_SUB][aform == F_RI]
                                       [cop == FUSE_TEST][cform == F_RI]
                                       [ot - OT_L][cond];
}

/*
 * The optional instructions the vCPU's CPUID offers. A vCPU without a
 * CPUID table (unit tests) gets all of them.
 */
static unsigned dec_isa(CPUX86State *env)
{
    X86CPU *cpu = env->cpu;
    X86CPUIDEntry *e;
    unsigned isa = 0;

    if (!cpu || !cpu->ncpuid) {
        return ISA_ALL;
    }
    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 1, 0);
    if (e) {
        isa |= e->regs[X86_R_ECX] & (1u << 23) ? ISA_POPCNT : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 22) ? ISA_MOVBE : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 13) ? ISA_CX16 : 0;
        isa |= e->regs[X86_R_EDX] & (1u << 23) ? ISA_MMX : 0;
        isa |= e->regs[X86_R_EDX] & (1u << 24) ? ISA_FXSR : 0;
        isa |= e->regs[X86_R_EDX] & (1u << 25) ? ISA_SSE : 0;
        isa |= e->regs[X86_R_EDX] & (1u << 26) ? ISA_SSE2 : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 0) ? ISA_SSE3 : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 1) ? ISA_PCLMUL : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 9) ? ISA_SSSE3 : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 19) ? ISA_SSE41 : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 20) ? ISA_SSE42 : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 25) ? ISA_AES : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 26) ? ISA_XSAVE : 0;
    }
    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 0xd, 1);
    if (e) {
        isa |= e->regs[X86_R_EAX] & (1u << 0) ? ISA_XSAVEOPT : 0;
    }
    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 7, 0);
    if (e) {
        isa |= e->regs[X86_R_EBX] & (1u << 3) ? ISA_TZCNT : 0;
    }
    e = x86_cpuid_find(cpu->cpuid, cpu->ncpuid, 0x80000001, 0);
    if (e) {
        isa |= e->regs[X86_R_ECX] & (1u << 5) ? ISA_LZCNT : 0;
        isa |= e->regs[X86_R_ECX] & (1u << 0) ? ISA_LAHF64 : 0;
        isa |= e->regs[X86_R_EDX] & (1u << 27) ? ISA_RDTSCP : 0;
    }
    return isa;
}

void x86_decode_block(CPUX86State *env, DecodedBlock *db,
                      unsigned max_insns)
{
    uint32_t hf = env->hflags;
    Dec *d = g_alloca(sizeof(Dec));
    int16_t fuse[TB_MAX_INSNS], jcc[TB_MAX_INSNS];
    uint64_t lin0, lo, hi;
    unsigned n = 0;

    memset(d, 0, sizeof(*d));
    d->env = env;
    d->db = db;
    d->code64 = hf & HF_CS64_MASK;
    d->def_ot = d->code64 || (hf & HF_CS32_MASK) ? OT_L : OT_W;
    d->def_aot = d->code64 ? OT_Q : (hf & HF_CS32_MASK ? OT_L : OT_W);
    d->addseg = !d->code64 && ((hf & HF_ADDSEG_MASK) || !(hf & HF_PE_MASK) ||
                               (hf & HF_VM_MASK));
    d->stk = d->code64 ? STK_64 : (hf & HF_SS32_MASK ? STK_32 : STK_16);
    d->isa = dec_isa(env);
    if (d->addseg) {
        d->stk |= STK_SEG;
    }

    db->pc = env->rip;
    db->cs_base = env->segs[R_CS].base;
    db->flags = hf & HF_DECODE_MASK;
    db->cacheable = true;
    lin0 = db->cs_base + db->pc;
    if (!d->code64) {
        lin0 = (uint32_t)lin0;
    }
    dec_map_page(d, lin0);

    d->pc = db->pc;
    d->lin = lin0;
    lo = hi = lin0 & ~X86_PAGE_MASK;
    for (;;) {
        Insn *in = &db->insns[n];
        uint64_t next;
        int r;

        d->first = n == 0;
        r = dec_one(d, in);
        if (r < 0) {
            break;
        }
        in->off = d->pc - db->pc;
        in->next_rip = d->pc + in->len;
        fuse[n] = in->fn == op_ud ? -1 : d->fuse;
        jcc[n] = in->fn == op_ud ? -1 : d->jcc;
        n++;
        next = d->lin + in->len;
        if (!d->code64) {
            next = (uint32_t)next;
        }
        if (d->npages == 1) {
            lo = MIN(lo, d->lin & ~X86_PAGE_MASK);
            hi = MAX(hi, (d->lin & ~X86_PAGE_MASK) + in->len);
        }
        if (r == DEC_END_BLOCK && d->follow >= 0 && n < max_insns &&
            in->fn != op_ud && in->fn != op_gp0 && d->npages == 1) {
            /* A direct jmp/call within the page: decode on at its target. */
            uint64_t t = db->cs_base + in->imm;

            if (!d->code64) {
                t = (uint32_t)t;
            }
            if ((t & X86_PAGE_MASK) == d->page_lin[0]) {
                in->fn = x86_branch_fn[d->follow];
                d->pc = in->imm;
                d->lin = t;
                continue;
            }
        }
        if (d->chain && in->fn != op_ud && in->fn != op_gp0) {
            in->eaf |= EA_CHAIN;
            in->base = n;
        }
        d->pc += in->len;
        d->lin = next;
        if (r == DEC_END_BLOCK || n >= max_insns ||
            (d->lin & X86_PAGE_MASK) != d->page_lin[0]) {
            break;
        }
    }
    /* Pair ALU operations with the jcc after them (ops-fused.c). */
    for (unsigned i = 0; i + 1 < n; i++) {
        int f = fuse[i], c = jcc[i + 1];
        InsnFn fn;

        if (f < 0 || c < 0) {
            continue;
        }
        /* NULL for jp/jnp, which would need PF. */
        fn = x86_fused_fn[f >> 6][(f >> 2) & 15][f & 3][c];
        if (fn) {
            db->insns[i].fn = fn;
            db->insns[i + 1].aux = c;
            if (i > 0) {
                fuse_loop_end(db, i, fuse[i - 1], f, c);
            }
        }
    }
    db->n = n;
    x86_dead_flags(db);
    x86_ea_forms(db);
    memset(&db->insns[n], 0, sizeof(Insn));
    db->insns[n].fn = op_block_end;
    db->insns[n].off = d->pc - db->pc;
    db->insns[n].eaf = EA_CHAIN;
    db->insns[n].base = n;
    db->npages = d->npages;
    x86_rip_stores(db);

    /*
     * The bytes the block came from, for invalidation: one range in the
     * first page (spanning followed jumps), or the first instruction's
     * two pieces.
     */
    db->start0 = lo;
    if (d->npages == 2) {
        db->end0 = X86_PAGE_SIZE;
        db->end1 = (d->lin & ~X86_PAGE_MASK);
    } else {
        db->end0 = hi;
        db->end1 = 0;
    }
}
