/*
 * PVH loader: the x86/HVM direct boot ABI (Xen's docs/misc/pvh.pandoc,
 * start_info.h) as QEMU applies it to an uncompressed ELF -kernel that
 * carries XEN_ELFNOTE_PHYS32_ENTRY, done directly (no option ROM): the
 * PT_LOAD segments go to their physical addresses, the hvm_start_info
 * structure, module list and memory map to fixed low addresses, and
 * vCPU 0 starts in flat 32-bit protected mode with EBX = start_info.
 *
 * The file is untrusted: every offset and size it gives is checked
 * against the file and against guest RAM before anything is copied.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/i386/pvh.h"
#include "hw/nvram/fw_cfg.h"

/* ELF, as far as finding notes and loadable segments needs it */
#define EI_CLASS                4
#define EI_DATA                 5
#define ELFCLASS32              1
#define ELFCLASS64              2
#define ELFDATA2LSB             1
#define EM_386                  3
#define EM_X86_64               62
#define E_MACHINE               18
#define E32_PHOFF               28
#define E32_PHENTSIZE           42
#define E32_PHNUM               44
#define E32_EHDR_SIZE           52
#define E64_PHOFF               32
#define E64_PHENTSIZE           54
#define E64_PHNUM               56
#define E64_EHDR_SIZE           64
#define P32_PHDR_SIZE           32
#define P64_PHDR_SIZE           56
#define PT_LOAD                 1
#define PT_NOTE                 4

#define NOTE_HDR_SIZE           12      /* namesz, descsz, type */
#define XEN_NOTE_NAME           "Xen"

#define FOUR_GIB                0x100000000ULL
#define PVH_MODLIST_END         (PVH_MODLIST_ADDR + PVH_MODLIST_ENTRY_SIZE)

#define PAGE_ALIGN_DOWN(x)      ((x) & ~(X86_BOOT_PAGE_SIZE - 1))
#define ALIGN4(x)               (((x) + 3) & ~(uint64_t)3)

/* One program header, whichever ELF class it came from. */
typedef struct PvhPhdr {
    uint32_t type;
    uint64_t offset, paddr, filesz, memsz;
} PvhPhdr;

typedef struct PvhElf {
    const uint8_t *image;
    size_t size;
    bool is64;
    uint64_t phoff;
    unsigned phentsize, phnum;
} PvhElf;

/* The ELF header of an x86 little-endian image, or false. */
static bool pvh_elf_open(const uint8_t *image, size_t size, PvhElf *e)
{
    unsigned machine;

    if (size < E32_EHDR_SIZE || memcmp(image, "\x7f" "ELF", 4) != 0 ||
        image[EI_DATA] != ELFDATA2LSB) {
        return false;
    }
    machine = x86_boot_lduw(image + E_MACHINE);
    e->image = image;
    e->size = size;
    if (image[EI_CLASS] == ELFCLASS64) {
        if (size < E64_EHDR_SIZE ||
            (machine != EM_X86_64 && machine != EM_386)) {
            return false;
        }
        e->is64 = true;
        e->phoff = x86_boot_ldq(image + E64_PHOFF);
        e->phentsize = x86_boot_lduw(image + E64_PHENTSIZE);
        e->phnum = x86_boot_lduw(image + E64_PHNUM);
        return e->phentsize >= P64_PHDR_SIZE;
    }
    if (image[EI_CLASS] == ELFCLASS32 &&
        (machine == EM_386 || machine == EM_X86_64)) {
        e->is64 = false;
        e->phoff = x86_boot_ldl(image + E32_PHOFF);
        e->phentsize = x86_boot_lduw(image + E32_PHENTSIZE);
        e->phnum = x86_boot_lduw(image + E32_PHNUM);
        return e->phentsize >= P32_PHDR_SIZE;
    }
    return false;
}

/* Whether the program header table lies inside the file. */
static bool pvh_elf_phdrs_fit(const PvhElf *e)
{
    return e->phoff <= e->size &&
           (uint64_t)e->phentsize * e->phnum <= e->size - e->phoff;
}

