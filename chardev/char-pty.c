/*
 * -chardev pty: a new pseudo-terminal; what `virsh console` attaches to.
 * Its path is printed on stderr ("char device redirected to /dev/pts/N
 * (label ID)") and reported by query-chardev as "pty:/dev/pts/N".
 *
 * Unlike QEMU, which polls for a reader and drops output while there is
 * none, the emulator keeps the terminal's slave side open itself: the
 * master never sees a hangup, output waits in the terminal (and then in
 * the chardev's bounded queue) for the next reader, and input flows as
 * soon as one connects.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "chardev-internal.h"

typedef struct PtyChardev {
    Chardev parent;
    int master;
    int slave;
    char *path;
} PtyChardev;

static const QemuOptDesc pty_opts[] = {
    { NULL },
};

static bool pty_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    PtyChardev *p = (PtyChardev *)chr;
    struct termios tty;
    char name[64];

    p->slave = -1;
    p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->master < 0 || fcntl(p->master, F_SETFL, O_NONBLOCK) ||
        grantpt(p->master) || unlockpt(p->master) ||
        ptsname_r(p->master, name, sizeof(name))) {
        error_setg_errno(errp, errno, "Failed to create PTY");
        goto fail;
    }
    p->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->slave < 0) {
        error_setg_errno(errp, errno, "Failed to open PTY '%s'", name);
        goto fail;
    }
    /* Raw, as QEMU sets it: bytes pass unchanged both ways. */
    if (tcgetattr(p->slave, &tty) == 0) {
        cfmakeraw(&tty);
        tcsetattr(p->slave, TCSAFLUSH, &tty);
    }
    p->path = g_strdup(name);
    fprintf(stderr, "char device redirected to %s (label %s)\n", p->path,
            chr->label);
    chr_fd_attach(chr, p->master, p->master, false);
    chr->be_open = true;
    return true;

fail:
    if (p->master >= 0) {
        close(p->master);
    }
    return false;
}

static void pty_close(Chardev *chr)
{
    PtyChardev *p = (PtyChardev *)chr;

    chr_fd_detach(chr);
    close(p->slave);
    close(p->master);
    g_free(p->path);
}

static char *pty_filename(const Chardev *chr)
{
    return g_strdup_printf("pty:%s", ((const PtyChardev *)chr)->path);
}

static const ChardevClass chardev_pty_class = {
    .name = "pty",
    .instance_size = sizeof(PtyChardev),
    .opts = pty_opts,
    .open = pty_open,
    .close = pty_close,
    .filename = pty_filename,
    CHR_FD_OPS,
};

CHARDEV_CLASS_REGISTER(chardev_pty_class)
