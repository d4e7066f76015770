/*
 * The QMP commands about machine types and the machine being run:
 * query-machines and query-memory-size-summary.
 */
#include <string.h>

#include "hw/boards.h"
#include "qapi/qapi-commands.h"

static void add_machine(const MachineClass *mc, void *opaque)
{
    JsonObject *m = json_object_new();

    /* alias and is-default only when set, as QEMU's optional members. */
    json_object_set_string_member(m, "name", mc->name);
    if (mc->alias) {
        json_object_set_string_member(m, "alias", mc->alias);
    }
    if (mc->is_default) {
        json_object_set_boolean_member(m, "is-default", true);
    }
    json_object_set_int_member(m, "cpu-max", mc->max_cpus);
    json_object_set_boolean_member(m, "hotpluggable-cpus", false);
    json_object_set_boolean_member(m, "numa-mem-supported", false);
    json_object_set_boolean_member(m, "deprecated", false);
    json_object_set_string_member(m, "default-cpu-type", "qemu64-x86_64-cpu");
    json_object_set_string_member(m, "default-ram-id", mc->default_ram_id);
    json_object_set_boolean_member(m, "acpi", false);
    json_array_add_object_element(opaque, m);
}

bool qmp_query_machines(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    machine_foreach(add_machine, list);
    *ret = json_node_init_array(json_node_alloc(), list);
    json_array_unref(list);
    return true;
}

bool qmp_query_memory_size_summary(JsonNode **ret, Error **errp)
{
    MachineState *ms = machine_current();
    JsonObject *info = json_object_new();

    json_object_set_int_member(info, "base-memory", ms ? ms->ram_size : 0);
    /* QEMU has a device-memory region, hence this member, with maxmem. */
    if (ms && ms->cfg && ms->cfg->memory.maxmem > ms->ram_size) {
        json_object_set_int_member(info, "plugged-memory", 0);
    }
    *ret = json_node_init_object(json_node_alloc(), info);
    json_object_unref(info);
    return true;
}
