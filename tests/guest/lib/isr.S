/*
 * One 16-byte stub per vector, so idt.c finds stub N at isr_stubs + 16 * N.
 * Stubs push a zero error code where the CPU does not, so every frame has
 * the same layout (struct irq_frame).
 */
#define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || \
                      (v) == 21 || (v) == 29 || (v) == 30)

    .text
    .align 16
    .globl isr_stubs
isr_stubs:
    vector = 0
    .rept 256
    .align 16
    .if !HAS_ERROR(vector)
    pushq $0
    .endif
    pushq $vector
    jmp isr_common
    vector = vector + 1
    .endr

isr_common:
    /* 15 registers + vector + error + the CPU's 5 words keep RSP 16-aligned. */
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, %rdi
    cld
    call isr_dispatch
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
    addq $16, %rsp
    iretq

    /* No executable stack wanted. */
    .section .note.GNU-stack, "", @progbits
