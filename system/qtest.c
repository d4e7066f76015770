/*
 * The qtest protocol server.
 *
 * One command per line, words separated by single spaces; numbers in
 * decimal or 0x hex. Each command gets one reply line:
 *
 *   outb|outw|outl ADDR VALUE        OK
 *   inb|inw|inl ADDR                 OK 0x%04x
 *   writeb|writew|writel|writeq ADDR VALUE        OK
 *   readb|readw|readl|readq ADDR     OK 0x%016x
 *   read ADDR SIZE                   OK 0x<hex bytes>
 *   write ADDR SIZE 0x<hex bytes>    OK  (missing bytes are zero)
 *   b64read ADDR SIZE                OK <base64>
 *   b64write ADDR SIZE <base64>      OK
 *   memset ADDR SIZE VALUE           OK
 *   clock_step [NS]                  OK <virtual time in ns>
 *                                    (no NS: to the next timer; with no
 *                                    timer pending: FAIL ...)
 *   clock_set NS                     OK <virtual time in ns>
 *   endianness                       OK little
 *   irq_intercept_in|irq_intercept_out PATH       OK
 *   set_irq_in PATH NAME NUM LEVEL   OK
 *
 * Intercepted lines report level changes asynchronously, between
 * replies: "IRQ raise N" / "IRQ lower N". An unknown command gets
 * "FAIL Unknown command 'X'"; malformed arguments get "ERR <why>".
 * A line longer than QTEST_MAX_LINE is answered with ERR and dropped;
 * read and b64read are limited to QTEST_MAX_READ bytes, so a client can
 * make the server hold at most about QTEST_MAX_LINE + 2 * QTEST_MAX_READ.
 * (A detached server may have smaller limits, qtest_server_set_limits().)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "chardev/char.h"
#include "hw/qdev.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "system/memory.h"
#include "system/qtest.h"

#define QTEST_MAX_LINE  (192u << 20)
#define QTEST_MAX_READ  (64u << 20)
#define QTEST_MAX_IRQS  256

struct QTestServer {
    Chardev *chr;
    void (*reply)(const char *line, void *opaque);   /* detached mode */
    void *reply_opaque;
    CharBackend be;
    GString *inbuf;
    size_t max_line;
    size_t max_read;
    bool discarding;            /* dropping the rest of an overlong line */
    FILE *log;
    int64_t start_us;
    DeviceState *intercepted;
    GPtrArray *out_irqs;        /* lines made for irq_intercept_out */
    int irq_levels[QTEST_MAX_IRQS];
};

static QTestServer *server;

static void qtest_log(QTestServer *s, char dir, const char *line)
{
    if (s->log) {
        double t = (g_get_monotonic_time() - s->start_us) / 1e6;

        fprintf(s->log, "[%c +%f] %s\n", dir, t, line);
        fflush(s->log);
    }
}

static void qtest_send(QTestServer *s, const char *line)
{
    qtest_log(s, 'S', line);
    if (!s->chr) {
        if (s->reply) {
            s->reply(line, s->reply_opaque);
        }
        return;
    }
    {
        /* One write: a reply is one send, not two. */
        g_autofree char *l = g_strconcat(line, "\n", NULL);

        qemu_chr_fe_write(&s->be, (const uint8_t *)l, strlen(l));
    }
}

static void G_GNUC_PRINTF(2, 3) qtest_sendf(QTestServer *s,
                                            const char *fmt, ...)
{
    va_list ap;
    char *line;

    va_start(ap, fmt);
    line = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qtest_send(s, line);
    g_free(line);
}

static bool parse_u64(const char *str, uint64_t *value)
{
    char *end;

    if (!str || !g_ascii_isdigit(str[0])) {
        return false;
    }
    errno = 0;
    *value = g_ascii_strtoull(str, &end, 0);
    return *end == '\0' && errno == 0;
}

static void qtest_irq_handler(void *opaque, int n, int level)
{
    QTestServer *s = server;

    if (!s || n < 0 || n >= QTEST_MAX_IRQS) {
        return;
    }
    if (s->irq_levels[n] != level) {
        s->irq_levels[n] = level;
        qtest_sendf(s, "IRQ %s %d", level ? "raise" : "lower", n);
    }
}

