/*
 * Live migration (migration/migration.c): the outgoing transfer run by
 * QMP "migrate", the incoming one of -incoming/migrate-incoming.
 */
#ifndef MIGRATION_MIGRATION_H
#define MIGRATION_MIGRATION_H

#include <stdbool.h>

#include "qemu/error.h"

/*
 * -incoming URI (not "defer"): listen or open now, load in the incoming
 * thread; the VM is in "inmigrate" until the stream is loaded, then runs
 * when autostart is set (no -S, or "cont" since: runstate_autostart()),
 * else pauses. A stream
 * that fails to load ends the process with status 1 after the usual
 * teardown.
 */
bool migration_incoming_start(const char *uri, bool autostart,
                              Error **errp);
/* -incoming defer: wait in "inmigrate" for migrate-incoming. */
void migration_incoming_defer(bool autostart);
/* At exit, before the devices go: stop and join the transfer threads. */
void migration_cleanup(void);

#endif
