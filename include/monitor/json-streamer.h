/*
 * JSON stream splitter: bytes arriving in arbitrary pieces in, complete
 * top-level JSON values (as text) or error messages out. It only finds
 * where values end; json-glib parses each value afterwards. Pure code:
 * no I/O, no globals, so it is unit-tested and fuzzed on its own.
 */
#ifndef MONITOR_JSON_STREAMER_H
#define MONITOR_JSON_STREAMER_H

#include <stdbool.h>
#include <stddef.h>

/* QEMU's limits (qobject/json-streamer.c). */
#define JSON_STREAMER_MAX_SIZE   (64u << 20)    /* bytes of one value */
#define JSON_STREAMER_MAX_DEPTH  1024u          /* nesting of {} and [] */
#define JSON_STREAMER_MAX_TOKENS (2u << 20)     /* tokens of one value */

typedef struct JsonStreamer JsonStreamer;

/*
 * Called once per complete top-level value (json, len; json is
 * NUL-terminated and valid only during the call, error NULL) or once
 * per error (json NULL, error a message such as "JSON parse error,
 * stray '@'"). It must not free the streamer.
 */
typedef void JsonStreamerEmit(void *opaque, const char *json, size_t len,
                              const char *error);

JsonStreamer *json_streamer_new(JsonStreamerEmit *emit, void *opaque);
void json_streamer_free(JsonStreamer *s);
/* Lower the limits (tests); 0 keeps a limit as it is. */
void json_streamer_set_limits(JsonStreamer *s, size_t max_size,
                              unsigned max_depth, size_t max_tokens);
void json_streamer_feed(JsonStreamer *s, const void *buf, size_t len);
/*
 * End of input: a pending top-level number or keyword is emitted, a
 * value left open is reported as an error.
 */
void json_streamer_flush(JsonStreamer *s);
/* Forget any partial value, silently (a client went away). */
void json_streamer_reset(JsonStreamer *s);
/* Bytes of buffer the streamer holds now (to test that it is bounded). */
size_t json_streamer_buffered(const JsonStreamer *s);

#endif
