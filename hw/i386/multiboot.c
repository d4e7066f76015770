/*
 * Multiboot v1 loader: the multiboot specification 0.6.96 as QEMU's
 * load_multiboot() and its option ROM apply it, done directly (no ROM,
 * no BIOS): the kernel and modules go into guest RAM, the information
 * structure and memory map to QEMU's addresses (or, for a kernel linked
 * over them, to free low memory), and vCPU 0 starts in flat 32-bit
 * protected mode at the entry point.
 *
 * The file is untrusted: every offset and size it gives is checked
 * against the file and against guest RAM before anything is copied.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/i386/multiboot.h"
#include "hw/nvram/fw_cfg.h"

/* Header flags */
#define MBH_PAGE_ALIGN          (1u << 0)
#define MBH_MEMORY_INFO         (1u << 1)
#define MBH_VIDEO_MODE          (1u << 2)
#define MBH_AOUT_KLUDGE         (1u << 16)
#define MBH_KNOWN_REQUIRED      (MBH_PAGE_ALIGN | MBH_MEMORY_INFO | \
                                 MBH_VIDEO_MODE)

/* Header fields */
#define MBH_FLAGS               4
#define MBH_CHECKSUM            8
#define MBH_HEADER_ADDR         12
#define MBH_LOAD_ADDR           16
#define MBH_LOAD_END_ADDR       20
#define MBH_BSS_END_ADDR        24
#define MBH_ENTRY_ADDR          28
#define MBH_SIZE                48      /* with the video fields */

/* Information structure fields */
#define MBI_FLAGS               0
#define MBI_MEM_LOWER           4
#define MBI_MEM_UPPER           8
#define MBI_BOOT_DEVICE         12
#define MBI_CMDLINE             16
#define MBI_MODS_COUNT          20
#define MBI_MODS_ADDR           24
#define MBI_MMAP_LENGTH         44
#define MBI_MMAP_ADDR           48
#define MBI_BOOT_LOADER_NAME    64

#define MB_MOD_SIZE             16      /* mod_start, mod_end, string, 0 */
#define MB_MMAP_AREA_SIZE       (MULTIBOOT_INFO_ADDR - MULTIBOOT_MMAP_ADDR)
/* Where moved information may go: above the IVT and BDA, below 640 KiB. */
#define MB_LOW_START            0x1000
#define MB_LOW_END              0xa0000
#define MB_HIGH_START           0x100000
#define MB_HIGH_END             0x100000000ULL
/* First BIOS drive, no partition: what QEMU passes. */
#define MB_BOOT_DEVICE          0x8000ffffu
#define MB_BOOT_LOADER_NAME     "qemu"

/* ELF, as far as a 32-bit loader needs it */
#define EI_CLASS                4
#define EI_DATA                 5
#define ELFCLASS32              1
#define ELFCLASS64              2
#define ELFDATA2LSB             1
#define EM_386                  3
#define EM_X86_64               62
#define E_MACHINE               18
#define E32_ENTRY               24
#define E32_PHOFF               28
#define E32_PHENTSIZE           42
#define E32_PHNUM               44
#define E32_EHDR_SIZE           52
#define P32_TYPE                0
#define P32_OFFSET              4
#define P32_VADDR               8
#define P32_PADDR               12
#define P32_FILESZ              16
#define P32_MEMSZ               20
#define P32_FLAGS               24
#define P32_PHDR_SIZE           32
#define PT_LOAD                 1
#define PF_X                    1

#define SEL_CODE32              0x08
#define SEL_DATA                0x10

#define PAGE_ALIGN(x)   (((x) + X86_BOOT_PAGE_SIZE - 1) & \
                         ~(X86_BOOT_PAGE_SIZE - 1))

/* A piece of the kernel file to place: [offset, +filesz) then zeros. */
typedef struct MbSegment {
    uint64_t paddr;
    uint64_t offset;
    uint64_t filesz;
    uint64_t memsz;
} MbSegment;

typedef struct MbKernel {
    GArray *segs;               /* MbSegment */
    uint64_t low, high;         /* span of the segments */
    uint32_t entry;
} MbKernel;

typedef struct MbModule {
    char *string;               /* "path args", as given */
    char *path;
    X86BootFile file;
} MbModule;

