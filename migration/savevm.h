/*
 * The machine's state sections: the guest clock, each vCPU, each device
 * that declares a field table (by type name and instance).
 */
#ifndef MIGRATION_SAVEVM_H
#define MIGRATION_SAVEVM_H

#include <stdbool.h>

#include "migration/stream.h"
#include "qemu/error.h"

/* Why this machine cannot migrate (a device without a table), or true. */
bool savevm_check_migratable(Error **errp);
/* With the vCPUs stopped and the big lock: the clock, vCPUs, devices. */
bool savevm_save_state(MigStream *s, Error **errp);

/* Destination, with the big lock. */
void savevm_load_begin(void);
bool savevm_load_section(const MigSection *sec, Error **errp);
/* Every vCPU and device got its section. */
bool savevm_load_end(Error **errp);
/*
 * Read and load a whole stream, header to end marker (RAM without the big
 * lock, the vCPUs being stopped; state sections with it). The error says
 * what is wrong in one line, naming the section, device and field.
 */
bool savevm_load_stream(MigStream *s, Error **errp);

#endif
