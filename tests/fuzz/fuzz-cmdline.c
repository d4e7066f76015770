/*
 * libFuzzer target for the option arguments a client (libvirt, a
 * script) hands the command line: the key=value and JSON forms of
 * -object, -device, -blockdev, -netdev, -nic, -net and -audiodev, and
 * the parsers of -smp, -m, -cpu, -boot, -rtc, -global and -overcommit.
 * The first byte picks the option, the rest is its argument. Nothing is
 * created; each parse either gives options or an error, never both and
 * never neither, and options printed back and parsed again print the
 * same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "qemu/option.h"
#include "system/system.h"
#include "system/vm-config.h"

typedef enum FuzzOption {
    OPT_OBJECT, OPT_DEVICE, OPT_BLOCKDEV, OPT_NETDEV, OPT_NIC, OPT_NET,
    OPT_AUDIODEV, OPT_SMP, OPT_MEMORY, OPT_CPU, OPT_BOOT, OPT_RTC,
    OPT_GLOBAL, OPT_OVERCOMMIT, OPT__MAX,
} FuzzOption;

/* The implied key of each key=value form, as the command line has it. */
static const char *const implied[] = {
    [OPT_OBJECT] = "qom-type", [OPT_DEVICE] = "driver",
    [OPT_NETDEV] = "type", [OPT_NIC] = "type", [OPT_NET] = "type",
    [OPT_AUDIODEV] = "driver",
};

static void check_outcome(bool ok, Error *err)
{
    if (ok == (err != NULL)) {
        abort();
    }
    error_free(err);
}

/* Printed, parsed again and printed: the same text. */
static void check_round_trip(const QemuOpts *opts)
{
    char *text = qemu_opts_to_string(opts);
    Error *err = NULL;
    QemuOpts *again = qemu_opts_parse(text, NULL, &err);
    char *text2;

    if (!again) {
        abort();
    }
    text2 = qemu_opts_to_string(again);
    if (strcmp(text, text2)) {
        abort();
    }
    g_free(text2);
    g_free(text);
    qemu_opts_free(again);
}

static void fuzz_opts(FuzzOption o, const char *arg)
{
    bool json = arg[0] == '{' && o <= OPT_AUDIODEV && o != OPT_NIC &&
                o != OPT_NET;
    GPtrArray *objects = g_ptr_array_new();
    Error *err = NULL;
    QemuOpts *opts;
    bool ok;

    opts = json ? qemu_opts_from_json(arg, &err)
                : qemu_opts_parse(arg, implied[o], &err);
    check_outcome(opts != NULL, err);
    if (!opts) {
        g_ptr_array_free(objects, true);
        return;
    }
    check_round_trip(opts);
    err = NULL;
    switch (o) {
    case OPT_OBJECT:
        if (qemu_opt_get(opts, "qom-type")) {
            ok = object_check(opts, objects, &err);
            check_outcome(ok, err);
        }
        break;
    case OPT_NETDEV:
        check_outcome(netdev_check(opts, &err), err);
        break;
    case OPT_NIC:
        check_outcome(nic_check(opts, &err), err);
        break;
    case OPT_NET:
        check_outcome(net_legacy_check(opts, &err), err);
        break;
    default:
        break;
    }
    qemu_opts_free(opts);
    g_ptr_array_free(objects, true);
}

static void fuzz_parser(FuzzOption o, const char *arg)
{
    VmConfig cfg;
    Error *err = NULL;
    MlockState lock = MLOCK_OFF;
    bool pm = false, ok = false;
    QemuOpts *global = NULL;

    vm_config_init(&cfg);
    switch (o) {
    case OPT_SMP:
        ok = smp_parse(arg, &cfg.smp, &err);
        break;
    case OPT_MEMORY:
        ok = memory_parse(arg, &cfg.memory, &err);
        break;
    case OPT_CPU:
        ok = cpu_parse(arg, &cfg.cpu, &err);
        break;
    case OPT_BOOT:
        ok = boot_parse(arg, &cfg.boot, &err);
        break;
    case OPT_RTC:
        ok = rtc_parse(arg, &cfg.rtc, &err);
        break;
    case OPT_GLOBAL:
        ok = global_parse(arg, &global, &err);
        qemu_opts_free(global);
        break;
    case OPT_OVERCOMMIT:
        ok = overcommit_parse(arg, &lock, &pm, &err);
        break;
    default:
        abort();
    }
    check_outcome(ok, err);
    vm_config_free(&cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzOption o;
    char *arg;

    if (size < 1 || size > 4096) {
        return 0;
    }
    o = data[0] % OPT__MAX;
    arg = g_strndup((const char *)data + 1, size - 1);
    if (o < OPT_SMP) {
        fuzz_opts(o, arg);
    } else {
        fuzz_parser(o, arg);
    }
    g_free(arg);
    return 0;
}
