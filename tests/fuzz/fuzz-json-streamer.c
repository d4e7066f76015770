/*
 * libFuzzer target for the JSON stream splitter (built by meson with
 * -Dfuzzing=true; scripts/fuzz.sh json-streamer runs it).
 * The first input byte picks the chunk size, the rest is the stream. It
 * runs with QEMU's limits and with small ones (so the limits trip), and
 * checks that each value emitted, fed alone to a fresh streamer, comes
 * back unchanged, and that the buffer never outgrows the size limit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "monitor/json-streamer.h"

#define SMALL_SIZE   4096
#define SMALL_DEPTH  16
#define SMALL_TOKENS 256

typedef struct FuzzState {
    size_t max_size;
    bool small;
    size_t values;
    const char *echo;       /* in the re-feed check: the expected value */
    size_t echo_len;
    size_t echo_seen;
} FuzzState;

static JsonStreamer *fuzz_streamer(void (*emit)(void *, const char *, size_t,
                                                const char *),
                                   FuzzState *st)
{
    JsonStreamer *s = json_streamer_new(emit, st);

    if (st->small) {
        json_streamer_set_limits(s, SMALL_SIZE, SMALL_DEPTH, SMALL_TOKENS);
    }
    return s;
}

static void echo_emit(void *opaque, const char *json, size_t len,
                      const char *error)
{
    FuzzState *st = opaque;

    if (!json || len != st->echo_len || memcmp(json, st->echo, len)) {
        abort();
    }
    st->echo_seen++;
}

static void emit(void *opaque, const char *json, size_t len,
                 const char *error)
{
    FuzzState *st = opaque;
    FuzzState echo = *st;
    JsonStreamer *s;

    if (!json) {
        if (!error || !*error) {
            abort();
        }
        return;
    }
    if (!len || len > st->max_size || strlen(json) != len) {
        abort();
    }
    st->values++;
    echo.echo = json;
    echo.echo_len = len;
    echo.echo_seen = 0;
    s = fuzz_streamer(echo_emit, &echo);
    json_streamer_feed(s, json, len);
    json_streamer_flush(s);
    json_streamer_free(s);
    if (echo.echo_seen != 1) {
        abort();
    }
}

static void run(const uint8_t *data, size_t size, size_t chunk, bool small)
{
    FuzzState st = {
        .max_size = small ? SMALL_SIZE : JSON_STREAMER_MAX_SIZE,
        .small = small,
    };
    JsonStreamer *s = fuzz_streamer(emit, &st);

    for (size_t i = 0; i < size; i += chunk) {
        json_streamer_feed(s, data + i, MIN(chunk, size - i));
        /* GString rounds its allocation up to a power of two. */
        if (json_streamer_buffered(s) > 2 * st.max_size + 64) {
            abort();
        }
    }
    json_streamer_flush(s);
    json_streamer_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t chunk;

    if (!size) {
        return 0;
    }
    chunk = data[0] % 17 + 1;
    run(data + 1, size - 1, chunk, false);
    run(data + 1, size - 1, chunk, true);
    return 0;
}
