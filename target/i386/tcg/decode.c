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
    d->handler = NULL;
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
static void dec_ev_gv(Dec *d, Insn *in, const X86Handler tab[F_NUM][4],
                      int ot, bool to_reg)
{
    dec_modrm(d, in);
    dec_regs(d, in, ot);
    if (d->mod == 3) {
        if (to_reg) {
            uint8_t t = in->rm;

            in->rm = in->reg;
            in->reg = t;
        }
        dec_handler(d, in, &tab[F_RR][ot]);
    } else {
        dec_handler(d, in, &tab[to_reg ? F_RM : F_MR][ot]);
        d->lock_ok = !to_reg;
    }
}

/* Group 1 with the modrm already read: op Ev, imm. */
static void dec_alu_imm(Dec *d, Insn *in, int op, int ot, uint64_t imm)
{
    in->imm = imm & ot_mask(ot);
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
        dec_handler(d, in, &x86_alu_fn[F_RI][op][ot]);
        dec_fuse(d, fuse_op(op), F_RI, ot);
    } else {
        dec_handler(d, in, &x86_alu_fn[F_MI][op][ot]);
        d->lock_ok = op != 7;
        dec_fuse(d, fuse_op(op), F_MI, ot);
    }
}

/* Rows ------------------------------------------------------------------ */

int dec_row_ot(Dec *d, const DecRow *r)
{
    switch (r->size) {
    case DEC_SZ_B:
        return OT_B;
    case DEC_SZ_64:
        return dec_ot64(d);
    case DEC_SZ_IO:
        return d->ot == OT_W ? OT_W : OT_L;
    default:
        return d->ot;
    }
}

bool dec_row(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    if (!r->form) {
        return false;
    }
    if ((r->flags & DEC_NO64) && d->code64) {
        dec_ud(d, in);
        return true;
    }
    if (r->flags & DEC_END) {
        d->end = DEC_END_BLOCK;
    }
    r->form(d, in, r, b);
    return true;
}

/*
 * The forms of the one-byte map: each reads the operands of opcode b
 * as its row names them and picks the handler (the row's, or one of
 * the operation's table).
 */

/* The row's handler, no operands. */
void dec_fixed(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_handler(d, in, r->fns);
}

/* The row's handler with the operand size in aux2 (cbw, cwd, iret). */
static void dec_fixed_ot(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->aux2 = dec_row_ot(d, r);
    dec_handler(d, in, r->fns);
}

/* The row's handler with an imm8 (aam, aad). */
static void dec_fixed_ib(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->imm = dec_u8(d);
    dec_handler(d, in, r->fns);
}

/* op Eb,Gb / Ev,Gv (row arg 0) or op Gb,Eb / Gv,Ev (1); op in b. */
static void dec_alu(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int op = b >> 3, ot = dec_row_ot(d, r);
    bool to_reg = r->arg;

    dec_modrm(d, in);
    dec_regs(d, in, ot);
    if (d->mod == 3) {
        if (to_reg) {
            uint8_t t = in->rm;

            in->rm = in->reg;
            in->reg = t;
        }
        dec_handler(d, in, &x86_alu_fn[F_RR][op][ot]);
        dec_fuse(d, fuse_op(op), F_RR, ot);
    } else {
        dec_handler(d, in, &x86_alu_fn[to_reg ? F_RM : F_MR][op][ot]);
        d->lock_ok = !to_reg && op != 7;
        dec_fuse(d, fuse_op(op), to_reg ? F_RM : F_MR, ot);
    }
}

/* op AL,Ib / eAX,Iz; op in b. */
static void dec_alu_acc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int op = b >> 3, ot = dec_row_ot(d, r);

    in->rm = R_EAX;
    in->imm = dec_imm(d, ot) & ot_mask(ot);
    dec_handler(d, in, &x86_alu_fn[F_RI][op][ot]);
    dec_fuse(d, fuse_op(op), F_RI, ot);
}

/* Group 1: op Eb,Ib / Ev,Iz (row arg 0) or op Ev,Ib sign-extended (1). */
static void dec_grp1(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);
    uint64_t imm;

    dec_modrm(d, in);
    imm = r->arg ? dec_imm8s(d) : dec_imm(d, ot);
    dec_alu_imm(d, in, d->regf & 7, ot, imm);
}