long multiboot_find_header(const uint8_t *image, size_t size)
{
    size_t limit = MIN(size, (size_t)MULTIBOOT_SEARCH_LIMIT);
    size_t i;

    /* The header's first three fields must lie within the search area. */
    for (i = 0; i + 12 <= limit; i += 4) {
        uint32_t magic = x86_boot_ldl(image + i);
        uint32_t flags = x86_boot_ldl(image + i + MBH_FLAGS);
        uint32_t sum = x86_boot_ldl(image + i + MBH_CHECKSUM);

        if (magic == MULTIBOOT_HEADER_MAGIC && magic + flags + sum == 0) {
            return i;
        }
    }
    return -1;
}

/* ELF32 program headers: PT_LOAD segments at their physical addresses. */
static bool mb_parse_elf(const char *path, const uint8_t *image,
                         size_t size, MbKernel *k, Error **errp)
{
    uint32_t phoff, entry;
    unsigned phentsize, phnum, i;
    bool entry_translated = false;

    if (size < E32_EHDR_SIZE || memcmp(image, "\x7f" "ELF", 4) != 0) {
        error_setg(errp, "%s: Error while loading elf kernel: not an ELF "
                   "file, and the multiboot header has no load addresses "
                   "(flags bit 16 clear)", path);
        return false;
    }
    if (image[EI_CLASS] == ELFCLASS64 ||
        x86_boot_lduw(image + E_MACHINE) == EM_X86_64) {
        error_setg(errp, "%s: Cannot load x86-64 image, give a 32bit one.",
                   path);
        return false;
    }
    if (image[EI_CLASS] != ELFCLASS32 || image[EI_DATA] != ELFDATA2LSB ||
        x86_boot_lduw(image + E_MACHINE) != EM_386) {
        error_setg(errp, "%s: Error while loading elf kernel: not a "
                   "little-endian ELF32 i386 image", path);
        return false;
    }
    entry = x86_boot_ldl(image + E32_ENTRY);
    phoff = x86_boot_ldl(image + E32_PHOFF);
    phentsize = x86_boot_lduw(image + E32_PHENTSIZE);
    phnum = x86_boot_lduw(image + E32_PHNUM);
    if (phnum == 0 || phentsize < P32_PHDR_SIZE) {
        error_setg(errp, "%s: Error while loading elf kernel: no program "
                   "headers", path);
        return false;
    }
    if (phoff > size || (uint64_t)phentsize * phnum > size - phoff) {
        error_setg(errp, "%s: file is truncated (program headers end at "
                   "byte %" PRIu64 ", file has %zu)", path,
                   (uint64_t)phoff + (uint64_t)phentsize * phnum, size);
        return false;
    }

    k->entry = entry;
    k->low = UINT64_MAX;
    k->high = 0;
    for (i = 0; i < phnum; i++) {
        const uint8_t *ph = image + phoff + (size_t)i * phentsize;
        MbSegment s;
        uint32_t vaddr = x86_boot_ldl(ph + P32_VADDR);

        if (x86_boot_ldl(ph + P32_TYPE) != PT_LOAD) {
            continue;
        }
        s.paddr = x86_boot_ldl(ph + P32_PADDR);
        s.offset = x86_boot_ldl(ph + P32_OFFSET);
        s.filesz = x86_boot_ldl(ph + P32_FILESZ);
        s.memsz = x86_boot_ldl(ph + P32_MEMSZ);
        if (s.filesz > s.memsz) {
            error_setg(errp, "%s: Error while loading elf kernel: segment "
                       "%u has p_filesz 0x%" PRIx64 " above p_memsz 0x%"
                       PRIx64, path, i, s.filesz, s.memsz);
            return false;
        }
        if (s.offset > size || s.filesz > size - s.offset) {
            error_setg(errp, "%s: file is truncated (segment %u ends at "
                       "byte %" PRIu64 ", file has %zu)", path, i,
                       s.offset + s.filesz, size);
            return false;
        }
        if (s.paddr + s.memsz > 0x100000000ULL) {
            error_setg(errp, "%s: segment %u at 0x%" PRIx64 "-0x%" PRIx64
                       " does not fit below 4 GiB", path, i, s.paddr,
                       s.paddr + s.memsz - 1);
            return false;
        }
        if (s.memsz == 0) {
            continue;
        }
        /*
         * e_entry is virtual; when the executable segment holding it is
         * linked at a different physical address, enter at the physical
         * one (paging is off), as QEMU's ELF loader does.
         */
        if (!entry_translated && vaddr != s.paddr &&
            (x86_boot_ldl(ph + P32_FLAGS) & PF_X) &&
            entry >= vaddr && entry - vaddr < s.filesz) {
            k->entry = entry - vaddr + s.paddr;
            entry_translated = true;
        }
        g_array_append_val(k->segs, s);
        k->low = MIN(k->low, s.paddr);
        k->high = MAX(k->high, s.paddr + s.memsz);
    }
    if (k->segs->len == 0) {
        error_setg(errp, "%s: Error while loading elf kernel: no loadable "
                   "segments", path);
        return false;
    }
    return true;
}

