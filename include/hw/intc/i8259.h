/*
 * The i8259 pair ("isa-i8259", hw/intc/i8259.c), used under tcg and
 * qtest. The board wires it: i8259_cascade() puts the slave's INT on
 * the master's input 2 and tells the master where the slave is; the
 * master's INT (its unnamed GPIO out) goes to the local APICs' LINT0,
 * and i8259_inta() is the INTA cycle they call for ExtINT.
 */
#ifndef HW_INTC_I8259_H
#define HW_INTC_I8259_H

#include "hw/qdev.h"

void i8259_cascade(DeviceState *master, DeviceState *slave);
/*
 * The INTA cycle on a master (a DeviceState * as opaque): the vector of
 * the highest pending request, through the slave if it cascades
 * (spurious 7 or 15 if the request went away).
 */
int i8259_inta(void *master);

#endif
