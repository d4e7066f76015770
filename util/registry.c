/*
 * Registries of self-registering classes (include/qemu/registry.h).
 */
#include <string.h>

#include "qemu/registry.h"

typedef struct RegistryEntry {
    const void *item;
    const char *name;
    int order;
} RegistryEntry;

static int entry_cmp(const Registry *r, const RegistryEntry *a,
                     const RegistryEntry *b)
{
    int c = strcmp(a->name, b->name);

    if (a->order != b->order) {
        return a->order < b->order ? -1 : 1;
    }
    return r->names_descending ? -c : c;
}

void registry_add(Registry *r, const void *item, const char *name,
                  int order)
{
    RegistryEntry e = { item, name, order };
    guint i;

    if (!r->entries) {
        r->entries = g_array_new(FALSE, FALSE, sizeof(RegistryEntry));
    }
    i = r->entries->len;
    while (i > 0 && entry_cmp(r, &g_array_index(r->entries, RegistryEntry,
                                                i - 1), &e) > 0) {
        i--;
    }
    g_array_insert_val(r->entries, i, e);
}

const void *registry_at(const Registry *r, unsigned i)
{
    if (!r->entries || i >= r->entries->len) {
        return NULL;
    }
    return g_array_index(r->entries, RegistryEntry, i).item;
}

const void *registry_find(const Registry *r, const char *name)
{
    for (guint i = 0; r->entries && i < r->entries->len; i++) {
        RegistryEntry *e = &g_array_index(r->entries, RegistryEntry, i);

        if (!strcmp(e->name, name)) {
            return e->item;
        }
    }
    return NULL;
}
