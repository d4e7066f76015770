/*
 * The i440FX PC: guest RAM split around the PCI hole, the i440FX host
 * bridge (pci.0) with the PIIX3 at 01.0 and the ISA bus behind it, the
 * I/O APIC's input lines as the ISA interrupt lines, the ISA devices, the e820 map,
 * the firmware (SeaBIOS, -bios) or direct kernel boot (-kernel), and under
 * KVM the in-kernel irqchip, PIT and the vCPUs. Without KVM the i8259
 * pair and the PIT are userspace devices and each ISA line fans out to
 * the i8259 and the I/O APIC.
 */
#include <inttypes.h>
#include <string.h>

#include "chardev/char.h"
#include "qemu/timer.h"
#include "hw/boards.h"
#include "hw/boot-device.h"
#include "hw/bus.h"
#include "hw/i386/pc.h"
#include "hw/i386/acpi-loader.h"
#include "hw/i386/pc-firmware.h"
#include "hw/i386/pc-smbios.h"
#include "hw/i386/x86-boot.h"
#include "hw/intc/apic.h"
#include "hw/intc/i8259.h"
#include "hw/intc/ioapic.h"
#include "hw/nvram/fw_cfg.h"
#include "hw/isa.h"
#include "hw/ide/ide.h"
#include "block/block.h"
#include "hw/pci-host/i440fx.h"
#include "hw/qdev.h"
#include "hw/rtc/mc146818rtc.h"
#include "hw/timer/hpet.h"
#include "qom/object.h"
#include "system/cpus.h"
#include "system/memory.h"
#include "system/hostmem.h"
#include "hw/acpi/pm.h"
#include "hw/i386/acpi-build.h"
#include "hw/misc/pvpanic.h"
#include "vmstate/ram-regions.h"
#include "system/accel.h"
#include "target/i386/cpu.h"
#include "system/runstate.h"
#include "system/system.h"

/* The e820 map QEMU's PC reports to guests (through SeaBIOS). */
#define PC_LOW_RAM_END      0x9fc00ULL  /* 639 KiB: the EBDA follows */
#define PC_VGA_BASE         0xa0000ULL
#define PC_BIOS_AREA        0xf0000ULL
#define PC_ONE_MIB          0x100000ULL
/* Kept at the top of low RAM, reserved in e820: the ACPI tables. */
#define PC_HIGH_TABLES_SIZE 0x20000ULL
#define PC_BIOS_ROM_BASE    0xfffc0000ULL
/* AMD's HyperTransport range below 1 TiB (QEMU reserves it for AMD CPUs). */
#define PC_AMD_HT_START     0xfd00000000ULL
#define PC_AMD_HT_SIZE      0x0300000000ULL
#define PC_E820_MAX         8
/* The RSDP's copy where legacy guests scan for it (0xE0000-0xFFFFF). */
#define PC_RSDP_LEGACY      0xf0000ULL
/* The PIIX3 at 01.0 and its PIRQRC A-D (config 0x60-0x63). */
#define PC_PIIX3_DEVFN      PCI_DEVFN(1, 0)
/* Its IDE function at 01.1: IDETIM of each channel (0x40, 0x42). */
#define PC_PIIX3_IDE_DEVFN  PCI_DEVFN(1, 1)
#define PC_PIIX3_IDETIM     0x40
#define PC_IDETIM_DECODE    0x8000
#define PC_PIIX3_PIRQRC     0x60
/* The i440FX's PAM0-PAM6 (config 0x59-0x5f). */
#define PC_I440FX_PAM       0x59
#define PC_I440FX_PAM_COUNT 7

/*
 * The ISA IRQ of PIRQ A-D, SeaBIOS's choice, which the board programs
 * before a kernel runs (there is no firmware to do it) and the DSDT's
 * links report; QEMU's MADT declares 5, 9, 10 and 11 level-triggered.
 */
static const uint8_t pc_pirq_irqs[4] = { 10, 10, 11, 11 };
#define PC_PCI_LEVEL_IRQS   (1u << 5 | 1u << 9 | 1u << 10 | 1u << 11)

typedef struct PCMachineState {
    RAMBlock *ram;
    MemoryRegion ram_below_4g;
    MemoryRegion ram_above_4g;
    PCRamLayout layout;
    qemu_irq isa_irqs[ISA_NUM_IRQS];
    /* Without KVM: ISA line n -> i8259 input n and I/O APIC input n. */
    qemu_irq *isa_fanout;
    qemu_irq pic_in[ISA_NUM_IRQS];
    /* Without KVM: the master i8259's INT -> LINT0 of every APIC. */
    qemu_irq pic_int;
    GPtrArray *apic_lint0;          /* of qemu_irq */
    qemu_irq ioapic_in[ISA_NUM_IRQS];
    DeviceState *ioapic;            /* ioapic or kvm-ioapic */
    DeviceState *hpet;              /* unless hpet=off */
    BusState *isa_bus;              /* isa.0: the ISA devices' bus */
    DeviceState *pci_host;          /* i440FX-pcihost: pci.0 */
    DeviceState *ide;               /* piix3-ide at 01.1 */
    FWCfgState *fw_cfg;
    X86BootE820Entry e820[PC_E820_MAX];
    unsigned e820_entries;
    const VmConfig *cfg;
    /* Without -kernel: the firmware runs from the reset vector. */
    bool firmware_boot;
    PCFirmware firmware;
    GByteArray *acpi_tables;        /* -kernel: placed at acpi_base */
    uint64_t acpi_base;
    uint64_t acpi_rsdp;             /* guest address of the RSDP */
    DeviceState *rtc;               /* its CMOS holds the boot order */
    bool boot_once;                 /* -boot once= until the first reset */
    /*
     * -incoming: guest RAM is the source's, and a share=on file may be
     * the very memory the source's guest is running in (local live
     * update), so building the machine must not write it.
     */
    bool ram_from_source;
} PCMachineState;

