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

/*
 * The facts are columns of each handler's row (X86Handler.nr, rip_free
 * and width, ops-tables.h), looked at as the other passes left them.
 */
void x86_rip_stores(DecodedBlock *db, const X86Handler **h)
{
    for (unsigned i = 0; i < db->n; i++) {
        const X86Handler *next;

        if (!h[i] || !h[i]->nr) {
            continue;
        }
        next = h[i + MAX(h[i]->width, 1)];
        if (next && next->rip_free) {
            db->insns[i].fn = h[i]->nr;
        }
    }
}
