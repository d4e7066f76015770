/*
 * -drive and -blockdev: parsed options into block nodes and backends,
 * with QEMU's messages.
 *
 *   -drive file=PATH[,format=raw|qcow2][,if=ide|none|virtio][,id=ID]
 *          [,index=N][,bus=B,unit=U][,media=disk|cdrom]
 *          [,cache=writeback|none|writethrough|directsync|unsafe]
 *          [,readonly=on][,aio=threads|io_uring|native][,discard=..]
 *          [,detect-zeroes=off][,werror=enospc|stop|report|ignore]
 *          [,rerror=report|stop|ignore]
 *          [,file.locking=auto|on|off][,snapshot=on|off]
 *          [,l2-cache-size=N][,refcount-cache-size=N][,cache-size=N]
 *          [,cache-clean-interval=SECONDS]
 *     a format node (given, or probed) over a file node, with a qcow2
 *     image's backing chain below it (block/image.c); snapshot=on puts
 *     a temporary overlay on top. A backend named ID (default
 *     IF + index: "none0", "virtio0"; if=ide: "ide0-hd0", "ide1-cd0");
 *     if=virtio also asks for a virtio-blk-pci device on it, if=ide
 *     tells the board its slot (an empty one for media=cdrom without
 *     file=).
 *   -blockdev driver=file|host_device,filename=PATH,node-name=NAME
 *             [,read-only=on][,cache.direct=on][,cache.no-flush=on]
 *             [,aio=threads|io_uring|native][,locking=auto|on|off]
 *             [,discard=..]
 *   -blockdev driver=raw,file=NODE|file.driver=..,file.filename=..,
 *             node-name=NAME[,read-only=on]
 *   QMP blockdev-add takes -blockdev's options as JSON ({"file": {...}}
 *   is file.*) and comes here through the same blockdev_new().
 */
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "block/blockdev.h"
#include "block/block.h"
#include "block/aio-engine.h"
#include "qapi/qapi-types.h"

/* cache= of -drive: O_DIRECT, flush after each write, ignore flushes. */
static const struct {
    const char *name;
    bool direct, writethrough, no_flush;
} cache_modes[] = {
    { "writeback", false, false, false },
    { "none", true, false, false },
    { "writethrough", false, true, false },
    { "directsync", true, true, false },
    { "unsafe", false, false, true },
};

static const char *const drive_keys[] = {
    "file", "format", "if", "id", "cache", "readonly", "aio", "discard",
    "detect-zeroes", "index", "media", "file.locking", "werror", "rerror",
    "snapshot", "l2-cache-size", "refcount-cache-size", "cache-size",
    "cache-clean-interval", "bus", "unit",
    NULL,
};

/* qcow2's run-time options, from -drive's or -blockdev's keys. */
static const char *const qcow2_size_keys[] = {
    "l2-cache-size", "refcount-cache-size", "cache-size",
    "cache-clean-interval",
};

static bool parse_qcow2_options(const QemuOpts *opts, const char *format,
                                BlockQcow2Options *q, Error **errp)
{
    int64_t *fields[] = {
        &q->l2_cache_size, &q->refcount_cache_size, &q->cache_size,
        &q->cache_clean_interval,
    };

    for (size_t i = 0; i < G_N_ELEMENTS(qcow2_size_keys); i++) {
        uint64_t n = UINT64_MAX;

        *fields[i] = -1;
        if (!qemu_opt_get(opts, qcow2_size_keys[i])) {
            continue;
        }
        if (format && strcmp(format, "qcow2")) {
            error_setg(errp, "Block format '%s' does not support the option "
                       "'%s'", format, qcow2_size_keys[i]);
            return false;
        }
        if (!(i < 3 ? qemu_opt_get_size(opts, qcow2_size_keys[i], &n, errp)
                    : qemu_opt_get_number(opts, qcow2_size_keys[i], &n,
                                          errp))) {
            return false;
        }
        *fields[i] = MIN(n, INT64_MAX);
    }
    return true;
}

