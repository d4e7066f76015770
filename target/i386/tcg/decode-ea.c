/*
 * Address forms: the decoder's last pass gives an instruction whose
 * handler has versions per address form (X86_DEF_MEM_EA, ops.h) the one
 * of its form, when that is one of 64-bit code's common ones (base plus
 * displacement, base plus scaled index plus displacement, displacement
 * alone, which rip-relative operands become). The general handler tests
 * Insn.eaf bit by bit; these add what the form has and nothing else.
 *
 * The handlers make themselves known from constructors, into the table
 * of decode-fninfo.c, under the general handler's address.
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

void x86_ea_forms_add(const X86EaForms *f)
{
    x86_fn_info_add(f->any)->forms = f;
    /* Memory handlers set rip themselves before they can fault (ops.h). */
    x86_rip_free_mark(f->any);
    x86_rip_free_mark(f->base);
    x86_rip_free_mark(f->base_index);
    x86_rip_free_mark(f->disp);
}

static const X86EaForms *forms_find(InsnFn fn)
{
    const X86FnInfo *i = x86_fn_info(fn);

    return i ? i->forms : NULL;
}

void x86_ea_forms(DecodedBlock *db)
{
    for (unsigned i = 0; i < db->n; i++) {
        Insn *in = &db->insns[i];
        const X86EaForms *f;
        InsnFn fn;

        switch (in->eaf) {
        case EA_MEM | EA_BASE:
        case EA_MEM | EA_BASE | EA_INDEX:
        case EA_MEM:
            break;
        default:
            continue;   /* a register operand, 16/32-bit or segment */
        }
        f = forms_find(in->fn);
        if (!f) {
            continue;
        }
        if (in->eaf == EA_MEM) {
            fn = f->disp;
        } else if (in->eaf & EA_INDEX) {
            fn = f->base_index;
        } else {
            fn = f->base;
        }
        in->fn = fn;
    }
}
