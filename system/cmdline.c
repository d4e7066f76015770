/*
 * The command line: every word is looked up in the option table that
 * qemu-options.hx declares, then handled into a VmConfig. Nothing is
 * built here; system/vl.c builds the VM from the result.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-host.h"
#include "hw/boards.h"
#include "hw/qdev.h"
#include "qapi/qapi-visit.h"
#include "net/net.h"
#include "qemu/config-file.h"
#include "qemu/error.h"
#include "qemu/log.h"
#include "qemu/option.h"
#include "qapi/qapi-commands.h"
#include "system/accel.h"
#include "system/runstate.h"
#include "qemu/fdset.h"
#include "system/seccomp.h"
#include "system/system.h"
#include "system/cmdline.h"
#include "system/datadir.h"
#include "hw/i386/pc-smbios.h"
#include "system/vm-config.h"


#define HAS_ARG         1
#define UNSUPPORTED     2       /* QEMU 7.2's, not built yet */
#define OTHER_TARGET    4       /* QEMU 7.2's, for other targets */

enum {
#define DEF(option, flags, opt_enum, help) opt_enum,
#define DEFHEADING(text)
#include "qemu-options.def"
#undef DEF
#undef DEFHEADING
};

typedef struct QEMUOption {
    const char *name;
    int flags;
    int index;
} QEMUOption;

static const QEMUOption qemu_options[] = {
#define DEF(option, flags, opt_enum, help) { option, flags, opt_enum },
#define DEFHEADING(text)
#include "qemu-options.def"
#undef DEF
#undef DEFHEADING
    { NULL, 0, 0 },
};

/* The configuration being filled by cmdline_parse(). */
static VmConfig *cfg;
static bool msg_guest_name;     /* -msg guest-name=on */

/* Options whose argument is "help" print a list and end the process. */
static bool is_help_option(const char *arg)
{
    return !strcmp(arg, "help") || !strcmp(arg, "?");
}

static void version(void)
{
    printf("QEMU emulator version " QEMU_VERSION " (" PACKAGE_STRING ")\n"
           "Copyright (c) 2026 the " PACKAGE_NAME " authors\n");
}

static void help(void)
{
    version();
    printf("usage: qemu-system-x86_64 [options]\n");
#define DEF(option, flags, opt_enum, opt_help) \
    if (!((flags) & OTHER_TARGET)) {                \
        fputs(opt_help, stdout);                     \
    }
#define DEFHEADING(text) printf("\n%s\n", text);
#include "qemu-options.def"
#undef DEF
#undef DEFHEADING
    printf("\nDuring emulation, SIGTERM, SIGINT and SIGHUP end the process "
           "after an orderly\nteardown of guest RAM.\n");
}

/*
 * Find argv[*optind] in the option table. "-opt" and "--opt" are the
 * same option; an option that takes an argument consumes the next word.
 */
static const QEMUOption *lookup_opt(int argc, char **argv, int *optind,
                                    const char **optarg, Error **errp)
{
    const char *r = argv[*optind];
    const QEMUOption *popt;

    loc_set_cmdline(r, NULL);
    if (r[0] != '-' || r[1] == '\0') {
        error_setg(errp, "disk images given without an option are not "
                   "supported");
        return NULL;
    }
    r++;
    if (r[0] == '-' && r[1] != '\0') {
        r++;
    }
    for (popt = qemu_options; popt->name; popt++) {
        if (!strcmp(popt->name, r)) {
            break;
        }
    }
    if (!popt->name) {
        error_setg(errp, "invalid option");
        return NULL;
    }
    (*optind)++;
    *optarg = NULL;
    if (popt->flags & HAS_ARG) {
        if (*optind >= argc) {
            error_setg(errp, "requires an argument");
            return NULL;
        }
        *optarg = argv[(*optind)++];
        loc_set_cmdline(argv[*optind - 2], *optarg);
    }
    return popt;
}

bool overcommit_parse(const char *arg, MlockState *mem_lock, bool *cpu_pm,
                      Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "mem-lock", QEMU_OPT_STRING },
        { "cpu-pm", QEMU_OPT_BOOL },
        { NULL },
    };
    QemuOpts *opts = qemu_opts_parse(arg, NULL, errp);
    MlockState lock = *mem_lock;
    bool pm = *cpu_pm;
    const char *s;
    bool ok = false;

    if (!opts || !qemu_opts_validate(opts, desc, errp)) {
        goto out;
    }
    if ((s = qemu_opt_get(opts, "mem-lock"))) {
        bool on;

        if (!strcmp(s, "on-fault")) {
            lock = MLOCK_ON_FAULT;
        } else if (qemu_parse_bool("mem-lock", s, &on, NULL)) {
            lock = on ? MLOCK_ON : MLOCK_OFF;
        } else {
            error_setg(errp, "parameter 'mem-lock' expects one of 'on', "
                       "'off', 'on-fault'");
            goto out;
        }
    }
    if (!qemu_opt_get_bool(opts, "cpu-pm", &pm, errp)) {
        goto out;
    }
    *mem_lock = lock;
    *cpu_pm = pm;
    ok = true;
