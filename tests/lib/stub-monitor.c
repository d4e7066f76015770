/*
 * The monitor's view of the rest of the emulator, stubbed: one run
 * state, two machine types, one chardev, a few QOM types. Shared by
 * test-qmp-dispatch and the QMP fuzz target.
 */
#include <string.h>

#include "chardev/char.h"
#include "hw/boards.h"
#include "hw/bus.h"
#include "hw/qdev.h"
#include "monitor/monitor.h"
#include "qom/object.h"
#include "system/accel.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "system/system.h"
#include "stub-monitor.h"

RunState stub_runstate = RUN_STATE_RUNNING;
ShutdownCause stub_shutdown = SHUTDOWN_CAUSE_NONE;
ShutdownCause stub_reset = SHUTDOWN_CAUSE_NONE;
int stub_powerdowns;
char *stub_set_value;
CharBackend *stub_be;        /* the last frontend attached */
GString *stub_chr_out;       /* what frontends wrote */

const char *qemu_name;
bool qemu_uuid_set;
uint8_t qemu_uuid[16];

const char *runstate_name(RunState state)
{
    static const char *const names[] = {
        [RUN_STATE_PRELAUNCH] = "prelaunch",
        [RUN_STATE_RUNNING] = "running",
        [RUN_STATE_PAUSED] = "paused",
        [RUN_STATE_INTERNAL_ERROR] = "internal-error",
        [RUN_STATE_GUEST_PANICKED] = "guest-panicked",
        [RUN_STATE_SHUTDOWN] = "shutdown",
    };

    return names[state];
}

RunState runstate_get(void)
{
    return stub_runstate;
}

RunStateActions runstate_actions;

bool runstate_is_running(void)
{
    return stub_runstate == RUN_STATE_RUNNING;
}

void vm_stop(RunState state)
{
    if (stub_runstate == RUN_STATE_RUNNING) {
        stub_runstate = state;
        qmp_event_send("STOP", NULL);
    }
}

void runstate_set_autostart(bool on)
{
}

bool runstate_activate_images(Error **errp)
{
    return true;
}

void vm_start(void)
{
    if (stub_runstate != RUN_STATE_RUNNING) {
        qmp_event_send("RESUME", NULL);
        stub_runstate = RUN_STATE_RUNNING;
    }
}

void qemu_system_shutdown_request(ShutdownCause cause, int exit_status)
{
    stub_shutdown = cause;
}

ShutdownCause qemu_shutdown_requested(void)
{
    return stub_shutdown;
}

void qemu_system_reset_request(ShutdownCause cause)
{
    stub_reset = cause;
}

void qemu_system_powerdown_request(void)
{
    stub_powerdowns++;
}

bool accel_is_current(const char *name)
{
    return false;
}

static const MachineClass stub_pc = {
    .name = "pc-i440fx-7.2", .alias = "pc", .is_default = true,
    .max_cpus = 255, .default_ram_id = "pc.ram",
};
static const MachineClass stub_none = {
    .name = "none", .max_cpus = 1, .default_ram_id = "ram",
};

void machine_foreach(void (*fn)(const MachineClass *mc, void *opaque),
                     void *opaque)
{
    fn(&stub_pc, opaque);
    fn(&stub_none, opaque);
}

MachineState *machine_current(void)
{
    static MachineState ms = { .mc = &stub_pc, .ram_size = 128 << 20 };

    return &ms;
}

/* Chardevs: one, "serial0" on null; frontends write to stub_chr_out. */
void qemu_chr_foreach(void (*fn)(Chardev *chr, void *opaque), void *opaque)
{
    fn((Chardev *)&stub_chr_out, opaque);
}

const char *qemu_chr_get_id(const Chardev *chr)
{
    return "serial0";
}

char *qemu_chr_get_filename(const Chardev *chr)
{
    return g_strdup("null");
}

bool qemu_chr_is_connected(const Chardev *chr)
{
    return true;
}

bool qemu_chr_fe_init(CharBackend *be, Chardev *chr, Error **errp)
{
    memset(be, 0, sizeof(*be));
    be->chr = chr;
    return true;
}

void qemu_chr_fe_deinit(CharBackend *be)
{
    be->chr = NULL;
}

void qemu_chr_fe_set_handlers(CharBackend *be, IOCanReadHandler can_read,
                              IOReadHandler read, IOEventHandler event,
                              void *opaque)
{
    be->can_read = can_read;
    be->read = read;
    be->event = event;
    be->opaque = opaque;
    stub_be = be;
}

