/*
 * The kind of a JSON value, as the code generated from the QMP schema
 * tells an alternate's branches apart (scripts/qapi-gen.py).
 */
#ifndef QEMU_QAPI_JSON_H
#define QEMU_QAPI_JSON_H

typedef enum QapiJsonType {
    QAPI_JSON_NULL,
    QAPI_JSON_NUMBER,
    QAPI_JSON_STRING,
    QAPI_JSON_BOOL,
    QAPI_JSON_OBJECT,
    QAPI_JSON_ARRAY,
} QapiJsonType;

#endif