out:
    qemu_opts_free(opts);
    return ok;
}

/* Parse "key=value,..." against desc and keep it, with its location. */
static CmdlineItem *take_opts(const char *arg, const char *implied,
                              const QemuOptDesc *desc, Error **errp)
{
    QemuOpts *opts = qemu_opts_parse(arg, implied, errp);

    if (!opts || (desc && !qemu_opts_validate(opts, desc, errp))) {
        qemu_opts_free(opts);
        return NULL;
    }
    return cmdline_item_new(opts);
}

/*
 * For the options QEMU also takes as JSON (-object, -device,
 * -audiodev, -blockdev): an argument that starts with '{' is a JSON
 * object.
 */
static CmdlineItem *take_opts_or_json(const char *arg, const char *implied,
                                      const QemuOptDesc *desc, Error **errp)
{
    QemuOpts *opts;

    if (arg[0] != '{') {
        return take_opts(arg, implied, desc, errp);
    }
    opts = qemu_opts_from_json(arg, errp);
    if (!opts || (desc && !qemu_opts_validate(opts, desc, errp))) {
        qemu_opts_free(opts);
        return NULL;
    }
    return cmdline_item_new(opts);
}

static bool parse_name(const char *arg, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "guest", QEMU_OPT_STRING },
        { "process", QEMU_OPT_STRING },
        { "debug-threads", QEMU_OPT_BOOL },
        { NULL },
    };
    CmdlineItem *it = take_opts(arg, "guest", desc, errp);
    const char *s;

    if (!it) {
        return false;
    }
    if (!qemu_opt_get_bool(it->opts, "debug-threads", &cfg->debug_threads,
                           errp)) {
        cmdline_item_free(it);
        return false;
    }
    if ((s = qemu_opt_get(it->opts, "guest"))) {
        /* qemu_name outlives the config: it names the VM until exit. */
        g_free((char *)qemu_name);
        qemu_name = g_strdup(s);
        if (msg_guest_name) {
            error_report_set_guest_name(qemu_name);
        }
    }
    if ((s = qemu_opt_get(it->opts, "process"))) {
        g_free(cfg->process_name);
        cfg->process_name = g_strdup(s);
    }
    cmdline_item_free(it);
    return true;
}

static bool parse_msg(const char *arg, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "timestamp", QEMU_OPT_BOOL },
        { "guest-name", QEMU_OPT_BOOL },
        { NULL },
    };
    CmdlineItem *it = take_opts(arg, NULL, desc, errp);
    bool ts = false, gn = false;

    if (!it) {
        return false;
    }
    qemu_opt_get_bool(it->opts, "timestamp", &ts, NULL);
    qemu_opt_get_bool(it->opts, "guest-name", &gn, NULL);
    error_report_set_timestamp(ts);
    msg_guest_name = gn;
    error_report_set_guest_name(gn ? (qemu_name ? qemu_name : "qemu")
                                   : NULL);
    cmdline_item_free(it);
    return true;
}

static bool parse_display(const char *arg, Error **errp)
{
    static const char *const unavailable[] = {
        "gtk", "sdl", "vnc", "curses", "egl-headless", "spice-app",
        "dbus", "cocoa", NULL,
    };
    QemuOpts *opts = qemu_opts_parse(arg, "type", errp);
    const char *type;
    bool ok = false;

    if (!opts) {
        return false;
    }
    type = qemu_opt_get(opts, "type");
    if (!type) {
        error_setg(errp, "Parameter 'type' is missing");
    } else if (!strcmp(type, "none")) {
        if (qemu_opts_count(opts) > 1) {
            error_setg(errp, "Invalid parameter '%s'",
                       qemu_opts_nth(opts, 1)->name);
        } else {
            cfg->display_none = true;
            ok = true;
        }
    } else if (g_strv_contains(unavailable, type)) {
        error_setg(errp, "Display '%s' is not available", type);
    } else {
        error_setg(errp, "Parameter 'type' does not accept value '%s'", type);
    }
    qemu_opts_free(opts);
    return ok;
}

