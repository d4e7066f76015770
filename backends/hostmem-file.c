/*
 * memory-backend-file: guest RAM in a file (mem-path=FILE), or in an
 * unlinked temporary file made inside a directory (mem-path=DIR), on
 * any file system, hugetlbfs included (its page size comes from
 * statfs). A temporary file is unlinked as soon as it is created, so
 * even a crash or SIGKILL leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qom/object.h"
#include "system/hostmem.h"

/* mkstemp in dir, unlinked at once: only the fd keeps it alive. */
static int file_backend_open_temp(HostMemoryBackend *be, Error **errp)
{
    char *name = g_strdup(be->id);
    char *path;
    int fd;

    /* The id may hold characters a file name should not. */
    g_strdelimit(name, "/", '_');
    path = g_strdup_printf("%s/qemu_back_mem.%s.XXXXXX", be->mem_path, name);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        error_setg_errno(errp, errno, "unable to create backing store for "
                         "guest RAM in %s", be->mem_path);
    } else {
        unlink(path);
    }
    g_free(path);
    g_free(name);
    return fd;
}

/* Open (or create) the named file; *temporary when mem-path is a dir. */
static int file_backend_open(HostMemoryBackend *be, bool *temporary,
                             Error **errp)
{
    int flags = (be->readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC;
    int fd;

    *temporary = false;
    fd = open(be->mem_path, flags);
    if (fd < 0 && errno == ENOENT && !be->readonly) {
        fd = open(be->mem_path, flags | O_CREAT | O_EXCL, 0600);
        be->created_file = fd >= 0;
    }
    if (fd >= 0 && be->readonly) {
        struct stat st;

        /* O_RDONLY opens a directory too. */
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            close(fd);
            fd = -1;
            errno = EISDIR;
        }
    }
    if (fd < 0 && errno == EISDIR) {
        if (be->readonly) {
            error_setg(errp, "mem-path %s is a directory: readonly=on needs "
                       "an existing file", be->mem_path);
            return -1;
        }
        *temporary = true;
        return file_backend_open_temp(be, errp);
    }
    if (fd < 0) {
        error_setg_errno(errp, errno, "can't open backing store %s for "
                         "guest RAM", be->mem_path);
    }
    return fd;
}

/* A file shorter than the backend grows; a longer one is left alone. */
static bool file_backend_size(HostMemoryBackend *be, int fd, Error **errp)
{
    struct stat st;

    if (fstat(fd, &st) < 0) {
        error_setg_errno(errp, errno, "cannot stat %s", be->mem_path);
        return false;
    }
    if ((uint64_t)st.st_size >= be->size) {
        return true;
    }
    if (be->readonly) {
        error_setg(errp, "backing store size 0x%" PRIx64 " does not match "
                   "'size' option 0x%" PRIx64, (uint64_t)st.st_size,
                   be->size);
        return false;
    }
    if (ftruncate(fd, be->size) < 0) {
        error_setg_errno(errp, errno, "cannot resize %s to 0x%" PRIx64,
                         be->mem_path, be->size);
        return false;
    }
    be->orig_file_size = st.st_size;
    return true;
}

static void file_backend_abandon(HostMemoryBackend *be)
{
    if (be->created_file) {
        unlink(be->mem_path);
    } else if (be->orig_file_size >= 0 && be->ram) {
        /* Give a file we grew its old size back. */
        if (ftruncate(be->ram->fd, be->orig_file_size) < 0) {
            /* Nothing better to do: the error being reported matters. */
        }
    }
    be->created_file = false;
    be->orig_file_size = -1;
}

static bool file_backend_alloc(HostMemoryBackend *be, Error **errp)
{
    bool temporary;
    size_t page_size;
    uint32_t flags;
    int fd;

    if (!be->mem_path) {
        error_setg(errp, "mem-path property not set");
        return false;
    }
    if (be->pmem) {
        error_setg(errp, "Lack of libpmem support while setting the "
                   "'pmem=on' of memory-backend-file '%s'. We can't ensure "
                   "data persistence.", be->id);
        return false;
    }
    if (be->rom && strcmp(be->rom, "auto") && strcmp(be->rom, "on") &&
        strcmp(be->rom, "off")) {
        error_setg(errp, "Parameter 'rom' does not accept value '%s'",
                   be->rom);
        return false;
    }
    fd = file_backend_open(be, &temporary, errp);
    if (fd < 0) {
        return false;
    }
    page_size = ram_fd_page_size(fd);
    if (!host_memory_check_size(be->size, be->align, page_size, errp) ||
        !file_backend_size(be, fd, errp)) {
        goto fail;
    }
    flags = (be->share ? RAM_SHARED : 0) |
            (temporary ? RAM_TEMPORARY : RAM_FILE) |
            (be->discard_data ? RAM_DISCARD : 0) |
            (be->readonly ? RAM_READONLY : 0) |
            (be->reserve ? 0 : RAM_NORESERVE);
    be->ram = ram_block_new(be->id, fd, be->size, page_size, be->align,
                            flags, errp);
    if (be->ram) {
        return true;
    }
fail:
    if (be->orig_file_size >= 0 && ftruncate(fd, be->orig_file_size) < 0) {
        /* The error being reported matters more. */
    }
    be->orig_file_size = -1;
    close(fd);
    file_backend_abandon(be);
    return false;
}

static const Property file_backend_props[] = {
    HOST_MEMORY_BACKEND_PROPS(false),
    DEFINE_PROP_STRING("mem-path", HostMemoryBackend, mem_path),
    DEFINE_PROP_BOOL("discard-data", HostMemoryBackend, discard_data, false),
    DEFINE_PROP_SIZE("align", HostMemoryBackend, align, 0),
    DEFINE_PROP_BOOL("readonly", HostMemoryBackend, readonly, false),
    DEFINE_PROP_BOOL("pmem", HostMemoryBackend, pmem, false),
    { .name = "rom", .type = PROP_TYPE_STRING,
      .offset = offsetof(HostMemoryBackend, rom), .defstr = "auto" },
    PROP_END,
};

static const HostMemoryBackendClass memory_backend_file_class = {
    .type = "memory-backend-file",
    .props = file_backend_props,
    .alloc = file_backend_alloc,
    .abandon = file_backend_abandon,
};

HOST_MEMORY_BACKEND_CLASS_REGISTER(memory_backend_file_class, 1)
