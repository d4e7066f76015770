/*
 * What the decoder's passes know of a handler, keyed by its address:
 * what it does to the flags and its version without them
 * (decode-flags.c), its versions per address form (decode-ea.c) and its
 * version that leaves env->rip alone (decode-rip.c). The entries are
 * made from constructors (X86_EA_FORMS_ADD and X86_DEF_REG in ops.h, and
 * the passes' own), so the table is filled before main() and only read
 * after. About 2,750 handlers are known (67% of the slots): a table too
 * full for them fails an assertion at start-up.
 */
#include <glib.h>

#include "target/i386/tcg/decode.h"

#define INFO_BITS   12
#define INFO_SIZE   (1u << INFO_BITS)

static X86FnInfo info_tab[INFO_SIZE];

static unsigned info_hash(InsnFn fn)
{
    uintptr_t p = (uintptr_t)fn;

    return (p ^ (p >> 4) ^ (p >> INFO_BITS)) & (INFO_SIZE - 1);
}

X86FnInfo *x86_fn_info_add(InsnFn fn)
{
    unsigned h = info_hash(fn), n = 0;

    while (info_tab[h].fn && info_tab[h].fn != fn) {
        /* A table this full is a build error: make INFO_BITS larger. */
        g_assert(++n < INFO_SIZE / 2);
        h = (h + 1) & (INFO_SIZE - 1);
    }
    info_tab[h].fn = fn;
    return &info_tab[h];
}

const X86FnInfo *x86_fn_info(InsnFn fn)
{
    unsigned h = info_hash(fn);

    while (info_tab[h].fn) {
        if (info_tab[h].fn == fn) {
            return &info_tab[h];
        }
        h = (h + 1) & (INFO_SIZE - 1);
    }
    return NULL;
}
