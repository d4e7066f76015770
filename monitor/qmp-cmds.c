/*
 * The QMP commands. Each takes its "arguments" object (already checked
 * against its QmpArg list) and builds the reply QEMU 7.2 gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chardev/char.h"
#include "config-host.h"
#include "system/accel.h"
#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"
#include "qom/object.h"
#include "system/cpus.h"
#include "system/hostmem.h"
#include "system/os-posix.h"
#include "system/runstate.h"
#include "system/seccomp.h"
#include "system/system.h"


static JsonNode *node_from_object(JsonObject *obj)
{
    JsonNode *node = json_node_init_object(json_node_alloc(), obj);

    json_object_unref(obj);
    return node;
}

static JsonNode *node_from_array(JsonArray *arr)
{
    JsonNode *node = json_node_init_array(json_node_alloc(), arr);

    json_array_unref(arr);
    return node;
}

bool qmp_query_version(JsonNode **ret, Error **errp)
{
    JsonObject *qemu = json_object_new();
    JsonObject *info = json_object_new();
    unsigned major = 0, minor = 0, micro = 0;

    sscanf(QEMU_VERSION, "%u.%u.%u", &major, &minor, &micro);
    json_object_set_int_member(qemu, "micro", micro);
    json_object_set_int_member(qemu, "minor", minor);
    json_object_set_int_member(qemu, "major", major);
    json_object_set_object_member(info, "qemu", qemu);
    json_object_set_string_member(info, "package", PACKAGE_STRING);
    *ret = node_from_object(info);
    return true;
}

/* {"name": NAME}, for query-commands and query-events */
static void add_command_name(const char *name, void *opaque)
{
    JsonObject *cmd = json_object_new();

    json_object_set_string_member(cmd, "name", name);
    json_array_add_object_element(opaque, cmd);
}

bool qmp_query_commands(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    qmp_command_foreach(add_command_name, list);
    *ret = node_from_array(list);
    return true;
}

bool qmp_query_events(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    for (const char *const *name = qapi_event_names; *name; name++) {
        add_command_name(*name, list);
    }
    *ret = node_from_array(list);
    return true;
}

/* Built once: the schema does not change while the process runs. */
bool qmp_query_qmp_schema(JsonNode **ret, Error **errp)
{
    static JsonNode *schema;

    if (!schema) {
        schema = qapi_introspect();
    }
    *ret = json_node_copy(schema);
    return true;
}

bool qmp_query_status(JsonNode **ret, Error **errp)
{
    JsonObject *info = json_object_new();

    json_object_set_string_member(info, "status",
                                  runstate_name(runstate_get()));
    json_object_set_boolean_member(info, "singlestep", false);
    json_object_set_boolean_member(info, "running", runstate_is_running());
    *ret = node_from_object(info);
    return true;
}

bool qmp_query_name(JsonNode **ret, Error **errp)
{
    JsonObject *info = json_object_new();

    if (qemu_name) {
        json_object_set_string_member(info, "name", qemu_name);
    }
    *ret = node_from_object(info);
    return true;
}

bool qmp_query_uuid(JsonNode **ret, Error **errp)
{
    JsonObject *info = json_object_new();
    const uint8_t *u = qemu_uuid;
    char buf[37];

    /* qemu_uuid stays all zeros without -uuid, which QEMU shows as is. */
    snprintf(buf, sizeof(buf),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
             u[10], u[11], u[12], u[13], u[14], u[15]);
    json_object_set_string_member(info, "UUID", buf);
    *ret = node_from_object(info);
    return true;
}

bool qmp_query_kvm(JsonNode **ret, Error **errp)
{
    JsonObject *info = json_object_new();
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

    if (fd >= 0) {
        close(fd);
    }
    json_object_set_boolean_member(info, "enabled", accel_is_current("kvm"));
    json_object_set_boolean_member(info, "present", fd >= 0);
    *ret = node_from_object(info);
    return true;
}

bool qmp_query_target(JsonNode **ret, Error **errp)
{
    JsonObject *info = json_object_new();

    json_object_set_string_member(info, "arch", "x86_64");
    *ret = node_from_object(info);
    return true;
}

static void add_chardev(Chardev *chr, void *opaque)
{
    JsonObject *c = json_object_new();
    char *filename = qemu_chr_get_filename(chr);
    const char *label = qemu_chr_get_id(chr);

    json_object_set_string_member(c, "label", label ? label : "");
    json_object_set_string_member(c, "filename", filename ? filename : "");
    json_object_set_boolean_member(c, "frontend-open",
                                   qemu_chr_is_connected(chr));
    json_array_add_object_element(opaque, c);
    g_free(filename);
}

