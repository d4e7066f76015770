/*
 * QMP query-block: each backend (a -drive, or a -blockdev node a device
 * took) in QEMU 7.2's shape. It lives with the devices because it names
 * the device a backend is attached to.
 */
#include <sys/stat.h>

#include "block/block.h"
#include "qapi/qapi-commands.h"
#include "hw/qdev.h"
#include "monitor/monitor.h"
#include "qom/object.h"

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
    return o;
}

static JsonObject *inserted_info(const BlockDriverState *bs)
{
    static const char *const zero_limits[] = {
        "bps", "bps_rd", "bps_wr", "iops", "iops_rd", "iops_wr",
        "write_threshold", "backing_file_depth",
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
    json_object_set_string_member(o, "detect_zeroes", "off");
    for (size_t i = 0; i < G_N_ELEMENTS(zero_limits); i++) {
        json_object_set_int_member(o, zero_limits[i], 0);
    }
    json_object_set_boolean_member(cache, "writeback", !bs->writethrough);
    json_object_set_boolean_member(cache, "direct", direct);
    json_object_set_boolean_member(cache, "no-flush", no_flush);
    json_object_set_object_member(o, "cache", cache);
    json_object_set_object_member(o, "image", image_info(bs));
    return o;
}

static void add_backend(BlockBackend *blk, void *opaque)
{
    JsonObject *o = json_object_new();
    DeviceState *dev = blk_attached_dev(blk);

    json_object_set_string_member(o, "device", blk_name(blk));
    if (dev && dev->obj) {
        char *path = object_get_canonical_path(dev->obj);

        json_object_set_string_member(o, "qdev", path);
        g_free(path);
    }
    json_object_set_boolean_member(o, "locked", false);
    json_object_set_boolean_member(o, "removable", false);
    json_object_set_string_member(o, "type", "unknown");
    json_object_set_string_member(o, "io-status", "ok");
    json_object_set_object_member(o, "inserted",
                                  inserted_info(blk_root(blk)));
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

