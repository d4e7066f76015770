/*
 * The two-byte opcode map (0f xx) as a table of rows (DecRow,
 * decode.h). The vector opcodes and the three-byte maps 0f 38 and
 * 0f 3a (movbe, crc32 among them) go to decode-vec.c; features CPUID
 * does not advertise decode to #UD.
 */
#include "target/i386/tcg/decode.h"

/* mov to/from control (b & 1 clear) and debug registers: mod is ignored. */
static void dec_mov_crdr(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    uint8_t m = dec_u8(d);
    unsigned n = ((m >> 3) & 7) | (d->rex & REX_R ? 8 : 0);

    in->rm = (m & 7) | (d->rex & REX_B ? 8 : 0);
    in->aux = n;
    in->aux2 = d->code64 ? OT_Q : OT_L;
    if (b & 1) {
        /* Debug registers: DR0..DR7 only. */
        if (n > 7) {
            dec_ud(d, in);
            return;
        }
        dec_handler(d, in, &x86_sys_fn[b & 2 ? SYS_MOV_TO_DR : SYS_MOV_FROM_DR]);
        return;
    }
    if (n != 0 && n != 2 && n != 3 && n != 4 && n != 8) {
        dec_ud(d, in);
        return;
    }
    if (b & 2) {
        dec_handler(d, in, &x86_sys_fn[SYS_MOV_TO_CR]);
        d->end = DEC_END_BLOCK;
    } else {
        dec_handler(d, in, &x86_sys_fn[SYS_MOV_FROM_CR]);
    }
}

/* 0f 00: sldt, str, lldt, ltr, verr, verw. */
static void dec_grp6(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if ((d->regf & 7) > 5) {
        dec_ud(d, in);
        return;
    }
    in->aux = d->regf & 7;
    in->aux2 = d->ot;
    if (d->mod == 3) {
        in->rm = d->rmf;
    }
    dec_handler(d, in, &x86_sys_fn[SYS_GRP6]);
}

/* 0f 01 with a register operand: xgetbv, xsetbv, swapgs, rdtscp. */
static bool dec_grp7_reg(Dec *d, Insn *in, int op)
{
    switch (op) {
    case 4:
    case 6:
        in->rm = d->rmf;
        return false;           /* smsw, lmsw as with memory */
    case 2:
        /* xgetbv, xsetbv: CR4.OSXSAVE decides at run time. */
        if ((d->rmf & 7) < 2 && (d->isa & ISA_XSAVE)) {
            dec_handler(d, in, &x86_sys_fn[(d->rmf & 7) ? SYS_XSETBV : SYS_XGETBV]);
            return true;
        }
        break;
    case 7:
        if ((d->rmf & 7) == 0 && d->code64) {
            dec_handler(d, in, &x86_sys_fn[SYS_SWAPGS]);
            return true;
        }
        if ((d->rmf & 7) == 1 && (d->isa & ISA_RDTSCP)) {
            dec_handler(d, in, &x86_sys_fn[SYS_RDTSCP]);
            return true;
        }
        break;
    default:
        /* monitor/mwait, clac/stac, VMX/SVM: not offered. */
        break;
    }
    dec_ud(d, in);
    return true;
}

/* 0f 01: sgdt, sidt, lgdt, lidt, smsw, lmsw, invlpg, swapgs, rdtscp. */
static void dec_grp7(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int op;

    dec_modrm(d, in);
    op = d->regf & 7;
    if (d->mod == 3 && dec_grp7_reg(d, in, op)) {
        return;
    }
    in->aux2 = d->code64 ? OT_Q : d->ot;
    switch (op) {
    case 0:
    case 1:
        in->aux = op;
        dec_handler(d, in, &x86_sys_fn[SYS_SGDT]);
        return;
    case 2:
    case 3:
        in->aux = op - 2;
        dec_handler(d, in, &x86_sys_fn[SYS_LGDT]);
        return;
    case 4:
        in->aux2 = d->ot;
        dec_handler(d, in, &x86_sys_fn[SYS_SMSW]);
        return;
    case 6:
        dec_handler(d, in, &x86_sys_fn[SYS_LMSW]);
        d->end = DEC_END_BLOCK;
        return;
    case 7:
        dec_handler(d, in, &x86_sys_fn[SYS_INVLPG]);
        d->end = DEC_END_BLOCK;
        return;
    default:
        dec_ud(d, in);
        return;
    }
}

