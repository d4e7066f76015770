/*
 * Entropy backends (include/system/rng.h). rng-random holds its file
 * open, non-blocking, and watches it from the main loop only while a
 * request waits, so nothing is read ahead of the guest's asking and a
 * file that has run dry (EOF) leaves the requests waiting, not a busy
 * loop. rng-builtin answers at once from getrandom().
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <glib-unix.h>

#include "qemu/log.h"
#include "qom/object.h"
#include "system/rng.h"

#define RNG_READ_MAX    4096

typedef struct RngRequest {
    size_t len;
    RngReceive *receive;
    void *opaque;
} RngRequest;

struct RngBackend {
    char *id;                   /* NULL for a device's private one */
    char *filename;             /* rng-random; NULL for rng-builtin */
    unsigned users;             /* devices that use it */
    int fd;
    guint watch;
    bool eof_logged;
    GQueue requests;            /* of RngRequest * */
    Object *obj;
};

static GPtrArray *rng_backends; /* of RngBackend *, the -object ones */

static const Property rng_random_qom_props[] = {
    DEFINE_PROP_STRING("filename", RngBackend, filename),
    PROP_END,
};

static const Property rng_builtin_qom_props[] = {
    PROP_END,
};

static void rng_fill_builtin(uint8_t *p, size_t len)
{
    while (len) {
        ssize_t n = getrandom(p, len, 0);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            /* Not expected on Linux 3.17+; the guest gets zeros then. */
            qemu_log_mask(LOG_UNIMP, "rng-builtin: getrandom: %s\n",
                          g_strerror(errno));
            memset(p, 0, len);
            return;
        }
        p += n;
        len -= n;
    }
}

/* Serve the oldest request with what one read gives. */
static gboolean rng_readable(gint fd, GIOCondition cond, gpointer opaque)
{
    RngBackend *rng = opaque;

    while (!g_queue_is_empty(&rng->requests)) {
        RngRequest *req = g_queue_peek_head(&rng->requests);
        uint8_t buf[RNG_READ_MAX];
        ssize_t n = read(rng->fd, buf, MIN(req->len, sizeof(buf)));

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            break;
        }
        if (n <= 0) {
            if (!rng->eof_logged) {
                qemu_log_mask(LOG_UNIMP, "rng-random: %s: %s\n",
                              rng->filename,
                              n ? g_strerror(errno) : "end of file");
                rng->eof_logged = true;
            }
            /* Dry for good: the requests wait, the watch goes. */
            break;
        }
        g_queue_pop_head(&rng->requests);
        req->receive(req->opaque, buf, n);
        g_free(req);
    }
    if (g_queue_is_empty(&rng->requests) || rng->eof_logged) {
        rng->watch = 0;
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

static void rng_watch_update(RngBackend *rng)
{
    bool want = !g_queue_is_empty(&rng->requests) && !rng->eof_logged;

    if (want && !rng->watch) {
        rng->watch = g_unix_fd_add(rng->fd, G_IO_IN, rng_readable, rng);
    } else if (!want && rng->watch) {
        g_source_remove(rng->watch);
        rng->watch = 0;
    }
}

void rng_backend_request(RngBackend *rng, size_t len, RngReceive *receive,
                         void *opaque)
{
    RngRequest *req;

    g_assert(len);
    if (!rng->filename) {
        uint8_t buf[RNG_READ_MAX];
        size_t n = MIN(len, sizeof(buf));

        rng_fill_builtin(buf, n);
        receive(opaque, buf, n);
        return;
    }
    req = g_new(RngRequest, 1);
    *req = (RngRequest) { .len = len, .receive = receive, .opaque = opaque };
    g_queue_push_tail(&rng->requests, req);
    rng_watch_update(rng);
}

void rng_backend_cancel(RngBackend *rng, void *opaque)
{
    GList *l = rng->requests.head;

    while (l) {
        GList *next = l->next;
        RngRequest *req = l->data;

        if (req->opaque == opaque) {
            g_free(req);
            g_queue_delete_link(&rng->requests, l);
        }
        l = next;
    }
    rng_watch_update(rng);
}

static RngBackend *rng_new(void)
{
    RngBackend *rng = g_new0(RngBackend, 1);

    rng->fd = -1;
    g_queue_init(&rng->requests);
    return rng;
}

RngBackend *rng_backend_new_builtin(void)
{
    return rng_new();
}

void rng_backend_free(RngBackend *rng)
{
    if (!rng) {
        return;
    }
    if (rng->watch) {
        g_source_remove(rng->watch);
    }
    g_queue_clear_full(&rng->requests, g_free);
    if (rng->fd >= 0) {
        close(rng->fd);
    }
    if (rng->obj) {
        object_unparent(rng->obj);
    }
    g_free(rng->id);
    g_free(rng->filename);
    g_free(rng);
}

bool rng_backend_create(const QemuOpts *opts, Error **errp)
{
    const char *type = qemu_opt_get(opts, "qom-type");
    bool random = !strcmp(type, "rng-random");
    const char *filename = qemu_opt_get(opts, "filename");
    RngBackend *rng = rng_new();

    rng->id = g_strdup(qemu_opt_get(opts, "id"));
    if (random) {
        rng->filename = g_strdup(filename ? filename : "/dev/urandom");
        rng->fd = open(rng->filename, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (rng->fd < 0) {
            error_setg(errp, "Could not open '%s': %s", rng->filename,
                       g_strerror(errno));
            rng_backend_free(rng);
            return false;
        }
    }
    rng->obj = object_add_child(object_get_container("/objects"), rng->id,
                                type, rng, random ? rng_random_qom_props
                                                  : rng_builtin_qom_props,
                                errp);
    if (!rng->obj) {
        rng_backend_free(rng);
        return false;
    }
    if (!rng_backends) {
        rng_backends = g_ptr_array_new();
    }
    g_ptr_array_add(rng_backends, rng);
    return true;
}

void rng_backend_set_in_use(RngBackend *rng, bool in_use)
{
    rng->users += in_use ? 1 : -1;
}

bool rng_backend_delete(const char *id, Error **errp)
{
    RngBackend *rng = rng_backend_find(id);

    if (!rng) {
        return false;
    }
    /* QEMU 7.2 unparents it under the device; refusing is safer. */
    if (rng->users) {
        error_setg(errp, "object '%s' is in use, can not be deleted", id);
        return true;
    }
    g_ptr_array_remove(rng_backends, rng);
    rng_backend_free(rng);
    return true;
}

RngBackend *rng_backend_find(const char *id)
{
    for (guint i = 0; rng_backends && i < rng_backends->len; i++) {
        RngBackend *rng = g_ptr_array_index(rng_backends, i);

        if (!strcmp(rng->id, id)) {
            return rng;
        }
    }
    return NULL;
}

void rng_backends_cleanup(void)
{
    for (guint i = 0; rng_backends && i < rng_backends->len; i++) {
        rng_backend_free(g_ptr_array_index(rng_backends, i));
    }
    if (rng_backends) {
        g_ptr_array_free(rng_backends, TRUE);
        rng_backends = NULL;
    }
}

static void __attribute__((constructor)) rng_register_types(void)
{
    type_register("rng-backend", NULL, true);
    type_register("rng-random", "rng-backend", false);
    type_register("rng-builtin", "rng-backend", false);
}
