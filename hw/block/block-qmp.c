/*
 * QMP query-block, query-named-block-nodes, query-blockstats,
 * block_resize, blockdev-add and blockdev-del, and the BLOCK_IO_ERROR
 * event (include/hw/block/block-qmp.h): each backend (a -drive, or a -blockdev node a device
 * took) and node in QEMU 7.2's shape. It lives with the devices because
 * it names the device a backend is attached to.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "block/block.h"
#include "block/blockdev.h"
#include "hw/block/block-qmp.h"
#include "qapi/qapi-commands.h"
#include "hw/qdev.h"
#include "monitor/monitor.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "system/runstate.h"
#include "system/vm-config.h"

/* The protocol node under a format node (or the node itself). */
static const BlockDriverState *protocol_of(const BlockDriverState *bs)
{
    while (bs->file) {
        bs = bs->file;
    }
    return bs;
}

static JsonObject *image_info(const BlockDriverState *bs)
{
    JsonObject *o = json_object_new();
    struct stat st;
    int64_t actual = -1;

    if (stat(protocol_of(bs)->filename, &st) == 0) {
        actual = (int64_t)st.st_blocks * 512;
    }
    json_object_set_string_member(o, "filename", bs->filename);
    json_object_set_string_member(o, "format", bs->drv->name);
    json_object_set_int_member(o, "virtual-size", bs->size);
    json_object_set_int_member(o, "actual-size", actual);
    json_object_set_boolean_member(o, "dirty-flag", false);
    if (bs->drv->image_info) {
        bs->drv->image_info((BlockDriverState *)bs, o);
    }
    if (bs->backing) {
        if (bs->backing_file) {
            json_object_set_string_member(o, "backing-filename",
                                          bs->backing_file);
        }
        json_object_set_string_member(o, "full-backing-filename",
                                      bs->backing->filename);
        json_object_set_string_member(o, "backing-filename-format",
                                      bs->backing->drv->name);
        json_object_set_object_member(o, "backing-image",
                                      image_info(bs->backing));
    }
    return o;
}

/* How many images lie below bs. */
static int backing_depth(const BlockDriverState *bs)
{
    int n = 0;

    for (bs = bs->backing; bs; bs = bs->backing) {
        n++;
    }
    return n;
}

static JsonObject *inserted_info(const BlockDriverState *bs)
{
    static const char *const zero_limits[] = {
        "bps", "bps_rd", "bps_wr", "iops", "iops_rd", "iops_wr",
        "write_threshold",
    };
    JsonObject *o = json_object_new(), *cache = json_object_new();
    bool no_flush = false, direct = protocol_of(bs)->direct;

    for (const BlockDriverState *n = bs; n; n = n->file) {
        no_flush |= n->no_flush;
    }
    json_object_set_string_member(o, "file", bs->filename);
    json_object_set_string_member(o, "node-name", bs->node_name);
    json_object_set_boolean_member(o, "ro", bs->read_only);
    json_object_set_string_member(o, "drv", bs->drv->name);
    json_object_set_boolean_member(o, "encrypted", false);
    json_object_set_string_member(o, "detect_zeroes",
                                  bs->detect_zeroes == BDRV_DETECT_ZEROES_ON
                                  ? "on" : bs->detect_zeroes ? "unmap"
                                                             : "off");
    for (size_t i = 0; i < G_N_ELEMENTS(zero_limits); i++) {
        json_object_set_int_member(o, zero_limits[i], 0);
    }
    json_object_set_int_member(o, "backing_file_depth", backing_depth(bs));
    if (bs->backing) {
        json_object_set_string_member(o, "backing_file",
                                      bs->backing->filename);
    }
    json_object_set_boolean_member(cache, "writeback", !bs->writethrough);
    json_object_set_boolean_member(cache, "direct", direct);
    json_object_set_boolean_member(cache, "no-flush", no_flush);
    json_object_set_object_member(o, "cache", cache);
    json_object_set_object_member(o, "image", image_info(bs));
    return o;
}

/*
 * The QOM path of the device attached to blk (of its virtio-backend
 * child, for a virtio device, as QEMU says), or NULL.
 */
