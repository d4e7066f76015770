/*
 * The tcg accelerator: QEMU's name for its software CPU, here the
 * project's x86-64 interpreter (target/i386, accel/tcg).
 *
 * Properties, as QEMU spells them:
 *   tb-size=N      size of the decoded-block cache in MiB (default 32;
 *                  0 means the default). The cache is allocated as
 *                  blocks are decoded, so -overcommit mem-lock=on does
 *                  not lock a buffer the guest never fills.
 *   thread=single|multi
 *                  QEMU's MTTCG switch. Both are accepted; this
 *                  emulator always runs every vCPU on one thread
 *                  (round-robin), which the guest cannot tell apart
 *                  except by speed.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/boards.h"
#include "target/i386/tb-cache.h"
#include "system/accel.h"
#include "system/cpus.h"
#include "system/tcg.h"

static const QemuOptDesc tcg_props[] = {
    { "tb-size", QEMU_OPT_STRING },
    { "thread", QEMU_OPT_STRING },
    { NULL },
};

/* QEMU's uint32 property: a C number, hex allowed; its error words. */
static bool parse_tb_size(const char *str, uint64_t *mib, Error **errp)
{
    char *end = NULL;
    unsigned long long v;

    if (!*str) {
        error_setg(errp, "Parameter 'tb-size' expects uint64");
        return false;
    }
    v = g_ascii_strtoull(str, &end, 0);
    if (end == str || *end) {
        error_setg(errp, "Parameter 'tb-size' expects uint64");
        return false;
    }
    if (*str == '-' || v > UINT32_MAX) {
        error_setg(errp, "Parameter 'tb-size' expects uint32_t");
        return false;
    }
    *mib = v ? v : TCG_TB_SIZE_DEFAULT_MIB;
    return true;
}

static bool tcg_accel_check(const QemuOpts *props, Error **errp)
{
    const char *tb = qemu_opt_get(props, "tb-size");
    const char *thread = qemu_opt_get(props, "thread");
    uint64_t mib;

    if (tb && !parse_tb_size(tb, &mib, errp)) {
        return false;
    }
    if (thread && strcmp(thread, "single") && strcmp(thread, "multi")) {
        error_setg(errp, "Invalid 'thread' setting %s", thread);
        return false;
    }
    return true;
}

static bool tcg_accel_init(MachineState *ms, const QemuOpts *props,
                           Error **errp)
{
    uint64_t mib = TCG_TB_SIZE_DEFAULT_MIB;
    const char *tb = props ? qemu_opt_get(props, "tb-size") : NULL;

    if (props && !tcg_accel_check(props, errp)) {
        return false;
    }
    if (tb && !parse_tb_size(tb, &mib, errp)) {
        return false;
    }
    return tb_cache_init(mib << 20, errp);
}

/* The board destroyed the vCPUs (and their thread) before this. */
static void tcg_accel_cleanup(void)
{
    tb_cache_cleanup();
}

static const AccelClass tcg_accel_class = {
    .name = "tcg",
    .ops = &tcg_accel_ops,
    .props = tcg_props,
    .check = tcg_accel_check,
    .init = tcg_accel_init,
    .cleanup = tcg_accel_cleanup,
};

ACCEL_CLASS_REGISTER(tcg_accel_class, 0)