static bool key_known(const char *const *keys, const char *name)
{
    for (; *keys; keys++) {
        if (!strcmp(*keys, name)) {
            return true;
        }
    }
    return false;
}

/*
 * aio=threads (the thread pool), io_uring (block/io-uring.c) or native
 * (block/linux-aio.c, which needs O_DIRECT, as QEMU says), the engine
 * set up here so a kernel that refuses it is an error of the option.
 */
static bool check_aio(const char *aio, bool direct, int *mode, Error **errp)
{
    *mode = BLOCK_AIO_THREADS;
    if (!aio || !strcmp(aio, "threads")) {
        return true;
    }
    if (!strcmp(aio, "io_uring")) {
        *mode = BLOCK_AIO_IO_URING;
        return block_aio_engine(*mode)->init(errp);
    }
    if (!strcmp(aio, "native")) {
        if (!direct) {
            error_setg(errp, "aio=native was specified, but it requires "
                       "cache.direct=on, which was not specified.");
            return false;
        }
        *mode = BLOCK_AIO_NATIVE;
        return block_aio_engine(*mode)->init(errp);
    }
    error_setg(errp, "Parameter 'aio' does not accept value '%s'", aio);
    return false;
}

/* -drive werror= and rerror= (enospc is for writes only). */
static bool parse_on_error(const char *value, bool is_read,
                           BlockdevOnError *action, Error **errp)
{
    static const struct {
        const char *name;
        BlockdevOnError action;
    } actions[] = {
        { "report", BLOCKDEV_ON_ERROR_REPORT },
        { "ignore", BLOCKDEV_ON_ERROR_IGNORE },
        { "enospc", BLOCKDEV_ON_ERROR_ENOSPC },
        { "stop", BLOCKDEV_ON_ERROR_STOP },
    };

    *action = is_read ? BLOCKDEV_ON_ERROR_REPORT : BLOCKDEV_ON_ERROR_ENOSPC;
    if (!value) {
        return true;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(actions); i++) {
        if (!strcmp(value, actions[i].name) &&
            !(is_read && actions[i].action == BLOCKDEV_ON_ERROR_ENOSPC)) {
            *action = actions[i].action;
            return true;
        }
    }
    error_setg(errp, "'%s' invalid %s error action", value,
               is_read ? "read" : "write");
    return false;
}

/* locking=auto|on|off: on Linux, auto is on (OFD locks always work). */
static bool parse_locking(const char *value, bool *locking, bool blockdev,
                          Error **errp)
{
    if (!value || !strcmp(value, "auto") || !strcmp(value, "on")) {
        *locking = true;
    } else if (!strcmp(value, "off")) {
        *locking = false;
    } else if (blockdev) {
        error_setg(errp, "Parameter 'locking' does not accept value '%s'",
                   value);
        return false;
    } else {
        error_setg(errp, "invalid parameter value: %s", value);
        return false;
    }
    return true;
}

/*
 * discard= and detect-zeroes= of a node: -drive's words for a bad value
 * are its own ("Invalid discard option"), -blockdev's the schema's.
 */
typedef struct DiscardOpts {
    bool unmap;
    int detect_zeroes;
} DiscardOpts;

static bool parse_discard(const QemuOpts *opts, const char *prefix,
                          DiscardOpts *d, bool blockdev, Error **errp)
{
    static const char *const zeroes[] = { "off", "on", "unmap" };
    g_autofree char *k_discard = g_strconcat(prefix, "discard", NULL);
    g_autofree char *k_zeroes = g_strconcat(prefix, "detect-zeroes", NULL);
    const char *discard = qemu_opt_get(opts, k_discard);
    const char *dz = qemu_opt_get(opts, k_zeroes);

    if (discard && strcmp(discard, "ignore") && strcmp(discard, "unmap") &&
        (blockdev || (strcmp(discard, "off") && strcmp(discard, "on")))) {
        if (blockdev) {
            error_setg(errp, "Parameter '%s' does not accept value '%s'",
                       k_discard, discard);
        } else {
            error_setg(errp, "Invalid discard option");
        }
        return false;
    }
    d->unmap = discard && (!strcmp(discard, "unmap") ||
                           !strcmp(discard, "on"));
    d->detect_zeroes = BDRV_DETECT_ZEROES_OFF;
    for (unsigned i = 0; dz && i < G_N_ELEMENTS(zeroes); i++) {
        if (!strcmp(dz, zeroes[i])) {
            d->detect_zeroes = i;
            return true;
        }
    }
    if (!dz) {
        return true;
    }
    if (blockdev) {
        error_setg(errp, "Parameter '%s' does not accept value '%s'",
                   k_zeroes, dz);
    } else {
        error_setg(errp, "invalid parameter value: %s", dz);
    }
    return false;
}

