/*
 * The i440FX PC: guest RAM split around the PCI hole, the I/O APIC's
 * input lines as the ISA interrupt lines, the ISA devices, the e820 map
 * and direct kernel boot (-kernel; there is no firmware yet), and under
 * KVM the in-kernel irqchip, PIT and the vCPUs. Without KVM the i8259
 * pair and the PIT are userspace devices and each ISA line fans out to
 * the i8259 and the I/O APIC.
 */
#include <string.h>

#include "chardev/char.h"
#include "hw/boards.h"
#include "hw/i386/pc.h"
#include "hw/i386/x86-boot.h"
#include "hw/intc/apic.h"
#include "hw/intc/ioapic.h"
#include "hw/nvram/fw_cfg.h"
#include "hw/rtc/mc146818rtc.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qom/object.h"
#include "system/cpus.h"
#include "system/memory.h"
#include "system/hostmem.h"
#include "hw/acpi/pm.h"
#include "hw/i386/acpi-build.h"
#include "system/kvm.h"
#include "system/tcg.h"
#include "system/qtest.h"
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
/* KVM's identity map and TSS pages (accel/kvm/kvm-all.c). */
#define PC_KVM_PAGES_BASE   0xfeffc000ULL
#define PC_KVM_PAGES_SIZE   0x4000ULL
#define PC_BIOS_ROM_BASE    0xfffc0000ULL
/* AMD's HyperTransport range below 1 TiB (QEMU reserves it for AMD CPUs). */
#define PC_AMD_HT_START     0xfd00000000ULL
#define PC_AMD_HT_SIZE      0x0300000000ULL
#define PC_E820_MAX         8
/* The RSDP's copy where legacy guests scan for it (0xE0000-0xFFFFF). */
#define PC_RSDP_LEGACY      0xf0000ULL

typedef struct PCMachineState {
    RAMBlock *ram;
    MemoryRegion ram_below_4g;
    MemoryRegion ram_above_4g;
    PCRamLayout layout;
    qemu_irq isa_irqs[ISA_NUM_IRQS];
    /* Without KVM: ISA line n -> i8259 input n and I/O APIC input n. */
    qemu_irq *isa_fanout;
    qemu_irq pic_in[ISA_NUM_IRQS];
    qemu_irq ioapic_in[ISA_NUM_IRQS];
    X86BootE820Entry e820[PC_E820_MAX];
    unsigned e820_entries;
    const VmConfig *cfg;
    GByteArray *acpi_tables;        /* placed at acpi_base */
    uint64_t acpi_base;
    uint64_t acpi_rsdp;             /* guest address of the RSDP */
} PCMachineState;

static PCMachineState pcms;

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
static bool pc_init_ram(MachineState *ms, Error **errp)
{
    pcms.layout = pc_ram_layout(ms->ram_size);
    pcms.ram = host_memory_backend_machine_ram();
    if (!pcms.ram) {
        error_setg(errp, "machine type '%s' needs guest RAM", ms->mc->name);
        return false;
    }
    memory_region_init_ram_ptr(&pcms.ram_below_4g, "ram-below-4g",
                               pcms.layout.below_4g, pcms.ram->host);
    if (!address_space_map_region(&address_space_memory, &pcms.ram_below_4g,
                                  0, errp)) {
        return false;
    }
    if (pcms.layout.above_4g) {
        memory_region_init_ram_ptr(&pcms.ram_above_4g, "ram-above-4g",
                                   pcms.layout.above_4g,
                                   pcms.ram->host + pcms.layout.below_4g);
        if (!address_space_map_region(&address_space_memory,
                                      &pcms.ram_above_4g, PC_4GIB, errp)) {
            return false;
        }
    }
    return true;
}

static void e820_add(uint64_t addr, uint64_t len, uint32_t type)
{
    g_assert(pcms.e820_entries < PC_E820_MAX);
    pcms.e820[pcms.e820_entries++] = (X86BootE820Entry) {
        .addr = addr, .len = len, .type = type,
    };
}