/* Gv, Ev with the register fields set. */
static void dec_gv_ev(Dec *d, Insn *in, int ot)
{
    dec_modrm(d, in);
    dec_regs(d, in, ot);
}

/* sysret, sysexit: the row's handler, 64-bit with REX.W. */
static void dec_sysret(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->aux2 = d->rex & REX_W ? OT_Q : OT_L;
    dec_handler(d, in, r->fns);
}

/* lar (row arg 0), lsl (1): Gv, Ew. */
static void dec_lar(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_gv_ev(d, in, OT_W);
    in->reg = d->regf;
    if (d->mod == 3) {
        in->rm = d->rmf;
    }
    in->aux = r->arg;
    in->aux2 = d->ot;
    dec_handler(d, in, &x86_sys_fn[SYS_LAR_LSL]);
}

/* Hint nops with a modrm: prefetch (memory only, row arg 1), nop Ev. */
static void dec_nop_ev(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if (r->arg && d->mod == 3) {
        dec_ud(d, in);
        return;
    }
    dec_handler(d, in, &x86_nop);
}

/* cmovcc Gv, Ev: the condition in b. */
static void dec_cmov(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->ot;

    dec_gv_ev(d, in, ot);
    in->aux = b & 15;
    dec_handler(d, in, d->mod == 3 ? &x86_cmov_r_fn[b & 15][ot]
                                   : &x86_cmov_m_fn[ot]);
}

/* setcc Eb: the condition in b. */
static void dec_setcc(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if (d->mod == 3) {
        in->rm = dec_reg(d, OT_B, d->rmf);
    }
    in->aux = b & 15;
    dec_handler(d, in, d->mod == 3 ? &x86_setcc_r_fn[b & 15]
                                   : &x86_setcc_m_fn);
}

/* bt, bts, btr, btc Ev, Gv (row arg: the operation). */
static void dec_bt(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->ot;

    dec_gv_ev(d, in, ot);
    in->aux = 1;
    in->aux2 = ot;
    dec_handler(d, in, &x86_bt_fn[d->mod != 3][r->arg]);
    d->lock_ok = d->mod != 3 && r->arg != 0;
}

/* Group 8: bt, bts, btr, btc Ev, Ib. */
static void dec_grp8(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if ((d->regf & 7) < 4) {
        dec_ud(d, in);
        return;
    }
    if (d->mod == 3) {
        in->rm = d->rmf;
    }
    in->imm = dec_u8(d);
    in->aux2 = d->ot;
    dec_handler(d, in, &x86_bt_fn[d->mod != 3][(d->regf & 7) - 4]);
    d->lock_ok = d->mod != 3 && (d->regf & 7) != 4;
}

/* shld (row arg 0), shrd (1) Ev, Gv by Ib or CL (b & 1). */
static void dec_dshift(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = d->ot;

    dec_gv_ev(d, in, ot);
    if (b & 1) {
        in->aux = 1;
    } else {
        in->imm = dec_u8(d);
    }
    in->aux2 = ot;
    in->imm2 = r->arg;
    dec_handler(d, in, &x86_dshift_fn[d->mod != 3]);
}

/* 0f ae: fences, clflush and the state instructions of decode-vec.c. */
static void dec_grp15(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if (d->mod == 3) {
        /* lfence, mfence, sfence; f3: rd/wr fs/gs base (#UD). */
        if ((d->regf & 7) >= 5 && !(d->prefix & P_F3)) {
            dec_handler(d, in, &x86_nop);
            return;
        }
        dec_ud(d, in);
        return;
    }
    if ((d->regf & 7) == 7) {
        dec_handler(d, in, &x86_sys_fn[SYS_CLFLUSH]);
        return;
    }
    /* fxsave, fxrstor, ldmxcsr, stmxcsr, xsave, xrstor, xsaveopt */
    dec_vec_modrm(d, in, b);
}