PCRamLayout pc_ram_layout(uint64_t ram_size)
{
    PCRamLayout l;

    if (ram_size >= PC_LOWMEM_LIMIT) {
        l.below_4g = PC_LOWMEM_ALIGNED;
    } else {
        l.below_4g = ram_size;
    }
    l.above_4g = ram_size - l.below_4g;
    return l;
}

/* The RAM is the machine's memory backend's (vl.c made or chose it). */
static bool pc_init_ram(PCMachineState *pcms, MachineState *ms, Error **errp)
{
    pcms->layout = pc_ram_layout(ms->ram_size);
    pcms->ram = host_memory_backend_machine_ram();
    if (!pcms->ram) {
        error_setg(errp, "machine type '%s' needs guest RAM", ms->mc->name);
        return false;
    }
    memory_region_init_ram_ptr(&pcms->ram_below_4g, "ram-below-4g",
                               pcms->layout.below_4g, pcms->ram->host);
    if (!address_space_map_region(&address_space_memory, &pcms->ram_below_4g,
                                  0, errp)) {
        return false;
    }
    ram_migration_register(&pcms->ram_below_4g);
    if (pcms->layout.above_4g) {
        memory_region_init_ram_ptr(&pcms->ram_above_4g, "ram-above-4g",
                                   pcms->layout.above_4g,
                                   pcms->ram->host + pcms->layout.below_4g);
        if (!address_space_map_region(&address_space_memory,
                                      &pcms->ram_above_4g, PC_4GIB, errp)) {
            return false;
        }
        ram_migration_register(&pcms->ram_above_4g);
    }
    return true;
}

static void e820_add(PCMachineState *pcms, uint64_t addr, uint64_t len,
                     uint32_t type)
{
    g_assert(pcms->e820_entries < PC_E820_MAX);
    pcms->e820[pcms->e820_entries++] = (X86BootE820Entry) {
        .addr = addr, .len = len, .type = type,
    };
}

/*
 * The map QEMU's pc gives its firmware in "etc/e820": the RAM as it is,
 * and the ranges that are not the firmware's to give away (the
 * accelerator's pages, AMD's HyperTransport range). The firmware adds
 * its own reservations and hands the result to the guest.
 */
static void pc_build_e820_firmware(PCMachineState *pcms)
{
    uint64_t base, size;

    pcms->e820_entries = 0;
    e820_add(pcms, 0, pcms->layout.below_4g, E820_RAM);
    if (pcms->layout.above_4g) {
        e820_add(pcms, PC_4GIB, pcms->layout.above_4g, E820_RAM);
    }
    if (accel_reserved_range(&base, &size)) {
        e820_add(pcms, base, size, E820_RESERVED);
    }
    if (vcpus_amd_ht_hole()) {
        e820_add(pcms, PC_AMD_HT_START, PC_AMD_HT_SIZE, E820_RESERVED);
    }
}

/*
 * For direct kernel boot: the map SeaBIOS makes of QEMU's for the same
 * RAM, and the pages the accelerator uses.
 */
static void pc_build_e820(PCMachineState *pcms)
{
    uint64_t below = pcms->layout.below_4g;
    uint64_t ram_end = below, base, size;

    if (pcms->firmware_boot) {
        pc_build_e820_firmware(pcms);
        return;
    }
    pcms->e820_entries = 0;
    e820_add(pcms, 0, MIN(below, PC_LOW_RAM_END), E820_RAM);
    e820_add(pcms, PC_LOW_RAM_END, PC_VGA_BASE - PC_LOW_RAM_END, E820_RESERVED);
    e820_add(pcms, PC_BIOS_AREA, PC_ONE_MIB - PC_BIOS_AREA, E820_RESERVED);
    if (below > PC_ONE_MIB + 2 * PC_HIGH_TABLES_SIZE) {
        ram_end = below - PC_HIGH_TABLES_SIZE;
        e820_add(pcms, PC_ONE_MIB, ram_end - PC_ONE_MIB, E820_RAM);
        e820_add(pcms, ram_end, PC_HIGH_TABLES_SIZE, E820_RESERVED);
    } else if (below > PC_ONE_MIB) {
        e820_add(pcms, PC_ONE_MIB, below - PC_ONE_MIB, E820_RAM);
    }
    if (accel_reserved_range(&base, &size)) {
        e820_add(pcms, base, size, E820_RESERVED);
    }
    e820_add(pcms, PC_BIOS_ROM_BASE, PC_4GIB - PC_BIOS_ROM_BASE, E820_RESERVED);
    if (pcms->layout.above_4g) {
        e820_add(pcms, PC_4GIB, pcms->layout.above_4g, E820_RAM);
    }
    if (vcpus_amd_ht_hole()) {
        e820_add(pcms, PC_AMD_HT_START, PC_AMD_HT_SIZE, E820_RESERVED);
    }
}

/*
 * The machine's fw_cfg items, as QEMU's pc publishes them: RAM size,
 * CPUs (max_cpus is one more than the highest APIC ID), boot options.
 */
static void pc_fw_cfg_machine_items(FWCfgState *fw, const MachineState *ms)
{
    const VmConfig *cfg = ms->cfg;
    X86CPUTopology topo = x86_cpu_topology(cfg->smp.sockets, cfg->smp.cores,
                                           cfg->smp.threads);
    unsigned max_cpus = cfg->smp.maxcpus
                        ? x86_cpu_apic_id(&topo, cfg->smp.maxcpus - 1) + 1
                        : MAX(cfg->smp.cpus, 1u);
    uint32_t reboot_timeout = UINT32_MAX;

    fw_cfg_add_i64(fw, FW_CFG_RAM_SIZE, ms->ram_size);
    fw_cfg_add_i16(fw, FW_CFG_NOGRAPHIC, cfg->nographic);
    fw_cfg_add_i16(fw, FW_CFG_NB_CPUS, ms->smp_cpus);
    fw_cfg_add_i16(fw, FW_CFG_MAX_CPUS, max_cpus);
    fw_cfg_add_i16(fw, FW_CFG_BOOT_MENU, cfg->boot.menu);
    /* Node count 0, then a CPU-to-node word per APIC ID, no nodes. */
    fw_cfg_add_bytes(fw, FW_CFG_NUMA, g_new0(uint64_t, 1 + max_cpus),
                     (1 + (size_t)max_cpus) * sizeof(uint64_t));
    /* Filled in once the devices exist (pc_publish_boot_order()). */
    fw_cfg_add_file(fw, "bootorder", NULL, 0);
    if (cfg->boot.reboot_timeout_set) {
        reboot_timeout = cfg->boot.reboot_timeout;
    }
    reboot_timeout = GUINT32_TO_LE(reboot_timeout);
    fw_cfg_add_file(fw, "etc/boot-fail-wait",
                    g_memdup2(&reboot_timeout, 4), 4);
    /* BootOptions cannot tell splash-time=0 from no splash-time. */
    if (cfg->boot.splash_time_set) {
        uint16_t wait = GUINT16_TO_LE(cfg->boot.splash_time);

        fw_cfg_add_file(fw, "etc/boot-menu-wait", g_memdup2(&wait, 2), 2);
    }
}