/* QEMU's map for the same RAM; the KVM pages only under KVM. */
static void pc_build_e820(bool kvm)
{
    uint64_t below = pcms.layout.below_4g;
    uint64_t ram_end = below;

    pcms.e820_entries = 0;
    e820_add(0, MIN(below, PC_LOW_RAM_END), E820_RAM);
    e820_add(PC_LOW_RAM_END, PC_VGA_BASE - PC_LOW_RAM_END, E820_RESERVED);
    e820_add(PC_BIOS_AREA, PC_ONE_MIB - PC_BIOS_AREA, E820_RESERVED);
    if (below > PC_ONE_MIB + 2 * PC_HIGH_TABLES_SIZE) {
        ram_end = below - PC_HIGH_TABLES_SIZE;
        e820_add(PC_ONE_MIB, ram_end - PC_ONE_MIB, E820_RAM);
        e820_add(ram_end, PC_HIGH_TABLES_SIZE, E820_RESERVED);
    } else if (below > PC_ONE_MIB) {
        e820_add(PC_ONE_MIB, below - PC_ONE_MIB, E820_RAM);
    }
    if (kvm) {
        e820_add(PC_KVM_PAGES_BASE, PC_KVM_PAGES_SIZE, E820_RESERVED);
    }
    e820_add(PC_BIOS_ROM_BASE, PC_4GIB - PC_BIOS_ROM_BASE, E820_RESERVED);
    if (pcms.layout.above_4g) {
        e820_add(PC_4GIB, pcms.layout.above_4g, E820_RAM);
    }
    if (tcg_enabled() && tcg_cpus_amd_ht_hole()) {
        e820_add(PC_AMD_HT_START, PC_AMD_HT_SIZE, E820_RESERVED);
    }
}

/* The "etc/e820" fw_cfg file: packed little-endian {addr, len, type}. */
static void pc_publish_e820(FWCfgState *fw)
{
    uint8_t *buf = g_malloc(pcms.e820_entries * 20);

    for (unsigned i = 0; i < pcms.e820_entries; i++) {
        x86_boot_stq(buf + i * 20, pcms.e820[i].addr);
        x86_boot_stq(buf + i * 20 + 8, pcms.e820[i].len);
        x86_boot_stl(buf + i * 20 + 16, pcms.e820[i].type);
    }
    fw_cfg_add_file(fw, "etc/e820", buf, pcms.e820_entries * 20);
}

static bool pc_guest_write(void *opaque, uint64_t addr, const void *buf,
                           uint64_t len)
{
    void *p = address_space_ram_ptr(&address_space_memory, addr, len);

    if (!p) {
        return false;
    }
    if (buf) {
        memcpy(p, buf, len);
    } else {
        memset(p, 0, len);
    }
    return true;
}

/*
 * ACPI tables for the vCPUs and the PM device, in the reserved area at
 * the top of low RAM, and the RSDP also where legacy guests scan.
 */
static bool pc_build_acpi(MachineState *ms, Error **errp)
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
    };
    uint64_t rsdp_offset;

    if (pcms.layout.below_4g <= PC_ONE_MIB + 2 * PC_HIGH_TABLES_SIZE) {
        /* Too little RAM for the reserved area: no ACPI, as on a tiny PC. */
        g_free(apic_ids);
        return true;
    }
    for (unsigned i = 0; i < ncpus; i++) {
        apic_ids[i] = x86_cpu_apic_id(&topo, i);
    }
    pcms.acpi_base = pcms.layout.below_4g - PC_HIGH_TABLES_SIZE;
    pcms.acpi_tables = acpi_build_tables(&ac, pcms.acpi_base, &rsdp_offset);
    g_free(apic_ids);
    if (pcms.acpi_tables->len > PC_HIGH_TABLES_SIZE) {
        error_setg(errp, "ACPI tables of %u bytes do not fit the reserved "
                   "area", pcms.acpi_tables->len);
        return false;
    }
    pcms.acpi_rsdp = pcms.acpi_base + rsdp_offset;
    return true;
}

