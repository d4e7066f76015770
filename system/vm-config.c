/*
 * Parsers for the options whose argument has its own rules (-smp, -m,
 * -uuid, -cpu, -boot, -rtc, -global, -object). Each is a pure function
 * of its argument so unit tests can drive it.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <json-glib/json-glib.h>

#include "system/secret.h"
#include "system/rng.h"
#include "system/vm-config.h"

const char *const vm_cpu_models[] = { "host", "max", "qemu64", NULL };

void vm_config_init(VmConfig *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->machine.opts = qemu_opts_new();
    cfg->machine.dump_guest_core = true;
    cfg->machine.mem_merge = true;
    cfg->accels = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->objects = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->devices = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->drives = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->blockdevs = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->globals = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->chardevs = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->serials = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->monitors = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->compat_monitors = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->netdevs = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->nics = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->nets = g_ptr_array_new_with_free_func(cmdline_item_free);
    cfg->cpu.features = g_ptr_array_new_with_free_func(g_free);
    cfg->boot.order = g_strdup("cad");
    cfg->defaults = (DefaultDevices) {
        .serial = true, .monitor = true, .vga = true,
    };
}

void vm_config_free(VmConfig *cfg)
{
    qemu_opts_free(cfg->machine.opts);
    loc_free(&cfg->machine.loc);
    g_free(cfg->machine.type);
    g_free(cfg->machine.accel);
    g_free(cfg->machine.memory_backend);
    g_ptr_array_free(cfg->accels, TRUE);
    g_ptr_array_free(cfg->objects, TRUE);
    g_ptr_array_free(cfg->devices, TRUE);
    g_ptr_array_free(cfg->drives, TRUE);
    g_ptr_array_free(cfg->blockdevs, TRUE);
    g_ptr_array_free(cfg->globals, TRUE);
    g_ptr_array_free(cfg->chardevs, TRUE);
    g_ptr_array_free(cfg->serials, TRUE);
    g_ptr_array_free(cfg->monitors, TRUE);
    g_ptr_array_free(cfg->compat_monitors, TRUE);
    g_ptr_array_free(cfg->netdevs, TRUE);
    g_ptr_array_free(cfg->nics, TRUE);
    g_ptr_array_free(cfg->nets, TRUE);
    cmdline_item_free(cfg->qtest);
    cmdline_item_free(cfg->action);
    g_free(cfg->cpu.model);
    g_ptr_array_free(cfg->cpu.features, TRUE);
    loc_free(&cfg->cpu.loc);
    loc_free(&cfg->smp.loc);
    g_free(cfg->memory.mem_path);
    loc_free(&cfg->memory.loc);
    g_free(cfg->qtest_log);
    g_free(cfg->kernel);
    g_free(cfg->bios);
    if (cfg->smbios) {
        g_ptr_array_free(cfg->smbios, true);
    }
    g_free(cfg->initrd);
    g_free(cfg->append);
    loc_free(&cfg->kernel_loc);
    g_free(cfg->incoming);
    loc_free(&cfg->incoming_loc);
    g_free(cfg->boot.order);
    g_free(cfg->boot.once);
    g_free(cfg->boot.splash);
    g_free(cfg->rtc.clock);
    g_free(cfg->pidfile);
    g_free(cfg->process_name);
    memset(cfg, 0, sizeof(*cfg));
}

CmdlineItem *cmdline_item_new(QemuOpts *opts)
{
    CmdlineItem *item = g_new0(CmdlineItem, 1);

    loc_save(&item->loc);
    item->opts = opts;
    return item;
}

void cmdline_item_free(gpointer p)
{
    CmdlineItem *item = p;

    if (item) {
        loc_free(&item->loc);
        qemu_opts_free(item->opts);
        g_free(item);
    }
}

/* -smp [cpus=]n[,maxcpus=n][,sockets=n][,cores=n][,threads=n] */
bool smp_parse(const char *arg, SmpOptions *smp, Error **errp)
{
    static const char *const keys[] = {
        "cpus", "maxcpus", "sockets", "cores", "threads", "dies", NULL
    };
    unsigned *fields[] = {
        &smp->cpus, &smp->maxcpus, &smp->sockets, &smp->cores, &smp->threads,
        NULL,
    };
    QemuOpts *opts = qemu_opts_parse(arg, "cpus", errp);
    unsigned dies = 1;

    if (!opts) {
        return false;
    }
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const QemuOpt *opt = qemu_opts_nth(opts, i);
        unsigned k;
        char *end;
        guint64 v;

        for (k = 0; keys[k] && strcmp(keys[k], opt->name); k++) {
        }
        if (!keys[k]) {
            error_setg(errp, "Parameter 'smp.%s' is unexpected", opt->name);
            goto fail;
        }
        errno = 0;
        v = g_ascii_strtoull(opt->value, &end, 10);
        if (!g_ascii_isdigit(opt->value[0]) || *end || errno ||
            v > UINT32_MAX) {
            error_setg(errp, "Parameter 'smp.%s' expects integer", opt->name);
            goto fail;
        }
        if (fields[k]) {
            *fields[k] = (unsigned)v;
        } else {
            dies = (unsigned)v;
        }
    }
    if (dies != 1) {
        error_setg(errp, "dies not supported by this machine's CPU topology");
        goto fail;
    }
    /* 0 means "not given", so an explicit 0 is rejected here. */
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const QemuOpt *opt = qemu_opts_nth(opts, i);

        if (g_ascii_strtoull(opt->value, NULL, 10) == 0) {
            error_setg(errp, "Invalid CPU topology: CPU topology parameters "
                       "must be greater than zero");
            goto fail;
        }
    }
    smp->given = true;
    qemu_opts_free(opts);
    return true;