/* test AL,Ib / eAX,Iz. */
static void dec_test_acc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    in->rm = R_EAX;
    in->imm = dec_imm(d, ot) & ot_mask(ot);
    dec_handler(d, in, &x86_test_fn[F_RI][ot]);
    dec_fuse(d, FUSE_TEST, F_RI, ot);
}

/* test Eb,Gb / Ev,Gv. */
static void dec_test(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    dec_ev_gv(d, in, x86_test_fn, ot, false);
    d->lock_ok = false;
    dec_fuse(d, FUSE_TEST, d->mod == 3 ? F_RR : F_MR, ot);
}

/* inc/dec r (outside 64-bit code, where these are REX): the row's table. */
static void dec_incdec_r(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->rm = b & 7;
    dec_handler(d, in, &r->fns[d->ot]);
}

/* push/pop r: the row's table (x86_push_fn or x86_pop_fn). */
static void dec_push_r(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_ot64(d);

    in->rm = (b & 7) | (d->rex & REX_B ? 8 : 0);
    in->aux2 = ot;
    in->stk = d->stk;
    if (d->stk == STK_64 && ot == OT_Q) {
        dec_handler(d, in, &r->fns[PUSH_R64]);
    } else if (d->stk == STK_32 && ot == OT_L) {
        dec_handler(d, in, &r->fns[PUSH_R32]);
    } else {
        dec_handler(d, in, &r->fns[PUSH_R]);
    }
}

/* push Iz (row arg 0) or Ib (1). */
static void dec_push_imm(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_ot64(d);

    in->imm = r->arg ? dec_imm8s(d) : dec_imm(d, ot == OT_W ? OT_W : OT_Q);
    in->aux2 = ot;
    in->stk = d->stk;
    dec_handler(d, in, &x86_push_fn[PUSH_I]);
}

/* pop Ev (group 1a). */
static void dec_pop_ev(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if ((d->regf & 7) != 0) {
        dec_ud(d, in);
        return;
    }
    in->aux2 = dec_ot64(d);
    in->stk = d->stk;
    if (d->mod == 3) {
        in->rm = d->rmf;
        dec_handler(d, in, &x86_pop_fn[PUSH_R]);
    } else {
        dec_handler(d, in, &x86_pop_fn[PUSH_M]);
    }
}

void dec_stack(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->aux = r->arg;
    in->aux2 = dec_row_ot(d, r);
    in->stk = d->stk;
    dec_handler(d, in, r->fns);
}

/* enter Iw, Ib. */
static void dec_enter(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->imm2 = dec_u16(d);
    in->imm = dec_u8(d);
    dec_stack(d, in, r, b);
}

/* 63: movsxd Gv, Ed in 64-bit code, else arpl Ew, Gw. */
static void dec_movsxd_arpl(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if (d->code64) {
        dec_regs(d, in, OT_L);
        dec_handler(d, in, &x86_movx_fn[d->mod != 3][1][OT_L][d->ot]);
        return;
    }
    dec_regs(d, in, OT_W);
    in->aux2 = OT_W;
    dec_handler(d, in, &x86_sys_fn[SYS_ARPL]);
}

/* imul Gv, Ev, Iz (row arg 0) or Ib (1). */
static void dec_imul_imm(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->ot;

    dec_modrm(d, in);
    dec_regs(d, in, ot);
    in->imm = r->arg ? dec_imm8s(d) : dec_imm(d, ot);
    in->aux = 1;
    dec_handler(d, in, &x86_imul_fn[d->mod != 3][ot]);
}

/* String instructions: the row's table by operand size. */
static void dec_string(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    dec_implicit_ea(d, in);
    in->aux2 = ot;
    if (d->prefix & P_F3) {
        in->aux = REP_E;
    } else if (d->prefix & P_F2) {
        in->aux = REP_NE;
    }
    dec_handler(d, in, &r->fns[ot]);
}

/* jcc rel8 (row arg 0) or rel16/32 (1). */
void dec_jcc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->code64 ? OT_Q : d->ot;
    int64_t rel;

    if (!r->arg) {
        rel = (int8_t)dec_u8(d);
    } else {
        rel = ot == OT_W ? (int16_t)dec_u16(d) : (int32_t)dec_u32(d);
    }
    in->imm = dec_target(d, ot, rel);
    dec_handler(d, in, &x86_jcc_fn[b & 15]);
    d->chain = true;
    d->jcc = b & 15;
}

