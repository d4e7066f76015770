/*
 * Multiboot entry: 32-bit protected mode, paging off, EAX = magic,
 * EBX = info.  On some KVM hosts (shadow paging) every instruction before
 * paging is emulated, so this part does the least it can: map the first
 * GiB, switch to long mode, and leave the rest to C.
 */
#include "asm.h"

#define MB_HEADER_MAGIC     0x1badb002
#define MB_PAGE_ALIGN       (1 << 0)    /* modules on page boundaries */
#define MB_MEMORY_INFO      (1 << 1)
#define MB_AOUT_KLUDGE      (1 << 16)   /* load from the header's fields */

#ifdef AOUT_KLUDGE
#define MB_FLAGS (MB_PAGE_ALIGN | MB_MEMORY_INFO | MB_AOUT_KLUDGE)
#else
#define MB_FLAGS (MB_PAGE_ALIGN | MB_MEMORY_INFO)
#endif

    .section .multiboot, "a"
    .align 4
mb_header:
    .long MB_HEADER_MAGIC
    .long MB_FLAGS
    .long -(MB_HEADER_MAGIC + MB_FLAGS)
#ifdef AOUT_KLUDGE
    /* The image is a flat binary of [__load_start, __load_end). */
    .long mb_header, __load_start, __load_end, _end, _start
#endif

    .section .text.entry, "ax"
    .code32
    .globl _start
_start:
    cli
    cld
    movl %eax, mb_magic
    movl %ebx, mb_info

    /* The loader need not zero these (a.out kludge images). */
    movl $boot_pml4, %edi
    xorl %eax, %eax
    movl $(3 * 4096 / 4), %ecx
    rep stosl
    /* User-accessible too: see user.c for why code runs at CPL 3. */
    movl $(boot_pdpt + 7), boot_pml4
    movl $(boot_pd + 7), boot_pdpt
    movl $boot_pd, %edi
    movl $0x87, %eax                    /* present, writable, user, 2 MiB */
    movl $512, %ecx
1:  movl %eax, (%edi)
    addl $0x200000, %eax
    addl $8, %edi
    loop 1b

    lgdt gdt_desc
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
    ljmp $SEL_CODE64, $start64

    .code64
start64:
    movl $SEL_DATA, %eax
    movl %eax, %ds
    movl %eax, %es
    movl %eax, %ss
    xorl %eax, %eax
    movl %eax, %fs
    movl %eax, %gs
    leaq boot_stack_top(%rip), %rsp

    leaq __bss_start(%rip), %rdi
    leaq __bss_end(%rip), %rcx
    subq %rdi, %rcx
    shrq $3, %rcx
    xorl %eax, %eax
    rep stosq

    movl mb_magic(%rip), %edi
    movl mb_info(%rip), %esi
    call guest_start
2:  cli
    hlt
    jmp 2b

    .data
    .align 16
    .globl gdt
gdt:
    .quad 0
    .quad 0x00af9a000000ffff            /* SEL_CODE64 */
    .quad 0x00cf92000000ffff            /* SEL_DATA, flat */
    .quad 0x00cf9a000000ffff            /* SEL_CODE32, flat */
    .quad 0x00cff2000000ffff            /* SEL_USER_DATA */
    .quad 0x00affa000000ffff            /* SEL_USER_CODE64 */
    .quad 0, 0                          /* SEL_TSS */
gdt_desc:
    .word GDT_ENTRIES * 8 - 1
    .quad gdt
    .globl mb_magic, mb_info
mb_magic:
    .long 0
mb_info:
    .long 0

    .section .boot_bss, "aw", @nobits
    .align 4096
    .globl boot_pml4, boot_pdpt, boot_pd
boot_pml4:
    .skip 4096
boot_pdpt:
    .skip 4096
boot_pd:
    .skip 4096
    .skip BOOT_STACK_SIZE
boot_stack_top:

    /* No executable stack wanted. */
    .section .note.GNU-stack, "", @progbits