fail:
    qemu_opts_free(opts);
    return false;
}

/*
 * Fill in what -smp left out, preferring cores over sockets as QEMU's
 * machines since 6.2 do, then check the topology against the machine.
 */
bool smp_finalize(SmpOptions *smp, const char *machine, unsigned max_cpus,
                  Error **errp)
{
    uint64_t cpus = smp->cpus, maxcpus = smp->maxcpus;
    uint64_t sockets = smp->sockets, cores = smp->cores;
    uint64_t threads = smp->threads;

    if (cpus == 0 && maxcpus == 0) {
        sockets = sockets ? sockets : 1;
        cores = cores ? cores : 1;
        threads = threads ? threads : 1;
    } else {
        maxcpus = maxcpus ? maxcpus : cpus;
        if (cores == 0) {
            sockets = sockets ? sockets : 1;
            threads = threads ? threads : 1;
            cores = maxcpus / (sockets * threads);
        } else if (sockets == 0) {
            threads = threads ? threads : 1;
            sockets = maxcpus / (cores * threads);
        }
        if (threads == 0) {
            threads = maxcpus / (sockets * cores);
        }
    }
    maxcpus = maxcpus ? maxcpus : sockets * cores * threads;
    cpus = cpus ? cpus : maxcpus;

    if (sockets * cores * threads != maxcpus) {
        error_setg(errp, "Invalid CPU topology: product of the hierarchy "
                   "must match maxcpus: sockets (%u) * cores (%u) * "
                   "threads (%u) != maxcpus (%u)", (unsigned)sockets,
                   (unsigned)cores, (unsigned)threads, (unsigned)maxcpus);
        return false;
    }
    if (maxcpus < cpus) {
        error_setg(errp, "Invalid CPU topology: maxcpus must be equal to or "
                   "greater than smp: sockets (%u) * cores (%u) * "
                   "threads (%u) == maxcpus (%u) < smp_cpus (%u)",
                   (unsigned)sockets, (unsigned)cores, (unsigned)threads,
                   (unsigned)maxcpus, (unsigned)cpus);
        return false;
    }
    if (maxcpus > max_cpus) {
        error_setg(errp, "Invalid SMP CPUs %u. The max CPUs supported by "
                   "machine '%s' is %u", (unsigned)maxcpus, machine,
                   max_cpus);
        return false;
    }
    smp->cpus = cpus;
    smp->maxcpus = maxcpus;
    smp->sockets = sockets;
    smp->cores = cores;
    smp->threads = threads;
    return true;
}