/*
 * The boot order in the CMOS, as the PC BIOS reads it and QEMU's pc
 * writes it: the first device in the low nibble of 0x3d, the second in
 * its high nibble, the third in the high nibble of 0x38 (whose bit 0,
 * left clear, keeps the floppy boot signature check). Devices: 1 floppy
 * (a, b), 2 hard disk (c), 3 CD-ROM (d), 4 network (n).
 */
static bool pc_cmos_boot_order(DeviceState *rtc, const char *order,
                               Error **errp)
{
    uint8_t dev[3] = { 0 };

    if (strlen(order) > G_N_ELEMENTS(dev)) {
        error_setg(errp, "Too many boot devices for PC");
        return false;
    }
    for (size_t i = 0; order[i]; i++) {
        switch (order[i]) {
        case 'a':
        case 'b':
            dev[i] = 1;
            break;
        case 'c':
            dev[i] = 2;
            break;
        case 'd':
            dev[i] = 3;
            break;
        case 'n':
            dev[i] = 4;
            break;
        default:
            error_setg(errp, "Invalid boot device for PC: '%c'", order[i]);
            return false;
        }
    }
    if (rtc) {
        rtc_set_memory(rtc, 0x3d, dev[1] << 4 | dev[0]);
        rtc_set_memory(rtc, 0x38, dev[2] << 4);
    }
    return true;
}

/*
 * The PC BIOS's memory-size, CPU-count and boot-order bytes of the CMOS,
 * as QEMU's. -boot once= is the order until the first system_reset.
 */
static bool pc_cmos_init(PCMachineState *pcms, DeviceState *rtc,
                         const MachineState *ms, Error **errp)
{
    uint64_t below = pcms->layout.below_4g, val;
    const BootOptions *boot = &ms->cfg->boot;

    if (!pc_cmos_boot_order(NULL, boot->order, errp) ||
        !pc_cmos_boot_order(rtc, boot->once ? boot->once : boot->order,
                            errp)) {
        return false;
    }
    pcms->rtc = rtc;
    pcms->boot_once = boot->once != NULL;

    val = MIN(below / 1024, 640);
    rtc_set_memory(rtc, 0x15, val);
    rtc_set_memory(rtc, 0x16, val >> 8);
    val = below > (1 << 20) ? (below - (1 << 20)) / 1024 : 0;
    val = MIN(val, 0xffff);
    rtc_set_memory(rtc, 0x17, val);
    rtc_set_memory(rtc, 0x18, val >> 8);
    rtc_set_memory(rtc, 0x30, val);
    rtc_set_memory(rtc, 0x31, val >> 8);
    val = below > (16 << 20) ? (below - (16 << 20)) / 65536 : 0;
    val = MIN(val, 0xffff);
    rtc_set_memory(rtc, 0x34, val);
    rtc_set_memory(rtc, 0x35, val >> 8);
    val = pcms->layout.above_4g / 65536;
    rtc_set_memory(rtc, 0x5b, val);
    rtc_set_memory(rtc, 0x5c, val >> 8);
    rtc_set_memory(rtc, 0x5d, val >> 16);
    rtc_set_memory(rtc, 0x5f, ms->smp_cpus ? ms->smp_cpus - 1 : 0);
    return true;
}

/* The "etc/e820" fw_cfg file: packed little-endian {addr, len, type}. */
static void pc_publish_e820(PCMachineState *pcms, FWCfgState *fw)
{
    uint8_t *buf = g_malloc(pcms->e820_entries * 20);

    for (unsigned i = 0; i < pcms->e820_entries; i++) {
        x86_boot_stq(buf + i * 20, pcms->e820[i].addr);
        x86_boot_stq(buf + i * 20 + 8, pcms->e820[i].len);
        x86_boot_stl(buf + i * 20 + 16, pcms->e820[i].type);
    }
    fw_cfg_add_file(fw, "etc/e820", buf, pcms->e820_entries * 20);
}

static bool pc_guest_write(void *opaque, uint64_t addr, const void *buf,
                           uint64_t len)
{
    PCMachineState *pcms = opaque;
    void *p = address_space_ram_ptr(&address_space_memory, addr, len);

    if (!p) {
        return false;
    }
    if (pcms->ram_from_source) {
        return true;
    }
    if (buf) {
        memcpy(p, buf, len);
    } else {
        memset(p, 0, len);
    }
    return true;
}

/*
 * What the ACPI tables describe: the vCPUs, the PM device, the PCI
 * windows and interrupt links, pvpanic. ac->apic_ids is g_new'ed.
 */
