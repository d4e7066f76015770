/*
 * The rest of the emulator as the QMP dispatcher test sees it: no memory
 * backends, no vCPUs.
 */
#include <string.h>

#include <glib.h>

#include "chardev/char.h"
#include "system/cpus.h"
#include "system/hostmem.h"
#include "system/os-posix.h"
#include "system/rng.h"
#include "system/seccomp.h"
#include "system/secret.h"
#include "qom/object.h"
#include "system/vm-config.h"
#include "qapi/qapi-commands.h"

void host_memory_backend_foreach(void (*fn)(HostMemoryBackend *be,
                                            void *opaque), void *opaque)
{
}

/* Never called with no backends; here for the linker. */
void ram_block_teardown_info(const RAMBlock *rb, RamTeardownInfo *info)
{
    g_assert_not_reached();
}

int os_cachestat(int fd, OsCacheStat *cs)
{
    g_assert_not_reached();
}

JsonArray *cpus_query_fast(void)
{
    return json_array_new();
}

/* No chardev here sends descriptors. */
int qemu_chr_fe_get_msgfd(CharBackend *be)
{
    return -1;
}

bool vcpus_dump(int index, GString *out)
{
    return false;
}

/* A build with libseccomp: -sandbox is listed. */
const QemuOptDesc sandbox_opts[] = {
    { "enable", QEMU_OPT_BOOL },
    { "spawn", QEMU_OPT_STRING },
    { NULL },
};

bool seccomp_available(void)
{
    return true;
}

/* object-add and object-del: secrets are taken, backends refused. */
QemuOpts *qemu_opts_from_json_object(JsonObject *obj, Error **errp)
{
    return qemu_opts_new();
}

bool secret_create(const QemuOpts *opts, Error **errp)
{
    return true;
}

bool secret_delete(const char *id)
{
    return !strcmp(id, "k0");
}

HostMemoryBackend *host_memory_backend_create(const QemuOpts *opts,
                                              const HostMemoryDefaults *d,
                                              Error **errp)
{
    error_setg(errp, "no memory here");
    return NULL;
}

bool host_memory_backend_delete(const char *id, Error **errp)
{
    return false;
}

bool rng_backend_create(const QemuOpts *opts, Error **errp)
{
    error_setg(errp, "no rng backends in this test");
    return false;
}

bool rng_backend_delete(const char *id, Error **errp)
{
    return false;
}

/* No PCI bus and no drives: the handlers of hw/ answer empty lists. */
static JsonNode *empty_list(void)
{
    JsonArray *a = json_array_new();
    JsonNode *n = json_node_init_array(json_node_alloc(), a);

    json_array_unref(a);
    return n;
}

bool qmp_query_pci(JsonNode **ret, Error **errp)
{
    *ret = empty_list();
    return true;
}

/* fuzz-qmp links the real one (target/i386/cpu-model.c). */
#ifdef STUB_QMP_REAL_CPU_MODEL
/* cpu-model.c registers the CPU models' QOM types: no type tree here. */
void type_register(const char *name, const char *parent, bool abstract)
{
}

void type_set_properties(const char *name, const Property *props)
{
}

const char *const vm_cpu_models[] = { "host", "max", "qemu64", NULL };
#endif

#ifndef STUB_QMP_REAL_CPU_MODEL
bool qmp_query_cpu_model_expansion(
    const q_obj_query_cpu_model_expansion_arg *args, JsonNode **ret,
    Error **errp)
{
    error_setg(errp, "CPU model '%s' not found", args->model->name);
    return false;
}
#endif

bool qmp_query_block(JsonNode **ret, Error **errp)
{
    *ret = empty_list();
    return true;
}

bool qmp_query_named_block_nodes(
    const q_obj_query_named_block_nodes_arg *args, JsonNode **ret,
    Error **errp)
{
    *ret = empty_list();
    return true;
}

bool qmp_query_blockstats(const q_obj_query_blockstats_arg *args,
                          JsonNode **ret, Error **errp)
{
    *ret = empty_list();
    return true;
}