/* -m [size=]megs[,slots=n,maxmem=size] */
bool memory_parse(const char *arg, MemoryOptions *mem, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "size", QEMU_OPT_STRING },
        { "slots", QEMU_OPT_NUMBER },
        { "maxmem", QEMU_OPT_SIZE },
        { NULL },
    };
    QemuOpts *opts = qemu_opts_parse(arg, "size", errp);
    const char *size;
    uint64_t slots = 0, maxmem = 0, sz = mem->size;
    bool ok = false;

    if (!opts || !qemu_opts_validate(opts, desc, errp)) {
        goto out;
    }
    size = qemu_opt_get(opts, "size");
    if (size && !qemu_parse_size("size", size, 1 << 20, &sz, errp)) {
        goto out;
    }
    if (!qemu_opt_get_number(opts, "slots", &slots, errp) ||
        !qemu_opt_get_size(opts, "maxmem", &maxmem, errp)) {
        goto out;
    }
    if (sz && sz < (1 << 20)) {
        error_setg(errp, "memory size 0x%llx is less than 1 MiB",
                   (unsigned long long)sz);
        goto out;
    }
    if (slots && !maxmem) {
        error_setg(errp, "slots specified but no max-size");
        goto out;
    }
    if (maxmem && !slots) {
        error_setg(errp, "maxmem specified but no slots; give both or "
                   "neither");
        goto out;
    }
    if (maxmem && maxmem < sz) {
        error_setg(errp, "invalid value of maxmem: maximum memory size "
                   "(0x%llx) must be at least the initial memory size "
                   "(0x%llx)", (unsigned long long)maxmem,
                   (unsigned long long)sz);
        goto out;
    }
    mem->size = sz;
    mem->slots = slots;
    mem->maxmem = maxmem;
    mem->given = true;
    ok = true;
out:
    qemu_opts_free(opts);
    return ok;
}

/* xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
bool uuid_parse(const char *str, uint8_t uuid[16], Error **errp)
{
    static const int dash[] = { 8, 13, 18, 23 };
    uint8_t out[16];
    int n = 0;

    if (strlen(str) != 36) {
        goto bad;
    }
    for (int i = 0, d = 0; i < 36; i++) {
        if (d < 4 && i == dash[d]) {
            if (str[i] != '-') {
                goto bad;
            }
            d++;
            continue;
        }
        if (!g_ascii_isxdigit(str[i]) || !g_ascii_isxdigit(str[i + 1])) {
            goto bad;
        }
        out[n++] = g_ascii_xdigit_value(str[i]) << 4 |
                   g_ascii_xdigit_value(str[i + 1]);
        i++;
    }
    memcpy(uuid, out, 16);
    return true;
bad:
    error_setg(errp, "failed to parse UUID string: wrong format");
    return false;
}

/* -cpu model[,+feature|-feature|feature=value...] */
bool cpu_parse(const char *arg, CpuOptions *cpu, Error **errp)
{
    char **parts = g_strsplit(arg, ",", -1);

    if (!parts[0] || !parts[0][0]) {
        error_setg(errp, "CPU model name is missing");
        g_strfreev(parts);
        return false;
    }
    g_free(cpu->model);
    cpu->model = g_strdup(parts[0]);
    g_ptr_array_set_size(cpu->features, 0);
    for (int i = 1; parts[i]; i++) {
        const char *f = parts[i];
        const char *name = (f[0] == '+' || f[0] == '-') ? f + 1 : f;

        if (!*name || *name == '=') {
            error_setg(errp, "Invalid CPU feature '%s'", f);
            g_strfreev(parts);
            return false;
        }
        g_ptr_array_add(cpu->features, g_strdup(f));
    }
    g_strfreev(parts);
    return true;
}

