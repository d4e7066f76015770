/*
 * Local live update: share=on guest RAM handed over, not copied (see
 * ram-handover.h). The source sends each block's identity (and a
 * memfd's descriptor); the destination maps the same pages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "migration/ram-handover.h"
#include "migration/ram-stream.h"
#include "vmstate/vmstate.h"
#include "qemu/log.h"
#include "system/memory.h"
#include "system/ramblock.h"

#define HANDOVER_VERSION    1

/*
 * Tests only: the source does not mark what it handed over exported, so
 * its teardown treats it as any other block (docs/migration.md).
 */
#define NOT_EXPORTED_ENV    "QEMU_TEST_HANDOVER_NOT_EXPORTED"

enum {
    BACKING_MEMFD = 1,
    BACKING_TEMPORARY_FILE = 2,
    BACKING_FILE = 3,
};

static const char *const backing_names[] = {
    [BACKING_MEMFD] = "memfd",
    [BACKING_TEMPORARY_FILE] = "temporary-file",
    [BACKING_FILE] = "file",
};

/* The blocks of this migration: sent (source) or received (destination). */
static GPtrArray *handed;

static unsigned backing_of(const RAMBlock *rb)
{
    const char *b = ram_block_backing(rb);

    for (unsigned i = BACKING_MEMFD; i <= BACKING_FILE; i++) {
        if (!strcmp(b, backing_names[i])) {
            return i;
        }
    }
    return 0;
}

static void handed_reset(void)
{
    if (!handed) {
        handed = g_ptr_array_new();
    }
    g_ptr_array_set_size(handed, 0);
}

unsigned ram_handover_count(void)
{
    return handed ? handed->len : 0;
}

bool ram_handover_covers(const void *host)
{
    uint64_t offset;
    RAMBlock *rb = ram_block_from_host(host, &offset);

    for (guint i = 0; rb && handed && i < handed->len; i++) {
        if (g_ptr_array_index(handed, i) == rb) {
            return true;
        }
    }
    return false;
}

/* --- source -------------------------------------------------------------- */

/* The share=on blocks behind the registered regions, each once. */
static GPtrArray *shared_blocks(void)
{
    GPtrArray *blocks = g_ptr_array_new();
    MemoryRegion *mr;

    for (unsigned i = 0; (mr = ram_region_nth(i)); i++) {
        uint64_t offset;
        RAMBlock *rb = ram_block_from_host(mr->ram, &offset);

        if (rb && rb->fd >= 0 && (rb->flags & RAM_SHARED) &&
            backing_of(rb) && !g_ptr_array_find(blocks, rb, NULL)) {
            g_ptr_array_add(blocks, rb);
        }
    }
    return blocks;
}

static bool save_block(MigStream *s, RAMBlock *rb, bool can_pass_fds,
                       Error **errp)
{
    unsigned backing = backing_of(rb);
    bool pass_fd = backing != BACKING_FILE;
    GByteArray *buf = g_byte_array_new();
    struct stat st;
    bool ok;

    if (fstat(rb->fd, &st) < 0) {
        error_setg_errno(errp, errno, "x-ignore-shared: memory backend '%s'",
                         rb->name);
        g_byte_array_free(buf, TRUE);
        return false;
    }
    vmstate_put_le(buf, backing, 1);
    vmstate_put_le(buf, pass_fd && can_pass_fds, 1);
    vmstate_put_le(buf, rb->size, 8);
    vmstate_put_le(buf, st.st_dev, 8);
    vmstate_put_le(buf, st.st_ino, 8);
    if (pass_fd && can_pass_fds) {
        ok = mig_section_write_fd(s, MIG_SEC_RAM_SHARED, rb->name, 0,
                                  HANDOVER_VERSION, buf->data, buf->len,
                                  rb->fd);
    } else {
        ok = mig_section_write(s, MIG_SEC_RAM_SHARED, rb->name, 0,
                               HANDOVER_VERSION, buf->data, buf->len);
    }
    g_byte_array_free(buf, TRUE);
    if (!ok) {
        error_setg(errp, "writing to the destination failed");
        return false;
    }
    if (pass_fd && !can_pass_fds) {
        /* The destination has read why; now we say it too. */
        mig_stream_flush(s);
        error_setg(errp, "x-ignore-shared: memory backend '%s' is a %s, "
                   "whose descriptor only a unix: migration socket can "
                   "pass", rb->name, backing_names[backing]);
        return false;
    }
    g_ptr_array_add(handed, rb);
    return true;
}

