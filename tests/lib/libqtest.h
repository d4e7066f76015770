/*
 * libqtest: start the emulator under -accel qtest and drive it over the
 * qtest line protocol and QMP, as QEMU's own libqtest does. The emulator
 * binary is $QTEST_QEMU_BINARY, or this build's.
 */
#ifndef TESTS_LIBQTEST_H
#define TESTS_LIBQTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct QTestState QTestState;

/*
 * Start the emulator with extra_args (split on spaces, like QEMU's
 * qtest_init) plus the qtest and QMP sockets, -accel qtest,
 * -display none. Returns once QMP is negotiated. Aborts the test on
 * failure.
 */
QTestState *qtest_init(const char *extra_args);
QTestState *qtest_initf(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* Same, but without waiting for QMP (for tests of failing starts). */
QTestState *qtest_init_without_qmp_handshake(const char *extra_args);
/* SIGTERM, wait, and check the process exited with status 0. */
void qtest_quit(QTestState *s);
/* Wait for the process to exit by itself; returns its wait status. */
int qtest_wait_exit(QTestState *s);
pid_t qtest_pid(QTestState *s);
/* The emulator's CPU time so far (utime + stime), in seconds; 0 if unknown. */
double qtest_cpu_seconds(QTestState *s);
/* The stderr the emulator printed so far (for error tests). */
const char *qtest_stderr(QTestState *s);
/*
 * Start with "-nodefaults args" and assert that the emulator exits with
 * status 1 after printing exactly message on stderr.
 */
void qtest_assert_start_error(const char *args, const char *message);
typedef struct QTestStartError {
    const char *args;
    const char *message;
} QTestStartError;
/*
 * Add test prefix/N for each of the n cases: qtest_assert_start_error,
 * skipped when QTEST_ACCEL is set (another QEMU words it differently).
 */
void qtest_add_start_errors(const char *prefix, const QTestStartError *cases,
                            size_t n);

/* Raw protocol: send one line, return the reply line without "\n". */
char *qtest_rsp(QTestState *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

void qtest_outb(QTestState *s, uint16_t addr, uint8_t value);
void qtest_outw(QTestState *s, uint16_t addr, uint16_t value);
void qtest_outl(QTestState *s, uint16_t addr, uint32_t value);
uint8_t qtest_inb(QTestState *s, uint16_t addr);
uint16_t qtest_inw(QTestState *s, uint16_t addr);
uint32_t qtest_inl(QTestState *s, uint16_t addr);
void qtest_writeb(QTestState *s, uint64_t addr, uint8_t value);
void qtest_writew(QTestState *s, uint64_t addr, uint16_t value);
void qtest_writel(QTestState *s, uint64_t addr, uint32_t value);
void qtest_writeq(QTestState *s, uint64_t addr, uint64_t value);
uint8_t qtest_readb(QTestState *s, uint64_t addr);
uint16_t qtest_readw(QTestState *s, uint64_t addr);
uint32_t qtest_readl(QTestState *s, uint64_t addr);
uint64_t qtest_readq(QTestState *s, uint64_t addr);
void qtest_memread(QTestState *s, uint64_t addr, void *data, size_t size);
void qtest_memwrite(QTestState *s, uint64_t addr, const void *data,
                    size_t size);
void qtest_bufread(QTestState *s, uint64_t addr, void *data, size_t size);
void qtest_bufwrite(QTestState *s, uint64_t addr, const void *data,
                    size_t size);
void qtest_memset(QTestState *s, uint64_t addr, uint8_t pattern, size_t size);

/* Returns the new virtual time in ns. */
int64_t qtest_clock_step(QTestState *s, int64_t step);
int64_t qtest_clock_step_next(QTestState *s);
int64_t qtest_clock_set(QTestState *s, int64_t val);

void qtest_irq_intercept_in(QTestState *s, const char *qom_path);
void qtest_irq_intercept_out(QTestState *s, const char *qom_path);
/* Level of intercepted line num, from the "IRQ raise/lower" messages. */
bool qtest_get_irq(QTestState *s, int num);
/* Rising edges of intercepted line num seen so far. */
unsigned qtest_get_irq_raises(QTestState *s, int num);
void qtest_set_irq_in(QTestState *s, const char *qom_path, const char *name,
                      int num, int level);
bool qtest_big_endian(QTestState *s);

/*
 * QMP: send a command (printf-style JSON; use %s with
 * care) and return the reply object ({"return": ...} or {"error": ...});
 * events arriving meanwhile are queued. Free with json_node_unref.
 */
JsonNode *qtest_qmp(QTestState *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Send raw bytes on the QMP socket (for malformed-input tests). */
void qtest_qmp_send_raw(QTestState *s, const char *data, size_t len);
/* Read the next reply or event, whichever comes first. */
JsonNode *qtest_qmp_receive(QTestState *s);
/* Wait for an event by name (queued or new); returns the whole event. */
JsonNode *qtest_qmp_eventwait_ref(QTestState *s, const char *event);
void qtest_qmp_eventwait(QTestState *s, const char *event);
/* Wait for event and assert that its data's "reason" is reason. */
void qtest_qmp_eventwait_reason(QTestState *s, const char *event,
                                const char *reason);
/* Helpers for reading replies. */
JsonObject *qdict_get_qdict(JsonNode *node, const char *key);
bool qtest_qmp_has_error(JsonNode *reply);
/* Run an HMP command through human-monitor-command; returns its output. */
char *qtest_hmp(QTestState *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/*
 * Additions for protocol tests. qtest_send_raw writes bytes as they are
 * on the qtest socket (no newline added); qtest_close_qtest drops the
 * qtest connection while the emulator keeps running (QMP stays usable).
 * qtest_socket_connect connects to a unix socket (e.g. an extra -qmp
 * server) and returns the fd, or -1. qtest_json_quote returns str as a
 * JSON string literal (with quotes), for building commands.
 */
void qtest_send_raw(QTestState *s, const char *data, size_t len);
void qtest_close_qtest(QTestState *s);
int qtest_socket_connect(const char *path);
char *qtest_json_quote(const char *str);

/* Register a GTest case (path gets the "/x86_64" prefix as in QEMU). */
void qtest_add_func(const char *path, void (*fn)(void));
void qtest_add_data_func(const char *path, const void *data,
                         void (*fn)(const void *));

#endif