/* Boot devices: QEMU's letters a to p, each at most once. */
static bool boot_drives_valid(const char *drives, Error **errp)
{
    for (const char *p = drives; *p; p++) {
        if (*p < 'a' || *p > 'p') {
            error_setg(errp, "Invalid boot device '%c'", *p);
            return false;
        }
        if (strchr(p + 1, *p)) {
            error_setg(errp, "Boot device '%c' was given twice", *p);
            return false;
        }
    }
    return true;
}

/* An integer -boot key in [min, max]; the messages are QEMU 7.2's. */
static bool boot_get_int(const QemuOpts *opts, const char *name,
                         int64_t min, int64_t max, const char *range_msg,
                         uint64_t *value, bool *set, Error **errp)
{
    const char *s = qemu_opt_get(opts, name);
    char *end;
    int64_t v;

    if (!s) {
        return true;
    }
    errno = 0;
    v = g_ascii_strtoll(s, &end, 0);
    if (!*s || *end || errno) {
        error_setg(errp, "Parameter 'boot.%s' expects integer", name);
        return false;
    }
    if (v < min || v > max) {
        error_setg(errp, "%s", range_msg);
        return false;
    }
    *value = (uint64_t)v;
    *set = true;
    return true;
}

static bool boot_get_bool(const QemuOpts *opts, const char *name,
                          bool *value, Error **errp)
{
    const char *s = qemu_opt_get(opts, name);
    char *qname = g_strdup_printf("boot.%s", name);
    bool ok = !s || qemu_parse_bool(qname, s, value, errp);

    g_free(qname);
    return ok;
}

/*
 * -boot [order=]drives[,once=drives][,menu=on|off][,splash=file]
 *       [,splash-time=ms][,reboot-timeout=ms][,strict=on|off]
 * drives are QEMU's letters: a, b floppy, c disk, d CD-ROM, n-p network.
 */
bool boot_parse(const char *arg, BootOptions *boot, Error **errp)
{
    static const char *const keys[] = {
        "order", "once", "menu", "splash", "splash-time", "reboot-timeout",
        "strict", NULL,
    };
    QemuOpts *opts = qemu_opts_parse(arg, "order", errp);
    const char *s;
    bool ok = false;

    if (!opts) {
        return false;
    }
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const char *name = qemu_opts_nth(opts, i)->name;
        unsigned k;

        for (k = 0; keys[k] && strcmp(keys[k], name); k++) {
        }
        if (!keys[k]) {
            error_setg(errp, "Parameter 'boot.%s' is unexpected", name);
            goto out;
        }
    }
    if ((s = qemu_opt_get(opts, "order"))) {
        if (!boot_drives_valid(s, errp)) {
            goto out;
        }
        g_free(boot->order);
        boot->order = g_strdup(s);
    }
    if ((s = qemu_opt_get(opts, "once"))) {
        if (!boot_drives_valid(s, errp)) {
            goto out;
        }
        g_free(boot->once);
        boot->once = g_strdup(s);
    }
    if ((s = qemu_opt_get(opts, "splash"))) {
        g_free(boot->splash);
        boot->splash = g_strdup(s);
    }
    if (!boot_get_bool(opts, "menu", &boot->menu, errp) ||
        !boot_get_bool(opts, "strict", &boot->strict, errp) ||
        !boot_get_int(opts, "splash-time", 0, 0xffff,
                      "splash-time is invalid,it should be a value between "
                      "0 and 65535", &boot->splash_time,
                      &boot->splash_time_set, errp) ||
        !boot_get_int(opts, "reboot-timeout", -1, 0xffff,
                      "reboot timeout is invalid,it should be a value "
                      "between -1 and 65535", &boot->reboot_timeout,
                      &boot->reboot_timeout_set, errp)) {
        goto out;
    }
    ok = true;
out:
    qemu_opts_free(opts);
    return ok;
}

static bool rtc_parse_datetime(const char *s, int64_t *t)
{
    struct tm tm = { 0 };
    char *end;
    GDateTime *dt;

    end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || *end) {
        memset(&tm, 0, sizeof(tm));
        end = strptime(s, "%Y-%m-%d", &tm);
        if (!end || *end) {
            return false;
        }
    }
    dt = g_date_time_new_utc(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                             tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (!dt) {
        return false;
    }
    *t = g_date_time_to_unix(dt);
    g_date_time_unref(dt);
    return true;
}

