/*
 * rip stores: every handler leaves env->rip at the next instruction, so
 * that a fault or a helper in the next one sees its own rip. A handler
 * followed by an instruction that does not read env->rip on entry need
 * not: the decoder's last pass gives it its version without the store
 * (name_nr) where it has one. Those are the register-only handlers
 * (X86_DEF_REG, ops.h), the fast paths of common memory handlers
 * (X86_DEF_MEM_EA_NR, X86_DEF_MEM_NR: their slow path stores), jcc and
 * the register forms of the fused pairs and loop ends (ops-fused.c),
 * whose branch sets rip when taken, and followed jmps.
 *
 * Instructions that do not read env->rip on entry: the register-only
 * ones, jcc, the fused register forms, followed jmps, and the memory
 * handlers with fast paths (X86_DEF_MEM*), whose slow path sets rip to
 * its own before it can fault. Anything else (the block's end, calls,
 * helpers, exits) is taken to read it.
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

void x86_rip_free_add_n(InsnFn fn, InsnFn nr, unsigned n)
{
    X86FnInfo *i = x86_fn_info_add(fn);

    i->rip_free = true;
    i->no_rip = nr;
    i->width = n;
    /*
     * nr needs no entry: the pass looks at each instruction's handler as
     * decoded, before it may become its nr version.
     */
}

void x86_rip_free_add(InsnFn fn, InsnFn nr)
{
    x86_rip_free_add_n(fn, nr, 1);
}

void x86_rip_free_mark(InsnFn fn)
{
    x86_fn_info_add(fn)->rip_free = true;
}

void x86_rip_stores(DecodedBlock *db)
{
    for (unsigned i = 0; i < db->n; i++) {
        const X86FnInfo *a = x86_fn_info(db->insns[i].fn), *b;

        if (!a || !a->no_rip) {
            continue;
        }
        b = x86_fn_info(db->insns[i + MAX(a->width, 1)].fn);
        if (b && b->rip_free) {
            db->insns[i].fn = a->no_rip;
        }
    }
}