static void set_discard(BlockDriverState *bs, const DiscardOpts *d)
{
    bs->discard_unmap = d->unmap;
    bs->detect_zeroes = d->detect_zeroes;
}

static bool check_format(const char *format, Error **errp)
{
    if (!strcmp(format, "raw") || !strcmp(format, "qcow2")) {
        return true;
    }
    error_setg(errp, "Unknown driver '%s'", format);
    return false;
}

/* media=disk|cdrom */
static bool parse_media(const QemuOpts *opts, bool *cdrom, Error **errp)
{
    const char *media = qemu_opt_get(opts, "media");

    *cdrom = media && !strcmp(media, "cdrom");
    if (media && !*cdrom && strcmp(media, "disk")) {
        error_setg(errp, "'%s' invalid media", media);
        return false;
    }
    return true;
}

/*
 * Where an if=ide drive goes: index=N (bus N / 2, unit N % 2), or bus=
 * and unit=, or the first free slot from bus= (0) on; QEMU's messages.
 */
static bool ide_slot(const QemuOpts *opts, int *bus, int *unit,
                     Error **errp)
{
    uint64_t index = UINT64_MAX, b = 0, u = UINT64_MAX;

    if (!qemu_opt_get_number(opts, "index", &index, errp) ||
        !qemu_opt_get_number(opts, "bus", &b, errp) ||
        !qemu_opt_get_number(opts, "unit", &u, errp)) {
        return false;
    }
    if (index != UINT64_MAX) {
        if (qemu_opt_get(opts, "bus") || u != UINT64_MAX) {
            error_setg(errp, "index cannot be used with bus and unit");
            return false;
        }
        if (index > INT_MAX) {
            error_setg(errp, "Parameter 'index' expects a non-negative "
                       "number below 2^31");
            return false;
        }
        b = index / 2;
        u = index % 2;
    } else if (b > INT_MAX) {
        error_setg(errp, "Parameter 'bus' expects a non-negative number "
                   "below 2^31");
        return false;
    }
    if (u == UINT64_MAX) {
        for (u = 0; blk_find_ide(b, u); ) {
            if (++u == 2) {
                u = 0;
                b++;
            }
        }
    }
    if (u >= 2) {
        error_setg(errp, "unit %" PRIu64 " too big (max is 1)", u);
        return false;
    }
    /* The pc's two channels (the board checks again when it has none). */
    if (b >= 2) {
        error_setg(errp, "machine type does not support if=ide,bus=%" PRIu64
                   ",unit=%" PRIu64, b, u);
        return false;
    }
    if (blk_find_ide(b, u)) {
        error_setg(errp, "drive with bus=%" PRIu64 ", unit=%" PRIu64
                   " (index=%d) exists", b, u,
                   index == UINT64_MAX ? -1 : (int)index);
        return false;
    }
    *bus = b;
    *unit = u;
    return true;
}

