/*
 * A device's migratable state, declared once as a versioned field table
 * next to the struct it describes. One interpreter (vmstate/vmstate.c)
 * walks a table to save, to load (checking every value a guest could not
 * have set) and to compare two instances field by field (tests).
 *
 * Encoding of a table's fields, in table order, little-endian:
 *   u8/u16/u32/u64   1/2/4/8 bytes; bool one byte (0 or 1)
 *   buffer           size bytes as they are
 *   array            count elements of the element type
 *   struct           the nested table's encoding, count times
 *   timer            s64: the absolute expiry on its clock, -1: not armed
 *   variable count   u32 count first (it must match this side's), then
 *                    the elements
 * then the subsections: u8 how many, each as
 *   u8 name length, name, u32 version, u32 payload length, payload.
 * A field added in version N is present only in streams of version >= N.
 */
#ifndef MIGRATION_VMSTATE_H
#define MIGRATION_VMSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"

typedef enum VMStateType {
    VMS_U8,
    VMS_U16,
    VMS_U32,
    VMS_U64,
    VMS_BOOL,
    VMS_BUFFER,                 /* size raw bytes */
    VMS_STRUCT,                 /* vmsd, count elements of size bytes */
    VMS_TIMER,                  /* a QEMUTimer * at offset */
} VMStateType;

#define VMS_F_POINTER   (1u << 0)   /* offset holds a pointer to the data */
#define VMS_F_RANGE     (1u << 1)   /* integers: min <= value <= max */
/*
 * The element count is the unsigned at vcount_offset in the same struct
 * (an array the device allocated at realize: queues, MSI-X vectors).
 */
#define VMS_F_VCOUNT    (1u << 2)

typedef struct VMStateDescription VMStateDescription;
typedef struct VMStateField VMStateField;

struct VMStateField {
    const char *name;
    size_t offset;
    VMStateType type;
    unsigned count;             /* array elements, 1 for a scalar */
    size_t vcount_offset;       /* with VMS_F_VCOUNT */
    size_t size;                /* buffer bytes; struct element bytes */
    unsigned version;           /* the version that added it (0: first) */
    unsigned flags;             /* VMS_F_* */
    uint64_t min, max;          /* with VMS_F_RANGE */
    const VMStateDescription *vmsd;  /* VMS_STRUCT */
    /*
     * After loading this field: false with errp set when its value is
     * one the device could never hold (opaque: the struct).
     */
    bool (*check)(void *opaque, const VMStateField *f, Error **errp);
};

struct VMStateDescription {
    const char *name;
    unsigned version;           /* what this release writes */
    unsigned minimum_version;   /* the oldest it reads */
    const VMStateField *fields; /* ended by VMSTATE_END */
    /* Optional parts, each saved when its needed() says so. */
    const VMStateDescription *const *subsections;   /* NULL-ended */
    bool (*needed)(void *opaque);
    /*
     * Before saving: bring the struct up to date (e.g. read it from the
     * accelerator). Negative: the state cannot be had, the save fails.
     */
    int (*pre_save)(void *opaque);
    /* After everything loaded: derived state, cross-field checks. */
    bool (*post_load)(void *opaque, unsigned version, Error **errp);
};

/* Type check: the field has exactly type t (compile error otherwise). */
#define VMS_TYPED(S, f, t) \
    (offsetof(S, f) + 0 * sizeof((t *)0 == &((S *)0)->f))
#define VMS_TYPED_ARRAY(S, f, t, n) \
    (offsetof(S, f) + 0 * sizeof((t (*)[n])0 == &((S *)0)->f))

#define VMS_SCALAR(nm, S, f, T, t, ...) \
    { .name = nm, .offset = VMS_TYPED(S, f, t), .type = T, .count = 1, \
      __VA_ARGS__ }