static char *qdev_path(const BlockBackend *blk)
{
    DeviceState *dev = blk_attached_dev(blk);
    g_autofree char *path = NULL;

    if (!dev || !dev->obj) {
        return NULL;
    }
    path = object_get_canonical_path(dev->obj);
    return dev->dc->virtio_backend ? g_strconcat(path, "/virtio-backend",
                                                 NULL)
                                   : g_steal_pointer(&path);
}

static void add_backend(BlockBackend *blk, void *opaque)
{
    JsonObject *o = json_object_new();
    g_autofree char *path = qdev_path(blk);

    json_object_set_string_member(o, "device", blk_name(blk));
    if (path) {
        json_object_set_string_member(o, "qdev", path);
    }
    json_object_set_boolean_member(o, "locked",
                                   blk_dev_is_medium_locked(blk));
    json_object_set_boolean_member(o, "removable",
                                   blk_dev_has_removable_media(blk));
    json_object_set_string_member(o, "type", "unknown");
    if (blk_attached_dev(blk) && blk_dev_has_removable_media(blk)) {
        json_object_set_boolean_member(o, "tray_open",
                                       blk_dev_is_tray_open(blk));
    }
    if (blk_attached_dev(blk) && blk_iostatus_is_enabled(blk)) {
        json_object_set_string_member(
            o, "io-status", BlockDeviceIoStatus_lookup[blk_iostatus(blk)]);
    }
    if (blk_is_inserted(blk)) {
        json_object_set_object_member(o, "inserted",
                                      inserted_info(blk_root(blk)));
    }
    json_array_add_object_element(opaque, o);
}

bool qmp_query_block(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    blk_foreach(add_backend, list);
    *ret = json_node_init_array(json_node_alloc(), list);
    json_array_unref(list);
    return true;
}


static void add_node(BlockDriverState *bs, void *opaque)
{
    json_array_add_object_element(opaque, inserted_info(bs));
}

bool qmp_query_named_block_nodes(
    const q_obj_query_named_block_nodes_arg *args, JsonNode **ret,
    Error **errp)
{
    JsonArray *list = json_array_new();

    bdrv_foreach(add_node, list);
    *ret = json_node_init_array(json_node_alloc(), list);
    json_array_unref(list);
    return true;
}

/* A backend's counts; NULL: a node below one (it counts nothing). */
static BlockDeviceStats *device_stats(const BlockBackend *blk)
{
    BlockDeviceStats *d = g_new0(BlockDeviceStats, 1);
    const BlockAcctStats *st;

    if (!blk) {
        return d;
    }
    st = blk_stats(blk);
    d->rd_bytes = st->bytes[BLOCK_ACCT_READ];
    d->wr_bytes = st->bytes[BLOCK_ACCT_WRITE];
    d->unmap_bytes = st->bytes[BLOCK_ACCT_UNMAP];
    d->rd_operations = st->ops[BLOCK_ACCT_READ];
    d->wr_operations = st->ops[BLOCK_ACCT_WRITE];
    d->flush_operations = st->ops[BLOCK_ACCT_FLUSH];
    d->unmap_operations = st->ops[BLOCK_ACCT_UNMAP];
    d->rd_total_time_ns = st->total_time_ns[BLOCK_ACCT_READ];
    d->wr_total_time_ns = st->total_time_ns[BLOCK_ACCT_WRITE];
    d->flush_total_time_ns = st->total_time_ns[BLOCK_ACCT_FLUSH];
    d->unmap_total_time_ns = st->total_time_ns[BLOCK_ACCT_UNMAP];
    d->wr_highest_offset = st->wr_highest_offset;
    d->rd_merged = st->merged[BLOCK_ACCT_READ];
    d->wr_merged = st->merged[BLOCK_ACCT_WRITE];
    d->unmap_merged = st->merged[BLOCK_ACCT_UNMAP];
    d->failed_rd_operations = st->failed[BLOCK_ACCT_READ];
    d->failed_wr_operations = st->failed[BLOCK_ACCT_WRITE];
    d->failed_flush_operations = st->failed[BLOCK_ACCT_FLUSH];
    d->failed_unmap_operations = st->failed[BLOCK_ACCT_UNMAP];
    d->invalid_rd_operations = st->invalid[BLOCK_ACCT_READ];
    d->invalid_wr_operations = st->invalid[BLOCK_ACCT_WRITE];
    d->invalid_flush_operations = st->invalid[BLOCK_ACCT_FLUSH];
    d->invalid_unmap_operations = st->invalid[BLOCK_ACCT_UNMAP];
    d->account_invalid = d->account_failed = true;
    if (st->last_done_ns && !st->in_flight) {
        d->has_idle_time_ns = true;
        d->idle_time_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME) -
                          st->last_done_ns;
    }
    return d;
}