bool qmp_query_chardev(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    qemu_chr_foreach(add_chardev, list);
    *ret = node_from_array(list);
    return true;
}

/* Under qtest there are no vCPUs, so the list is empty. */
bool qmp_query_cpus_fast(JsonNode **ret, Error **errp)
{
    *ret = node_from_array(cpus_query_fast());
    return true;
}

/*
 * Ours, beside QEMU's members: what the teardown will do with the
 * backend (docs/memory.md) and the page cache its file holds now.
 */
static void add_memdev_teardown(JsonObject *m, const RAMBlock *rb)
{
    RamTeardownInfo info;
    OsCacheStat cs;
    int err;

    ram_block_teardown_info(rb, &info);
    json_object_set_string_member(m, "backing", info.backing);
    json_object_set_string_member(m, "teardown", info.action);
    if (info.method) {
        json_object_set_string_member(m, "teardown-method", info.method);
    }
    if (info.reason) {
        json_object_set_string_member(m, "teardown-reason", info.reason);
    }
    if (rb->fd < 0) {
        return;                 /* anonymous memory has no page cache */
    }
    err = os_cachestat(rb->fd, &cs);
    if (err == 0) {
        JsonObject *pc = json_object_new();

        json_object_set_int_member(pc, "resident", (gint64)cs.resident);
        json_object_set_int_member(pc, "dirty", (gint64)cs.dirty);
        json_object_set_int_member(pc, "writeback", (gint64)cs.writeback);
        json_object_set_object_member(m, "page-cache", pc);
    } else if (err == -ENOSYS) {
        json_object_set_string_member(m, "page-cache-error",
                                      "this kernel lacks cachestat(2) "
                                      "(Linux 6.5 or later has it)");
    } else {
        char *msg = g_strdup_printf("cachestat(2): %s", g_strerror(-err));

        json_object_set_string_member(m, "page-cache-error", msg);
        g_free(msg);
    }
}

/* QEMU's Memdev: host-nodes and policy as a build without NUMA has them. */
static void add_memdev(HostMemoryBackend *be, void *opaque)
{
    JsonObject *m = json_object_new();

    json_object_set_string_member(m, "id", be->id);
    json_object_set_int_member(m, "size", (gint64)be->size);
    json_object_set_boolean_member(m, "merge", be->merge);
    json_object_set_boolean_member(m, "dump", be->dump);
    json_object_set_boolean_member(m, "prealloc", be->prealloc);
    json_object_set_boolean_member(m, "share", be->share);
    json_object_set_boolean_member(m, "reserve", be->reserve);
    json_object_set_array_member(m, "host-nodes", json_array_new());
    json_object_set_string_member(m, "policy", be->policy);
    if (be->ram) {
        add_memdev_teardown(m, be->ram);
    }
    json_array_add_object_element(opaque, m);
}

bool qmp_query_memdev(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();

    host_memory_backend_foreach(add_memdev, list);
    *ret = node_from_array(list);
    return true;
}

bool qmp_query_current_machine(JsonNode **ret, Error **errp)
{
    JsonObject *info = json_object_new();

    json_object_set_boolean_member(info, "wakeup-suspend-support", false);
    *ret = node_from_object(info);
    return true;
}

bool qmp_stop(JsonNode **ret, Error **errp)
{
    vm_stop(RUN_STATE_PAUSED);
    return true;
}

bool qmp_cont(JsonNode **ret, Error **errp)
{
    RunState state = runstate_get();

    /* QEMU's runstate_needs_reset(). */
    if (state == RUN_STATE_INTERNAL_ERROR || state == RUN_STATE_SHUTDOWN) {
        error_setg(errp, "Resetting the Virtual Machine is required");
        return false;
    }
    if (state == RUN_STATE_INMIGRATE) {
        /* As QEMU: run once the incoming state is loaded. */
        runstate_set_autostart(true);
        return true;
    }
    /* After a migration (or one whose locks could not be taken back). */
    if (!runstate_activate_images(errp)) {
        return false;
    }
    vm_start();
    return true;
}

/* -action applies its values through this handler too. */
bool qmp_set_action(const q_obj_set_action_arg *args, JsonNode **ret,
                    Error **errp)
{
    if (args->has_reboot) {
        runstate_actions.reboot = args->reboot;
    }
    if (args->has_shutdown) {
        runstate_actions.shutdown = args->shutdown;
    }
    if (args->has_panic) {
        runstate_actions.panic = args->panic;
    }
    if (args->has_watchdog) {
        runstate_actions.watchdog = args->watchdog;
    }
    return true;
}