static void pc_acpi_config(PCMachineState *pcms, MachineState *ms,
                           AcpiBuildConfig *out)
{
    X86CPUTopology topo = x86_cpu_topology(ms->cfg->smp.sockets,
                                           ms->cfg->smp.cores,
                                           ms->cfg->smp.threads);
    unsigned ncpus = MAX(ms->smp_cpus, 1u);
    uint32_t *apic_ids = g_new(uint32_t, ncpus);
    AcpiBuildConfig ac = {
        .ncpus = ncpus,
        .apic_ids = apic_ids,
        .pm_io_base = ACPI_PM_DEFAULT_IOBASE,
        .sci_irq = ACPI_PM_DEFAULT_SCI_IRQ,
        .ioapic_id = 0,
        .reset_port = ACPI_PM_RESET_PORT,
        .has_i8042 = true,
        .level_irq_mask = PC_PCI_LEVEL_IRQS,
        .has_pci = true,
        .has_hpet = pcms->hpet != NULL,
    };
    uint16_t pvpanic_port;

    i440fx_host_holes(pcms->pci_host, &ac.pci_hole_start, &ac.pci_hole_end,
                      &ac.pci_hole64_start, &ac.pci_hole64_end);
    memcpy(ac.pirq_irqs, pc_pirq_irqs, sizeof(ac.pirq_irqs));
    if (pvpanic_isa_port(&pvpanic_port)) {
        ac.has_pvpanic = true;
        ac.pvpanic_port = pvpanic_port;
    }
    for (unsigned i = 0; i < ncpus; i++) {
        apic_ids[i] = x86_cpu_apic_id(&topo, i);
    }
    *out = ac;
}

/* fw_cfg takes the bytes of a (freed) byte array. */
static void pc_fw_cfg_add_array(FWCfgState *fw, const char *name,
                                GByteArray *a)
{
    size_t len = a->len;

    fw_cfg_add_file(fw, name, g_byte_array_free(a, false), len);
}

/*
 * For the firmware: the tables as fw_cfg files and the linker/loader
 * script with which it places them (QEMU's "etc/table-loader").
 */
static void pc_publish_acpi(PCMachineState *pcms, MachineState *ms)
{
    AcpiBuildConfig ac;
    AcpiLoaderBlobs b;

    pc_acpi_config(pcms, ms, &ac);
    acpi_loader_build(&ac, &b);
    g_free((uint32_t *)ac.apic_ids);
    pc_fw_cfg_add_array(pcms->fw_cfg, ACPI_LOADER_TABLES_FILE, b.tables);
    pc_fw_cfg_add_array(pcms->fw_cfg, ACPI_LOADER_RSDP_FILE, b.rsdp);
    pc_fw_cfg_add_array(pcms->fw_cfg, ACPI_LOADER_FILE, b.loader);
}

/* CPUID leaf 1 of the machine's CPU model (0s where it cannot be had). */
static void pc_cpuid_1(const VmConfig *cfg, uint32_t *eax, uint32_t *edx)
{
    X86CPUIDEntry *t = g_new(X86CPUIDEntry, X86_CPUID_MAX_ENTRIES);
    X86CPUDef def;
    X86CPUIDEntry *leaf = NULL;
    unsigned n = 0;

    *eax = *edx = 0;
    if (x86_cpu_def_init(&def, cfg->cpu.model, cfg->cpu.features, NULL)) {
        n = vcpus_model_cpuid(&def, t, X86_CPUID_MAX_ENTRIES, NULL);
        x86_cpu_def_free(&def);
    }
    leaf = n ? x86_cpuid_find(t, n, 1, 0) : NULL;
    if (leaf) {
        *eax = leaf->regs[X86_R_EAX];
        *edx = leaf->regs[X86_R_EDX];
    }
    g_free(t);
}

/*
 * The SMBIOS tables QEMU's pc gives its firmware, with -smbios type=0,1
 * (checked on the command line).
 */
static bool pc_publish_smbios(PCMachineState *pcms, MachineState *ms,
                              Error **errp)
{
    const VmConfig *cfg = ms->cfg;
    SmbiosRange ram[2] = {
        { 0, pcms->layout.below_4g }, { PC_4GIB, pcms->layout.above_4g },
    };
    X86CPUTopology topo = x86_cpu_topology(cfg->smp.sockets, cfg->smp.cores,
                                           cfg->smp.threads);
    unsigned max_cpus = MAX(cfg->smp.maxcpus, MAX(ms->smp_cpus, 1u));
    SmbiosConfig sc = {
        .machine_desc = ms->mc->desc,
        .machine_name = ms->mc->name,
        .uuid = qemu_uuid_set ? qemu_uuid : NULL,
        .cores = topo.cores,
        .threads = topo.threads,
        .ram_size = ms->ram_size,
        .ram = ram,
        .nram = pcms->layout.above_4g ? 2 : 1,
        .options = cfg->smbios,
    };
    GByteArray *tables, *anchor;

    sc.sockets = (max_cpus + topo.cores * topo.threads - 1) /
                 (topo.cores * topo.threads);
    pc_cpuid_1(cfg, &sc.cpuid_1_eax, &sc.cpuid_1_edx);
    if (!smbios_build(&sc, &tables, &anchor, errp)) {
        return false;
    }
    pc_fw_cfg_add_array(pcms->fw_cfg, SMBIOS_TABLES_FILE, tables);
    pc_fw_cfg_add_array(pcms->fw_cfg, SMBIOS_ANCHOR_FILE, anchor);
    return true;
}

/*
 * For direct kernel boot: the tables in the reserved area at the top of
 * low RAM, and the RSDP also where legacy guests scan.
 */
static bool pc_build_acpi(PCMachineState *pcms, MachineState *ms, Error **errp)
{
    AcpiBuildConfig ac;
    uint64_t rsdp_offset;

    if (pcms->layout.below_4g <= PC_ONE_MIB + 2 * PC_HIGH_TABLES_SIZE) {
        /* Too little RAM for the reserved area: no ACPI, as on a tiny PC. */
        return true;
    }
    pc_acpi_config(pcms, ms, &ac);
    pcms->acpi_base = pcms->layout.below_4g - PC_HIGH_TABLES_SIZE;
    pcms->acpi_tables = acpi_build_tables(&ac, pcms->acpi_base, &rsdp_offset);
    g_free((uint32_t *)ac.apic_ids);
    if (pcms->acpi_tables->len > PC_HIGH_TABLES_SIZE) {
        error_setg(errp, "ACPI tables of %u bytes do not fit the reserved "
                   "area", pcms->acpi_tables->len);
        return false;
    }
    pcms->acpi_rsdp = pcms->acpi_base + rsdp_offset;
    return true;
}

