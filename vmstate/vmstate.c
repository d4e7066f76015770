/*
 * The field-table interpreter: save, load (with the checks) and compare.
 * The encoding is described in include/vmstate/vmstate.h.
 */
#include <inttypes.h>
#include <string.h>

#include "vmstate/vmstate.h"
#include "qemu/timer.h"

/* Bytes of one element of an integer type (0 for the others). */
static unsigned type_size(VMStateType t)
{
    static const unsigned sizes[] = {
        [VMS_U8] = 1, [VMS_U16] = 2, [VMS_U32] = 4, [VMS_U64] = 8,
        [VMS_BOOL] = 1, [VMS_TIMER] = 8,
    };

    return t < G_N_ELEMENTS(sizes) ? sizes[t] : 0;
}

void vmstate_put_le(GByteArray *out, uint64_t v, unsigned size)
{
    uint8_t b[8];

    for (unsigned i = 0; i < size; i++) {
        b[i] = v >> (8 * i);
    }
    g_byte_array_append(out, b, size);
}

bool vmstate_get_le(VMStateReader *r, unsigned size, uint64_t *v)
{
    if (r->len - r->pos < size) {
        return false;
    }
    *v = 0;
    for (unsigned i = 0; i < size; i++) {
        *v |= (uint64_t)r->data[r->pos + i] << (8 * i);
    }
    r->pos += size;
    return true;
}

static uint64_t load_host(const void *p, unsigned size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;

    switch (size) {
    case 1:
        memcpy(&u8, p, 1);
        return u8;
    case 2:
        memcpy(&u16, p, 2);
        return u16;
    case 4:
        memcpy(&u32, p, 4);
        return u32;
    default:
        memcpy(&u64, p, 8);
        return u64;
    }
}

