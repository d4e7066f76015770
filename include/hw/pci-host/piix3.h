/*
 * PIIX3, the pc's PCI-to-ISA bridge: PIRQ routing of PCI INTx to ISA
 * IRQs (hw/pci-host/piix3.c).
 */
#ifndef HW_PCI_HOST_PIIX3_H
#define HW_PCI_HOST_PIIX3_H

#include <stdint.h>

/* The pc's swizzle: which PIRQ (0 = A) pin (0 = INTA#) of devfn drives. */
int piix3_pirq_of(int devfn, int pin);
/*
 * The ISA IRQs (bit n = IRQ n) asserted for PIRQ levels pirq_level[4]
 * under the routing registers pirqrc[4] (PIRQRC A-D).
 */
uint16_t piix3_route_pirqs(const uint8_t *pirqrc, const int *pirq_level);

#endif
