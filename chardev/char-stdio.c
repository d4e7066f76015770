/*
 * -chardev stdio[,signal=on|off]: the emulator's own stdin and stdout.
 * A terminal on stdin goes raw (no echo, no line editing) so keys reach
 * the guest as typed; signal=on keeps ISIG so Ctrl-C still interrupts.
 * The terminal mode and the fd flags are restored at cleanup.
 */
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include "chardev-internal.h"

typedef struct StdioChardev {
    Chardev parent;
    bool tty_saved;
    struct termios old_tty;
    int old_flags_in;
    int old_flags_out;
} StdioChardev;

static const QemuOptDesc stdio_opts[] = {
    { "signal", QEMU_OPT_BOOL },
    { NULL },
};

/* There is one stdin: two owners would steal each other's keys. */
static bool stdio_in_use;

static void stdio_set_raw(StdioChardev *s, bool allow_signals)
{
    struct termios tty;

    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &s->old_tty) < 0) {
        return;
    }
    s->tty_saved = true;
    tty = s->old_tty;
    tty.c_iflag &= ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR |
                     ICRNL | IXON);
    tty.c_oflag |= OPOST;
    tty.c_lflag &= ~(ECHO | ECHONL | ICANON | IEXTEN);
    if (!allow_signals) {
        tty.c_lflag &= ~ISIG;
    }
    tty.c_cflag &= ~(CSIZE | PARENB);
    tty.c_cflag |= CS8;
    tty.c_cc[VMIN] = 1;
    tty.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSANOW, &tty);
}

static bool stdio_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    StdioChardev *s = (StdioChardev *)chr;
    bool allow_signals = true;

    if (stdio_in_use) {
        error_setg(errp, "cannot use stdio by multiple character devices");
        return false;
    }
    if (!qemu_opt_get_bool(opts, "signal", &allow_signals, errp)) {
        return false;
    }
    stdio_in_use = true;
    stdio_set_raw(s, allow_signals);
    /*
     * Non-blocking both ways, so a stalled terminal or pipe reader
     * never blocks a vCPU; QEMU does the same to stdin, which on a
     * terminal is the same open file as stdout.
     */
    s->old_flags_in = fcntl(STDIN_FILENO, F_GETFL);
    s->old_flags_out = fcntl(STDOUT_FILENO, F_GETFL);
    if (s->old_flags_in >= 0) {
        fcntl(STDIN_FILENO, F_SETFL, s->old_flags_in | O_NONBLOCK);
    }
    if (s->old_flags_out >= 0) {
        fcntl(STDOUT_FILENO, F_SETFL, s->old_flags_out | O_NONBLOCK);
    }
    chr_fd_attach(chr, s->old_flags_in >= 0 ? STDIN_FILENO : -1,
                  s->old_flags_out >= 0 ? STDOUT_FILENO : -1, false);
    chr->be_open = true;
    return true;
}

static void stdio_close(Chardev *chr)
{
    StdioChardev *s = (StdioChardev *)chr;

    chr_fd_detach(chr);
    if (s->tty_saved) {
        tcsetattr(STDIN_FILENO, TCSANOW, &s->old_tty);
    }
    if (s->old_flags_out >= 0) {
        fcntl(STDOUT_FILENO, F_SETFL, s->old_flags_out);
    }
    if (s->old_flags_in >= 0) {
        fcntl(STDIN_FILENO, F_SETFL, s->old_flags_in);
    }
    stdio_in_use = false;
}

static const ChardevClass chardev_stdio_class = {
    .name = "stdio",
    .instance_size = sizeof(StdioChardev),
    .opts = stdio_opts,
    .open = stdio_open,
    .close = stdio_close,
    CHR_FD_OPS,
};

CHARDEV_CLASS_REGISTER(chardev_stdio_class)