static bool parse_sandbox(const char *arg, Error **errp)
{
    CmdlineItem *it = take_opts(arg, "enable", sandbox_opts, errp);
    bool enable = false;
    bool ok;

    if (!it) {
        return false;
    }
    ok = seccomp_parse(it->opts, &enable, errp);
    if (ok && enable && !seccomp_available()) {
        /* A sandbox we cannot install must not look installed. */
        error_setg(errp, "seccomp support is disabled");
        ok = false;
    }
    cmdline_item_free(it);
    return ok;
}

static bool parse_add_fd(const char *arg, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "fd", QEMU_OPT_NUMBER },
        { "set", QEMU_OPT_NUMBER },
        { "opaque", QEMU_OPT_STRING },
        { NULL },
    };
    CmdlineItem *it = take_opts(arg, NULL, desc, errp);
    uint64_t fd = 0, set = 0;
    bool ok = false;

    if (!it) {
        return false;
    }
    if (!qemu_opt_get(it->opts, "fd")) {
        error_setg(errp, "fd option is required and must be non-negative");
    } else if (!qemu_opt_get(it->opts, "set")) {
        error_setg(errp, "set option is required and must be non-negative");
    } else if (qemu_opt_get_number(it->opts, "fd", &fd, errp) &&
               qemu_opt_get_number(it->opts, "set", &set, errp)) {
        if (fd > INT_MAX) {
            error_setg(errp, "fd option is required and must be "
                       "non-negative");
        } else {
            ok = fdset_add_fd((int)fd, (int64_t)set,
                              qemu_opt_get(it->opts, "opaque"), errp);
        }
    }
    cmdline_item_free(it);
    return ok;
}

static bool parse_audio(const char *arg, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "driver", QEMU_OPT_STRING },
        { "model", QEMU_OPT_STRING },
        { "id", QEMU_OPT_STRING },
        { NULL },
    };
    CmdlineItem *it = take_opts(arg, "driver", desc, errp);
    const char *drv;
    bool ok = false;

    if (!it) {
        return false;
    }
    drv = qemu_opt_get(it->opts, "driver");
    if (!drv) {
        error_setg(errp, "Parameter 'driver' is missing");
    } else if (strcmp(drv, "none")) {
        error_setg(errp, "audio driver '%s' is not available; only 'none' "
                   "is", drv);
    } else if (qemu_opt_get(it->opts, "model")) {
        error_setg(errp, "no sound devices are available in this release");
    } else {
        ok = true;
    }
    cmdline_item_free(it);
    return ok;
}

/*
 * -audiodev [driver=]none,id=ID, or its JSON form: only the backend that
 * plays nothing exists, and nothing uses it yet.
 */
static bool parse_audiodev(const char *arg, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "driver", QEMU_OPT_STRING },
        { "id", QEMU_OPT_STRING },
        { NULL },
    };
    CmdlineItem *it = take_opts_or_json(arg, "driver", NULL, errp);
    const char *unknown, *drv;
    bool ok = false;

    if (!it) {
        return false;
    }
    unknown = qemu_opts_find_unknown(it->opts, desc);
    drv = qemu_opt_get(it->opts, "driver");
    if (unknown) {
        error_setg(errp, "Parameter '%s' is unexpected", unknown);
    } else if (!drv) {
        error_setg(errp, "Parameter 'driver' is missing");
    } else if (strcmp(drv, "none")) {
        error_setg(errp, "Parameter 'driver' does not accept value '%s'",
                   drv);
    } else if (!qemu_opt_get(it->opts, "id")) {
        error_setg(errp, "Parameter 'id' is missing");
    } else {
        ok = true;
    }
    cmdline_item_free(it);
    return ok;
}

/* -vga none: no graphics card, the only kind there is. */
static bool parse_vga(const char *arg, Error **errp)
{
    static const char *const qemu_types[] = {
        "std", "cirrus", "vmware", "qxl", "xenfb", "tcx", "cg3", "virtio",
        NULL,
    };

    if (is_help_option(arg)) {
        printf("%-20s %s\n", "none", "no graphic card");
        exit(0);
    }
    cfg->defaults.vga = false;
    if (!strcmp(arg, "none")) {
        return true;
    }
    if (g_strv_contains(qemu_types, arg)) {
        error_setg(errp, "VGA type '%s' is not supported yet; only 'none' "
                   "is", arg);
    } else {
        /* QEMU reports it once the machine is chosen, with no option. */
        loc_clear();
        error_setg(errp, "unknown vga type: %s", arg);
    }
    return false;
}

