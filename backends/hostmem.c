/*
 * Host memory backends: the properties every type shares, creation from
 * -object, and the registry behind /objects/ID and query-memdev.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "qemu/registry.h"
#include "qom/object.h"
#include "system/hostmem.h"

static GPtrArray *backends;     /* of HostMemoryBackend *, creation order */
static HostMemoryBackend *machine_backend;

/* The registered types, by their ORDER. */
static Registry backend_classes;

/* Runs before main(), and before any plain constructor: a table only. */
void host_memory_backend_class_register(const HostMemoryBackendClass *bc,
                                        int order)
{
    registry_add(&backend_classes, bc, bc->type, order);
}

bool host_memory_check_size(uint64_t size, uint64_t align, size_t page_size,
                            Error **errp)
{
    const char *huge = page_size > (size_t)getpagesize() ? "huge" : "";

    if (align & (align - 1)) {
        error_setg(errp, "alignment 0x%" PRIx64 " must be a power of two",
                   align);
        return false;
    }
    if (align % page_size) {
        error_setg(errp, "alignment 0x%" PRIx64 " must be multiples of "
                   "page size 0x%zx", align, page_size);
        return false;
    }
    if (size < page_size) {
        error_setg(errp, "memory size 0x%" PRIx64 " must be equal to or "
                   "larger than page size 0x%zx", size, page_size);
        return false;
    }
    if (size % page_size) {
        error_setg(errp, "backend size 0x%" PRIx64 " is not aligned to the "
                   "%spage size 0x%zx", size, huge, page_size);
        return false;
    }
    return true;
}

/* The properties checked the same way for every type. */
static bool backend_check(HostMemoryBackend *be, Error **errp)
{
    static const char *const policies[] = {
        "default", "preferred", "bind", "interleave", NULL,
    };

    if (be->prealloc_threads == 0) {
        error_setg(errp, "property 'prealloc-threads' of %s doesn't take "
                   "value '0'", be->bc->type);
        return false;
    }
    if (!g_strv_contains(policies, be->policy)) {
        error_setg(errp, "Parameter 'policy' does not accept value '%s'",
                   be->policy);
        return false;
    }
    if (strcmp(be->policy, "default")) {
        error_setg(errp, "policy '%s' is not supported: this build has no "
                   "NUMA binding; only 'default' is", be->policy);
        return false;
    }
    if (be->host_nodes && *be->host_nodes) {
        error_setg(errp, "host-nodes '%s' is not supported: this build has "
                   "no NUMA binding; leave it unset", be->host_nodes);
        return false;
    }
    if (!be->size) {
        error_setg(errp, "can't create backend with size 0");
        return false;
    }
    return true;
}

/* Why preallocation failed, in the user's terms. */
static const char *prealloc_reason(int err)
{
    switch (err) {
    case EFAULT:
        /* MADV_POPULATE_WRITE's answer to a SIGBUS-ing fault. */
        return "the backing store is full (out of hugepages, or no space "
               "left in its file system)";
    case ENOMEM:
        return "Cannot allocate memory";
    case EHWPOISON:
        return "a host memory page is poisoned";
    default:
        return strerror(err);
    }
}

static void backend_free(HostMemoryBackend *be)
{
    ram_block_free(be->ram);
    if (be->obj) {
        object_unparent(be->obj);
    }
    object_free_strings(be, be->bc->props);
    g_free(be->id);
    g_free(be);
}