bool ram_handover_save(MigStream *s, Error **errp)
{
    GPtrArray *blocks = shared_blocks();
    bool can_pass_fds = mig_stream_can_pass_fds(s);
    bool ok = true;

    handed_reset();
    for (guint i = 0; ok && i < blocks->len; i++) {
        ok = save_block(s, g_ptr_array_index(blocks, i), can_pass_fds, errp);
    }
    g_ptr_array_free(blocks, TRUE);
    if (!ok) {
        g_ptr_array_set_size(handed, 0);
    }
    return ok;
}

void ram_handover_save_end(bool completed)
{
    bool export = !getenv(NOT_EXPORTED_ENV);

    for (guint i = 0; completed && handed && i < handed->len; i++) {
        RAMBlock *rb = g_ptr_array_index(handed, i);

        if (export) {
            ram_block_set_exported(rb, true);
        }
        if (qemu_loglevel) {
            qemu_log("guest RAM '%s': handed over to the destination (%s), "
                     "%s\n", rb->name, ram_block_backing(rb),
                     export ? "exported: kept at exit"
                            : "not marked exported (" NOT_EXPORTED_ENV ")");
        }
    }
    if (handed) {
        g_ptr_array_set_size(handed, 0);
    }
}

/* --- destination --------------------------------------------------------- */

typedef struct HandoverHeader {
    uint64_t backing, fd_attached, size, dev, ino;
} HandoverHeader;

static bool parse(const MigSection *sec, HandoverHeader *h, Error **errp)
{
    VMStateReader rd = { .data = sec->payload, .len = sec->len };

    if (sec->version != HANDOVER_VERSION) {
        error_setg(errp, "x-ignore-shared: memory backend '%s': section "
                   "version %" PRIu32 ", this release reads %d", sec->name,
                   sec->version, HANDOVER_VERSION);
        return false;
    }
    if (!vmstate_get_le(&rd, 1, &h->backing) ||
        !vmstate_get_le(&rd, 1, &h->fd_attached) ||
        !vmstate_get_le(&rd, 8, &h->size) ||
        !vmstate_get_le(&rd, 8, &h->dev) ||
        !vmstate_get_le(&rd, 8, &h->ino) || rd.pos != rd.len ||
        h->backing < BACKING_MEMFD || h->backing > BACKING_FILE ||
        h->fd_attached > 1) {
        error_setg(errp, "x-ignore-shared: the section of memory backend "
                   "'%s' is malformed", sec->name);
        return false;
    }
    return true;
}

/* The block here matches the stream's description of it. */
static RAMBlock *check_block(const MigSection *sec, const HandoverHeader *h,
                             Error **errp)
{
    RAMBlock *rb = ram_block_by_name(sec->name);

    if (!rb) {
        error_setg(errp, "x-ignore-shared: memory backend '%s' of the stream "
                   "does not exist here", sec->name);
        return NULL;
    }
    if (g_ptr_array_find(handed, rb, NULL)) {
        error_setg(errp, "x-ignore-shared: memory backend '%s' is handed "
                   "over twice", rb->name);
        return NULL;
    }
    if (rb->fd < 0 || !(rb->flags & RAM_SHARED) || !backing_of(rb)) {
        error_setg(errp, "x-ignore-shared: memory backend '%s' is shared "
                   "in the stream, not here (a share=on memfd or file "
                   "backend is needed)", rb->name);
        return NULL;
    }
    if (backing_of(rb) != h->backing) {
        error_setg(errp, "x-ignore-shared: memory backend '%s' is a %s in "
                   "the stream, a %s here", rb->name,
                   backing_names[h->backing], ram_block_backing(rb));
        return NULL;
    }
    if (h->size != rb->size) {
        error_setg(errp, "x-ignore-shared: memory backend '%s' has %" PRIu64
                   " bytes in the stream, %" PRIu64 " here", rb->name,
                   h->size, rb->size);
        return NULL;
    }
    return rb;
}

