/*
 * The vector opcodes of the two-byte map (MMX, SSE). Not implemented
 * yet: each decodes to #UD.
 */
#include "target/i386/tcg/decode.h"

void dec_vec(Dec *d, Insn *in, uint8_t b)
{
    (void)b;
    dec_ud(d, in);
}