static bool parse_chardev(const char *arg, Error **errp)
{
    CmdlineItem *it = take_opts(arg, "backend", NULL, errp);

    if (!it) {
        return false;
    }
    if (!qemu_opt_get(it->opts, "id")) {
        error_setg(errp, "chardev: no id specified");
        cmdline_item_free(it);
        return false;
    }
    g_ptr_array_add(cfg->chardevs, it);
    return true;
}

/* -netdev, -nic, -net: checked now, created after the chardevs. */
static bool parse_net_option(const char *arg, GPtrArray *list,
                             bool (*check)(const QemuOpts *, Error **),
                             Error **errp)
{
    CmdlineItem *it = take_opts(arg, "type", NULL, errp);

    if (!it) {
        return false;
    }
    if (g_strcmp0(qemu_opt_get(it->opts, "model"), "help") == 0) {
        nic_print_models();
        exit(0);
    }
    if (!check(it->opts, errp)) {
        cmdline_item_free(it);
        return false;
    }
    g_ptr_array_add(list, it);
    return true;
}

static bool parse_mon(const char *arg, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "chardev", QEMU_OPT_STRING },
        { "mode", QEMU_OPT_STRING },
        { "pretty", QEMU_OPT_BOOL },
        { "id", QEMU_OPT_STRING },
        { NULL },
    };
    CmdlineItem *it = take_opts(arg, "chardev", desc, errp);
    const char *mode;

    if (!it) {
        return false;
    }
    mode = qemu_opt_get(it->opts, "mode");
    if (!qemu_opt_get(it->opts, "chardev")) {
        error_setg(errp, "Parameter 'chardev' is missing");
    } else if (mode && strcmp(mode, "control") && strcmp(mode, "readline")) {
        error_setg(errp, "unknown monitor mode '%s'", mode);
    } else {
        g_ptr_array_add(cfg->monitors, it);
        return true;
    }
    cmdline_item_free(it);
    return false;
}

/* -serial, -qmp, -qtest take a chardev spec; keep it as "path". */
static CmdlineItem *take_spec(const char *arg)
{
    QemuOpts *opts = qemu_opts_new();

    qemu_opts_set(opts, "path", arg);
    return cmdline_item_new(opts);
}

/*
 * -monitor, -qmp, -qmp-pretty: a monitor on a chardev spec, in one list
 * so that their chardevs are numbered compat_monitor0, 1, ... in
 * command line order, as QEMU numbers them.
 */
static void add_compat_monitor(const char *spec, const char *mode,
                               bool pretty)
{
    CmdlineItem *it = take_spec(spec);

    qemu_opts_set(it->opts, "mode", mode);
    qemu_opts_set(it->opts, "pretty", pretty ? "on" : "off");
    g_ptr_array_add(cfg->compat_monitors, it);
    cfg->defaults.monitor = false;
}

static bool parse_accel(const char *arg, Error **errp)
{
    CmdlineItem *it;

    if (is_help_option(arg)) {
        accel_print_list();
        exit(0);
    }
    it = take_opts(arg, "accel", NULL, errp);
    if (!it) {
        return false;
    }
    if (!accel_check_options(it->opts, errp)) {
        cmdline_item_free(it);
        return false;
    }
    g_ptr_array_add(cfg->accels, it);
    return true;
}

static bool parse_machine(const char *arg, Error **errp)
{
    QemuOpts *opts = qemu_opts_parse(arg, "type", errp);
    const char *type;

    if (!opts) {
        return false;
    }
    type = qemu_opt_get(opts, "type");
    if (type && is_help_option(type)) {
        machine_print_list();
        exit(0);
    }
    qemu_opts_merge(cfg->machine.opts, opts);
    qemu_opts_free(opts);
    loc_free(&cfg->machine.loc);
    loc_save(&cfg->machine.loc);
    return true;
}


static bool parse_cpu(const char *arg, Error **errp)
{
    if (is_help_option(arg)) {
        printf("Available CPUs:\n");
        for (int i = 0; vm_cpu_models[i]; i++) {
            printf("x86 %s\n", vm_cpu_models[i]);
        }
        exit(0);
    }
    if (!cpu_parse(arg, &cfg->cpu, errp)) {
        return false;
    }
    if (!g_strv_contains(vm_cpu_models, cfg->cpu.model)) {
        error_setg(errp, "unable to find CPU model '%s'", cfg->cpu.model);
        return false;
    }
    loc_free(&cfg->cpu.loc);
    loc_save(&cfg->cpu.loc);
    return true;
}

