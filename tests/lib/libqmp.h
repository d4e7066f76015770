/*
 * libqmp: the client side of QMP on a connected socket, and the bounded
 * socket I/O under it. libqtest (tests under -accel qtest) and the
 * functional tests' VM helper (tests/lib/qemu-vm.c, guests under
 * kvm and tcg) both speak QMP through it; each reports a failure its own
 * way (with the emulator's stderr), so nothing here aborts: a failed call
 * returns NULL or false and says why in *why (free it with g_free).
 */
#ifndef TESTS_LIBQMP_H
#define TESTS_LIBQMP_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <json-glib/json-glib.h>

/*
 * Send all of data on fd, or read at least one more chunk from fd into
 * buf, within timeout_ms. On failure *why is a static string.
 */
bool qmp_fd_send(int fd, const char *data, size_t len, int timeout_ms,
                 const char **why);
bool qmp_fd_fill(int fd, GString *buf, int timeout_ms, const char **why);

typedef struct QMPClient QMPClient;

/* A client on fd (taken: qmp_client_free closes it); waits are bounded. */
QMPClient *qmp_client_new(int fd, int timeout_ms);
void qmp_client_free(QMPClient *c);

/* Send bytes as they are (for malformed-input tests, or a command). */
bool qmp_client_send_raw(QMPClient *c, const char *data, size_t len,
                         char **why);
/* The next message, reply or event, whichever comes first. */
JsonNode *qmp_client_receive(QMPClient *c, char **why);
/* Send cmd (JSON text) and return its reply; events meanwhile are queued. */
JsonNode *qmp_client_command(QMPClient *c, const char *cmd, char **why);
/* The event by name, queued or new; replies nobody waits for are dropped. */
JsonNode *qmp_client_eventwait(QMPClient *c, const char *event, char **why);
/* Read the greeting and negotiate capabilities. */
bool qmp_client_handshake(QMPClient *c, char **why);

#endif
