/*
 * rip stores: every handler leaves env->rip at the next instruction, so
 * that a fault or a helper in the next one sees its own rip. A
 * register-only handler (X86_DEF_REG, ops.h) followed by an instruction
 * that does not read env->rip on entry need not: the decoder's last
 * pass gives it its version without the store (name_nr). Instructions
 * that do not read env->rip on entry are the register-only ones, jcc
 * (it sets rip either way) and the register forms of the fused pairs and
 * loop ends (ops-fused.c), which set it at their end like jcc. Anything
 * else, the block's end included, is taken to read it.
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"
#include "target/i386/tcg/ops-tables.h"

void x86_rip_free_add(InsnFn fn, InsnFn nr)
{
    X86FnInfo *i = x86_fn_info_add(fn);

    i->rip_free = true;
    i->no_rip = nr;
    x86_fn_info_add(nr)->rip_free = true;
}

void x86_rip_twin_add(InsnFn fn, InsnFn nr)
{
    x86_fn_info_add(fn)->no_rip = nr;
}

static void rip_free_add_all(const InsnFn *fns, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fns[i]) {
            x86_fn_info_add(fns[i])->rip_free = true;
        }
    }
}

static void __attribute__((constructor)) rip_free_tables(void)
{
    rip_free_add_all(x86_jcc_fn, G_N_ELEMENTS(x86_jcc_fn));
    for (int op = 0; op < FUSE_NUM; op++) {
        rip_free_add_all(&x86_fused_fn[op][F_RR][0][0], 4 * 8);
        rip_free_add_all(&x86_fused_fn[op][F_RI][0][0], 4 * 8);
    }
    rip_free_add_all(&x86_fused3_fn[0][0][0][0][0][0],
                     sizeof(x86_fused3_fn) / sizeof(InsnFn));
}

void x86_rip_stores(DecodedBlock *db)
{
    for (unsigned i = 0; i < db->n; i++) {
        const X86FnInfo *a = x86_fn_info(db->insns[i].fn), *b;

        if (!a || !a->no_rip) {
            continue;
        }
        b = x86_fn_info(db->insns[i + 1].fn);
        if (b && b->rip_free) {
            db->insns[i].fn = a->no_rip;
        }
    }
}
