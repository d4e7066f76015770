/*
 * Application processor start.  ap_trampoline is copied to TRAMPOLINE_BASE
 * and entered by SIPI in real mode at CS = TRAMPOLINE_BASE >> 4, IP = 0,
 * so its own references are offsets from its start.  It switches to
 * protected mode on the kernel's GDT and jumps into the kernel image,
 * which then enters long mode on the BSP's page tables.
 */
#include "asm.h"

#define OFF(label) ((label) - ap_trampoline)

    .text
    .code16
    .globl ap_trampoline, ap_trampoline_end
ap_trampoline:
    cli
    movw %cs, %ax
    movw %ax, %ds
    lgdtl OFF(ap_gdtr)
    movl %cr0, %eax
    orl $CR0_PE, %eax
    movl %eax, %cr0
    ljmpl $SEL_CODE32, $ap_entry32
    .align 8
ap_gdtr:
    .word GDT_ENTRIES * 8 - 1
    .long gdt
ap_trampoline_end:

    .code32
ap_entry32:
    movl $SEL_DATA, %eax
    movl %eax, %ds
    movl %eax, %es
    movl %eax, %ss
    movl %cr4, %eax
    orl $CR4_PAE, %eax
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $MSR_EFER, %ecx
    rdmsr
    orl $EFER_LME, %eax
    wrmsr
    movl $CR0_LONG_MODE, %eax
    movl %eax, %cr0
    ljmp $SEL_CODE64, $ap_entry64

    .code64
ap_entry64:
    xorl %eax, %eax
    movl %eax, %fs
    movl %eax, %gs
    /* Every AP takes the next stack; a surplus CPU just stops. */
    movl $1, %eax
    lock xaddl %eax, ap_next_stack(%rip)
    cmpl $(MAX_CPUS - 1), %eax
    jae 2f
    incl %eax
    imull $AP_STACK_SIZE, %eax
    leaq ap_stacks(%rip), %rsp
    addq %rax, %rsp
    call ap_main
2:  cli
    hlt
    jmp 2b

    .bss
    .align 4096
ap_stacks:
    .skip AP_STACK_SIZE * (MAX_CPUS - 1)
ap_next_stack:
    .long 0

    /* No executable stack wanted. */
    .section .note.GNU-stack, "", @progbits
