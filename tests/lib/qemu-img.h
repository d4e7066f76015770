/*
 * Debian's qemu-img as the tests' reference for disk images: make them,
 * then check and compare what the emulator wrote.
 */
#ifndef TESTS_QEMU_IMG_H
#define TESTS_QEMU_IMG_H

#include <stdbool.h>

#include <glib.h>

/* Is qemu-img on the PATH? */
bool qemu_img_available(void);
/*
 * Run "qemu-img ARGS" (a command line, no shell) and return its exit
 * status; its output goes to the test log when it fails.
 */
int qemu_img(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* Its standard output (g_free it), or NULL if it failed. */
char *qemu_img_output(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

#endif