static PvhPhdr pvh_elf_phdr(const PvhElf *e, unsigned i)
{
    const uint8_t *ph = e->image + e->phoff + (size_t)i * e->phentsize;
    PvhPhdr p;

    p.type = x86_boot_ldl(ph);
    if (e->is64) {
        p.offset = x86_boot_ldq(ph + 8);
        p.paddr = x86_boot_ldq(ph + 24);
        p.filesz = x86_boot_ldq(ph + 32);
        p.memsz = x86_boot_ldq(ph + 40);
    } else {
        p.offset = x86_boot_ldl(ph + 4);
        p.paddr = x86_boot_ldl(ph + 12);
        p.filesz = x86_boot_ldl(ph + 16);
        p.memsz = x86_boot_ldl(ph + 20);
    }
    return p;
}

/* Look for the Xen PHYS32_ENTRY note in one PT_NOTE segment. */
static bool pvh_scan_notes(const uint8_t *p, uint64_t len, uint32_t *entry)
{
    uint64_t off = 0;

    while (len - off >= NOTE_HDR_SIZE) {
        uint32_t namesz = x86_boot_ldl(p + off);
        uint32_t descsz = x86_boot_ldl(p + off + 4);
        uint32_t type = x86_boot_ldl(p + off + 8);
        uint64_t name_off = off + NOTE_HDR_SIZE;
        uint64_t desc_off = name_off + ALIGN4((uint64_t)namesz);

        if (desc_off > len || descsz > len - desc_off) {
            return false;               /* truncated: stop looking */
        }
        if (type == XEN_ELFNOTE_PHYS32_ENTRY &&
            namesz == sizeof(XEN_NOTE_NAME) &&
            memcmp(p + name_off, XEN_NOTE_NAME, namesz) == 0) {
            /* 4 bytes in ELF32 kernels, 8 (a 64-bit value) in ELF64. */
            if (descsz == 4) {
                *entry = x86_boot_ldl(p + desc_off);
                return true;
            }
            if (descsz == 8 && x86_boot_ldq(p + desc_off) < FOUR_GIB) {
                *entry = (uint32_t)x86_boot_ldq(p + desc_off);
                return true;
            }
        }
        off = desc_off + ALIGN4((uint64_t)descsz);
    }
    return false;
}

bool pvh_find_entry(const uint8_t *image, size_t size, uint32_t *entry)
{
    PvhElf e;
    unsigned i;

    if (!pvh_elf_open(image, size, &e) || !pvh_elf_phdrs_fit(&e)) {
        return false;
    }
    for (i = 0; i < e.phnum; i++) {
        PvhPhdr p = pvh_elf_phdr(&e, i);

        if (p.type != PT_NOTE || p.offset > size ||
            p.filesz > size - p.offset) {
            continue;
        }
        if (pvh_scan_notes(image + p.offset, p.filesz, entry)) {
            return true;
        }
    }
    return false;
}

static void pvh_set_cpu_state(X86BootState *st, uint32_t entry)
{
    /* IF and VM clear in RFLAGS, as the PVH ABI asks. */
    x86_boot_flat32_state(st, entry, PVH_SEL_CODE32, PVH_SEL_DATA,
                          PVH_GDT_ADDR);
    st->rbx = PVH_START_INFO_ADDR;
    /* The ABI's TR: a busy 32-bit TSS at 0 with limit 0x67. */
    st->tr.limit = 0x67;
}

/* Checks and reserves every PT_LOAD segment; returns the highest end. */
static bool pvh_reserve_segments(const X86BootConfig *cfg, const PvhElf *e,
                                 X86BootState *st, uint64_t *high,
                                 Error **errp)
{
    const char *path = cfg->kernel_filename;
    unsigned i, loads = 0;

    *high = 0;
    for (i = 0; i < e->phnum; i++) {
        PvhPhdr p = pvh_elf_phdr(e, i);

        if (p.type != PT_LOAD) {
            continue;
        }
        if (p.filesz > p.memsz) {
            error_setg(errp, "%s: Error while loading elf kernel: segment "
                       "%u has p_filesz 0x%" PRIx64 " above p_memsz 0x%"
                       PRIx64, path, i, p.filesz, p.memsz);
            return false;
        }
        if (p.offset > e->size || p.filesz > e->size - p.offset) {
            error_setg(errp, "%s: file is truncated (segment %u ends at "
                       "byte %" PRIu64 ", file has %zu)", path, i,
                       p.offset + p.filesz, e->size);
            return false;
        }
        if (p.paddr >= FOUR_GIB || p.memsz > FOUR_GIB - p.paddr) {
            error_setg(errp, "%s: segment %u at 0x%" PRIx64 " (0x%" PRIx64
                       " bytes) does not fit below 4 GiB", path, i, p.paddr,
                       p.memsz);
            return false;
        }
        if (!x86_boot_reserve(cfg, st, p.paddr, p.memsz, "kernel", errp)) {
            return false;
        }
        *high = MAX(*high, p.paddr + p.memsz);
        loads++;
    }
    if (loads == 0) {
        error_setg(errp, "%s: Error while loading elf kernel: no loadable "
                   "segments", path);
        return false;
    }
    return true;
}

