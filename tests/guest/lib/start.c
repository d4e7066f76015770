/*
 * From entry.S to the program, and the few libc pieces gcc may call even
 * in a freestanding build (memset, memcpy for struct copies).
 */
#include "guest.h"

_Noreturn void guest_start(uint32_t magic, uint32_t info);

_Noreturn void guest_start(uint32_t magic, uint32_t info)
{
    serial_init();
    paging_init();
    idt_init();
    user_init();
    pic_disable();
    lapic_init();
    if (magic != MB_BOOTLOADER_MAGIC) {
        guest_fail_status(GUEST_BAD_MAGIC, "bad multiboot magic 0x%x", magic);
    }
    guest_main(magic, (struct mb_info *)(uintptr_t)info);
    guest_fail("main returned");
}

_Noreturn void guest_exit(int status)
{
    outb(DEBUG_EXIT_PORT, status);
    /* Without isa-debug-exit the guest just stops. */
    for (;;) {
        asm volatile("cli; hlt");
    }
}

_Noreturn void guest_pass(void)
{
    printf("%s: PASS\n", guest_name);
    guest_exit(GUEST_PASS);
}

static _Noreturn void fail_va(int status, const char *fmt, va_list ap)
{
    printf("%s: FAIL ", guest_name);
    vprintf(fmt, ap);
    printf("\n");
    guest_exit(status);
}

_Noreturn void guest_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fail_va(GUEST_FAIL, fmt, ap);
}

_Noreturn void guest_fail_status(int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fail_va(status, fmt, ap);
}

void *memset(void *d, int c, size_t n)
{
    void *ret = d;

    asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return ret;
}

void *memcpy(void *d, const void *s, size_t n)
{
    void *ret = d;

    asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) {
            return x[i] - y[i];
        }
    }
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n]) {
        n++;
    }
    return n;
}

const char *cmdline_value(const char *cmdline, const char *key)
{
    size_t klen = strlen(key);
    const char *p = cmdline;

    /* The first word is the kernel's path, never an option. */
    while (*p && *p != ' ') {
        p++;
    }
    while (*p) {
        while (*p == ' ') {
            p++;
        }
        if (!memcmp(p, key, klen) && p[klen] == '=') {
            return p + klen + 1;
        }
        while (*p && *p != ' ') {
            p++;
        }
    }
    return NULL;
}

uint64_t parse_u64(const char *s, bool *ok)
{
    uint64_t v = 0;

    *ok = *s >= '0' && *s <= '9';
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s++ - '0');
    }
    return v;
}