/* The a.out kludge: addresses from the header (QEMU's checks and words). */
static bool mb_parse_aout(const char *path, const uint8_t *image,
                          size_t size, long hdr, MbKernel *k, Error **errp)
{
    const uint8_t *h = image + hdr;
    uint32_t header_addr, load_addr, load_end, bss_end;
    uint64_t text_offset, load_size, kernel_size;

    if ((size_t)hdr + MBH_ENTRY_ADDR + 4 > size) {
        error_setg(errp, "%s: file is truncated (multiboot header ends at "
                   "byte %ld, file has %zu)", path,
                   hdr + MBH_ENTRY_ADDR + 4, size);
        return false;
    }
    header_addr = x86_boot_ldl(h + MBH_HEADER_ADDR);
    load_addr = x86_boot_ldl(h + MBH_LOAD_ADDR);
    load_end = x86_boot_ldl(h + MBH_LOAD_END_ADDR);
    bss_end = x86_boot_ldl(h + MBH_BSS_END_ADDR);
    k->entry = x86_boot_ldl(h + MBH_ENTRY_ADDR);

    if (header_addr < load_addr) {
        error_setg(errp, "%s: invalid load_addr address", path);
        return false;
    }
    if (header_addr - load_addr > (uint64_t)hdr) {
        error_setg(errp, "%s: invalid header_addr address", path);
        return false;
    }
    /* The file offset that load_addr corresponds to. */
    text_offset = hdr - (header_addr - load_addr);
    if (load_end) {
        if (load_end < load_addr) {
            error_setg(errp, "%s: invalid load_end_addr address", path);
            return false;
        }
        load_size = load_end - load_addr;
    } else {
        load_size = size - text_offset;
    }
    if (load_size > size - text_offset) {
        error_setg(errp, "%s: file is truncated (load_end_addr needs byte %"
                   PRIu64 ", file has %zu)", path, text_offset + load_size,
                   size);
        return false;
    }
    if (load_size > UINT32_MAX - load_addr) {
        error_setg(errp, "%s: kernel does not fit in address space", path);
        return false;
    }
    if (bss_end) {
        if (bss_end < load_addr + load_size) {
            error_setg(errp, "%s: invalid bss_end_addr address", path);
            return false;
        }
        kernel_size = bss_end - load_addr;
    } else {
        kernel_size = load_size;
    }
    if (kernel_size == 0) {
        error_setg(errp, "%s: multiboot kernel is empty (load_end_addr "
                   "equals load_addr)", path);
        return false;
    }

    MbSegment s = {
        .paddr = load_addr,
        .offset = text_offset,
        .filesz = load_size,
        .memsz = kernel_size,
    };
    g_array_append_val(k->segs, s);
    k->low = load_addr;
    k->high = (uint64_t)load_addr + kernel_size;
    return true;
}

/*
 * -initrd "mod1 arg,mod2": modules split at commas, ",," standing for a
 * comma inside a module string (QEMU's option-value rule).
 */
static GPtrArray *mb_split_modules(const char *arg)
{
    GPtrArray *mods = g_ptr_array_new_with_free_func(g_free);
    const char *p = arg;

    while (*p) {
        GString *s = g_string_new(NULL);

        for (; *p; p++) {
            if (*p == ',') {
                if (p[1] != ',') {
                    break;
                }
                p++;
            }
            g_string_append_c(s, *p);
        }
        g_ptr_array_add(mods, g_string_free(s, false));
        if (*p) {
            p++;
        }
    }
    return mods;
}

static void mb_modules_free(MbModule *mods, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        x86_boot_file_unmap(&mods[i].file);
        g_free(mods[i].path);
    }
    g_free(mods);
}

