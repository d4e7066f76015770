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
 * The handlers are recognised by address through a table made once.
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

enum { FL_NEUTRAL = 1, FL_WRITE, FL_SHIFT };

typedef struct FlagsEntry {
    InsnFn fn;
    InsnFn nf;          /* the handler without the flags, or NULL */
    uint8_t cls;        /* FL_* */
    uint8_t ot;         /* FL_SHIFT: the operand size */
} FlagsEntry;

#define FLAGS_BITS  10
#define FLAGS_SIZE  (1u << FLAGS_BITS)

static FlagsEntry flags_tab[FLAGS_SIZE];

static unsigned flags_hash(InsnFn fn)
{
    uintptr_t p = (uintptr_t)fn;

    return (p ^ (p >> 4) ^ (p >> FLAGS_BITS)) & (FLAGS_SIZE - 1);
}

static void flags_add(InsnFn fn, int cls, InsnFn nf, int ot)
{
    unsigned h = flags_hash(fn);

    if (!fn) {
        return;
    }
    while (flags_tab[h].fn && flags_tab[h].fn != fn) {
        h = (h + 1) & (FLAGS_SIZE - 1);
    }
    flags_tab[h] = (FlagsEntry) { fn, nf, cls, ot };
}

static const FlagsEntry *flags_find(InsnFn fn)
{
    unsigned h = flags_hash(fn);

    while (flags_tab[h].fn) {
        if (flags_tab[h].fn == fn) {
            return &flags_tab[h];
        }
        h = (h + 1) & (FLAGS_SIZE - 1);
    }
    return NULL;
}

static void flags_init(void)
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
                for (int cc = 0; cc < 8; cc++) {
                    flags_add(x86_fused_fn[op][reg_forms[f]][ot][cc],
                              FL_WRITE, NULL, 0);
                }
            }
        }
        for (int k = 0; ot >= OT_L && k < 16; k++) {
            /* k: the add/sub, its form, cmp/test and its form, in bits. */
            const InsnFn *f3 = x86_fused3_fn[k >> 3][(k >> 2) & 1]
                                            [(k >> 1) & 1][k & 1][ot - OT_L];

            for (int cc = 0; cc < 8; cc++) {
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
    const FlagsEntry *e = flags_find(in->fn);

    if (!e) {
        return 0;
    }
    *nf = e->nf;
    if (e->cls == FL_SHIFT) {
        /* By CL, or a masked count of 0: the flags may stay as they were. */
        unsigned mask = e->ot == OT_Q ? 63 : 31;

        return !in->aux && (in->imm & mask) ? FL_WRITE : 0;
    }
    return e->cls;
}

void x86_dead_flags(DecodedBlock *db)
{
    static gsize once;
    bool live = true;

    if (g_once_init_enter(&once)) {
        flags_init();
        g_once_init_leave(&once, 1);
    }
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