HostMemoryBackend *host_memory_backend_create(const QemuOpts *opts,
                                              const HostMemoryDefaults *d,
                                              Error **errp)
{
    const char *type = qemu_opt_get(opts, "qom-type");
    const HostMemoryBackendClass *bc = NULL;
    HostMemoryBackend *be;
    int ret;

    bc = type ? registry_find(&backend_classes, type) : NULL;
    if (!bc) {
        error_setg(errp, "Parameter 'qom-type' does not accept value '%s'",
                   type);
        return NULL;
    }
    be = g_new0(HostMemoryBackend, 1);
    be->bc = bc;
    be->id = g_strdup(qemu_opt_get(opts, "id"));
    be->orig_file_size = -1;
    object_set_defaults(be, bc->props);
    be->merge = d->merge;
    be->dump = d->dump;
    if (d->prealloc) {
        be->prealloc = true;
        be->prealloc_threads = MAX(d->prealloc_threads, 1);
    }
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const QemuOpt *o = qemu_opts_nth(opts, i);

        if (!strcmp(o->name, "qom-type") || !strcmp(o->name, "id")) {
            continue;
        }
        if (!object_property_parse(be, bc->props, type, o->name, o->value,
                                   errp)) {
            goto fail;
        }
    }
    if (!backend_check(be, errp) || !bc->alloc(be, errp)) {
        goto fail;
    }
    ram_block_advise(be->ram, be->merge, be->dump);
    if (be->prealloc) {
        ret = ram_block_prealloc(be->ram, be->prealloc_threads);
        if (ret < 0) {
            error_setg(errp, "memory backend '%s': preallocation failed: %s",
                       be->id, prealloc_reason(-ret));
            goto abandon;
        }
    }
    be->obj = object_add_child(object_get_container("/objects"), be->id,
                               type, be, bc->props, errp);
    if (!be->obj) {
        goto abandon;
    }
    if (!backends) {
        backends = g_ptr_array_new();
    }
    g_ptr_array_add(backends, be);
    return be;

abandon:
    if (bc->abandon) {
        bc->abandon(be);
    }
fail:
    backend_free(be);
    return NULL;
}

HostMemoryBackend *host_memory_backend_find(const char *id)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        HostMemoryBackend *be = g_ptr_array_index(backends, i);

        if (!strcmp(be->id, id)) {
            return be;
        }
    }
    return NULL;
}

bool host_memory_backend_set_machine(HostMemoryBackend *be, Error **errp)
{
    if (be->mapped) {
        error_setg(errp, "memory backend %s can't be used multiple times.",
                   be->id);
        return false;
    }
    be->mapped = true;
    machine_backend = be;
    return true;
}

RAMBlock *host_memory_backend_machine_ram(void)
{
    return machine_backend ? machine_backend->ram : NULL;
}

void host_memory_backend_foreach(void (*fn)(HostMemoryBackend *be,
                                            void *opaque), void *opaque)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        fn(g_ptr_array_index(backends, i), opaque);
    }
}

bool host_memory_backend_delete(const char *id, Error **errp)
{
    HostMemoryBackend *be = host_memory_backend_find(id);

    if (!be) {
        return false;
    }
    if (be->mapped) {
        error_setg(errp, "object '%s' is in use, can not be deleted", id);
        return true;
    }
    g_ptr_array_remove(backends, be);
    backend_free(be);
    return true;
}

void host_memory_backends_cleanup(void)
{
    machine_backend = NULL;
    while (backends && backends->len) {
        HostMemoryBackend *be = g_ptr_array_index(backends,
                                                  backends->len - 1);

        g_ptr_array_remove_index(backends, backends->len - 1);
        backend_free(be);
    }
    if (backends) {
        g_ptr_array_free(backends, TRUE);
        backends = NULL;
    }
}

/*
 * The QOM types of the registered backends, with their properties: a
 * plain constructor, so after every registration (see
 * HOST_MEMORY_BACKEND_CLASS_REGISTER).
 */
static void __attribute__((constructor)) host_memory_register_types(void)
{
    type_register("memory-backend", NULL, true);
    const HostMemoryBackendClass *bc;

    for (unsigned i = 0; (bc = registry_at(&backend_classes, i)); i++) {
        type_register(bc->type, "memory-backend", false);
        type_set_properties(bc->type, bc->props);
    }
}