/* (Re)write the tables into guest RAM: a guest may have overwritten them. */
static void pc_place_acpi(PCMachineState *pcms)
{
    uint64_t rsdp_offset = pcms->acpi_rsdp - pcms->acpi_base;

    if (!pcms->acpi_tables || pcms->ram_from_source) {
        return;
    }
    address_space_rw(&address_space_memory, pcms->acpi_base,
                     pcms->acpi_tables->data, pcms->acpi_tables->len, true);
    address_space_rw(&address_space_memory, PC_RSDP_LEGACY,
                     pcms->acpi_tables->data + rsdp_offset, 36, true);
}

/* Load -kernel into RAM; with fw, also publish QEMU's fw_cfg items. */
static bool pc_load_kernel(PCMachineState *pcms, X86BootState *st,
                           FWCfgState *fw, Error **errp)
{
    const GuestMemory mem = { .write = pc_guest_write, .opaque = pcms };
    const X86BootConfig bc = {
        .kernel_filename = pcms->cfg->kernel,
        .initrd_filename = pcms->cfg->initrd,
        .kernel_cmdline = pcms->cfg->append,
        .e820 = pcms->e820,
        .e820_entries = pcms->e820_entries,
        .acpi_rsdp_addr = pcms->acpi_rsdp,
    };
    X86BootFwCfg items = { .count = 0 };

    /* The firmware's PCI interrupt routing, which the DSDT reports. */
    for (int i = 0; i < 4; i++) {
        pci_bus_config_write(i440fx_host_bus(pcms->pci_host), PC_PIIX3_DEVFN,
                             PC_PIIX3_PIRQRC + i, pc_pirq_irqs[i], 1);
    }
    /* SeaBIOS's IDE setup: both channels decode (ata_piix checks). */
    for (int i = 0; pcms->ide && i < 2; i++) {
        pci_bus_config_write(i440fx_host_bus(pcms->pci_host),
                             PC_PIIX3_IDE_DEVFN, PC_PIIX3_IDETIM + 2 * i,
                             PC_IDETIM_DECODE, 2);
    }
    /* RAM at 0xc0000-0xfffff, where a firmware would have shadowed. */
    for (int i = 0; i < PC_I440FX_PAM_COUNT; i++) {
        pci_bus_config_write(i440fx_host_bus(pcms->pci_host), 0,
                             PC_I440FX_PAM + i, 0x33, 1);
    }
    if (!x86_boot_load_kernel(&bc, &mem, st, fw ? &items : NULL, errp)) {
        x86_boot_fw_cfg_free(&items);
        return false;
    }
    for (unsigned i = 0; fw && i < items.count; i++) {
        fw_cfg_add_bytes(fw, items.items[i].key, items.items[i].data,
                         items.items[i].len);
        items.items[i].data = NULL;
    }
    x86_boot_fw_cfg_free(&items);
    for (guint i = 0; fw && i < st->warnings->len; i++) {
        warn_report("%s", (char *)g_ptr_array_index(st->warnings, i));
    }
    return true;
}

/*
 * The "bootorder" file, from the devices' bootindex properties: written
 * once the -device devices exist and again at each reset, so devices
 * plugged since then are in it (as QEMU's fw_cfg does).
 */
static void pc_publish_boot_order(PCMachineState *pcms)
{
    size_t len;
    char *list;

    if (!pcms->fw_cfg) {
        return;
    }
    list = boot_device_list(pcms->cfg->boot.strict, &len);
    fw_cfg_add_file(pcms->fw_cfg, "bootorder", list, len);
}

/*
 * system_reset: RAM keeps what the guest wrote, so the kernel is loaded
 * again, and the vCPUs start over from the loader's state.
 */
static void pc_reset(void *opaque)
{
    PCMachineState *pcms = opaque;
    X86BootState st;
    Error *err = NULL;
    bool loaded = false;

    if (pcms->boot_once) {
        /* The order was checked at startup. */
        pc_cmos_boot_order(pcms->rtc, pcms->cfg->boot.order, NULL);
        pcms->boot_once = false;
    }
    pc_publish_boot_order(pcms);
    x86_boot_state_init(&st);
    pc_place_acpi(pcms);
    /* The firmware starts over from the reset vector (its ROM is seen
     * again: the i440FX's reset cleared the PAM registers). */
    if (pcms->cfg->kernel) {
        loaded = pc_load_kernel(pcms, &st, NULL, &err);
        if (!loaded) {
            error_report_err(err);
            qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR, 1);
        }
    }
    vcpus_reset(loaded ? &st : NULL);
    x86_boot_state_free(&st);
}

/*
 * A pvpanic device, told to the guest as QEMU's pc does: the fw_cfg file
 * "etc/pvpanic-port" and (in pc_build_acpi) a QEMU0001 device.
 */
static void pc_publish_pvpanic(PCMachineState *pcms)
{
    uint16_t port;

    if (pcms->fw_cfg && pvpanic_isa_port(&port)) {
        fw_cfg_add_file(pcms->fw_cfg, "etc/pvpanic-port",
                        g_memdup2(&(uint16_t){ GUINT16_TO_LE(port) }, 2), 2);
    }
}

/*
 * The ACPI tables describe -device devices (pvpanic), and the kernel
 * loader passes their address: both come once the devices exist.
 */
static bool pc_devices_done(MachineState *ms, Error **errp)
{
    PCMachineState *pcms = ms->board;
    X86BootState st;
    bool ok;

    pc_publish_boot_order(pcms);
    pc_publish_pvpanic(pcms);
    if (pcms->firmware_boot && !pc_publish_smbios(pcms, ms, errp)) {
        return false;
    }
    if (ms->cfg->machine.acpi && pcms->firmware_boot) {
        pc_publish_acpi(pcms, ms);
    } else if (ms->cfg->machine.acpi && !pc_build_acpi(pcms, ms, errp)) {
        return false;
    }
    pcms->ram_from_source = ms->cfg->incoming != NULL;
    pc_place_acpi(pcms);
    x86_boot_state_init(&st);
    ok = !ms->cfg->kernel || pc_load_kernel(pcms, &st, pcms->fw_cfg, errp);
    pcms->ram_from_source = false;
    if (ok) {
        vcpus_reset(ms->cfg->kernel ? &st : NULL);
    }
    x86_boot_state_free(&st);
    if (ok) {
        qemu_register_reset(pc_reset, pcms);
    }
    return ok;
}