/* The memory map from the board's e820, as hvm_memmap_table_entry items. */
static bool pvh_build_memmap(const X86BootConfig *cfg, uint8_t *map,
                             Error **errp)
{
    unsigned i;

    if (cfg->e820_entries > PVH_MEMMAP_MAX) {
        error_setg(errp, "%s: %u e820 entries do not fit the PVH memory "
                   "map (at most %u)", cfg->kernel_filename,
                   cfg->e820_entries, (unsigned)PVH_MEMMAP_MAX);
        return false;
    }
    for (i = 0; i < cfg->e820_entries; i++) {
        uint8_t *m = map + i * PVH_MEMMAP_ENTRY_SIZE;

        x86_boot_stq(m, cfg->e820[i].addr);
        x86_boot_stq(m + 8, cfg->e820[i].len);
        x86_boot_stl(m + 16, cfg->e820[i].type);
        x86_boot_stl(m + 20, 0);
    }
    return true;
}

int pvh_load(const X86BootConfig *cfg, const uint8_t *image, size_t size,
             const GuestMemory *mem, X86BootState *st, X86BootFwCfg *fw,
             Error **errp)
{
    /* Flat segments, as the ABI's entry state describes them. */
    static const uint64_t gdt[3] = {
        0, 0x00cf9b000000ffffULL, 0x00cf93000000ffffULL,
    };
    const char *path = cfg->kernel_filename;
    const char *cmdline = cfg->kernel_cmdline ? cfg->kernel_cmdline : "";
    size_t cmdline_len = strlen(cmdline) + 1;
    uint8_t info[PVH_START_INFO_SIZE] = { 0 };
    uint8_t modlist[PVH_MODLIST_ENTRY_SIZE] = { 0 };
    uint8_t memmap[PVH_MEMMAP_MAX * PVH_MEMMAP_ENTRY_SIZE];
    uint8_t gdt_bytes[sizeof(gdt)];
    X86BootFile initrd = { 0 };
    uint64_t kernel_high, initrd_addr = 0, initrd_top;
    uint32_t entry;
    unsigned i;
    PvhElf e;
    int ret = -1;

    if (!pvh_find_entry(image, size, &entry) ||
        !pvh_elf_open(image, size, &e)) {
        return 0;
    }
    if (cmdline_len > PVH_CMDLINE_MAX) {
        error_setg(errp, "%s: kernel command line is too long (%zu bytes, "
                   "at most %u)", path, cmdline_len - 1,
                   PVH_CMDLINE_MAX - 1);
        return -1;
    }
    if (cfg->initrd_filename) {
        int err = x86_boot_file_map(cfg->initrd_filename, &initrd);

        if (err) {
            error_setg(errp, "could not load initial ram disk '%s': %s",
                       cfg->initrd_filename, g_strerror(err));
            return -1;
        }
    }

    /* Claim everything first: no byte is written unless all fits. */
    if (!pvh_build_memmap(cfg, memmap, errp) ||
        !x86_boot_reserve(cfg, st, PVH_GDT_ADDR, sizeof(gdt), "boot GDT",
                          errp) ||
        !x86_boot_reserve(cfg, st, PVH_START_INFO_ADDR,
                          PVH_MODLIST_END - PVH_START_INFO_ADDR,
                          "PVH start info", errp) ||
        !x86_boot_reserve(cfg, st, PVH_MEMMAP_ADDR,
                          (uint64_t)cfg->e820_entries * PVH_MEMMAP_ENTRY_SIZE,
                          "PVH memory map", errp) ||
        !x86_boot_reserve(cfg, st, PVH_CMDLINE_ADDR, cmdline_len,
                          "kernel command line", errp) ||
        !pvh_reserve_segments(cfg, &e, st, &kernel_high, errp)) {
        goto out;
    }
    if (cfg->initrd_filename) {
        /* As high as the RAM from 1 MiB goes, above the kernel. */
        initrd_top = x86_boot_e820_high_ram_end(cfg);
        if (initrd.size > initrd_top ||
            PAGE_ALIGN_DOWN(initrd_top - initrd.size) < kernel_high) {
            error_setg(errp, "initrd '%s' (%zu bytes) does not fit between "
                       "the kernel (ends at 0x%" PRIx64 ") and the end of "
                       "low RAM (0x%" PRIx64 ")", cfg->initrd_filename,
                       initrd.size, kernel_high, initrd_top);
            goto out;
        }
        initrd_addr = PAGE_ALIGN_DOWN(initrd_top - initrd.size);
        if (!x86_boot_reserve(cfg, st, initrd_addr, initrd.size, "initrd",
                              errp)) {
            goto out;
        }
    }

    for (i = 0; i < e.phnum; i++) {
        PvhPhdr p = pvh_elf_phdr(&e, i);

        if (p.type != PT_LOAD) {
            continue;
        }
        if (!x86_boot_write(mem, p.paddr, image + p.offset, p.filesz,
                            "kernel", errp) ||
            !x86_boot_write(mem, p.paddr + p.filesz, NULL,
                            p.memsz - p.filesz, "kernel", errp)) {
            goto out;
        }
    }

    x86_boot_stl(info + PVH_SI_MAGIC, PVH_START_INFO_MAGIC);
    x86_boot_stl(info + PVH_SI_VERSION, PVH_START_INFO_VERSION);
    x86_boot_stl(info + PVH_SI_FLAGS, 0);
    x86_boot_stq(info + PVH_SI_CMDLINE_PADDR, PVH_CMDLINE_ADDR);
    x86_boot_stq(info + PVH_SI_RSDP_PADDR, cfg->acpi_rsdp_addr);
    x86_boot_stq(info + PVH_SI_MEMMAP_PADDR, PVH_MEMMAP_ADDR);
    x86_boot_stl(info + PVH_SI_MEMMAP_ENTRIES, cfg->e820_entries);
    if (cfg->initrd_filename) {
        x86_boot_stl(info + PVH_SI_NR_MODULES, 1);
        x86_boot_stq(info + PVH_SI_MODLIST_PADDR, PVH_MODLIST_ADDR);
        x86_boot_stq(modlist, initrd_addr);
        x86_boot_stq(modlist + 8, initrd.size);
        /* cmdline_paddr 0: the module has no command line. */
    }
    for (i = 0; i < G_N_ELEMENTS(gdt); i++) {
        x86_boot_stq(gdt_bytes + i * 8, gdt[i]);
    }
    if (!x86_boot_write(mem, initrd_addr, initrd.data, initrd.size,
                        "initrd", errp) ||
        !x86_boot_write(mem, PVH_CMDLINE_ADDR, cmdline, cmdline_len,
                        "kernel command line", errp) ||
        !x86_boot_write(mem, PVH_GDT_ADDR, gdt_bytes, sizeof(gdt_bytes),
                        "boot GDT", errp) ||
        !x86_boot_write(mem, PVH_MEMMAP_ADDR, memmap,
                        (uint64_t)cfg->e820_entries * PVH_MEMMAP_ENTRY_SIZE,
                        "PVH memory map", errp) ||
        !x86_boot_write(mem, PVH_MODLIST_ADDR, modlist, sizeof(modlist),
                        "PVH start info", errp) ||
        !x86_boot_write(mem, PVH_START_INFO_ADDR, info, sizeof(info),
                        "PVH start info", errp)) {
        goto out;
    }

    pvh_set_cpu_state(st, entry);

    /* What QEMU publishes for a PVH boot besides loading it. */
    if (fw) {
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_KERNEL_ENTRY, entry);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_CMDLINE_ADDR, PVH_CMDLINE_ADDR);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_CMDLINE_SIZE, cmdline_len);
        x86_boot_fw_cfg_add(fw, FW_CFG_CMDLINE_DATA,
                            g_memdup2(cmdline, cmdline_len), cmdline_len);
        if (cfg->initrd_filename) {
            x86_boot_fw_cfg_add_i32(fw, FW_CFG_INITRD_ADDR, initrd_addr);
            x86_boot_fw_cfg_add_i32(fw, FW_CFG_INITRD_SIZE, initrd.size);
            x86_boot_fw_cfg_add(fw, FW_CFG_INITRD_DATA,
                                g_memdup2(initrd.data, initrd.size),
                                initrd.size);
        }
    }
    ret = 1;

out:
    x86_boot_file_unmap(&initrd);
    return ret;
}
