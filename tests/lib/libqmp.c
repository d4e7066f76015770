/*
 * libqmp: QMP's JSON stream on a socket, for test programs.
 *
 * Messages are JSON objects; QMP sends one per line, but the reader does
 * not rely on it: it scans for the end of the first complete value.
 * Events that arrive while a command waits for its reply are queued for
 * qmp_client_eventwait(). QTEST_LOG in the environment prints what is
 * sent ([S]) and received ([R]) on stderr.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libqmp.h"

typedef struct QMPScan {
    size_t pos;                 /* bytes of buf already scanned */
    int depth;
    bool in_string;
    bool escape;
    bool started;
} QMPScan;

struct QMPClient {
    int fd;
    int timeout_ms;
    GString *buf;               /* received, not yet consumed */
    QMPScan scan;
    GQueue *events;             /* JsonNode *, oldest first */
};

static int64_t now_ms(void)
{
    return g_get_monotonic_time() / 1000;
}

/* ---- bounded socket I/O ---------------------------------------------- */

bool qmp_fd_send(int fd, const char *data, size_t len, int timeout_ms,
                 const char **why)
{
    int64_t deadline = now_ms() + timeout_ms;

    while (len) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int64_t left = deadline - now_ms();
        ssize_t n;

        if (left <= 0) {
            *why = "timed out sending to the emulator";
            return false;
        }
        if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) <= 0) {
            continue;
        }
        n = send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n < 0) {
            *why = strerror(errno);
            return false;
        }
        data += n;
        len -= n;
    }
    return true;
}

bool qmp_fd_fill(int fd, GString *buf, int timeout_ms, const char **why)
{
    int64_t deadline = now_ms() + timeout_ms;
    char chunk[65536];

    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int64_t left = deadline - now_ms();
        int r;
        ssize_t n;

        if (left <= 0) {
            *why = "timed out waiting for the emulator";
            return false;
        }
        r = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r == 0) {
            continue;
        }
        n = recv(fd, chunk, sizeof(chunk), 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n < 0) {
            *why = strerror(errno);
            return false;
        }
        if (n == 0) {
            *why = "the emulator closed the connection";
            return false;
        }
        g_string_append_len(buf, chunk, n);
        return true;
    }
}

/* ---- the JSON stream ------------------------------------------------- */

QMPClient *qmp_client_new(int fd, int timeout_ms)
{
    QMPClient *c = g_new0(QMPClient, 1);

    c->fd = fd;
    c->timeout_ms = timeout_ms;
    c->buf = g_string_new(NULL);
    c->events = g_queue_new();
    return c;
}

void qmp_client_free(QMPClient *c)
{
    if (!c) {
        return;
    }
    if (c->fd >= 0) {
        close(c->fd);
    }
    g_string_free(c->buf, TRUE);
    g_queue_free_full(c->events, (GDestroyNotify)json_node_unref);
    g_free(c);
}

/*
 * Find the end of the first complete JSON value in the buffer: the
 * length up to and including it (leading whitespace included), or 0 if
 * it is not complete yet. The scan resumes where the last call stopped,
 * so a large reply arriving in many pieces is scanned once.
 */
static size_t qmp_scan(QMPClient *c)
{
    GString *b = c->buf;
    QMPScan *sc = &c->scan;

    for (; sc->pos < b->len; sc->pos++) {
        char ch = b->str[sc->pos];

        if (sc->in_string) {
            if (sc->escape) {
                sc->escape = false;
            } else if (ch == '\\') {
                sc->escape = true;
            } else if (ch == '"') {
                sc->in_string = false;
            }
            continue;
        }
        switch (ch) {
        case '"':
            sc->in_string = true;
            sc->started = true;
            break;
        case '{':
        case '[':
            sc->depth++;
            sc->started = true;
            break;
        case '}':
        case ']':
            sc->depth--;
            break;
        case ' ':
        case '\t':
        case '\r':
        case '\n':
            break;
        default:
            sc->started = true;
            break;
        }
        /* Objects end at their brace; stray scalars at the line's end. */
        if (sc->started && sc->depth <= 0 &&
            (ch == '}' || ch == ']' || ch == '\n')) {
            size_t end = sc->pos + 1;

            *sc = (QMPScan){ 0 };
            return end;
        }
    }
    return 0;
}