int64_t rtc_options_start(const RtcOptions *rtc, int64_t now)
{
    time_t t = now;
    struct tm tm;

    switch (rtc->base) {
    case RTC_BASE_LOCALTIME:
        return localtime_r(&t, &tm) ? now + tm.tm_gmtoff : now;
    case RTC_BASE_DATETIME:
        return rtc->base_time;
    case RTC_BASE_UTC:
    default:
        return now;
    }
}

/* -rtc [base=utc|localtime|date][,clock=host|rt|vm][,driftfix=none|slew] */
bool rtc_parse(const char *arg, RtcOptions *rtc, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "base", QEMU_OPT_STRING },
        { "clock", QEMU_OPT_STRING },
        { "driftfix", QEMU_OPT_STRING },
        { NULL },
    };
    QemuOpts *opts = qemu_opts_parse(arg, NULL, errp);
    const char *s;
    bool ok = false;

    if (!opts || !qemu_opts_validate(opts, desc, errp)) {
        goto out;
    }
    if ((s = qemu_opt_get(opts, "base"))) {
        if (!strcmp(s, "utc")) {
            rtc->base = RTC_BASE_UTC;
        } else if (!strcmp(s, "localtime")) {
            rtc->base = RTC_BASE_LOCALTIME;
        } else if (rtc_parse_datetime(s, &rtc->base_time)) {
            rtc->base = RTC_BASE_DATETIME;
        } else {
            error_setg(errp, "invalid datetime format; valid formats: "
                       "'2006-06-17T16:01:21' or '2006-06-17'");
            goto out;
        }
    }
    if ((s = qemu_opt_get(opts, "clock"))) {
        if (strcmp(s, "host") && strcmp(s, "rt") && strcmp(s, "vm")) {
            error_setg(errp, "invalid option value '%s'", s);
            goto out;
        }
        g_free(rtc->clock);
        rtc->clock = g_strdup(s);
    }
    if ((s = qemu_opt_get(opts, "driftfix"))) {
        if (!strcmp(s, "slew")) {
            rtc->driftfix_slew = true;
        } else if (!strcmp(s, "none")) {
            rtc->driftfix_slew = false;
        } else {
            error_setg(errp, "invalid option value '%s'", s);
            goto out;
        }
    }
    ok = true;
out:
    qemu_opts_free(opts);
    return ok;
}

/* -global DRIVER.PROP=VALUE or -global driver=D,property=P,value=V */
bool global_parse(const char *arg, QemuOpts **out, Error **errp)
{
    static const QemuOptDesc desc[] = {
        { "driver", QEMU_OPT_STRING },
        { "property", QEMU_OPT_STRING },
        { "value", QEMU_OPT_STRING },
        { NULL },
    };
    const char *eq = strchr(arg, '=');
    const char *dot = eq ? memchr(arg, '.', eq - arg) : NULL;
    QemuOpts *opts;

    if (dot && dot > arg && eq > dot + 1 && !memchr(arg, ',', eq - arg)) {
        char *driver = g_strndup(arg, dot - arg);
        char *prop = g_strndup(dot + 1, eq - dot - 1);

        opts = qemu_opts_new();
        qemu_opts_set(opts, "driver", driver);
        qemu_opts_set(opts, "property", prop);
        qemu_opts_set(opts, "value", eq + 1);
        g_free(driver);
        g_free(prop);
        *out = opts;
        return true;
    }
    opts = qemu_opts_parse(arg, NULL, errp);
    if (!opts || !qemu_opts_validate(opts, desc, errp)) {
        qemu_opts_free(opts);
        return false;
    }
    for (const QemuOptDesc *d = desc; d->name; d++) {
        if (!qemu_opt_get(opts, d->name)) {
            error_setg(errp, "Parameter '%s' is missing", d->name);
            qemu_opts_free(opts);
            return false;
        }
    }
    *out = opts;
    return true;
}