/* xchg Eb,Gb / Ev,Gv. */
static void dec_xchg(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    dec_modrm(d, in);
    dec_regs(d, in, ot);
    dec_handler(d, in, &x86_xchg_fn[d->mod != 3][ot]);
    d->lock_ok = d->mod != 3;
}

/* xchg eAX, r. */
static void dec_xchg_acc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->rm = R_EAX;
    in->reg = (b & 7) | (d->rex & REX_B ? 8 : 0);
    dec_handler(d, in, &x86_xchg_fn[0][d->ot]);
}

/* 90: nop, pause (f3), xchg r8, rax (REX.B). */
static void dec_nop(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    if (d->rex & REX_B) {
        dec_xchg_acc(d, in, r, b);
    } else if (d->prefix & P_F3) {
        dec_handler(d, in, &x86_sys_fn[SYS_PAUSE]);
    } else {
        dec_handler(d, in, &x86_nop);
    }
}

/* mov Eb,Gb / Ev,Gv (row arg 0) or Gb,Eb / Gv,Ev (1). */
static void dec_mov(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_ev_gv(d, in, x86_mov_fn, dec_row_ot(d, r), r->arg);
    d->lock_ok = false;
}

/* mov Ev, Sw (row arg 0) or Sw, Ew (1): the row's handler. */
static void dec_mov_sreg(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    in->aux = d->regf & 7;
    if (in->aux > R_GS || (r->arg && in->aux == R_CS)) {
        dec_ud(d, in);
        return;
    }
    if (d->mod == 3) {
        in->rm = d->rmf;
    }
    in->aux2 = d->ot;
    dec_handler(d, in, r->fns);
}

/* lea Gv, M. */
static void dec_lea(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if (d->mod == 3) {
        dec_ud(d, in);
        return;
    }
    in->reg = d->regf;
    in->eaf &= ~EA_SEG;
    dec_handler(d, in, &x86_lea_fn[d->ot]);
}

/* mov r, imm (b0..bf): imm64 for 64-bit operands. */
static void dec_mov_imm(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    in->rm = dec_reg(d, ot, (b & 7) | (d->rex & REX_B ? 8 : 0));
    in->imm = ot == OT_Q ? dec_u64(d) : dec_imm(d, ot);
    dec_handler(d, in, &x86_mov_fn[F_RI][ot]);
}

/* mov Eb,Ib / Ev,Iz (group 11). */
static void dec_mov_ei(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    dec_modrm(d, in);
    if ((d->regf & 7) != 0) {
        dec_ud(d, in);
        return;
    }
    in->imm = dec_imm(d, ot) & ot_mask(ot);
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
        dec_handler(d, in, &x86_mov_fn[F_RI][ot]);
    } else {
        dec_handler(d, in, &x86_mov_fn[F_MI][ot]);
    }
}

/* lcall/ljmp ptr16:16/32: the row's handler. */
static void dec_far_imm(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->imm = dec_imm(d, d->ot);
    in->imm2 = dec_u16(d);
    in->aux2 = d->ot;
    in->stk = d->stk;
    dec_handler(d, in, r->fns);
}

/* sahf, lahf: in 64-bit code only where CPUID offers them. */
static void dec_lahf(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    if (d->code64 && !(d->isa & ISA_LAHF64)) {
        dec_ud(d, in);
        return;
    }
    dec_handler(d, in, r->fns);
}

/* mov AL/eAX, moffs and back: the row's handler. */
static void dec_moffs(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_implicit_ea(d, in);
    in->imm = d->aot == OT_Q ? dec_u64(d) : dec_imm(d, d->aot);
    in->aux2 = dec_row_ot(d, r);
    dec_handler(d, in, r->fns);
}

/* Group 2 shifts; the count (row arg): DEC_CNT_*. */
enum { DEC_CNT_CL, DEC_CNT_1, DEC_CNT_IB };

static void dec_shift(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    dec_modrm(d, in);
    if (r->arg == DEC_CNT_CL) {
        in->aux = 1;
    } else if (r->arg == DEC_CNT_IB) {
        in->imm = dec_u8(d);
    } else {
        in->imm = 1;
    }
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
    }
    dec_handler(d, in, &x86_shift_fn[d->mod != 3][d->regf & 7][ot]);
}

/* ret near, with an imm16 to pop (row arg 1) or not. */
static void dec_ret(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->imm2 = r->arg ? dec_u16(d) : 0;
    in->aux2 = d->code64 ? OT_Q : d->ot;
    in->stk = d->stk;
    dec_handler(d, in, &x86_branch_fn[d->stk == STK_64 ? BR_RET64 : BR_RET]);
}

