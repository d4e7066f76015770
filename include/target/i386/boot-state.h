/*
 * The state vCPU 0 starts a directly booted kernel in, as the loaders
 * (hw/i386/x86-boot.h) make it and the accelerators apply it at reset
 * (AccelOps.reset_vcpus): registers, segments, descriptor tables, and
 * the loaders' bookkeeping (what they wrote where, warnings).
 */
#ifndef TARGET_I386_BOOT_STATE_H
#define TARGET_I386_BOOT_STATE_H

#include <stdint.h>

#include <glib.h>

#define X86_RFLAGS_FIXED    0x2         /* bit 1 always reads as one */

typedef enum X86BootMode {
    X86_BOOT_MODE_PROTECTED32,          /* flat 32-bit, paging off */
    X86_BOOT_MODE_LONG64,               /* 64-bit, identity paging */
} X86BootMode;

/* A segment register with its hidden part, laid out as KVM's kvm_segment. */
typedef struct X86BootSegment {
    uint64_t base;
    uint32_t limit;                     /* in bytes, granularity applied */
    uint16_t selector;
    uint8_t type;                       /* descriptor type, bits 0-3 */
    uint8_t present, dpl, db, s, l, g;
    uint8_t unusable;
} X86BootSegment;

/* A piece of guest RAM a loader wrote or reserved. */
typedef struct X86BootRange {
    uint64_t addr;
    uint64_t len;
    const char *what;                   /* static string: "kernel", ... */
} X86BootRange;

/*
 * The state vCPU 0 starts in. Registers not named here keep their reset
 * values (the loaders zero them: EBP, EDI, ... are 0 as both protocols
 * ask).
 */
typedef struct X86BootState {
    X86BootMode mode;
    uint64_t rax, rbx, rcx, rdx, rsi, rdi, rsp, rbp;
    uint64_t rip, rflags;
    uint64_t cr0, cr3, cr4, efer;
    X86BootSegment cs, ds, es, fs, gs, ss, tr, ldt;
    uint64_t gdt_base, idt_base;
    uint16_t gdt_limit, idt_limit;
    GArray *ranges;                     /* X86BootRange, in load order */
    GPtrArray *warnings;                /* strings for warn_report() */
} X86BootState;

void x86_boot_state_init(X86BootState *st);
void x86_boot_state_free(X86BootState *st);

#endif
