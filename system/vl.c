/*
 * The emulator's life: parse the command line, build the VM, run the
 * main loop, tear everything down. The order of the build is visible in
 * qemu_init() and its mirror in qemu_cleanup().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "hw/boards.h"
#include "block/block.h"
#include "block/blockdev.h"
#include "hw/qdev.h"
#include "migration/migration.h"
#include "monitor/monitor.h"
#include "net/net.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "system/qtest.h"
#include "qemu/error.h"
#include "qemu/log.h"
#include "qemu/option.h"
#include "system/accel.h"
#include "system/cmdline.h"
#include "system/hostmem.h"
#include "system/main-loop.h"
#include "system/os-posix.h"
#include "system/runstate.h"
#include "qemu/fdset.h"
#include "system/seccomp.h"
#include "system/secret.h"
#include "system/rng.h"
#include "system/system.h"
#include "system/vl.h"
#include "system/vm-config.h"
#include "target/i386/cpu-model.h"

static VmConfig config;
static MachineState current_machine;
static bool machine_built;

static bool main_loop_ready;

/* Check what depends on several options at once. */
static const MachineClass *select_machine(Error **errp)
{
    const char *type = qemu_opt_get(config.machine.opts, "type");
    const MachineClass *mc;

    loc_restore(&config.machine.loc);
    mc = type ? machine_find(type) : machine_default();
    if (!mc) {
        if (type) {
            error_setg(errp, "unsupported machine type '%s'; use -machine "
                       "help to list supported machines", type);
        } else {
            error_setg(errp, "No machine specified, and there is no "
                       "default; use -machine help to list supported "
                       "machines");
        }
        return NULL;
    }
    if (!machine_apply_options(mc, &config.machine, errp)) {
        return NULL;
    }
    if (config.machine.accel && config.accels->len) {
        loc_clear();
        error_setg(errp, "The -accel and \"-machine accel=\" options are "
                   "incompatible");
        return NULL;
    }
    if (config.machine.accel) {
        QemuOpts *opts = qemu_opts_new();
        bool ok;

        qemu_opts_set(opts, "accel", config.machine.accel);
        ok = accel_check_options(opts, errp);
        qemu_opts_free(opts);
        if (!ok) {
            return NULL;
        }
    }
    loc_restore(&config.smp.loc);
    if (!smp_finalize(&config.smp, mc->name, mc->max_cpus, errp)) {
        return NULL;
    }
    loc_clear();
    /*
     * QEMU's rule: -nographic puts the default serial, parallel and
     * monitor on stdio, which a daemon has not; with none of them left
     * (-nodefaults, -serial, -mon/-qmp) it changes nothing and is fine, as
     * libvirt's probe runs it. Machines without a default serial port
     * have no parallel one either.
     */
    if (config.daemonize && config.nographic) {
        bool default_serial = config.defaults.serial && !mc->no_serial;
        bool default_parallel = !config.nodefaults && !mc->no_serial;

        if (default_serial || default_parallel || config.defaults.monitor) {
            error_setg(errp, "-nographic cannot be used with -daemonize");
            return NULL;
        }
    }
    return mc;
}

/* Lock memory once, before any guest RAM is mapped or thread started. */
static bool setup_mlock(Error **errp)
{
    int ret;
    char *why;

    if (!should_mlock(mlock_state)) {
        return true;
    }
    ret = os_mlock(is_mlock_on_fault(mlock_state));
    if (ret == 0) {
        return true;
    }
    why = os_mlock_explain(ret);
    error_setg(errp, "%s", why);
    g_free(why);
    return false;
}

/* The id QEMU gives the RAM backend it makes for -m (and -mem-path). */
static const char *default_ram_id(const MachineClass *mc)
{
    return mc->default_ram_id;
}

/* -object secret and rng-*: before the block devices, which use secrets. */
static bool create_objects(Error **errp)
{
    for (guint i = 0; i < config.objects->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.objects, i);
        const char *type = qemu_opt_get(it->opts, "qom-type");

        loc_restore(&it->loc);
        if (!strcmp(type, "secret")) {
            if (!secret_create(it->opts, errp)) {
                return false;
            }
        } else if (g_str_has_prefix(type, "rng-")) {
            if (!rng_backend_create(it->opts, errp)) {
                return false;
            }
        }
    }
    loc_clear();
    return true;
}

