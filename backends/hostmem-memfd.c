/*
 * memory-backend-memfd: an anonymous file from memfd_create(), on
 * hugetlbfs with hugetlb=on, sealed against resizing with seal=on. It
 * has no name on any file system, so nothing is left after a crash;
 * at exit the discard policy truncates it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config-host.h"
#include "qom/object.h"
#include "system/hostmem.h"

#if HAVE_MEMFD_CREATE
/* The page size bits of memfd_create() are those of mmap's MAP_HUGE_*. */
static bool memfd_hugetlb_flags(HostMemoryBackend *be, unsigned *flags,
                                Error **errp)
{
#if HAVE_MFD_HUGETLB
    uint64_t sz = be->hugetlbsize;

    *flags |= MFD_HUGETLB;
    if (!sz) {
        return true;
    }
    if (sz & (sz - 1)) {
        error_setg(errp, "hugetlbsize 0x%" PRIx64 " is not a power of two",
                   sz);
        return false;
    }
    *flags |= (unsigned)__builtin_ctzll(sz) << MAP_HUGE_SHIFT;
    return true;
#else
    error_setg(errp, "hugetlb=on is not supported: memfd_create() on this "
               "host has no MFD_HUGETLB");
    return false;
#endif
}

static bool memfd_backend_alloc(HostMemoryBackend *be, Error **errp)
{
    unsigned flags = MFD_CLOEXEC | (be->seal ? MFD_ALLOW_SEALING : 0);
    size_t page_size;
    int fd;

    if (be->hugetlb && !memfd_hugetlb_flags(be, &flags, errp)) {
        return false;
    }
    fd = memfd_create("memory-backend-memfd", flags);
    if (fd < 0) {
        error_setg_errno(errp, errno, "failed to create memfd");
        return false;
    }
    page_size = ram_fd_page_size(fd);
    if (!host_memory_check_size(be->size, 0, page_size, errp)) {
        goto fail;
    }
    if (ftruncate(fd, be->size) < 0) {
        error_setg_errno(errp, errno, "failed to resize memfd to %" PRIu64,
                         be->size);
        goto fail;
    }
    if (be->seal && fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK |
                          F_SEAL_SEAL) < 0) {
        error_setg_errno(errp, errno, "failed to add seals");
        goto fail;
    }
    be->ram = ram_block_new(be->id, fd, be->size, page_size, 0,
                            RAM_TEMPORARY | RAM_MEMFD |
                            (be->share ? RAM_SHARED : 0) |
                            (be->reserve ? 0 : RAM_NORESERVE), errp);
    if (be->ram) {
        return true;
    }
fail:
    close(fd);
    return false;
}
#else
static bool memfd_backend_alloc(HostMemoryBackend *be, Error **errp)
{
    error_setg(errp, "memory-backend-memfd is not supported: this host "
               "has no memfd_create()");
    return false;
}
#endif

static const Property memfd_backend_props[] = {
    HOST_MEMORY_BACKEND_PROPS(true),
    DEFINE_PROP_BOOL("hugetlb", HostMemoryBackend, hugetlb, false),
    DEFINE_PROP_SIZE("hugetlbsize", HostMemoryBackend, hugetlbsize, 0),
    DEFINE_PROP_BOOL("seal", HostMemoryBackend, seal, true),
    PROP_END,
};

static const HostMemoryBackendClass memory_backend_memfd_class = {
    .type = "memory-backend-memfd",
    .props = memfd_backend_props,
    .alloc = memfd_backend_alloc,
};

HOST_MEMORY_BACKEND_CLASS_REGISTER(memory_backend_memfd_class, 2)
