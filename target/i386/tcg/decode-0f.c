/*
 * The two-byte opcode map (0f xx). The vector opcodes and the
 * three-byte maps 0f 38 and 0f 3a (movbe, crc32 among them) go to
 * decode-vec.c; features CPUID does not advertise decode to #UD.
 */
#include "target/i386/tcg/decode.h"

/* mov to/from control and debug registers: mod is ignored (register). */
static void dec_mov_crdr(Dec *d, Insn *in, uint8_t b)
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
        in->fn = x86_sys_fn[b & 2 ? SYS_MOV_TO_DR : SYS_MOV_FROM_DR];
        return;
    }
    if (n != 0 && n != 2 && n != 3 && n != 4 && n != 8) {
        dec_ud(d, in);
        return;
    }
    if (b & 2) {
        in->fn = x86_sys_fn[SYS_MOV_TO_CR];
        d->end = DEC_END_BLOCK;
    } else {
        in->fn = x86_sys_fn[SYS_MOV_FROM_CR];
    }
}

/* 0f 00: sldt, str, lldt, ltr, verr, verw. */
static void dec_grp6(Dec *d, Insn *in)
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
    in->fn = x86_sys_fn[SYS_GRP6];
}

/* 0f 01: sgdt, sidt, lgdt, lidt, smsw, lmsw, invlpg, swapgs, rdtscp. */
static void dec_grp7(Dec *d, Insn *in)
{
    int op;

    dec_modrm(d, in);
    op = d->regf & 7;
    if (d->mod == 3) {
        switch (op) {
        case 4:
        case 6:
            break;
        case 2:
            /* xgetbv, xsetbv: CR4.OSXSAVE decides at run time. */
            if ((d->rmf & 7) < 2 && (d->isa & ISA_XSAVE)) {
                in->fn = x86_sys_fn[(d->rmf & 7) ? SYS_XSETBV : SYS_XGETBV];
                return;
            }
            dec_ud(d, in);
            return;
        case 7:
            if ((d->rmf & 7) == 0 && d->code64) {
                in->fn = x86_sys_fn[SYS_SWAPGS];
                return;
            }
            if ((d->rmf & 7) == 1 && (d->isa & ISA_RDTSCP)) {
                in->fn = x86_sys_fn[SYS_RDTSCP];
                return;
            }
            dec_ud(d, in);
            return;
        default:
            /* monitor/mwait, xgetbv, clac/stac, VMX/SVM: not offered. */
            dec_ud(d, in);
            return;
        }
        in->rm = d->rmf;
    }
    in->aux2 = d->code64 ? OT_Q : d->ot;
    switch (op) {
    case 0:
    case 1:
        in->aux = op;
        in->fn = x86_sys_fn[SYS_SGDT];
        return;
    case 2:
    case 3:
        in->aux = op - 2;
        in->fn = x86_sys_fn[SYS_LGDT];
        return;
    case 4:
        in->aux2 = d->ot;
        in->fn = x86_sys_fn[SYS_SMSW];
        return;
    case 6:
        in->fn = x86_sys_fn[SYS_LMSW];
        d->end = DEC_END_BLOCK;
        return;
    case 7:
        in->fn = x86_sys_fn[SYS_INVLPG];
        d->end = DEC_END_BLOCK;
        return;
    default:
        dec_ud(d, in);
        return;
    }
}

/* Gv, Ev with the register fields set and the table row of [mem]. */
static void dec_gv_ev(Dec *d, Insn *in, int ot)
{
    dec_modrm(d, in);
    dec_regs(d, in, ot);
}

static void dec_bitscan(Dec *d, Insn *in, int kind)
{
    dec_gv_ev(d, in, d->ot);
    in->aux = kind;
    in->aux2 = d->ot;
    in->fn = x86_scan_fn[d->mod != 3];
}