/*
 * Without -kernel the vCPUs run the firmware: -bios, or QEMU's default,
 * looked up in the firmware path. -machine smm=on is refused: there is
 * no System Management Mode (the firmware does without).
 */
static bool pc_init_firmware(PCMachineState *pcms, MachineState *ms,
                             Error **errp)
{
    const char *smm = qemu_opt_get(ms->cfg->machine.opts, "smm");
    bool on;

    if (smm && strcmp(smm, "auto") &&
        !qemu_parse_bool("smm", smm, &on, errp)) {
        return false;
    }
    if (smm && strcmp(smm, "auto") && on) {
        error_setg(errp, "-machine smm=on: System Management Mode is not "
                   "supported; use smm=off or smm=auto");
        return false;
    }
    pcms->firmware_boot = !ms->cfg->kernel;
    if (!pcms->firmware_boot) {
        return true;
    }
    return pc_firmware_load(&pcms->firmware,
                            ms->cfg->bios ? ms->cfg->bios
                                          : PC_FIRMWARE_DEFAULT, errp);
}

static void pc_isa_irq_fanout(void *opaque, int n, int level)
{
    PCMachineState *pcms = opaque;

    qemu_set_irq(pcms->pic_in[n], level);
    qemu_set_irq(pcms->ioapic_in[n], level);
}

static DeviceState *pc_create(const char *type, Object *parent,
                              const char *name, const char *const *props,
                              Error **errp);

/*
 * The PIC's INT reaches LINT0 of every APIC, as on QEMU's pc: the APs'
 * LINT0 entries are masked unless a guest wants otherwise.
 */
static void pc_pic_int(void *opaque, int n, int level)
{
    PCMachineState *pcms = opaque;

    for (guint i = 0; i < pcms->apic_lint0->len; i++) {
        qemu_set_irq(g_ptr_array_index(pcms->apic_lint0, i), level);
    }
}

/*
 * The i8259 pair, the slave's INT on the master's input 2, the master's
 * INT on the local APICs' LINT0 and its INTA cycle theirs, as QEMU's;
 * and the APICs' level-triggered EOIs to the I/O APIC.
 */
static bool pc_init_pic(PCMachineState *pcms, DeviceState *ioapic,
                        Error **errp)
{
    DeviceState *master, *slave, *apic;

    master = pc_create("isa-i8259", NULL, NULL, (const char *const[]){
        "iobase", "0x20", "elcr_addr", "0x4d0", "elcr_mask", "0xf8",
        "master", "true", NULL }, errp);
    slave = master ? pc_create("isa-i8259", NULL, NULL, (const char *const[]){
        "iobase", "0xa0", "elcr_addr", "0x4d1", "elcr_mask", "0xde",
        "master", "false", NULL }, errp) : NULL;
    if (!slave) {
        return false;
    }
    i8259_cascade(master, slave);
    pcms->apic_lint0 = g_ptr_array_new();
    for (unsigned i = 0; (apic = apic_device(i)); i++) {
        g_ptr_array_add(pcms->apic_lint0,
                        qdev_get_gpio_in_named(apic, "lint", 0));
        apic_set_extint_ack(apic, i8259_inta, master);
        /* Level-triggered EOIs reach this machine's I/O APIC. */
        apic_set_eoi_notify(apic, ioapic_eoi_notify, ioapic);
    }
    pcms->pic_int = qemu_allocate_irq(pc_pic_int, pcms, 0);
    qdev_connect_gpio_out_named(master, NULL, 0, pcms->pic_int);
    for (int i = 0; i < ISA_NUM_IRQS; i++) {
        pcms->pic_in[i] = qdev_get_gpio_in(i < 8 ? master : slave, i % 8);
    }
    return true;
}

static bool pc_init_irqs(PCMachineState *pcms, Error **errp)
{
    Object *host = object_get_container("/machine/i440fx");
    DeviceState *ioapic = qdev_new(accel_device_type("ioapic"), errp);
    char *irq0_pin;
    bool ok;

    if (!ioapic) {
        return false;
    }
    qdev_set_parent(ioapic, host, "ioapic");
    /* The MADT's override (acpi-build.h): ISA IRQ 0 drives pin 2. */
    irq0_pin = g_strdup_printf("%u", ACPI_PC_IRQ0_GSI);
    ok = qdev_prop_set(ioapic, "irq0-pin", irq0_pin, errp);
    g_free(irq0_pin);
    if (!ok) {
        qdev_free_unrealized(ioapic);
        return false;
    }
    if (!qdev_realize(ioapic, errp)) {
        return false;
    }
    pcms->ioapic = ioapic;
    /* Input n takes ISA IRQ n (input 0 goes to irq0-pin). */
    for (int i = 0; i < ISA_NUM_IRQS; i++) {
        pcms->isa_irqs[i] = qdev_get_gpio_in(ioapic, i);
    }
    /*
     * In-kernel interrupt controllers take the GSIs and route them to
     * their own PIC pair; otherwise the board's i8259s get each line too.
     */
    if (!accel_irqchip_in_kernel()) {
        /*
         * The I/O APIC's lines stay what it receives (qtest's
         * irq_intercept_in ioapic replaces their handlers in place).
         */
        if (!pc_init_pic(pcms, ioapic, errp)) {
            return false;
        }
        memcpy(pcms->ioapic_in, pcms->isa_irqs, sizeof(pcms->ioapic_in));
        pcms->isa_fanout = qemu_allocate_irqs(pc_isa_irq_fanout, pcms,
                                              ISA_NUM_IRQS);
        memcpy(pcms->isa_irqs, pcms->isa_fanout, sizeof(pcms->isa_irqs));
    }
    isa_bus_set_irqs(pcms->isa_irqs);
    return true;
}

