/*
 * -object secret,id=ID,(data=TEXT|file=PATH)[,format=raw|base64]: the
 * bytes are read once, at creation, and kept until exit. Errors follow
 * QEMU's crypto/secret wording.
 */
#include <string.h>

#include <glib.h>

#include "qom/object.h"
#include "system/secret.h"

typedef struct Secret {
    char *id;
    char *format;           /* properties, for qom-get */
    char *file;
    uint8_t *data;
    size_t len;
    Object *obj;
} Secret;

static GPtrArray *secrets;      /* of Secret * */

static const Property secret_qom_props[] = {
    DEFINE_PROP_STRING("format", Secret, format),
    DEFINE_PROP_STRING("file", Secret, file),
    PROP_END,
};

static void secret_free(Secret *s)
{
    if (s->obj) {
        object_unparent(s->obj);
    }
    if (s->data) {
        memset(s->data, 0, s->len);
    }
    g_free(s->data);
    g_free(s->id);
    g_free(s->format);
    g_free(s->file);
    g_free(s);
}

static bool secret_load(Secret *s, const QemuOpts *opts, Error **errp)
{
    const char *data = qemu_opt_get(opts, "data");
    GError *gerr = NULL;
    gchar *raw = NULL;
    gsize len = 0;

    if (qemu_opt_get(opts, "keyid") || qemu_opt_get(opts, "iv")) {
        error_setg(errp, "encrypted secrets (keyid=, iv=) are not "
                   "supported in this release yet");
        return false;
    }
    if (data && s->file) {
        error_setg(errp, "'data' and 'file' are mutually exclusive");
        return false;
    }
    if (data) {
        raw = g_strdup(data);
        len = strlen(data);
    } else if (s->file) {
        if (!g_file_get_contents(s->file, &raw, &len, &gerr)) {
            error_setg(errp, "Unable to read %s: %s", s->file,
                       gerr->message);
            g_error_free(gerr);
            return false;
        }
    } else {
        error_setg(errp, "Either 'file' or 'data' must be provided");
        return false;
    }
    if (!strcmp(s->format, "base64")) {
        /* Strict: only the base64 alphabet and its padding. */
        for (gsize i = 0; i < len; i++) {
            if (!g_ascii_isalnum(raw[i]) && !strchr("+/=", raw[i])) {
                error_setg(errp, "Base64 data contains invalid characters");
                g_free(raw);
                return false;
            }
        }
        s->data = g_base64_decode(raw, &s->len);
        g_free(raw);
    } else if (!strcmp(s->format, "raw")) {
        s->data = (uint8_t *)raw;
        s->len = len;
    } else {
        error_setg(errp, "Parameter 'format' does not accept value '%s'",
                   s->format);
        g_free(raw);
        return false;
    }
    return true;
}

bool secret_create(const QemuOpts *opts, Error **errp)
{
    Secret *s = g_new0(Secret, 1);
    const char *format = qemu_opt_get(opts, "format");

    s->id = g_strdup(qemu_opt_get(opts, "id"));
    s->format = g_strdup(format ? format : "raw");
    s->file = g_strdup(qemu_opt_get(opts, "file"));
    if (!secret_load(s, opts, errp)) {
        secret_free(s);
        return false;
    }
    s->obj = object_add_child(object_get_container("/objects"), s->id,
                              "secret", s, secret_qom_props, errp);
    if (!s->obj) {
        secret_free(s);
        return false;
    }
    if (!secrets) {
        secrets = g_ptr_array_new();
    }
    g_ptr_array_add(secrets, s);
    return true;
}

const uint8_t *secret_lookup(const char *id, size_t *len, Error **errp)
{
    for (guint i = 0; secrets && i < secrets->len; i++) {
        Secret *s = g_ptr_array_index(secrets, i);

        if (!strcmp(s->id, id)) {
            *len = s->len;
            return s->data;
        }
    }
    error_setg(errp, "No secret with id '%s'", id);
    return NULL;
}

bool secret_delete(const char *id)
{
    for (guint i = 0; secrets && i < secrets->len; i++) {
        Secret *s = g_ptr_array_index(secrets, i);

        if (!strcmp(s->id, id)) {
            g_ptr_array_remove_index(secrets, i);
            secret_free(s);
            return true;
        }
    }
    return false;
}

void secrets_cleanup(void)
{
    for (guint i = 0; secrets && i < secrets->len; i++) {
        secret_free(g_ptr_array_index(secrets, i));
    }
    if (secrets) {
        g_ptr_array_free(secrets, TRUE);
        secrets = NULL;
    }
}

static void __attribute__((constructor)) secret_register_types(void)
{
    type_register("secret", NULL, false);
}
