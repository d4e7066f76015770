/*
 * The firmware search path: -L directories, then the built-in ones.
 */
#ifndef SYSTEM_DATADIR_H
#define SYSTEM_DATADIR_H

/* -L DIR: searched before the built-in directories, in the order given. */
void qemu_add_data_dir(const char *dir);
/* Forget the -L directories (tests). */
void qemu_data_dirs_reset(void);
/*
 * NAME itself when it is readable (from the current directory, as
 * QEMU), else, for a NAME without a slash, the readable file NAME in the
 * search path; newly allocated, or NULL.
 */
char *qemu_find_file(const char *name);
/* -L help: the directories, one a line, in search order. */
void qemu_print_data_dirs(void);

#endif