JsonNode *qmp_client_receive(QMPClient *c, char **why)
{
    for (;;) {
        size_t end = qmp_scan(c);
        const char *io_why;

        if (end) {
            JsonParser *parser = json_parser_new();
            GError *err = NULL;
            JsonNode *node = NULL;
            char *text = g_strndup(c->buf->str, end);

            g_string_erase(c->buf, 0, end);
            g_strstrip(text);
            if (!*text) {
                g_free(text);
                g_object_unref(parser);
                continue;
            }
            if (!json_parser_load_from_data(parser, text, -1, &err)) {
                *why = g_strdup_printf("QMP: cannot parse '%s': %s", text,
                                       err->message);
                g_error_free(err);
                g_object_unref(parser);
                g_free(text);
                return NULL;
            }
            node = json_node_ref(json_parser_get_root(parser));
            g_object_unref(parser);
            if (!JSON_NODE_HOLDS_OBJECT(node)) {
                *why = g_strdup_printf("QMP: message is not an object: '%s'",
                                       text);
                json_node_unref(node);
                g_free(text);
                return NULL;
            }
            if (g_getenv("QTEST_LOG")) {
                fprintf(stderr, "[R] %s\n", text);
            }
            g_free(text);
            return node;
        }
        if (c->fd < 0) {
            *why = g_strdup("no QMP connection");
            return NULL;
        }
        if (!qmp_fd_fill(c->fd, c->buf, c->timeout_ms, &io_why)) {
            *why = g_strdup_printf("QMP: %s", io_why);
            return NULL;
        }
    }
}

bool qmp_client_send_raw(QMPClient *c, const char *data, size_t len,
                         char **why)
{
    const char *io_why;

    if (g_getenv("QTEST_LOG")) {
        fprintf(stderr, "[S] %.*s\n", len > 400 ? 400 : (int)len, data);
    }
    if (!qmp_fd_send(c->fd, data, len, c->timeout_ms, &io_why)) {
        *why = g_strdup_printf("QMP: %s", io_why);
        return false;
    }
    return true;
}

static bool is_event(JsonNode *node)
{
    return json_object_has_member(json_node_get_object(node), "event");
}

JsonNode *qmp_client_command(QMPClient *c, const char *cmd, char **why)
{
    if (!qmp_client_send_raw(c, cmd, strlen(cmd), why)) {
        return NULL;
    }
    for (;;) {
        JsonNode *node = qmp_client_receive(c, why);

        if (!node || !is_event(node)) {
            return node;
        }
        g_queue_push_tail(c->events, node);
    }
}

static bool event_is(JsonNode *node, const char *event)
{
    const char *name = json_object_get_string_member_with_default(
        json_node_get_object(node), "event", NULL);

    return name && strcmp(name, event) == 0;
}

JsonNode *qmp_client_eventwait(QMPClient *c, const char *event, char **why)
{
    for (GList *l = c->events->head; l; l = l->next) {
        if (event_is(l->data, event)) {
            JsonNode *node = l->data;

            g_queue_delete_link(c->events, l);
            return node;
        }
    }
    for (;;) {
        JsonNode *node = qmp_client_receive(c, why);

        if (!node || event_is(node, event)) {
            return node;
        }
        if (is_event(node)) {
            g_queue_push_tail(c->events, node);
        } else {
            /* A reply nobody waits for (e.g. to qmp_client_send_raw). */
            json_node_unref(node);
        }
    }
}

bool qmp_client_handshake(QMPClient *c, char **why)
{
    JsonNode *node = qmp_client_receive(c, why);
    JsonObject *obj;
    char *text;

    if (!node) {
        return false;
    }
    obj = json_node_get_object(node);
    if (!json_object_has_member(obj, "QMP") ||
        !JSON_NODE_HOLDS_OBJECT(json_object_get_member(obj, "QMP"))) {
        text = json_to_string(node, FALSE);
        *why = g_strdup_printf("QMP: expected a greeting, got '%s'", text);
        g_free(text);
        json_node_unref(node);
        return false;
    }
    json_node_unref(node);
    node = qmp_client_command(c, "{\"execute\": \"qmp_capabilities\"}", why);
    if (!node) {
        return false;
    }
    if (!json_object_has_member(json_node_get_object(node), "return")) {
        text = json_to_string(node, FALSE);
        *why = g_strdup_printf("qmp_capabilities failed: '%s'", text);
        g_free(text);
        json_node_unref(node);
        return false;
    }
    json_node_unref(node);
    return true;
}
