/*
 * libqtest: the test side of the qtest line protocol and of QMP.
 *
 * qtest_init() makes a private directory with two unix sockets, listens
 * on both and starts the emulator with QEMU's libqtest command line:
 *
 *   -qtest unix:QTEST_SOCK -qtest-log /dev/null
 *   -chardev socket,path=QMP_SOCK,id=char0 -mon chardev=char0,mode=control
 *   -display none -audio none EXTRA_ARGS -accel qtest
 *
 * With QTEST_ACCEL=ACCEL in the environment the end is "-accel ACCEL
 * -bios HALT" (a BIOS that halts the CPU at once, so the machine runs
 * but nothing else touches it) and -audio is left out, so a test also
 * runs against a QEMU built without the qtest accelerator (Debian's:
 * QTEST_ACCEL=tcg).
 *
 * The emulator connects to both as a client. Once both connections are
 * accepted the socket files are removed, so a test that dies leaves no
 * litter; the child gets SIGKILL when the test process dies.
 *
 * Every wait (accept, a reply line, a QMP message, the process exit) is
 * bounded by QTEST_TIMEOUT seconds (default 60), so a hung emulator fails
 * the test instead of hanging the run. Failures abort the test with
 * g_error() and include what the emulator printed on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libqmp.h"
#include "libqtest.h"

#ifndef QEMU_BINARY
#define QEMU_BINARY "qemu-system-x86_64"
#endif

#define QTEST_ARCH              "x86_64"
#define QTEST_DEFAULT_TIMEOUT_S 60
#define QTEST_MAX_IRQ           256

struct QTestState {
    pid_t pid;                  /* -1 once reaped */
    int wstatus;                /* valid once reaped */
    int qtest_fd;
    GString *qtest_buf;         /* received, not yet consumed */
    size_t qtest_scanned;       /* bytes of qtest_buf known to lack '\n' */
    QMPClient *qmp;             /* NULL if the emulator did not connect */
    bool irq_level[QTEST_MAX_IRQ];
    unsigned irq_raises[QTEST_MAX_IRQ];
    bool big_endian;
    char *bios;                 /* QTEST_ACCEL's halt BIOS, removed at free */

    /* The child's stdout and stderr, drained by a thread. */
    int stderr_fd;
    GThread *stderr_thread;
    GMutex stderr_lock;
    GString *stderr_text;
    char *stderr_snapshot;
};

static int qtest_timeout_ms(void)
{
    const char *env = g_getenv("QTEST_TIMEOUT");
    long secs = env ? strtol(env, NULL, 10) : 0;

    return (secs > 0 ? secs : QTEST_DEFAULT_TIMEOUT_S) * 1000;
}

static const char *qtest_binary(void)
{
    const char *env = g_getenv("QTEST_QEMU_BINARY");

    return env && *env ? env : QEMU_BINARY;
}

static int64_t now_ms(void)
{
    return g_get_monotonic_time() / 1000;
}

/* ---- child stderr ---------------------------------------------------- */

