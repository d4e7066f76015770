/*
 * x86 disassembly for the logs (-d in_asm), through Debian's capstone
 * when the build found its header (disas/disas.c). The library itself,
 * libcapstone.so.4, is opened on first use, not at start-up; without the
 * header at build time or the library at run time, lines give only the
 * bytes.
 */
#ifndef DISAS_DISAS_H
#define DISAS_DISAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/*
 * Whether this build disassembles: built with capstone's header and
 * libcapstone.so.4 loads (this call loads it; it reports nothing).
 */
bool disas_available(void);

/*
 * Append "mnemonic operands" of the one instruction at code (len bytes
 * available, at guest address addr, decoded as 16-, 32- or 64-bit code)
 * to out; returns its length, or 0 if capstone does not know it (then
 * nothing is appended). The first call loads the library; if it cannot,
 * one warning line says why and every call returns 0.
 */
unsigned disas_x86_one(const uint8_t *code, size_t len, uint64_t addr,
                       unsigned bits, GString *out);

#endif
