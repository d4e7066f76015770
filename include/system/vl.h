/*
 * Entry points of the emulator's life, called by main().
 */
#ifndef SYSTEM_VL_H
#define SYSTEM_VL_H

/*
 * Parse the command line and build the VM. Returns -1 when the main
 * loop should run, otherwise the exit status (0 after -help and
 * friends, 1 after an error that was already reported).
 */
int qemu_init(int argc, char **argv);
/* Tear down whatever qemu_init() built; safe after a partial init. */
void qemu_cleanup(void);

#endif