/* (Re)write the tables into guest RAM: a guest may have overwritten them. */
static void pc_place_acpi(void)
{
    uint64_t rsdp_offset = pcms.acpi_rsdp - pcms.acpi_base;

    if (!pcms.acpi_tables) {
        return;
    }
    address_space_rw(&address_space_memory, pcms.acpi_base,
                     pcms.acpi_tables->data, pcms.acpi_tables->len, true);
    address_space_rw(&address_space_memory, PC_RSDP_LEGACY,
                     pcms.acpi_tables->data + rsdp_offset, 36, true);
}

/* Load -kernel into RAM; with fw, also publish QEMU's fw_cfg items. */
static bool pc_load_kernel(X86BootState *st, FWCfgState *fw, Error **errp)
{
    const GuestMemory mem = { .write = pc_guest_write };
    const X86BootConfig bc = {
        .kernel_filename = pcms.cfg->kernel,
        .initrd_filename = pcms.cfg->initrd,
        .kernel_cmdline = pcms.cfg->append,
        .e820 = pcms.e820,
        .e820_entries = pcms.e820_entries,
        .acpi_rsdp_addr = pcms.acpi_rsdp,
    };
    X86BootFwCfg items = { .count = 0 };

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
 * system_reset: RAM keeps what the guest wrote, so the kernel is loaded
 * again, and the vCPUs start over from the loader's state.
 */
static void pc_reset(void *opaque)
{
    X86BootState st;
    Error *err = NULL;
    bool loaded = false;

    x86_boot_state_init(&st);
    pc_place_acpi();
    if (pcms.cfg->kernel) {
        loaded = pc_load_kernel(&st, NULL, &err);
        if (!loaded) {
            error_report_err(err);
            qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR, 1);
        }
    }
    vcpus_reset(loaded ? &st : NULL);
    x86_boot_state_free(&st);
}

/* -machine pit=on|off and -global kvm-pit.lost_tick_policy=delay|discard */
static bool pc_pit_options(const VmConfig *cfg, bool *pit, bool *discard,
                           Error **errp)
{
    *pit = true;
    *discard = false;
    if (!qemu_opt_get_bool(cfg->machine.opts, "pit", pit, errp)) {
        return false;
    }
    for (guint i = 0; i < cfg->globals->len; i++) {
        CmdlineItem *it = g_ptr_array_index(cfg->globals, i);
        const char *v = qemu_opt_get(it->opts, "value");

        if (strcmp(qemu_opt_get(it->opts, "driver"), "kvm-pit") ||
            strcmp(qemu_opt_get(it->opts, "property"), "lost_tick_policy")) {
            continue;
        }
        if (!strcmp(v, "discard") || !strcmp(v, "delay")) {
            *discard = !strcmp(v, "discard");
        } else {
            loc_restore(&it->loc);
            error_setg(errp, "kvm-pit: lost_tick_policy '%s' is not "
                       "supported (use delay or discard)", v);
            return false;
        }
    }
    return true;
}

static bool pc_need_kernel(MachineState *ms, Error **errp)
{
    if (!ms->cfg->kernel) {
        error_setg(errp, "no firmware yet: use -kernel to boot a multiboot "
                   "or Linux kernel");
        return false;
    }
    return true;
}

static bool pc_init_kvm(MachineState *ms, Error **errp)
{
    bool pit, discard;

    return pc_pit_options(ms->cfg, &pit, &discard, errp) &&
           kvm_pc_init(pit, discard, errp);
}

static void pc_isa_irq_fanout(void *opaque, int n, int level)
{
    qemu_set_irq(pcms.pic_in[n], level);
    qemu_set_irq(pcms.ioapic_in[n], level);
}

static DeviceState *pc_create(const char *type, Object *parent,
                              const char *name, const char *const *props,
                              Error **errp);