/*
 * -object memory-backend-*: after mlockall, so that mem-lock=on locks
 * (and populates) memory as it is mapped, and after everything else the
 * command line asks for was checked, so that an error there does not
 * wait for gigabytes to be preallocated first.
 */
static bool create_memory_backends(const HostMemoryDefaults *d,
                                   Error **errp)
{
    for (guint i = 0; i < config.objects->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.objects, i);
        const char *type = qemu_opt_get(it->opts, "qom-type");

        loc_restore(&it->loc);
        if (g_str_has_prefix(type, "memory-backend-") &&
            !host_memory_backend_create(it->opts, d, errp)) {
            return false;
        }
    }
    loc_clear();
    return true;
}

/*
 * The machine's RAM: the backend named by -machine memory-backend= (its
 * size is the RAM size when -m is absent, and must match -m otherwise),
 * or, as in QEMU, an implicit backend for -m: memory-backend-file for
 * -mem-path (share=off), memory-backend-ram otherwise.
 */
static bool create_machine_ram(const MachineClass *mc,
                               const HostMemoryDefaults *d, Error **errp)
{
    const char *id = config.machine.memory_backend;
    HostMemoryBackend *be;
    QemuOpts *opts;
    char *size;

    if (id) {
        if (config.memory.mem_path) {
            error_setg(errp, "'-mem-path' can't be used together with "
                       "'-machine memory-backend'");
            return false;
        }
        be = host_memory_backend_find(id);
        if (!be) {
            error_setg(errp, "Memory backend '%s' not found", id);
            return false;
        }
        if (!config.memory.given) {
            current_machine.ram_size = be->size;
        } else if (be->size != current_machine.ram_size) {
            error_setg(errp, "Machine memory size does not match the size "
                       "of the memory backend");
            return false;
        }
        return host_memory_backend_set_machine(be, errp);
    }
    if (!current_machine.ram_size) {
        return true;
    }
    id = default_ram_id(mc);
    if (host_memory_backend_find(id)) {
        error_setg(errp, "object's id '%s' is reserved for the default RAM "
                   "backend, it can't be used for any other purposes; "
                   "change the object's 'id' to something else or disable "
                   "automatic creation of the default RAM backend by "
                   "setting 'memory-backend=%s' with '-machine'", id, id);
        return false;
    }
    opts = qemu_opts_new();
    size = g_strdup_printf("%" G_GUINT64_FORMAT, current_machine.ram_size);
    qemu_opts_set(opts, "qom-type", config.memory.mem_path
                                    ? "memory-backend-file"
                                    : "memory-backend-ram");
    qemu_opts_set(opts, "id", id);
    qemu_opts_set(opts, "size", size);
    if (config.memory.mem_path) {
        qemu_opts_set(opts, "mem-path", config.memory.mem_path);
    }
    /* Errors about -mem-path name it; others have no option to blame. */
    if (config.memory.mem_path || config.memory.mem_prealloc) {
        loc_restore(&config.memory.loc);
    }
    be = host_memory_backend_create(opts, d, errp);
    qemu_opts_free(opts);
    g_free(size);
    return be && host_memory_backend_set_machine(be, errp);
}


/*
 * A serial port on a new chardev "serialN", or on an existing one
 * (chardev:ID). A mux (mon:...) also carries a human monitor, created
 * before the UART so the UART gets the input focus.
 */
static bool add_serial(const char *spec, Error **errp)
{
    char *label;
    Chardev *chr;
    bool ok;

    label = g_strdup_printf("serial%u", serial_hd_count());
    chr = qemu_chr_new(label, spec, errp);
    g_free(label);
    ok = chr || !*errp;
    if (chr && g_str_has_prefix(spec, "mon:")) {
        ok = monitor_init_hmp(chr, errp);
    }
    if (ok) {
        serial_hd_add(chr);
    }
    return ok;
}

/*
 * A monitor on a new chardev "compat_monitorN" made from spec, or on an
 * existing one (chardev:ID), as -monitor and -qmp make them.
 */
