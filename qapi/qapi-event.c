/*
 * The way out for QMP events: code at any layer sends them through the
 * generated qapi_event_send_NAME(), and the monitor, which sits above
 * most of that code, plugs in the function that reaches its clients.
 */
#include "qapi/qapi-visit.h"

static QapiEventEmitter *emitter;

void qapi_event_set_emitter(QapiEventEmitter *fn)
{
    emitter = fn;
}

void qapi_event_emit(const char *name, JsonObject *data)
{
    if (emitter) {
        emitter(name, data);
    } else if (data) {
        json_object_unref(data);
    }
}
