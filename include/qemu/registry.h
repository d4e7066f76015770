/*
 * Registries of classes that register themselves: devices, machines,
 * accelerators, chardev and netdev backends, memory backends. Each class
 * file adds its class from a constructor (the *_REGISTER() macros of the
 * registries' headers); the registry keeps them in the order its lists
 * print: by order number, then by name.
 */
#ifndef QEMU_REGISTRY_H
#define QEMU_REGISTRY_H

#include <stdbool.h>

#include <glib.h>

typedef struct Registry {
    GArray *entries;            /* of RegistryEntry, sorted */
    bool names_descending;      /* newest versions first (machines) */
} Registry;

/* Add item under name, after the entries that sort before or equal it. */
void registry_add(Registry *r, const void *item, const char *name,
                  int order);
/* Entry i in order, NULL past the last. */
const void *registry_at(const Registry *r, unsigned i);
/* The item registered under name, or NULL. */
const void *registry_find(const Registry *r, const char *name);

#endif
