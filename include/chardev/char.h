/*
 * Character devices: a backend (null, stdio, file, socket, pipe, mux)
 * moves bytes between the host and one frontend (a UART, a monitor, the
 * qtest server). Everything runs from the glib main loop; nothing blocks.
 */
#ifndef CHARDEV_CHAR_H
#define CHARDEV_CHAR_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"
#include "qemu/option.h"

typedef struct Chardev Chardev;

typedef enum ChrEvent {
    CHR_EVENT_OPENED,       /* a client connected / the backend opened */
    CHR_EVENT_CLOSED,       /* the client went away */
    CHR_EVENT_BREAK,        /* serial break (Ctrl-a b on a mux) */
    CHR_EVENT_MUX_IN,       /* a mux gave this frontend the input focus */
    CHR_EVENT_MUX_OUT,      /* ...and took it away */
} ChrEvent;

/* How many bytes the frontend can take now (0: stop reading). */
typedef int (*IOCanReadHandler)(void *opaque);
typedef void (*IOReadHandler)(void *opaque, const uint8_t *buf, int size);
typedef void (*IOEventHandler)(void *opaque, ChrEvent event);

/* A frontend's handle on its chardev. Embed it in the frontend's state. */
typedef struct CharBackend {
    Chardev *chr;
    IOCanReadHandler can_read;
    IOReadHandler read;
    IOEventHandler event;
    void *opaque;
    int tag;                /* the frontend's index on a mux */
    bool open_explicit;     /* qemu_chr_fe_set_open() was called */
    bool fe_open;           /* ...and what it said */
    void (*write_ready)(void *opaque);  /* qemu_chr_fe_set_write_ready */
} CharBackend;

/*
 * Output buffering: each chardev queues at most CHR_OUTPUT_LIMIT bytes
 * that its host side has not taken yet; past that, writes drop the
 * excess (and count it), so a peer that stops reading never blocks a
 * vCPU or the main loop.
 */
#define CHR_OUTPUT_LIMIT (64 * 1024)

/*
 * -chardev BACKEND,id=ID,...: create from parsed options (key "backend"
 * is the implied first key).
 */
Chardev *qemu_chr_new_from_opts(const QemuOpts *opts, Error **errp);
/*
 * Create from a QEMU shorthand ("stdio", "null", "file:PATH",
 * "unix:PATH,server=on,wait=off", "tcp:HOST:PORT,server=on",
 * "mon:stdio", "chardev:ID", "pipe:PATH", "none") with id label;
 * "chardev:ID" returns the existing chardev. NULL with no error for
 * "none".
 */
Chardev *qemu_chr_new(const char *label, const char *spec, Error **errp);
/* Turn a shorthand into -chardev options (for tests and -serial). */
QemuOpts *qemu_chr_parse_compat(const char *label, const char *spec,
                                Error **errp);
Chardev *qemu_chr_find(const char *id);
/*
 * The -serial ports' chardevs, in order (NULL for "none"): added by the
 * command line, read by the board (serial_hd(i) is NULL past the last).
 */
void serial_hd_add(Chardev *chr);
unsigned serial_hd_count(void);
Chardev *serial_hd(int i);
const char *qemu_chr_get_id(const Chardev *chr);
/* "unix:/path,server=on" style description, as query-chardev shows. */
char *qemu_chr_get_filename(const Chardev *chr);
bool qemu_chr_is_connected(const Chardev *chr);
/* Is this a mux (mon:stdio, -nographic, mux=on)? */
bool qemu_chr_is_mux(const Chardev *chr);
/* Call fn for each chardev, in creation order. */
void qemu_chr_foreach(void (*fn)(Chardev *chr, void *opaque), void *opaque);
/* Close and free every chardev (at exit). */
void qemu_chr_cleanup_all(void);

/*
 * Attach a frontend. A chardev takes one frontend, a mux several (up to
 * 4). Fails with QEMU's "Device 'ID' is in use" otherwise.
 */
bool qemu_chr_fe_init(CharBackend *be, Chardev *chr, Error **errp);
void qemu_chr_fe_deinit(CharBackend *be);
void qemu_chr_fe_set_handlers(CharBackend *be, IOCanReadHandler can_read,
                              IOReadHandler read, IOEventHandler event,
                              void *opaque);
/* Queue bytes for the host side; returns how many were accepted. */
int qemu_chr_fe_write(CharBackend *be, const uint8_t *buf, int len);
int qemu_chr_fe_printf(CharBackend *be, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);
/* The frontend can take input again after can_read returned 0. */
void qemu_chr_fe_accept_input(CharBackend *be);
bool qemu_chr_fe_backend_connected(const CharBackend *be);
/*
 * Raise or lower the queue limit of this frontend's chardev: protocol
 * servers whose replies must arrive whole (QMP, qtest) set it to their
 * largest reply, keeping memory bounded all the same.
 */
void qemu_chr_fe_set_output_limit(CharBackend *be, size_t limit);
/*
 * Bytes a write takes now without dropping any: the queue limit minus
 * what waits (INT_MAX when the chardev discards, e.g. a server without
 * client, or has an output path of its own). A frontend that must not
 * lose output writes at most that much and waits for write_ready, which
 * runs from the main loop whenever the host has taken queued bytes.
 */
int qemu_chr_fe_write_room(CharBackend *be);
void qemu_chr_fe_set_write_ready(CharBackend *be, void (*ready)(void *));
/*
 * The frontend says whether its guest side has the channel open (a
 * virtio serial port the guest opened); query-chardev's frontend-open
 * shows it from then on instead of "handlers are set".
 */
void qemu_chr_fe_set_open(CharBackend *be, bool open);
/*
 * The oldest descriptor the peer of a unix socket chardev sent with
 * its bytes (SCM_RIGHTS), now the caller's; -1 when there is none.
 */
int qemu_chr_fe_get_msgfd(CharBackend *be);
/* Drop the connected client (a socket server then accepts a new one). */
void qemu_chr_fe_disconnect(CharBackend *be);

/*
 * Called on "Ctrl-a x" typed into a mux (mon:stdio, -nographic): the
 * emulator points it at a shutdown request. NULL (the default): ignore.
 */
extern void (*chr_mux_exit_hook)(void);

#endif