static void cmd_intercept(QTestServer *s, const char *path, bool input)
{
    bool ambiguous;
    Object *obj = object_resolve_path(path, &ambiguous);
    DeviceState *dev = obj ? qdev_from_object(obj) : NULL;

    if (!dev) {
        qtest_send(s, "FAIL Unknown device");
        return;
    }
    if (s->intercepted) {
        /* As QEMU: asking again for the same device is harmless. */
        qtest_send(s, s->intercepted == dev ? "OK"
                      : "FAIL IRQ intercept already enabled");
        return;
    }
    for (guint i = 0; i < dev->gpios->len; i++) {
        NamedGPIOList *l = g_ptr_array_index(dev->gpios, i);

        if (l->input != input) {
            continue;
        }
        if (input) {
            qemu_irq_intercept(l->lines, qtest_irq_handler, s, l->num);
        } else {
            for (int n = 0; n < l->num; n++) {
                /* Outputs now lead to the test, numbered by pin. */
                l->lines[n] = qemu_allocate_irq(qtest_irq_handler, s, n);
                g_ptr_array_add(s->out_irqs, l->lines[n]);
            }
        }
    }
    s->intercepted = dev;
    qtest_send(s, "OK");
}

static void cmd_set_irq_in(QTestServer *s, char **w)
{
    Object *obj = object_resolve_path(w[1], NULL);
    DeviceState *dev = obj ? qdev_from_object(obj) : NULL;
    const char *name = strcmp(w[2], "unnamed-gpio-in") ? w[2] : NULL;
    NamedGPIOList *l;
    uint64_t num;
    gint64 level;
    char *end;

    if (!dev) {
        qtest_send(s, "FAIL Unknown device");
        return;
    }
    errno = 0;
    level = g_ascii_strtoll(w[4], &end, 0);
    if (!parse_u64(w[3], &num) || !w[4][0] || *end || errno) {
        qtest_send(s, "ERR invalid number");
        return;
    }
    l = qdev_get_named_gpio_list(dev, name, true);
    if (!l || num >= (uint64_t)l->num) {
        qtest_send(s, "FAIL Unknown IRQ line");
        return;
    }
    qemu_set_irq(l->lines[num], level != 0);
    qtest_send(s, "OK");
}

static unsigned access_size(char c)
{
    switch (c) {
    case 'b':
        return 1;
    case 'w':
        return 2;
    case 'l':
        return 4;
    case 'q':
        return 8;
    default:
        return 0;
    }
}

static void cmd_read(QTestServer *s, uint64_t addr, uint64_t size, bool b64)
{
    uint8_t *buf;

    if (size > s->max_read) {
        qtest_sendf(s, "ERR size %" PRIu64 " is over the limit of %zu bytes",
                    size, s->max_read);
        return;
    }
    buf = g_malloc(size ? size : 1);
    address_space_rw(&address_space_memory, addr, buf, size, false);
    if (b64) {
        char *enc = g_base64_encode(buf, size);

        qtest_sendf(s, "OK %s", enc);
        g_free(enc);
    } else {
        static const char digits[] = "0123456789abcdef";
        char *hex = g_malloc(size * 2 + 6);

        memcpy(hex, "OK 0x", 5);
        for (uint64_t i = 0; i < size; i++) {
            hex[5 + 2 * i] = digits[buf[i] >> 4];
            hex[6 + 2 * i] = digits[buf[i] & 15];
        }
        hex[5 + 2 * size] = '\0';
        qtest_send(s, hex);
        g_free(hex);
    }
    g_free(buf);
}

static void cmd_write_hex(QTestServer *s, uint64_t addr, uint64_t size,
                          const char *data)
{
    size_t digits;
    uint8_t *buf;

    if (strncmp(data, "0x", 2)) {
        qtest_send(s, "ERR data must start with 0x");
        return;
    }
    data += 2;
    digits = strlen(data);
    if (size > s->max_line || digits / 2 > size || digits % 2) {
        qtest_send(s, "ERR data does not match the size");
        return;
    }
    buf = g_malloc0(size ? size : 1);
    for (size_t i = 0; i < digits; i++) {
        int v = g_ascii_xdigit_value(data[i]);

        if (v < 0) {
            qtest_send(s, "ERR invalid hex digit");
            g_free(buf);
            return;
        }
        buf[i / 2] |= v << ((i % 2) ? 0 : 4);
    }
    address_space_rw(&address_space_memory, addr, buf, size, true);
    g_free(buf);
    qtest_send(s, "OK");
}

