/*
 * Where AMD and Intel processors differ in what the architecture leaves
 * to the vendor: one table (target/i386/vendor.c), one row per vendor,
 * one field per difference. The software CPU follows the row of the
 * vendor its CPU model presents in CPUID leaf 0 (qemu64 and max are
 * "AuthenticAMD" as QEMU's TCG models are; "-cpu ...,vendor=GenuineIntel"
 * makes them behave as Intel's). Every vendor string but GenuineIntel
 * gets the AMD row, as QEMU's TCG only asks "is it Intel?".
 *
 * What is not here, and why:
 * - Flags the manuals leave undefined (SF/ZF/AF/PF after mul and imul,
 *   AF after logic ops and shifts, OF after multi-bit shifts and
 *   rotates, all of them after div): neither vendor promises a value
 *   and they differ between generations of the same vendor; the
 *   interpreter produces one value for both and the host differential
 *   test does not compare them.
 * - The results the two vendors define alike (e.g. tzcnt/lzcnt).
 */
#ifndef TARGET_I386_VENDOR_H
#define TARGET_I386_VENDOR_H

#include <stdbool.h>

#include "target/i386/cpu.h"

typedef enum X86VendorId {
    X86_VENDOR_AMD,
    X86_VENDOR_INTEL,
    X86_VENDOR_COUNT,
} X86VendorId;

#define X86_VENDOR_STRING_LEN   12

typedef struct X86Vendor {
    X86VendorId id;
    const char *name;                   /* "AMD", "Intel" */
    const char *cpuid;                  /* CPUID leaf 0 EBX:EDX:ECX */

    /*
     * rep movs/cmps/stos/lods/scas with a 32-bit address size (67h in
     * 64-bit mode) and ECX = 0: Intel still writes ECX, and RSI and RDI
     * for movs (RDI for stos), as 32-bit registers, clearing their upper
     * halves; AMD leaves all three alone.
     */
    bool rep_a32_zero_count_clears;
    /*
     * syscall and sysret outside 64-bit mode: AMD runs them (syscall
     * from compatibility mode enters at CSTAR, from legacy mode at
     * STAR[31:0]); Intel raises #UD.
     */
    bool syscall_outside_64bit;
    /* sysenter and sysexit in long mode: Intel runs them; AMD: #UD. */
    bool sysenter_in_long_mode;
    /*
     * sysret to a non-canonical RCX: Intel raises #GP(0) at CPL 0 before
     * changing anything; AMD returns to CPL 3, where fetching from the
     * non-canonical rip raises the #GP(0).
     */
    bool sysret_gp_at_cpl0;
    /*
     * bsf/bsr with a zero source: AMD documents that the destination is
     * left unchanged; Intel documents it as undefined (its processors
     * leave it unchanged too, and so does the interpreter for both).
     */
    bool bsf_zero_source_defined;
    /*
     * The MXCSR bits the processor takes (ldmxcsr, fxrstor, xrstor) and
     * fxsave/xsave store as MXCSR_MASK: AMD 0x2ffff (bit 17, MM, the
     * misaligned-SSE mode in which misaligned 16-byte operands do not
     * raise #GP), Intel 0xffff.
     */
    uint32_t fxsave_mxcsr_mask;
    /*
     * fxsave/xsave of the x87 pointers (FOP, FIP, FCS, FDP, FDS): AMD
     * stores them only while FSW.ES is set (zeros otherwise); Intel
     * always stores them.
     */
    bool fxsave_ptrs_only_with_es;
    /*
     * dpps/dppd sum the products once per destination lane, each lane in
     * its own order, so with several NaNs the lanes can differ (Intel).
     * Otherwise one sum, ((p0 + p1) + (p2 + p3)), goes to every lane.
     */
    bool dp_sum_per_lane;
} X86Vendor;

extern const X86Vendor x86_vendors[X86_VENDOR_COUNT];

/* The row for a 12-character CPUID vendor string. */
const X86Vendor *x86_vendor_from_string(const char *cpuid);
/* The row for a CPUID table (leaf 0), AMD when it has no leaf 0. */
const X86Vendor *x86_vendor_from_cpuid(const X86CPUIDEntry *table,
                                       unsigned n);
/* The 12-character string of leaf 0's EBX, EDX, ECX; out has 13 bytes. */
void x86_vendor_string(const uint32_t regs[4], char *out);
/* Put a 12-character vendor string into regs' EBX, EDX, ECX. */
void x86_vendor_put(uint32_t regs[4], const char *cpuid);

#endif
