/*
 * The i440FX PC: guest RAM split around the PCI hole, the I/O APIC's
 * input lines as the ISA interrupt lines, and the ISA devices.
 */
#include "chardev/char.h"
#include "hw/boards.h"
#include "hw/i386/pc.h"
#include "hw/intc/ioapic.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qom/object.h"
#include "system/memory.h"
#include "system/qtest.h"
#include "system/hostmem.h"
#include "system/system.h"

typedef struct PCMachineState {
    RAMBlock *ram;
    MemoryRegion ram_below_4g;
    MemoryRegion ram_above_4g;
    PCRamLayout layout;
    qemu_irq isa_irqs[ISA_NUM_IRQS];
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

static bool pc_init_isa_devices(Error **errp)
{
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
    return pc_create("mc146818rtc", NULL, NULL, NULL, errp) &&
           pc_create("i8042", NULL, NULL, NULL, errp) &&
           pc_create("fw_cfg_io", object_get_container("/machine"), "fw_cfg",
                     NULL, errp);
}

static bool pc_init(MachineState *ms, Error **errp)
{
    if (!qtest_enabled()) {
        error_setg(errp, "machine type '%s': vCPUs are not implemented in "
                   "this release yet; only -accel qtest runs it",
                   ms->mc->name);
        return false;
    }
    return pc_init_ram(ms, errp) && pc_init_irqs(errp) &&
           pc_init_isa_devices(errp);
}

static void pc_cleanup(MachineState *ms)
{
    isa_bus_set_irqs(NULL);
    memory_region_finalize(&pcms.ram_below_4g);
    memory_region_finalize(&pcms.ram_above_4g);
    /* The backend owns the RAM and releases it after the machine. */
    pcms.ram = NULL;
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