bool drive_new(const QemuOpts *opts, unsigned *index, char **virtio_id,
               Error **errp)
{
    const char *file = qemu_opt_get(opts, "file");
    const char *format = qemu_opt_get(opts, "format");
    const char *iface = qemu_opt_get(opts, "if");
    const char *cache = qemu_opt_get(opts, "cache");
    const char *id = qemu_opt_get(opts, "id");
    g_autofree char *auto_id = NULL;
    BlockImageOptions img = { 0 };
    BlockDriverState *fmt;
    bool readonly = false, locking, snapshot = false, cdrom = false;
    int bus = -1, unit = -1;
    BlockdevOnError rerror, werror;
    DiscardOpts discard;
    size_t c = 0;
    int aio;

    *virtio_id = NULL;
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const char *name = qemu_opts_nth(opts, i)->name;

        if (!key_known(drive_keys, name)) {
            error_setg(errp, "Block format '%s' does not support the option "
                       "'%s'", format ? format : "raw", name);
            return false;
        }
    }
    if (!iface) {
        iface = "ide";
    }
    if (strcmp(iface, "none") && strcmp(iface, "virtio") &&
        strcmp(iface, "ide")) {
        static const char *const known[] = {
            "scsi", "floppy", "pflash", "mtd", "sd", "xen", NULL,
        };

        if (key_known(known, iface)) {
            error_setg(errp, "if=%s is not supported yet; use if=ide, "
                       "if=virtio or if=none with -device", iface);
        } else {
            error_setg(errp, "unsupported bus type '%s'", iface);
        }
        return false;
    }
    if (!parse_media(opts, &cdrom, errp) ||
        (!strcmp(iface, "ide") && !ide_slot(opts, &bus, &unit, errp))) {
        return false;
    }
    if (cache) {
        for (c = 0; c < G_N_ELEMENTS(cache_modes); c++) {
            if (!strcmp(cache, cache_modes[c].name)) {
                break;
            }
        }
        if (c == G_N_ELEMENTS(cache_modes)) {
            error_setg(errp, "invalid cache option");
            return false;
        }
    }
    /* A CD-ROM is read-only unless asked otherwise. */
    readonly = cdrom;
    if (!qemu_opt_get_bool(opts, "readonly", &readonly, NULL)) {
        error_setg(errp, "Parameter 'read-only' expects 'on' or 'off'");
        return false;
    }
    if (!check_aio(qemu_opt_get(opts, "aio"), cache_modes[c].direct, &aio,
                   errp) ||
        !parse_on_error(qemu_opt_get(opts, "werror"), false, &werror, errp) ||
        !parse_on_error(qemu_opt_get(opts, "rerror"), true, &rerror, errp) ||
        !parse_locking(qemu_opt_get(opts, "file.locking"), &locking, false,
                       errp) ||
        !parse_discard(opts, "", &discard, false, errp) ||
        (format && !check_format(format, errp)) ||
        !parse_qcow2_options(opts, format, &img.qcow2, errp)) {
        return false;
    }
    if (!qemu_opt_get_bool(opts, "snapshot", &snapshot, NULL)) {
        error_setg(errp, "Parameter 'snapshot' expects 'on' or 'off'");
        return false;
    }
    if ((!file || !*file) && !cdrom) {
        error_setg(errp, "A block device must be specified for \"file\"");
        return false;
    }
    if (!id && bus >= 0) {
        /* QEMU's names: ide0-hd0, ide1-cd0, ... */
        id = auto_id = g_strdup_printf("ide%d-%s%d", bus,
                                       cdrom ? "cd" : "hd", unit);
    } else if (!id) {
        id = auto_id = g_strdup_printf("%s%u", iface, (*index)++);
    } else if (!id_wellformed(id)) {
        error_setg(errp, "Parameter 'id' expects an identifier");
        return false;
    }
    if (blk_find(id)) {
        error_setg(errp, "Duplicate ID '%s' for drive", id);
        return false;
    }
    if (!file || !*file) {
        /* An empty CD-ROM drive. */
        BlockBackend *blk = blk_new_empty(id, errp);

        if (blk && bus >= 0) {
            blk_set_ide(blk, bus, unit, cdrom);
        }
        return blk != NULL;
    }
    img.filename = file;
    img.format = format;
    /* snapshot=on: the image itself is only read. */
    img.read_only = readonly || snapshot;
    img.direct = cache_modes[c].direct;
    img.locking = locking;
    img.aio = aio;
    /* As QEMU: the probe (and its warning) follows a successful open. */
    fmt = bdrv_open_image(&img, errp);
    if (!fmt) {
        return false;
    }
    if (snapshot && !readonly) {
        fmt = bdrv_temp_overlay(fmt, errp);
        if (!fmt) {
            return false;
        }
    }
    set_discard(fmt, &discard);
    fmt->writethrough = cache_modes[c].writethrough;
    fmt->no_flush = cache_modes[c].no_flush;
    if (!blk_new(id, fmt, errp)) {
        return false;
    }
    blk_set_on_error(blk_find(id), rerror, werror);
    if (bus >= 0) {
        blk_set_ide(blk_find(id), bus, unit, cdrom);
    }
    if (!strcmp(iface, "virtio")) {
        blk_set_virtio(blk_find(id));
        *virtio_id = g_strdup(id);
    }
    return true;
}