/*
 * Each -object type and the properties it takes. The backends behind
 * them are built by the RAM code; this only validates the command line.
 */
static const QemuOptDesc backend_common[] = {
    { "qom-type", QEMU_OPT_STRING }, { "id", QEMU_OPT_STRING },
    { "size", QEMU_OPT_SIZE }, { "share", QEMU_OPT_BOOL },
    { "prealloc", QEMU_OPT_BOOL }, { "prealloc-threads", QEMU_OPT_NUMBER },
    { "merge", QEMU_OPT_BOOL }, { "dump", QEMU_OPT_BOOL },
    { "reserve", QEMU_OPT_BOOL }, { "policy", QEMU_OPT_STRING },
    { "host-nodes", QEMU_OPT_STRING },
    { "mem-path", QEMU_OPT_STRING }, { "discard-data", QEMU_OPT_BOOL },
    { "align", QEMU_OPT_SIZE }, { "readonly", QEMU_OPT_BOOL },
    { "pmem", QEMU_OPT_BOOL }, { "rom", QEMU_OPT_STRING },
    { "hugetlb", QEMU_OPT_BOOL }, { "hugetlbsize", QEMU_OPT_SIZE },
    { "seal", QEMU_OPT_BOOL },
    { NULL },
};

/* The keys of -object secret and rng-* (backends/secret.c, rng.c). */
static const QemuOptDesc secret_props[] = {
    { "qom-type", QEMU_OPT_STRING }, { "id", QEMU_OPT_STRING },
    { "data", QEMU_OPT_STRING }, { "file", QEMU_OPT_STRING },
    { "format", QEMU_OPT_STRING }, { "keyid", QEMU_OPT_STRING },
    { "iv", QEMU_OPT_STRING },
    { NULL },
};

static const QemuOptDesc rng_random_props[] = {
    { "qom-type", QEMU_OPT_STRING }, { "id", QEMU_OPT_STRING },
    { "filename", QEMU_OPT_STRING },
    { NULL },
};

static const QemuOptDesc rng_builtin_props[] = {
    { "qom-type", QEMU_OPT_STRING }, { "id", QEMU_OPT_STRING },
    { NULL },
};

static const struct {
    const char *type;
    const char *const *only;    /* keys that belong to this type alone */
    const QemuOptDesc *props;
} object_types[] = {
    { "memory-backend-ram", NULL, backend_common },
    { "memory-backend-file",
      (const char *const[]){ "mem-path", "discard-data", "align",
                             "readonly", "pmem", "rom", NULL },
      backend_common },
    { "memory-backend-memfd",
      (const char *const[]){ "hugetlb", "hugetlbsize", "seal", NULL },
      backend_common },
    { "secret", NULL, secret_props },
    { "rng-random", NULL, rng_random_props },
    { "rng-builtin", NULL, rng_builtin_props },
};

static bool key_belongs(const char *key, const char *type)
{
    for (size_t t = 0; t < G_N_ELEMENTS(object_types); t++) {
        const char *const *only = object_types[t].only;

        for (; only && *only; only++) {
            if (!strcmp(*only, key)) {
                return !strcmp(object_types[t].type, type);
            }
        }
    }
    return true;
}