static bool add_compat_monitor(unsigned index, const char *spec,
                               const char *mode, bool pretty, Error **errp)
{
    char *label = g_strdup_printf("compat_monitor%u", index);
    Chardev *chr;

    if (g_str_has_prefix(spec, "chardev:")) {
        chr = qemu_chr_find(spec + 8);
        if (!chr) {
            error_setg(errp, "chardev \"%s\" not found", spec + 8);
        }
    } else {
        chr = qemu_chr_new(label, spec, errp);
        if (!chr && !*errp) {
            error_setg(errp, "-%s needs a character device",
                       strcmp(mode, "control") ? "monitor" : "qmp");
        }
    }
    g_free(label);
    if (!chr) {
        return false;
    }
    return !strcmp(mode, "control") ? monitor_init_qmp(chr, pretty, errp)
                                    : monitor_init_hmp(chr, errp);
}

/*
 * Character devices, monitors and the qtest server, with QEMU's
 * defaults: a serial port on null (stdio with -nographic, shared with the
 * monitor when no other monitor was asked for).
 */
static bool create_backends(const MachineClass *mc, Error **errp)
{
    bool default_monitor = config.defaults.monitor;
    bool default_serial = config.defaults.serial && !mc->no_serial;

    for (guint i = 0; i < config.chardevs->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.chardevs, i);

        loc_restore(&it->loc);
        if (!qemu_chr_new_from_opts(it->opts, errp)) {
            return false;
        }
    }
    for (guint i = 0; i < config.monitors->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.monitors, i);
        const char *id = qemu_opt_get(it->opts, "chardev");
        const char *mode = qemu_opt_get(it->opts, "mode");
        bool pretty = false;
        Chardev *chr;

        loc_restore(&it->loc);
        chr = qemu_chr_find(id);
        if (!chr) {
            error_setg(errp, "chardev \"%s\" not found", id);
            return false;
        }
        qemu_opt_get_bool(it->opts, "pretty", &pretty, NULL);
        if (mode && !strcmp(mode, "control")) {
            if (!monitor_init_qmp(chr, pretty, errp)) {
                return false;
            }
        } else if (!monitor_init_hmp(chr, errp)) {
            return false;
        }
    }
    for (guint i = 0; i < config.compat_monitors->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.compat_monitors, i);
        bool pretty = false;

        loc_restore(&it->loc);
        qemu_opt_get_bool(it->opts, "pretty", &pretty, NULL);
        if (!add_compat_monitor(i, qemu_opt_get(it->opts, "path"),
                                qemu_opt_get(it->opts, "mode"), pretty,
                                errp)) {
            return false;
        }
    }
    if (config.nographic && default_monitor && default_serial) {
        loc_clear();
        if (!add_serial("mon:stdio", errp)) {
            return false;
        }
    } else {
        if (config.nographic && default_monitor) {
            loc_clear();
            if (!add_compat_monitor(config.compat_monitors->len, "stdio",
                                    "readline", false, errp)) {
                return false;
            }
        }
        for (guint i = 0; i < config.serials->len; i++) {
            CmdlineItem *it = g_ptr_array_index(config.serials, i);

            loc_restore(&it->loc);
            if (!add_serial(qemu_opt_get(it->opts, "path"), errp)) {
                return false;
            }
        }
        if (default_serial) {
            loc_clear();
            if (!add_serial(config.nographic ? "stdio" : "null", errp)) {
                return false;
            }
        }
    }
    if (config.qtest) {
        loc_restore(&config.qtest->loc);
        if (!qtest_server_init(qemu_opt_get(config.qtest->opts, "path"),
                               config.qtest_log, errp)) {
            return false;
        }
    }
    loc_clear();
    return true;
}

/* -global values, which qdev_new() applies to every device it makes. */
static void apply_globals(void)
{
    for (guint i = 0; i < config.globals->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.globals, i);

        qdev_add_global(qemu_opt_get(it->opts, "driver"),
                        qemu_opt_get(it->opts, "property"),
                        qemu_opt_get(it->opts, "value"));
    }
}

/*
 * -blockdev nodes, then -drive ones (as QEMU); an if=virtio drive adds
 * "-device virtio-blk-pci,drive=ID" after the user's devices.
 */