/* ret far, with an imm16 to pop (row arg 1) or not. */
static void dec_lret(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->imm2 = r->arg ? dec_u16(d) : 0;
    in->aux2 = d->ot;
    dec_handler(d, in, &x86_far_fn[FAR_LRET]);
}

/*
 * Gv, M (bound: a register operand is EVEX; les, lds: the segment
 * as the row's argument): the row's handler.
 */
void dec_gv_m(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if (d->mod == 3) {
        dec_ud(d, in);
        return;
    }
    in->reg = d->regf;
    in->aux = r->arg;
    in->aux2 = d->ot;
    dec_handler(d, in, r->fns);
}

/* int3, int1 (row arg: the vector) and int Ib (row arg 0). */
static void dec_int(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->imm = r->arg ? r->arg : dec_u8(d);
    dec_handler(d, in, &x86_far_fn[FAR_INT]);
}

static void dec_xlat(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_implicit_ea(d, in);
    dec_handler(d, in, &x86_xlat_fn);
}

/* loopne, loope, loop, jcxz: the kind in b. */
static void dec_loop(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int64_t rel = (int8_t)dec_u8(d);

    dec_implicit_ea(d, in);
    in->imm = dec_target(d, d->code64 ? OT_Q : d->ot, rel);
    in->aux = b - 0xe0;
    dec_handler(d, in, &x86_loop_fn);
    d->chain = true;
}

/* in/out with the port in an imm8 (row arg 1) or in DX (0). */
static void dec_io(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    if (r->arg) {
        in->imm = dec_u8(d);
    } else {
        in->aux = 1;
    }
    in->aux2 = dec_row_ot(d, r);
    dec_handler(d, in, r->fns);
}

/* call rel16/32; the decoder may go on at its target. */
static void dec_call(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->code64 ? OT_Q : d->ot;
    int64_t rel = ot == OT_W ? (int16_t)dec_u16(d) : (int32_t)dec_u32(d);

    in->imm = dec_target(d, ot, rel);
    in->aux2 = ot;
    in->stk = d->stk;
    dec_handler(d, in, &x86_branch_fn[d->stk == STK_64 ? BR_CALL64 : BR_CALL]);
    d->chain = true;
    d->follow = d->stk == STK_64 ? BR_CALL64_IN : BR_CALL_IN;
}

/* jmp rel16/32 (row arg 0) or rel8 (1); the decoder may go on. */
static void dec_jmp(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->code64 ? OT_Q : d->ot;
    int64_t rel;

    if (r->arg) {
        rel = (int8_t)dec_u8(d);
    } else {
        rel = ot == OT_W ? (int16_t)dec_u16(d) : (int32_t)dec_u32(d);
    }
    in->imm = dec_target(d, ot, rel);
    dec_handler(d, in, &x86_branch_fn[BR_JMP]);
    d->chain = true;
    d->follow = BR_JMP_IN;
}

/* Group 3: test/not/neg/mul/imul/div/idiv. */
static void dec_grp3(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r), op;

    dec_modrm(d, in);
    op = d->regf & 7;
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
    }
    switch (op) {
    case 0:
    case 1:
        in->imm = dec_imm(d, ot) & ot_mask(ot);
        dec_handler(d, in, &x86_test_fn[d->mod == 3 ? F_RI : F_MI][ot]);
        dec_fuse(d, FUSE_TEST, d->mod == 3 ? F_RI : F_MI, ot);
        break;
    case 2:
    case 3:
        dec_handler(d, in, &x86_unary_fn[d->mod != 3][op][ot]);
        d->lock_ok = d->mod != 3;
        break;
    default:
        dec_handler(d, in, &x86_muldiv_fn[d->mod != 3][op - 4][ot]);
        break;
    }
}

