/*
 * The block layer's error policy (include/block/block.h): what a device
 * does about a failed request for each werror/rerror and errno, as in
 * QEMU's blk_get_error_action(), and the io-status a backend keeps: only
 * once a device enabled it and werror is enospc or stop or rerror stop;
 * the first error since the last reset decides failed or nospace. The
 * read side is tested here since no host file gives read errors to a
 * qtest cleanly (virtio-blk-test covers the write side end to end).
 */
#include <errno.h>

#include <glib.h>

#include "block/block.h"

typedef struct PolicyCase {
    BlockdevOnError on_error;
    bool is_read;
    int error;
    BlockErrorAction action;
} PolicyCase;

static const PolicyCase policy_cases[] = {
    { BLOCKDEV_ON_ERROR_REPORT, true, EIO, BLOCK_ERROR_ACTION_REPORT },
    { BLOCKDEV_ON_ERROR_REPORT, false, ENOSPC, BLOCK_ERROR_ACTION_REPORT },
    { BLOCKDEV_ON_ERROR_IGNORE, true, EIO, BLOCK_ERROR_ACTION_IGNORE },
    { BLOCKDEV_ON_ERROR_IGNORE, false, ENOSPC, BLOCK_ERROR_ACTION_IGNORE },
    { BLOCKDEV_ON_ERROR_STOP, true, EIO, BLOCK_ERROR_ACTION_STOP },
    { BLOCKDEV_ON_ERROR_STOP, false, EIO, BLOCK_ERROR_ACTION_STOP },
    { BLOCKDEV_ON_ERROR_ENOSPC, false, ENOSPC, BLOCK_ERROR_ACTION_STOP },
    { BLOCKDEV_ON_ERROR_ENOSPC, false, EIO, BLOCK_ERROR_ACTION_REPORT },
    /* A device's rerror=enospc (QEMU takes it there): the same rule. */
    { BLOCKDEV_ON_ERROR_ENOSPC, true, ENOSPC, BLOCK_ERROR_ACTION_STOP },
    { BLOCKDEV_ON_ERROR_ENOSPC, true, EIO, BLOCK_ERROR_ACTION_REPORT },
};

/* A backend over a node that is never opened: the policy needs none. */
static BlockBackend *backend(const char *name)
{
    static BlockDriverState node;
    BlockBackend *blk = blk_new(name, &node, NULL);

    g_assert_nonnull(blk);
    return blk;
}

static void test_defaults(void)
{
    BlockBackend *blk = backend("defaults");

    /* QEMU's: werror=enospc, rerror=report. */
    g_assert_cmpint(blk_get_on_error(blk, false), ==,
                    BLOCKDEV_ON_ERROR_ENOSPC);
    g_assert_cmpint(blk_get_on_error(blk, true), ==,
                    BLOCKDEV_ON_ERROR_REPORT);
    g_assert_cmpint(blk_get_error_action(blk, false, ENOSPC), ==,
                    BLOCK_ERROR_ACTION_STOP);
    g_assert_cmpint(blk_get_error_action(blk, true, ENOSPC), ==,
                    BLOCK_ERROR_ACTION_REPORT);
    bdrv_close_all();
}

static void test_policy(const void *data)
{
    const PolicyCase *c = data;
    BlockBackend *blk = backend(c->is_read ? "read" : "write");

    /* The other direction keeps a policy that would say otherwise. */
    if (c->is_read) {
        blk_set_on_error(blk, c->on_error, BLOCKDEV_ON_ERROR_IGNORE);
    } else {
        blk_set_on_error(blk, BLOCKDEV_ON_ERROR_IGNORE, c->on_error);
    }
    g_assert_cmpint(blk_get_error_action(blk, c->is_read, c->error), ==,
                    c->action);
    bdrv_close_all();
}

static void test_iostatus(void)
{
    BlockBackend *blk = backend("io");

    /* Not enabled: an error leaves it alone, and it is not shown. */
    g_assert_false(blk_iostatus_is_enabled(blk));
    blk_iostatus_set_err(blk, ENOSPC);
    g_assert_cmpint(blk_iostatus(blk), ==, BLOCK_DEVICE_IO_STATUS_OK);

    blk_iostatus_enable(blk);
    g_assert_true(blk_iostatus_is_enabled(blk));        /* werror=enospc */
    blk_iostatus_set_err(blk, ENOSPC);
    g_assert_cmpint(blk_iostatus(blk), ==, BLOCK_DEVICE_IO_STATUS_NOSPACE);
    blk_iostatus_set_err(blk, EIO);                     /* the first wins */
    g_assert_cmpint(blk_iostatus(blk), ==, BLOCK_DEVICE_IO_STATUS_NOSPACE);
    blk_iostatus_reset(blk);
    blk_iostatus_set_err(blk, EIO);
    g_assert_cmpint(blk_iostatus(blk), ==, BLOCK_DEVICE_IO_STATUS_FAILED);

    /* report/ignore everywhere: QEMU keeps no io-status. */
    blk_set_on_error(blk, BLOCKDEV_ON_ERROR_REPORT, BLOCKDEV_ON_ERROR_IGNORE);
    g_assert_false(blk_iostatus_is_enabled(blk));
    blk_set_on_error(blk, BLOCKDEV_ON_ERROR_STOP, BLOCKDEV_ON_ERROR_REPORT);
    g_assert_true(blk_iostatus_is_enabled(blk));
    blk_set_on_error(blk, BLOCKDEV_ON_ERROR_REPORT, BLOCKDEV_ON_ERROR_STOP);
    g_assert_true(blk_iostatus_is_enabled(blk));
    bdrv_close_all();
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/block-error/defaults", test_defaults);
    for (size_t i = 0; i < G_N_ELEMENTS(policy_cases); i++) {
        char *path = g_strdup_printf("/block-error/policy/%zu", i);

        g_test_add_data_func(path, &policy_cases[i], test_policy);
        g_free(path);
    }
    g_test_add_func("/block-error/iostatus", test_iostatus);
    return g_test_run();
}