static bool create_block_devices(Error **errp)
{
    unsigned index = 0;

    for (guint i = 0; i < config.blockdevs->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.blockdevs, i);

        loc_restore(&it->loc);
        if (!blockdev_new(it->opts, errp)) {
            return false;
        }
    }
    for (guint i = 0; i < config.drives->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.drives, i);
        char *virtio_id;
        CmdlineItem *dev;

        loc_restore(&it->loc);
        if (config.snapshot && !qemu_opt_get(it->opts, "snapshot")) {
            qemu_opts_set(it->opts, "snapshot", "on");
        }
        if (!drive_new(it->opts, &index, &virtio_id, errp)) {
            return false;
        }
        if (virtio_id) {
            /* Its errors name the -drive (the location in force). */
            dev = cmdline_item_new(qemu_opts_new());
            qemu_opts_set(dev->opts, "driver", "virtio-blk-pci");
            qemu_opts_set(dev->opts, "drive", virtio_id);
            g_ptr_array_add(config.devices, dev);
            g_free(virtio_id);
        }
    }
    loc_clear();
    return true;
}

/*
 * QEMU's default network, -net nic -net user (a NIC of the machine's
 * default model on hub 0 with slirp), unless -nodefaults or any -net,
 * -nic or -netdev (-net none too) is given.
 */
static void add_default_net(const MachineClass *mc)
{
    static const char *const types[] = { "nic", "user" };

    if (config.nodefaults || !mc->default_nic || config.nets->len ||
        config.nics->len || config.netdevs->len) {
        return;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
        QemuOpts *opts = qemu_opts_new();

        qemu_opts_set(opts, "type", types[i]);
        g_ptr_array_add(config.nets, cmdline_item_new(opts));
    }
}

/*
 * -netdev, then -nic and -net (as QEMU); their NICs become -device
 * options before the user's: QEMU's board makes them (after its VGA),
 * so they get their slots and MACs first.
 */
static bool create_net_clients(const MachineClass *mc, Error **errp)
{
    GPtrArray *lists[] = { config.nics, config.nets };
    guint nic_devices = 0;

    add_default_net(mc);
    net_set_default_nic_model(mc->default_nic ? mc->default_nic
                                              : "virtio-net-pci");
    for (guint i = 0; i < config.netdevs->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.netdevs, i);

        loc_restore(&it->loc);
        if (!netdev_add(it->opts, errp)) {
            return false;
        }
    }
    for (size_t l = 0; l < G_N_ELEMENTS(lists); l++) {
        for (guint i = 0; i < lists[l]->len; i++) {
            CmdlineItem *it = g_ptr_array_index(lists[l], i);
            QemuOpts *dev = NULL;
            bool ok;

            loc_restore(&it->loc);
            ok = lists[l] == config.nics ? nic_add(it->opts, i, &dev, errp)
                 : net_legacy_add(it->opts, i, &dev, errp);
            if (!ok) {
                return false;
            }
            if (dev) {
                /* Its errors name the -nic or -net (the location now). */
                g_ptr_array_insert(config.devices, nic_devices++,
                                   cmdline_item_new(dev));
            }
        }
    }
    loc_clear();
    return true;
}

/* The -device options, as far as they can be checked before the board. */
static bool check_devices(Error **errp)
{
    for (guint i = 0; i < config.devices->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.devices, i);

        loc_restore(&it->loc);
        if (!qdev_device_check(it->opts, errp)) {
            return false;
        }
    }
    loc_clear();
    return true;
}

/* -device, after the board made its own devices. */
static bool create_devices(Error **errp)
{
    for (guint i = 0; i < config.devices->len; i++) {
        CmdlineItem *it = g_ptr_array_index(config.devices, i);

        loc_restore(&it->loc);
        if (!qdev_device_add(it->opts, errp)) {
            return false;
        }
    }
    loc_clear();
    qdev_check_globals();
    net_check_clients();
    return true;
}

static void mux_exit(void)
{
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_UI, 0);
}