/* Group 5's near and far indirect branches and push (op 2..6). */
static void dec_grp5_branch(Dec *d, Insn *in, int op)
{
    int ot;

    switch (op) {
    case 2:
    case 4:
        /* Near indirect: 64 bits in 64-bit code whatever 66 says. */
        in->aux2 = d->code64 ? OT_Q : d->ot;
        in->stk = d->stk;
        if (d->mod == 3) {
            in->rm = d->rmf;
            dec_handler(d, in, &x86_branch_fn[op == 2 ? BR_CALL_R : BR_JMP_R]);
        } else {
            dec_handler(d, in, &x86_branch_fn[op == 2 ? BR_CALL_M : BR_JMP_M]);
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
        dec_handler(d, in, &x86_far_fn[op == 3 ? FAR_LCALL_M : FAR_LJMP_M]);
        d->end = DEC_END_BLOCK;
        return;
    default:
        ot = dec_ot64(d);
        in->aux2 = ot;
        in->stk = d->stk;
        if (d->mod == 3) {
            in->rm = d->rmf;
            dec_handler(d, in, &x86_push_fn[PUSH_R]);
        } else {
            dec_handler(d, in, &x86_push_fn[PUSH_M]);
        }
        return;
    }
}

/* Groups 4 (fe: inc/dec Eb) and 5 (ff: also call, jmp, push). */
static void dec_grp5(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r), op;

    dec_modrm(d, in);
    op = d->regf & 7;
    if (op == 7 || (ot == OT_B && op > 1)) {
        dec_ud(d, in);
        return;
    }
    if (op > 1) {
        dec_grp5_branch(d, in, op);
        return;
    }
    if (d->mod == 3) {
        in->rm = dec_reg(d, ot, d->rmf);
    }
    dec_handler(d, in, &x86_unary_fn[d->mod != 3][op][ot]);
    d->lock_ok = d->mod != 3;
}

/* The x87 escapes d8..df. */
static void dec_esc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_x87(d, in, b);
}

/* The two-byte map. */
static void dec_0f_esc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_0f(d, in, dec_u8(d));
}

/* The one-byte map ------------------------------------------------------ */

/* fwait, the one handler of the x87 (fpu-x87.c) a row names. */
static const X86Handler fwait_fn = { X86_H(x87_op_fwait) };

