/*
 * JSON stream splitter, with QEMU's lexer semantics.
 *
 * The input is a sequence of JSON values (RFC 8259) separated by any
 * whitespace. This code only finds where each top-level value ends; it
 * tracks just enough to do so:
 *   - strings: '"' ... '"' with backslash escapes; a byte below 0x20
 *     inside a string is an error (JSON forbids raw control characters);
 *   - nesting: '{' and '[' open, '}' and ']' close; a value that opened
 *     ends when the nesting returns to 0 (a mismatch such as "{]" still
 *     ends there; json-glib then rejects the text);
 *   - numbers and keywords: runs of [A-Za-z0-9+-.]; at top level such a
 *     run ends at the first other byte, so "42" alone stays pending
 *     until something follows it (or json_streamer_flush());
 *   - whitespace between top-level values is dropped.
 *
 * Errors (one emit with a message each), then resynchronisation:
 *   - a byte that cannot start a token (e.g. '@', non-ASCII outside a
 *     string, a control character), a control character inside a
 *     string, or 0xFE/0xFF anywhere: "JSON parse error, stray 'C'".
 *     The partial value is dropped and, as QEMU's lexer does, bytes are
 *     skipped up to a structural character ({ } [ ] : ,), a control
 *     character other than tab (a newline), or 0xFE/0xFF. So a client
 *     can always get back in sync by sending a newline or 0xFF.
 *   - '}' ']' ':' ',' at top level: "JSON parse error, stray '}'".
 *
 * Limits, so that memory stays bounded whatever a client sends (QEMU's
 * values, see json-streamer.h):
 *   - a value longer than JSON_STREAMER_MAX_SIZE (64 MiB) bytes,
 *     "JSON token size limit exceeded";
 *   - nesting deeper than JSON_STREAMER_MAX_DEPTH (1024),
 *     "JSON nesting depth limit exceeded";
 *   - more than JSON_STREAMER_MAX_TOKENS (2 Mi) tokens in one value,
 *     "JSON token count limit exceeded".
 * After a limit error the rest of that value is consumed without being
 * stored (only its nesting and string state are tracked, in a few
 * counters), so an oversized value yields one error, not a cascade of
 * errors about its pieces. The buffer is released after a large value.
 * The most the streamer ever holds is one value of up to the size limit
 * (GString may round its allocation up to the next power of two).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "monitor/json-streamer.h"

/* Buffers grown past this are given back after each value. */
#define JSON_STREAMER_KEEP_BUFFER (64 * 1024)

typedef enum JsonStreamerState {
    JS_START,           /* between tokens */
    JS_STRING,
    JS_STRING_ESCAPE,   /* after a backslash in a string */
    JS_LITERAL,         /* inside a number or keyword */
    JS_RECOVERY,        /* after an error: skipping to a resync point */
} JsonStreamerState;

struct JsonStreamer {
    JsonStreamerEmit *emit;
    void *opaque;
    size_t max_size;
    unsigned max_depth;
    size_t max_tokens;

    JsonStreamerState state;
    GString *value;         /* text of the value being collected */
    size_t depth;           /* open { and [ of that value */
    size_t tokens;
    bool discarding;        /* over a limit: track the value's end only */
};

JsonStreamer *json_streamer_new(JsonStreamerEmit *emit, void *opaque)
{
    JsonStreamer *s = g_new0(JsonStreamer, 1);

    s->emit = emit;
    s->opaque = opaque;
    s->max_size = JSON_STREAMER_MAX_SIZE;
    s->max_depth = JSON_STREAMER_MAX_DEPTH;
    s->max_tokens = JSON_STREAMER_MAX_TOKENS;
    s->state = JS_START;
    s->value = g_string_new(NULL);
    return s;
}

void json_streamer_free(JsonStreamer *s)
{
    if (s) {
        g_string_free(s->value, TRUE);
        g_free(s);
    }
}

void json_streamer_set_limits(JsonStreamer *s, size_t max_size,
                              unsigned max_depth, size_t max_tokens)
{
    if (max_size) {
        s->max_size = max_size;
    }
    if (max_depth) {
        s->max_depth = max_depth;
    }
    if (max_tokens) {
        s->max_tokens = max_tokens;
    }
}

size_t json_streamer_buffered(const JsonStreamer *s)
{
    return s->value->allocated_len;
}

static void value_clear(JsonStreamer *s)
{
    if (s->value->allocated_len > JSON_STREAMER_KEEP_BUFFER) {
        g_string_free(s->value, TRUE);
        s->value = g_string_new(NULL);
    } else {
        g_string_truncate(s->value, 0);
    }
    s->depth = 0;
    s->tokens = 0;
    s->discarding = false;
}

static void emit_error(JsonStreamer *s, const char *msg)
{
    s->emit(s->opaque, NULL, 0, msg);
}