/* Create a board device with props (name, value pairs, NULL-ended). */
static DeviceState *pc_create(const char *type, Object *parent,
                              const char *name, const char *const *props,
                              Error **errp)
{
    DeviceState *dev = qdev_new(type, errp);

    if (!dev) {
        return NULL;
    }
    for (; props && props[0]; props += 2) {
        if (!qdev_prop_set(dev, props[0], props[1], errp)) {
            qdev_free_unrealized(dev);
            return NULL;
        }
    }
    if (parent) {
        qdev_set_parent(dev, parent, name);
    }
    return qdev_realize(dev, errp) ? dev : NULL;
}

/* COM1-COM4, as QEMU places them. */
static const struct {
    const char *iobase, *irq;
} pc_serial_ports[] = {
    { "0x3f8", "4" }, { "0x2f8", "3" }, { "0x3e8", "4" }, { "0x2e8", "3" },
};

/*
 * The PIT unless -machine pit=off: the accelerator's front (kvm-pit,
 * whose -global kvm-pit.lost_tick_policy QEMU users set) or isa-pit.
 * With the HPET, the PIT's output passes through it (isa-pit) and the
 * HPET's legacy replacement silences the PIT (kvm-pit), as on QEMU's pc.
 */
static bool pc_init_pit(PCMachineState *pcms, Error **errp)
{
    bool pit = true;
    DeviceState *dev;

    if (!qemu_opt_get_bool(pcms->cfg->machine.opts, "pit", &pit, errp)) {
        return false;
    }
    if (!pit) {
        return true;
    }
    dev = pc_create(accel_device_type("isa-pit"), NULL, NULL, NULL, errp);
    if (!dev) {
        return false;
    }
    if (pcms->hpet) {
        if (qdev_get_named_gpio_list(dev, NULL, false)) {
            qdev_connect_gpio_out_named(dev, NULL, 0,
                qdev_get_gpio_in_named(pcms->hpet, "legacy",
                                       HPET_LEGACY_PIT_INT));
        }
        if (qdev_get_named_gpio_list(dev, NULL, true)) {
            qdev_connect_gpio_out_named(pcms->hpet, "pit-enable", 0,
                                        qdev_get_gpio_in(dev, 0));
        }
    }
    return true;
}

/*
 * The HPET unless -machine hpet=off (-no-hpet): its outputs are the
 * GSIs, 0-15 the ISA lines (PIC and I/O APIC), 16-23 the I/O APIC's
 * other pins, as QEMU's pc wires its gsi lines.
 */
static bool pc_init_hpet(PCMachineState *pcms, Error **errp)
{
    bool hpet = true;

    if (!qemu_opt_get_bool(pcms->cfg->machine.opts, "hpet", &hpet, errp)) {
        return false;
    }
    if (!hpet) {
        return true;
    }
    pcms->hpet = pc_create("hpet", NULL, NULL, NULL, errp);
    if (!pcms->hpet) {
        return false;
    }
    for (int i = 0; i < HPET_NUM_IRQ_ROUTES; i++) {
        qdev_connect_gpio_out_named(pcms->hpet, NULL, i,
            i < ISA_NUM_IRQS ? pcms->isa_irqs[i]
                             : qdev_get_gpio_in(pcms->ioapic, i));
    }
    return true;
}

static bool pc_init_isa_devices(PCMachineState *pcms, MachineState *ms,
                                Error **errp)
{
    DeviceState *rtc, *fw, *pm;
    char *rtc_start;

    for (int i = 0; i < (int)G_N_ELEMENTS(pc_serial_ports); i++) {
        Chardev *chr = serial_hd(i);
        char index[4];

        if (!chr) {
            continue;
        }
        g_snprintf(index, sizeof(index), "%d", i);
        if (!pc_create("isa-serial", NULL, NULL, (const char *const[]){
                "index", index, "iobase", pc_serial_ports[i].iobase,
                "irq", pc_serial_ports[i].irq,
                "chardev", qemu_chr_get_id(chr), NULL }, errp)) {
            return false;
        }
    }
    if (!pc_init_hpet(pcms, errp)) {
        return false;
    }
    rtc_start = g_strdup_printf("%" PRId64, rtc_options_start(&ms->cfg->rtc,
        qemu_clock_get_ns(QEMU_CLOCK_HOST) / NANOSECONDS_PER_SECOND));
    rtc = pc_create("mc146818rtc", NULL, NULL, (const char *const[]){
        "x-start", rtc_start,
        ms->cfg->rtc.clock ? "x-clock" : NULL, ms->cfg->rtc.clock, NULL },
        errp);
    g_free(rtc_start);
    if (!rtc) {
        return false;
    }
    if (pcms->hpet) {
        qdev_connect_gpio_out_named(rtc, NULL, 0,
            qdev_get_gpio_in_named(pcms->hpet, "legacy",
                                   HPET_LEGACY_RTC_INT));
    }
    if (!pc_cmos_init(pcms, rtc, ms, errp)) {
        return false;
    }
    if (!pc_init_pit(pcms, errp)) {
        return false;
    }
    /*
     * -no-acpi: no PM device (so no power button, no 0xcf9 reset) and no
     * tables. 0xcf9 shares the host bridge's CONFADD dword: it forwards
     * it.
     */
    if (ms->cfg->machine.acpi) {
        pm = pc_create("acpi-pm", NULL, NULL, (const char *const[]){
            "reset-port", "0", NULL }, errp);
        if (!pm) {
            return false;
        }
        i440fx_host_set_cf9(pcms->pci_host, &acpi_pm_reset_ops, pm);
    }
    /*
     * The i8042 and port 0x92 both gate A20 (their "a20" outputs); the
     * CPU keeps it on, as QEMU's does under KVM, so they stay unwired.
     */
    if (!pc_create("i8042", NULL, NULL, NULL, errp) ||
        !pc_create("port92", NULL, NULL, NULL, errp)) {
        return false;
    }
    fw = pc_create("fw_cfg_io", object_get_container("/machine"), "fw_cfg",
                   NULL, errp);
    if (!fw) {
        return false;
    }
    pcms->fw_cfg = (FWCfgState *)fw;
    pc_fw_cfg_machine_items(pcms->fw_cfg, ms);
    return true;
}

