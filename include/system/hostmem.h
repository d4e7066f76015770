/*
 * Host memory backends: -object memory-backend-{ram,file,memfd}, the
 * RAM they map, and the registry that lists them at /objects/ID and in
 * query-memdev. The machine's RAM is one of them: the one named by
 * -machine memory-backend=, or the one made for -m (and -mem-path).
 */
#ifndef SYSTEM_HOSTMEM_H
#define SYSTEM_HOSTMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"
#include "qemu/option.h"
#include "system/ramblock.h"

struct Object;
typedef struct HostMemoryBackend HostMemoryBackend;

typedef struct HostMemoryBackendClass {
    const char *type;                   /* "memory-backend-ram" */
    const struct Property *props;       /* its -object properties */
    /* Map be->ram from the properties; undone by ram_block_free(). */
    bool (*alloc)(HostMemoryBackend *be, Error **errp);
    /* Creation failed after alloc: remove what alloc made on disk. */
    void (*abandon)(HostMemoryBackend *be);
} HostMemoryBackendClass;

struct HostMemoryBackend {
    /* Properties, common to every type. */
    uint64_t size;
    bool share;
    bool prealloc;
    uint32_t prealloc_threads;
    bool merge;
    bool dump;
    bool reserve;
    char *policy;
    char *host_nodes;
    /* memory-backend-file */
    char *mem_path;
    bool discard_data;
    uint64_t align;
    bool readonly;
    bool pmem;
    char *rom;
    /* memory-backend-memfd */
    bool hugetlb;
    uint64_t hugetlbsize;
    bool seal;

    /* State. */
    char *id;
    const HostMemoryBackendClass *bc;
    RAMBlock *ram;
    bool mapped;                /* used by the machine */
    bool created_file;          /* alloc created the named file */
    int64_t orig_file_size;     /* before alloc extended it, or -1 */
    struct Object *obj;         /* /objects/ID */
};

/*
 * The properties every type has, for the types' tables (which need
 * qom/object.h). share's default differs: on for memfd, off elsewhere.
 */
#define HOST_MEMORY_BACKEND_PROPS(share_default) \
    DEFINE_PROP_SIZE("size", HostMemoryBackend, size, 0), \
    DEFINE_PROP_BOOL("share", HostMemoryBackend, share, share_default), \
    DEFINE_PROP_BOOL("prealloc", HostMemoryBackend, prealloc, false), \
    DEFINE_PROP_UINT32("prealloc-threads", HostMemoryBackend, \
                       prealloc_threads, 1), \
    DEFINE_PROP_BOOL("merge", HostMemoryBackend, merge, true), \
    DEFINE_PROP_BOOL("dump", HostMemoryBackend, dump, true), \
    DEFINE_PROP_BOOL("reserve", HostMemoryBackend, reserve, true), \
    { .name = "policy", .type = PROP_TYPE_STRING, \
      .offset = offsetof(HostMemoryBackend, policy), .defstr = "default" }, \
    DEFINE_PROP_STRING("host-nodes", HostMemoryBackend, host_nodes)

/*
 * The backend types of this binary: each backend file ends with
 * HOST_MEMORY_BACKEND_CLASS_REGISTER(its_class, ORDER), which adds it to
 * the registry of backends/hostmem.c; ORDER places it among the others
 * (QEMU's: ram, file, memfd). The registrations run before the plain
 * constructors (a constructor priority), so that hostmem.c's own makes
 * the QOM types "memory-backend" and then each of the registry's, in
 * ORDER and all in one place of the type list, as qom-list-types shows.
 */
#define HOST_MEMORY_BACKEND_REGISTER_PRIORITY 200
void host_memory_backend_class_register(const HostMemoryBackendClass *bc,
                                        int order);
#define HOST_MEMORY_BACKEND_CLASS_REGISTER(cls, order) \
    static void __attribute__((constructor( \
        HOST_MEMORY_BACKEND_REGISTER_PRIORITY))) cls##_register(void) \
    { \
        host_memory_backend_class_register(&(cls), (order)); \
    }

/*
 * Defaults that come from other options: -machine mem-merge and
 * dump-guest-core, -mem-prealloc (prealloc=on for every backend, with a
 * thread per vCPU). Properties given to -object win.
 */
typedef struct HostMemoryDefaults {
    bool merge;
    bool dump;
    bool prealloc;
    unsigned prealloc_threads;
} HostMemoryDefaults;

/*
 * Create, map (and preallocate) a backend from -object options already
 * checked by object_check(), and list it at /objects/ID.
 */
HostMemoryBackend *host_memory_backend_create(const QemuOpts *opts,
                                              const HostMemoryDefaults *d,
                                              Error **errp);
HostMemoryBackend *host_memory_backend_find(const char *id);
/* Make be the machine's RAM; a backend serves one user only. */
bool host_memory_backend_set_machine(HostMemoryBackend *be, Error **errp);
/* The RAM of the machine's backend, or NULL when it has none. */
RAMBlock *host_memory_backend_machine_ram(void);
void host_memory_backend_foreach(void (*fn)(HostMemoryBackend *be,
                                            void *opaque), void *opaque);
/*
 * Release every backend's RAM through the discard policy, newest first.
 * After the devices and the machine, before the process exits.
 */
/*
 * object-del: false when there is no backend id; true when there is
 * (then errp is set if the machine uses it, which keeps it).
 */
bool host_memory_backend_delete(const char *id, Error **errp);
void host_memory_backends_cleanup(void);

/* Size and alignment against the page size, with QEMU's wording. */
bool host_memory_check_size(uint64_t size, uint64_t align, size_t page_size,
                            Error **errp);

#endif
