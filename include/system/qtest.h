/*
 * The qtest protocol server: a test drives port I/O, memory, IRQ lines
 * and the virtual clock over a chardev (see system/qtest.c for the
 * protocol).
 */
#ifndef SYSTEM_QTEST_H
#define SYSTEM_QTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"

/*
 * spec is a chardev shorthand ("unix:PATH", "chardev:ID", "stdio"...);
 * logfile is -qtest-log (NULL or "none": no log).
 */
bool qtest_server_init(const char *spec, const char *logfile, Error **errp);
void qtest_server_cleanup(void);
/*
 * A server with no chardev, fed directly: replies are passed to reply
 * (may be NULL). For unit tests and the fuzzer of the line parser.
 */
typedef struct QTestServer QTestServer;
QTestServer *qtest_server_new_detached(void (*reply)(const char *line,
                                                     void *opaque),
                                       void *opaque);
/*
 * Lower the line and read limits of a detached server (at most QEMU's
 * 192 MiB and 64 MiB), so a fuzzer trips them without spending its time
 * on 64 MiB replies.
 */
void qtest_server_set_limits(QTestServer *s, size_t max_line,
                             size_t max_read);
void qtest_server_feed(QTestServer *s, const uint8_t *buf, size_t len);
void qtest_server_free(QTestServer *s);

#endif