static BlockStats *node_stats(const BlockDriverState *bs,
                              const BlockBackend *blk, bool with_parent)
{
    BlockStats *s = g_new0(BlockStats, 1);

    s->node_name = g_strdup(bs->node_name);
    s->stats = device_stats(blk);
    if (!bs->file && !strcmp(bs->drv->name, "file")) {
        s->driver_specific = g_new0(BlockStatsSpecificFile, 1);
        s->driver_specific->driver = g_strdup("file");
    }
    if (with_parent && bs->file) {
        s->parent = node_stats(bs->file, NULL, true);
    }
    return s;
}

typedef struct StatsList {
    BlockStatsList *head, **tail;
    bool nodes;
} StatsList;

static void stats_append(StatsList *l, BlockStats *s)
{
    BlockStatsList *e = g_new0(BlockStatsList, 1);

    e->value = s;
    *l->tail = e;
    l->tail = &e->next;
}

static void add_backend_stats(BlockBackend *blk, void *opaque)
{
    BlockStats *s;

    if (blk_is_inserted(blk)) {
        s = node_stats(blk_root(blk), blk, true);
    } else {
        /* An empty drive: its counts, no node. */
        s = g_new0(BlockStats, 1);
        s->stats = device_stats(blk);
    }

    s->device = g_strdup(blk_name(blk));
    s->qdev = qdev_path(blk);
    stats_append(opaque, s);
}

static void add_node_stats(BlockDriverState *bs, void *opaque)
{
    if (!bs->anonymous) {
        stats_append(opaque, node_stats(bs, blk_by_root(bs), false));
    }
}

bool qmp_query_blockstats(const q_obj_query_blockstats_arg *args,
                          JsonNode **ret, Error **errp)
{
    StatsList l = { NULL, &l.head, false };

    if (args->has_query_nodes && args->query_nodes) {
        bdrv_foreach(add_node_stats, &l);
    } else {
        blk_foreach(add_backend_stats, &l);
    }
    *ret = qapi_out_BlockStatsList(l.head);
    qapi_free_BlockStatsList(l.head);
    return true;
}

typedef struct FindUser {
    const BlockDriverState *bs;
    BlockBackend *blk;
    const char *name;
} FindUser;

static void find_named(BlockBackend *blk, void *opaque)
{
    FindUser *f = opaque;

    if (!f->blk && !strcmp(blk_name(blk), f->name)) {
        f->blk = blk;
    }
}

static void find_user(BlockBackend *blk, void *opaque)
{
    FindUser *f = opaque;

    for (const BlockDriverState *n = blk_root(blk); n && !f->blk;
         n = n->file) {
        if (n == f->bs) {
            f->blk = blk;
        }
    }
}

bool qmp_block_resize(const q_obj_block_resize_arg *args, JsonNode **ret,
                      Error **errp)
{
    BlockBackend *blk = NULL;

    if (args->device) {
        /* A named backend only, not one a device made for a node. */
        FindUser f = { NULL, NULL, args->device };

        blk_foreach(find_named, &f);
        blk = f.blk;
    } else if (!args->device && args->node_name) {
        FindUser f = { bdrv_find_node(args->node_name), NULL, NULL };

        if (f.bs) {
            blk_foreach(find_user, &f);
            blk = f.blk;
        }
    }
    if (!blk) {
        error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
                   args->device ? args->device : "",
                   args->node_name ? args->node_name : "");
        return false;
    }
    if (args->size < 0) {
        error_setg(errp, "Parameter 'size' expects a >0 size");
        return false;
    }
    if (!blk_truncate(blk, args->size, errp)) {
        return false;
    }
    *ret = json_node_init_object(json_node_alloc(), json_object_new());
    return true;
}

