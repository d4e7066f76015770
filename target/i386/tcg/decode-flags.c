/*
 * Dead flags in a decoded block: an instruction whose arithmetic flags
 * the next ones overwrite before anything reads them gets a handler that
 * does not record them (the ALU's, the shifts' and imul's register forms).
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
 * What a handler does to the flags, and its version without them, are
 * columns of its row (X86Handler.flags and nf, ops-tables.h).
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

/* The class of in for the pass: 0 for anything not harmless. */
static int flags_class(const Insn *in, const X86Handler *h)
{
    if (!h) {
        return 0;
    }
    if (h->flags == FL_SHIFT) {
        /* By CL, or a masked count of 0: the flags may stay as they were. */
        unsigned mask = h->flags_ot == OT_Q ? 63 : 31;

        return !in->aux && (in->imm & mask) ? FL_WRITE : 0;
    }
    return h->flags;
}

void x86_dead_flags(DecodedBlock *db, const X86Handler **h)
{
    bool live = true;

    for (unsigned i = db->n; i-- > 0;) {
        Insn *in = &db->insns[i];

        switch (flags_class(in, h[i])) {
        case FL_NEUTRAL:
            break;
        case FL_WRITE:
            if (!live && h[i]->nf) {
                h[i] = h[i]->nf;
                in->fn = h[i]->fn;
            }
            live = false;
            break;
        default:
            live = true;
            break;
        }
    }
}
