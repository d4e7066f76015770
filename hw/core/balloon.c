/*
 * The machine's balloon slot (include/hw/balloon.h) and the QMP
 * commands that act through it, with QEMU 7.2's replies and errors.
 */
#include "hw/balloon.h"
#include "hw/boards.h"
#include "qapi/qapi-commands.h"

static const BalloonOps *balloon_ops;
static void *balloon_opaque;

static uint64_t machine_ram_size(void)
{
    MachineState *ms = machine_current();

    return ms ? ms->ram_size : 0;
}

bool machine_balloon_add(const BalloonOps *ops, void *opaque,
                         uint64_t *ram_size, Error **errp)
{
    if (balloon_ops) {
        error_setg(errp, "Only one balloon device is supported");
        return false;
    }
    balloon_ops = ops;
    balloon_opaque = opaque;
    *ram_size = machine_ram_size();
    return true;
}

void machine_balloon_remove(void *opaque)
{
    if (balloon_ops && balloon_opaque == opaque) {
        balloon_ops = NULL;
        balloon_opaque = NULL;
    }
}

static bool balloon_active(Error **errp)
{
    if (!balloon_ops) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_ACTIVE,
                  "No balloon device has been activated");
        return false;
    }
    return true;
}

bool qmp_balloon(const q_obj_balloon_arg *args, JsonNode **ret,
                 Error **errp)
{
    uint64_t ram = machine_ram_size();

    if (!balloon_active(errp)) {
        return false;
    }
    if (args->value <= 0) {
        error_setg(errp, "Parameter 'target' expects a size");
        return false;
    }
    balloon_ops->set_target(balloon_opaque, MIN((uint64_t)args->value, ram));
    return true;
}

bool qmp_query_balloon(JsonNode **ret, Error **errp)
{
    uint64_t ram = machine_ram_size(), given;
    JsonObject *o;

    if (!balloon_active(errp)) {
        return false;
    }
    given = balloon_ops->given(balloon_opaque);
    o = json_object_new();
    json_object_set_int_member(o, "actual", given < ram ? ram - given : 0);
    *ret = json_node_init_object(json_node_alloc(), o);
    json_object_unref(o);
    return true;
}
