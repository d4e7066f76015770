/*
 * memory-backend-ram: anonymous memory, shared (share=on) or private.
 */
#include <unistd.h>

#include "qom/object.h"
#include "system/hostmem.h"

static bool ram_backend_alloc(HostMemoryBackend *be, Error **errp)
{
    uint32_t flags = (be->share ? RAM_SHARED : 0) |
                     (be->reserve ? 0 : RAM_NORESERVE);

    if (!host_memory_check_size(be->size, 0, getpagesize(), errp)) {
        return false;
    }
    be->ram = ram_block_new(be->id, -1, be->size, getpagesize(), 0, flags,
                            errp);
    return be->ram != NULL;
}

static const Property ram_backend_props[] = {
    HOST_MEMORY_BACKEND_PROPS(false),
    PROP_END,
};

static const HostMemoryBackendClass memory_backend_ram_class = {
    .type = "memory-backend-ram",
    .props = ram_backend_props,
    .alloc = ram_backend_alloc,
};

HOST_MEMORY_BACKEND_CLASS_REGISTER(memory_backend_ram_class, 0)
