/*
 * Where a migration stream goes or comes from, by URI (QEMU's syntax):
 *   unix:PATH            a unix stream socket
 *   tcp:HOST:PORT        a TCP socket (HOST may be [v6] or empty)
 *   exec:COMMAND         /bin/sh -c COMMAND: the source writes to its
 *                        stdin, the destination reads its stdout
 *   fd:N                 a descriptor this process already holds
 *   file:PATH[,offset=N] a regular file (written from, read at N)
 * Outgoing ends in a connected descriptor; incoming in a listening socket
 * (accepted later, in the incoming thread) or a readable descriptor.
 */
#ifndef MIGRATION_TRANSPORT_H
#define MIGRATION_TRANSPORT_H

#include <stdbool.h>
#include <sys/types.h>

#include "qemu/error.h"

typedef struct MigChannel {
    int fd;                 /* the stream; -1 until connected/accepted */
    int listen_fd;          /* incoming sockets: accept here first */
    pid_t child;            /* exec: the command, reaped at close */
    char *unlink_path;      /* incoming unix: the socket file */
} MigChannel;

void mig_channel_init(MigChannel *c);
bool mig_channel_connect(MigChannel *c, const char *uri, Error **errp);
bool mig_channel_listen(MigChannel *c, const char *uri, Error **errp);
/* Accept the one connection, waiting on cancel_fd too. */
bool mig_channel_accept(MigChannel *c, int cancel_fd, Error **errp);
/* Close everything; an exec child is waited for. */
void mig_channel_close(MigChannel *c);

#endif