bool object_check(const QemuOpts *opts, GPtrArray *objects, Error **errp)
{
    const char *type = qemu_opt_get(opts, "qom-type");
    const char *id = qemu_opt_get(opts, "id");
    size_t t;

    if (!type) {
        error_setg(errp, "Parameter 'qom-type' is missing");
        return false;
    }
    for (t = 0; t < G_N_ELEMENTS(object_types); t++) {
        if (!strcmp(object_types[t].type, type)) {
            break;
        }
    }
    if (t == G_N_ELEMENTS(object_types)) {
        error_setg(errp, "Parameter 'qom-type' does not accept value '%s'",
                   type);
        return false;
    }
    if (!id) {
        error_setg(errp, "Parameter 'id' is missing");
        return false;
    }
    if (!id_wellformed(id)) {
        error_setg(errp, "Parameter 'id' expects an identifier");
        return false;
    }
    for (unsigned i = 0; i < objects->len; i++) {
        CmdlineItem *o = g_ptr_array_index(objects, i);

        if (!strcmp(qemu_opt_get(o->opts, "id"), id)) {
            error_setg(errp, "attempt to add duplicate property '%s' to "
                       "object (type 'container')", id);
            return false;
        }
    }
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const char *key = qemu_opts_nth(opts, i)->name;

        if (!key_belongs(key, type)) {
            error_setg(errp, "Property '%s.%s' not found", type, key);
            return false;
        }
    }
    {
        const char *unknown = qemu_opts_find_unknown(opts,
                                                     object_types[t].props);

        if (unknown) {
            error_setg(errp, "Property '%s.%s' not found", type, unknown);
            return false;
        }
    }
    return qemu_opts_validate(opts, object_types[t].props, errp);
}

/* The members of obj into opts, a nested object's under "key.". */
static bool opts_add_json(QemuOpts *opts, const char *prefix,
                          JsonObject *obj, Error **errp)
{
    GList *members = json_object_get_members(obj);
    bool ok = true;

    for (GList *l = members; ok && l; l = l->next) {
        JsonNode *v = json_object_get_member(obj, l->data);
        g_autofree char *key = g_strconcat(prefix, l->data, NULL);
        GType t = JSON_NODE_HOLDS_VALUE(v) ? json_node_get_value_type(v)
                                           : G_TYPE_INVALID;
        char *text = t == G_TYPE_STRING ? g_strdup(json_node_get_string(v)) :
                     t == G_TYPE_BOOLEAN ?
                         g_strdup(json_node_get_boolean(v) ? "on" : "off") :
                     t == G_TYPE_INT64 ?
                         g_strdup_printf("%" G_GINT64_FORMAT,
                                         json_node_get_int(v)) : NULL;

        if (JSON_NODE_HOLDS_OBJECT(v)) {
            g_autofree char *sub = g_strconcat(key, ".", NULL);

            ok = opts_add_json(opts, sub, json_node_get_object(v), errp);
            continue;
        }
        /* null (-blockdev's "backing": null) is the empty value. */
        if (JSON_NODE_HOLDS_NULL(v)) {
            text = g_strdup("");
        }
        if (!text) {
            error_setg(errp, "Parameter '%s' expects a string, number or "
                       "boolean", key);
            ok = false;
            break;
        }
        qemu_opts_set(opts, key, text);
        g_free(text);
    }
    g_list_free(members);
    return ok;
}

/*
 * The JSON form of an option argument ({"id": "a", "size": 1048576,
 * "share": true}) as the QemuOpts its key=value form would give: strings
 * as they are, numbers in decimal, booleans as on/off, and a nested
 * object's members under dotted keys (-blockdev's {"file": {"driver":
 * ...}} is file.driver=...), null as an empty value. Arrays are refused.
 */
QemuOpts *qemu_opts_from_json_object(JsonObject *obj, Error **errp)
{
    QemuOpts *opts = qemu_opts_new();

    if (!opts_add_json(opts, "", obj, errp)) {
        qemu_opts_free(opts);
        return NULL;
    }
    return opts;
}

QemuOpts *qemu_opts_from_json(const char *json, Error **errp)
{
    JsonParser *parser = json_parser_new_immutable();
    GError *gerr = NULL;
    JsonNode *root;
    QemuOpts *opts = NULL;

    if (!json_parser_load_from_data(parser, json, -1, &gerr)) {
        const char *p = strstr(gerr->message, "Parse error: ");

        error_setg(errp, "JSON parse error, %s", p ? p + 13 : gerr->message);
        g_error_free(gerr);
    } else if (!(root = json_parser_get_root(parser)) ||
               !JSON_NODE_HOLDS_OBJECT(root)) {
        error_setg(errp, "JSON argument must be an object");
    } else {
        opts = qemu_opts_from_json_object(json_node_get_object(root), errp);
    }
    g_object_unref(parser);
    return opts;
}