static gpointer stderr_reader(gpointer opaque)
{
    QTestState *s = opaque;
    bool forward = g_getenv("QTEST_LOG") != NULL;
    char buf[4096];
    ssize_t n;

    for (;;) {
        n = read(s->stderr_fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        g_mutex_lock(&s->stderr_lock);
        g_string_append_len(s->stderr_text, buf, n);
        g_mutex_unlock(&s->stderr_lock);
        if (forward) {
            ssize_t ignored = write(STDERR_FILENO, buf, n);
            (void)ignored;
        }
    }
    return NULL;
}

const char *qtest_stderr(QTestState *s)
{
    g_mutex_lock(&s->stderr_lock);
    g_free(s->stderr_snapshot);
    s->stderr_snapshot = g_strdup(s->stderr_text->str);
    g_mutex_unlock(&s->stderr_lock);
    return s->stderr_snapshot;
}

/* Wait for the reader to see EOF (the child has exited). */
static void stderr_finish(QTestState *s)
{
    if (s->stderr_thread) {
        g_thread_join(s->stderr_thread);
        s->stderr_thread = NULL;
    }
    if (s->stderr_fd >= 0) {
        close(s->stderr_fd);
        s->stderr_fd = -1;
    }
}

/* ---- process --------------------------------------------------------- */

static char *describe_status(int wstatus)
{
    if (WIFEXITED(wstatus)) {
        return g_strdup_printf("exited with status %d", WEXITSTATUS(wstatus));
    }
    if (WIFSIGNALED(wstatus)) {
        return g_strdup_printf("killed by signal %d (%s)", WTERMSIG(wstatus),
                               strsignal(WTERMSIG(wstatus)));
    }
    return g_strdup_printf("wait status 0x%x", wstatus);
}

/* Reap the child if it has exited; true if it is gone. */
static bool try_reap(QTestState *s)
{
    pid_t r;

    if (s->pid < 0) {
        return true;
    }
    do {
        r = waitpid(s->pid, &s->wstatus, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == s->pid || (r < 0 && errno == ECHILD)) {
        s->pid = -1;
        return true;
    }
    return false;
}

/* Reap within timeout_ms; SIGKILL and fail if it will not exit. */
static void reap_or_kill(QTestState *s, int timeout_ms, const char *why)
{
    int64_t deadline = now_ms() + timeout_ms;

    while (!try_reap(s)) {
        if (now_ms() > deadline) {
            pid_t pid = s->pid;

            kill(pid, SIGKILL);
            waitpid(pid, &s->wstatus, 0);
            s->pid = -1;
            stderr_finish(s);
            g_error("emulator pid %d did not exit within %d s %s; "
                    "stderr:\n%s", (int)pid, timeout_ms / 1000, why,
                    qtest_stderr(s));
        }
        g_usleep(2000);
    }
    stderr_finish(s);
}

/* Abort the test because the emulator misbehaved, with its stderr. */
static void G_GNUC_NORETURN G_GNUC_PRINTF(2, 3)
qtest_fail(QTestState *s, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    char *status = NULL;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);

    /* Give a dying process a moment so its last words are captured. */
    if (s->pid > 0) {
        for (int i = 0; i < 50 && !try_reap(s); i++) {
            g_usleep(10000);
        }
    }
    if (s->pid < 0) {
        stderr_finish(s);
        status = describe_status(s->wstatus);
    }
    g_error("%s%s%s; emulator stderr:\n%s", msg, status ? "; emulator " : "",
            status ? status : "", qtest_stderr(s));
}

pid_t qtest_pid(QTestState *s)
{
    return s->pid;
}

double qtest_cpu_seconds(QTestState *s)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)s->pid);
    g_autofree char *text = NULL;
    unsigned long ut = 0, st = 0;
    const char *p;

    if (!g_file_get_contents(path, &text, NULL, NULL) ||
        !(p = strrchr(text, ')'))) {
        return 0;
    }
    /* After "pid (comm)": state is field 3, utime 14, stime 15. */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
               &ut, &st) != 2) {
        return 0;
    }
    return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static void child_setup(gpointer data)
{
    /* Do not outlive a test that crashed or hit g_error(). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void spawn(QTestState *s, char **argv)
{
    GError *err = NULL;
    int pipefd[2];
    GPid pid;

    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        g_error("pipe: %s", strerror(errno));
    }
    /*
     * stdout goes to the same pipe as stderr: anything the emulator
     * prints must not end up in the test's TAP stream.
     */
    /* Our emulator reads every QMP reply back against the schema. */
    g_setenv("QEMU_QMP_CHECK_RETURNS", "1", FALSE);
    if (!g_spawn_async_with_fds(NULL, argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD |
                                G_SPAWN_STDIN_FROM_DEV_NULL,
                                child_setup, NULL, &pid,
                                -1, pipefd[1], pipefd[1], &err)) {
        g_error("cannot start %s: %s", argv[0], err->message);
    }
    close(pipefd[1]);
    s->pid = pid;
    s->stderr_fd = pipefd[0];
    s->stderr_thread = g_thread_new("qtest-stderr", stderr_reader, s);
}

/* ---- sockets --------------------------------------------------------- */

static int listen_unix(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd;

    g_assert(strlen(path) < sizeof(addr.sun_path));
    strcpy(addr.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        g_error("socket: %s", strerror(errno));
    }
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
        listen(fd, 1) < 0) {
        g_error("cannot listen on %s: %s", path, strerror(errno));
    }
    return fd;
}

