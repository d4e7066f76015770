/*
 * The migration stream: a buffered channel over one file descriptor
 * (socket, pipe or file) and the framing of our format.
 *
 *   stream   = magic "XMIG" (4 bytes), u32 version, section*, end
 *   section  = u8 kind, u8 name length, name, u32 instance, u32 version,
 *              u32 payload length, payload, u32 CRC32C of everything from
 *              kind to the payload's last byte
 *   end      = a section of kind MIG_SEC_END, name "", no payload
 * All integers are little-endian. Kinds:
 *   RAM_LAYOUT  name "ram": u32 count, then per RAM region
 *               u8 name length, name, u64 size
 *   RAM         name: the region; pages, each u64 (offset | flags), then
 *               4096 bytes for a normal page, nothing for a zero page
 *   STATE       name: the device type (or "cpu", "timers"), instance:
 *               its index among those of the type, version: its table's;
 *               payload: vmstate/vmstate.c's encoding
 *   POSTCOPY_*  the switch to postcopy (migration/postcopy-ram.h)
 * Reads and writes wait on the descriptor and on a cancel pipe, so a
 * cancel or the process's exit can always stop a blocked transfer.
 * Over a unix socket a section may carry a file descriptor
 * (SCM_RIGHTS): the reader keeps those it receives, in order, until
 * the section that expects one takes it.
 */
#ifndef MIGRATION_STREAM_H
#define MIGRATION_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"

#define MIG_MAGIC           "XMIG"
#define MIG_VERSION         1
#define MIG_QEMU_MAGIC      "QEVM"      /* QEMU's own streams */
#define MIG_PAGE_SIZE       4096u
#define MIG_PAGE_ZERO       0x1ull      /* flags in a page's offset word */
#define MIG_PAGE_NORMAL     0x2ull
#define MIG_PAGE_FLAGS      0xfffull
#define MIG_SECTION_MAX     (64u << 20) /* largest payload the loader takes */
#define MIG_FDS_MAX         16          /* received, not yet taken */

enum {
    MIG_SEC_RAM_LAYOUT = 1,
    MIG_SEC_RAM = 2,
    MIG_SEC_STATE = 3,
    MIG_SEC_POSTCOPY_ADVISE = 4,    /* see postcopy-ram.h */
    MIG_SEC_POSTCOPY_LISTEN = 5,
    MIG_SEC_POSTCOPY_DISCARD = 6,
    MIG_SEC_POSTCOPY_RUN = 7,
    MIG_SEC_RAM_SHARED = 8,         /* see ram-handover.h */
    MIG_SEC_END = 0xff,
};

typedef struct MigStream {
    int fd;
    int cancel_fd;              /* readable once cancelled; -1: none */
    size_t len, pos;            /* buffered bytes (write: len used) */
    uint64_t bytes;             /* transferred so far */
    bool error;                 /* a write or read failed */
    bool eof;
    bool not_socket;            /* read with read(2): no SCM_RIGHTS */
    unsigned nfds;              /* received descriptors, oldest first */
    int fds[MIG_FDS_MAX];
    uint8_t buf[65536];
} MigStream;

void mig_stream_init(MigStream *s, int fd, int cancel_fd);
bool mig_stream_write(MigStream *s, const void *data, size_t len);
bool mig_stream_flush(MigStream *s);
/* Exactly len bytes, false on end of input, error or cancel. */
bool mig_stream_read(MigStream *s, void *data, size_t len);

/*
 * After a stream that handed RAM over (ram-handover.h) the destination
 * answers with this one byte once it has loaded everything, before it
 * runs; the source completes only then, so a refused stream never
 * leaves the guest running nowhere.
 */
#define MIG_ACK_LOADED      0x4c
bool mig_stream_send_ack(MigStream *s);
/*
 * Source: wait for the answer; false when the destination closed or
 * failed without it, or (*cancelled) a cancel came first.
 */
bool mig_stream_wait_ack(MigStream *s, bool *cancelled);

/* Can descriptors travel with the stream (a unix socket)? */
bool mig_stream_can_pass_fds(const MigStream *s);
/* The oldest descriptor received and not taken yet, or -1. */
int mig_stream_take_fd(MigStream *s);
/* Close the descriptors nobody took (at the end of a load). */
void mig_stream_close_fds(MigStream *s);

uint32_t mig_crc32c(uint32_t crc, const void *data, size_t len);

/* Append one whole section (header, payload, checksum) to s. */
bool mig_section_write(MigStream *s, uint8_t kind, const char *name,
                       uint32_t instance, uint32_t version,
                       const void *payload, size_t len);
bool mig_stream_write_header(MigStream *s);
/*
 * The same, sent at once with fd attached (SCM_RIGHTS); the stream
 * must be a unix socket (mig_stream_can_pass_fds).
 */
bool mig_section_write_fd(MigStream *s, uint8_t kind, const char *name,
                          uint32_t instance, uint32_t version,
                          const void *payload, size_t len, int fd);

typedef struct MigSection {
    uint8_t kind;
    char name[256];
    uint32_t instance, version;
    uint8_t *payload;           /* g_free it */
    uint32_t len;
} MigSection;

/* The header: "this is not a migration stream" etc. */
bool mig_stream_read_header(MigStream *s, Error **errp);
/*
 * The next section, its checksum verified. index counts sections for
 * the messages; prev names the last good one.
 */
bool mig_section_read(MigStream *s, MigSection *sec, unsigned index,
                      const char *prev, Error **errp);

#endif
