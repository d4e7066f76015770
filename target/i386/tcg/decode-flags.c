/*
 * Dead flags in a decoded block: an instruction whose arithmetic flags
 * the next ones overwrite before anything reads them gets a handler that
 * does not record them (x86_alu_nf_fn, x86_shift_nf_fn, x86_imul_nf_fn).
 *
 * A backward pass over the block with "the flags are live here": live
 * at the block's end (the next block may read them) and before anything
 * not known to be harmless, since it may read them (jcc, adc, pushf, a
 * helper), may fault (an exception frame holds EFLAGS, so the flags
 * must be exact at every instruction that can fault) or may leave the
 * block. Harmless are the instructions that touch no flags and cannot
 * fault (mov and movzx/movsx between registers, mov of an immediate,
 * lea, a jmp the decoder followed) and those that write all six and
 * cannot fault (the ALU's register forms but adc/sbb, test, shifts by a
 * non-zero immediate, imul on registers, the compare-and-branch pairs
 * and loop ends on registers). A writer found where the flags are dead
 * takes its flag-less handler; before any writer they are dead.
 *
 * The handlers are recognised by address (decode-fninfo.c), the table
 * filled from a constructor.
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

static void flags_add(InsnFn fn, int cls, InsnFn nf, int ot)
{
    X86FnInfo *i;

    if (!fn) {
        return;
    }
    i = x86_fn_info_add(fn);
    i->flags = cls;
    i->flags_nf = nf;
    i->flags_ot = ot;
}

static void __attribute__((constructor)) flags_init(void)
{
    static const int reg_forms[2] = { F_RR, F_RI };

    flags_add(op_nop, FL_NEUTRAL, NULL, 0);
    flags_add(x86_branch_fn[BR_JMP_IN], FL_NEUTRAL, NULL, 0);
    for (int ot = 0; ot < 4; ot++) {
        flags_add(x86_mov_fn[F_RR][ot], FL_NEUTRAL, NULL, 0);
        flags_add(x86_mov_fn[F_RI][ot], FL_NEUTRAL, NULL, 0);
        flags_add(x86_lea_fn[ot], FL_NEUTRAL, NULL, 0);
        for (int sign = 0; sign < 2; sign++) {
            for (int sot = 0; sot < 3; sot++) {
                flags_add(x86_movx_fn[0][sign][sot][ot], FL_NEUTRAL, NULL,
                          0);
            }
        }
        for (int f = 0; f < 2; f++) {
            for (int op = 0; op < 8; op++) {
                if (x86_alu_nf_fn[f][op][ot]) {
                    flags_add(x86_alu_fn[reg_forms[f]][op][ot], FL_WRITE,
                              x86_alu_nf_fn[f][op][ot], 0);
                }
            }
            flags_add(x86_test_fn[reg_forms[f]][ot], FL_WRITE, op_nop, 0);
            for (int op = 0; op < FUSE_NUM; op++) {
                for (int cc = 0; cc < 16; cc++) {
                    flags_add(x86_fused_fn[op][reg_forms[f]][ot][cc],
                              FL_WRITE, NULL, 0);
                }
            }
        }
        for (int k = 0; ot >= OT_L && k < 16; k++) {
            /* k: the add/sub, its form, cmp/test and its form, in bits. */
            const InsnFn *f3 = x86_fused3_fn[k >> 3][(k >> 2) & 1]
                                            [(k >> 1) & 1][k & 1][ot - OT_L];

            for (int cc = 0; cc < 16; cc++) {
                flags_add(f3[cc], FL_WRITE, NULL, 0);
            }
        }
        /* imul's SF, ZF, AF and PF are undefined: it writes all six. */
        flags_add(x86_imul_fn[0][ot], FL_WRITE, x86_imul_nf_fn[ot], 0);
        for (int op = 0; op < 8; op++) {
            if (x86_shift_nf_fn[op][ot]) {
                flags_add(x86_shift_fn[0][op][ot], FL_SHIFT,
                          x86_shift_nf_fn[op][ot], ot);
            }
        }
    }
}

/* The class of in for the pass: 0 for anything not harmless. */
static int flags_class(const Insn *in, InsnFn *nf)
{
    const X86FnInfo *e = x86_fn_info(in->fn);

    if (!e) {
        return 0;
    }
    *nf = e->flags_nf;
    if (e->flags == FL_SHIFT) {
        /* By CL, or a masked count of 0: the flags may stay as they were. */
        unsigned mask = e->flags_ot == OT_Q ? 63 : 31;

        return !in->aux && (in->imm & mask) ? FL_WRITE : 0;
    }
    return e->flags;
}

void x86_dead_flags(DecodedBlock *db)
{
    bool live = true;

    for (unsigned i = db->n; i-- > 0;) {
        Insn *in = &db->insns[i];
        InsnFn nf = NULL;

        switch (flags_class(in, &nf)) {
        case FL_NEUTRAL:
            break;
        case FL_WRITE:
            if (!live && nf) {
                in->fn = nf;
            }
            live = false;
            break;
        default:
            live = true;
            break;
        }
    }
}