/* A protocol node from driver=, filename= (under prefix, "" or "file."). */
static BlockDriverState *blockdev_protocol(const QemuOpts *opts,
                                           const char *prefix,
                                           const char *node_name,
                                           bool read_only, Error **errp)
{
    g_autofree char *k_filename = g_strconcat(prefix, "filename", NULL);
    g_autofree char *k_direct = g_strconcat(prefix, "cache.direct", NULL);
    g_autofree char *k_noflush = g_strconcat(prefix, "cache.no-flush", NULL);
    g_autofree char *k_aio = g_strconcat(prefix, "aio", NULL);
    g_autofree char *k_driver = g_strconcat(prefix, "driver", NULL);
    g_autofree char *k_locking = g_strconcat(prefix, "locking", NULL);
    const char *driver = qemu_opt_get(opts, k_driver);
    const char *filename = qemu_opt_get(opts, k_filename);
    bool direct = false, no_flush = false, locking;
    int aio;
    DiscardOpts discard;
    BlockDriverState *bs;

    if (!filename) {
        error_setg(errp, "Parameter '%s' is missing", k_filename);
        return NULL;
    }
    if (!qemu_opt_get_bool(opts, k_direct, &direct, errp) ||
        !qemu_opt_get_bool(opts, k_noflush, &no_flush, errp) ||
        !check_aio(qemu_opt_get(opts, k_aio), direct, &aio, errp) ||
        !parse_locking(qemu_opt_get(opts, k_locking), &locking, true,
                       errp) ||
        !parse_discard(opts, prefix, &discard, true, errp)) {
        return NULL;
    }
    bs = bdrv_file_open(driver, filename, node_name, read_only, direct,
                        locking, errp);
    if (!bs) {
        return NULL;
    }
    bs->no_flush = no_flush;
    bs->aio = aio;
    set_discard(bs, &discard);
    return bdrv_add(bs, errp) ? bs : NULL;
}

/*
 * A -blockdev key the schema has (BlockdevOptions, cache.* its
 * BlockdevCacheOptions, file.* a protocol node given inline), as the
 * QMP visitor takes them.
 */
static bool blockdev_key_known(const char *key, bool in_file)
{
    if (g_str_has_prefix(key, "cache.")) {
        return key_known(BlockdevCacheOptions_names, key + strlen("cache."));
    }
    if (!in_file && g_str_has_prefix(key, "file.")) {
        return blockdev_key_known(key + strlen("file."), true);
    }
    return key_known(BlockdevOptions_names, key);
}

/*
 * QEMU's "Parameter 'file.bogus' is unexpected": for -blockdev (dotted
 * or JSON) and for blockdev-add's inline file, whose schema type is any.
 * Nested keys first, as QEMU's visitor checks an inner object before the
 * outer one.
 */
static bool blockdev_check_keys(const QemuOpts *opts, Error **errp)
{
    for (int nested = 1; nested >= 0; nested--) {
        for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
            const char *key = qemu_opts_nth(opts, i)->name;

            if ((strchr(key, '.') != NULL) == nested &&
                !blockdev_key_known(key, false)) {
                error_setg(errp, "Parameter '%s' is unexpected", key);
                return false;
            }
        }
    }
    return true;
}