/* imul Gv, Ev. */
static void dec_imul(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_gv_ev(d, in, d->ot);
    dec_handler(d, in, &x86_imul_fn[d->mod != 3][d->ot]);
}

/* cmpxchg, xadd Eb,Gb / Ev,Gv: the row's table by [mem]. */
static void dec_xchg_op(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int ot = dec_row_ot(d, r);

    dec_gv_ev(d, in, ot);
    in->aux2 = ot;
    dec_handler(d, in, &r->fns[d->mod != 3]);
    d->lock_ok = d->mod != 3;
}

/* movzx (row arg 0), movsx (1) Gv, Eb / Ew (b & 1). */
static void dec_movx(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    int sot = b & 1 ? OT_W : OT_B;

    dec_modrm(d, in);
    in->reg = d->regf;
    if (d->mod == 3) {
        in->rm = dec_reg(d, sot, d->rmf);
    }
    dec_handler(d, in, &x86_movx_fn[d->mod != 3][r->arg][sot][d->ot]);
}

static void dec_bitscan_kind(Dec *d, Insn *in, int kind)
{
    dec_gv_ev(d, in, d->ot);
    in->aux = kind;
    in->aux2 = d->ot;
    dec_handler(d, in, &x86_scan_fn[d->mod != 3]);
}

/*
 * bsf (row arg SCAN_BSF), bsr; with f3 tzcnt, lzcnt where CPUID offers
 * them (else rep bsf is bsf); popcnt (f3 only, else jmpe: #UD).
 */
static void dec_bitscan(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    bool f3 = d->prefix & P_F3;

    switch (r->arg) {
    case SCAN_POPCNT:
        if (!f3 || !(d->isa & ISA_POPCNT)) {
            dec_ud(d, in);
            return;
        }
        dec_bitscan_kind(d, in, SCAN_POPCNT);
        return;
    case SCAN_BSF:
        dec_bitscan_kind(d, in, f3 && (d->isa & ISA_TZCNT)
                                ? SCAN_TZCNT : SCAN_BSF);
        return;
    default:
        dec_bitscan_kind(d, in, f3 && (d->isa & ISA_LZCNT)
                                ? SCAN_LZCNT : SCAN_BSR);
        return;
    }
}

/* Group 9: cmpxchg8b, cmpxchg16b (REX.W, where CPUID offers it). */
static void dec_grp9(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    dec_modrm(d, in);
    if ((d->regf & 7) != 1 || d->mod == 3 ||
        ((d->rex & REX_W) && !(d->isa & ISA_CX16))) {
        dec_ud(d, in);          /* rdrand/rdseed/rdpid: not offered */
        return;
    }
    dec_handler(d, in, &x86_cmpxchg8b_fn[(d->rex & REX_W) != 0]);
    d->lock_ok = true;
}

/* bswap r. */
static void dec_bswap(Dec *d, Insn *in, const DecRow *r, uint8_t b)
{
    in->rm = (b & 7) | (d->rex & REX_B ? 8 : 0);
    dec_handler(d, in, &x86_bswap_fn[d->ot]);
}