bool qmp_system_reset(JsonNode **ret, Error **errp)
{
    qemu_system_reset_request(SHUTDOWN_CAUSE_HOST_QMP_SYSTEM_RESET);
    return true;
}

bool qmp_system_powerdown(JsonNode **ret, Error **errp)
{
    qemu_system_powerdown_request();
    return true;
}

bool qmp_inject_nmi(JsonNode **ret, Error **errp)
{
    return vcpus_inject_nmi(errp);
}

/*
 * Only a request: the reply goes out now, the main loop ends the process
 * (and emits SHUTDOWN) afterwards.
 */
bool qmp_quit(JsonNode **ret, Error **errp)
{
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_QMP_QUIT, 0);
    return true;
}

bool qmp_human_monitor_command(const q_obj_human_monitor_command_arg *args,
                               JsonNode **ret, Error **errp)
{
    char *out = hmp_run_command(
        args->command_line, errp);

    if (!out) {
        return false;
    }
    *ret = json_node_init_string(json_node_alloc(), out);
    g_free(out);
    return true;
}

typedef struct CpuListing {
    JsonArray *list;
} CpuListing;

/* The CPU models are the types under x86_64-cpu, "MODEL-x86_64-cpu". */
static void add_cpu_definition(const char *name, const char *parent,
                               bool abstract, void *opaque)
{
    CpuListing *cl = opaque;
    JsonObject *d;
    JsonArray *unavailable = json_array_new();
    char *model;

    if (abstract || !parent || strcmp(parent, "x86_64-cpu") ||
        !g_str_has_suffix(name, "-x86_64-cpu")) {
        json_array_unref(unavailable);
        return;
    }
    model = g_strndup(name, strlen(name) - strlen("-x86_64-cpu"));
    /* QEMU's answer for "host" without KVM. */
    if (!strcmp(model, "host") && !accel_is_current("kvm")) {
        json_array_add_string_element(unavailable, "kvm");
    }
    d = json_object_new();
    json_object_set_string_member(d, "name", model);
    json_object_set_string_member(d, "typename", name);
    json_object_set_array_member(d, "unavailable-features", unavailable);
    json_object_set_boolean_member(d, "static", false);
    json_object_set_boolean_member(d, "migration-safe",
                                   !strcmp(model, "qemu64"));
    json_object_set_boolean_member(d, "deprecated", false);
    json_array_add_object_element(cl->list, d);
    g_free(model);
}

bool qmp_query_cpu_definitions(JsonNode **ret, Error **errp)
{
    CpuListing cl = { .list = json_array_new() };

    type_foreach(add_cpu_definition, &cl);
    *ret = node_from_array(cl.list);
    return true;
}

/*
 * The options whose parameters are listed: those libvirt decides by.
 * -sandbox only where this build can install the filter, so libvirt
 * asks for one only where it works.
 */
static JsonObject *option_info(const char *name, const QemuOptDesc *desc)
{
    static const char *const types[] = {
        [QEMU_OPT_STRING] = "string",
        [QEMU_OPT_BOOL] = "boolean",
        [QEMU_OPT_NUMBER] = "number",
        [QEMU_OPT_SIZE] = "size",
    };
    JsonObject *o = json_object_new();
    JsonArray *params = json_array_new();

    for (; desc->name; desc++) {
        JsonObject *p = json_object_new();

        json_object_set_string_member(p, "name", desc->name);
        json_object_set_string_member(p, "type", types[desc->type]);
        json_array_add_object_element(params, p);
    }
    json_object_set_array_member(o, "parameters", params);
    json_object_set_string_member(o, "option", name);
    return o;
}

bool qmp_query_command_line_options(
    const q_obj_query_command_line_options_arg *args, JsonNode **ret,
    Error **errp)
{
    JsonArray *list = json_array_new();

    if (seccomp_available() &&
        (!args->option || !strcmp(args->option, "sandbox"))) {
        json_array_add_object_element(list,
                                      option_info("sandbox", sandbox_opts));
    }
    if (args->option && !json_array_get_length(list)) {
        json_array_unref(list);
        error_setg(errp, "invalid option name: %s", args->option);
        return false;
    }
    *ret = node_from_array(list);
    return true;
}

bool qmp_query_tpm_models(JsonNode **ret, Error **errp)
{
    *ret = node_from_array(json_array_new());
    return true;
}

bool qmp_query_tpm_types(JsonNode **ret, Error **errp)
{
    *ret = node_from_array(json_array_new());
    return true;
}

bool qmp_query_jobs(JsonNode **ret, Error **errp)
{
    *ret = node_from_array(json_array_new());
    return true;
}
