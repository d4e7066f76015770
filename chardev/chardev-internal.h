/*
 * What the chardev backends share with the core (char.c, char-fd.c): the
 * backend table, the Chardev state, and the non-blocking fd I/O that
 * stdio, file, pipe and socket all use.
 */
#ifndef CHARDEV_INTERNAL_H
#define CHARDEV_INTERNAL_H

#include <glib.h>

#include "chardev/char.h"

#define CHR_MSGFDS_MAX  16

typedef struct ChardevClass {
    const char *name;               /* "-chardev NAME" */
    size_t instance_size;           /* a struct that starts with Chardev */
    const QemuOptDesc *opts;        /* backend keys, NULL name ends it */
    bool (*open)(Chardev *chr, const QemuOpts *opts, Error **errp);
    /* Release what open took; the core then drops the fd watches. */
    void (*close)(Chardev *chr);
    /* query-chardev "filename"; NULL means the backend name */
    char *(*filename)(const Chardev *chr);
    /*
     * Output: take what the host side can have, return how many bytes
     * were taken; NULL discards everything. The fd backends fill this
     * and the next three with CHR_FD_OPS (char-fd.c); the mux writes to
     * the chardev below.
     */
    int (*write)(Chardev *chr, const uint8_t *buf, int len);
    /* Bytes write() takes now without dropping any; NULL: INT_MAX. */
    int (*write_room)(Chardev *chr);
    /* Input may flow again (re-arm a read watch); NULL: nothing to do. */
    void (*update_input)(Chardev *chr);
    /*
     * Stop the I/O and drop what is queued, closing nothing: after
     * close, and after a failed open. NULL: nothing to do.
     */
    void (*detach)(Chardev *chr);
    /*
     * The host side went away (EOF, or an error writing). NULL: stop
     * input and send CLOSED, as QEMU's fd chardevs do.
     */
    void (*hangup)(Chardev *chr);
    void (*disconnect)(Chardev *chr);
    /* Frontend bookkeeping for backends that take several (mux). */
    bool (*fe_attach)(Chardev *chr, CharBackend *be, Error **errp);
    void (*fe_detach)(Chardev *chr, CharBackend *be);
    void (*fe_handlers_set)(Chardev *chr, CharBackend *be);
    /*
     * The multiplexer of mux=on: sit on top of base, whose frontend it
     * becomes. A class with it is not a -chardev NAME.
     */
    bool (*open_on)(Chardev *chr, Chardev *base, Error **errp);
} ChardevClass;

struct Chardev {
    const ChardevClass *cls;
    char *label;
    CharBackend *be;                /* the frontend (not used by mux) */
    bool be_open;                   /* the host side is there */

    /* fd I/O: -1 when the backend has no such direction right now */
    int fd_in;
    int fd_out;
    bool out_is_socket;             /* send(MSG_NOSIGNAL), not write() */
    bool in_eof;                    /* input ended for good */
    bool out_dead;                  /* output failed for good: discard */
    GByteArray *outq;               /* bytes the host has not taken */
    size_t out_limit;               /* most bytes outq may hold */
    uint64_t dropped;               /* bytes discarded past the limit */
    guint in_watch;
    guint out_watch;
    guint hup_watch;                /* socket hangups while not reading */
    guint hangup_idle;
    int log_fd;                     /* logfile=, or -1 */
    /*
     * Descriptors a unix socket peer sent (SCM_RIGHTS) and the frontend
     * has not taken yet (qemu_chr_fe_get_msgfd): at most CHR_MSGFDS_MAX,
     * closed when the peer goes.
     */
    int msgfds[CHR_MSGFDS_MAX];
    unsigned nmsgfds;
};

/*
 * The backends of this binary: each backend file ends with
 * CHARDEV_CLASS_REGISTER(its_class), which adds it to the registry of
 * char.c before main() runs. The registry is sorted by name; nothing
 * lists it, "-chardev NAME" looks a name up in it.
 */
void chardev_class_register(const ChardevClass *cls);
#define CHARDEV_CLASS_REGISTER(cls) \
    static void __attribute__((constructor)) cls##_register(void) \
    { \
        chardev_class_register(&(cls)); \
    }

/* Deliver to the frontend(s). */
void chr_be_event(Chardev *chr, ChrEvent event);
int chr_be_can_read(Chardev *chr);
void chr_be_write(Chardev *chr, const uint8_t *buf, int len);
/* Is a frontend attached with handlers (QEMU's "frontend-open")? */
bool chr_fe_is_open(const Chardev *chr);

/*
 * fd I/O. chr_fd_attach() starts I/O on the given fds (either may be
 * -1); chr_fd_detach() stops it, drops queued output and returns
 * without closing anything: closing is the backend's business.
 */
void chr_fd_attach(Chardev *chr, int fd_in, int fd_out, bool is_socket);
/* Close the received descriptors nobody took. */
void chr_fd_close_msgfds(Chardev *chr);
void chr_fd_detach(Chardev *chr);
void chr_fd_update_read(Chardev *chr);
int chr_fd_write(Chardev *chr, const uint8_t *buf, int len);
int chr_fd_write_room(Chardev *chr);
/* The class operations of a backend whose I/O is the above. */
#define CHR_FD_OPS \
    .write = chr_fd_write, \
    .write_room = chr_fd_write_room, \
    .update_input = chr_fd_update_read, \
    .detach = chr_fd_detach

/* Create one backend with its own options (no mux handling). */
Chardev *chr_create(const ChardevClass *cls, const char *label,
                    const QemuOpts *opts, Error **errp);
/* Undo chr_create for a chardev no one else knows about yet. */
void chr_destroy(Chardev *chr);

#endif