int qemu_chr_fe_write(CharBackend *be, const uint8_t *buf, int len)
{
    g_string_append_len(stub_chr_out, (const char *)buf, len);
    return len;
}

void qemu_chr_fe_set_output_limit(CharBackend *be, size_t limit)
{
}

/* The tree: "/machine" with one property "type"; "ambig" is ambiguous. */
static Object stub_machine = { .name = (char *)"machine" };

Object *object_resolve_path(const char *path, bool *ambiguous)
{
    if (ambiguous) {
        *ambiguous = !strcmp(path, "ambig");
    }
    return !strcmp(path, "/machine") ? &stub_machine : NULL;
}

static void prop_info_free(gpointer p)
{
    ObjectPropertyDesc *info = p;

    g_free(info->type);
    g_free(info);
}

GPtrArray *object_property_list(Object *obj)
{
    GPtrArray *list = g_ptr_array_new_with_free_func(prop_info_free);
    ObjectPropertyDesc *info = g_new0(ObjectPropertyDesc, 1);

    info->name = "type";
    info->type = g_strdup("string");
    g_ptr_array_add(list, info);
    return list;
}

JsonNode *object_property_get(Object *obj, const char *name, Error **errp)
{
    if (strcmp(name, "type")) {
        error_setg(errp, "Property '%s' not found", name);
        return NULL;
    }
    return json_node_init_string(json_node_alloc(), "pc-i440fx-7.2-machine");
}

bool object_property_set(Object *obj, const char *name, JsonNode *value,
                         Error **errp)
{
    GString *s = g_string_new(name);

    g_string_append_c(s, '=');
    qmp_json_append(s, value, false);
    g_free(stub_set_value);
    stub_set_value = g_string_free(s, FALSE);
    return true;
}

/* The types: device <- isa-device <- isa-serial, and container. */
static const struct {
    const char *name, *parent;
    bool abstract;
} stub_types[] = {
    { "device", NULL, true },
    { "isa-device", "device", true },
    { "isa-serial", "isa-device", false },
    { "container", NULL, false },
};

static const Property stub_serial_props[] = {
    { .name = "chardev", .type = PROP_TYPE_CHR },
    { .name = "index", .type = PROP_TYPE_UINT32, .defval = 0 },
    PROP_END,
};

bool type_exists(const char *name, bool *abstract)
{
    for (size_t i = 0; i < G_N_ELEMENTS(stub_types); i++) {
        if (!strcmp(stub_types[i].name, name)) {
            if (abstract) {
                *abstract = stub_types[i].abstract;
            }
            return true;
        }
    }
    return false;
}

bool type_is_a(const char *name, const char *ancestor)
{
    while (name) {
        const char *parent = NULL;

        if (!strcmp(name, ancestor)) {
            return true;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(stub_types); i++) {
            if (!strcmp(stub_types[i].name, name)) {
                parent = stub_types[i].parent;
            }
        }
        name = parent;
    }
    return false;
}

void type_property_foreach(const char *name,
                           void (*fn)(const Property *p, void *opaque),
                           void *opaque)
{
    if (!strcmp(name, "isa-serial")) {
        for (const Property *p = stub_serial_props; p->name; p++) {
            fn(p, opaque);
        }
    }
}

const char *prop_type_name(PropType type)
{
    return type == PROP_TYPE_UINT32 ? "uint32" : "str";
}

void type_foreach(void (*fn)(const char *name, const char *parent,
                             bool abstract, void *opaque), void *opaque)
{
    for (size_t i = 0; i < G_N_ELEMENTS(stub_types); i++) {
        fn(stub_types[i].name, stub_types[i].parent, stub_types[i].abstract,
           opaque);
    }
}

void memory_info_mtree(GString *out)
{
    g_string_append(out, "address-space: memory\n");
}

bool vcpus_inject_nmi(Error **errp)
{
    error_setg(errp, "this feature or command is not currently supported");
    return false;
}

/* The root bus, with no devices on it: they hang off no bus here. */
BusState *qbus_main_system_bus(void)
{
    static GPtrArray none;
    static BusState bus = {
        .name = (char *)"main-system-bus", .type = "System",
        .children = &none,
    };

    return &bus;
}

void qbus_foreach_child_bus(DeviceState *dev,
                            void (*fn)(BusState *bus, void *opaque),
                            void *opaque)
{
}

void qdev_foreach(void (*fn)(DeviceState *dev, void *opaque), void *opaque)
{
    static const DeviceClass dc = { .name = "isa-serial" };
    static DeviceState dev = { .dc = &dc, .id = (char *)"ser0" };

    fn(&dev, opaque);
}
