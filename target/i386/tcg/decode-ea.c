/*
 * Address forms: the decoder's last pass gives an instruction whose
 * handler has versions per address form (X86_DEF_MEM_EA, ops.h) the one
 * of its form, when that is one of 64-bit code's common ones (base plus
 * displacement, base plus scaled index plus displacement, displacement
 * alone, which rip-relative operands become). The general handler tests
 * Insn.eaf bit by bit; these add what the form has and nothing else.
 *
 * The versions are a column of the general handler's row
 * (X86Handler.forms, ops-tables.h).
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

void x86_ea_forms(DecodedBlock *db, const X86Handler **h)
{
    for (unsigned i = 0; i < db->n; i++) {
        Insn *in = &db->insns[i];
        int form;

        if (!h[i] || !h[i]->forms) {
            continue;
        }
        switch (in->eaf) {
        case EA_MEM | EA_BASE:
            form = X86_EA_B;
            break;
        case EA_MEM | EA_BASE | EA_INDEX:
            form = X86_EA_BI;
            break;
        case EA_MEM:
            form = X86_EA_D;
            break;
        default:
            continue;   /* a register operand, 16/32-bit or segment */
        }
        h[i] = &h[i]->forms[form];
        in->fn = h[i]->fn;
    }
}
