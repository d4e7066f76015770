/*
 * The registry of RAM regions that migrate (include/vmstate/ram-regions.h).
 */
#include <glib.h>

#include "system/memory.h"
#include "vmstate/ram-regions.h"

static GPtrArray *regions;      /* of RamRegion *, registration order */

void ram_migration_register(MemoryRegion *mr)
{
    RamRegion *r = g_new0(RamRegion, 1);

    if (!regions) {
        regions = g_ptr_array_new_with_free_func(g_free);
    }
    r->mr = mr;
    r->pages = (mr->size + RAM_REGION_PAGE_SIZE - 1) / RAM_REGION_PAGE_SIZE;
    g_ptr_array_add(regions, r);
}

void ram_migration_unregister(MemoryRegion *mr)
{
    for (guint i = 0; regions && i < regions->len; i++) {
        RamRegion *r = g_ptr_array_index(regions, i);

        if (r->mr == mr) {
            g_free(r->todo);
            g_ptr_array_remove_index(regions, i);
            break;
        }
    }
    if (regions && !regions->len) {
        g_clear_pointer(&regions, g_ptr_array_unref);
    }
}

unsigned ram_regions_count(void)
{
    return regions ? regions->len : 0;
}

RamRegion *ram_region_at(unsigned i)
{
    return g_ptr_array_index(regions, i);
}
