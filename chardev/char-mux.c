/*
 * The multiplexer behind mux=on and "mon:": one chardev shared by up to
 * MUX_MAX frontends (typically a serial port and the monitor). Output
 * from all of them is interleaved onto the chardev below; input goes to
 * the one with the focus. Ctrl-a is the escape key:
 *   Ctrl-a c        move the focus to the next frontend
 *   Ctrl-a x        ask the emulator to exit (chr_mux_exit_hook)
 *   Ctrl-a h or ?   print the help text
 *   Ctrl-a b        send a break to the focused frontend
 *   Ctrl-a t        toggle timestamps on output lines
 *   Ctrl-a Ctrl-a   a literal Ctrl-a
 * Each frontend has a small input buffer, so escapes are seen even while
 * the focused frontend takes no input.
 */
#include <stdio.h>
#include <string.h>

#include "chardev-internal.h"

#define MUX_MAX         4
#define MUX_BUFFER_SIZE 32          /* a power of two */
#define MUX_ESCAPE      0x01        /* Ctrl-a */

typedef struct MuxChardev {
    Chardev parent;
    CharBackend base_be;            /* our handle on the chardev below */
    CharBackend *fes[MUX_MAX];
    int count;
    int focus;                      /* -1 until a frontend sets handlers */
    bool got_escape;
    bool timestamps;
    bool linestart;
    gint64 timestamps_start;
    uint8_t buf[MUX_MAX][MUX_BUFFER_SIZE];
    unsigned prod[MUX_MAX];
    unsigned cons[MUX_MAX];
} MuxChardev;

static const char *const mux_help[] = {
    "% h    print this help\n\r",
    "% x    exit emulator\n\r",
    "% t    toggle console timestamps\n\r",
    "% b    send break (magic sysrq)\n\r",
    "% c    switch between console and monitor\n\r",
    "% %  sends %\n\r",
    NULL
};

static int mux_write_base(MuxChardev *d, const char *s)
{
    return qemu_chr_fe_write(&d->base_be, (const uint8_t *)s, strlen(s));
}

static void mux_print_help(MuxChardev *d)
{
    GString *text = g_string_new("\n\r");

    for (int i = 0; mux_help[i]; i++) {
        for (const char *c = mux_help[i]; *c; c++) {
            if (*c == '%') {
                g_string_append(text, "C-a");
            } else {
                g_string_append_c(text, *c);
            }
        }
    }
    mux_write_base(d, text->str);
    g_string_free(text, TRUE);
}

static void mux_send_event(MuxChardev *d, int i, ChrEvent event)
{
    CharBackend *be = d->fes[i];

    if (be && be->event) {
        be->event(be->opaque, event);
    }
}

static void mux_set_focus(MuxChardev *d, int focus)
{
    if (d->focus == focus) {
        return;
    }
    if (d->focus >= 0) {
        mux_send_event(d, d->focus, CHR_EVENT_MUX_OUT);
    }
    d->focus = focus;
    d->parent.be = d->fes[focus];
    mux_send_event(d, focus, CHR_EVENT_MUX_IN);
}

/* Ctrl-a c: the next frontend that is still attached, round robin. */
static void mux_focus_next(MuxChardev *d)
{
    for (int n = 1; n <= d->count; n++) {
        int i = (d->focus + n + d->count) % d->count;

        if (d->fes[i]) {
            mux_set_focus(d, i);
            return;
        }
    }
}

/* Output: with timestamps on, each line starts with "[h:mm:ss.mmm] ". */
static int mux_write(Chardev *chr, const uint8_t *buf, int len)
{
    MuxChardev *d = (MuxChardev *)chr;
    int ret = 0;

    if (!d->timestamps) {
        return qemu_chr_fe_write(&d->base_be, buf, len);
    }
    for (int i = 0; i < len; i++) {
        if (d->linestart) {
            gint64 ms = g_get_monotonic_time() / 1000;
            char stamp[64];

            if (d->timestamps_start < 0) {
                d->timestamps_start = ms;
            }
            ms -= d->timestamps_start;
            snprintf(stamp, sizeof(stamp), "[%02d:%02d:%02d.%03d] ",
                     (int)(ms / 3600000), (int)(ms / 60000 % 60),
                     (int)(ms / 1000 % 60), (int)(ms % 1000));
            mux_write_base(d, stamp);
            d->linestart = false;
        }
        ret += qemu_chr_fe_write(&d->base_be, buf + i, 1);
        if (buf[i] == '\n') {
            d->linestart = true;
        }
    }
    return ret;
}

/* Escape handling; true when ch is data for the focused frontend. */
static bool mux_proc_byte(MuxChardev *d, uint8_t ch)
{
    if (!d->got_escape) {
        if (ch == MUX_ESCAPE) {
            d->got_escape = true;
            return false;
        }
        return true;
    }
    d->got_escape = false;
    switch (ch) {
    case MUX_ESCAPE:
        return true;
    case 'h':
    case '?':
        mux_print_help(d);
        break;
    case 'x':
        if (chr_mux_exit_hook) {
            mux_write_base(d, "QEMU: Terminated\n\r");
            chr_mux_exit_hook();
        }
        break;
    case 'b':
        chr_be_event(&d->parent, CHR_EVENT_BREAK);
        break;
    case 'c':
        mux_focus_next(d);
        break;
    case 't':
        d->timestamps = !d->timestamps;
        d->timestamps_start = -1;
        d->linestart = false;
        break;
    default:
        break;
    }
    return false;
}

