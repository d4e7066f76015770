/*
 * Opening an image as QEMU does (include/block/block.h): the protocol
 * node, the format (given, or probed: qcow2 by its magic, else raw with
 * QEMU's warning), and a qcow2 image's backing chain, each image below
 * opened read-only with its backing_fmt or probed. A backing name that
 * is not absolute is relative to the directory of the image that names
 * it. A chain that comes back to one of its images is refused.
 *
 * snapshot=on puts a temporary qcow2 overlay above an image.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block/block.h"

#define BACKING_CHAIN_MAX   256

/* "qcow2" or "raw": what the first bytes say. */
static const char *probe_format(BlockDriverState *proto, Error **errp)
{
    uint8_t buf[512];
    struct iovec v = { .iov_base = buf, .iov_len = sizeof(buf) };
    int ret;

    if (proto->size < 4) {
        return "raw";
    }
    memset(buf, 0, sizeof(buf));
    ret = proto->drv->preadv(proto, 0, &v, 1);
    if (ret < 0) {
        error_setg_errno(errp, -ret, "Could not read image for determining "
                         "its format");
        return NULL;
    }
    return bdrv_qcow2_probe(buf, sizeof(buf)) ? "qcow2" : "raw";
}

/* A backing file name as QEMU resolves it: from the overlay's folder. */
static char *backing_path(const char *overlay, const char *name)
{
    g_autofree char *dir = NULL;

    if (g_path_is_absolute(name) || !strchr(overlay, '/')) {
        return g_strdup(name);
    }
    dir = g_path_get_dirname(overlay);
    return g_build_filename(dir, name, NULL);
}

typedef struct Chain {
    dev_t dev[BACKING_CHAIN_MAX + 1];
    ino_t ino[BACKING_CHAIN_MAX + 1];
    unsigned n;
} Chain;

/* Is the file of proto already in the chain? Adds it if not. */
static bool chain_add(Chain *c, BlockDriverState *proto, Error **errp)
{
    struct stat st;

    if (fstat(proto->fd, &st) < 0) {
        return true;
    }
    for (unsigned i = 0; i < c->n; i++) {
        if (c->dev[i] == st.st_dev && c->ino[i] == st.st_ino) {
            error_setg(errp, "Backing file '%s' makes a loop in the backing "
                       "chain", proto->filename);
            return false;
        }
    }
    if (c->n > BACKING_CHAIN_MAX) {
        error_setg(errp, "Backing chain of more than %u images",
                   BACKING_CHAIN_MAX);
        return false;
    }
    c->dev[c->n] = st.st_dev;
    c->ino[c->n++] = st.st_ino;
    return true;
}

static BlockDriverState *open_chain(const BlockImageOptions *o, Chain *chain,
                                    bool warn_probe, Error **errp);

/* The image bs names as its backing file, read-only, and what it names. */
static BlockDriverState *open_backing(BlockDriverState *bs,
                                      const BlockImageOptions *o,
                                      const char *name, const char *fmt,
                                      Chain *chain, Error **errp)
{
    g_autofree char *path = backing_path(bs->filename, name);
    BlockImageOptions bo = *o;
    BlockDriverState *backing;

    bo.filename = path;
    bo.format = fmt;
    bo.node_name = NULL;
    bo.read_only = true;
    bo.aio = BLOCK_AIO_THREADS;
    backing = open_chain(&bo, chain, false, errp);
    if (!backing) {
        error_prepend(errp, "Could not open backing file: ");
        return NULL;
    }
    bs->backing = backing;
    bs->backing_file = g_strdup(name);
    return backing;
}

bool bdrv_open_backing_chain(BlockDriverState *bs, const char *name,
                             const char *fmt, Error **errp)
{
    Chain *chain = g_new0(Chain, 1);
    BlockDriverState *proto = bs;
    BlockImageOptions o = { .qcow2 = BLOCK_QCOW2_OPTIONS_DEFAULT };
    bool ok;

    while (proto->file) {
        proto = proto->file;
    }
    o.direct = proto->direct;
    o.locking = proto->locking;
    ok = chain_add(chain, proto, errp) &&
         open_backing(bs, &o, name, fmt, chain, errp);
    g_free(chain);
    return ok;
}