void dec_0f(Dec *d, Insn *in, uint8_t b)
{
    int ot = d->ot;

    if (b >= 0x40 && b < 0x50) {
        dec_gv_ev(d, in, ot);
        in->aux = b & 15;
        in->fn = d->mod == 3 ? x86_cmov_r_fn[b & 15][ot] : x86_cmov_m_fn[ot];
        return;
    }
    if (b >= 0x80 && b < 0x90) {
        int bot = d->code64 ? OT_Q : ot;
        int64_t rel = bot == OT_W ? (int16_t)dec_u16(d)
                                  : (int32_t)dec_u32(d);
        uint64_t t = d->pc + d->pos + rel;

        if (!d->code64) {
            t = bot == OT_W ? (uint16_t)t : (uint32_t)t;
        }
        in->imm = t;
        in->fn = x86_jcc_fn[b & 15];
        d->chain = true;
        d->jcc = b & 15;
        return;
    }
    if (b >= 0x90 && b < 0xa0) {
        dec_modrm(d, in);
        if (d->mod == 3) {
            in->rm = dec_reg(d, OT_B, d->rmf);
        }
        in->aux = b & 15;
        in->fn = d->mod == 3 ? x86_setcc_r_fn[b & 15] : x86_setcc_m_fn;
        return;
    }
    if (b >= 0xc8 && b < 0xd0) {
        in->rm = (b & 7) | (d->rex & REX_B ? 8 : 0);
        in->fn = x86_bswap_fn[ot];
        return;
    }
    if (b >= 0x18 && b < 0x20) {
        /* Hint nops: prefetch, nop Ev, endbr, MPX without MPX. */
        dec_modrm(d, in);
        in->fn = op_nop;
        return;
    }

    switch (b) {
    case 0x00:
        dec_grp6(d, in);
        return;
    case 0x01:
        dec_grp7(d, in);
        return;
    case 0x02:
    case 0x03:
        dec_gv_ev(d, in, OT_W);
        in->reg = d->regf;
        if (d->mod == 3) {
            in->rm = d->rmf;
        }
        in->aux = b == 0x03;
        in->aux2 = ot;
        in->fn = x86_sys_fn[SYS_LAR_LSL];
        return;
    case 0x05:
        in->fn = x86_sys_fn[SYS_SYSCALL];
        d->end = DEC_END_BLOCK;
        return;
    case 0x06:
        in->fn = x86_sys_fn[SYS_CLTS];
        d->end = DEC_END_BLOCK;
        return;
    case 0x07:
        in->aux2 = d->rex & REX_W ? OT_Q : OT_L;
        in->fn = x86_sys_fn[SYS_SYSRET];
        d->end = DEC_END_BLOCK;
        return;
    case 0x08:
    case 0x09:
        in->fn = x86_sys_fn[SYS_WBINVD];
        return;
    case 0x0d:
        /* prefetch/prefetchw */
        dec_modrm(d, in);
        if (d->mod == 3) {
            break;
        }
        in->fn = op_nop;
        return;
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
        dec_mov_crdr(d, in, b);
        return;
    case 0x30:
        in->fn = x86_sys_fn[SYS_WRMSR];
        d->end = DEC_END_BLOCK;
        return;
    case 0x31:
        in->fn = x86_sys_fn[SYS_RDTSC];
        return;
    case 0x32:
        in->fn = x86_sys_fn[SYS_RDMSR];
        return;
    case 0x33:
        in->fn = x86_sys_fn[SYS_RDPMC];
        return;
    case 0x34:
        in->fn = x86_sys_fn[SYS_SYSENTER];
        d->end = DEC_END_BLOCK;
        return;
    case 0x35:
        in->aux2 = d->rex & REX_W ? OT_Q : OT_L;
        in->fn = x86_sys_fn[SYS_SYSEXIT];
        d->end = DEC_END_BLOCK;
        return;
    case 0xa0:
    case 0xa1:
    case 0xa8:
    case 0xa9:
        in->aux = b < 0xa8 ? R_FS : R_GS;
        in->aux2 = dec_ot64(d);
        in->stk = d->stk;
        in->fn = x86_stack_fn[b & 1 ? STK_OP_POP_SREG : STK_OP_PUSH_SREG];
        if (b & 1) {
            d->end = DEC_END_BLOCK;
        }
        return;
    case 0xa2:
        in->fn = x86_sys_fn[SYS_CPUID];
        return;
    case 0xa3:
    case 0xab:
    case 0xb3:
    case 0xbb:
        dec_gv_ev(d, in, ot);
        in->aux = 1;
        in->aux2 = ot;
        in->fn = x86_bt_fn[d->mod != 3][(b >> 3) & 3];
        d->lock_ok = d->mod != 3 && b != 0xa3;
        return;
    case 0xa4:
    case 0xa5:
    case 0xac:
    case 0xad:
        dec_gv_ev(d, in, ot);
        if (b & 1) {
            in->aux = 1;
        } else {
            in->imm = dec_u8(d);
        }
        in->aux2 = ot;
        in->imm2 = b >= 0xac;
        in->fn = x86_dshift_fn[d->mod != 3];
        return;
    case 0xae:
        dec_modrm(d, in);
        if (d->mod == 3) {
            /* lfence, mfence, sfence; f3: rd/wr fs/gs base (#UD). */
            if ((d->regf & 7) >= 5 && !(d->prefix & P_F3)) {
                in->fn = op_nop;
                return;
            }
            break;
        }
        if ((d->regf & 7) == 7) {
            in->fn = x86_sys_fn[SYS_CLFLUSH];
            return;
        }
        /* fxsave, fxrstor, ldmxcsr, stmxcsr, xsave, xrstor, xsaveopt */
        dec_vec_modrm(d, in, b);
        return;
    case 0xaf:
        dec_gv_ev(d, in, ot);
        in->fn = x86_imul_fn[d->mod != 3][ot];
        return;
    case 0xb0:
    case 0xb1:
        ot = b & 1 ? ot : OT_B;
        dec_gv_ev(d, in, ot);
        in->aux2 = ot;
        in->fn = x86_cmpxchg_fn[d->mod != 3];
        d->lock_ok = d->mod != 3;
        return;
    case 0xb2:
    case 0xb4:
    case 0xb5:
        dec_modrm(d, in);
        if (d->mod == 3) {
            break;
        }
        in->reg = d->regf;
        in->aux = b == 0xb2 ? R_SS : b == 0xb4 ? R_FS : R_GS;
        in->aux2 = ot;
        in->fn = x86_sys_fn[SYS_LXS];
        d->end = DEC_END_BLOCK;
        return;
    case 0xb6:
    case 0xb7:
    case 0xbe:
    case 0xbf: {
        int sot = b & 1 ? OT_W : OT_B;

        dec_modrm(d, in);
        in->reg = d->regf;
        if (d->mod == 3) {
            in->rm = dec_reg(d, sot, d->rmf);
        }
        in->fn = x86_movx_fn[d->mod != 3][b >= 0xbe][sot][ot];
        return;
    }
    case 0xb8:
        if (!(d->prefix & P_F3) || !(d->isa & ISA_POPCNT)) {
            break;                  /* jmpe */
        }
        dec_bitscan(d, in, SCAN_POPCNT);
        return;
    case 0xba:
        dec_modrm(d, in);
        if ((d->regf & 7) < 4) {
            break;
        }
        if (d->mod == 3) {
            in->rm = d->rmf;
        }
        in->imm = dec_u8(d);
        in->aux2 = ot;
        in->fn = x86_bt_fn[d->mod != 3][(d->regf & 7) - 4];
        d->lock_ok = d->mod != 3 && (d->regf & 7) != 4;
        return;
    case 0xbc:
        /* Without BMI1 (LZCNT), rep bsf (bsr) is bsf (bsr). */
        dec_bitscan(d, in, (d->prefix & P_F3) && (d->isa & ISA_TZCNT)
                           ? SCAN_TZCNT : SCAN_BSF);
        return;
    case 0xbd:
        dec_bitscan(d, in, (d->prefix & P_F3) && (d->isa & ISA_LZCNT)
                           ? SCAN_LZCNT : SCAN_BSR);
        return;
    case 0xc0:
    case 0xc1:
        ot = b & 1 ? ot : OT_B;
        dec_gv_ev(d, in, ot);
        in->aux2 = ot;
        in->fn = x86_xadd_fn[d->mod != 3];
        d->lock_ok = d->mod != 3;
        return;
    case 0xc7:
        dec_modrm(d, in);
        if ((d->regf & 7) != 1 || d->mod == 3) {
            break;                  /* rdrand/rdseed/rdpid: not offered */
        }
        if ((d->rex & REX_W) && !(d->isa & ISA_CX16)) {
            break;
        }
        in->fn = x86_cmpxchg8b_fn[(d->rex & REX_W) != 0];
        d->lock_ok = true;
        return;
    default:
        dec_vec(d, in, b);
        return;
    }
    dec_ud(d, in);
}
