/*
 * The PC firmware ROM (include/hw/i386/pc-firmware.h). The file is
 * copied into anonymous memory that is then made read-only: the guest's
 * writes are dropped by the memory API (KVM: a read-only slot, whose
 * writes exit as MMIO), and a stray host write would fault. Its pages
 * are the ROM's size and no more, locked under -overcommit mem-lock=on
 * like the rest of the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/i386/pc-firmware.h"
#include "system/datadir.h"

#define PC_4GIB     0x100000000ULL

static bool read_all(int fd, uint8_t *buf, uint64_t len)
{
    errno = 0;
    while (len) {
        ssize_t n = read(fd, buf, MIN(len, (uint64_t)1 << 30));

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        buf += n;
        len -= n;
    }
    return true;
}

/* Why the file cannot be the BIOS, or NULL; *size when it can. */
static const char *firmware_check(int fd, uint64_t *size)
{
    struct stat sb;

    if (fstat(fd, &sb) < 0) {
        return g_strerror(errno);
    }
    if (!S_ISREG(sb.st_mode)) {
        return "not a regular file";
    }
    if (sb.st_size == 0) {
        return "file is empty";
    }
    if ((uint64_t)sb.st_size > PC_FIRMWARE_MAX_SIZE) {
        return "larger than 16 MiB";
    }
    if (sb.st_size % PC_FIRMWARE_ALIGN) {
        return "size is not a multiple of 64 KiB";
    }
    *size = sb.st_size;
    return NULL;
}

bool pc_firmware_load(PCFirmware *fw, const char *name, Error **errp)
{
    const char *why = NULL;
    uint64_t size = 0;
    void *host;
    int fd;

    memset(fw, 0, sizeof(*fw));
    fw->path = qemu_find_file(name);
    if (!fw->path && !strchr(name, '/')) {
        error_setg(errp, "could not load PC BIOS '%s': not found in the "
                   "firmware path (-L help lists it)", name);
        return false;
    }
    /* A path is opened as it is: its error says why it is no BIOS. */
    if (!fw->path) {
        fw->path = g_strdup(name);
    }
    fd = open(fw->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = g_strerror(errno);
    } else {
        why = firmware_check(fd, &size);
    }
    if (why) {
        error_setg(errp, "could not load PC BIOS '%s': %s", name, why);
        goto fail;
    }
    host = mmap(NULL, size, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (host == MAP_FAILED) {
        error_setg(errp, "could not load PC BIOS '%s': %s", name,
                   g_strerror(errno));
        goto fail;
    }
    if (!read_all(fd, host, size) || mprotect(host, size, PROT_READ) < 0) {
        error_setg(errp, "could not load PC BIOS '%s': %s", name,
                   errno ? g_strerror(errno) : "short read");
        munmap(host, size);
        goto fail;
    }
    close(fd);
    fw->host = host;
    fw->size = size;
    return true;

fail:
    if (fd >= 0) {
        close(fd);
    }
    g_clear_pointer(&fw->path, g_free);
    return false;
}

bool pc_firmware_map(PCFirmware *fw, MemoryRegion *pci, Error **errp)
{
    uint64_t isa_size = MIN(fw->size, (uint64_t)PC_ISA_BIOS_SIZE);

    memory_region_init_ram_ptr(&fw->rom, "pc.bios", fw->size, fw->host);
    fw->rom.readonly = true;
    memory_region_init_alias(&fw->isa_bios, "isa-bios", &fw->rom,
                             fw->size - isa_size, isa_size);
    fw->isa_bios.readonly = true;
    if (!memory_region_add_subregion(pci, PC_4GIB - fw->size, &fw->rom, 0,
                                     errp)) {
        return false;
    }
    /* Over whatever PCI shows below 1 MiB (QEMU's priority 1). */
    return memory_region_add_subregion(pci, 0x100000 - isa_size,
                                       &fw->isa_bios, 1, errp);
}

void pc_firmware_free(PCFirmware *fw)
{
    if (fw->rom.name) {
        memory_region_finalize(&fw->isa_bios);
        memory_region_finalize(&fw->rom);
    }
    if (fw->host) {
        munmap(fw->host, fw->size);
    }
    g_free(fw->path);
    memset(fw, 0, sizeof(*fw));
}