bool qmp_block_resize(const q_obj_block_resize_arg *args, JsonNode **ret,
                      Error **errp)
{
    error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
               args->device ? args->device : "",
               args->node_name ? args->node_name : "");
    return false;
}

bool qmp_blockdev_add(const BlockdevOptions *args, JsonNode **ret,
                      Error **errp)
{
    error_setg(errp, "Unknown driver '%s'", args->driver);
    return false;
}

bool qmp_blockdev_del(const q_obj_blockdev_del_arg *args, JsonNode **ret,
                      Error **errp)
{
    error_setg(errp, "Failed to find node with node-name='%s'",
               args->node_name);
    return false;
}

bool qmp_blockdev_snapshot_sync(const q_obj_blockdev_snapshot_sync_arg *args,
                                JsonNode **ret, Error **errp)
{
    error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
               args->device ? args->device : "",
               args->node_name ? args->node_name : "");
    return false;
}

bool qmp_blockdev_snapshot(const q_obj_blockdev_snapshot_arg *args,
                           JsonNode **ret, Error **errp)
{
    error_setg(errp, "Cannot find device='%s' nor node-name='%s'",
               args->node, args->node);
    return false;
}

/* No drives here: every removable-media command finds none. */
static bool no_drive(const char *device, const char *id, Error **errp)
{
    if (!device == !id) {
        error_setg(errp, "Need exactly one of 'device' and 'id'");
    } else {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                  "Device '%s' not found", device ? device : id);
    }
    return false;
}

bool qmp_eject(const q_obj_eject_arg *args, JsonNode **ret, Error **errp)
{
    return no_drive(args->device, args->id, errp);
}

bool qmp_blockdev_open_tray(const q_obj_blockdev_open_tray_arg *args,
                            JsonNode **ret, Error **errp)
{
    return no_drive(args->device, args->id, errp);
}

bool qmp_blockdev_close_tray(const q_obj_blockdev_close_tray_arg *args,
                             JsonNode **ret, Error **errp)
{
    return no_drive(args->device, args->id, errp);
}

bool qmp_blockdev_change_medium(const q_obj_blockdev_change_medium_arg *args,
                                JsonNode **ret, Error **errp)
{
    return no_drive(args->device, args->id, errp);
}

/*
 * Migration lives in migration/migration.c, which this test does not
 * link; its commands are tested by tests/functional/test-migration.c.
 */
static bool no_migration(Error **errp)
{
    error_setg(errp, "migration is not linked into this test");
    return false;
}

bool qmp_migrate(const q_obj_migrate_arg *args, JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_migrate_incoming(const q_obj_migrate_incoming_arg *args,
                          JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_migrate_cancel(JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_migrate_start_postcopy(JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_migrate_continue(const q_obj_migrate_continue_arg *args,
                          JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_query_migrate(JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_query_migrate_capabilities(JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_migrate_set_capabilities(
    const q_obj_migrate_set_capabilities_arg *args, JsonNode **ret,
    Error **errp)
{
    return no_migration(errp);
}

bool qmp_query_migrate_parameters(JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_migrate_set_parameters(const q_obj_migrate_set_parameters_arg *args,
                                JsonNode **ret, Error **errp)
{
    return no_migration(errp);
}

bool qmp_balloon(const q_obj_balloon_arg *args, JsonNode **ret, Error **errp)
{
    error_set(errp, ERROR_CLASS_DEVICE_NOT_ACTIVE,
              "No balloon device has been activated");
    return false;
}

bool qmp_query_balloon(JsonNode **ret, Error **errp)
{
    error_set(errp, ERROR_CLASS_DEVICE_NOT_ACTIVE,
              "No balloon device has been activated");
    return false;
}

bool qmp_set_link(const q_obj_set_link_arg *args, JsonNode **ret,
                  Error **errp)
{
    error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND, "Device '%s' not found",
              args->name);
    return false;
}

bool qmp_query_rx_filter(const q_obj_query_rx_filter_arg *args,
                         JsonNode **ret, Error **errp)
{
    *ret = empty_list();
    return true;
}