/* Write to guest RAM, and to the fw_cfg copy of the load area if any. */
typedef struct MbOut {
    const GuestMemory *mem;
    uint8_t *fw_buf;            /* NULL: the board wants no fw_cfg items */
    uint64_t base, size;        /* guest range fw_buf mirrors */
} MbOut;

static bool mb_emit(MbOut *o, uint64_t addr, const void *buf, uint64_t len,
                    const char *what, Error **errp)
{
    if (!x86_boot_write(o->mem, addr, buf, len, what, errp)) {
        return false;
    }
    if (o->fw_buf && buf && addr >= o->base && addr - o->base <= o->size &&
        len <= o->size - (addr - o->base)) {
        memcpy(o->fw_buf + (addr - o->base), buf, len);
    }
    return true;
}

static void mb_set_cpu_state(X86BootState *st, uint32_t entry,
                             uint32_t info)
{
    x86_boot_flat32_state(st, entry, SEL_CODE32, SEL_DATA,
                          MULTIBOOT_GDT_ADDR);
    st->rax = MULTIBOOT_BOOTLOADER_MAGIC;
    st->rbx = info;
}

/*
 * Where the information goes: the memory map, the information structure
 * (EBX), and the "tail": the module list followed by the strings.
 */
typedef struct MbPlace {
    uint64_t mmap;
    uint64_t info;
    uint64_t tail;
} MbPlace;

/* Claim the three places, or nothing (no error: the caller tries on). */
static bool mb_try_place(const X86BootConfig *cfg, X86BootState *st,
                         const MbPlace *p, uint32_t mmap_len,
                         uint64_t tail_len)
{
    guint mark = st->ranges->len;
    Error *err = NULL;

    if (x86_boot_reserve(cfg, st, p->mmap, mmap_len,
                         "multiboot memory map", &err) &&
        x86_boot_reserve(cfg, st, p->info, MULTIBOOT_INFO_SIZE,
                         "multiboot information", &err) &&
        x86_boot_reserve(cfg, st, p->tail, tail_len,
                         "multiboot module list and strings", &err)) {
        return true;
    }
    error_free(err);
    g_array_set_size(st->ranges, mark);
    return false;
}

