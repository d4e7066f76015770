/*
 * The guest kit's runtime: what a test program may call.  Everything runs
 * in 64-bit long mode on an identity map of the first 4 GiB (2 MiB pages);
 * nothing here allocates, sleeps on a clock it does not program itself, or
 * prints anything that depends on timing, so a program's serial output is
 * the same under every accelerator.
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "multiboot.h"

#define MiB ((uint64_t)1024 * 1024)
#define GiB (1024 * MiB)

/* Exit statuses written to isa-debug-exit; QEMU exits with (v << 1) | 1. */
#define GUEST_PASS          0
#define GUEST_FAIL          1
#define GUEST_UNEXPECTED    2   /* exception or interrupt nobody expected */
#define GUEST_BAD_MAGIC     3   /* not started by a multiboot loader */

#define DEBUG_EXIT_PORT     0xf4

/* Each program defines its name; it prefixes the PASS/FAIL line. */
extern const char guest_name[];

/* The program's body; it ends with guest_pass() or guest_fail(). */
void guest_main(uint32_t mb_magic, struct mb_info *mb);

/* --- port I/O and MMIO ------------------------------------------------ */
static inline void outb(uint16_t port, uint8_t v)
{
    asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outw(uint16_t port, uint16_t v)
{
    asm volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outl(uint16_t port, uint32_t v)
{
    asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline uint8_t mmio_read8(uint64_t addr)
{
    return *(volatile uint8_t *)addr;
}
static inline uint16_t mmio_read16(uint64_t addr)
{
    return *(volatile uint16_t *)addr;
}
static inline void mmio_write8(uint64_t addr, uint8_t v)
{
    *(volatile uint8_t *)addr = v;
}
static inline void mmio_write16(uint64_t addr, uint16_t v)
{
    *(volatile uint16_t *)addr = v;
}
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline uint32_t mmio_read32(uint64_t addr)
{
    return *(volatile uint32_t *)addr;
}
static inline void mmio_write32(uint64_t addr, uint32_t v)
{
    *(volatile uint32_t *)addr = v;
}
static inline uint64_t read_cr2(void)
{
    uint64_t v;
    asm volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}
static inline void cpu_relax(void)
{
    asm volatile("pause" ::: "memory");
}
/* sti takes effect after the next instruction, so no interrupt is lost. */
static inline void wait_for_interrupt(void)
{
    asm volatile("sti; hlt; cli" ::: "memory");
}

/* --- console and exit (print.c, start.c) ------------------------------ */
void serial_init(void);
void serial_putc(char c);
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintf(const char *fmt, va_list ap);
_Noreturn void guest_exit(int status);
_Noreturn void guest_pass(void);
_Noreturn void guest_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
_Noreturn void guest_fail_status(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --- libc-free helpers (start.c) ------------------------------------- */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
/* Value of "key=value" among the cmdline's words after the first, or NULL;
 * the result ends at the next space. */
const char *cmdline_value(const char *cmdline, const char *key);
/* Decimal number at s (stops at a non-digit); *ok false when none. */
uint64_t parse_u64(const char *s, bool *ok);

/* --- paging (paging.c) ------------------------------------------------ */
#define PTE_PRESENT     (1ull << 0)
#define PTE_WRITE       (1ull << 1)
#define PTE_USER        (1ull << 2)
#define PTE_PWT         (1ull << 3)
#define PTE_PCD         (1ull << 4)
#define PTE_LARGE       (1ull << 7)
/* What the identity map uses: user.c needs every page user-accessible. */
#define PTE_KERNEL_RW   (PTE_PRESENT | PTE_WRITE | PTE_USER)
void paging_init(void);
/* Identity-map [base, base+size) with 2 MiB pages (below 512 GiB). */
bool paging_map(uint64_t base, uint64_t size, uint64_t flags);
/* Change the flags of the 2 MiB page holding addr (must be mapped). */
void paging_set_flags(uint64_t addr, uint64_t flags);

/* --- CPL 3 (user.c, user.S) ------------------------------------------ */
void user_init(void);
/*
 * Call fn(arg) at CPL 3 with interrupts off and return its result, which
 * comes back through a #UD at a known address.  BSP only, not reentrant.
 */
uint64_t run_user(uint64_t (*fn)(uint64_t), uint64_t arg);

/* --- interrupts (idt.c, isr.S) ---------------------------------------- */
struct irq_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;     /* pushed by the CPU */
};
typedef void (*irq_handler)(struct irq_frame *f);
void idt_init(void);
void idt_set_handler(unsigned vector, irq_handler h);
/* Load an IDT with limit 0: the next exception triple faults. */
void idt_load_empty(void);

/* --- interrupt controllers (apic.c) ---------------------------------- */
#define LAPIC_BASE      0xfee00000ull
#define IOAPIC_BASE     0xfec00000ull
#define SPURIOUS_VECTOR 0xff
void pic_disable(void);
void lapic_init(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_timer_periodic(uint8_t vector, uint32_t count);
void lapic_timer_oneshot(uint8_t vector, uint32_t count);
void lapic_timer_stop(void);
/* Busy-wait on the LAPIC timer, which counts at 1 GHz in QEMU and KVM. */
void lapic_udelay(uint32_t us);
/* Send an IPI (ICR low word) and wait until the APIC took it. */
void lapic_send_ipi(uint32_t dest_apic_id, uint32_t icr_low);
void ioapic_route(unsigned pin, uint8_t vector, uint32_t dest_apic_id);
void ioapic_mask(unsigned pin);

/* --- fw_cfg (fw_cfg.c) ------------------------------------------------ */
#define FW_CFG_SIGNATURE    0x00
#define FW_CFG_NB_CPUS      0x05
bool fw_cfg_present(void);
void fw_cfg_read(uint16_t key, void *buf, size_t len);

#endif
