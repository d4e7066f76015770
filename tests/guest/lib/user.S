/*
 * run_user(fn, arg): IRETQ to fn at CPL 3 on user_stack, with a return
 * address that executes UD2; idt.c sees that #UD come from user_return
 * and calls user_exit, which drops the user context and returns from
 * run_user with fn's result.
 *
 * Why not SYSCALL: kvm_pvm delivers SYSCALL to a non-paravirtual guest
 * at hardware CPL 3, where the kernel's port I/O then faults; exceptions
 * are delivered properly everywhere.
 */
#include "asm.h"

#define RFLAGS_RESERVED 0x2                 /* IF clear: no interrupts */

    .text
    .globl run_user
run_user:
    pushq %rbx
    pushq %rbp
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, kernel_rsp(%rip)
    leaq user_stack + USER_STACK_SIZE - 8(%rip), %rax
    leaq user_return(%rip), %rcx
    movq %rcx, (%rax)                       /* fn's return address */
    pushq $(SEL_USER_DATA | 3)
    pushq %rax
    pushq $RFLAGS_RESERVED
    pushq $(SEL_USER_CODE64 | 3)
    pushq %rdi
    movq %rsi, %rdi
    xorl %esi, %esi
    xorl %eax, %eax
    iretq

    /* Runs at CPL 3; fn's result is in RAX. */
    .globl user_return
user_return:
    ud2

    /* user_exit(result): called by idt.c on the exception's stack. */
    .globl user_exit
user_exit:
    movq %rdi, %rax
    movq kernel_rsp(%rip), %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbp
    popq %rbx
    ret

    .bss
    .align 8
kernel_rsp:
    .quad 0

    .section .note.GNU-stack, "", @progbits