/* Hand buffered bytes to frontend i while it takes them. */
static void mux_flush(MuxChardev *d, int i)
{
    CharBackend *be = d->fes[i];

    while (be && be->can_read && be->read && d->prod[i] != d->cons[i] &&
           be->can_read(be->opaque) > 0) {
        uint8_t ch = d->buf[i][d->cons[i]++ % MUX_BUFFER_SIZE];

        be->read(be->opaque, &ch, 1);
        be = d->fes[i];
    }
}

static int mux_can_read(void *opaque)
{
    MuxChardev *d = opaque;
    int i = d->focus;
    CharBackend *be;

    if (i < 0) {
        return 0;
    }
    if (d->prod[i] - d->cons[i] < MUX_BUFFER_SIZE) {
        return 1;
    }
    be = d->fes[i];
    if (be && be->can_read) {
        return be->can_read(be->opaque);
    }
    return 0;
}

static void mux_read(void *opaque, const uint8_t *buf, int size)
{
    MuxChardev *d = opaque;

    for (int n = 0; n < size; n++) {
        int i = d->focus;
        CharBackend *be;

        if (i < 0) {
            return;
        }
        mux_flush(d, i);
        if (!mux_proc_byte(d, buf[n])) {
            continue;
        }
        /* The focus may have moved: deliver to whoever has it now. */
        i = d->focus;
        be = d->fes[i];
        if (d->prod[i] == d->cons[i] && be && be->can_read && be->read &&
            be->can_read(be->opaque) > 0) {
            be->read(be->opaque, &buf[n], 1);
        } else if (d->prod[i] - d->cons[i] < MUX_BUFFER_SIZE) {
            d->buf[i][d->prod[i]++ % MUX_BUFFER_SIZE] = buf[n];
        }
    }
}

/* OPENED and CLOSED of the chardev below go to every frontend. */
static void mux_event(void *opaque, ChrEvent event)
{
    MuxChardev *d = opaque;

    if (event == CHR_EVENT_OPENED) {
        d->parent.be_open = true;
    } else if (event == CHR_EVENT_CLOSED) {
        d->parent.be_open = false;
    }
    if (event == CHR_EVENT_OPENED || event == CHR_EVENT_CLOSED) {
        for (int i = 0; i < d->count; i++) {
            mux_send_event(d, i, event);
        }
    } else {
        chr_be_event(&d->parent, event);
    }
}

static void mux_update_input(Chardev *chr)
{
    MuxChardev *d = (MuxChardev *)chr;

    for (int i = 0; i < d->count; i++) {
        mux_flush(d, i);
    }
    qemu_chr_fe_accept_input(&d->base_be);
}

static bool mux_fe_attach(Chardev *chr, CharBackend *be, Error **errp)
{
    MuxChardev *d = (MuxChardev *)chr;

    if (d->count >= MUX_MAX) {
        error_setg(errp, "too many uses of multiplexed chardev '%s' "
                   "(maximum is %d)", chr->label, MUX_MAX);
        return false;
    }
    be->tag = d->count;
    d->fes[d->count++] = be;
    return true;
}

static void mux_fe_detach(Chardev *chr, CharBackend *be)
{
    MuxChardev *d = (MuxChardev *)chr;
    int tag = be->tag;

    /* Keep tags stable: the slot stays, empty. */
    if (tag >= 0 && tag < d->count && d->fes[tag] == be) {
        d->fes[tag] = NULL;
        d->prod[tag] = d->cons[tag] = 0;
        if (chr->be == be) {
            chr->be = NULL;
            d->focus = -1;
        }
    }
}

/*
 * The frontend that set its handlers last gets the focus: the serial
 * port, realized after the monitor, so -nographic starts on the guest
 * console. It also hears OPENED if the chardev below is already open.
 */
static void mux_fe_handlers_set(Chardev *chr, CharBackend *be)
{
    MuxChardev *d = (MuxChardev *)chr;

    if (be->can_read || be->read || be->event) {
        mux_set_focus(d, be->tag);
    }
    if (be->event && chr->be_open) {
        be->event(be->opaque, CHR_EVENT_OPENED);
    }
}

static bool mux_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    MuxChardev *d = (MuxChardev *)chr;

    d->focus = -1;
    d->timestamps_start = -1;
    return true;
}

/* mux=on: sit on base, whose frontend we become. */
static bool mux_open_on(Chardev *chr, Chardev *base, Error **errp)
{
    MuxChardev *d = (MuxChardev *)chr;

    if (!qemu_chr_fe_init(&d->base_be, base, errp)) {
        return false;
    }
    qemu_chr_fe_set_handlers(&d->base_be, mux_can_read, mux_read, mux_event,
                             d);
    return true;
}

static void mux_close(Chardev *chr)
{
    MuxChardev *d = (MuxChardev *)chr;

    for (int i = 0; i < d->count; i++) {
        if (d->fes[i]) {
            d->fes[i]->chr = NULL;
        }
    }
    chr->be = NULL;
    qemu_chr_fe_deinit(&d->base_be);
}

static void mux_disconnect(Chardev *chr)
{
    qemu_chr_fe_disconnect(&((MuxChardev *)chr)->base_be);
}

static char *mux_filename(const Chardev *chr)
{
    return g_strdup("mux");
}

static const ChardevClass chardev_mux_class = {
    .name = "mux",
    .instance_size = sizeof(MuxChardev),
    .open = mux_open,
    .close = mux_close,
    .filename = mux_filename,
    .write = mux_write,
    .disconnect = mux_disconnect,
    .update_input = mux_update_input,
    .fe_attach = mux_fe_attach,
    .fe_detach = mux_fe_detach,
    .fe_handlers_set = mux_fe_handlers_set,
    .open_on = mux_open_on,
};

CHARDEV_CLASS_REGISTER(chardev_mux_class)
