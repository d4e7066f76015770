/*
 * Direct kernel boot on x86: the choice between the Linux and multiboot
 * loaders, and what both use (mapped files, RAM bookkeeping, fw_cfg
 * items). See include/hw/i386/x86-boot.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/i386/linux-boot.h"
#include "hw/i386/multiboot.h"
#include "hw/i386/pvh.h"
#include "hw/i386/x86-boot.h"

#define ONE_MIB     0x100000ULL
#define FOUR_GIB    0x100000000ULL

void x86_boot_fw_cfg_free(X86BootFwCfg *fw)
{
    unsigned i;

    for (i = 0; i < fw->count; i++) {
        g_free(fw->items[i].data);
    }
    fw->count = 0;
}

const X86BootFwCfgItem *x86_boot_fw_cfg_find(const X86BootFwCfg *fw,
                                             uint16_t key)
{
    unsigned i;

    for (i = 0; i < fw->count; i++) {
        if (fw->items[i].key == key) {
            return &fw->items[i];
        }
    }
    return NULL;
}

void x86_boot_fw_cfg_add(X86BootFwCfg *fw, uint16_t key, void *data,
                         size_t len)
{
    /* The loaders add a fixed, small set of items. */
    g_assert(fw->count < X86_BOOT_FW_CFG_MAX);
    fw->items[fw->count].key = key;
    fw->items[fw->count].data = data;
    fw->items[fw->count].len = len;
    fw->count++;
}

void x86_boot_fw_cfg_add_i32(X86BootFwCfg *fw, uint16_t key, uint32_t value)
{
    uint8_t *p = g_malloc(4);

    x86_boot_stl(p, value);
    x86_boot_fw_cfg_add(fw, key, p, 4);
}

X86BootSegment x86_boot_flat_segment(uint16_t selector, uint8_t type,
                                     bool long_mode)
{
    X86BootSegment seg = {
        .base = 0,
        .limit = 0xffffffff,
        .selector = selector,
        .type = type,
        .present = 1,
        .s = 1,
        .g = 1,
        .l = long_mode,
        .db = !long_mode,       /* L and D/B are exclusive for code */
    };
    return seg;
}

void x86_boot_system_segments(X86BootState *st)
{
    X86BootSegment tr = {
        .limit = 0xffff, .type = 0xb, .present = 1,
    };
    X86BootSegment ldt = {
        .limit = 0xffff, .type = 0x2, .present = 1,
    };

    st->tr = tr;
    st->ldt = ldt;
    st->idt_base = 0;
    st->idt_limit = 0;
}

int x86_boot_file_map(const char *path, X86BootFile *f)
{
    struct stat sb;
    void *p;
    int fd;

    f->data = NULL;
    f->size = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return errno;
    }
    if (fstat(fd, &sb) < 0) {
        int err = errno;
        close(fd);
        return err;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
    }
    if (sb.st_size == 0) {
        close(fd);
        return 0;
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        return EFBIG;
    }
    /* Mapped, not read: the pages are only touched once, when copied. */
    p = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        return errno;
    }
    f->data = p;
    f->size = sb.st_size;
    return 0;
}

void x86_boot_file_unmap(X86BootFile *f)
{
    if (f->data) {
        munmap((void *)f->data, f->size);
    }
    f->data = NULL;
    f->size = 0;
}

static bool inside_ram(const X86BootConfig *cfg, uint64_t addr, uint64_t len)
{
    unsigned i;

    for (i = 0; i < cfg->e820_entries; i++) {
        const X86BootE820Entry *e = &cfg->e820[i];

        if (e->type == E820_RAM && addr >= e->addr &&
            addr - e->addr <= e->len && len <= e->len - (addr - e->addr)) {
            return true;
        }
    }
    return false;
}

bool x86_boot_reserve(const X86BootConfig *cfg, X86BootState *st,
                      uint64_t addr, uint64_t len, const char *what,
                      Error **errp)
{
    X86BootRange r = { .addr = addr, .len = len, .what = what };
    unsigned i;

    if (len == 0) {
        g_array_append_val(st->ranges, r);
        return true;
    }
    if (addr + len < addr || !inside_ram(cfg, addr, len)) {
        error_setg(errp, "%s at 0x%" PRIx64 "-0x%" PRIx64
                   " is outside guest RAM", what, addr, addr + len - 1);
        return false;
    }
    for (i = 0; i < st->ranges->len; i++) {
        const X86BootRange *o = &g_array_index(st->ranges, X86BootRange, i);

        if (o->len && addr < o->addr + o->len && o->addr < addr + len) {
            error_setg(errp, "%s at 0x%" PRIx64 "-0x%" PRIx64
                       " overlaps %s at 0x%" PRIx64 "-0x%" PRIx64,
                       what, addr, addr + len - 1,
                       o->what, o->addr, o->addr + o->len - 1);
            return false;
        }
    }
    g_array_append_val(st->ranges, r);
    return true;
}

