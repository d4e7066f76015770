/* Constants shared by the assembly files. */
#ifndef GUEST_ASM_H
#define GUEST_ASM_H

/* Our GDT (entry.S): the AP trampoline relies on the same layout. */
#define SEL_CODE64      0x08
#define SEL_DATA        0x10
#define SEL_CODE32      0x18
#define SEL_USER_DATA   0x20        /* DPL 3; SYSRET wants it before CS */
#define SEL_USER_CODE64 0x28        /* DPL 3 */
#define SEL_TSS         0x30        /* 16 bytes, filled in by user.c */
#define GDT_ENTRIES     8

#define CR0_PE          (1 << 0)
#define CR0_MP          (1 << 1)
#define CR0_ET          (1 << 4)
#define CR0_NE          (1 << 5)
#define CR0_WP          (1 << 16)
#define CR0_PG          (1 << 31)
/* A fixed CR0: the loader may leave CD/NW set, which is slow under KVM. */
#define CR0_LONG_MODE   (CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG)
#define CR4_PAE         (1 << 5)
#define MSR_EFER        0xc0000080
#define EFER_LME        (1 << 8)

#define BOOT_STACK_SIZE 16384
#define AP_STACK_SIZE   4096
#define MAX_CPUS        32
#define USER_STACK_SIZE 16384
#define TRAMPOLINE_BASE 0x8000      /* SIPI vector 0x08 */

#endif
