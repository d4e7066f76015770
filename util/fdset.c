/*
 * -add-fd set=N,fd=M[,opaque=TEXT] and "/dev/fdset/N" (QEMU's
 * semantics: a name opens as a dup of a descriptor of set N with the
 * access mode asked for; EACCES when the set has none).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "qemu/fdset.h"

#define FDSET_PREFIX "/dev/fdset/"

typedef struct FdsetEntry {
    int64_t set;
    int fd;
    char *opaque;
} FdsetEntry;

static GArray *entries;         /* of FdsetEntry */

bool fdset_add_fd(int fd, int64_t set, const char *opaque, Error **errp)
{
    FdsetEntry e = { .set = set, .opaque = g_strdup(opaque) };

    if (fd <= STDERR_FILENO) {
        error_setg(errp, "fd cannot be a standard I/O stream");
        g_free(e.opaque);
        return false;
    }
    e.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (e.fd < 0) {
        error_setg_errno(errp, errno, "error duplicating fd");
        g_free(e.opaque);
        return false;
    }
    close(fd);
    if (!entries) {
        entries = g_array_new(FALSE, FALSE, sizeof(FdsetEntry));
    }
    g_array_append_val(entries, e);
    return true;
}

/* What must agree between the request and the descriptor, as in QEMU. */
static int fd_mode(int flags)
{
    return flags & O_ACCMODE;
}

static int fdset_open(const char *path, int flags)
{
    char *end;
    int64_t set = g_ascii_strtoll(path + strlen(FDSET_PREFIX), &end, 10);

    if (*end || end == path + strlen(FDSET_PREFIX)) {
        errno = EINVAL;
        return -1;
    }
    for (guint i = 0; entries && i < entries->len; i++) {
        FdsetEntry *e = &g_array_index(entries, FdsetEntry, i);
        int fl = fcntl(e->fd, F_GETFL);

        if (e->set == set && fl >= 0 && fd_mode(fl) == fd_mode(flags)) {
            return fcntl(e->fd, F_DUPFD_CLOEXEC, 0);
        }
    }
    errno = EACCES;
    return -1;
}

int qemu_open(const char *path, int flags, int mode)
{
    if (g_str_has_prefix(path, FDSET_PREFIX)) {
        return fdset_open(path, flags);
    }
    return open(path, flags | O_CLOEXEC, mode);
}

void fdsets_cleanup(void)
{
    for (guint i = 0; entries && i < entries->len; i++) {
        FdsetEntry *e = &g_array_index(entries, FdsetEntry, i);

        close(e->fd);
        g_free(e->opaque);
    }
    if (entries) {
        g_array_free(entries, TRUE);
        entries = NULL;
    }
}
