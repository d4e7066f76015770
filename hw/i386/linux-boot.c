/*
 * bzImage loader for the 64-bit Linux boot protocol. See
 * include/hw/i386/linux-boot.h for the guest layout.
 *
 * The file is untrusted: the setup header is checked field by field
 * against the file size before any of it is used, and every piece is
 * claimed in guest RAM (x86_boot_reserve) before anything is written.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/i386/linux-boot.h"
#include "hw/nvram/fw_cfg.h"

/* Fields of boot_params / the setup header this loader reads or sets. */
#define BP_ACPI_RSDP_ADDR           0x070
#define BP_E820_ENTRIES             0x1e8
#define BP_SETUP_SECTS              0x1f1
#define BP_SYSSIZE                  0x1f4
#define BP_BOOT_FLAG                0x1fe
#define BP_JUMP                     0x200
#define BP_HEADER                   0x202
#define BP_VERSION                  0x206
#define BP_TYPE_OF_LOADER           0x210
#define BP_LOADFLAGS                0x211
#define BP_CODE32_START             0x214
#define BP_RAMDISK_IMAGE            0x218
#define BP_RAMDISK_SIZE             0x21c
#define BP_HEAP_END_PTR             0x224
#define BP_CMD_LINE_PTR             0x228
#define BP_INITRD_ADDR_MAX          0x22c
#define BP_XLOADFLAGS               0x236
#define BP_CMDLINE_SIZE             0x238
#define BP_PREF_ADDRESS             0x258
#define BP_INIT_SIZE                0x260
#define BP_E820_TABLE               0x2d0
#define BP_E820_MAX                 128
#define BP_SIZE                     0x1000

#define LINUX_HDRS_MAGIC            0x53726448u  /* "HdrS" */
#define LINUX_BOOT_FLAG_MAGIC       0xaa55
#define LOADFLAGS_LOADED_HIGH       0x01
#define LOADFLAGS_CAN_USE_HEAP      0x80
#define XLF_KERNEL_64               0x01
#define XLF_CAN_BE_LOADED_ABOVE_4G  0x02

/* The 2.12 header fields end with handover_offset. */
#define HDR_END_2_12        0x268
/* boot_params keeps the setup header in [0x1f1, 0x290). */
#define BP_HDR_LIMIT        0x290
#define INITRD_MAX_DEFAULT  0x37ffffffu    /* before protocol 2.03 */
#define FOUR_GIB            0x100000000ULL
#define TWO_MIB             0x200000ULL
#define PTE_PRESENT         0x001
#define PTE_WRITABLE        0x002
#define PTE_LARGE           0x080

bool linux_boot_has_setup_header(const uint8_t *image, size_t size)
{
    return size >= BP_HEADER + 4 &&
           x86_boot_ldl(image + BP_HEADER) == LINUX_HDRS_MAGIC;
}

