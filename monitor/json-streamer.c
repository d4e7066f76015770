/*
 * JSON stream splitter, with QEMU's lexer semantics.
 *
 * The input is a sequence of JSON values (RFC 8259) separated by any
 * whitespace. This code only finds where each top-level value ends; it
 * tracks just enough to do so:
 *   - strings: '"' ... '"' with backslash escapes, and QEMU's extension,
 *     '\'' ... '\'' (where '"' needs no escape and "\'" is a quote); a
 *     value with those is emitted with plain JSON strings instead. A
 *     byte below 0x20, 0xFE or 0xFF inside a string is an error (JSON
 *     forbids raw control characters). Escapes are checked as QEMU's
 *     parser checks them, once the value is complete: an unknown one
 *     is "JSON parse error, invalid escape sequence in string", a \u
 *     without four hex digits "... \uXXXX is not a valid Unicode
 *     character"; the value is then dropped, with that one error;
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
 *     string, or 0xFE/0xFF anywhere: "JSON parse error, stray 'T'",
 *     where T is the token so far as QEMU's lexer has it: the string
 *     from its opening quote up to and with the bad byte, or the bad
 *     byte alone (raw bytes: the QMP writer shows what is not UTF-8 as
 *     \uFFFD). The partial value is dropped and, as QEMU's lexer does,
 *     bytes are skipped up to a structural character ({ } [ ] : ,), a
 *     control character other than tab (a newline), or 0xFE/0xFF. So a
 *     client can always get back in sync by sending a newline or 0xFF.
 *   - '}' ']' ':' ',' at top level: "JSON parse error, expecting value",
 *     QEMU's parser's words for a value that starts with them.
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
    JS_STRING,          /* quote is '"' or '\'' */
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
    GString *value;         /* text of the value being collected, raw */
    size_t depth;           /* open { and [ of that value */
    size_t tokens;
    bool discarding;        /* over a limit: track the value's end only */
    uint8_t quote;          /* of the string being read */
    size_t string_start;    /* its opening quote's offset in value */
    unsigned hex_left;      /* hex digits a \u still needs */
    size_t hex_at;          /* offset of that \u's 'u' in value */
    size_t bad_hex_at;      /* 'u' of the first bad \u, if first error */
    size_t bad_hex_end;     /* the end of its string */
    bool single_quoted;     /* the value has '...' strings or \' */
    char *bad;              /* first escape error of the value, or NULL */
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
        g_free(s->bad);
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
    s->single_quoted = false;
    s->bad_hex_at = 0;
    s->bad_hex_end = 0;
    g_clear_pointer(&s->bad, g_free);
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

/*
 * The value with its '...' strings as "..." ones: the quotes replaced,
 * a '"' inside escaped, "\'" unescaped (JSON has no such escape).
 */
static GString *value_to_json(const GString *value)
{
    GString *out = g_string_sized_new(value->len + 16);
    uint8_t quote = 0;

    for (size_t i = 0; i < value->len; i++) {
        uint8_t c = value->str[i];

        if (!quote) {
            if (c == '"' || c == '\'') {
                quote = c;
                c = '"';
            }
            g_string_append_c(out, c);
        } else if (c == '\\') {
            uint8_t e = value->str[++i];

            if (e != '\'') {
                g_string_append_c(out, '\\');
            }
            g_string_append_c(out, e);
        } else if (c == quote) {
            g_string_append_c(out, '"');
            quote = 0;
        } else {
            if (c == '"') {
                g_string_append_c(out, '\\');
            }
            g_string_append_c(out, c);
        }
    }
    return out;
}