/* blockdev-add: -blockdev's code on the JSON turned into its options. */
bool qmp_blockdev_add(const BlockdevOptions *args, JsonNode **ret,
                      Error **errp)
{
    JsonNode *node = qapi_out_BlockdevOptions(args);
    QemuOpts *opts = qemu_opts_from_json_object(json_node_get_object(node),
                                                errp);
    bool ok = opts && blockdev_new(opts, errp);

    json_node_unref(node);
    qemu_opts_free(opts);
    if (ok) {
        *ret = json_node_init_object(json_node_alloc(), json_object_new());
    }
    return ok;
}

/* The backend a device uses whose top node is name (or named name). */
static BlockBackend *backend_of_top(const char *device, const char *node,
                                    Error **errp)
{
    BlockBackend *blk = NULL;

    if (device) {
        FindUser f = { NULL, NULL, device };

        blk_foreach(find_named, &f);
        blk = f.blk;
    } else if (node && bdrv_find_node(node)) {
        blk = blk_by_root(bdrv_find_node(node));
    }
    if (!blk) {
        error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
                   device ? device : "", node ? node : "");
    }
    return blk;
}

bool qmp_blockdev_snapshot_sync(const q_obj_blockdev_snapshot_sync_arg *args,
                                JsonNode **ret, Error **errp)
{
    BlockBackend *blk = backend_of_top(args->device, args->node_name, errp);
    BlockDriverState *overlay;
    bool existing = args->mode && !strcmp(args->mode, "existing");

    if (!blk) {
        return false;
    }
    if (args->format && strcmp(args->format, "qcow2")) {
        error_setg(errp, "Unknown driver '%s'", args->format);
        return false;
    }
    if (args->mode && !existing && strcmp(args->mode, "absolute-paths")) {
        error_setg(errp, "Parameter 'mode' does not accept value '%s'",
                   args->mode);
        return false;
    }
    if (args->snapshot_node_name &&
        bdrv_find_node(args->snapshot_node_name)) {
        error_setg(errp, "New overlay node-name already in use");
        return false;
    }
    if (blk_is_read_only(blk)) {
        error_setg(errp, "Device '%s' is read only", blk_name(blk));
        return false;
    }
    overlay = bdrv_snapshot_overlay(blk_root(blk), args->snapshot_file,
                                    args->snapshot_node_name, existing,
                                    errp);
    if (!overlay) {
        return false;
    }
    if (!blk_insert_overlay(blk, overlay, errp)) {
        bdrv_remove(overlay);
        return false;
    }
    *ret = json_node_init_object(json_node_alloc(), json_object_new());
    return true;
}

bool qmp_blockdev_snapshot(const q_obj_blockdev_snapshot_arg *args,
                           JsonNode **ret, Error **errp)
{
    BlockBackend *blk = backend_of_top(NULL, args->node, NULL);
    BlockDriverState *overlay = bdrv_find_node(args->overlay);

    if (!blk) {
        blk = backend_of_top(args->node, NULL, errp);
        if (!blk) {
            return false;
        }
    }
    if (!overlay) {
        error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
                   args->overlay, args->overlay);
        return false;
    }
    if (blk_by_root(overlay)) {
        error_setg(errp, "The overlay is already in use");
        return false;
    }
    if (!blk_root(blk)) {
        error_setg(errp, "Device '%s' has no medium", blk_name(blk));
        return false;
    }
    if (!bdrv_set_backing(overlay, blk_root(blk), errp)) {
        return false;
    }
    if (!blk_insert_overlay(blk, overlay, errp)) {
        overlay->backing->parents--;
        overlay->backing = NULL;
        return false;
    }
    *ret = json_node_init_object(json_node_alloc(), json_object_new());
    return true;
}

bool qmp_blockdev_del(const q_obj_blockdev_del_arg *args, JsonNode **ret,
                      Error **errp)
{
    if (!bdrv_del(args->node_name, errp)) {
        return false;
    }
    *ret = json_node_init_object(json_node_alloc(), json_object_new());
    return true;
}