static bool parse_device(const char *arg, Error **errp)
{
    CmdlineItem *it;
    const char *drv;

    if (is_help_option(arg)) {
        device_print_help();
        exit(0);
    }
    it = take_opts_or_json(arg, "driver", NULL, errp);
    if (!it) {
        return false;
    }
    drv = qemu_opt_get(it->opts, "driver");
    if (!drv) {
        error_setg(errp, "Parameter 'driver' is missing");
        cmdline_item_free(it);
        return false;
    }
    if (qemu_opt_get(it->opts, "help")) {
        const DeviceClass *dc = device_class_find(drv);

        if (!dc) {
            error_setg(errp, "'%s' is not a valid device model name", drv);
            cmdline_item_free(it);
            return false;
        }
        device_print_props(dc);
        exit(0);
    }
    g_ptr_array_add(cfg->devices, it);
    return true;
}

static bool parse_object(const char *arg, Error **errp)
{
    CmdlineItem *it;

    if (is_help_option(arg)) {
        printf("List of user creatable objects:\n"
               "  memory-backend-file\n"
               "  memory-backend-memfd\n"
               "  memory-backend-ram\n"
               "  rng-builtin\n"
               "  rng-random\n"
               "  secret\n");
        exit(0);
    }
    it = take_opts_or_json(arg, "qom-type", NULL, errp);
    if (!it) {
        return false;
    }
    if (!object_check(it->opts, cfg->objects, errp)) {
        cmdline_item_free(it);
        return false;
    }
    g_ptr_array_add(cfg->objects, it);
    return true;
}

static bool parse_debug(const char *arg, Error **errp)
{
    unsigned mask;

    if (is_help_option(arg)) {
        qemu_log_print_items();
        exit(0);
    }
    if (!qemu_log_parse_items(arg, &mask, errp)) {
        return false;
    }
    qemu_loglevel = mask;
    return true;
}

/*
 * -action reboot=...,shutdown=...,panic=...,watchdog=...; -no-reboot
 * and -no-shutdown are its reboot=shutdown and shutdown=pause. As in
 * QEMU 7.2, they merge into one list (a later value of a key wins),
 * whose values are checked once the command line is read, and errors
 * name the first of these options.
 */
static bool parse_action(const char *arg, Error **errp)
{
    /* In QEMU 7.2's order for "help". */
    static const QemuOptDesc desc[] = {
        { "panic", QEMU_OPT_STRING },
        { "reboot", QEMU_OPT_STRING },
        { "shutdown", QEMU_OPT_STRING },
        { "watchdog", QEMU_OPT_STRING },
        { NULL },
    };
    CmdlineItem *it;

    if (is_help_option(arg)) {
        /* QEMU 7.2 lists the keys and exits with status 1. */
        printf("action options:\n");
        for (const QemuOptDesc *d = desc; d->name; d++) {
            printf("  %s=<str>\n", d->name);
        }
        exit(1);
    }
    it = take_opts(arg, NULL, desc, errp);
    if (!it) {
        return false;
    }
    if (!cfg->action) {
        cfg->action = it;
        return true;
    }
    qemu_opts_merge(cfg->action->opts, it->opts);
    cmdline_item_free(it);
    return true;
}

/* The merged -action values, through set-action's own checks. */
static bool apply_actions(Error **errp)
{
    q_obj_set_action_arg args = { 0 };
    QapiIn v = QAPI_IN_INIT;
    JsonObject *o;
    JsonNode *ret = NULL;
    bool ok;

    if (!cfg->action) {
        return true;
    }
    loc_restore(&cfg->action->loc);
    o = json_object_new();
    for (unsigned i = 0; i < qemu_opts_count(cfg->action->opts); i++) {
        const QemuOpt *opt = qemu_opts_nth(cfg->action->opts, i);

        json_object_set_string_member(o, opt->name, opt->value);
    }
    ok = qapi_in_q_obj_set_action_arg_members(&v, o, &args, errp) &&
         qmp_set_action(&args, &ret, errp);
    qapi_clear_q_obj_set_action_arg(&args);
    qapi_in_free(&v);
    json_object_unref(o);
    return ok;
}

static void set_string(char **dst, const char *value)
{
    g_free(*dst);
    *dst = g_strdup(value);
}

static bool read_config_file(const char *file, bool optional, Error **errp);