int qtest_socket_connect(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd;
    int ret;

    g_assert(strlen(path) < sizeof(addr.sun_path));
    strcpy(addr.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        g_error("socket: %s", strerror(errno));
    }
    do {
        ret = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
    } while (ret < 0 && errno == EINTR);
    if (ret < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * Accept one connection on each listening socket. Returns false if the
 * child exited first (or the wait timed out, with *timed_out set).
 */
static bool accept_both(QTestState *s, int lfd[2], int cfd[2],
                        bool *timed_out)
{
    int64_t deadline = now_ms() + qtest_timeout_ms();

    cfd[0] = cfd[1] = -1;
    *timed_out = false;
    while (cfd[0] < 0 || cfd[1] < 0) {
        struct pollfd pfd[2];
        int n = 0;
        int idx[2];

        for (int i = 0; i < 2; i++) {
            if (cfd[i] < 0) {
                pfd[n] = (struct pollfd){ .fd = lfd[i], .events = POLLIN };
                idx[n++] = i;
            }
        }
        if (poll(pfd, n, 50) < 0 && errno != EINTR) {
            g_error("poll: %s", strerror(errno));
        }
        for (int i = 0; i < n; i++) {
            if (pfd[i].revents & POLLIN) {
                cfd[idx[i]] = accept4(lfd[idx[i]], NULL, NULL, SOCK_CLOEXEC);
            }
        }
        if (cfd[0] >= 0 && cfd[1] >= 0) {
            break;
        }
        if (try_reap(s)) {
            return false;
        }
        if (now_ms() > deadline) {
            *timed_out = true;
            return false;
        }
    }
    return true;
}

static void send_all(QTestState *s, int fd, const char *data, size_t len)
{
    const char *why;

    if (!qmp_fd_send(fd, data, len, qtest_timeout_ms(), &why)) {
        qtest_fail(s, "send to emulator failed: %s", why);
    }
}

/*
 * Read more bytes from fd into buf, waiting at most the timeout. Returns
 * false on EOF or error (with errno-ish reason in *why).
 */
static bool fill(QTestState *s, int fd, GString *buf, const char **why)
{
    return qmp_fd_fill(fd, buf, qtest_timeout_ms(), why);
}

/* ---- qtest protocol -------------------------------------------------- */

/* Take the next complete line out of the qtest buffer, reading as needed. */
static char *qtest_read_line(QTestState *s)
{
    for (;;) {
        GString *b = s->qtest_buf;
        char *nl = memchr(b->str + s->qtest_scanned, '\n',
                          b->len - s->qtest_scanned);
        const char *why;

        if (nl) {
            size_t len = nl - b->str;
            char *line = g_strndup(b->str, len);

            g_string_erase(b, 0, len + 1);
            s->qtest_scanned = 0;
            return line;
        }
        /* A long reply comes in many pieces: look at each byte once. */
        s->qtest_scanned = b->len;
        if (s->qtest_fd < 0) {
            qtest_fail(s, "no qtest connection");
        }
        if (!fill(s, s->qtest_fd, s->qtest_buf, &why)) {
            qtest_fail(s, "qtest: %s", why);
        }
    }
}

/* Consume an "IRQ raise N" / "IRQ lower N" line; false for other lines. */
static bool qtest_handle_async(QTestState *s, const char *line)
{
    bool raise;
    const char *num;
    char *end;
    long n;

    if (g_str_has_prefix(line, "IRQ raise ")) {
        raise = true;
        num = line + strlen("IRQ raise ");
    } else if (g_str_has_prefix(line, "IRQ lower ")) {
        raise = false;
        num = line + strlen("IRQ lower ");
    } else {
        return false;
    }
    n = strtol(num, &end, 0);
    if (end == num || *end || n < 0 || n >= QTEST_MAX_IRQ) {
        qtest_fail(s, "bad asynchronous line from emulator: '%s'", line);
    }
    if (raise && !s->irq_level[n]) {
        s->irq_raises[n]++;
    }
    s->irq_level[n] = raise;
    return true;
}

static char *qtest_rspv(QTestState *s, const char *fmt, va_list ap)
{
    char *cmd = g_strdup_vprintf(fmt, ap);
    size_t len = strlen(cmd);
    char *line;

    if (len == 0 || cmd[len - 1] != '\n') {
        char *with_nl = g_strconcat(cmd, "\n", NULL);

        g_free(cmd);
        cmd = with_nl;
        len++;
    }
    send_all(s, s->qtest_fd, cmd, len);
    g_free(cmd);
    do {
        line = qtest_read_line(s);
        if (!qtest_handle_async(s, line)) {
            break;
        }
        g_free(line);
    } while (true);
    return line;
}

void qtest_send_raw(QTestState *s, const char *data, size_t len)
{
    send_all(s, s->qtest_fd, data, len);
}

void qtest_close_qtest(QTestState *s)
{
    if (s->qtest_fd >= 0) {
        close(s->qtest_fd);
        s->qtest_fd = -1;
    }
}

char *qtest_rsp(QTestState *s, const char *fmt, ...)
{
    va_list ap;
    char *line;

    va_start(ap, fmt);
    line = qtest_rspv(s, fmt, ap);
    va_end(ap);
    return line;
}

/*
 * Send a command that must succeed; return what follows "OK" (without the
 * separating space, "" for a bare OK).
 */
static char * G_GNUC_PRINTF(2, 3) qtest_ok(QTestState *s, const char *fmt, ...)
{
    va_list ap;
    char *line;
    char *value;

    va_start(ap, fmt);
    line = qtest_rspv(s, fmt, ap);
    va_end(ap);

    if (strcmp(line, "OK") == 0) {
        value = g_strdup("");
    } else if (g_str_has_prefix(line, "OK ")) {
        value = g_strdup(line + 3);
    } else {
        char *cmd;

        va_start(ap, fmt);
        cmd = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        if (strlen(cmd) > 200) {
            strcpy(cmd + 197, "...");
        }
        g_strchomp(cmd);
        qtest_fail(s, "qtest command '%s' failed: '%s'", cmd, line);
    }
    g_free(line);
    return value;
}

static uint64_t qtest_parse_u64(QTestState *s, const char *cmd,
                                const char *text)
{
    char *end;
    uint64_t v;

    errno = 0;
    v = g_ascii_strtoull(text, &end, 0);
    if (end == text || *end || errno) {
        qtest_fail(s, "%s: bad value in reply 'OK %s'", cmd, text);
    }
    return v;
}

static void qtest_out(QTestState *s, const char *cmd, uint16_t addr,
                      uint32_t value)
{
    g_free(qtest_ok(s, "%s 0x%x 0x%x", cmd, addr, value));
}

static uint32_t qtest_in(QTestState *s, const char *cmd, uint16_t addr)
{
    char *v = qtest_ok(s, "%s 0x%x", cmd, addr);
    uint64_t r = qtest_parse_u64(s, cmd, v);

    g_free(v);
    return r;
}

void qtest_outb(QTestState *s, uint16_t addr, uint8_t value)
{
    qtest_out(s, "outb", addr, value);
}

void qtest_outw(QTestState *s, uint16_t addr, uint16_t value)
{
    qtest_out(s, "outw", addr, value);
}

void qtest_outl(QTestState *s, uint16_t addr, uint32_t value)
{
    qtest_out(s, "outl", addr, value);
}

uint8_t qtest_inb(QTestState *s, uint16_t addr)
{
    return qtest_in(s, "inb", addr);
}

uint16_t qtest_inw(QTestState *s, uint16_t addr)
{
    return qtest_in(s, "inw", addr);
}

uint32_t qtest_inl(QTestState *s, uint16_t addr)
{
    return qtest_in(s, "inl", addr);
}

static void qtest_write(QTestState *s, const char *cmd, uint64_t addr,
                        uint64_t value)
{
    g_free(qtest_ok(s, "%s 0x%" PRIx64 " 0x%" PRIx64, cmd, addr, value));
}

static uint64_t qtest_read(QTestState *s, const char *cmd, uint64_t addr)
{
    char *v = qtest_ok(s, "%s 0x%" PRIx64, cmd, addr);
    uint64_t r = qtest_parse_u64(s, cmd, v);

    g_free(v);
    return r;
}

void qtest_writeb(QTestState *s, uint64_t addr, uint8_t value)
{
    qtest_write(s, "writeb", addr, value);
}

void qtest_writew(QTestState *s, uint64_t addr, uint16_t value)
{
    qtest_write(s, "writew", addr, value);
}

void qtest_writel(QTestState *s, uint64_t addr, uint32_t value)
{
    qtest_write(s, "writel", addr, value);
}

void qtest_writeq(QTestState *s, uint64_t addr, uint64_t value)
{
    qtest_write(s, "writeq", addr, value);
}

uint8_t qtest_readb(QTestState *s, uint64_t addr)
{
    return qtest_read(s, "readb", addr);
}

uint16_t qtest_readw(QTestState *s, uint64_t addr)
{
    return qtest_read(s, "readw", addr);
}

uint32_t qtest_readl(QTestState *s, uint64_t addr)
{
    return qtest_read(s, "readl", addr);
}

uint64_t qtest_readq(QTestState *s, uint64_t addr)
{
    return qtest_read(s, "readq", addr);
}

static int hexval(char c)
{
    return g_ascii_xdigit_value(c);
}

void qtest_memread(QTestState *s, uint64_t addr, void *data, size_t size)
{
    uint8_t *out = data;
    char *v;
    const char *p;

    if (!size) {
        return;
    }
    v = qtest_ok(s, "read 0x%" PRIx64 " 0x%zx", addr, size);
    p = v;
    if (!g_str_has_prefix(p, "0x") || strlen(p) != 2 + 2 * size) {
        qtest_fail(s, "read: reply of %zu characters for %zu bytes",
                   strlen(p), size);
    }
    p += 2;
    for (size_t i = 0; i < size; i++) {
        int hi = hexval(p[2 * i]);
        int lo = hexval(p[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            qtest_fail(s, "read: bad hex at byte %zu", i);
        }
        out[i] = hi << 4 | lo;
    }
    g_free(v);
}

void qtest_memwrite(QTestState *s, uint64_t addr, const void *data,
                    size_t size)
{
    static const char digits[] = "0123456789abcdef";
    const uint8_t *in = data;
    char *hex;

    if (!size) {
        return;
    }
    hex = g_malloc(2 * size + 1);
    for (size_t i = 0; i < size; i++) {
        hex[2 * i] = digits[in[i] >> 4];
        hex[2 * i + 1] = digits[in[i] & 0xf];
    }
    hex[2 * size] = '\0';
    g_free(qtest_ok(s, "write 0x%" PRIx64 " 0x%zx 0x%s", addr, size, hex));
    g_free(hex);
}

void qtest_bufread(QTestState *s, uint64_t addr, void *data, size_t size)
{
    char *v;
    guchar *bytes;
    gsize len;

    if (!size) {
        return;
    }
    v = qtest_ok(s, "b64read 0x%" PRIx64 " 0x%zx", addr, size);
    bytes = g_base64_decode(v, &len);
    if (len != size) {
        qtest_fail(s, "b64read: got %zu bytes, wanted %zu", (size_t)len,
                   size);
    }
    memcpy(data, bytes, size);
    g_free(bytes);
    g_free(v);
}

void qtest_bufwrite(QTestState *s, uint64_t addr, const void *data,
                    size_t size)
{
    char *b64;

    if (!size) {
        return;
    }
    b64 = g_base64_encode(data, size);
    g_free(qtest_ok(s, "b64write 0x%" PRIx64 " 0x%zx %s", addr, size, b64));
    g_free(b64);
}

void qtest_memset(QTestState *s, uint64_t addr, uint8_t pattern, size_t size)
{
    if (!size) {
        return;
    }
    g_free(qtest_ok(s, "memset 0x%" PRIx64 " 0x%zx 0x%02x", addr, size,
                    pattern));
}

static int64_t qtest_clock_reply(QTestState *s, const char *cmd, char *v)
{
    char *end;
    int64_t t;

    errno = 0;
    t = g_ascii_strtoll(v, &end, 0);
    if (end == v || *end || errno) {
        qtest_fail(s, "%s: bad time in reply 'OK %s'", cmd, v);
    }
    g_free(v);
    return t;
}

int64_t qtest_clock_step(QTestState *s, int64_t step)
{
    return qtest_clock_reply(s, "clock_step",
                             qtest_ok(s, "clock_step %" PRId64, step));
}

int64_t qtest_clock_step_next(QTestState *s)
{
    return qtest_clock_reply(s, "clock_step", qtest_ok(s, "clock_step"));
}

int64_t qtest_clock_set(QTestState *s, int64_t val)
{
    return qtest_clock_reply(s, "clock_set",
                             qtest_ok(s, "clock_set %" PRId64, val));
}

void qtest_irq_intercept_in(QTestState *s, const char *qom_path)
{
    g_free(qtest_ok(s, "irq_intercept_in %s", qom_path));
}

void qtest_irq_intercept_out(QTestState *s, const char *qom_path)
{
    g_free(qtest_ok(s, "irq_intercept_out %s", qom_path));
}

bool qtest_get_irq(QTestState *s, int num)
{
    g_assert(num >= 0 && num < QTEST_MAX_IRQ);
    /*
     * A side-effect-free round trip: every "IRQ" line the emulator wrote
     * before answering it has been consumed when the reply arrives.
     */
    g_free(qtest_ok(s, "endianness"));
    return s->irq_level[num];
}

unsigned qtest_get_irq_raises(QTestState *s, int num)
{
    g_assert(num >= 0 && num < QTEST_MAX_IRQ);
    g_free(qtest_ok(s, "endianness"));
    return s->irq_raises[num];
}

void qtest_set_irq_in(QTestState *s, const char *qom_path, const char *name,
                      int num, int level)
{
    g_free(qtest_ok(s, "set_irq_in %s %s %d %d", qom_path,
                    name ? name : "unnamed-gpio-in", num, level));
}

bool qtest_big_endian(QTestState *s)
{
    return s->big_endian;
}

/* ---- QMP ------------------------------------------------------------- */

/* A QMP call failed: fail the test with the emulator's stderr. */
static JsonNode *qmp_check(QTestState *s, JsonNode *node, char *why)
{
    if (!node) {
        qtest_fail(s, "%s", why);
    }
    return node;
}

JsonNode *qtest_qmp_receive(QTestState *s)
{
    char *why = NULL;

    if (!s->qmp) {
        qtest_fail(s, "no QMP connection");
    }
    return qmp_check(s, qmp_client_receive(s->qmp, &why), why);
}

void qtest_qmp_send_raw(QTestState *s, const char *data, size_t len)
{
    char *why = NULL;

    if (!s->qmp) {
        qtest_fail(s, "no QMP connection");
    }
    if (!qmp_client_send_raw(s->qmp, data, len, &why)) {
        qtest_fail(s, "%s", why);
    }
}

static JsonNode *qtest_qmpv(QTestState *s, const char *fmt, va_list ap)
{
    char *cmd = g_strdup_vprintf(fmt, ap);
    char *why = NULL;
    JsonNode *reply;

    if (!s->qmp) {
        qtest_fail(s, "no QMP connection");
    }
    reply = qmp_client_command(s->qmp, cmd, &why);
    g_free(cmd);
    return qmp_check(s, reply, why);
}

JsonNode *qtest_qmp(QTestState *s, const char *fmt, ...)
{
    va_list ap;
    JsonNode *reply;

    va_start(ap, fmt);
    reply = qtest_qmpv(s, fmt, ap);
    va_end(ap);
    return reply;
}

JsonNode *qtest_qmp_eventwait_ref(QTestState *s, const char *event)
{
    char *why = NULL;

    if (!s->qmp) {
        qtest_fail(s, "no QMP connection");
    }
    return qmp_check(s, qmp_client_eventwait(s->qmp, event, &why), why);
}

void qtest_qmp_eventwait(QTestState *s, const char *event)
{
    json_node_unref(qtest_qmp_eventwait_ref(s, event));
}

void qtest_qmp_eventwait_reason(QTestState *s, const char *event,
                                const char *reason)
{
    JsonNode *ev = qtest_qmp_eventwait_ref(s, event);
    JsonObject *data = qdict_get_qdict(ev, "data");

    g_assert_nonnull(data);
    g_assert_cmpstr(json_object_get_string_member(data, "reason"), ==,
                    reason);
    json_node_unref(ev);
}

JsonObject *qdict_get_qdict(JsonNode *node, const char *key)
{
    JsonObject *obj;
    JsonNode *member;

    if (!node || !JSON_NODE_HOLDS_OBJECT(node)) {
        return NULL;
    }
    obj = json_node_get_object(node);
    member = json_object_get_member(obj, key);
    if (!member || !JSON_NODE_HOLDS_OBJECT(member)) {
        return NULL;
    }
    return json_node_get_object(member);
}

bool qtest_qmp_has_error(JsonNode *reply)
{
    return reply && JSON_NODE_HOLDS_OBJECT(reply) &&
           json_object_has_member(json_node_get_object(reply), "error");
}

char *qtest_json_quote(const char *str)
{
    JsonNode *node = json_node_new(JSON_NODE_VALUE);
    char *quoted;

    json_node_set_string(node, str);
    quoted = json_to_string(node, FALSE);
    json_node_unref(node);
    return quoted;
}

char *qtest_hmp(QTestState *s, const char *fmt, ...)
{
    va_list ap;
    char *cmd;
    char *quoted;
    JsonNode *reply;
    JsonObject *obj;
    char *out;

    va_start(ap, fmt);
    cmd = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    quoted = qtest_json_quote(cmd);
    reply = qtest_qmp(s, "{\"execute\": \"human-monitor-command\", "
                      "\"arguments\": {\"command-line\": %s}}", quoted);
    obj = json_node_get_object(reply);
    if (!json_object_has_member(obj, "return") ||
        !JSON_NODE_HOLDS_VALUE(json_object_get_member(obj, "return"))) {
        char *text = json_to_string(reply, FALSE);

        qtest_fail(s, "human-monitor-command '%s' failed: %s", cmd, text);
    }
    out = g_strdup(json_object_get_string_member(obj, "return"));
    json_node_unref(reply);
    g_free(quoted);
    g_free(cmd);
    return out;
}

/* ---- start and stop -------------------------------------------------- */

/*
 * For QTEST_ACCEL: a 64 KiB "BIOS" of hlt instructions. The CPU leaves
 * reset with interrupts off, so it halts at once and for good, while
 * the machine runs (devices that wait for a running VM work) and no
 * firmware touches what the test programs.
 */
static char *write_halt_bios(void)
{
    g_autofree char *hlt = g_malloc(64 * 1024);
    GError *err = NULL;
    char *path = NULL;
    int fd = g_file_open_tmp("qtest-halt-XXXXXX.bin", &path, &err);

    memset(hlt, 0xf4, 64 * 1024);
    if (fd < 0 || write(fd, hlt, 64 * 1024) != 64 * 1024) {
        g_error("cannot write a halt BIOS: %s",
                err ? err->message : g_strerror(errno));
    }
    close(fd);
    return path;
}

static char **build_argv(const char *qtest_sock, const char *qmp_sock,
                         const char *bios, const char *extra_args)
{
    GPtrArray *argv = g_ptr_array_new();
    char **words = g_strsplit(extra_args ? extra_args : "", " ", -1);
    /*
     * QTEST_ACCEL=tcg runs the test against a binary without the qtest
     * accelerator (Debian's QEMU), its CPU halted by the BIOS.
     */
    const char *accel = g_getenv("QTEST_ACCEL");

    g_ptr_array_add(argv, g_strdup(qtest_binary()));
    g_ptr_array_add(argv, g_strdup("-qtest"));
    g_ptr_array_add(argv, g_strdup_printf("unix:%s", qtest_sock));
    g_ptr_array_add(argv, g_strdup("-qtest-log"));
    g_ptr_array_add(argv, g_strdup(g_getenv("QTEST_LOG") ? "/dev/fd/2"
                                                         : "/dev/null"));
    g_ptr_array_add(argv, g_strdup("-chardev"));
    g_ptr_array_add(argv, g_strdup_printf("socket,path=%s,id=char0",
                                          qmp_sock));
    g_ptr_array_add(argv, g_strdup("-mon"));
    g_ptr_array_add(argv, g_strdup("chardev=char0,mode=control"));
    g_ptr_array_add(argv, g_strdup("-display"));
    g_ptr_array_add(argv, g_strdup("none"));
    /* QEMU 7.2's -audio wants a model: with QTEST_ACCEL it is left out. */
    if (!accel) {
        g_ptr_array_add(argv, g_strdup("-audio"));
        g_ptr_array_add(argv, g_strdup("none"));
    }
    for (char **w = words; *w; w++) {
        if (**w) {
            g_ptr_array_add(argv, g_strdup(*w));
        }
    }
    g_ptr_array_add(argv, g_strdup("-accel"));
    g_ptr_array_add(argv, g_strdup(accel ? accel : "qtest"));
    if (accel) {
        g_ptr_array_add(argv, g_strdup("-bios"));
        g_ptr_array_add(argv, g_strdup(bios));
    }
    g_ptr_array_add(argv, NULL);
    g_strfreev(words);
    return (char **)g_ptr_array_free(argv, FALSE);
}

static QTestState *qtest_start(const char *extra_args, bool must_start)
{
    QTestState *s = g_new0(QTestState, 1);
    char *dir;
    char *qtest_sock;
    char *qmp_sock;
    char **argv;
    int lfd[2];
    int cfd[2];
    bool timed_out;
    char *line;

    /* A vanished emulator must fail a write, not kill the test. */
    signal(SIGPIPE, SIG_IGN);

    s->pid = -1;
    s->qtest_fd = s->stderr_fd = -1;
    s->qtest_buf = g_string_new(NULL);
    s->stderr_text = g_string_new(NULL);
    g_mutex_init(&s->stderr_lock);

    dir = g_dir_make_tmp("qtest-XXXXXX", NULL);
    if (!dir) {
        g_error("cannot make a temporary directory");
    }
    qtest_sock = g_build_filename(dir, "qtest.sock", NULL);
    qmp_sock = g_build_filename(dir, "qmp.sock", NULL);
    lfd[0] = listen_unix(qtest_sock);
    lfd[1] = listen_unix(qmp_sock);

    s->bios = g_getenv("QTEST_ACCEL") ? write_halt_bios() : NULL;
    argv = build_argv(qtest_sock, qmp_sock, s->bios, extra_args);
    if (g_getenv("QTEST_LOG")) {
        char *cmdline = g_strjoinv(" ", argv);

        fprintf(stderr, "starting: %s\n", cmdline);
        g_free(cmdline);
    }
    spawn(s, argv);
    g_strfreev(argv);

    if (!accept_both(s, lfd, cfd, &timed_out)) {
        for (int i = 0; i < 2; i++) {
            if (cfd[i] >= 0) {
                close(cfd[i]);
            }
        }
        cfd[0] = cfd[1] = -1;
        if (timed_out) {
            kill(s->pid, SIGKILL);
            reap_or_kill(s, qtest_timeout_ms(), "after SIGKILL");
            qtest_fail(s, "emulator did not connect within %d s",
                       qtest_timeout_ms() / 1000);
        }
        if (must_start) {
            qtest_fail(s, "emulator exited before connecting");
        }
        stderr_finish(s);
    }
    s->qtest_fd = cfd[0];
    if (cfd[1] >= 0) {
        s->qmp = qmp_client_new(cfd[1], qtest_timeout_ms());
    }

    /* The connections are up: the socket files are no longer needed. */
    close(lfd[0]);
    close(lfd[1]);
    unlink(qtest_sock);
    unlink(qmp_sock);
    rmdir(dir);
    g_free(qtest_sock);
    g_free(qmp_sock);
    g_free(dir);

    if (s->qtest_fd < 0) {
        return s;   /* a failed start, for the caller to examine */
    }

    if (!must_start) {
        /*
         * Tests of failing starts: the emulator may exit right after it
         * connected, so probe endianness without failing the test.
         */
        const char *why;

        if (!qmp_fd_send(s->qtest_fd, "endianness\n", strlen("endianness\n"),
                         qtest_timeout_ms(), &why)) {
            return s;   /* it is gone already (EPIPE) */
        }
        while (!memchr(s->qtest_buf->str, '\n', s->qtest_buf->len)) {
            if (!fill(s, s->qtest_fd, s->qtest_buf, &why)) {
                return s;
            }
        }
        line = qtest_read_line(s);
    } else {
        line = qtest_rsp(s, "endianness");
    }
    if (strcmp(line, "OK little") == 0) {
        s->big_endian = false;
    } else if (strcmp(line, "OK big") == 0) {
        s->big_endian = true;
    } else {
        qtest_fail(s, "endianness: unexpected reply '%s'", line);
    }
    g_free(line);
    return s;
}

QTestState *qtest_init_without_qmp_handshake(const char *extra_args)
{
    return qtest_start(extra_args, false);
}

QTestState *qtest_init(const char *extra_args)
{
    QTestState *s = qtest_start(extra_args, true);
    char *why = NULL;

    if (!s->qmp || !qmp_client_handshake(s->qmp, &why)) {
        qtest_fail(s, "%s", why ? why : "no QMP connection");
    }
    return s;
}

QTestState *qtest_initf(const char *fmt, ...)
{
    va_list ap;
    char *args;
    QTestState *s;

    va_start(ap, fmt);
    args = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    s = qtest_init(args);
    g_free(args);
    return s;
}

static void qtest_free(QTestState *s)
{
    if (s->qtest_fd >= 0) {
        close(s->qtest_fd);
    }
    if (s->bios) {
        unlink(s->bios);
        g_free(s->bios);
    }
    qmp_client_free(s->qmp);
    stderr_finish(s);
    g_string_free(s->qtest_buf, TRUE);
    g_string_free(s->stderr_text, TRUE);
    g_free(s->stderr_snapshot);
    g_mutex_clear(&s->stderr_lock);
    g_free(s);
}

int qtest_wait_exit(QTestState *s)
{
    reap_or_kill(s, qtest_timeout_ms(), "by itself");
    return s->wstatus;
}

void qtest_assert_start_error(const char *args, const char *message)
{
    char *full = g_strdup_printf("-nodefaults %s", args);
    QTestState *s = qtest_init_without_qmp_handshake(full);
    int status = qtest_wait_exit(s);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(qtest_stderr(s), ==, message);
    qtest_quit(s);
    g_free(full);
}

static void start_error_test(const void *data)
{
    const QTestStartError *c = data;

    if (g_getenv("QTEST_ACCEL")) {
        g_test_skip("this emulator's wording");
        return;
    }
    qtest_assert_start_error(c->args, c->message);
}

void qtest_add_start_errors(const char *prefix, const QTestStartError *cases,
                            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *path = g_strdup_printf("%s/%zu", prefix, i);

        qtest_add_data_func(path, &cases[i], start_error_test);
        g_free(path);
    }
}

void qtest_quit(QTestState *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        reap_or_kill(s, qtest_timeout_ms(), "after SIGTERM");
        if (!WIFEXITED(s->wstatus) || WEXITSTATUS(s->wstatus) != 0) {
            char *status = describe_status(s->wstatus);

            g_error("emulator %s after SIGTERM (expected exit status 0); "
                    "stderr:\n%s", status, qtest_stderr(s));
        }
    }
    qtest_free(s);
}

/* ---- GTest registration ---------------------------------------------- */

static char *qtest_test_path(const char *path)
{
    while (*path == '/') {
        path++;
    }
    return g_strdup_printf("/%s/%s", QTEST_ARCH, path);
}

void qtest_add_func(const char *path, void (*fn)(void))
{
    char *full = qtest_test_path(path);

    g_test_add_func(full, fn);
    g_free(full);
}

void qtest_add_data_func(const char *path, const void *data,
                         void (*fn)(const void *))
{
    char *full = qtest_test_path(path);

    g_test_add_data_func(full, data, fn);
    g_free(full);
}
