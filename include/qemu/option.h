/*
 * QEMU-style option arguments: "key=value,key=value" with an implied
 * first key, ",," for a literal comma and a bare "key" meaning key=on.
 */
#ifndef QEMU_OPTION_H
#define QEMU_OPTION_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

typedef struct QemuOpt {
    char *name;
    char *value;
} QemuOpt;

/* Options in the order given; a later key overrides an earlier one. */
typedef struct QemuOpts {
    GPtrArray *list;                /* of QemuOpt * */
} QemuOpts;

typedef enum QemuOptType {
    QEMU_OPT_STRING,
    QEMU_OPT_BOOL,
    QEMU_OPT_NUMBER,
    QEMU_OPT_SIZE,
} QemuOptType;

typedef struct QemuOptDesc {
    const char *name;
    QemuOptType type;
} QemuOptDesc;

/* implied_key may be NULL: then a first bare word means word=on. */
QemuOpts *qemu_opts_parse(const char *params, const char *implied_key,
                          Error **errp);
QemuOpts *qemu_opts_new(void);
void qemu_opts_free(QemuOpts *opts);
void qemu_opts_set(QemuOpts *opts, const char *name, const char *value);
/* Append src's options to dst (repeated -machine merges this way). */
void qemu_opts_merge(QemuOpts *dst, const QemuOpts *src);
/* The last value given for name, or NULL. */
const char *qemu_opt_get(const QemuOpts *opts, const char *name);
unsigned qemu_opts_count(const QemuOpts *opts);
const QemuOpt *qemu_opts_nth(const QemuOpts *opts, unsigned n);
/* "a=1,b=x,,y" again, for messages and saved command lines. */
char *qemu_opts_to_string(const QemuOpts *opts);

/*
 * The first key not in desc (a table ending with a NULL name), or NULL
 * when every key is known.
 */
const char *qemu_opts_find_unknown(const QemuOpts *opts,
                                   const QemuOptDesc *desc);
/* Unknown keys are "Invalid parameter 'x'"; values are type-checked. */
bool qemu_opts_validate(const QemuOpts *opts, const QemuOptDesc *desc,
                        Error **errp);

/*
 * Typed getters: leave *value untouched when the key is absent, so the
 * caller presets the default. They fail with QEMU's wording.
 */
bool qemu_opt_get_bool(const QemuOpts *opts, const char *name, bool *value,
                       Error **errp);
bool qemu_opt_get_number(const QemuOpts *opts, const char *name,
                         uint64_t *value, Error **errp);
bool qemu_opt_get_size(const QemuOpts *opts, const char *name,
                       uint64_t *value, Error **errp);

/* QEMU's rule for ids: a letter, then letters, digits, '-', '.', '_'. */
bool id_wellformed(const char *id);

/* Value parsers shared with options that have their own syntax. */
bool qemu_parse_bool(const char *name, const char *str, bool *value,
                     Error **errp);
bool qemu_parse_number(const char *name, const char *str, uint64_t *value,
                       Error **errp);
/*
 * A size with an optional K/M/G/T/P/E suffix (binary multiples, a
 * decimal fraction allowed); default_unit applies without a suffix.
 */
bool qemu_parse_size(const char *name, const char *str, uint64_t default_unit,
                     uint64_t *value, Error **errp);
/* 0, -EINVAL (not a size) or -ERANGE (does not fit 64 bits). */
int qemu_strtosz(const char *str, uint64_t default_unit, uint64_t *value);

#endif