static void cmd_b64write(QTestServer *s, uint64_t addr, uint64_t size,
                         const char *data)
{
    gsize len;
    guchar *buf;

    for (const char *p = data; *p; p++) {
        if (!g_ascii_isalnum(*p) && !strchr("+/=", *p)) {
            qtest_send(s, "ERR invalid base64 data");
            return;
        }
    }
    buf = g_base64_decode(data, &len);
    if (len > size) {
        len = size;
    }
    address_space_rw(&address_space_memory, addr, buf, len, true);
    g_free(buf);
    qtest_send(s, "OK");
}

static void cmd_memset(QTestServer *s, uint64_t addr, uint64_t size,
                       uint64_t value)
{
    address_space_set(&address_space_memory, addr, (uint8_t)value, size);
    qtest_send(s, "OK");
}

static void cmd_clock(QTestServer *s, char **w, int argc, bool set)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint64_t ns;

    if (argc == 2) {
        if (!parse_u64(w[1], &ns) || ns > INT64_MAX) {
            qtest_send(s, "ERR invalid number");
            return;
        }
    } else if (set) {
        qtest_send(s, "ERR clock_set needs a time in ns");
        return;
    } else {
        int64_t d = qemu_clock_deadline_ns(QEMU_CLOCK_VIRTUAL);

        if (d < 0) {
            qtest_send(s, "FAIL No timer is pending");
            return;
        }
        ns = d;
    }
    if (set) {
        qtest_clock_warp((int64_t)ns);
    } else {
        qtest_clock_warp(ns > (uint64_t)(INT64_MAX - now) ? INT64_MAX
                                                          : now + ns);
    }
    qtest_sendf(s, "OK %" PRIi64, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
}

/* Expected word counts, including the command itself. */
static const struct {
    const char *name;
    int min_words, max_words;
} commands[] = {
    { "outb", 3, 3 }, { "outw", 3, 3 }, { "outl", 3, 3 },
    { "inb", 2, 2 }, { "inw", 2, 2 }, { "inl", 2, 2 },
    { "writeb", 3, 3 }, { "writew", 3, 3 }, { "writel", 3, 3 },
    { "writeq", 3, 3 },
    { "readb", 2, 2 }, { "readw", 2, 2 }, { "readl", 2, 2 },
    { "readq", 2, 2 },
    { "read", 3, 3 }, { "write", 4, 4 }, { "b64read", 3, 3 },
    { "b64write", 4, 4 }, { "memset", 4, 4 },
    { "clock_step", 1, 2 }, { "clock_set", 2, 2 }, { "endianness", 1, 1 },
    { "irq_intercept_in", 2, 2 }, { "irq_intercept_out", 2, 2 },
    { "set_irq_in", 5, 5 },
};