#define ROW(form, fns, arg, size, flags)                                  \
    { dec_##form, fns, arg, DEC_SZ_##size, flags }
#define END         DEC_END

/*
 * Opcode, then: form, the handler (or its table), the form's argument,
 * the operand size and whether it ends the block (END). Rows left out
 * are the vector map's (decode-vec.c).
 */
static const DecRow map_0f[256] = {
    [0x00] = ROW(grp6, NULL, 0, V, 0),
    [0x01] = ROW(grp7, NULL, 0, V, 0),
    [0x02] = ROW(lar, NULL, 0, V, 0),
    [0x03] = ROW(lar, NULL, 1, V, 0),
    [0x05] = ROW(fixed, &x86_sys_fn[SYS_SYSCALL], 0, V, END),
    [0x06] = ROW(fixed, &x86_sys_fn[SYS_CLTS], 0, V, END),
    [0x07] = ROW(sysret, &x86_sys_fn[SYS_SYSRET], 0, V, END),
    [0x08 ... 0x09] = ROW(fixed, &x86_sys_fn[SYS_WBINVD], 0, V, 0),
    [0x0d] = ROW(nop_ev, NULL, 1, V, 0),
    [0x18 ... 0x1f] = ROW(nop_ev, NULL, 0, V, 0),
    [0x20 ... 0x23] = ROW(mov_crdr, NULL, 0, V, 0),
    [0x30] = ROW(fixed, &x86_sys_fn[SYS_WRMSR], 0, V, END),
    [0x31] = ROW(fixed, &x86_sys_fn[SYS_RDTSC], 0, V, 0),
    [0x32] = ROW(fixed, &x86_sys_fn[SYS_RDMSR], 0, V, 0),
    [0x33] = ROW(fixed, &x86_sys_fn[SYS_RDPMC], 0, V, 0),
    [0x34] = ROW(fixed, &x86_sys_fn[SYS_SYSENTER], 0, V, END),
    [0x35] = ROW(sysret, &x86_sys_fn[SYS_SYSEXIT], 0, V, END),
    [0x40 ... 0x4f] = ROW(cmov, NULL, 0, V, 0),
    [0x80 ... 0x8f] = ROW(jcc, NULL, 1, V, 0),
    [0x90 ... 0x9f] = ROW(setcc, NULL, 0, B, 0),
    [0xa0] = ROW(stack, &x86_stack_fn[STK_OP_PUSH_SREG], R_FS, 64, 0),
    [0xa1] = ROW(stack, &x86_stack_fn[STK_OP_POP_SREG], R_FS, 64, END),
    [0xa2] = ROW(fixed, &x86_sys_fn[SYS_CPUID], 0, V, 0),
    [0xa3] = ROW(bt, NULL, 0, V, 0),
    [0xa4 ... 0xa5] = ROW(dshift, NULL, 0, V, 0),
    [0xa8] = ROW(stack, &x86_stack_fn[STK_OP_PUSH_SREG], R_GS, 64, 0),
    [0xa9] = ROW(stack, &x86_stack_fn[STK_OP_POP_SREG], R_GS, 64, END),
    [0xab] = ROW(bt, NULL, 1, V, 0),
    [0xac ... 0xad] = ROW(dshift, NULL, 1, V, 0),
    [0xae] = ROW(grp15, NULL, 0, V, 0),
    [0xaf] = ROW(imul, NULL, 0, V, 0),
    [0xb0] = ROW(xchg_op, x86_cmpxchg_fn, 0, B, 0),
    [0xb1] = ROW(xchg_op, x86_cmpxchg_fn, 0, V, 0),
    [0xb2] = ROW(gv_m, &x86_sys_fn[SYS_LXS], R_SS, V, END),
    [0xb3] = ROW(bt, NULL, 2, V, 0),
    [0xb4] = ROW(gv_m, &x86_sys_fn[SYS_LXS], R_FS, V, END),
    [0xb5] = ROW(gv_m, &x86_sys_fn[SYS_LXS], R_GS, V, END),
    [0xb6 ... 0xb7] = ROW(movx, NULL, 0, V, 0),
    [0xb8] = ROW(bitscan, NULL, SCAN_POPCNT, V, 0),
    [0xba] = ROW(grp8, NULL, 0, V, 0),
    [0xbb] = ROW(bt, NULL, 3, V, 0),
    [0xbc] = ROW(bitscan, NULL, SCAN_BSF, V, 0),
    [0xbd] = ROW(bitscan, NULL, SCAN_BSR, V, 0),
    [0xbe ... 0xbf] = ROW(movx, NULL, 1, V, 0),
    [0xc0] = ROW(xchg_op, x86_xadd_fn, 0, B, 0),
    [0xc1] = ROW(xchg_op, x86_xadd_fn, 0, V, 0),
    [0xc7] = ROW(grp9, NULL, 0, V, 0),
    [0xc8 ... 0xcf] = ROW(bswap, NULL, 0, V, 0),
};

void dec_0f(Dec *d, Insn *in, uint8_t b)
{
    if (!dec_row(d, in, &map_0f[b], b)) {
        dec_vec(d, in, b);
    }
}
