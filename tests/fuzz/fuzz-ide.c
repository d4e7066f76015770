/*
 * libFuzzer target: the IDE controller (hw/ide/) as a guest drives it,
 * a piix3-ide with a disk (primary master) and a CD-ROM (secondary
 * master) on real raw images (memfds). The input is a list of
 * operations: writes and reads of the task file registers, the data
 * port (16 and 32 bits), the device control register and the bus
 * masters' registers, writes of guest RAM (PRD tables and data), and
 * waits for the requests in flight. So ATA commands with any address
 * and count, packets with any bytes, and DMA through PRD tables that
 * point anywhere all reach the device. A crash, leak, UB or hang is a
 * bug; ABRT, IDNF, CHECK CONDITION or the bus master's error bit is the
 * expected answer.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "block/block.h"
#include "block/blockdev.h"
#include "hw/ide/ide.h"
#include "hw/pci/pci.h"
#include "hw/qdev.h"
#include "qemu/option.h"
#include "system/memory.h"

#define RAM_BASE        0x10000u
#define RAM_SIZE        0x10000u
#define HD_SIZE         (256 * 1024)
#define CD_SIZE         (128 * 1024)

static uint8_t *ram;
static MemoryRegion ram_mr, pci_mem, pci_io;
static PCIBus bus;
static PCIDevice *ide;

static void add_drive(const char *opts_fmt, size_t size)
{
    g_autofree char *args = NULL;
    g_autofree char *virtio_id = NULL;
    Error *err = NULL;
    unsigned index = 0;
    QemuOpts *opts;
    int fd = memfd_create("fuzz-ide", MFD_CLOEXEC);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, size), ==, 0);
    /* The drive opens its own descriptor of the memfd. */
    args = g_strdup_printf(opts_fmt, fd);
    opts = qemu_opts_parse(args, NULL, &err);
    g_assert_nonnull(opts);
    g_assert_true(drive_new(opts, &index, &virtio_id, &err));
    qemu_opts_free(opts);
    close(fd);
}

static void setup(void)
{
    Error *err = NULL;
    DeviceState *dev;

    ram = g_malloc0(RAM_SIZE);
    memory_region_init_ram_ptr(&ram_mr, "ram", RAM_SIZE, ram);
    g_assert_true(address_space_map_region(&address_space_memory, &ram_mr,
                                           RAM_BASE, NULL));
    memory_region_init_container(&pci_mem, "pci", UINT64_MAX);
    memory_region_init_container(&pci_io, "pci-io", 0x10000);
    pci_bus_init(&bus, "pci.0", &pci_mem, &pci_io);

    add_drive("file=/proc/self/fd/%d,format=raw,index=0", HD_SIZE);
    add_drive("file=/proc/self/fd/%d,format=raw,index=2,media=cdrom",
              CD_SIZE);
    dev = qdev_new("piix3-ide", &err);
    g_assert_nonnull(dev);
    g_assert_true(qdev_realize(dev, &err));
    g_assert_true(ide_create_drives(&err));
    ide = (PCIDevice *)dev;
}

static void reset(void)
{
    BlockBackend *cd = blk_find("ide1-cd0");

    blk_drain_all();
    ide->qdev.dc->reset(&ide->qdev);
    /* Bus mastering on: DMA reaches RAM (or not, where there is none). */
    pci_bus_config_write(&bus, ide->devfn, PCI_COMMAND, PCI_COMMAND_MASTER,
                         2);
    /* A tray the last input opened closes again. */
    if (blk_dev_is_tray_open(cd)) {
        blk_dev_change_media(cd, true);
    }
}

static void bmdma_access(uint64_t off, uint64_t val, unsigned size,
                         bool write)
{
    MemoryRegion *mr = ide->io_regions[4].mr;

    off &= 15;
    size = off + size > 16 ? 1 : size;
    if (write) {
        mr->ops->write(mr->opaque, off, val, size);
    } else {
        mr->ops->read(mr->opaque, off, size);
    }
}

static uint32_t get32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint16_t cmd_base[2] = { 0x1f0, 0x170 };
    static const uint16_t ctl_port[2] = { 0x3f6, 0x376 };
    size_t i = 0;

    if (!ide) {
        setup();
    }
    reset();
    memset(ram, 0, RAM_SIZE);
    /* Each operation: a byte saying what, then up to 6 bytes of it. */
    while (i + 7 <= size) {
        const uint8_t *a = data + i + 1;
        uint8_t op = data[i];
        int b = op >> 7;
        unsigned reg = a[0] & 7;

        i += 7;
        switch (op & 0x0f) {
        case 0: case 1: case 2:             /* task file writes: most */
            address_space_write_sized(&address_space_io,
                                      cmd_base[b] + reg, a[1],
                                      1);
            break;
        case 3:                             /* data port, 16 and 32 bits */
            address_space_write_sized(&address_space_io, cmd_base[b],
                                      get32(a + 1), op & 0x10 ? 4 : 2);
            break;
        case 4:
            address_space_read_sized(&address_space_io, cmd_base[b],
                                     op & 0x10 ? 4 : 2);
            break;
        case 5:
            address_space_read_sized(&address_space_io, cmd_base[b] + reg,
                                     1);
            break;
        case 6:
            address_space_write_sized(&address_space_io, ctl_port[b], a[1],
                                      1);
            break;
        case 7:
            address_space_read_sized(&address_space_io, ctl_port[b], 1);
            break;
        case 8:                             /* bus master command, status */
            bmdma_access(a[0], a[1], 1, true);
            break;
        case 9:                             /* a PRD table address */
            bmdma_access(b * 8 + 4, a[0] & 1 ? get32(a + 1)
                         : RAM_BASE + (get32(a + 1) & (RAM_SIZE - 1)), 4,
                         true);
            break;
        case 10:
            bmdma_access(a[0], 0, 1 << (a[1] & 2), false);
            break;
        case 11: case 12:                   /* RAM: PRDs, packets, data */
            memcpy(ram + ((a[0] | a[1] << 8) & (RAM_SIZE - 4)), a + 2, 4);
            break;
        case 13: {                          /* a PRD entry into RAM */
            uint32_t addr = RAM_BASE + ((a[0] << 8) & (RAM_SIZE - 1));
            uint32_t e[2] = { addr, (a[1] | a[2] << 8) |
                                    (uint32_t)(a[3] & 1) << 31 };

            memcpy(ram + ((a[4] << 3) & (RAM_SIZE - 8)), e, sizeof(e));
            break;
        }
        default:                            /* let requests complete */
            blk_drain_all();
            break;
        }
    }
    blk_drain_all();
    return 0;
}