/* The i8259 pair, the slave's INT on the master's input 2, as QEMU's. */
static bool pc_init_pic(Error **errp)
{
    DeviceState *master, *slave;

    master = pc_create("isa-i8259", NULL, NULL, (const char *const[]){
        "iobase", "0x20", "elcr_addr", "0x4d0", "elcr_mask", "0xf8",
        "master", "true", NULL }, errp);
    slave = master ? pc_create("isa-i8259", NULL, NULL, (const char *const[]){
        "iobase", "0xa0", "elcr_addr", "0x4d1", "elcr_mask", "0xde",
        "master", "false", NULL }, errp) : NULL;
    if (!slave) {
        return false;
    }
    qdev_connect_gpio_out_named(slave, NULL, 0, qdev_get_gpio_in(master, 2));
    for (int i = 0; i < ISA_NUM_IRQS; i++) {
        pcms.pic_in[i] = qdev_get_gpio_in(i < 8 ? master : slave, i % 8);
    }
    return true;
}

static bool pc_init_irqs(Error **errp)
{
    Object *host = object_get_container("/machine/i440fx");
    DeviceState *ioapic = qdev_new("ioapic", errp);

    if (!ioapic) {
        return false;
    }
    g_free(host->type);
    host->type = g_strdup("i440FX-pcihost");
    qdev_set_parent(ioapic, host, "ioapic");
    if (!qdev_realize(ioapic, errp)) {
        return false;
    }
    /* ISA IRQ n is GSI n; the IOAPIC maps ISA IRQ 0 to pin 2 itself. */
    for (int i = 0; i < ISA_NUM_IRQS; i++) {
        pcms.isa_irqs[i] = qdev_get_gpio_in(ioapic, i);
    }
    if (!kvm_enabled()) {
        /*
         * The I/O APIC's lines stay what it receives (qtest's
         * irq_intercept_in ioapic replaces their handlers in place).
         */
        if (!pc_init_pic(errp)) {
            return false;
        }
        memcpy(pcms.ioapic_in, pcms.isa_irqs, sizeof(pcms.ioapic_in));
        pcms.isa_fanout = qemu_allocate_irqs(pc_isa_irq_fanout, NULL,
                                             ISA_NUM_IRQS);
        memcpy(pcms.isa_irqs, pcms.isa_fanout, sizeof(pcms.isa_irqs));
    }
    isa_bus_set_irqs(pcms.isa_irqs);
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

/* Without KVM, the userspace PIT unless -machine pit=off. */
static bool pc_init_pit(Error **errp)
{
    bool pit = true;

    if (kvm_enabled()) {
        return true;    /* the in-kernel PIT, made by pc_init_kvm() */
    }
    if (!qemu_opt_get_bool(pcms.cfg->machine.opts, "pit", &pit, errp)) {
        return false;
    }
    return !pit || pc_create("isa-pit", NULL, NULL, NULL, errp);
}

/*
 * The PC BIOS's memory size bytes in the RTC's CMOS, as QEMU's pc board
 * writes them (pc_cmos_init): base, extended and high memory in KiB or
 * 64 KiB units, the RAM above 4 GiB, the CPU count.
 */
static void pc_cmos_init_memory(DeviceState *rtc, const MachineState *ms)
{
    const PCRamLayout *l = &pcms.layout;
    uint64_t val;

    val = MIN(l->below_4g / 1024, 640);
    rtc_set_memory(rtc, 0x15, val);
    rtc_set_memory(rtc, 0x16, val >> 8);
    val = l->below_4g > (1 << 20) ? (l->below_4g - (1 << 20)) / 1024 : 0;
    val = MIN(val, 0xffff);
    rtc_set_memory(rtc, 0x17, val);
    rtc_set_memory(rtc, 0x30, val);
    rtc_set_memory(rtc, 0x18, val >> 8);
    rtc_set_memory(rtc, 0x31, val >> 8);
    val = l->below_4g > (16 << 20) ? (l->below_4g - (16 << 20)) / 65536 : 0;
    val = MIN(val, 0xffff);
    rtc_set_memory(rtc, 0x34, val);
    rtc_set_memory(rtc, 0x35, val >> 8);
    val = l->above_4g / 65536;
    rtc_set_memory(rtc, 0x5b, val);
    rtc_set_memory(rtc, 0x5c, val >> 8);
    rtc_set_memory(rtc, 0x5d, val >> 16);
    rtc_set_memory(rtc, 0x5f, ms->smp_cpus ? ms->smp_cpus - 1 : 0);
}

static bool pc_init_isa_devices(const MachineState *ms, Error **errp)
{
    DeviceState *rtc;

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
    rtc = pc_create("mc146818rtc", NULL, NULL, NULL, errp);
    if (!rtc) {
        return false;
    }
    pc_cmos_init_memory(rtc, ms);
    return pc_init_pit(errp) &&
           pc_create("acpi-pm", NULL, NULL, NULL, errp) &&
           pc_create("i8042", NULL, NULL, NULL, errp) &&
           pc_create("fw_cfg_io", object_get_container("/machine"), "fw_cfg",
                     NULL, errp);
}

/*
 * The order matters: KVM's irqchip before the vCPUs, the vCPUs before the
 * other unattached devices (QEMU's numbering), fw_cfg before the kernel
 * loader fills it, and the memory slots once RAM holds the kernel.
 */
static bool pc_init(MachineState *ms, Error **errp)
{
    X86BootState st;
    FWCfgState *fw;
    bool ok;

    pcms.cfg = ms->cfg;
    /* The in-kernel PIT's globals are read by pc_pit_options(). */
    qdev_global_claim("kvm-pit");
    if (!pc_init_ram(ms, errp)) {
        return false;
    }
    if (!qtest_enabled() && !pc_need_kernel(ms, errp)) {
        return false;
    }
    /* KVM's irqchip exists before its vCPUs. */
    if (kvm_enabled() && !pc_init_kvm(ms, errp)) {
        return false;
    }
    /* The CPU model decides the e820 map (the AMD HT hole). */
    if (!vcpus_create(ms, errp)) {
        return false;
    }
    pc_build_e820(kvm_enabled());
    if (!pc_init_irqs(errp) || !pc_init_isa_devices(ms, errp)) {
        return false;
    }
    fw = fw_cfg_find();
    if (fw) {
        pc_publish_e820(fw);
    }
    if (!pc_build_acpi(ms, errp)) {
        return false;
    }
    pc_place_acpi();
    x86_boot_state_init(&st);
    ok = !ms->cfg->kernel || pc_load_kernel(&st, fw, errp);
    if (ok && kvm_enabled()) {
        ok = kvm_memory_init(errp);
    }
    if (ok) {
        vcpus_reset(ms->cfg->kernel ? &st : NULL);
    }
    x86_boot_state_free(&st);
    if (ok) {
        qemu_register_reset(pc_reset, NULL);
    }
    return ok;
}

static void pc_cleanup(MachineState *ms)
{
    vcpus_destroy();
    isa_bus_set_irqs(NULL);
    qemu_free_irqs(pcms.isa_fanout, ISA_NUM_IRQS);
    pcms.isa_fanout = NULL;
    memory_region_finalize(&pcms.ram_below_4g);
    memory_region_finalize(&pcms.ram_above_4g);
    /* The backend owns the RAM and releases it after the machine. */
    pcms.ram = NULL;
    pcms.e820_entries = 0;
    pcms.cfg = NULL;
    if (pcms.acpi_tables) {
        g_byte_array_free(pcms.acpi_tables, TRUE);
        pcms.acpi_tables = NULL;
    }
    pcms.acpi_rsdp = 0;
}

const MachineClass pc_i440fx_machine_class = {
    .name = "pc-i440fx-7.2",
    .alias = "pc",
    .desc = "Standard PC (i440FX + PIIX, 1996)",
    .is_default = true,
    .max_cpus = 255,
    .default_ram_size = 128 << 20,
    .init = pc_init,
    .cleanup = pc_cleanup,
};