/* Handle one option; the current location is already set. */
static bool handle_option(const QEMUOption *popt, const char *optarg,
                          Error **errp)
{
    if (popt->flags & OTHER_TARGET) {
        error_setg(errp, "Option not supported for this target");
        return false;
    }
    if (popt->flags & UNSUPPORTED) {
        error_setg(errp, "not supported yet");
        return false;
    }
    switch (popt->index) {
    case QEMU_OPTION_h:
    case QEMU_OPTION_help:
        help();
        exit(0);
    case QEMU_OPTION_version:
        version();
        exit(0);
    case QEMU_OPTION_machine:
    case QEMU_OPTION_M:
        return parse_machine(optarg, errp);
    case QEMU_OPTION_accel:
        return parse_accel(optarg, errp);
    case QEMU_OPTION_enable_kvm:
        /*
         * QEMU's -machine accel=kvm: later -machine accel= overrides it
         * (and the reverse), -accel is refused with it. The -machine
         * location is kept for the errors about its other options.
         */
        qemu_opts_set(cfg->machine.opts, "accel", "kvm");
        return true;
    case QEMU_OPTION_cpu:
        return parse_cpu(optarg, errp);
    case QEMU_OPTION_smp:
        if (!smp_parse(optarg, &cfg->smp, errp)) {
            return false;
        }
        loc_free(&cfg->smp.loc);
        loc_save(&cfg->smp.loc);
        return true;
    case QEMU_OPTION_m:
        if (!memory_parse(optarg, &cfg->memory, errp)) {
            return false;
        }
        loc_free(&cfg->memory.loc);
        loc_save(&cfg->memory.loc);
        return true;
    case QEMU_OPTION_object:
        return parse_object(optarg, errp);
    case QEMU_OPTION_overcommit:
        return overcommit_parse(optarg, &mlock_state, &enable_cpu_pm, errp);
    case QEMU_OPTION_mem_path:
        set_string(&cfg->memory.mem_path, optarg);
        loc_free(&cfg->memory.loc);
        loc_save(&cfg->memory.loc);
        return true;
    case QEMU_OPTION_mem_prealloc:
        cfg->memory.mem_prealloc = true;
        loc_free(&cfg->memory.loc);
        loc_save(&cfg->memory.loc);
        return true;
    case QEMU_OPTION_name:
        return parse_name(optarg, errp);
    case QEMU_OPTION_uuid:
        qemu_uuid_set = uuid_parse(optarg, qemu_uuid, errp);
        return qemu_uuid_set;
    case QEMU_OPTION_global: {
        QemuOpts *opts;

        if (!global_parse(optarg, &opts, errp)) {
            return false;
        }
        g_ptr_array_add(cfg->globals, cmdline_item_new(opts));
        return true;
    }
    case QEMU_OPTION_device:
        return parse_device(optarg, errp);
    case QEMU_OPTION_hda:
    case QEMU_OPTION_hdb:
    case QEMU_OPTION_hdc:
    case QEMU_OPTION_hdd:
    case QEMU_OPTION_cdrom: {
        /* QEMU's drive_add(): the file name is taken whole, commas too. */
        QemuOpts *opts = qemu_opts_new();
        bool cdrom = popt->index == QEMU_OPTION_cdrom;
        char index[2] = {
            cdrom ? '2' : '0' + (popt->index - QEMU_OPTION_hda), '\0'
        };

        qemu_opts_set(opts, "index", index);
        qemu_opts_set(opts, "file", optarg);
        qemu_opts_set(opts, "media", cdrom ? "cdrom" : "disk");
        g_ptr_array_add(cfg->drives, cmdline_item_new(opts));
        return true;
    }
    case QEMU_OPTION_drive:
    case QEMU_OPTION_blockdev: {
        CmdlineItem *it = popt->index == QEMU_OPTION_drive ?
                          take_opts(optarg, NULL, NULL, errp) :
                          take_opts_or_json(optarg, NULL, NULL, errp);

        if (!it) {
            return false;
        }
        g_ptr_array_add(popt->index == QEMU_OPTION_drive ? cfg->drives
                                                        : cfg->blockdevs,
                        it);
        return true;
    }
    case QEMU_OPTION_boot:
        return boot_parse(optarg, &cfg->boot, errp);
    case QEMU_OPTION_rtc:
        return rtc_parse(optarg, &cfg->rtc, errp);
    case QEMU_OPTION_audio:
        return parse_audio(optarg, errp);
    case QEMU_OPTION_add_fd:
        return parse_add_fd(optarg, errp);
    case QEMU_OPTION_audiodev:
        return parse_audiodev(optarg, errp);
    case QEMU_OPTION_no_acpi:
        qemu_opts_set(cfg->machine.opts, "acpi", "off");
        return true;
    case QEMU_OPTION_no_hpet:
        qemu_opts_set(cfg->machine.opts, "hpet", "off");
        return true;
    case QEMU_OPTION_no_fd_bootchk:
        /* No floppy controller yet: nothing to check or not. */
        return true;
    case QEMU_OPTION_sandbox:
        return parse_sandbox(optarg, errp);
    case QEMU_OPTION_smbios:
        if (!smbios_check_option(optarg, errp)) {
            return false;
        }
        if (!cfg->smbios) {
            cfg->smbios = g_ptr_array_new_with_free_func(g_free);
        }
        g_ptr_array_add(cfg->smbios, g_strdup(optarg));
        return true;
    case QEMU_OPTION_bios:
        set_string(&cfg->bios, optarg);
        return true;
    case QEMU_OPTION_kernel:
        set_string(&cfg->kernel, optarg);
        loc_free(&cfg->kernel_loc);
        loc_save(&cfg->kernel_loc);
        return true;
    case QEMU_OPTION_initrd:
        set_string(&cfg->initrd, optarg);
        loc_free(&cfg->kernel_loc);
        loc_save(&cfg->kernel_loc);
        return true;
    case QEMU_OPTION_append:
        set_string(&cfg->append, optarg);
        loc_free(&cfg->kernel_loc);
        loc_save(&cfg->kernel_loc);
        return true;
    case QEMU_OPTION_display:
        if (is_help_option(optarg)) {
            printf("Available display backend types:\nnone\n");
            exit(0);
        }
        return parse_display(optarg, errp);
    case QEMU_OPTION_vga:
        return parse_vga(optarg, errp);
    case QEMU_OPTION_nographic:
        cfg->nographic = true;
        return true;
    case QEMU_OPTION_serial:
        g_ptr_array_add(cfg->serials, take_spec(optarg));
        cfg->defaults.serial = false;
        if (g_str_has_prefix(optarg, "mon:")) {
            cfg->defaults.monitor = false;
        }
        return true;
    case QEMU_OPTION_chardev:
        return parse_chardev(optarg, errp);
    case QEMU_OPTION_netdev:
        return parse_net_option(optarg, cfg->netdevs, netdev_check, errp);
    case QEMU_OPTION_nic:
        return parse_net_option(optarg, cfg->nics, nic_check, errp);
    case QEMU_OPTION_net:
        return parse_net_option(optarg, cfg->nets, net_legacy_check, errp);
    case QEMU_OPTION_mon:
        cfg->defaults.monitor = false;
        return parse_mon(optarg, errp);
    case QEMU_OPTION_monitor:
        /* QEMU's test: anything starting with "none" is no monitor. */
        if (strncmp(optarg, "none", 4)) {
            add_compat_monitor(optarg, "readline", false);
        }
        cfg->defaults.monitor = false;
        return true;
    case QEMU_OPTION_qmp:
    case QEMU_OPTION_qmp_pretty:
        add_compat_monitor(optarg, "control",
                           popt->index == QEMU_OPTION_qmp_pretty);
        return true;
    case QEMU_OPTION_qtest:
        cmdline_item_free(cfg->qtest);
        cfg->qtest = take_spec(optarg);
        return true;
    case QEMU_OPTION_qtest_log:
        set_string(&cfg->qtest_log, optarg);
        return true;
    case QEMU_OPTION_D:
        return qemu_log_set_file(optarg, errp);
    case QEMU_OPTION_d:
        return parse_debug(optarg, errp);
    case QEMU_OPTION_msg:
        return parse_msg(optarg, errp);
    case QEMU_OPTION_nodefaults:
        cfg->nodefaults = true;
        return true;
    case QEMU_OPTION_snapshot:
        cfg->snapshot = true;
        return true;
    case QEMU_OPTION_readconfig:
        return read_config_file(optarg, false, errp);
    case QEMU_OPTION_no_user_config:
        /* cmdline_parse() looked for it before the other options. */
        return true;
    case QEMU_OPTION_S:
        autostart = false;
        return true;
    case QEMU_OPTION_daemonize:
        cfg->daemonize = true;
        return true;
    case QEMU_OPTION_pidfile:
        set_string(&cfg->pidfile, optarg);
        return true;
    case QEMU_OPTION_action:
        return parse_action(optarg, errp);
    case QEMU_OPTION_L:
        if (is_help_option(optarg)) {
            qemu_print_data_dirs();
            exit(0);
        }
        qemu_add_data_dir(optarg);
        return true;
    case QEMU_OPTION_no_reboot:
        return parse_action("reboot=shutdown", errp);
    case QEMU_OPTION_no_shutdown:
        return parse_action("shutdown=pause", errp);
    case QEMU_OPTION_incoming:
        set_string(&cfg->incoming, optarg);
        loc_free(&cfg->incoming_loc);
        loc_save(&cfg->incoming_loc);
        return true;
    }
    error_setg(errp, "option not handled");
    return false;
}

