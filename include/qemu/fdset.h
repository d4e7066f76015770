/*
 * File descriptor sets (-add-fd): descriptors the process inherited,
 * grouped by set number, which code that opens files by name reaches as
 * "/dev/fdset/SET" (libvirt opens log files and images itself and hands
 * them over this way).
 */
#ifndef QEMU_FDSET_H
#define QEMU_FDSET_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

/*
 * Take fd into set (a dup of it, close-on-exec; the original is
 * closed). opaque may be NULL.
 */
bool fdset_add_fd(int fd, int64_t set, const char *opaque, Error **errp);
/*
 * open(2), except that "/dev/fdset/SET" returns a dup of the set's
 * descriptor whose access mode matches flags (O_RDONLY, O_WRONLY or
 * O_RDWR; the descriptor's other flags, such as O_APPEND, are its
 * own). -1 with errno set (EACCES: no such descriptor) on failure.
 */
int qemu_open(const char *path, int flags, int mode);
void fdsets_cleanup(void);

#endif
