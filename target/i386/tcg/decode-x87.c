/*
 * The x87 escape opcodes d8..df. Not implemented yet: each decodes to
 * #UD, after its modrm so the length is right.
 */
#include "target/i386/tcg/decode.h"

void dec_x87(Dec *d, Insn *in, uint8_t b)
{
    (void)b;
    dec_modrm(d, in);
    dec_ud(d, in);
}