/* The -readconfig groups, by QEMU's names, and the option each one feeds. */
static const struct {
    const char *group;
    int option;
} config_groups[] = {
    { "accel", QEMU_OPTION_accel },
    { "action", QEMU_OPTION_action },
    { "boot-opts", QEMU_OPTION_boot },
    { "chardev", QEMU_OPTION_chardev },
    { "device", QEMU_OPTION_device },
    { "drive", QEMU_OPTION_drive },
    { "global", QEMU_OPTION_global },
    { "machine", QEMU_OPTION_machine },
    { "memory", QEMU_OPTION_m },
    { "mon", QEMU_OPTION_mon },
    { "msg", QEMU_OPTION_msg },
    { "name", QEMU_OPTION_name },
    { "net", QEMU_OPTION_net },
    { "netdev", QEMU_OPTION_netdev },
    { "object", QEMU_OPTION_object },
    { "overcommit", QEMU_OPTION_overcommit },
    { "rtc", QEMU_OPTION_rtc },
    { "sandbox", QEMU_OPTION_sandbox },
    { "smp-opts", QEMU_OPTION_smp },
};

/*
 * A config file group is handled as its option with the group's keys
 * (and id=) as the argument, so both take the same checks.
 */
static bool handle_config_group(const ConfigGroup *group, void *opaque,
                                Error **errp)
{
    const QEMUOption *popt = NULL;
    QemuOpts *opts;
    char *arg;
    bool ok;

    for (size_t i = 0; i < G_N_ELEMENTS(config_groups); i++) {
        if (!strcmp(config_groups[i].group, group->name)) {
            for (popt = qemu_options;
                 popt->index != config_groups[i].option; popt++) {
            }
            break;
        }
    }
    if (!popt) {
        error_setg(errp, "There is no option group '%s'", group->name);
        return false;
    }
    opts = qemu_opts_new();
    if (group->id) {
        qemu_opts_set(opts, "id", group->id);
    }
    for (unsigned i = 0; i < group->keys->len; i++) {
        const char *key = g_ptr_array_index(group->keys, i);

        /* "a=b" would be read back as key a; QEMU knows no such key. */
        if (!*key || strchr(key, '=')) {
            error_setg(errp, "Invalid parameter '%s'", key);
            qemu_opts_free(opts);
            return false;
        }
        qemu_opts_set(opts, key, g_ptr_array_index(group->values, i));
    }
    arg = qemu_opts_to_string(opts);
    qemu_opts_free(opts);
    ok = handle_option(popt, arg, errp);
    g_free(arg);
    return ok;
}

