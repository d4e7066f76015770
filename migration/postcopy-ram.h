/*
 * Postcopy RAM (migration/postcopy-ram.c). With the postcopy-ram
 * capability on both sides, migrate-start-postcopy ends precopy early:
 * the source stops, the destination starts running with whatever RAM it
 * has, a userfaultfd catches its first touch of each missing page, and
 * the page is asked for over the return path (the same socket, the
 * other way) while the source pushes the rest in the background.
 *
 * Stream sections (see stream.h for the framing), all named "postcopy"
 * except DISCARD:
 *   ADVISE   after the layout: the source may switch to postcopy
 *   LISTEN   the source has stopped: unlock (mem-lock), register every
 *            RAM region with userfaultfd, start the fault thread
 *   DISCARD  name: the region; u64 offset, u64 length pairs of pages
 *            the destination holds stale copies of (dropped, so they
 *            fault and are fetched)
 *   RUN      after the state sections: the destination runs
 * Return path messages (destination to source):
 *   u8 kind (1: page request), u8 name length, name, u64 offset (LE)
 */
#ifndef MIGRATION_POSTCOPY_RAM_H
#define MIGRATION_POSTCOPY_RAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "migration/ram-stream.h"
#include "migration/stream.h"
#include "qemu/error.h"

#define POSTCOPY_REQ_PAGE   1
#define POSTCOPY_REQ_MAX    (2 + 255 + 8)

typedef struct PostcopyRequest {
    char name[256];
    uint64_t offset;
} PostcopyRequest;

/*
 * One return path message from buf: the bytes it took, 0 when more
 * are needed, -1 (errp set) when it is malformed.
 */
ssize_t postcopy_request_parse(const uint8_t *buf, size_t len,
                               PostcopyRequest *req, Error **errp);
/* Encode a page request into buf (POSTCOPY_REQ_MAX bytes): its length. */
size_t postcopy_request_encode(uint8_t *buf, const char *name,
                               uint64_t offset);

/* --- source --------------------------------------------------------- */

/* Read page requests from fd (the migration socket) in a thread. */
bool postcopy_source_start(int fd, Error **errp);
/*
 * Send the requested pages, waiting up to wait_us for the first; false
 * when the return path broke or sending failed.
 */
bool postcopy_source_serve(MigStream *s, RamStats *st, int64_t wait_us);
/* Why the return path broke, or NULL. */
const char *postcopy_source_error(void);
void postcopy_source_stop(void);
/* With the big lock and the VM stopped: LISTEN, DISCARDs, state, RUN. */
bool postcopy_save_switchover(MigStream *s, Error **errp);

/* --- destination ---------------------------------------------------- */

/* A postcopy section of the incoming stream (read from fd). */
bool postcopy_incoming_section(int fd, const MigSection *sec,
                               Error **errp);
/* Between LISTEN and the end: RAM pages go in with UFFDIO_COPY. */
bool postcopy_incoming_listening(void);
/* RUN was loaded: the state sections are already checked. */
bool postcopy_incoming_running(void);
/* Place one page at host (data NULL: a zero page). */
bool postcopy_place_page(uint8_t *host, const uint8_t *data, Error **errp);
/*
 * Stop the fault thread and close the userfaultfd (waking any vCPU
 * still waiting); at the end of the stream (relock) lock memory again
 * with the user's -overcommit mem-lock mode, which a failure (the
 * process exits) skips. Safe to call when postcopy never began.
 * false: the relock failed.
 */
bool postcopy_incoming_end(bool relock, Error **errp);

/* In migration.c: whether postcopy-ram is set here; RUN (big lock). */
bool migration_postcopy_ram(void);
void migration_incoming_postcopy_run(void);

#endif
