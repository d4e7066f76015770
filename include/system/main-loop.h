/*
 * The main loop: glib's, with termination signals read from a signalfd.
 */
#ifndef SYSTEM_MAIN_LOOP_H
#define SYSTEM_MAIN_LOOP_H

#include <stdbool.h>

#include "qemu/error.h"

/*
 * Block SIGTERM, SIGINT and SIGHUP in every thread and start reading
 * them from a signalfd, so a signal always ends in an orderly teardown.
 * Call before any thread is created.
 */
bool qemu_init_main_loop(Error **errp);
/* Run until a shutdown is requested; returns the exit status. */
int qemu_main_loop(void);
void qemu_main_loop_cleanup(void);

#endif
