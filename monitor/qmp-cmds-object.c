/*
 * object-add and object-del: the objects -object makes (secrets, memory
 * and entropy backends), at run time. object-add's arguments arrive
 * checked against the schema's ObjectOptions; they are turned back into
 * the option form the object code takes.
 */
#include <string.h>

#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"
#include "qom/object.h"
#include "system/hostmem.h"
#include "system/rng.h"
#include "system/secret.h"
#include "system/vm-config.h"

bool qmp_object_add(const ObjectOptions *args, JsonNode **ret, Error **errp)
{
    /* -object's defaults for what -machine does not say at run time. */
    static const HostMemoryDefaults defaults = { .merge = true,
                                                 .dump = true };
    JsonNode *node = qapi_out_ObjectOptions(args);
    QemuOpts *opts = qemu_opts_from_json_object(json_node_get_object(node),
                                                errp);
    char *path = g_strdup_printf("/objects/%s", args->id);
    bool ok = false;

    json_node_unref(node);
    if (!opts) {
        goto out;
    }
    if (object_resolve_path(path, NULL)) {
        error_setg(errp, "attempt to add duplicate property '%s' to object "
                   "(type 'container')", args->id);
    } else if (args->qom_type == OBJECT_TYPE_SECRET) {
        ok = secret_create(opts, errp);
    } else if (args->qom_type == OBJECT_TYPE_RNG_BUILTIN ||
               args->qom_type == OBJECT_TYPE_RNG_RANDOM) {
        ok = rng_backend_create(opts, errp);
    } else {
        ok = host_memory_backend_create(opts, &defaults, errp) != NULL;
    }
out:
    qemu_opts_free(opts);
    g_free(path);
    return ok;
}

bool qmp_object_del(const q_obj_object_del_arg *args, JsonNode **ret,
                    Error **errp)
{
    Error *err = NULL;

    if (secret_delete(args->id)) {
        return true;
    }
    if (host_memory_backend_delete(args->id, &err) ||
        rng_backend_delete(args->id, &err)) {
        error_propagate(errp, err);
        return err == NULL;
    }
    error_setg(errp, "object '%s' not found", args->id);
    return false;
}