/*
 * The i440FX host bridge (/machine/i440fx, bus pci.0) with its function
 * at 00.0 and the PIIX3 at 01.0, as QEMU's pc; the ISA bus behind it.
 */
static bool pc_init_pci(PCMachineState *pcms, Error **errp)
{
    char below[24], above[24];
    DeviceState *piix3;

    g_snprintf(below, sizeof(below), "%" PRIu64, pcms->layout.below_4g);
    g_snprintf(above, sizeof(above), "%" PRIu64, pcms->layout.above_4g);
    pcms->pci_host = pc_create("i440FX-pcihost",
                               object_get_container("/machine"), "i440fx",
                               (const char *const[]){
                                   "below-4g-mem-size", below,
                                   "above-4g-mem-size", above, NULL }, errp);
    if (!pcms->pci_host ||
        !i440fx_host_map_ram(pcms->pci_host, &pcms->ram_below_4g, errp) ||
        (pcms->firmware_boot &&
         !pc_firmware_map(&pcms->firmware,
                          i440fx_host_pci_memory(pcms->pci_host), errp)) ||
        !pc_create("i440FX", NULL, NULL, (const char *const[]){
            "addr", "0", NULL }, errp)) {
        return false;
    }
    piix3 = pc_create("PIIX3", NULL, NULL, (const char *const[]){
            "addr", "1", "multifunction", "on", NULL }, errp);
    if (!piix3) {
        return false;
    }
    pcms->isa_bus = qbus_new("isa.0", BUS_TYPE_ISA, &address_space_io);
    qbus_set_parent(pcms->isa_bus, piix3);
    return true;
}

/*
 * The order matters: KVM's irqchip before the vCPUs, the vCPUs before the
 * other unattached devices (QEMU's numbering), fw_cfg before the kernel
 * loader fills it (in pc_devices_done(), after the -device devices).
 */
/* A -device ide-hd or ide-cd turns QEMU's default CD-ROM off. */
static bool pc_has_ide_device(MachineState *ms)
{
    for (guint i = 0; i < ms->cfg->devices->len; i++) {
        CmdlineItem *it = g_ptr_array_index(ms->cfg->devices, i);
        const char *driver = qemu_opt_get(it->opts, "driver");

        if (driver && (!strcmp(driver, "ide-hd") ||
                       !strcmp(driver, "ide-cd"))) {
            return true;
        }
    }
    return false;
}

/*
 * The PIIX3's IDE function at 01.1 and its drives: the -drive if=ide
 * ones, and QEMU's default empty CD-ROM (ide1-cd0) unless -nodefaults
 * or a drive is in that slot.
 */
static bool pc_init_ide(PCMachineState *pcms, MachineState *ms, Error **errp)
{
    pcms->ide = pc_create("piix3-ide", NULL, NULL, (const char *const[]){
        "addr", "1.1", NULL }, errp);
    if (!pcms->ide) {
        return false;
    }
    if (!ms->cfg->nodefaults && !blk_find_ide(1, 0) &&
        !pc_has_ide_device(ms)) {
        BlockBackend *cd = blk_new_empty("ide1-cd0", errp);

        if (!cd) {
            return false;
        }
        blk_set_ide(cd, 1, 0, true);
    }
    return ide_create_drives(errp);
}

static bool pc_init(MachineState *ms, Error **errp)
{
    PCMachineState *pcms = g_new0(PCMachineState, 1);

    /* The board's state: an instance, freed by pc_cleanup(). */
    ms->board = pcms;
    pcms->cfg = ms->cfg;
    if (!pc_init_ram(pcms, ms, errp)) {
        return false;
    }
    /* The CPU model decides the e820 map (the AMD HT hole). */
    if (!pc_init_firmware(pcms, ms, errp) || !vcpus_create(ms, errp)) {
        return false;
    }
    pc_build_e820(pcms);
    if (!pc_init_pci(pcms, errp) || !pc_init_irqs(pcms, errp) ||
        !pc_init_isa_devices(pcms, ms, errp) ||
        !pc_init_ide(pcms, ms, errp)) {
        return false;
    }
    if (pcms->fw_cfg) {
        pc_publish_e820(pcms, pcms->fw_cfg);
    }
    return true;
}

static void pc_cleanup(MachineState *ms)
{
    PCMachineState *pcms = ms->board;

    vcpus_destroy();
    if (!pcms) {
        return;
    }
    isa_bus_set_irqs(NULL);
    qemu_free_irqs(pcms->isa_fanout, ISA_NUM_IRQS);
    qemu_free_irq(pcms->pic_int);
    if (pcms->apic_lint0) {
        g_ptr_array_free(pcms->apic_lint0, true);
    }
    /* The regions only: the backend owns the RAM, released after us. */
    ram_migration_unregister(&pcms->ram_below_4g);
    ram_migration_unregister(&pcms->ram_above_4g);
    memory_region_finalize(&pcms->ram_below_4g);
    memory_region_finalize(&pcms->ram_above_4g);
    if (pcms->acpi_tables) {
        g_byte_array_free(pcms->acpi_tables, TRUE);
    }
    pc_firmware_free(&pcms->firmware);
    qbus_free(pcms->isa_bus);
    g_free(pcms);
    ms->board = NULL;
}

static const char *const pc_board_props[] = {
    "pit", "acpi", "hpet", "vmport", "smm", NULL
};

static const MachineClass pc_i440fx_machine_class = {
    .name = "pc-i440fx-7.2",
    .alias = "pc",
    .desc = "Standard PC (i440FX + PIIX, 1996)",
    .is_default = true,
    .max_cpus = 255,
    .default_ram_size = 128 << 20,
    .default_ram_id = "pc.ram",
    .kernel_boot = true,
    .default_nic = "e1000",
    .board_props = pc_board_props,
    .init = pc_init,
    .devices_done = pc_devices_done,
    .cleanup = pc_cleanup,
};

MACHINE_CLASS_REGISTER(pc_i440fx_machine_class)