static void stw(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static void truncated(Error **errp, const char *path, const char *what,
                      uint64_t end, size_t size)
{
    error_setg(errp, "%s: file is truncated (%s ends at byte %" PRIu64
               ", file has %zu)", path, what, end, size);
}

/* Identity map of the first 4 GiB with 2 MiB pages. */
static void build_page_tables(uint8_t *pt)
{
    uint8_t *pml4 = pt;
    uint8_t *pdpt = pt + (LINUX_BOOT_PDPT_ADDR - LINUX_BOOT_PML4_ADDR);
    uint8_t *pd = pt + (LINUX_BOOT_PD_ADDR - LINUX_BOOT_PML4_ADDR);
    unsigned i;

    x86_boot_stq(pml4, LINUX_BOOT_PDPT_ADDR | PTE_PRESENT | PTE_WRITABLE);
    for (i = 0; i < 4; i++) {
        x86_boot_stq(pdpt + i * 8, (LINUX_BOOT_PD_ADDR + i * 0x1000) |
                     PTE_PRESENT | PTE_WRITABLE);
    }
    for (i = 0; i < 4 * 512; i++) {
        x86_boot_stq(pd + i * 8, (uint64_t)i * TWO_MIB |
                     PTE_PRESENT | PTE_WRITABLE | PTE_LARGE);
    }
}

static void set_cpu_state(X86BootState *st, uint64_t load_addr)
{
    st->mode = X86_BOOT_MODE_LONG64;
    st->rip = load_addr + LINUX_BOOT_ENTRY64_OFFSET;
    st->rsi = LINUX_BOOT_PARAMS_ADDR;
    st->rsp = LINUX_BOOT_STACK_TOP;
    st->rflags = X86_RFLAGS_FIXED;      /* interrupts off */
    st->cr0 = X86_CR0_PE | X86_CR0_ET | X86_CR0_PG;
    st->cr3 = LINUX_BOOT_PML4_ADDR;
    st->cr4 = X86_CR4_PAE;
    st->efer = X86_EFER_LME | X86_EFER_LMA;
    st->cs = x86_boot_flat_segment(LINUX_BOOT_SEL_CODE, 0xb, true);
    st->ds = x86_boot_flat_segment(LINUX_BOOT_SEL_DATA, 0x3, false);
    st->es = st->ds;
    st->fs = st->ds;
    st->gs = st->ds;
    st->ss = st->ds;
    st->gdt_base = LINUX_BOOT_GDT_ADDR;
    st->gdt_limit = 4 * 8 - 1;
    x86_boot_system_segments(st);
}

/* The checks on the file alone; fills the sizes the loader needs. */
static bool check_header(const char *path, const uint8_t *image, size_t size,
                         size_t *setup_size, size_t *hdr_end, Error **errp)
{
    unsigned version, setup_sects;
    uint64_t sys_end;

    if (!linux_boot_has_setup_header(image, size)) {
        error_setg(errp, "%s: not a bzImage (no HdrS signature)", path);
        return false;
    }
    if (x86_boot_lduw(image + BP_BOOT_FLAG) != LINUX_BOOT_FLAG_MAGIC) {
        error_setg(errp, "%s: not a bzImage (no 0xAA55 boot signature at "
                   "0x1fe)", path);
        return false;
    }
    version = x86_boot_lduw(image + BP_VERSION);
    if (version < LINUX_BOOT_MIN_PROTOCOL) {
        error_setg(errp, "%s: Linux boot protocol %u.%02u is too old; the "
                   "64-bit entry needs 2.12 or later", path, version >> 8,
                   version & 0xff);
        return false;
    }
    /* The header's length is the short jump's offset at 0x201. */
    *hdr_end = BP_HEADER + image[BP_JUMP + 1];
    if (*hdr_end > size) {
        truncated(errp, path, "setup header", *hdr_end, size);
        return false;
    }
    if (*hdr_end < HDR_END_2_12) {
        error_setg(errp, "%s: invalid kernel header (it ends at 0x%zx; "
                   "protocol 2.12 needs 0x%x)", path, *hdr_end,
                   HDR_END_2_12);
        return false;
    }
    setup_sects = image[BP_SETUP_SECTS];
    if (setup_sects == 0) {
        setup_sects = 4;                /* the protocol's rule */
    }
    *setup_size = (setup_sects + 1) * 512;
    if (*setup_size > size) {
        truncated(errp, path, "setup code", *setup_size, size);
        return false;
    }
    if (!(image[BP_LOADFLAGS] & LOADFLAGS_LOADED_HIGH)) {
        error_setg(errp, "%s: not a bzImage (LOADED_HIGH not set in "
                   "loadflags)", path);
        return false;
    }
    if (!(x86_boot_lduw(image + BP_XLOADFLAGS) & XLF_KERNEL_64)) {
        error_setg(errp, "%s: kernel has no 64-bit entry point "
                   "(XLF_KERNEL_64 not set in xloadflags)", path);
        return false;
    }
    /* syssize is in 16-byte paragraphs; a kernel has at least one. */
    sys_end = *setup_size +
              MAX((uint64_t)x86_boot_ldl(image + BP_SYSSIZE) * 16, 1);
    if (sys_end > size) {
        truncated(errp, path, "protected-mode kernel", sys_end, size);
        return false;
    }
    return true;
}

bool linux_boot_load(const X86BootConfig *cfg, const uint8_t *image,
                     size_t size, const GuestMemory *mem, X86BootState *st,
                     X86BootFwCfg *fw, Error **errp)
{
    static const uint64_t gdt[4] = {
        0, 0, 0x00af9b000000ffffULL, 0x00cf93000000ffffULL,
    };
    const char *path = cfg->kernel_filename;
    const char *cmdline = cfg->kernel_cmdline ? cfg->kernel_cmdline : "";
    size_t setup_size, hdr_end, prot_size, cmdline_len;
    uint64_t load_addr, kernel_mem, initrd_addr = 0, ram_end;
    uint32_t initrd_max, cmdline_size;
    uint8_t gdt_bytes[sizeof(gdt)];
    uint8_t *bp = NULL, *pt = NULL;
    X86BootFile initrd = { 0 };
    bool ok = false;
    unsigned i;

    if (!check_header(path, image, size, &setup_size, &hdr_end, errp)) {
        return false;
    }
    prot_size = size - setup_size;

    /* A relocatable kernel may go anywhere; its preference is best. */
    load_addr = x86_boot_ldq(image + BP_PREF_ADDRESS);
    if (load_addr == 0) {
        load_addr = LINUX_BOOT_KERNEL_ADDR;
    }
    kernel_mem = MAX((uint64_t)prot_size, x86_boot_ldl(image + BP_INIT_SIZE));
    if (load_addr >= FOUR_GIB || kernel_mem > FOUR_GIB - load_addr) {
        error_setg(errp, "%s: kernel at 0x%" PRIx64 " (0x%" PRIx64 " bytes) "
                   "does not fit below 4 GiB", path, load_addr, kernel_mem);
        return false;
    }

    cmdline_len = strlen(cmdline) + 1;
    if (cmdline_len > LINUX_BOOT_CMDLINE_MAX) {
        error_setg(errp, "kernel command line is too long (%zu bytes, at "
                   "most %u)", cmdline_len - 1, LINUX_BOOT_CMDLINE_MAX - 1);
        return false;
    }
    cmdline_size = x86_boot_ldl(image + BP_CMDLINE_SIZE);
    if (cmdline_len - 1 > cmdline_size) {
        /* QEMU passes it whole; the kernel keeps what it can. */
        g_ptr_array_add(st->warnings, g_strdup_printf(
            "%s: the kernel reads at most %u bytes of the %zu-byte "
            "command line", path, cmdline_size, cmdline_len - 1));
    }

    if (cfg->e820_entries > BP_E820_MAX) {
        error_setg(errp, "%u e820 entries do not fit boot_params (at most "
                   "%u)", cfg->e820_entries, BP_E820_MAX);
        return false;
    }

    if (!x86_boot_reserve(cfg, st, LINUX_BOOT_GDT_ADDR, sizeof(gdt),
                          "boot GDT", errp) ||
        !x86_boot_reserve(cfg, st, LINUX_BOOT_PARAMS_ADDR, BP_SIZE,
                          "boot_params", errp) ||
        !x86_boot_reserve(cfg, st, LINUX_BOOT_STACK_ADDR, 0x1000,
                          "boot stack", errp) ||
        !x86_boot_reserve(cfg, st, LINUX_BOOT_PML4_ADDR,
                          LINUX_BOOT_PAGE_TABLES_SIZE, "boot page tables",
                          errp) ||
        !x86_boot_reserve(cfg, st, LINUX_BOOT_CMDLINE_ADDR, cmdline_len,
                          "kernel command line", errp) ||
        !x86_boot_reserve(cfg, st, load_addr, kernel_mem, "kernel", errp)) {
        return false;
    }

    /* boot_params: zeroed, then the file's setup header as the base. */
    bp = g_malloc0(BP_SIZE);
    memcpy(bp + BP_SETUP_SECTS, image + BP_SETUP_SECTS,
           MIN(hdr_end, BP_HDR_LIMIT) - BP_SETUP_SECTS);
    bp[BP_TYPE_OF_LOADER] = LINUX_BOOT_LOADER_TYPE;
    bp[BP_LOADFLAGS] |= LOADFLAGS_CAN_USE_HEAP;
    x86_boot_stl(bp + BP_CODE32_START, load_addr);
    /* QEMU's heap end: up to the command line, from setup + 0x200. */
    stw(bp + BP_HEAP_END_PTR,
        LINUX_BOOT_CMDLINE_ADDR - LINUX_BOOT_SETUP_ADDR - 0x200);
    x86_boot_stl(bp + BP_CMD_LINE_PTR, LINUX_BOOT_CMDLINE_ADDR);
    if (cfg->acpi_rsdp_addr && x86_boot_lduw(image + BP_VERSION) >= 0x020e) {
        x86_boot_stq(bp + BP_ACPI_RSDP_ADDR, cfg->acpi_rsdp_addr);
    }
    bp[BP_E820_ENTRIES] = cfg->e820_entries;
    for (i = 0; i < cfg->e820_entries; i++) {
        uint8_t *e = bp + BP_E820_TABLE + i * 20;

        x86_boot_stq(e, cfg->e820[i].addr);
        x86_boot_stq(e + 8, cfg->e820[i].len);
        x86_boot_stl(e + 16, cfg->e820[i].type);
    }

    if (cfg->initrd_filename) {
        int err = x86_boot_file_map(cfg->initrd_filename, &initrd);

        if (err) {
            error_setg(errp, "error reading initrd %s: %s",
                       cfg->initrd_filename, g_strerror(err));
            goto out;
        }
        /* QEMU's rule: the highest page below both limits. */
        if (x86_boot_lduw(image + BP_XLOADFLAGS) &
            XLF_CAN_BE_LOADED_ABOVE_4G) {
            initrd_max = UINT32_MAX;
        } else {
            initrd_max = x86_boot_ldl(image + BP_INITRD_ADDR_MAX);
        }
        ram_end = x86_boot_e820_high_ram_end(cfg);
        if (initrd_max >= ram_end) {
            initrd_max = ram_end - 1;
        }
        if (initrd.size >= initrd_max) {
            error_setg(errp, "initrd is too large, cannot support."
                       "(max: %" PRIu32 ", need %" PRIu64 ")", initrd_max,
                       (uint64_t)initrd.size);
            goto out;
        }
        initrd_addr = (initrd_max - initrd.size) & ~(X86_BOOT_PAGE_SIZE - 1);
        if (!x86_boot_reserve(cfg, st, initrd_addr, initrd.size, "initrd",
                              errp)) {
            goto out;
        }
        x86_boot_stl(bp + BP_RAMDISK_IMAGE, initrd_addr);
        x86_boot_stl(bp + BP_RAMDISK_SIZE, initrd.size);
    }

    pt = g_malloc0(LINUX_BOOT_PAGE_TABLES_SIZE);
    build_page_tables(pt);
    for (i = 0; i < G_N_ELEMENTS(gdt); i++) {
        x86_boot_stq(gdt_bytes + i * 8, gdt[i]);
    }
    if (!x86_boot_write(mem, LINUX_BOOT_GDT_ADDR, gdt_bytes,
                        sizeof(gdt_bytes), "boot GDT", errp) ||
        !x86_boot_write(mem, LINUX_BOOT_PARAMS_ADDR, bp, BP_SIZE,
                        "boot_params", errp) ||
        !x86_boot_write(mem, LINUX_BOOT_PML4_ADDR, pt,
                        LINUX_BOOT_PAGE_TABLES_SIZE, "boot page tables",
                        errp) ||
        !x86_boot_write(mem, LINUX_BOOT_CMDLINE_ADDR, cmdline, cmdline_len,
                        "kernel command line", errp) ||
        !x86_boot_write(mem, load_addr, image + setup_size, prot_size,
                        "kernel", errp) ||
        !x86_boot_write(mem, initrd_addr, initrd.data, initrd.size,
                        "initrd", errp)) {
        goto out;
    }

    set_cpu_state(st, load_addr);

    /* QEMU's items for a Linux boot, in its order. */
    if (fw) {
        uint8_t *setup = g_memdup2(image, setup_size);

        /* The setup code as a 16-bit boot would run it: patched header. */
        memcpy(setup + BP_SETUP_SECTS, bp + BP_SETUP_SECTS,
               MIN(hdr_end, BP_HDR_LIMIT) - BP_SETUP_SECTS);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_KERNEL_ADDR, load_addr);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_KERNEL_SIZE, prot_size);
        x86_boot_fw_cfg_add(fw, FW_CFG_KERNEL_DATA,
                            g_memdup2(image + setup_size, prot_size),
                            prot_size);
        if (cfg->initrd_filename) {
            x86_boot_fw_cfg_add_i32(fw, FW_CFG_INITRD_ADDR, initrd_addr);
            x86_boot_fw_cfg_add_i32(fw, FW_CFG_INITRD_SIZE, initrd.size);
            x86_boot_fw_cfg_add(fw, FW_CFG_INITRD_DATA,
                                g_memdup2(initrd.data, initrd.size),
                                initrd.size);
        }
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_CMDLINE_ADDR,
                                LINUX_BOOT_CMDLINE_ADDR);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_CMDLINE_SIZE, cmdline_len);
        x86_boot_fw_cfg_add(fw, FW_CFG_CMDLINE_DATA,
                            g_memdup2(cmdline, cmdline_len), cmdline_len);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_SETUP_ADDR, LINUX_BOOT_SETUP_ADDR);
        x86_boot_fw_cfg_add_i32(fw, FW_CFG_SETUP_SIZE, setup_size);
        x86_boot_fw_cfg_add(fw, FW_CFG_SETUP_DATA, setup, setup_size);
    }
    ok = true;

out:
    x86_boot_file_unmap(&initrd);
    g_free(pt);
    g_free(bp);
    return ok;
}