static BlockDriverState *open_chain(const BlockImageOptions *o, Chain *chain,
                                    bool warn_probe, Error **errp)
{
    BlockDriverState *proto, *bs, *backing = NULL;
    g_autofree char *backing_name = NULL, *backing_fmt = NULL;
    const char *format = o->format;

    proto = bdrv_file_open("file", o->filename, NULL, o->read_only,
                           o->direct, o->locking, errp);
    if (!proto) {
        return NULL;
    }
    proto->aio = o->aio;
    if (!bdrv_add(proto, errp)) {
        return NULL;
    }
    if (!chain_add(chain, proto, errp)) {
        goto fail;
    }
    if (!format) {
        format = probe_format(proto, errp);
        if (!format) {
            goto fail;
        }
        if (warn_probe && !strcmp(format, "raw")) {
            warn_report("Image format was not specified for '%s' and "
                        "probing guessed raw.\n         Automatically "
                        "detecting the format is dangerous for raw images, "
                        "write operations on block 0 will be restricted.\n"
                        "         Specify the 'raw' format explicitly to "
                        "remove the restrictions.", o->filename);
        }
    }
    if (!strcmp(format, "raw")) {
        bs = bdrv_raw_open(proto, o->node_name, errp);
        bs->probed = !o->format;
    } else if (!strcmp(format, "qcow2")) {
        bs = bdrv_qcow2_open(proto, &o->qcow2, o->node_name, &backing_name,
                             &backing_fmt, errp);
    } else {
        error_setg(errp, "Unknown driver '%s'", format);
        goto fail;
    }
    if (!bs) {
        goto fail;
    }
    if (backing_name && *backing_name) {
        backing = open_backing(bs, o, backing_name, backing_fmt, chain,
                               errp);
        if (!backing) {
            bs->drv->close(bs);
            g_free(bs->filename);
            g_free(bs->node_name);
            g_free(bs);
            goto fail;
        }
    }
    if (!bdrv_add(bs, errp)) {
        /* bdrv_add closed bs; what it would have held goes too. */
        if (backing) {
            bdrv_remove(backing);
        }
        bdrv_remove(proto);
        return NULL;
    }
    return bs;

fail:
    bdrv_remove(proto);
    return NULL;
}

BlockDriverState *bdrv_open_image(const BlockImageOptions *o, Error **errp)
{
    Chain *chain = g_new0(Chain, 1);
    BlockDriverState *bs = open_chain(o, chain, true, errp);

    g_free(chain);
    return bs;
}

BlockDriverState *bdrv_temp_overlay(BlockDriverState *base, Error **errp)
{
    g_autofree char *tmpl = g_build_filename(g_get_tmp_dir(), "vl.XXXXXX",
                                             NULL);
    g_autofree char *path = NULL;
    g_autofree char *bname = NULL, *bfmt = NULL;
    BlockDriverState *proto, *bs;
    BlockDriverState *base_proto = base;
    int fd = g_mkstemp_full(tmpl, O_RDWR | O_CLOEXEC, 0600);

    if (fd < 0) {
        error_setg_errno(errp, errno, "Could not create temporary overlay "
                         "'%s'", tmpl);
        return NULL;
    }
    /* Nothing outlives the process: the name goes at once. */
    unlink(tmpl);
    if (!bdrv_qcow2_create(fd, base->size, NULL, NULL, errp)) {
        close(fd);
        return NULL;
    }
    while (base_proto->file) {
        base_proto = base_proto->file;
    }
    path = g_strdup_printf("/proc/self/fd/%d", fd);
    proto = bdrv_file_open("file", path, NULL, false, base_proto->direct,
                           false, errp);
    close(fd);
    if (!proto) {
        return NULL;
    }
    g_free(proto->filename);
    proto->filename = g_strdup(tmpl);
    proto->temporary = true;
    if (!bdrv_add(proto, errp)) {
        return NULL;
    }
    bs = bdrv_qcow2_open(proto, NULL, NULL, &bname, &bfmt, errp);
    if (!bs) {
        bdrv_remove(proto);
        return NULL;
    }
    bs->backing = base;
    if (!bdrv_add(bs, errp)) {
        bdrv_remove(proto);
        return NULL;
    }
    return bs;
}

bool bdrv_set_backing(BlockDriverState *overlay, BlockDriverState *top,
                      Error **errp)
{
    if (strcmp(overlay->drv->name, "qcow2")) {
        error_setg(errp, "The overlay does not support backing images");
        return false;
    }
    if (overlay->backing) {
        error_setg(errp, "The overlay already has a backing image");
        return false;
    }
    if (overlay->size < top->size) {
        error_setg(errp, "The overlay is smaller than its backing image");
        return false;
    }
    overlay->backing = top;
    top->parents++;
    g_free(overlay->backing_file);
    overlay->backing_file = g_strdup(top->filename);
    return true;
}

BlockDriverState *bdrv_snapshot_overlay(BlockDriverState *top,
                                        const char *file,
                                        const char *node_name, bool existing,
                                        Error **errp)
{
    g_autofree char *bname = NULL, *bfmt = NULL;
    BlockDriverState *proto = top, *fp, *bs;

    while (proto->file) {
        proto = proto->file;
    }
    if (!existing) {
        g_autofree char *abs = g_canonicalize_filename(top->filename, NULL);
        int fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        bool ok;

        if (fd < 0) {
            error_setg_errno(errp, errno, "Could not create '%s'", file);
            return NULL;
        }
        ok = bdrv_qcow2_create(fd, top->size, abs, top->drv->name, errp);
        close(fd);
        if (!ok) {
            return NULL;
        }
    }
    fp = bdrv_file_open("file", file, NULL, false, proto->direct,
                        proto->locking, errp);
    if (!fp || !bdrv_add(fp, errp)) {
        return NULL;
    }
    bs = bdrv_qcow2_open(fp, NULL, node_name, &bname, &bfmt, errp);
    if (!bs) {
        bdrv_remove(fp);
        return NULL;
    }
    bs->backing = top;
    bs->backing_file = g_strdup(bname ? bname : top->filename);
    if (!bdrv_add(bs, errp)) {
        /* bdrv_add closed bs; top stays where it was. */
        bdrv_remove(fp);
        return NULL;
    }
    return bs;
}