void blk_error_action(BlockBackend *blk, BlockErrorAction action,
                      bool is_read, int error)
{
    if (action == BLOCK_ERROR_ACTION_STOP) {
        blk_iostatus_set_err(blk, error);
    }
    qapi_event_send_block_io_error(blk_name(blk),
                                   blk_is_inserted(blk)
                                   ? blk_root(blk)->node_name : NULL,
                                   is_read ? IO_OPERATION_TYPE_READ
                                           : IO_OPERATION_TYPE_WRITE,
                                   action, blk_iostatus_is_enabled(blk),
                                   error == ENOSPC, g_strerror(error));
    if (action == BLOCK_ERROR_ACTION_STOP) {
        /* The STOP event follows, from the main loop. */
        qemu_system_vmstop_request(RUN_STATE_IO_ERROR);
    }
}

/* --- removable media: eject, the tray, blockdev-change-medium --- */

/* The event's id: the device's id, else its QOM path (as QEMU 7.2). */
static char *attached_dev_id(const BlockBackend *blk)
{
    DeviceState *dev = blk_attached_dev(blk);

    if (!dev) {
        return g_strdup("");
    }
    if (dev->id) {
        return g_strdup(dev->id);
    }
    return dev->obj ? object_get_canonical_path(dev->obj) : g_strdup("");
}

void blk_tray_moved_event(BlockBackend *blk, bool open)
{
    g_autofree char *id = attached_dev_id(blk);

    qapi_event_send_device_tray_moved(blk_name(blk), id, open);
}

static void change_media(BlockBackend *blk, bool load)
{
    if (blk_dev_change_media(blk, load)) {
        blk_tray_moved_event(blk, blk_dev_is_tray_open(blk));
    }
}

typedef struct FindDev {
    const char *id;
    BlockBackend *blk;
} FindDev;

static void find_by_dev(BlockBackend *blk, void *opaque)
{
    FindDev *f = opaque;
    DeviceState *dev = blk_attached_dev(blk);
    g_autofree char *path = NULL;

    if (f->blk || !dev) {
        return;
    }
    path = dev->obj ? object_get_canonical_path(dev->obj) : NULL;
    if ((dev->id && !strcmp(dev->id, f->id)) ||
        (path && !strcmp(path, f->id))) {
        f->blk = blk;
    }
}

/* device= (a drive's name) or id= (its device's id or QOM path). */
static BlockBackend *qmp_get_blk(const char *device, const char *id,
                                 Error **errp)
{
    BlockBackend *blk = NULL;

    if (!device == !id) {
        error_setg(errp, "Need exactly one of 'device' and 'id'");
        return NULL;
    }
    if (device) {
        FindUser f = { NULL, NULL, device };

        blk_foreach(find_named, &f);
        blk = f.blk;
    } else {
        FindDev f = { id, NULL };

        blk_foreach(find_by_dev, &f);
        blk = f.blk;
    }
    if (!blk) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND, "Device '%s' not found",
                  device ? device : id);
    }
    return blk;
}

/*
 * Open the tray: 0, or -EINPROGRESS when the guest holds it locked (it
 * was asked to let go), or -ENOTSUP for a device without one.
 */
static int open_tray(BlockBackend *blk, const char *name, bool force,
                     Error **errp)
{
    bool locked;

    if (!blk_dev_has_removable_media(blk)) {
        error_setg(errp, "Device '%s' is not removable", name);
        return -ENOTSUP;
    }
    if (!blk_attached_dev(blk) || blk_dev_is_tray_open(blk)) {
        return 0;
    }
    locked = blk_dev_is_medium_locked(blk);
    if (locked) {
        blk_dev_eject_request(blk, force);
    }
    if (!locked || force) {
        change_media(blk, false);
        return 0;
    }
    error_setg(errp, "Device '%s' is locked and force was not specified, "
               "wait for tray to open and try again", name);
    return -EINPROGRESS;
}

