/*
 * Monitors: QMP (JSON, mode=control) and HMP (human, mode=readline) on a
 * chardev. Several monitors may run at once.
 */
#ifndef MONITOR_MONITOR_H
#define MONITOR_MONITOR_H

#include <stdbool.h>

#include <json-glib/json-glib.h>

#include "chardev/char.h"
#include "qapi/qapi-visit.h"
#include "qemu/error.h"

bool monitor_init_qmp(Chardev *chr, bool pretty, Error **errp);
bool monitor_init_hmp(Chardev *chr, Error **errp);
void monitor_cleanup(void);

/*
 * Descriptors named by getfd (monitor/qmp-cmds-fd.c), one set of names
 * per monitor. monitor_fd_set_source() says, while a monitor dispatches,
 * which chardev's received descriptors getfd takes and whose names
 * getfd, closefd and monitor_fd_take() use (NULL, NULL: none).
 * monitor_fd_take() hands the descriptor named name to the caller
 * (closing it is then the caller's business), or -1.
 */
typedef struct MonitorFds MonitorFds;
MonitorFds *monitor_fds_new(void);
void monitor_fds_free(MonitorFds *fds);
void monitor_fd_set_source(CharBackend *be, MonitorFds *fds);
int monitor_fd_take(const char *name);

/*
 * Send an event to every QMP monitor that finished capabilities
 * negotiation: {"event": NAME, "data": DATA, "timestamp": {...}}.
 * data may be NULL (then "data" is omitted); it is consumed.
 */
void qmp_event_send(const char *name, JsonObject *data);

/*
 * The command table the monitor dispatches from: the generated
 * qapi_commands[], handed over by the program's edge (system/vl.c), as
 * it names handlers of every layer.
 */
void qmp_register_commands(const QapiCommand *table);

/*
 * The commands are declared in the schema (qapi/); scripts/qapi-gen.py makes
 * their table, argument checking and handler prototypes
 * (build/qapi/qapi-commands.h): a handler receives its arguments as a
 * C struct, already checked as QEMU's marshallers do.
 */
/* Call fn for each command, in schema order. */
void qmp_command_foreach(void (*fn)(const char *name, void *opaque),
                         void *opaque);
/*
 * Run a registered command outside any session (HMP uses it); args may
 * be NULL. *ret is NULL or a node the caller frees.
 */
bool qmp_run_command(const char *name, JsonObject *args, JsonNode **ret,
                     Error **errp);

/*
 * JSON in QEMU's layout: ", " and ": " separators, or with pretty one
 * member per line indented by 4; non-ASCII escaped as \uXXXX.
 */
void qmp_json_append(GString *out, JsonNode *node, bool pretty);
/* HMP "info qtree" prints what fn prints (hw/core's qdev_print_tree()). */
void hmp_set_info_qtree(void (*fn)(GString *out));

/*
 * One QMP conversation, without the transport: bytes in through
 * qmp_session_feed(), replies and events out through write (each one a
 * line ending in CR LF). monitor_init_qmp() wires one to a chardev;
 * tests drive one directly.
 */
typedef struct QmpSession QmpSession;
typedef void QmpSessionWrite(void *opaque, const char *buf, size_t len);

QmpSession *qmp_session_new(bool pretty, QmpSessionWrite *write,
                            void *opaque);
void qmp_session_free(QmpSession *s);
/* A client connected: forget the old state and send the greeting. */
void qmp_session_open(QmpSession *s);
/* The client went away: back to "not negotiated", partial input dropped. */
void qmp_session_close(QmpSession *s);
void qmp_session_feed(QmpSession *s, const void *buf, size_t len);

/* Run an HMP command line, returning its output (human-monitor-command). */
char *hmp_run_command(const char *cmdline, Error **errp);
/* Free the human monitors (part of monitor_cleanup()). */
void hmp_cleanup(void);

#endif
