/* Debian's qemu-img for the tests (qemu-img.h). */
#include <stdarg.h>

#include "qemu-img.h"

bool qemu_img_available(void)
{
    g_autofree char *path = g_find_program_in_path("qemu-img");

    return path != NULL;
}

static int run(const char *args, char **out)
{
    g_autofree char *cmd = g_strconcat("qemu-img ", args, NULL);
    g_autofree char *err = NULL;
    int status = -1;

    g_assert_true(g_spawn_command_line_sync(cmd, out, &err, &status, NULL));
    if (status) {
        g_test_message("%s: %s%s", cmd, *out, err);
    }
    return status;
}

int qemu_img(const char *fmt, ...)
{
    g_autofree char *args = NULL, *out = NULL;
    va_list ap;

    va_start(ap, fmt);
    args = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return run(args, &out);
}

char *qemu_img_output(const char *fmt, ...)
{
    g_autofree char *args = NULL;
    char *out = NULL;
    va_list ap;

    va_start(ap, fmt);
    args = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (run(args, &out)) {
        g_clear_pointer(&out, g_free);
    }
    return out;
}