static void qtest_process_command(QTestServer *s, char **w, int argc)
{
    const char *cmd = w[0];
    uint64_t a, b, c;
    size_t i;

    for (i = 0; i < G_N_ELEMENTS(commands); i++) {
        if (!strcmp(commands[i].name, cmd)) {
            break;
        }
    }
    if (i == G_N_ELEMENTS(commands)) {
        qtest_sendf(s, "FAIL Unknown command '%s'", cmd);
        return;
    }
    if (argc < commands[i].min_words || argc > commands[i].max_words) {
        qtest_sendf(s, "ERR wrong number of arguments for '%s'", cmd);
        return;
    }
    if (g_str_has_prefix(cmd, "out") || g_str_has_prefix(cmd, "in")) {
        unsigned size = access_size(cmd[strlen(cmd) - 1]);

        if (!parse_u64(w[1], &a) || (argc == 3 && !parse_u64(w[2], &b))) {
            qtest_send(s, "ERR invalid number");
        } else if (a > 0xffff) {
            qtest_send(s, "ERR port address out of range");
        } else if (argc == 3) {
            address_space_write_sized(&address_space_io, a, b, size);
            qtest_send(s, "OK");
        } else {
            qtest_sendf(s, "OK 0x%04" PRIx64,
                        address_space_read_sized(&address_space_io, a,
                                                 size));
        }
    } else if ((g_str_has_prefix(cmd, "write") && cmd[5]) ||
               (g_str_has_prefix(cmd, "read") && cmd[4])) {
        bool write = cmd[0] == 'w';
        unsigned size = access_size(cmd[strlen(cmd) - 1]);

        if (!parse_u64(w[1], &a) || (write && !parse_u64(w[2], &b))) {
            qtest_send(s, "ERR invalid number");
        } else if (write) {
            address_space_write_sized(&address_space_memory, a, b, size);
            qtest_send(s, "OK");
        } else {
            qtest_sendf(s, "OK 0x%016" PRIx64,
                        address_space_read_sized(&address_space_memory, a,
                                                 size));
        }
    } else if (!strcmp(cmd, "read") || !strcmp(cmd, "b64read") ||
               !strcmp(cmd, "write") || !strcmp(cmd, "b64write") ||
               !strcmp(cmd, "memset")) {
        if (!parse_u64(w[1], &a) || !parse_u64(w[2], &b) ||
            (!strcmp(cmd, "memset") && !parse_u64(w[3], &c))) {
            qtest_send(s, "ERR invalid number");
        } else if (a + b < a) {
            qtest_send(s, "ERR address range wraps around");
        } else if (!strcmp(cmd, "read") || !strcmp(cmd, "b64read")) {
            cmd_read(s, a, b, cmd[0] == 'b');
        } else if (!strcmp(cmd, "write")) {
            cmd_write_hex(s, a, b, w[3]);
        } else if (!strcmp(cmd, "b64write")) {
            cmd_b64write(s, a, b, w[3]);
        } else {
            cmd_memset(s, a, b, c);
        }
    } else if (!strcmp(cmd, "clock_step") || !strcmp(cmd, "clock_set")) {
        cmd_clock(s, w, argc, !strcmp(cmd, "clock_set"));
    } else if (!strcmp(cmd, "endianness")) {
        qtest_send(s, "OK little");
    } else if (g_str_has_prefix(cmd, "irq_intercept_")) {
        cmd_intercept(s, w[1], !strcmp(cmd, "irq_intercept_in"));
    } else {
        cmd_set_irq_in(s, w);
    }
}

static void qtest_process_line(QTestServer *s, char *line)
{
    char **words;
    int argc;

    if (line[0] && line[strlen(line) - 1] == '\r') {
        line[strlen(line) - 1] = '\0';
    }
    qtest_log(s, 'R', line);
    words = g_strsplit(line, " ", 0);
    argc = g_strv_length(words);
    if (argc == 0 || !words[0][0]) {
        /* An empty line: QEMU ignores it too. */
    } else {
        qtest_process_command(s, words, argc);
    }
    g_strfreev(words);
}

static int qtest_can_read(void *opaque)
{
    return 1024 * 1024;
}

static void qtest_read(void *opaque, const uint8_t *buf, int size)
{
    QTestServer *s = opaque;
    const uint8_t *end = buf + size;

    while (buf < end) {
        const uint8_t *nl = memchr(buf, '\n', end - buf);
        size_t n = nl ? (size_t)(nl - buf) : (size_t)(end - buf);

        if (!s->discarding) {
            g_string_append_len(s->inbuf, (const char *)buf, n);
            if (s->inbuf->len > s->max_line) {
                qtest_sendf(s, "ERR line longer than %zu bytes", s->max_line);
                g_string_truncate(s->inbuf, 0);
                s->discarding = true;
            }
        }
        if (!nl) {
            break;
        }
        if (!s->discarding) {
            qtest_process_line(s, s->inbuf->str);
        }
        g_string_truncate(s->inbuf, 0);
        s->discarding = false;
        buf = nl + 1;
    }
}

