/*
 * The rest of the emulator as the QMP dispatcher test sees it: no memory
 * backends, no vCPUs.
 */
#include "system/cpus.h"
#include "system/hostmem.h"

void host_memory_backend_foreach(void (*fn)(HostMemoryBackend *be,
                                            void *opaque), void *opaque)
{
}

JsonArray *cpus_query_fast(void)
{
    return json_array_new();
}
