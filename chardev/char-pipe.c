/*
 * -chardev pipe,path=P: input from P.in and output to P.out when both
 * exist, else P both ways (QEMU's semantics). Opened read-write so that
 * opening a fifo does not wait for a peer and a peer that leaves does not
 * make the fifo read EOF forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "chardev-internal.h"

typedef struct PipeChardev {
    Chardev parent;
    int fd_in;
    int fd_out;         /* may equal fd_in */
} PipeChardev;

static const QemuOptDesc pipe_opts[] = {
    { "path", QEMU_OPT_STRING },
    { NULL },
};

static int pipe_open_one(const char *path)
{
    return open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

static bool pipe_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    PipeChardev *p = (PipeChardev *)chr;
    const char *path = qemu_opt_get(opts, "path");
    char *path_in, *path_out;

    if (!path) {
        error_setg(errp, "chardev: pipe: no filename given");
        return false;
    }
    path_in = g_strdup_printf("%s.in", path);
    path_out = g_strdup_printf("%s.out", path);
    p->fd_in = pipe_open_one(path_in);
    p->fd_out = pipe_open_one(path_out);
    g_free(path_in);
    g_free(path_out);
    if (p->fd_in < 0 || p->fd_out < 0) {
        if (p->fd_in >= 0) {
            close(p->fd_in);
        }
        if (p->fd_out >= 0) {
            close(p->fd_out);
        }
        p->fd_in = p->fd_out = pipe_open_one(path);
        if (p->fd_in < 0) {
            error_setg_errno(errp, errno, "Could not open '%s'", path);
            return false;
        }
    }
    chr_fd_attach(chr, p->fd_in, p->fd_out, false);
    chr->be_open = true;
    return true;
}

static void pipe_close(Chardev *chr)
{
    PipeChardev *p = (PipeChardev *)chr;

    chr_fd_detach(chr);
    if (p->fd_out != p->fd_in) {
        close(p->fd_out);
    }
    close(p->fd_in);
}

static const ChardevClass chardev_pipe_class = {
    .name = "pipe",
    .instance_size = sizeof(PipeChardev),
    .opts = pipe_opts,
    .open = pipe_open,
    .close = pipe_close,
    CHR_FD_OPS,
};

CHARDEV_CLASS_REGISTER(chardev_pipe_class)