static bool remove_medium(BlockBackend *blk, const char *name, Error **errp)
{
    if (blk_attached_dev(blk) && !blk_dev_has_removable_media(blk)) {
        error_setg(errp, "Device '%s' is not removable", name);
        return false;
    }
    if (blk_attached_dev(blk) && !blk_dev_is_tray_open(blk)) {
        error_setg(errp, "Tray of device '%s' is not open", name);
        return false;
    }
    blk_remove_bs(blk);
    return true;
}

static JsonNode *empty_reply(void)
{
    return json_node_init_object(json_node_alloc(), json_object_new());
}

bool qmp_eject(const q_obj_eject_arg *args, JsonNode **ret, Error **errp)
{
    const char *name = args->device ? args->device : args->id;
    BlockBackend *blk = qmp_get_blk(args->device, args->id, errp);

    if (!blk || open_tray(blk, name, args->has_force && args->force,
                          errp) < 0 ||
        !remove_medium(blk, name, errp)) {
        return false;
    }
    *ret = empty_reply();
    return true;
}

bool qmp_blockdev_open_tray(const q_obj_blockdev_open_tray_arg *args,
                            JsonNode **ret, Error **errp)
{
    const char *name = args->device ? args->device : args->id;
    BlockBackend *blk = qmp_get_blk(args->device, args->id, errp);
    Error *err = NULL;

    if (!blk) {
        return false;
    }
    /* A locked tray opens when the guest lets go: that is no error. */
    if (open_tray(blk, name, args->has_force && args->force, &err) ==
        -ENOTSUP) {
        error_propagate(errp, err);
        return false;
    }
    error_free(err);
    *ret = empty_reply();
    return true;
}

bool qmp_blockdev_close_tray(const q_obj_blockdev_close_tray_arg *args,
                             JsonNode **ret, Error **errp)
{
    const char *name = args->device ? args->device : args->id;
    BlockBackend *blk = qmp_get_blk(args->device, args->id, errp);

    if (!blk) {
        return false;
    }
    if (!blk_dev_has_removable_media(blk)) {
        error_setg(errp, "Device '%s' is not removable", name);
        return false;
    }
    if (blk_attached_dev(blk) && blk_dev_is_tray_open(blk)) {
        change_media(blk, true);
    }
    *ret = empty_reply();
    return true;
}

/* The new medium: its format given or probed, as -drive opens images. */
static BlockDriverState *open_medium(const char *filename, const char *fmt,
                                     bool read_only, Error **errp)
{
    BlockImageOptions o = {
        .filename = filename, .format = fmt, .read_only = read_only,
        .locking = true, .qcow2 = BLOCK_QCOW2_OPTIONS_DEFAULT,
    };

    if (fmt && strcmp(fmt, "raw") && strcmp(fmt, "qcow2")) {
        error_setg(errp, "Unknown driver '%s'", fmt);
        return NULL;
    }
    return bdrv_open_image(&o, errp);
}

bool qmp_blockdev_change_medium(const q_obj_blockdev_change_medium_arg *args,
                                JsonNode **ret, Error **errp)
{
    const char *name = args->device ? args->device : args->id;
    BlockBackend *blk = qmp_get_blk(args->device, args->id, errp);
    BlockdevChangeReadOnlyMode mode = args->has_read_only_mode
                                      ? args->read_only_mode
                                      : BLOCKDEV_CHANGE_READ_ONLY_MODE_RETAIN;
    bool read_only;
    BlockDriverState *bs;

    if (!blk) {
        return false;
    }
    read_only = mode == BLOCKDEV_CHANGE_READ_ONLY_MODE_READ_ONLY ||
                (mode == BLOCKDEV_CHANGE_READ_ONLY_MODE_RETAIN &&
                 blk_is_read_only(blk));
    bs = open_medium(args->filename, args->format, read_only, errp);
    if (!bs) {
        return false;
    }
    if (open_tray(blk, name, args->has_force && args->force, errp) < 0 ||
        !remove_medium(blk, name, errp)) {
        bdrv_remove(bs);
        return false;
    }
    blk_insert_bs(blk, bs);
    if (blk_attached_dev(blk)) {
        change_media(blk, true);
    }
    *ret = empty_reply();
    return true;
}
