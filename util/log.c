/*
 * -d/-D debug log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "qemu/log.h"

unsigned qemu_loglevel;
static FILE *log_file;

static const struct {
    const char *name;
    unsigned mask;
    const char *help;
} log_items[] = {
    { "guest_errors", LOG_GUEST_ERROR,
      "log when the guest does something invalid (bad device access...)" },
    { "unimp", LOG_UNIMP, "log unimplemented device behaviour" },
    { "int", LOG_INT, "log interrupts and exceptions" },
    { "cpu_reset", LOG_CPU_RESET, "log CPU state at reset" },
    { "in_asm", LOG_IN_ASM, "log guest code as the CPU decodes it" },
    { "tcg_stats", LOG_TCG_STATS,
      "log the software CPU's retired instructions at exit (ours)" },
    { "guest_ram", LOG_GUEST_RAM,
      "log what the teardown did with each guest RAM block at exit (ours)" },
    { "notify", LOG_NOTIFY,
      "log at exit how each virtio-pci device's queue notifications and "
      "MSI-X messages travelled: eventfds or exits (ours)" },
};

bool qemu_log_parse_items(const char *str, unsigned *mask, Error **errp)
{
    char **items = g_strsplit(str, ",", -1);
    unsigned m = 0;
    bool ok = true;

    for (char **it = items; *it && ok; it++) {
        size_t i;

        if (!**it) {
            continue;
        }
        for (i = 0; i < G_N_ELEMENTS(log_items); i++) {
            if (!strcmp(*it, log_items[i].name)) {
                m |= log_items[i].mask;
                break;
            }
        }
        if (i == G_N_ELEMENTS(log_items)) {
            error_setg(errp, "unknown log item '%s'; '-d help' lists them",
                       *it);
            ok = false;
        }
    }
    g_strfreev(items);
    if (ok) {
        *mask = m;
    }
    return ok;
}

void qemu_log_print_items(void)
{
    printf("Log items (comma separated):\n");
    for (size_t i = 0; i < G_N_ELEMENTS(log_items); i++) {
        printf("%-15s %s\n", log_items[i].name, log_items[i].help);
    }
}

bool qemu_log_set_file(const char *path, Error **errp)
{
    FILE *f = fopen(path, "ae");

    if (!f) {
        error_setg_errno(errp, errno, "cannot open log file '%s'", path);
        return false;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    qemu_log_close();
    log_file = f;
    return true;
}

void qemu_log_close(void)
{
    if (log_file) {
        fclose(log_file);
        log_file = NULL;
    }
}

int qemu_log_fd(void)
{
    FILE *f = log_file ? log_file : stderr;

    fflush(f);
    return fileno(f);
}

void qemu_log(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(log_file ? log_file : stderr, fmt, ap);
    va_end(ap);
}
