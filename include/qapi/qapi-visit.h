/*
 * What the code generated from the QMP schema (scripts/qapi-gen.py)
 * stands on: converting JSON to C with QEMU's error wording, C back to
 * JSON, and the command table's shape.
 *
 * Errors, as QEMU's QObject input visitor words them; NAME is the full
 * path of the value ("model.props", "enable[0]"):
 *     Parameter 'NAME' is missing
 *     Invalid parameter type for 'NAME', expected: string|integer|number|
 *         boolean|object|array|null
 *     Parameter 'NAME' is unexpected
 *     Parameter 'MEMBER' does not accept value 'V'   (an enum; list items
 *         have no member name and say 'null', as QEMU does)
 */
#ifndef QAPI_QAPI_VISIT_H
#define QAPI_QAPI_VISIT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

#include "qemu/qapi-json.h"
#include "qemu/error.h"

/* Where an input visit is: the names and list indexes above the value. */
typedef struct QapiIn {
    GPtrArray *path;            /* of char *: "name" or "[N]" */
} QapiIn;

#define QAPI_IN_INIT { NULL }

void qapi_in_free(QapiIn *v);
void qapi_in_push(QapiIn *v, const char *name);
void qapi_in_push_index(QapiIn *v, unsigned index);
void qapi_in_pop(QapiIn *v);

/*
 * Member name of obj: *node is NULL when it is absent (an error unless
 * optional).
 */
bool qapi_in_member(QapiIn *v, JsonObject *obj, const char *name,
                    bool optional, JsonNode **node, Error **errp);
/* Members of obj outside the NULL-terminated lists names and more. */
bool qapi_in_check_extra(QapiIn *v, JsonObject *obj,
                         const char *const *names, const char *const *more,
                         Error **errp);

bool qapi_in_str(QapiIn *v, const char *name, JsonNode *n, char **out,
                 Error **errp);
bool qapi_in_int(QapiIn *v, const char *name, JsonNode *n, int64_t *out,
                 Error **errp);
bool qapi_in_uint(QapiIn *v, const char *name, JsonNode *n, uint64_t *out,
                  Error **errp);
bool qapi_in_number(QapiIn *v, const char *name, JsonNode *n, double *out,
                    Error **errp);
bool qapi_in_bool(QapiIn *v, const char *name, JsonNode *n, bool *out,
                  Error **errp);
bool qapi_in_null(QapiIn *v, const char *name, JsonNode *n, bool *out,
                  Error **errp);
/* Any JSON value: a copy the caller frees (qapi_free_any()). */
bool qapi_in_any(QapiIn *v, const char *name, JsonNode *n, JsonNode **out,
                 Error **errp);
bool qapi_in_enum(QapiIn *v, const char *name, JsonNode *n,
                  const char *const *lookup, int count, int *out,
                  Error **errp);
bool qapi_in_object(QapiIn *v, const char *name, JsonNode *n,
                    JsonObject **out, Error **errp);
bool qapi_in_array(QapiIn *v, const char *name, JsonNode *n,
                   JsonArray **out, Error **errp);

void qapi_free_str(char *s);
void qapi_free_any(JsonNode *n);

QapiJsonType qapi_json_type(JsonNode *n);

JsonNode *qapi_out_str(const char *s);
JsonNode *qapi_out_int(int64_t i);
JsonNode *qapi_out_uint(uint64_t i);
JsonNode *qapi_out_number(double d);
JsonNode *qapi_out_bool(bool b);
JsonNode *qapi_out_null(bool unused);
JsonNode *qapi_out_any(const JsonNode *n);
/* These take over the reference. */
JsonNode *qapi_out_object(JsonObject *o);
JsonNode *qapi_out_array(JsonArray *a);

/* The generated command table (qapi-gen.c), ended by a NULL name. */
typedef bool QapiMarshal(JsonObject *args, JsonNode **ret, Error **errp);

#define QAPI_ALLOW_OOB 1u

typedef struct QapiCommand {
    const char *name;
    QapiMarshal *fn;
    unsigned flags;
    /*
     * Read a reply back against the schema's return type (NULL: nothing
     * to check); with QEMU_QMP_CHECK_RETURNS=1 in the environment, as the
     * tests set it, a reply that does not match aborts.
     */
    bool (*check_return)(JsonNode *ret, Error **errp);
} QapiCommand;

/*
 * The schema's commands (the generated qapi-commands.c). It names every
 * handler, so only the program's edge links it and hands it to the
 * monitor (qmp_register_commands(), include/monitor/monitor.h).
 */
extern const QapiCommand qapi_commands[];
extern const char *const qapi_event_names[];  /* NULL-terminated */

/*
 * Events: the generated qapi_event_send_NAME() build the data and call
 * qapi_event_emit(), which hands it to the emitter the monitor set
 * (qapi/qapi-event.c). Without one the event is dropped: nobody could
 * have received it. Takes the reference to data (may be NULL).
 */
typedef void QapiEventEmitter(const char *name, JsonObject *data);
void qapi_event_set_emitter(QapiEventEmitter *fn);
void qapi_event_emit(const char *name, JsonObject *data);
/* The query-qmp-schema reply: a new array of SchemaInfo objects. */
JsonNode *qapi_introspect(void);

#endif
