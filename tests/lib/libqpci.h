/*
 * libqpci: a PCI driver for qtests (QEMU's libqos in spirit): config
 * space through mechanism #1 (0xcf8/0xcfc), finding functions, sizing
 * and placing BARs, and accessing them. Bus 0 only, as the pc has.
 */
#ifndef TESTS_LIBQPCI_H
#define TESTS_LIBQPCI_H

#include <stdbool.h>
#include <stdint.h>

#include "libqtest.h"

#define QPCI_DEVFN(slot, fn)    (((slot) << 3) | (fn))

#define QPCI_VENDOR_ID          0x00
#define QPCI_DEVICE_ID          0x02
#define QPCI_COMMAND            0x04
#define QPCI_STATUS             0x06
#define QPCI_CLASS_DEVICE       0x0a
#define QPCI_HEADER_TYPE        0x0e
#define QPCI_BASE_ADDRESS_0     0x10
#define QPCI_INTERRUPT_LINE     0x3c
#define QPCI_INTERRUPT_PIN      0x3d
#define QPCI_COMMAND_IO         0x1
#define QPCI_COMMAND_MEMORY     0x2
#define QPCI_COMMAND_MASTER     0x4

uint8_t qpci_config_readb(QTestState *s, int devfn, uint8_t off);
uint16_t qpci_config_readw(QTestState *s, int devfn, uint8_t off);
uint32_t qpci_config_readl(QTestState *s, int devfn, uint8_t off);
void qpci_config_writeb(QTestState *s, int devfn, uint8_t off, uint8_t v);
void qpci_config_writew(QTestState *s, int devfn, uint8_t off, uint16_t v);
void qpci_config_writel(QTestState *s, int devfn, uint8_t off, uint32_t v);

/* The first function with vendor:device on bus 0, or -1. */
int qpci_find_device(QTestState *s, uint16_t vendor, uint16_t device);

typedef struct QPCIBar {
    bool io;
    bool is64;
    uint64_t size;              /* 0: not implemented */
    uint64_t addr;              /* where qpci_map_bar put it */
} QPCIBar;

/* Size BAR n by writing all ones (the BAR is restored afterwards). */
QPCIBar qpci_bar_probe(QTestState *s, int devfn, int n);
/* Program BAR n to addr (both halves of a 64-bit BAR); no enable. */
void qpci_bar_set(QTestState *s, int devfn, int n, const QPCIBar *bar,
                  uint64_t addr);
/*
 * Place BAR n at the next free address of a simple allocator (memory
 * from 0xe0000000, ports from 0xc000), enable the command register's
 * space bits and bus mastering.
 */
QPCIBar qpci_map_bar(QTestState *s, int devfn, int n);
/* Start the allocator over (for a freshly started machine). */
void qpci_alloc_reset(void);

/* Access a mapped BAR at offset, size 1, 2, 4 (or 8 for memory). */
uint64_t qpci_bar_read(QTestState *s, const QPCIBar *b, uint64_t off,
                       unsigned size);
void qpci_bar_write(QTestState *s, const QPCIBar *b, uint64_t off,
                    uint64_t v, unsigned size);

#endif