static void qtest_event(void *opaque, ChrEvent event)
{
    QTestServer *s = opaque;

    if (event == CHR_EVENT_OPENED || event == CHR_EVENT_CLOSED) {
        /* A client that left mid-line must not leave half a command. */
        g_string_truncate(s->inbuf, 0);
        s->discarding = false;
        memset(s->irq_levels, 0, sizeof(s->irq_levels));
    }
}

QTestServer *qtest_server_new_detached(void (*reply)(const char *line,
                                                     void *opaque),
                                       void *opaque)
{
    QTestServer *s = g_new0(QTestServer, 1);

    s->reply = reply;
    s->reply_opaque = opaque;
    s->inbuf = g_string_new(NULL);
    s->max_line = QTEST_MAX_LINE;
    s->max_read = QTEST_MAX_READ;
    s->out_irqs = g_ptr_array_new_with_free_func(
        (GDestroyNotify)qemu_free_irq);
    return s;
}

void qtest_server_set_limits(QTestServer *s, size_t max_line,
                             size_t max_read)
{
    s->max_line = MIN(max_line, QTEST_MAX_LINE);
    s->max_read = MIN(max_read, QTEST_MAX_READ);
}

void qtest_server_feed(QTestServer *s, const uint8_t *buf, size_t len)
{
    QTestServer *saved = server;

    /* IRQ reports go to the server being fed. */
    server = s;
    qtest_read(s, buf, len);
    server = saved;
}

void qtest_server_free(QTestServer *s)
{
    g_ptr_array_free(s->out_irqs, TRUE);
    g_string_free(s->inbuf, TRUE);
    g_free(s);
}

/* f is /dev/null (character device 1:3), under whatever name. */
static bool is_dev_null(FILE *f)
{
    struct stat st;

    return fstat(fileno(f), &st) == 0 && S_ISCHR(st.st_mode) &&
           major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

bool qtest_server_init(const char *spec, const char *logfile, Error **errp)
{
    QTestServer *s;
    Chardev *chr;

    chr = qemu_chr_new("qtest", spec, errp);
    if (!chr) {
        if (errp && !*errp) {
            error_setg(errp, "-qtest needs a character device");
        }
        return false;
    }
    s = g_new0(QTestServer, 1);
    s->chr = chr;
    s->inbuf = g_string_new(NULL);
    s->max_line = QTEST_MAX_LINE;
    s->max_read = QTEST_MAX_READ;
    s->out_irqs = g_ptr_array_new_with_free_func(
        (GDestroyNotify)qemu_free_irq);
    s->start_us = g_get_monotonic_time();
    if (logfile && strcmp(logfile, "none")) {
        s->log = fopen(logfile, "we");
        if (!s->log) {
            error_setg_errno(errp, errno, "cannot open qtest log '%s'",
                             logfile);
            g_ptr_array_free(s->out_irqs, TRUE);
            g_string_free(s->inbuf, TRUE);
            g_free(s);
            return false;
        }
        if (is_dev_null(s->log)) {
            /* libqtest's default: two writes per command for nothing. */
            fclose(s->log);
            s->log = NULL;
        }
    }
    if (!qemu_chr_fe_init(&s->be, chr, errp)) {
        if (s->log) {
            fclose(s->log);
        }
        g_ptr_array_free(s->out_irqs, TRUE);
        g_string_free(s->inbuf, TRUE);
        g_free(s);
        return false;
    }
    server = s;
    /* The largest reply is a b64read of QTEST_MAX_READ bytes. */
    qemu_chr_fe_set_output_limit(&s->be, QTEST_MAX_READ * 2);
    qemu_chr_fe_set_handlers(&s->be, qtest_can_read, qtest_read, qtest_event,
                             s);
    return true;
}

void qtest_server_cleanup(void)
{
    QTestServer *s = server;

    if (!s) {
        return;
    }
    server = NULL;
    qemu_chr_fe_deinit(&s->be);
    if (s->log) {
        fclose(s->log);
    }
    g_ptr_array_free(s->out_irqs, TRUE);
    g_string_free(s->inbuf, TRUE);
    g_free(s);
}
