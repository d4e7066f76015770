/*
 * x86 disassembly for the logs (-d in_asm), through Debian's capstone
 * when the build found it (disas/disas.c). Without it, lines give only
 * the bytes.
 */
#ifndef DISAS_DISAS_H
#define DISAS_DISAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* Whether this build disassembles (capstone was found). */
bool disas_available(void);

/*
 * Append "mnemonic operands" of the one instruction at code (len bytes
 * available, at guest address addr, decoded as 16-, 32- or 64-bit code)
 * to out; returns its length, or 0 if capstone does not know it (then
 * nothing is appended).
 */
unsigned disas_x86_one(const uint8_t *code, size_t len, uint64_t addr,
                       unsigned bits, GString *out);

#endif