/* Build the VM. On failure, qemu_cleanup() undoes whatever was done. */
static bool qemu_build(int argc, char **argv, Error **errp)
{
    const MachineClass *mc;
    HostMemoryDefaults mem_defaults;
    char *type;

    if (!cmdline_parse(argc, argv, &config, errp)) {
        return false;
    }
    mc = select_machine(errp);
    if (!mc) {
        return false;
    }
    if (config.process_name) {
        prctl(PR_SET_NAME, config.process_name);
    }
    if (config.daemonize && !os_daemonize(errp)) {
        return false;
    }
    /* After the fork and setsid of -daemonize, before anything runs. */
    if (!seccomp_install(errp)) {
        return false;
    }
    if (config.pidfile && !os_write_pidfile(config.pidfile, errp)) {
        return false;
    }
    if (!qemu_init_main_loop(errp)) {
        return false;
    }
    main_loop_ready = true;
    qemu_timers_attach_main_loop();
    if (!setup_mlock(errp)) {
        return false;
    }
    if (!machine_check_unsupported(mc, &config, errp)) {
        return false;
    }
    chr_mux_exit_hook = mux_exit;

    current_machine.mc = mc;
    machine_set_current(&current_machine);
    current_machine.cfg = &config;
    current_machine.ram_size = config.memory.size ? config.memory.size
                                                  : mc->default_ram_size;
    current_machine.smp_cpus = config.smp.cpus;
    mem_defaults = (HostMemoryDefaults) {
        .merge = config.machine.mem_merge,
        .dump = config.machine.dump_guest_core,
        .prealloc = config.memory.mem_prealloc,
        .prealloc_threads = config.smp.cpus,
    };
    type = machine_type_name(mc);
    current_machine.obj = object_add_child(object_get_container("/"),
                                           "machine", type, NULL, NULL,
                                           errp);
    g_free(type);
    if (!current_machine.obj) {
        return false;
    }
    if (!accel_configure(&current_machine, &config, errp)) {
        return false;
    }
    /*
     * A destination opens its images without their locks: the source
     * holds them until the switch-over (taken after the load).
     */
    if (config.incoming) {
        bdrv_inactivate_all();
    }
    if (!create_objects(errp) || !create_backends(mc, errp) ||
        !create_block_devices(errp) || !create_net_clients(mc, errp) ||
        !check_devices(errp)) {
        return false;
    }
    apply_globals();
    /*
     * Guest RAM last, once every option was checked as far as it can be
     * without the board. Exit fast: a child discards file-backed RAM
     * after we are gone.
     */
    ram_discard_set_deferred(true);
    if (!create_memory_backends(&mem_defaults, errp) ||
        !create_machine_ram(mc, &mem_defaults, errp)) {
        return false;
    }
    loc_clear();
    machine_built = true;
    if (!mc->init(&current_machine, errp) || !create_devices(errp)) {
        return false;
    }
    if (mc->devices_done && !mc->devices_done(&current_machine, errp)) {
        return false;
    }
    if (config.incoming && !strcmp(config.incoming, "defer")) {
        migration_incoming_defer(autostart);
    } else if (config.incoming) {
        loc_restore(&config.incoming_loc);
        if (!migration_incoming_start(config.incoming, autostart, errp)) {
            return false;
        }
        loc_clear();
    } else if (autostart) {
        vm_start();
    }
    return true;
}

int qemu_init(int argc, char **argv)
{
    Error *err = NULL;

    vm_config_init(&config);
    qmp_register_commands(qapi_commands);
    runstate_set_devices_reset(qdev_reset_all);
    hmp_set_info_qtree(qdev_print_tree);
    if (!qemu_build(argc, argv, &err)) {
        error_report_err(err);
        os_daemonize_done(false);
        return 1;
    }
    os_daemonize_done(true);
    return -1;
}

/* The one way out: every exit path after qemu_init() comes here. */
void qemu_cleanup(void)
{
    migration_cleanup();
    monitor_cleanup();
    qdev_destroy_all();
    net_cleanup();
    bdrv_close_all();
    /* After the devices: it owns the lines it put on their outputs. */
    qtest_server_cleanup();
    if (machine_built && current_machine.mc->cleanup) {
        current_machine.mc->cleanup(&current_machine);
    }
    machine_built = false;
    accel_cleanup();
    memory_cleanup();
    /* After the machine and devices, which map it; see ram_block_free(). */
    host_memory_backends_cleanup();
    secrets_cleanup();
    rng_backends_cleanup();
    fdsets_cleanup();
    ram_discard_run_deferred();
    qemu_chr_cleanup_all();
    qemu_unregister_reset_all();
    object_cleanup();
    if (main_loop_ready) {
        qemu_timers_detach_main_loop();
        qemu_main_loop_cleanup();
        main_loop_ready = false;
    }
    os_remove_pidfile();
    qemu_log_close();
    vm_config_free(&config);
    loc_clear();
    g_clear_pointer((char **)&qemu_name, g_free);
    error_report_set_guest_name(NULL);
}
