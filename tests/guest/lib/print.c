/*
 * COM1 and a printf with what test output needs: %d %u %x %s %c %p, the
 * l/ll/z modifiers, a field width and zero padding.  Output is "\n" only,
 * so expected files compare byte for byte.
 */
#include "guest.h"

#define COM1        0x3f8
#define UART_THR    0
#define UART_IER    1
#define UART_DLL    0
#define UART_DLM    1
#define UART_FCR    2
#define UART_LCR    3
#define UART_MCR    4
#define UART_LSR    5
#define LCR_DLAB    0x80
#define LCR_8N1     0x03
#define LSR_THRE    0x20

void serial_init(void)
{
    outb(COM1 + UART_IER, 0);
    outb(COM1 + UART_LCR, LCR_DLAB);
    outb(COM1 + UART_DLL, 1);           /* 115200 baud */
    outb(COM1 + UART_DLM, 0);
    outb(COM1 + UART_LCR, LCR_8N1);
    outb(COM1 + UART_FCR, 0x07);        /* enable and clear the FIFOs */
    outb(COM1 + UART_MCR, 0x03);        /* DTR, RTS */
}

void serial_putc(char c)
{
    while (!(inb(COM1 + UART_LSR) & LSR_THRE)) {
        cpu_relax();
    }
    outb(COM1 + UART_THR, c);
}

static int put_number(uint64_t v, unsigned base, bool neg, int width,
                      char pad)
{
    char buf[24];
    int n = 0, out = 0;

    do {
        buf[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (neg) {
        buf[n++] = '-';
    }
    for (; width > n; width--, out++) {
        serial_putc(pad);
    }
    while (n) {
        serial_putc(buf[--n]);
        out++;
    }
    return out;
}

int vprintf(const char *fmt, va_list ap)
{
    int out = 0;

    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            serial_putc(*fmt);
            out++;
            continue;
        }
        fmt++;
        char pad = ' ';
        int width = 0, longs = 0;
        if (*fmt == '0') {
            pad = '0';
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9') {
            width = width * 10 + (*fmt++ - '0');
        }
        while (*fmt == 'l' || *fmt == 'z') {
            longs++;
            fmt++;
        }
        uint64_t u;
        int64_t s;
        switch (*fmt) {
        case 'd':
            s = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
            u = s < 0 ? -(uint64_t)s : (uint64_t)s;
            out += put_number(u, 10, s < 0, width, pad);
            break;
        case 'u':
        case 'x':
            u = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned);
            out += put_number(u, *fmt == 'x' ? 16 : 10, false, width, pad);
            break;
        case 'p':
            serial_putc('0');
            serial_putc('x');
            out += 2 + put_number((uintptr_t)va_arg(ap, void *), 16, false,
                                  width, pad);
            break;
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str) {
                str = "(null)";
            }
            for (int n = strlen(str); width > n; width--, out++) {
                serial_putc(' ');
            }
            for (; *str; str++, out++) {
                serial_putc(*str);
            }
            break;
        }
        case 'c':
            serial_putc(va_arg(ap, int));
            out++;
            break;
        case '%':
            serial_putc('%');
            out++;
            break;
        default:                        /* includes a trailing '%' */
            return out;
        }
    }
    return out;
}

int printf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}