static gint mb_cmp_addr(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * QEMU's places when they are free: the map at 0x9000, the structure at
 * 0x9500, the tail in the load area after the kernel. QEMU 7.2 uses them
 * even when the kernel is linked over them (its ROM copies the kernel
 * last, over the information). Here the three move together, in QEMU's
 * order (map, structure at +0x500, tail right after it), to the first
 * free place in low memory from 0x9000 up, else from 0x1000 up, else
 * (low memory full) from 1 MiB up; a place is one of those addresses or
 * just after something already claimed.
 */
static bool mb_place_info(const X86BootConfig *cfg, X86BootState *st,
                          const char *path, uint64_t tail_qemu,
                          uint32_t mmap_len, uint64_t tail_len, MbPlace *p,
                          Error **errp)
{
    static const uint64_t windows[][2] = {
        { MULTIBOOT_MMAP_ADDR, MB_LOW_END },
        { MB_LOW_START, MB_LOW_END },
        { MB_HIGH_START, MB_HIGH_END },
    };
    uint64_t block = MB_MMAP_AREA_SIZE + MULTIBOOT_INFO_SIZE + tail_len;
    GArray *cands = g_array_new(false, false, sizeof(uint64_t));
    uint64_t c;
    guint i, w;
    bool ok = false;

    *p = (MbPlace){ MULTIBOOT_MMAP_ADDR, MULTIBOOT_INFO_ADDR, tail_qemu };
    if (mb_try_place(cfg, st, p, mmap_len, tail_len)) {
        g_array_free(cands, true);
        return true;
    }
    for (w = 0; w < G_N_ELEMENTS(windows); w++) {
        g_array_append_val(cands, windows[w][0]);
    }
    for (i = 0; i < st->ranges->len; i++) {
        const X86BootRange *r = &g_array_index(st->ranges, X86BootRange, i);

        c = (r->addr + r->len + 15) & ~15ULL;
        g_array_append_val(cands, c);
    }
    g_array_sort(cands, mb_cmp_addr);
    for (w = 0; w < G_N_ELEMENTS(windows) && !ok; w++) {
        for (i = 0; i < cands->len && !ok; i++) {
            c = g_array_index(cands, uint64_t, i);
            if (c < windows[w][0] || c + block > windows[w][1]) {
                continue;
            }
            p->mmap = c;
            p->info = c + MB_MMAP_AREA_SIZE;
            p->tail = p->info + MULTIBOOT_INFO_SIZE;
            ok = mb_try_place(cfg, st, p, mmap_len, tail_len);
        }
    }
    g_array_free(cands, true);
    if (!ok) {
        error_setg(errp, "%s: no room in guest RAM for the multiboot "
                   "information (0x%" PRIx64 " bytes) beside the kernel "
                   "and its modules", path, block);
    }
    return ok;
}

/* The memory map from the board's e820, in the multiboot entry format. */
static bool mb_build_mmap(const X86BootConfig *cfg, const char *path,
                          uint8_t *mmap, uint32_t *len, Error **errp)
{
    unsigned i;

    if ((uint64_t)cfg->e820_entries * MULTIBOOT_MMAP_ENTRY_SIZE >
        MB_MMAP_AREA_SIZE) {
        error_setg(errp, "%s: %u e820 entries do not fit the multiboot "
                   "memory map (at most %u)", path, cfg->e820_entries,
                   MB_MMAP_AREA_SIZE / MULTIBOOT_MMAP_ENTRY_SIZE);
        return false;
    }
    for (i = 0; i < cfg->e820_entries; i++) {
        uint8_t *e = mmap + i * MULTIBOOT_MMAP_ENTRY_SIZE;

        /* "size" counts the entry without itself. */
        x86_boot_stl(e, MULTIBOOT_MMAP_ENTRY_SIZE - 4);
        x86_boot_stq(e + 4, cfg->e820[i].addr);
        x86_boot_stq(e + 12, cfg->e820[i].len);
        x86_boot_stl(e + 20, cfg->e820[i].type);
    }
    *len = cfg->e820_entries * MULTIBOOT_MMAP_ENTRY_SIZE;
    return true;
}

int multiboot_load(const X86BootConfig *cfg, const uint8_t *image,
                   size_t size, const GuestMemory *mem, X86BootState *st,
                   X86BootFwCfg *fw, Error **errp)
{
    /* QEMU's GDT: null, flat 32-bit code, flat data. */
    static const uint64_t gdt[3] = {
        0, 0x00cf9b000000ffffULL, 0x00cf93000000ffffULL,
    };
    const char *path = cfg->kernel_filename;
    const char *append = cfg->kernel_cmdline ? cfg->kernel_cmdline : "";
    MbKernel k = { .segs = g_array_new(false, false, sizeof(MbSegment)) };
    GPtrArray *specs = NULL;
    MbModule *mods = NULL;
    unsigned nmods = 0, i;
    uint8_t info[MULTIBOOT_INFO_SIZE] = { 0 };
    uint8_t mmap[MB_MMAP_AREA_SIZE];
    uint8_t gdt_bytes[sizeof(gdt)];
    uint8_t *tail = NULL;
    char *kcmdline = NULL;
    uint64_t off_mods, off_cmdlines, off_loader, info_end, buf_size;
    uint64_t cmdline_len, str_off, mod_addr;
    uint32_t flags, mmap_len;
    uint8_t *initrd;
    size_t initrd_len;
    MbPlace place;
    MbOut out = { .mem = mem };
    long hdr;
    int ret = -1;

    hdr = multiboot_find_header(image, size);
    if (hdr < 0) {
        g_array_free(k.segs, true);
        return 0;
    }
    flags = x86_boot_ldl(image + hdr + MBH_FLAGS);
    if (flags & MBH_VIDEO_MODE) {
        /* QEMU's words; it goes on without a framebuffer, and so do we. */
        g_ptr_array_add(st->warnings,
                        g_strdup("multiboot knows VBE. we don't"));
    }
    if (flags & 0xffff & ~MBH_KNOWN_REQUIRED) {
        g_ptr_array_add(st->warnings,
                        g_strdup_printf("%s: multiboot header asks for "
                                        "unknown features (flags 0x%x); "
                                        "booting anyway, as QEMU does",
                                        path, flags));
    }

    /* The a.out kludge fields win over an ELF header, as in QEMU. */
    if (flags & MBH_AOUT_KLUDGE) {
        if (!mb_parse_aout(path, image, size, hdr, &k, errp)) {
            goto out;
        }
    } else if (!mb_parse_elf(path, image, size, &k, errp)) {
        goto out;
    }

    /* Modules: mapped up front, so the layout is known before writing. */
    if (cfg->initrd_filename) {
        specs = mb_split_modules(cfg->initrd_filename);
        mods = g_new0(MbModule, specs->len);
        for (nmods = 0; nmods < specs->len; nmods++) {
            MbModule *m = &mods[nmods];
            const char *space;
            int err;

            m->string = g_ptr_array_index(specs, nmods);
            space = strchr(m->string, ' ');
            m->path = space ? g_strndup(m->string, space - m->string)
                            : g_strdup(m->string);
            err = x86_boot_file_map(m->path, &m->file);
            if (err) {
                error_setg(errp, "Failed to open file '%s': %s", m->path,
                           g_strerror(err));
                nmods++;
                goto out;
            }
        }
    }

    /*
     * QEMU's layout from the kernel's load address: the kernel, page
     * aligned; module structures; strings (modules', then the kernel
     * command line); the boot loader name; page aligned; the modules,
     * each page aligned.
     */
    kcmdline = g_strdup_printf("%s %s", path, append);
    /* Sized as QEMU sizes it (one byte more than kcmdline needs). */
    cmdline_len = strlen(path) + 1 + strlen(append) + 1;
    if (cfg->initrd_filename) {
        cmdline_len += strlen(cfg->initrd_filename) + 1;
    }
    off_mods = PAGE_ALIGN(k.high - k.low);
    off_cmdlines = off_mods + (uint64_t)nmods * MB_MOD_SIZE;
    off_loader = off_cmdlines + cmdline_len;
    info_end = off_loader + sizeof(MB_BOOT_LOADER_NAME);
    buf_size = PAGE_ALIGN(info_end);
    for (i = 0; i < nmods; i++) {
        buf_size = PAGE_ALIGN(buf_size + mods[i].file.size);
    }
    if (k.low + buf_size > 0x100000000ULL) {
        error_setg(errp, "%s: kernel and modules (0x%" PRIx64 " bytes from "
                   "0x%" PRIx64 ") do not fit below 4 GiB", path, buf_size,
                   k.low);
        goto out;
    }

    /*
     * Claim everything first: no byte is written unless all fits. The
     * kernel and modules have fixed places; the information goes where
     * they leave room.
     */
    if (!mb_build_mmap(cfg, path, mmap, &mmap_len, errp) ||
        !x86_boot_reserve(cfg, st, MULTIBOOT_GDT_ADDR, sizeof(gdt),
                          "boot GDT", errp)) {
        goto out;
    }
    for (i = 0; i < k.segs->len; i++) {
        MbSegment *s = &g_array_index(k.segs, MbSegment, i);

        if (!x86_boot_reserve(cfg, st, s->paddr, s->memsz, "kernel", errp)) {
            goto out;
        }
    }
    mod_addr = k.low + PAGE_ALIGN(info_end);
    for (i = 0; i < nmods; i++) {
        if (!x86_boot_reserve(cfg, st, mod_addr, mods[i].file.size,
                              "multiboot module", errp)) {
            goto out;
        }
        mod_addr = PAGE_ALIGN(mod_addr + mods[i].file.size);
    }
    if (!mb_place_info(cfg, st, path, k.low + off_mods, mmap_len,
                       info_end - off_mods, &place, errp)) {
        goto out;
    }

    if (fw) {
        out.fw_buf = g_malloc0(buf_size);
        out.base = k.low;
        out.size = buf_size;
    }

    /* The kernel: file bytes, then zeros up to the memory size (BSS). */
    for (i = 0; i < k.segs->len; i++) {
        MbSegment *s = &g_array_index(k.segs, MbSegment, i);

        if (!mb_emit(&out, s->paddr, image + s->offset, s->filesz,
                     "kernel", errp) ||
            !mb_emit(&out, s->paddr + s->filesz, NULL, s->memsz - s->filesz,
                     "kernel", errp)) {
            goto out;
        }
    }

    /* Module structures and strings, built in one host buffer. */
    tail = g_malloc0(info_end - off_mods);
    str_off = off_cmdlines;
    mod_addr = k.low + PAGE_ALIGN(info_end);
    for (i = 0; i < nmods; i++) {
        uint8_t *m = tail + i * MB_MOD_SIZE;
        size_t n = strlen(mods[i].string) + 1;

        memcpy(tail + (str_off - off_mods), mods[i].string, n);
        x86_boot_stl(m, mod_addr);
        x86_boot_stl(m + 4, mod_addr + mods[i].file.size);
        x86_boot_stl(m + 8, place.tail + (str_off - off_mods));
        str_off += n;
        if (!mb_emit(&out, mod_addr, mods[i].file.data, mods[i].file.size,
                     "multiboot module", errp)) {
            goto out;
        }
        mod_addr = PAGE_ALIGN(mod_addr + mods[i].file.size);
    }
    memcpy(tail + (str_off - off_mods), kcmdline, strlen(kcmdline) + 1);
    memcpy(tail + (off_loader - off_mods), MB_BOOT_LOADER_NAME,
           sizeof(MB_BOOT_LOADER_NAME));

    x86_boot_stl(info + MBI_FLAGS, MULTIBOOT_INFO_MEMORY |
                 MULTIBOOT_INFO_BOOTDEV | MULTIBOOT_INFO_CMDLINE |
                 MULTIBOOT_INFO_MODS | MULTIBOOT_INFO_MEM_MAP |
                 MULTIBOOT_INFO_BOOT_LOADER);
    /*
     * As QEMU's ROM computes them from the BIOS: conventional memory up
     * to the EBDA, and the RAM that runs on from 1 MiB, in KiB.
     */
    x86_boot_stl(info + MBI_MEM_LOWER,
                 MIN(x86_boot_e820_low_ram_size(cfg), 0xa0000) / 1024);
    x86_boot_stl(info + MBI_MEM_UPPER,
                 (x86_boot_e820_high_ram_end(cfg) - 0x100000) / 1024);
    x86_boot_stl(info + MBI_BOOT_DEVICE, MB_BOOT_DEVICE);
    x86_boot_stl(info + MBI_CMDLINE, place.tail + (str_off - off_mods));
    x86_boot_stl(info + MBI_MODS_COUNT, nmods);
    x86_boot_stl(info + MBI_MODS_ADDR, place.tail);
    x86_boot_stl(info + MBI_MMAP_LENGTH, mmap_len);
    x86_boot_stl(info + MBI_MMAP_ADDR, place.mmap);
    x86_boot_stl(info + MBI_BOOT_LOADER_NAME,
                 place.tail + (off_loader - off_mods));

    for (i = 0; i < G_N_ELEMENTS(gdt); i++) {
        x86_boot_stq(gdt_bytes + i * 8, gdt[i]);
    }
    if (!mb_emit(&out, place.tail, tail, info_end - off_mods,
                 "multiboot module list and strings", errp) ||
        !mb_emit(&out, MULTIBOOT_GDT_ADDR, gdt_bytes, sizeof(gdt_bytes),
                 "boot GDT", errp) ||
        !mb_emit(&out, place.mmap, mmap, mmap_len,
                 "multiboot memory map", errp) ||
        !mb_emit(&out, place.info, info, sizeof(info),
                 "multiboot information", errp)) {
        goto out;
    }

    mb_set_cpu_state(st, k.entry, place.info);

    /* What QEMU hands its multiboot option ROM. */
    if (fw) {
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_KERNEL_ENTRY, k.entry);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_KERNEL_ADDR, k.low);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_KERNEL_SIZE, buf_size);
        x86_boot_fw_cfg_add(fw, FW_CFG_KERNEL_DATA, out.fw_buf, buf_size);
        out.fw_buf = NULL;
        /*
         * Moved out of the load area, the tail follows the structure, so
         * a ROM that copies this blob gets the strings too.
         */
        initrd_len = sizeof(info);
        if (place.tail == place.info + sizeof(info)) {
            initrd_len += info_end - off_mods;
        }
        initrd = g_malloc(initrd_len);
        memcpy(initrd, info, sizeof(info));
        memcpy(initrd + sizeof(info), tail, initrd_len - sizeof(info));
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_INITRD_ADDR, place.info);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_INITRD_SIZE, initrd_len);
        x86_boot_fw_cfg_add(fw, FW_CFG_INITRD_DATA, initrd, initrd_len);
    }
    ret = 1;

out:
    g_free(out.fw_buf);
    g_free(tail);
    g_free(kcmdline);
    if (mods) {
        mb_modules_free(mods, nmods);
    }
    if (specs) {
        g_ptr_array_free(specs, true);
    }
    g_array_free(k.segs, true);
    return ret;
}