static void store_host(void *p, uint64_t v, unsigned size)
{
    uint8_t u8 = v;
    uint16_t u16 = v;
    uint32_t u32 = v;

    switch (size) {
    case 1:
        memcpy(p, &u8, 1);
        break;
    case 2:
        memcpy(p, &u16, 2);
        break;
    case 4:
        memcpy(p, &u32, 4);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

/* Where field f's data starts in opaque (through the pointer if any). */
static uint8_t *field_base(const VMStateField *f, void *opaque)
{
    uint8_t *p = (uint8_t *)opaque + f->offset;

    if (f->flags & VMS_F_POINTER) {
        void *target;

        memcpy(&target, p, sizeof(target));     /* the field holds a pointer */
        p = target;
    }
    return p;
}

/* Elements of f in opaque: fixed, or read from the count field. */
static unsigned field_count(const VMStateField *f, const void *opaque)
{
    unsigned n;

    if (!(f->flags & VMS_F_VCOUNT)) {
        return f->count;
    }
    memcpy(&n, (const uint8_t *)opaque + f->vcount_offset, sizeof(n));
    return n;
}

static bool field_present(const VMStateField *f, unsigned version)
{
    return f->version <= version;
}

static bool save_fields(const VMStateDescription *vmsd, void *opaque,
                        GByteArray *out);

static bool save_field(const VMStateField *f, void *opaque, GByteArray *out)
{
    uint8_t *p = field_base(f, opaque);
    unsigned es = type_size(f->type);
    unsigned count = field_count(f, opaque);

    if (f->flags & VMS_F_VCOUNT) {
        vmstate_put_le(out, count, 4);
    }
    for (unsigned i = 0; i < count; i++) {
        switch (f->type) {
        case VMS_BUFFER:
            g_byte_array_append(out, p + i * f->size, f->size);
            break;
        case VMS_STRUCT:
            if (!save_fields(f->vmsd, p + i * f->size, out)) {
                return false;
            }
            break;
        case VMS_TIMER: {
            QEMUTimer *t;

            memcpy(&t, p + i * sizeof(t), sizeof(t));
            vmstate_put_le(out, timer_expire_ns(t), 8);
            break;
        }
        case VMS_BOOL:
            vmstate_put_le(out, *(bool *)(p + i) ? 1 : 0, 1);
            break;
        default:
            vmstate_put_le(out, load_host(p + i * es, es), es);
            break;
        }
    }
    return true;
}

static bool save_fields(const VMStateDescription *vmsd, void *opaque,
                        GByteArray *out)
{
    const VMStateDescription *const *sub;
    guint count_at;
    uint8_t nsubs = 0;

    if (vmsd->pre_save && vmsd->pre_save(opaque) < 0) {
        return false;
    }
    for (const VMStateField *f = vmsd->fields; f && f->name; f++) {
        if (!save_field(f, opaque, out)) {
            return false;
        }
    }
    count_at = out->len;
    vmstate_put_le(out, 0, 1);
    for (sub = vmsd->subsections; sub && *sub; sub++) {
        size_t len_at, name_len = strlen((*sub)->name);

        if ((*sub)->needed && !(*sub)->needed(opaque)) {
            continue;
        }
        vmstate_put_le(out, name_len, 1);
        g_byte_array_append(out, (const uint8_t *)(*sub)->name, name_len);
        vmstate_put_le(out, (*sub)->version, 4);
        len_at = out->len;
        vmstate_put_le(out, 0, 4);
        if (!save_fields(*sub, opaque, out)) {
            return false;
        }
        for (unsigned i = 0; i < 4; i++) {
            out->data[len_at + i] = (out->len - len_at - 4) >> (8 * i);
        }
        nsubs++;
    }
    out->data[count_at] = nsubs;
    return true;
}

bool vmstate_save(const VMStateDescription *vmsd, void *opaque,
                  GByteArray *out)
{
    return save_fields(vmsd, opaque, out);
}

/* --- load ---------------------------------------------------------------- */

typedef struct LoadCtx {
    const char *ctx;            /* "i8259 instance 1" */
    GString *path;              /* the field being loaded */
} LoadCtx;

static bool load_fields(const VMStateDescription *vmsd, void *opaque,
                        unsigned version, VMStateReader *r, LoadCtx *lc,
                        Error **errp);

static bool short_input(LoadCtx *lc, Error **errp)
{
    error_setg(errp, "%s: field '%s': state ends early", lc->ctx,
               lc->path->str);
    return false;
}

static bool load_field(const VMStateField *f, void *opaque, VMStateReader *r,
                       LoadCtx *lc, Error **errp)
{
    uint8_t *p = field_base(f, opaque);
    unsigned es = type_size(f->type);
    size_t path_len = lc->path->len;
    unsigned count = field_count(f, opaque);
    uint64_t v;

    if (f->flags & VMS_F_VCOUNT) {
        if (!vmstate_get_le(r, 4, &v)) {
            return short_input(lc, errp);
        }
        if (v != count) {
            error_setg(errp, "%s: field '%s': %" PRIu64 " elements in the "
                       "stream, %u here", lc->ctx, lc->path->str, v, count);
            return false;
        }
    }
    for (unsigned i = 0; i < count; i++) {
        g_string_truncate(lc->path, path_len);
        if (count > 1 || (f->flags & VMS_F_VCOUNT)) {
            g_string_append_printf(lc->path, "[%u]", i);
        }
        switch (f->type) {
        case VMS_BUFFER:
            if (r->len - r->pos < f->size) {
                return short_input(lc, errp);
            }
            memcpy(p + i * f->size, r->data + r->pos, f->size);
            r->pos += f->size;
            break;
        case VMS_STRUCT:
            g_string_append_c(lc->path, '.');
            if (!load_fields(f->vmsd, p + i * f->size, f->vmsd->version, r,
                             lc, errp)) {
                return false;
            }
            break;
        case VMS_TIMER: {
            QEMUTimer *t;

            if (!vmstate_get_le(r, 8, &v)) {
                return short_input(lc, errp);
            }
            memcpy(&t, p + i * sizeof(t), sizeof(t));
            if ((int64_t)v < -1) {
                error_setg(errp, "%s: field '%s': timer expiry %" PRId64
                           " is not a time", lc->ctx, lc->path->str,
                           (int64_t)v);
                return false;
            }
            if ((int64_t)v == -1) {
                timer_del(t);
            } else {
                timer_mod(t, v);
            }
            break;
        }
        default:
            if (!vmstate_get_le(r, es, &v)) {
                return short_input(lc, errp);
            }
            if (f->type == VMS_BOOL && v > 1) {
                error_setg(errp, "%s: field '%s': %" PRIu64 " is not a "
                           "boolean", lc->ctx, lc->path->str, v);
                return false;
            }
            if ((f->flags & VMS_F_RANGE) && (v < f->min || v > f->max)) {
                error_setg(errp, "%s: field '%s': value %" PRIu64 " is out "
                           "of range %" PRIu64 "..%" PRIu64, lc->ctx,
                           lc->path->str, v, f->min, f->max);
                return false;
            }
            if (f->type == VMS_BOOL) {
                *(bool *)(p + i) = v;
            } else {
                store_host(p + i * es, v, es);
            }
            break;
        }
    }
    g_string_truncate(lc->path, path_len);
    if (f->check && !f->check(opaque, f, errp)) {
        error_prepend(errp, "%s: field '%s': ", lc->ctx, lc->path->str);
        return false;
    }
    return true;
}

static const VMStateDescription *find_sub(const VMStateDescription *vmsd,
                                          const char *name, size_t len)
{
    for (const VMStateDescription *const *s = vmsd->subsections; s && *s;
         s++) {
        if (strlen((*s)->name) == len && !memcmp((*s)->name, name, len)) {
            return *s;
        }
    }
    return NULL;
}

static bool load_subsections(const VMStateDescription *vmsd, void *opaque,
                             VMStateReader *r, LoadCtx *lc, Error **errp)
{
    uint64_t n, name_len, version, len;

    if (!vmstate_get_le(r, 1, &n)) {
        return short_input(lc, errp);
    }
    for (uint64_t i = 0; i < n; i++) {
        const VMStateDescription *sub;
        VMStateReader sr;
        const char *name;

        if (!vmstate_get_le(r, 1, &name_len) ||
            r->len - r->pos < name_len) {
            return short_input(lc, errp);
        }
        name = (const char *)r->data + r->pos;
        r->pos += name_len;
        if (!vmstate_get_le(r, 4, &version) || !vmstate_get_le(r, 4, &len) ||
            r->len - r->pos < len) {
            return short_input(lc, errp);
        }
        sub = find_sub(vmsd, name, name_len);
        if (!sub) {
            error_setg(errp, "%s: unknown subsection '%.*s'", lc->ctx,
                       (int)name_len, name);
            return false;
        }
        if (version > sub->version || version < sub->minimum_version) {
            error_setg(errp, "%s: subsection '%s' version %" PRIu64
                       " is not supported (%u..%u)", lc->ctx, sub->name,
                       version, sub->minimum_version, sub->version);
            return false;
        }
        sr = (VMStateReader){ .data = r->data + r->pos, .len = len };
        r->pos += len;
        if (!load_fields(sub, opaque, version, &sr, lc, errp)) {
            return false;
        }
        if (sr.pos != sr.len) {
            error_setg(errp, "%s: subsection '%s' has %zu bytes too many",
                       lc->ctx, sub->name, sr.len - sr.pos);
            return false;
        }
    }
    return true;
}

static bool load_fields(const VMStateDescription *vmsd, void *opaque,
                        unsigned version, VMStateReader *r, LoadCtx *lc,
                        Error **errp)
{
    size_t path_len = lc->path->len;

    for (const VMStateField *f = vmsd->fields; f && f->name; f++) {
        if (!field_present(f, version)) {
            continue;
        }
        g_string_truncate(lc->path, path_len);
        g_string_append(lc->path, f->name);
        if (!load_field(f, opaque, r, lc, errp)) {
            return false;
        }
    }
    g_string_truncate(lc->path, path_len);
    if (!load_subsections(vmsd, opaque, r, lc, errp)) {
        return false;
    }
    if (vmsd->post_load && !vmsd->post_load(opaque, version, errp)) {
        error_prepend(errp, "%s: ", lc->ctx);
        return false;
    }
    return true;
}

bool vmstate_load(const VMStateDescription *vmsd, void *opaque,
                  unsigned version, const uint8_t *data, size_t len,
                  const char *ctx, Error **errp)
{
    VMStateReader r = { .data = data, .len = len };
    LoadCtx lc = { .ctx = ctx, .path = g_string_new(NULL) };
    bool ok;

    if (version > vmsd->version || version < vmsd->minimum_version) {
        error_setg(errp, "%s: state version %u is not supported (%u..%u)",
                   ctx, version, vmsd->minimum_version, vmsd->version);
        g_string_free(lc.path, TRUE);
        return false;
    }
    ok = load_fields(vmsd, opaque, version, &r, &lc, errp);
    if (ok && r.pos != r.len) {
        error_setg(errp, "%s: %zu bytes after the last field", ctx,
                   r.len - r.pos);
        ok = false;
    }
    g_string_free(lc.path, TRUE);
    return ok;
}

/* --- compare ------------------------------------------------------------- */

static bool equal_fields(const VMStateDescription *vmsd, void *a, void *b,
                         GString *path);

static bool equal_field(const VMStateField *f, void *a, void *b,
                        GString *path)
{
    uint8_t *pa = field_base(f, a), *pb = field_base(f, b);
    unsigned es = type_size(f->type);
    size_t len = path->len;
    unsigned count = field_count(f, a);

    if (count != field_count(f, b)) {
        return false;
    }
    for (unsigned i = 0; i < count; i++) {
        g_string_truncate(path, len);
        if (count > 1 || (f->flags & VMS_F_VCOUNT)) {
            g_string_append_printf(path, "[%u]", i);
        }
        switch (f->type) {
        case VMS_BUFFER:
            if (memcmp(pa + i * f->size, pb + i * f->size, f->size)) {
                return false;
            }
            break;
        case VMS_STRUCT:
            g_string_append_c(path, '.');
            if (!equal_fields(f->vmsd, pa + i * f->size, pb + i * f->size,
                              path)) {
                return false;
            }
            break;
        case VMS_TIMER: {
            QEMUTimer *ta, *tb;

            memcpy(&ta, pa + i * sizeof(ta), sizeof(ta));
            memcpy(&tb, pb + i * sizeof(tb), sizeof(tb));
            if (timer_expire_ns(ta) != timer_expire_ns(tb)) {
                return false;
            }
            break;
        }
        case VMS_BOOL:
            if (*(bool *)(pa + i) != *(bool *)(pb + i)) {
                return false;
            }
            break;
        default:
            if (load_host(pa + i * es, es) != load_host(pb + i * es, es)) {
                return false;
            }
            break;
        }
    }
    g_string_truncate(path, len);
    return true;
}

static bool equal_fields(const VMStateDescription *vmsd, void *a, void *b,
                         GString *path)
{
    size_t len = path->len;

    for (const VMStateField *f = vmsd->fields; f && f->name; f++) {
        g_string_truncate(path, len);
        g_string_append(path, f->name);
        if (!equal_field(f, a, b, path)) {
            return false;
        }
    }
    g_string_truncate(path, len);
    for (const VMStateDescription *const *s = vmsd->subsections; s && *s;
         s++) {
        if (!equal_fields(*s, a, b, path)) {
            return false;
        }
    }
    return true;
}

bool vmstate_equal(const VMStateDescription *vmsd, void *a, void *b,
                   char **field)
{
    GString *path = g_string_new(NULL);
    bool eq = equal_fields(vmsd, a, b, path);

    *field = eq ? NULL : g_strdup(path->str);
    g_string_free(path, TRUE);
    return eq;
}

bool vmstate_check_table(const VMStateDescription *vmsd, size_t size,
                         char **why)
{
    for (const VMStateField *f = vmsd->fields; f && f->name; f++) {
        size_t bytes;

        if ((f->flags & VMS_F_VCOUNT) &&
            (!(f->flags & VMS_F_POINTER) ||
             f->vcount_offset + sizeof(unsigned) > size)) {
            *why = g_strdup_printf("%s: field '%s' has a variable count "
                                   "but no pointer or count", vmsd->name,
                                   f->name);
            return false;
        }
        if (f->flags & VMS_F_POINTER) {
            bytes = sizeof(void *);
        } else if (f->type == VMS_BUFFER || f->type == VMS_STRUCT) {
            bytes = f->size * f->count;
        } else if (f->type == VMS_TIMER) {
            bytes = sizeof(void *) * f->count;
        } else {
            bytes = type_size(f->type) * f->count;
        }
        if (!f->count || f->offset + bytes > size) {
            *why = g_strdup_printf("%s: field '%s' lies outside the struct",
                                   vmsd->name, f->name);
            return false;
        }
        if (f->version > vmsd->version) {
            *why = g_strdup_printf("%s: field '%s' is from version %u, "
                                   "after the table's %u", vmsd->name,
                                   f->name, f->version, vmsd->version);
            return false;
        }
        if (f->type == VMS_STRUCT && !(f->flags & VMS_F_POINTER) &&
            !vmstate_check_table(f->vmsd, f->size, why)) {
            return false;
        }
    }
    return true;
}