#define VMSTATE_U8(S, f, ...)   VMS_SCALAR(#f, S, f, VMS_U8, uint8_t, __VA_ARGS__)
#define VMSTATE_U16(S, f, ...)  VMS_SCALAR(#f, S, f, VMS_U16, uint16_t, __VA_ARGS__)
#define VMSTATE_U32(S, f, ...)  VMS_SCALAR(#f, S, f, VMS_U32, uint32_t, __VA_ARGS__)
#define VMSTATE_U64(S, f, ...)  VMS_SCALAR(#f, S, f, VMS_U64, uint64_t, __VA_ARGS__)
#define VMSTATE_I32(S, f, ...)  VMS_SCALAR(#f, S, f, VMS_U32, int32_t, __VA_ARGS__)
#define VMSTATE_I64(S, f, ...)  VMS_SCALAR(#f, S, f, VMS_U64, int64_t, __VA_ARGS__)
#define VMSTATE_INT(S, f, ...)  VMS_SCALAR(#f, S, f, VMS_U32, int, __VA_ARGS__)
#define VMSTATE_UINT(S, f, ...) VMS_SCALAR(#f, S, f, VMS_U32, unsigned, __VA_ARGS__)
#define VMSTATE_BOOL(S, f, ...) VMS_SCALAR(#f, S, f, VMS_BOOL, bool, __VA_ARGS__)
/* unsigned long long: the kernel's __u64 (KVM's structs) on x86-64. */
#define VMSTATE_ULL(S, f, ...) \
    VMS_SCALAR(#f, S, f, VMS_U64, unsigned long long, __VA_ARGS__)
#define VMSTATE_TIMER(S, f, ...) \
    VMS_SCALAR(#f, S, f, VMS_TIMER, QEMUTimer *, __VA_ARGS__)

#define VMS_ARRAY(nm, S, f, T, t, n, ...) \
    { .name = nm, .offset = VMS_TYPED_ARRAY(S, f, t, n), .type = T, \
      .count = n, __VA_ARGS__ }
#define VMSTATE_U8_ARRAY(S, f, n, ...) \
    VMS_ARRAY(#f, S, f, VMS_U8, uint8_t, n, __VA_ARGS__)
#define VMSTATE_U16_ARRAY(S, f, n, ...) \
    VMS_ARRAY(#f, S, f, VMS_U16, uint16_t, n, __VA_ARGS__)
#define VMSTATE_U32_ARRAY(S, f, n, ...) \
    VMS_ARRAY(#f, S, f, VMS_U32, uint32_t, n, __VA_ARGS__)
#define VMSTATE_U64_ARRAY(S, f, n, ...) \
    VMS_ARRAY(#f, S, f, VMS_U64, uint64_t, n, __VA_ARGS__)
#define VMSTATE_BOOL_ARRAY(S, f, n, ...) \
    VMS_ARRAY(#f, S, f, VMS_BOOL, bool, n, __VA_ARGS__)
#define VMSTATE_ULL_ARRAY(S, f, n, ...) \
    VMS_ARRAY(#f, S, f, VMS_U64, unsigned long long, n, __VA_ARGS__)
#define VMSTATE_BUFFER(S, f, ...) \
    { .name = #f, .offset = offsetof(S, f), .type = VMS_BUFFER, .count = 1, \
      .size = sizeof(((S *)0)->f), __VA_ARGS__ }
/* n elements of type t (an array, or one struct with n = 1). */
#define VMSTATE_STRUCT_ARRAY(S, f, n, t, desc, ...) \
    { .name = #f, .offset = VMS_TYPED_ARRAY(S, f, t, n), .type = VMS_STRUCT, \
      .count = n, .size = sizeof(t), .vmsd = &(desc), __VA_ARGS__ }
#define VMSTATE_STRUCT(S, f, t, desc, ...) \
    { .name = #f, .offset = VMS_TYPED(S, f, t), .type = VMS_STRUCT, \
      .count = 1, .size = sizeof(t), .vmsd = &(desc), __VA_ARGS__ }
/* A pointer to one t: the data lives elsewhere (the APIC of a device). */
#define VMSTATE_STRUCT_POINTER(S, f, t, desc, ...) \
    { .name = #f, .offset = VMS_TYPED(S, f, t *), .type = VMS_STRUCT, \
      .count = 1, .size = sizeof(t), .vmsd = &(desc), \
      .flags = VMS_F_POINTER, __VA_ARGS__ }
/*
 * A pointer to *n elements of type t (n an unsigned field of S): the
 * array was allocated for this device's configuration, which both sides
 * must share.
 */
#define VMSTATE_VARRAY_POINTER(S, f, n, T, t, desc, ...) \
    { .name = #f, .offset = VMS_TYPED(S, f, t *), .type = T, \
      .count = 1, .size = sizeof(t), .vmsd = desc, \
      .flags = VMS_F_POINTER | VMS_F_VCOUNT, \
      .vcount_offset = VMS_TYPED(S, n, unsigned), __VA_ARGS__ }
#define VMSTATE_STRUCT_VARRAY_POINTER(S, f, n, t, desc, ...) \
    VMSTATE_VARRAY_POINTER(S, f, n, VMS_STRUCT, t, &(desc), __VA_ARGS__)
#define VMSTATE_U8_VARRAY_POINTER(S, f, n, ...) \
    VMSTATE_VARRAY_POINTER(S, f, n, VMS_U8, uint8_t, NULL, __VA_ARGS__)
/* Options for the field macros. */
#define VMS_RANGE(lo, hi)   .flags = VMS_F_RANGE, .min = (lo), .max = (hi)
#define VMS_SINCE(v)        .version = (v)
#define VMSTATE_END         { .name = NULL }

/*
 * Where the bytes go and come from: a growing buffer to save into, a
 * bounded one to load from (the loader never reads past len).
 */
typedef struct VMStateReader {
    const uint8_t *data;
    size_t len, pos;
} VMStateReader;

/*
 * Append the encoding of opaque under vmsd (at vmsd->version); false
 * when a pre_save failed (out then holds a part).
 */
bool vmstate_save(const VMStateDescription *vmsd, void *opaque,
                  GByteArray *out);
/*
 * Load opaque from r, written at version. Errors name the device (ctx,
 * e.g. "i8259 instance 1") and the field: "ctx: field 'irr': ...".
 * All of r must be used.
 */
bool vmstate_load(const VMStateDescription *vmsd, void *opaque,
                  unsigned version, const uint8_t *data, size_t len,
                  const char *ctx, Error **errp);
/*
 * Compare a and b field by field; on the first difference false and
 * *field gets its path ("segs[1].base"; g_free it).
 */
bool vmstate_equal(const VMStateDescription *vmsd, void *a, void *b,
                   char **field);
/* Fields' layout sanity: offsets inside size, sizes of each type. */
bool vmstate_check_table(const VMStateDescription *vmsd, size_t size,
                         char **why);

/* Little-endian primitives the stream code shares. */
void vmstate_put_le(GByteArray *out, uint64_t v, unsigned size);
bool vmstate_get_le(VMStateReader *r, unsigned size, uint64_t *v);

#endif
