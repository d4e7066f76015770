/*
 * Local live update: with x-ignore-shared, guest RAM in share=on memory
 * backends is handed to the destination instead of copied. The stream
 * carries one RAM_SHARED section per such backend, before the RAM
 * layout, named after the backend:
 *
 *   u8 backing      1 memfd, 2 temporary file (both: the descriptor
 *                   travels with the section, SCM_RIGHTS), 3 named file
 *                   (the destination opens the same path itself)
 *   u8 fd_attached  1 when the descriptor came with the section
 *   u64 size        bytes of the block
 *   u64 st_dev, u64 st_ino   the file's identity on the source
 *
 * The destination maps a received descriptor in place of its own memfd
 * (same address), or checks that its named file is the source's. Pages
 * of a handed-over block are never sent. Until the load has completed
 * the destination keeps such a block at exit (the source may run on
 * with it); once the source completed, the source keeps it for good
 * (exported: the teardown policy's "keep (exported)").
 */
#ifndef MIGRATION_RAM_HANDOVER_H
#define MIGRATION_RAM_HANDOVER_H

#include <stdbool.h>

#include "migration/stream.h"
#include "qemu/error.h"

/*
 * Source, with the big lock, before the RAM layout: a section for each
 * share=on block behind the registered RAM regions. Fails (after
 * telling the destination) when a block's descriptor must travel and
 * the stream is not a unix socket.
 */
bool ram_handover_save(MigStream *s, Error **errp);
/* How many blocks this migration handed over (source) or took (dest). */
unsigned ram_handover_count(void);
/* Source, at the end: completed marks the blocks handed over exported. */
void ram_handover_save_end(bool completed);

/* Destination: one RAM_SHARED section (x-ignore-shared must be set). */
bool ram_handover_load(MigStream *s, const MigSection *sec, Error **errp);
/*
 * Destination, at the end of the load: ok hands the blocks to us.
 * Returns how many there were.
 */
unsigned ram_handover_load_end(bool ok);

/* The x-ignore-shared capability (migration.c). */
bool migration_ignore_shared(void);

/* Is the RAM at host in a block handed over in this migration? */
bool ram_handover_covers(const void *host);

#endif