/* A limit was crossed: report once, then only track the value's end. */
static void value_overflow(JsonStreamer *s, const char *msg)
{
    size_t depth = s->depth;

    emit_error(s, msg);
    value_clear(s);
    s->depth = depth;
    s->discarding = true;
}

static void value_end(JsonStreamer *s)
{
    if (!s->discarding) {
        s->emit(s->opaque, s->value->str, s->value->len, NULL);
    }
    value_clear(s);
}

static void store(JsonStreamer *s, uint8_t c)
{
    if (s->discarding) {
        return;
    }
    if (s->value->len + 1 > s->max_size) {
        value_overflow(s, "JSON token size limit exceeded");
        return;
    }
    g_string_append_c(s->value, c);
}

static void token_start(JsonStreamer *s)
{
    s->tokens++;
    if (!s->discarding && s->tokens > s->max_tokens) {
        value_overflow(s, "JSON token count limit exceeded");
    }
}

/* "stray '@'", with bytes that are not printable ASCII as \xNN. */
static void stray(JsonStreamer *s, uint8_t c)
{
    char msg[64];

    if (c >= 0x20 && c < 0x7f) {
        snprintf(msg, sizeof(msg), "JSON parse error, stray '%c'", c);
    } else {
        snprintf(msg, sizeof(msg), "JSON parse error, stray '\\x%02x'", c);
    }
    emit_error(s, msg);
}

static void lex_error(JsonStreamer *s, uint8_t c)
{
    stray(s, c);
    value_clear(s);
    s->state = JS_RECOVERY;
}

static bool is_literal_char(uint8_t c)
{
    return g_ascii_isalnum(c) || c == '+' || c == '-' || c == '.';
}

static bool is_structural(uint8_t c)
{
    return c == '{' || c == '}' || c == '[' || c == ']' ||
           c == ':' || c == ',';
}

static void feed_start(JsonStreamer *s, uint8_t c)
{
    switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\n':
        if (s->depth) {
            store(s, c);
        }
        return;
    case '{':
    case '[':
        token_start(s);
        s->depth++;
        if (!s->discarding && s->depth > s->max_depth) {
            value_overflow(s, "JSON nesting depth limit exceeded");
        }
        store(s, c);
        return;
    case '}':
    case ']':
        if (!s->depth) {
            stray(s, c);
            return;
        }
        token_start(s);
        store(s, c);
        if (--s->depth == 0) {
            value_end(s);
        }
        return;
    case ':':
    case ',':
        if (!s->depth) {
            stray(s, c);
            return;
        }
        token_start(s);
        store(s, c);
        return;
    case '"':
        token_start(s);
        store(s, c);
        s->state = JS_STRING;
        return;
    default:
        if (is_literal_char(c)) {
            token_start(s);
            store(s, c);
            s->state = JS_LITERAL;
            return;
        }
        lex_error(s, c);
        return;
    }
}

static void feed_char(JsonStreamer *s, uint8_t c)
{
    /* Bytes that end a token are looked at again in the new state. */
    for (;;) {
        switch (s->state) {
        case JS_START:
            feed_start(s, c);
            return;
        case JS_STRING:
            if (c < 0x20 || c >= 0xfe) {
                lex_error(s, c);
                return;
            }
            store(s, c);
            if (c == '\\') {
                s->state = JS_STRING_ESCAPE;
            } else if (c == '"') {
                s->state = JS_START;
                if (!s->depth) {
                    value_end(s);
                }
            }
            return;
        case JS_STRING_ESCAPE:
            if (c < 0x20 || c >= 0xfe) {
                lex_error(s, c);
                return;
            }
            store(s, c);
            s->state = JS_STRING;
            return;
        case JS_LITERAL:
            if (is_literal_char(c)) {
                store(s, c);
                return;
            }
            s->state = JS_START;
            if (!s->depth) {
                value_end(s);
            }
            continue;
        case JS_RECOVERY:
            if (c == '\t' || (c >= 0x20 && c < 0xfe && !is_structural(c))) {
                return;
            }
            s->state = JS_START;
            continue;
        }
    }
}

void json_streamer_feed(JsonStreamer *s, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    for (size_t i = 0; i < len; i++) {
        feed_char(s, p[i]);
    }
}

void json_streamer_flush(JsonStreamer *s)
{
    if (s->state == JS_LITERAL && !s->depth) {
        value_end(s);
    } else if ((s->depth || s->state == JS_STRING ||
                s->state == JS_STRING_ESCAPE) && !s->discarding) {
        emit_error(s, "JSON parse error, premature end of input");
    }
    value_clear(s);
    s->state = JS_START;
}

void json_streamer_reset(JsonStreamer *s)
{
    value_clear(s);
    s->state = JS_START;
}