/* -readconfig FILE; optional: the default file, which need not exist. */
static bool read_config_file(const char *file, bool optional, Error **errp)
{
    FILE *f = fopen(file, "r");
    GString *text;
    char buf[4096];
    size_t n;
    bool ok;

    if (!f) {
        if (optional && errno == ENOENT) {
            return true;
        }
        error_setg(errp, "Could not open '%s': %s", file, strerror(errno));
        return false;
    }
    text = g_string_new(NULL);
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        g_string_append_len(text, buf, n);
    }
    if (ferror(f)) {
        error_setg(errp, "error reading file");
        ok = false;
    } else {
        ok = config_file_parse(text->str, text->len, file,
                               handle_config_group, NULL, errp);
    }
    fclose(f);
    g_string_free(text, TRUE);
    return ok;
}

bool cmdline_parse(int argc, char **argv, VmConfig *config, Error **errp)
{
    bool user_config = true;
    const char *optarg;
    int optind;

    cfg = config;

    /* First pass: every word must be a known option with its argument. */
    for (optind = 1; optind < argc;) {
        const QEMUOption *popt = lookup_opt(argc, argv, &optind, &optarg,
                                            errp);

        if (!popt) {
            return false;
        }
        user_config &= popt->index != QEMU_OPTION_no_user_config;
    }
    /* As QEMU, the default file comes before the command line. */
    loc_clear();
    if (user_config &&
        !read_config_file(CONFIG_QEMU_CONFDIR "/qemu.conf", true, errp)) {
        return false;
    }
    for (optind = 1; optind < argc;) {
        const QEMUOption *popt = lookup_opt(argc, argv, &optind, &optarg,
                                            errp);

        if (!popt || !handle_option(popt, optarg, errp)) {
            return false;
        }
    }
    if (!apply_actions(errp)) {
        return false;
    }
    if (cfg->nodefaults) {
        memset(&cfg->defaults, 0, sizeof(cfg->defaults));
    }
    loc_clear();
    return true;
}