/* A named file: ours must be the very file the source has. */
static bool check_same_file(RAMBlock *rb, const HandoverHeader *h,
                            Error **errp)
{
    struct stat st;

    if (fstat(rb->fd, &st) < 0) {
        error_setg_errno(errp, errno, "x-ignore-shared: memory backend '%s'",
                         rb->name);
        return false;
    }
    if ((uint64_t)st.st_dev != h->dev || (uint64_t)st.st_ino != h->ino) {
        error_setg(errp, "x-ignore-shared: memory backend '%s': mem-path is "
                   "not the source's file (device %#" PRIx64 " inode %"
                   PRIu64 " there, device %#" PRIx64 " inode %" PRIu64
                   " here)", rb->name, h->dev, h->ino, (uint64_t)st.st_dev,
                   (uint64_t)st.st_ino);
        return false;
    }
    return true;
}

/* A memfd or temporary file: map the descriptor that came with it. */
static bool take_descriptor(MigStream *s, RAMBlock *rb,
                            const HandoverHeader *h, Error **errp)
{
    struct stat st;
    int fd;

    if (!h->fd_attached) {
        error_setg(errp, "x-ignore-shared: memory backend '%s' is a %s, "
                   "whose descriptor only a unix: migration socket can "
                   "pass; none came with this stream", rb->name,
                   backing_names[h->backing]);
        return false;
    }
    fd = mig_stream_take_fd(s);
    if (fd < 0) {
        error_setg(errp, "x-ignore-shared: memory backend '%s': no "
                   "descriptor came with its section", rb->name);
        return false;
    }
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != h->dev ||
        (uint64_t)st.st_ino != h->ino) {
        error_setg(errp, "x-ignore-shared: memory backend '%s': the "
                   "descriptor received is not the file the section "
                   "describes", rb->name);
        close(fd);
        return false;
    }
    if (!ram_block_replace_fd(rb, fd, errp)) {
        close(fd);
        return false;
    }
    return true;
}

bool ram_handover_load(MigStream *s, const MigSection *sec, Error **errp)
{
    HandoverHeader h;
    RAMBlock *rb;

    if (!handed) {
        handed_reset();
    }
    if (!migration_ignore_shared()) {
        error_setg(errp, "the source enabled x-ignore-shared, this "
                   "destination did not (migrate-set-capabilities)");
        return false;
    }
    if (!parse(sec, &h, errp)) {
        return false;
    }
    rb = check_block(sec, &h, errp);
    if (!rb) {
        return false;
    }
    if (h.backing == BACKING_FILE ? !check_same_file(rb, &h, errp)
                                  : !take_descriptor(s, rb, &h, errp)) {
        return false;
    }
    /* The source's guest may run on with it should the load fail. */
    ram_block_set_exported(rb, true);
    g_ptr_array_add(handed, rb);
    if (qemu_loglevel) {
        qemu_log("guest RAM '%s': taken over from the source (%s)\n",
                 rb->name, ram_block_backing(rb));
    }
    return true;
}

unsigned ram_handover_load_end(bool ok)
{
    unsigned n = ram_handover_count();

    for (guint i = 0; ok && handed && i < handed->len; i++) {
        ram_block_set_exported(g_ptr_array_index(handed, i), false);
    }
    if (handed) {
        g_ptr_array_set_size(handed, 0);
    }
    return n;
}
