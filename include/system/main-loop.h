/*
 * The main loop: glib's, with termination signals read from a signalfd.
 */
#ifndef SYSTEM_MAIN_LOOP_H
#define SYSTEM_MAIN_LOOP_H

#include <stdbool.h>

#include <glib.h>
#include <glib-unix.h>

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
/*
 * g_unix_fd_add() for the busy fds (the qtest and monitor input, I/O
 * engine and ioeventfd completions): glib takes a source's fds out of the
 * poll set while its callback runs and puts them back after, waking its
 * own eventfd each time (two syscalls per dispatch); a source that may
 * recurse keeps them. This main loop never nests, so none recurses.
 */
guint main_loop_add_fd(int fd, GIOCondition cond, GUnixFDSourceFunc fn,
                       gpointer opaque);

#endif
