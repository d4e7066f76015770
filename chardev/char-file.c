/*
 * -chardev file,path=PATH[,append=on]: output goes to a file; input is
 * not read (QEMU's optional in= file is not supported). PATH may be
 * /dev/fdset/N (-add-fd), as libvirt passes serial log files.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "chardev-internal.h"
#include "qemu/fdset.h"

typedef struct FileChardev {
    Chardev parent;
    int fd;
} FileChardev;

static const QemuOptDesc file_opts[] = {
    { "path", QEMU_OPT_STRING },
    { "append", QEMU_OPT_BOOL },
    { NULL },
};

static bool file_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    FileChardev *f = (FileChardev *)chr;
    const char *path = qemu_opt_get(opts, "path");
    bool append = false;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC;

    if (!path) {
        error_setg(errp, "chardev: file: no filename given");
        return false;
    }
    if (!qemu_opt_get_bool(opts, "append", &append, errp)) {
        return false;
    }
    flags |= append ? O_APPEND : O_TRUNC;
    f->fd = qemu_open(path, flags, 0666);
    if (f->fd < 0) {
        error_setg_errno(errp, errno, "Could not open '%s'", path);
        return false;
    }
    /* A fifo or a slow device must not block a vCPU either. */
    fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) | O_NONBLOCK);
    chr_fd_attach(chr, -1, f->fd, false);
    chr->be_open = true;
    return true;
}

static void file_close(Chardev *chr)
{
    FileChardev *f = (FileChardev *)chr;

    chr_fd_detach(chr);
    close(f->fd);
}

static const ChardevClass chardev_file_class = {
    .name = "file",
    .instance_size = sizeof(FileChardev),
    .opts = file_opts,
    .open = file_open,
    .close = file_close,
    CHR_FD_OPS,
};

CHARDEV_CLASS_REGISTER(chardev_file_class)
