/*
 * The vendor table (see include/target/i386/vendor.h). Sources: AMD's
 * APM vol. 3 (SYSCALL, SYSRET, SYSENTER, BSF/BSR), the Intel SDM vol. 2
 * (the same instructions), and what the processors do where neither
 * says: the host differential test (tests/unit/test-tcg-diff.c) runs
 * every form on the host, and the row of the host's vendor must match.
 */
#include <string.h>

#include "target/i386/vendor.h"

const X86Vendor x86_vendors[X86_VENDOR_COUNT] = {
    [X86_VENDOR_AMD] = {
        .id = X86_VENDOR_AMD,
        .name = "AMD",
        .cpuid = "AuthenticAMD",
        .rep_a32_zero_count_clears = false,
        .syscall_outside_64bit = true,
        .sysenter_in_long_mode = false,
        .sysret_gp_at_cpl0 = false,
        .bsf_zero_source_defined = true,
        .fxsave_mxcsr_mask = 0x2ffff,
        .fxsave_ptrs_only_with_es = true,
    },
    [X86_VENDOR_INTEL] = {
        .id = X86_VENDOR_INTEL,
        .name = "Intel",
        .cpuid = "GenuineIntel",
        .rep_a32_zero_count_clears = true,
        .syscall_outside_64bit = false,
        .sysenter_in_long_mode = true,
        .sysret_gp_at_cpl0 = true,
        .bsf_zero_source_defined = false,
        .fxsave_mxcsr_mask = 0xffff,
        .fxsave_ptrs_only_with_es = false,
        .dp_sum_per_lane = true,
    },
};

const X86Vendor *x86_vendor_from_string(const char *cpuid)
{
    if (!strncmp(cpuid, x86_vendors[X86_VENDOR_INTEL].cpuid,
                 X86_VENDOR_STRING_LEN)) {
        return &x86_vendors[X86_VENDOR_INTEL];
    }
    return &x86_vendors[X86_VENDOR_AMD];
}

void x86_vendor_string(const uint32_t regs[4], char *out)
{
    memcpy(out, &regs[X86_R_EBX], 4);
    memcpy(out + 4, &regs[X86_R_EDX], 4);
    memcpy(out + 8, &regs[X86_R_ECX], 4);
    out[X86_VENDOR_STRING_LEN] = '\0';
}

void x86_vendor_put(uint32_t regs[4], const char *cpuid)
{
    memcpy(&regs[X86_R_EBX], cpuid, 4);
    memcpy(&regs[X86_R_EDX], cpuid + 4, 4);
    memcpy(&regs[X86_R_ECX], cpuid + 8, 4);
}

const X86Vendor *x86_vendor_from_cpuid(const X86CPUIDEntry *table,
                                       unsigned n)
{
    char s[X86_VENDOR_STRING_LEN + 1];

    for (unsigned i = 0; i < n; i++) {
        if (table[i].function == 0) {
            x86_vendor_string(table[i].regs, s);
            return x86_vendor_from_string(s);
        }
    }
    return &x86_vendors[X86_VENDOR_AMD];
}