static void value_end(JsonStreamer *s)
{
    if (s->discarding) {
        /* reported when the limit was crossed */
    } else if (s->bad) {
        emit_error(s, s->bad);
    } else if (s->bad_hex_at) {
        /* QEMU's parser quotes 4 bytes after the 'u', if its string has them. */
        char *msg = g_strdup_printf("JSON parse error, \\u%.*s is not a "
                                    "valid Unicode character",
                                    (int)MIN(4, s->bad_hex_end -
                                                s->bad_hex_at - 1),
                                    s->value->str + s->bad_hex_at + 1);

        emit_error(s, msg);
        g_free(msg);
    } else if (s->single_quoted) {
        GString *json = value_to_json(s->value);

        if (json->len > s->max_size) {
            emit_error(s, "JSON token size limit exceeded");
        } else {
            s->emit(s->opaque, json->str, json->len, NULL);
        }
        g_string_free(json, TRUE);
    } else {
        s->emit(s->opaque, s->value->str, s->value->len, NULL);
    }
    value_clear(s);
}

/* An escape error: the value goes on, then is reported instead. */
static void value_bad(JsonStreamer *s, char *msg)
{
    if (s->bad || s->bad_hex_at || s->discarding) {
        g_free(msg);
    } else {
        s->bad = msg;
    }
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

/*
 * A lexical error at byte c: "stray 'TOKEN'", the token being the
 * string read so far (raw) and c, or c alone between tokens.
 */
static void lex_error(JsonStreamer *s, uint8_t c)
{
    GString *msg = g_string_new("JSON parse error, stray '");

    if ((s->state == JS_STRING || s->state == JS_STRING_ESCAPE) &&
        !s->discarding) {
        g_string_append_len(msg, s->value->str + s->string_start,
                            s->value->len - s->string_start);
    }
    g_string_append_c(msg, c);
    g_string_append_c(msg, '\'');
    emit_error(s, msg->str);
    g_string_free(msg, TRUE);
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
            emit_error(s, "JSON parse error, expecting value");
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
            emit_error(s, "JSON parse error, expecting value");
            return;
        }
        token_start(s);
        store(s, c);
        return;
    case '\'':
        s->single_quoted = true;
        /* fall through */
    case '"':
        token_start(s);
        s->string_start = s->value->len;
        store(s, c);
        s->quote = c;
        s->hex_left = 0;
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

/*
 * Inside the four digits of a \u escape: a digit that is not hex makes
 * the value bad (reported at its end). A quote or backslash ends the
 * digits, as in QEMU's lexer.
 */
static void string_hex_digit(JsonStreamer *s, uint8_t c)
{
    s->hex_left--;
    if (!g_ascii_isxdigit(c) && !s->bad && !s->bad_hex_at) {
        s->bad_hex_at = s->hex_at;
    }
    if (c == s->quote || c == '\\') {
        s->hex_left = 0;
    }
}

/* The byte c, stored, inside a string. */
static void string_char(JsonStreamer *s, uint8_t c)
{
    if (s->hex_left) {
        string_hex_digit(s, c);
        if (s->hex_left) {
            return;
        }
        if (c != s->quote && c != '\\') {
            return;
        }
    }
    if (c == '\\') {
        s->state = JS_STRING_ESCAPE;
    } else if (c == s->quote) {
        s->state = JS_START;
        if (s->bad_hex_at && !s->bad_hex_end) {
            s->bad_hex_end = s->value->len;
        }
        if (!s->depth) {
            value_end(s);
        }
    }
}

/* The byte c, stored, after a backslash. */
static void string_escape(JsonStreamer *s, uint8_t c)
{
    s->state = JS_STRING;
    if (c == 'u') {
        s->hex_left = 4;
        s->hex_at = s->value->len - 1;
    } else if (c == '\'') {
        s->single_quoted = true;
    } else if (!strchr("\"\\/bfnrt", c)) {
        value_bad(s, g_strdup("JSON parse error, invalid escape sequence "
                              "in string"));
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
            string_char(s, c);
            return;
        case JS_STRING_ESCAPE:
            if (c < 0x20 || c >= 0xfe) {
                lex_error(s, c);
                return;
            }
            store(s, c);
            string_escape(s, c);
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