/*
 * -blockdev driver=qcow2: backing=NODE puts that node below it,
 * backing= (JSON null) nothing; without it, the image's backing file
 * is opened as -drive would.
 */
static BlockDriverState *blockdev_qcow2(const QemuOpts *opts,
                                        BlockDriverState *file,
                                        const char *node_name,
                                        const BlockQcow2Options *qcow2,
                                        Error **errp)
{
    const char *backing = qemu_opt_get(opts, "backing");
    g_autofree char *name = NULL, *fmt = NULL;
    BlockDriverState *bs, *below = NULL;

    if (backing && *backing) {
        below = bdrv_find_node(backing);
        if (!below) {
            error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
                       backing, backing);
            return NULL;
        }
    }
    bs = bdrv_qcow2_open(file, qcow2, node_name, &name, &fmt, errp);
    if (!bs) {
        return NULL;
    }
    if (below) {
        bs->backing = below;
    } else if (!backing && name && *name &&
               !bdrv_open_backing_chain(bs, name, fmt, errp)) {
        bs->drv->close(bs);
        g_free(bs->filename);
        g_free(bs->node_name);
        g_free(bs);
        return NULL;
    }
    return bs;
}

bool blockdev_new(const QemuOpts *opts, Error **errp)
{
    const char *driver = qemu_opt_get(opts, "driver");
    const char *node_name = qemu_opt_get(opts, "node-name");
    bool read_only = false;
    BlockQcow2Options qcow2;
    BlockDriverState *file, *bs;
    const char *file_ref;
    DiscardOpts discard;

    if (!driver) {
        error_setg(errp, "Parameter 'driver' is missing");
        return false;
    }
    if (!blockdev_check_keys(opts, errp)) {
        return false;
    }
    if (!node_name) {
        error_setg(errp, "'node-name' must be specified for the root node");
        return false;
    }
    if (!qemu_opt_get_bool(opts, "read-only", &read_only, errp)) {
        return false;
    }
    if (!strcmp(driver, "file") || !strcmp(driver, "host_device")) {
        bs = blockdev_protocol(opts, "", node_name, read_only, errp);
        if (bs) {
            bs->monitor_owned = true;
        }
        return bs != NULL;
    }
    if (strcmp(driver, "raw") && strcmp(driver, "qcow2")) {
        return check_format(driver, errp);
    }
    if (!parse_discard(opts, "", &discard, true, errp) ||
        !parse_qcow2_options(opts, driver, &qcow2, errp)) {
        return false;
    }
    file_ref = qemu_opt_get(opts, "file");
    if (file_ref) {
        file = bdrv_find_node(file_ref);
        if (!file) {
            error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
                       file_ref, file_ref);
            return false;
        }
    } else if (qemu_opt_get(opts, "file.driver")) {
        const char *d = qemu_opt_get(opts, "file.driver");

        if (strcmp(d, "file") && strcmp(d, "host_device")) {
            error_setg(errp, "Unknown driver '%s'", d);
            return false;
        }
        file = blockdev_protocol(opts, "file.", NULL, read_only, errp);
        if (!file) {
            return false;
        }
    } else {
        error_setg(errp, "Parameter 'file' is missing");
        return false;
    }
    if (read_only && !file->read_only) {
        /* QEMU reopens; here the node stays writable underneath. */
        file->read_only = false;
    }
    bs = strcmp(driver, "qcow2") ? bdrv_raw_open(file, node_name, errp)
                                 : blockdev_qcow2(opts, file, node_name,
                                                  &qcow2, errp);
    if (bs) {
        bs->read_only = read_only || file->read_only;
        set_discard(bs, &discard);
    }
    if (!bs || !bdrv_add(bs, errp)) {
        if (!file->monitor_owned && !file->parents) {
            /* The nested file node was made for this one. */
            bdrv_remove(file);
        }
        return false;
    }
    bs->monitor_owned = true;
    return true;
}