#define ROW(form, fns, arg, size, flags)                                  \
    { dec_##form, fns, arg, DEC_SZ_##size, flags }
/* op Eb,Gb; op Ev,Gv; op Gb,Eb; op Gv,Ev; op AL,Ib; op eAX,Iz. */
#define ALU_ROWS(b)                                                       \
    [(b) + 0] = ROW(alu, NULL, 0, B, 0),                                  \
    [(b) + 1] = ROW(alu, NULL, 0, V, 0),                                  \
    [(b) + 2] = ROW(alu, NULL, 1, B, 0),                                  \
    [(b) + 3] = ROW(alu, NULL, 1, V, 0),                                  \
    [(b) + 4] = ROW(alu_acc, NULL, 0, B, 0),                              \
    [(b) + 5] = ROW(alu_acc, NULL, 0, V, 0)
#define NO64        DEC_NO64
#define END         DEC_END

/*
 * Opcode, then: form, the handler (or its table), the form's argument,
 * the operand size and whether it is #UD in 64-bit code (NO64) or ends
 * the block (END). Rows left out are #UD; the prefixes never get here.
 */
static const DecRow onebyte_map[256] = {
    ALU_ROWS(0x00),
    [0x06] = ROW(stack, &x86_stack_fn[STK_OP_PUSH_SREG], R_ES, 64, NO64),
    [0x07] = ROW(stack, &x86_stack_fn[STK_OP_POP_SREG], R_ES, 64,
                 NO64 | END),
    ALU_ROWS(0x08),
    [0x0e] = ROW(stack, &x86_stack_fn[STK_OP_PUSH_SREG], R_CS, 64, NO64),
    [0x0f] = ROW(0f_esc, NULL, 0, V, 0),
    ALU_ROWS(0x10),
    [0x16] = ROW(stack, &x86_stack_fn[STK_OP_PUSH_SREG], R_SS, 64, NO64),
    [0x17] = ROW(stack, &x86_stack_fn[STK_OP_POP_SREG], R_SS, 64,
                 NO64 | END),
    ALU_ROWS(0x18),
    [0x1e] = ROW(stack, &x86_stack_fn[STK_OP_PUSH_SREG], R_DS, 64, NO64),
    [0x1f] = ROW(stack, &x86_stack_fn[STK_OP_POP_SREG], R_DS, 64,
                 NO64 | END),
    ALU_ROWS(0x20),
    [0x27] = ROW(fixed, &x86_flag_fn[FL_DAA], 0, V, NO64),
    ALU_ROWS(0x28),
    [0x2f] = ROW(fixed, &x86_flag_fn[FL_DAS], 0, V, NO64),
    ALU_ROWS(0x30),
    [0x37] = ROW(fixed, &x86_flag_fn[FL_AAA], 0, V, NO64),
    ALU_ROWS(0x38),
    [0x3f] = ROW(fixed, &x86_flag_fn[FL_AAS], 0, V, NO64),
    [0x40 ... 0x47] = ROW(incdec_r, x86_unary_fn[0][0], 0, V, 0),
    [0x48 ... 0x4f] = ROW(incdec_r, x86_unary_fn[0][1], 0, V, 0),
    [0x50 ... 0x57] = ROW(push_r, x86_push_fn, 0, 64, 0),
    [0x58 ... 0x5f] = ROW(push_r, x86_pop_fn, 0, 64, 0),
    [0x60] = ROW(stack, &x86_stack_fn[STK_OP_PUSHA], 0, V, NO64),
    [0x61] = ROW(stack, &x86_stack_fn[STK_OP_POPA], 0, V, NO64),
    [0x62] = ROW(gv_m, &x86_sys_fn[SYS_BOUND], 0, V, NO64),
    [0x63] = ROW(movsxd_arpl, NULL, 0, V, 0),
    [0x68] = ROW(push_imm, NULL, 0, 64, 0),
    [0x69] = ROW(imul_imm, NULL, 0, V, 0),
    [0x6a] = ROW(push_imm, NULL, 1, 64, 0),
    [0x6b] = ROW(imul_imm, NULL, 1, V, 0),
    [0x6c] = ROW(string, x86_string_fn[STR_INS], 0, B, 0),
    [0x6d] = ROW(string, x86_string_fn[STR_INS], 0, IO, 0),
    [0x6e] = ROW(string, x86_string_fn[STR_OUTS], 0, B, 0),
    [0x6f] = ROW(string, x86_string_fn[STR_OUTS], 0, IO, 0),
    [0x70 ... 0x7f] = ROW(jcc, NULL, 0, V, 0),
    [0x80] = ROW(grp1, NULL, 0, B, 0),
    [0x81] = ROW(grp1, NULL, 0, V, 0),
    [0x82] = ROW(grp1, NULL, 0, B, NO64),
    [0x83] = ROW(grp1, NULL, 1, V, 0),
    [0x84] = ROW(test, NULL, 0, B, 0),
    [0x85] = ROW(test, NULL, 0, V, 0),
    [0x86] = ROW(xchg, NULL, 0, B, 0),
    [0x87] = ROW(xchg, NULL, 0, V, 0),
    [0x88] = ROW(mov, NULL, 0, B, 0),
    [0x89] = ROW(mov, NULL, 0, V, 0),
    [0x8a] = ROW(mov, NULL, 1, B, 0),
    [0x8b] = ROW(mov, NULL, 1, V, 0),
    [0x8c] = ROW(mov_sreg, &x86_sys_fn[SYS_MOV_FROM_SREG], 0, V, 0),
    [0x8d] = ROW(lea, NULL, 0, V, 0),
    [0x8e] = ROW(mov_sreg, &x86_sys_fn[SYS_MOV_TO_SREG], 1, V, END),
    [0x8f] = ROW(pop_ev, NULL, 0, 64, 0),
    [0x90] = ROW(nop, NULL, 0, V, 0),
    [0x91 ... 0x97] = ROW(xchg_acc, NULL, 0, V, 0),
    [0x98] = ROW(fixed_ot, &x86_cbw_fn, 0, V, 0),
    [0x99] = ROW(fixed_ot, &x86_cwd_fn, 0, V, 0),
    [0x9a] = ROW(far_imm, &x86_far_fn[FAR_LCALL_I], 0, V, NO64 | END),
    [0x9b] = ROW(fixed, &fwait_fn, 0, V, 0),
    [0x9c] = ROW(stack, &x86_stack_fn[STK_OP_PUSHF], 0, 64, 0),
    [0x9d] = ROW(stack, &x86_stack_fn[STK_OP_POPF], 0, 64, END),
    [0x9e] = ROW(lahf, &x86_flag_fn[FL_SAHF], 0, V, 0),
    [0x9f] = ROW(lahf, &x86_flag_fn[FL_LAHF], 0, V, 0),
    [0xa0] = ROW(moffs, &x86_moffs_fn[0], 0, B, 0),
    [0xa1] = ROW(moffs, &x86_moffs_fn[0], 0, V, 0),
    [0xa2] = ROW(moffs, &x86_moffs_fn[1], 0, B, 0),
    [0xa3] = ROW(moffs, &x86_moffs_fn[1], 0, V, 0),
    [0xa4] = ROW(string, x86_string_fn[STR_MOVS], 0, B, 0),
    [0xa5] = ROW(string, x86_string_fn[STR_MOVS], 0, V, 0),
    [0xa6] = ROW(string, x86_string_fn[STR_CMPS], 0, B, 0),
    [0xa7] = ROW(string, x86_string_fn[STR_CMPS], 0, V, 0),
    [0xa8] = ROW(test_acc, NULL, 0, B, 0),
    [0xa9] = ROW(test_acc, NULL, 0, V, 0),
    [0xaa] = ROW(string, x86_string_fn[STR_STOS], 0, B, 0),
    [0xab] = ROW(string, x86_string_fn[STR_STOS], 0, V, 0),
    [0xac] = ROW(string, x86_string_fn[STR_LODS], 0, B, 0),
    [0xad] = ROW(string, x86_string_fn[STR_LODS], 0, V, 0),
    [0xae] = ROW(string, x86_string_fn[STR_SCAS], 0, B, 0),
    [0xaf] = ROW(string, x86_string_fn[STR_SCAS], 0, V, 0),
    [0xb0 ... 0xb7] = ROW(mov_imm, NULL, 0, B, 0),
    [0xb8 ... 0xbf] = ROW(mov_imm, NULL, 0, V, 0),
    [0xc0] = ROW(shift, NULL, DEC_CNT_IB, B, 0),
    [0xc1] = ROW(shift, NULL, DEC_CNT_IB, V, 0),
    [0xc2] = ROW(ret, NULL, 1, V, END),
    [0xc3] = ROW(ret, NULL, 0, V, END),
    [0xc4] = ROW(gv_m, &x86_sys_fn[SYS_LXS], R_ES, V, NO64 | END),
    [0xc5] = ROW(gv_m, &x86_sys_fn[SYS_LXS], R_DS, V, NO64 | END),
    [0xc6] = ROW(mov_ei, NULL, 0, B, 0),
    [0xc7] = ROW(mov_ei, NULL, 0, V, 0),
    [0xc8] = ROW(enter, &x86_stack_fn[STK_OP_ENTER], 0, 64, 0),
    [0xc9] = ROW(stack, &x86_stack_fn[STK_OP_LEAVE], 0, 64, 0),
    [0xca] = ROW(lret, NULL, 1, V, END),
    [0xcb] = ROW(lret, NULL, 0, V, END),
    [0xcc] = ROW(int, NULL, EXCP03_INT3, V, END),
    [0xcd] = ROW(int, NULL, 0, V, END),
    [0xce] = ROW(fixed, &x86_far_fn[FAR_INTO], 0, V, NO64 | END),
    [0xcf] = ROW(fixed_ot, &x86_far_fn[FAR_IRET], 0, V, END),
    [0xd0] = ROW(shift, NULL, DEC_CNT_1, B, 0),
    [0xd1] = ROW(shift, NULL, DEC_CNT_1, V, 0),
    [0xd2] = ROW(shift, NULL, DEC_CNT_CL, B, 0),
    [0xd3] = ROW(shift, NULL, DEC_CNT_CL, V, 0),
    [0xd4] = ROW(fixed_ib, &x86_flag_fn[FL_AAM], 0, V, NO64),
    [0xd5] = ROW(fixed_ib, &x86_flag_fn[FL_AAD], 0, V, NO64),
    [0xd6] = ROW(fixed, &x86_flag_fn[FL_SALC], 0, V, NO64),
    [0xd7] = ROW(xlat, NULL, 0, V, 0),
    [0xd8 ... 0xdf] = ROW(esc, NULL, 0, V, 0),
    [0xe0 ... 0xe3] = ROW(loop, NULL, 0, V, 0),
    [0xe4] = ROW(io, &x86_sys_fn[SYS_IN], 1, B, 0),
    [0xe5] = ROW(io, &x86_sys_fn[SYS_IN], 1, IO, 0),
    [0xe6] = ROW(io, &x86_sys_fn[SYS_OUT], 1, B, 0),
    [0xe7] = ROW(io, &x86_sys_fn[SYS_OUT], 1, IO, 0),
    [0xe8] = ROW(call, NULL, 0, V, END),
    [0xe9] = ROW(jmp, NULL, 0, V, END),
    [0xea] = ROW(far_imm, &x86_far_fn[FAR_LJMP_I], 0, V, NO64 | END),
    [0xeb] = ROW(jmp, NULL, 1, V, END),
    [0xec] = ROW(io, &x86_sys_fn[SYS_IN], 0, B, 0),
    [0xed] = ROW(io, &x86_sys_fn[SYS_IN], 0, IO, 0),
    [0xee] = ROW(io, &x86_sys_fn[SYS_OUT], 0, B, 0),
    [0xef] = ROW(io, &x86_sys_fn[SYS_OUT], 0, IO, 0),
    [0xf1] = ROW(int, NULL, EXCP01_DB, V, END),
    [0xf4] = ROW(fixed, &x86_sys_fn[SYS_HLT], 0, V, END),
    [0xf5] = ROW(fixed, &x86_flag_fn[FL_CMC], 0, V, 0),
    [0xf6] = ROW(grp3, NULL, 0, B, 0),
    [0xf7] = ROW(grp3, NULL, 0, V, 0),
    [0xf8] = ROW(fixed, &x86_flag_fn[FL_CLC], 0, V, 0),
    [0xf9] = ROW(fixed, &x86_flag_fn[FL_STC], 0, V, 0),
    [0xfa] = ROW(fixed, &x86_sys_fn[SYS_CLI], 0, V, 0),
    [0xfb] = ROW(fixed, &x86_sys_fn[SYS_STI], 0, V, END),
    [0xfc] = ROW(fixed, &x86_flag_fn[FL_CLD], 0, V, 0),
    [0xfd] = ROW(fixed, &x86_flag_fn[FL_STD], 0, V, 0),
    [0xfe] = ROW(grp5, NULL, 0, B, 0),
    [0xff] = ROW(grp5, NULL, 0, V, 0),
};

static void dec_onebyte(Dec *d, Insn *in, uint8_t b)
{
    if (!dec_row(d, in, &onebyte_map[b], b)) {
        dec_ud(d, in);
    }
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
    d->handler = NULL;
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
static void fuse_loop_end(DecodedBlock *db, const X86Handler **h,
                          unsigned i, int prev, int pair, int cond)
{
    int aop = prev >> 6, aform = (prev >> 2) & 15, ot = prev & 3;
    int cop = pair >> 6, cform = (pair >> 2) & 15;

    if (prev < 0 || (aop != FUSE_ADD && aop != FUSE_SUB) ||
        (aform != F_RR && aform != F_RI) || ot < OT_L ||
        (cop != FUSE_CMP && cop != FUSE_TEST) ||
        (cform != F_RR && cform != F_RI) || (pair & 3) != ot) {
        return;
    }
    h[i - 1] = &x86_fused3_fn[aop == FUSE_SUB][aform == F_RI]
                             [cop == FUSE_TEST][cform == F_RI]
                             [ot - OT_L][cond];
    db->insns[i - 1].fn = h[i - 1]->fn;
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
    const X86Handler *h[TB_MAX_INSNS + 1];  /* the rows, for the passes */
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
        /* Not the row's handler if a check made it #UD after all. */
        h[n] = d->handler && d->handler->fn == in->fn ? d->handler : NULL;
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
                h[n - 1] = &x86_branch_fn[d->follow];
                in->fn = h[n - 1]->fn;
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
        const X86Handler *pair;

        if (f < 0 || c < 0) {
            continue;
        }
        /* None for jp/jnp, which would need PF. */
        pair = &x86_fused_fn[f >> 6][(f >> 2) & 15][f & 3][c];
        if (pair->fn) {
            db->insns[i].fn = pair->fn;
            h[i] = pair;
            db->insns[i + 1].aux = c;
            if (i > 0) {
                fuse_loop_end(db, h, i, fuse[i - 1], f, c);
            }
        }
    }
    db->n = n;
    h[n] = NULL;
    x86_dead_flags(db, h);
    x86_ea_forms(db, h);
    memset(&db->insns[n], 0, sizeof(Insn));
    db->insns[n].fn = op_block_end;
    db->insns[n].off = d->pc - db->pc;
    db->insns[n].eaf = EA_CHAIN;
    db->insns[n].base = n;
    db->npages = d->npages;
    x86_rip_stores(db, h);

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
