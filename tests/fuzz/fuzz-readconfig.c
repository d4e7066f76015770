/*
 * libFuzzer target for the -readconfig parser (util/config-file.c; built
 * by meson with -Dfuzzing=true, scripts/fuzz.sh readconfig runs it).
 * The first input byte says after how many groups the callback fails;
 * the rest is the file. Every group handed over must hold what the
 * format allows: names, ids and keys of 1 to 63 characters (keys without
 * blanks), values of at most 1023, one value per key, and a location
 * line that is a line of the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "qemu/config-file.h"

typedef struct FuzzState {
    unsigned groups;
    unsigned fail_at;
    unsigned max_line;
} FuzzState;

static void check(bool ok)
{
    if (!ok) {
        abort();
    }
}

static bool fuzz_group(const ConfigGroup *g, void *opaque, Error **errp)
{
    FuzzState *st = opaque;

    check(g->name && strlen(g->name) >= 1 && strlen(g->name) <= 63);
    check(!g->id || (strlen(g->id) >= 1 && strlen(g->id) <= 63 &&
                     !strchr(g->id, '"')));
    check(g->id || !strchr(g->name, ']'));
    check(g->keys->len == g->values->len);
    check(g->line <= st->max_line);
    for (unsigned i = 0; i < g->keys->len; i++) {
        const char *k = g_ptr_array_index(g->keys, i);

        check(strlen(k) >= 1 && strlen(k) <= 63 && !strpbrk(k, " \t\n"));
        check(strlen(g_ptr_array_index(g->values, i)) <= 1023);
        for (unsigned j = 0; j < i; j++) {
            check(strcmp(k, g_ptr_array_index(g->keys, j)) != 0);
        }
    }
    if (++st->groups == st->fail_at) {
        error_setg(errp, "group %u refused", st->groups);
        return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzState st = { 0 };
    Error *err = NULL;
    bool ok;

    if (size < 1) {
        return 0;
    }
    st.fail_at = data[0];
    /* fgets() pieces: at most one line per 1023 bytes or newline. */
    st.max_line = size;
    ok = config_file_parse((const char *)data + 1, size - 1, "fuzz.cfg",
                           fuzz_group, &st, &err);
    check(ok == (err == NULL));
    check(!ok || !st.fail_at || st.groups < st.fail_at);
    error_free(err);
    loc_clear();
    return 0;
}
