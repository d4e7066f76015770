/*
 * Debug logging selected with -d and sent to stderr or -D FILE.
 */
#ifndef QEMU_LOG_H
#define QEMU_LOG_H

#include <stdbool.h>

#include "qemu/error.h"

#define LOG_GUEST_ERROR   (1u << 0)
#define LOG_UNIMP         (1u << 1)
#define LOG_INT           (1u << 2)
#define LOG_CPU_RESET     (1u << 3)
#define LOG_IN_ASM        (1u << 4)
#define LOG_TCG_STATS     (1u << 5)
#define LOG_GUEST_RAM     (1u << 6)
#define LOG_NOTIFY        (1u << 7)

extern unsigned qemu_loglevel;

static inline bool qemu_loglevel_mask(unsigned mask)
{
    return (qemu_loglevel & mask) != 0;
}

/* Parse "item1,item2"; "help" is not an item (the caller prints it). */
bool qemu_log_parse_items(const char *str, unsigned *mask, Error **errp);
void qemu_log_print_items(void);
bool qemu_log_set_file(const char *path, Error **errp);
void qemu_log_close(void);
/* The log's descriptor (-D FILE or stderr), its buffer flushed first. */
int qemu_log_fd(void);
void qemu_log(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

#define qemu_log_mask(mask, ...)              \
    do {                                      \
        if (qemu_loglevel_mask(mask)) {       \
            qemu_log(__VA_ARGS__);            \
        }                                     \
    } while (0)

#endif