bool x86_boot_write(const GuestMemory *mem, uint64_t addr, const void *buf,
                    uint64_t len, const char *what, Error **errp)
{
    if (len && !mem->write(mem->opaque, addr, buf, len)) {
        error_setg(errp, "%s at 0x%" PRIx64 "-0x%" PRIx64
                   " is outside guest RAM", what, addr, addr + len - 1);
        return false;
    }
    return true;
}

uint64_t x86_boot_e820_high_ram_end(const X86BootConfig *cfg)
{
    uint64_t end = ONE_MIB;
    bool grown = true;
    unsigned i;

    /* The map need not be sorted: extend until nothing continues it. */
    while (grown) {
        grown = false;
        for (i = 0; i < cfg->e820_entries; i++) {
            const X86BootE820Entry *e = &cfg->e820[i];
            uint64_t e_end = e->addr + e->len;

            if (e->type == E820_RAM && e->addr <= end && end < e_end) {
                end = MIN(e_end, FOUR_GIB);
                grown = end < FOUR_GIB;
            }
        }
    }
    return end;
}

uint64_t x86_boot_e820_low_ram_size(const X86BootConfig *cfg)
{
    unsigned i;

    for (i = 0; i < cfg->e820_entries; i++) {
        if (cfg->e820[i].type == E820_RAM && cfg->e820[i].addr == 0) {
            return cfg->e820[i].len;
        }
    }
    return 0;
}

bool x86_boot_load_kernel(const X86BootConfig *cfg, const GuestMemory *mem,
                          X86BootState *st, X86BootFwCfg *fw, Error **errp)
{
    const char *path = cfg->kernel_filename;
    X86BootFile f;
    bool ok = false;
    int err, r;

    err = x86_boot_file_map(path, &f);
    if (err) {
        error_setg(errp, "could not open kernel file '%s': %s", path,
                   g_strerror(err));
        return false;
    }
    if (f.size == 0) {
        error_setg(errp, "could not load kernel '%s': file is empty", path);
        return false;
    }
    /*
     * QEMU's order: a setup header wins, then a multiboot header (an ELF
     * can carry both a multiboot header and the PVH note), then an ELF
     * with the PVH entry note.
     */
    if (linux_boot_has_setup_header(f.data, f.size)) {
        ok = linux_boot_load(cfg, f.data, f.size, mem, st, fw, errp);
    } else {
        r = multiboot_load(cfg, f.data, f.size, mem, st, fw, errp);
        if (r == 0) {
            r = pvh_load(cfg, f.data, f.size, mem, st, fw, errp);
        }
        if (r == 0) {
            error_setg(errp, "%s: not a bzImage (no HdrS signature), not "
                       "a multiboot kernel (no multiboot header in the first "
                       "8 KiB) and not a PVH ELF (no Xen PHYS32_ENTRY note)",
                       path);
        }
        ok = r > 0;
    }
    x86_boot_file_unmap(&f);
    return ok;
}

void x86_boot_flat32_state(X86BootState *st, uint32_t entry,
                           uint16_t code_sel, uint16_t data_sel,
                           uint64_t gdt_base)
{
    st->mode = X86_BOOT_MODE_PROTECTED32;
    st->rip = entry;
    st->rflags = X86_RFLAGS_FIXED;
    st->cr0 = X86_CR0_PE | X86_CR0_ET;
    st->cr3 = 0;
    st->cr4 = 0;
    st->efer = 0;
    st->cs = x86_boot_flat_segment(code_sel, 0xb, false);
    st->ds = x86_boot_flat_segment(data_sel, 0x3, false);
    st->es = st->ds;
    st->fs = st->ds;
    st->gs = st->ds;
    st->ss = st->ds;
    st->gdt_base = gdt_base;
    st->gdt_limit = 3 * 8 - 1;
    x86_boot_system_segments(st);
}
