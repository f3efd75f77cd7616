/* FIX 4.4 tag=value codec: framer, parser, field accessors, repeating groups, builder.
 *
 * Framer   in:  arbitrary chunks of the TCP byte stream (fix_framer_feed).
 *          out: one complete, validated message at a time (fix_framer_next): starts with "8=FIX",
 *               BodyLength (9) matches, CheckSum (10) matches. Garbage before "8=FIX" is skipped;
 *               a frame with a bad BodyLength/CheckSum/header is dropped and counted (never delivered);
 *               A message longer than FIX_MAX_MSG_LEN (up to FIX_MAX_LONG_MSG_LEN) is not kept whole: its
 *               first FIX_MAX_MSG_LEN bytes are, the rest is summed and skipped as it arrives, and once its
 *               CheckSum is checked it is delivered as FIX_FRAME_TOO_LONG with the whole fields of those first
 *               bytes (the header: MsgType, MsgSeqNum, CompIDs), so that the session can answer it and count its
 *               MsgSeqNum instead of losing it. A BodyLength announcing more than FIX_MAX_LONG_MSG_LEN is garbled.
 * Stream   in:  chunks of the TCP byte stream, where they lie (fix_stream_next).
 *          out: one complete, validated, parsed message at a time, parsed in place in the chunk (no copy);
 *               only a message that straddles two chunks is gathered in the stream's buffer. Same rules
 *               as the framer (garbage skipped, bad 9/10/header dropped and counted, a message longer than
 *               FIX_MAX_MSG_LEN delivered as FIX_FRAME_TOO_LONG whatever the chunks, no huge buffering).
 *               One pass over the bytes: the CheckSum is summed while the fields are tokenised.
 * Parser   in:  one framed message.  out: fix_msg_t, an array of (tag, pointer to value, length)
 *               pointing into the framed bytes (valid until the next fix_framer_next/feed), the index of
 *               the first occurrence of each tag the engine reads (O(1) lookups, set as the fields are
 *               tokenised: no per-message clearing) and which of those occur twice (a bitmask).
 * Builder  in:  a caller buffer and fields.  out: a complete message with BodyLength and CheckSum.
 * Numbers: integers are int64; prices/quantities are fixed-point int64 with `decimals` implied
 * decimals (1170.25 with 4 decimals is 11702500), accumulated in 32 bits while the value fits (64-bit
 * arithmetic only past 9 digits). No floating point anywhere, no 64-bit division.
 */
#ifndef TF_FIX_CODEC_H
#define TF_FIX_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hints.h"

/* ---- Documented limits (override with -D) ---- */
#ifndef FIX_MAX_MSG_LEN
#define FIX_MAX_MSG_LEN 1024 /* largest whole message accepted or built, bytes 8=...10=ccc| */
#endif
#ifndef FIX_MAX_LONG_MSG_LEN
#define FIX_MAX_LONG_MSG_LEN 65535 /* longest message checked and skipped as FIX_FRAME_TOO_LONG; longer: garbled */
#endif
#ifndef FIX_MAX_FIELDS
#define FIX_MAX_FIELDS 64 /* fields kept in fix_msg_t.f, indexed (including 8, 9 and 10); a message may have more:
                           * they are validated and reached by walking (fix_cursor_t) */
#endif
#ifndef FIX_MAX_LATE
#define FIX_MAX_LATE 8 /* first occurrences of indexed tags (FIX_SLOT_*) past the kept fields, kept aside */
#endif
#define FIX_MAX_DECIMALS 9       /* implied decimals supported by the fixed-point helpers */
#define FIX_MAX_BEGINSTR_LEN 16  /* longest BeginString value the framer accepts */
#define FIX_MAX_BODYLEN_DIGITS 9 /* zero-padded BodyLength up to this many digits */

#define FIX_SOH '\x01'
#define FIX_BEGIN_STRING "FIX.4.4"

/* ---- Result codes of accessors ---- */
enum {
    FIX_OK = 0,
    FIX_E_MISSING = -1, /* tag not present */
    FIX_E_FORMAT = -2,  /* value does not parse (373=6) */
    FIX_E_RANGE = -3,   /* overflow, or more decimals than configured */
    FIX_E_GROUP = -4,   /* NumInGroup does not match the entries (373=16) */
    FIX_E_FULL = -5,    /* no space (builder, tables) */
};

/* ---- Framer ---- */
typedef enum {
    FIX_FRAME_NEED_MORE = 0, /* no complete message buffered: feed more bytes */
    FIX_FRAME_OK = 1,        /* msg and len hold one validated message */
    FIX_FRAME_GARBLED = 2,   /* a frame was dropped (bad 9/10/header); call again */
    FIX_FRAME_TOO_LONG = 3,  /* a message longer than FIX_MAX_MSG_LEN, its BodyLength and CheckSum right, was skipped:
                              * what is delivered is its first FIX_MAX_MSG_LEN bytes up to their last SOH */
} fix_frame_res_t;

/* A message longer than the buffer, being skipped: its first bytes stay in the buffer, the rest is summed. */
typedef struct {
    uint32_t left;   /* bytes still to come */
    uint32_t sum;    /* of every byte so far */
    uint8_t tail[8]; /* its last 8 bytes as they come: SOH 1 0 = d d d SOH */
    bool done;       /* every byte taken, the result not yet returned */
} fix_skip_t;

typedef struct {
    uint8_t buf[FIX_MAX_MSG_LEN];
    size_t len;       /* bytes held */
    size_t consumed;  /* length of the message last returned; dropped on the next call */
    uint32_t garbled; /* frames dropped so far */
    uint32_t skipped; /* garbage bytes skipped while looking for "8=FIX" */
    fix_skip_t skip;
} fix_framer_t;

void fix_framer_init(fix_framer_t *f);
/* Copies as much of data as fits; returns bytes taken (0 only when the buffer holds a pending
 * message or is full: call fix_framer_next until NEED_MORE, then feed the rest). */
size_t fix_framer_feed(fix_framer_t *f, const uint8_t *data, size_t len);
/* One message (FIX_FRAME_OK: msg, len), or FIX_FRAME_TOO_LONG (msg, len: the first FIX_MAX_MSG_LEN bytes of a valid
 * longer message, up to their last SOH), FIX_FRAME_GARBLED or FIX_FRAME_NEED_MORE. */
fix_frame_res_t fix_framer_next(fix_framer_t *f, const uint8_t **msg, size_t *len);

/* ---- Parser ---- */
typedef struct {
    uint32_t tag;
    uint16_t len;
    const char *val; /* not NUL-terminated */
} fix_field_t;

/* Parse errors, first one kept in fix_msg_t.err (the parser carries on where it can). */
enum {
    FIX_PERR_NONE = 0,
    FIX_PERR_BAD_TAG,         /* tag not a positive number, or no '=' (373=0) */
    FIX_PERR_EMPTY_VALUE,     /* tag= with no value (373=4) */
    FIX_PERR_TRUNCATED,       /* last field not ended by SOH */
    FIX_PERR_CHECKSUM_NOT_LAST, /* a CheckSum (10) field before the last field: the frame is garbled (test case
                                 * 3.d); overrides any other error */
};

/* Tags with an O(1) index in fix_msg_t (the ones the session and the application read). The first
 * FIX_SLOT_ONCE_N are the tags the session requires at most once, in the order it checks them. */
enum {
    FIX_SLOT_34, FIX_SLOT_35, FIX_SLOT_43, FIX_SLOT_49, FIX_SLOT_52, FIX_SLOT_56, FIX_SLOT_97, FIX_SLOT_122,
    FIX_SLOT_ONCE_N,
    FIX_SLOT_6 = FIX_SLOT_ONCE_N, FIX_SLOT_7, FIX_SLOT_11, FIX_SLOT_14, FIX_SLOT_16, FIX_SLOT_17, FIX_SLOT_31,
    FIX_SLOT_32, FIX_SLOT_36, FIX_SLOT_37, FIX_SLOT_39, FIX_SLOT_41, FIX_SLOT_45, FIX_SLOT_54, FIX_SLOT_55,
    FIX_SLOT_58, FIX_SLOT_98, FIX_SLOT_108, FIX_SLOT_112, FIX_SLOT_123, FIX_SLOT_150, FIX_SLOT_151,
    FIX_SLOT_262, FIX_SLOT_268, FIX_SLOT_281, FIX_SLOT_434,
    FIX_SLOTS
};
_Static_assert(FIX_SLOT_ONCE_N <= 32, "duplicate bits are one word");
_Static_assert(FIX_MAX_FIELDS + FIX_MAX_LATE <= 255, "slot indexes are bytes");

typedef struct {
    fix_field_t f[FIX_MAX_FIELDS];
    uint16_t n;       /* fields kept in f (the first FIX_MAX_FIELDS) */
    uint16_t n_rest;  /* fields past them: validated, counted, walked by a cursor */
    const uint8_t *rest; /* first byte of the first field not kept, NULL when every field is kept */
    /* Of the fields past the kept ones, the first occurrences of indexed tags (the session's and the application's:
     * a Symbol after a long group), up to FIX_MAX_LATE, so that fix_msg_get finds them; other tags past the kept
     * fields are reached by walking only. */
    fix_field_t late[FIX_MAX_LATE];
    uint8_t n_late;
    uint8_t err;      /* FIX_PERR_* */
    uint32_t err_tag; /* tag concerned by err, when known */
    const uint8_t *raw;
    size_t raw_len;
    uint32_t sum;     /* sum of every byte parsed (the CheckSum is this minus the trailer's bytes) */
    uint32_t dup;     /* bit k (k < 32): the tag of slot k occurs more than once */
    uint8_t idx[FIX_SLOTS]; /* field index of the first occurrence of slot k's tag, valid only if
                             * idx < n and f[idx].tag is that tag, or FIX_MAX_FIELDS + i with i < n_late and
                             * late[i].tag that tag (stale values from earlier messages fail that test, so
                             * nothing is cleared per message) */
} fix_msg_t;

/* Splits buf into fields. Returns FIX_OK or FIX_E_FORMAT (see m->err). Every field is validated; the first
 * FIX_MAX_FIELDS are kept in m->f and indexed, the rest are counted (m->n_rest), their indexed tags' first
 * occurrences kept in m->late, and marked as duplicates when the session's tags recur among them (fix_msg_dup). A
 * message with more fields is not an error: a 35=W with many entries is valid market data, and its group is walked
 * with a cursor. */
int fix_parse(fix_msg_t *m, const uint8_t *buf, size_t len);

/* A position in a parsed message's fields, kept or not: walks past the first FIX_MAX_FIELDS by reading the
 * message's bytes (which the parse validated). */
typedef struct {
    unsigned i;         /* field index */
    const uint8_t *p;   /* past the kept fields: the field's first byte */
    fix_field_t f;      /* past the kept fields: the field, once fix_cursor_get read it */
} fix_cursor_t;
/* A cursor on field i (i <= m->n). */
static inline fix_cursor_t fix_cursor_at(const fix_msg_t *m, unsigned i)
{
    fix_cursor_t c = {i, i >= m->n ? m->rest : NULL, {0, 0, NULL}};
    return c;
}
const fix_field_t *fix_cursor_get_rest(const fix_msg_t *m, fix_cursor_t *c);
/* The field at c, NULL past the last one (the pointer is valid until c moves). */
static inline const fix_field_t *fix_cursor_get(const fix_msg_t *m, fix_cursor_t *c)
{
    return c->i < m->n ? &m->f[c->i] : fix_cursor_get_rest(m, c);
}
const fix_field_t *fix_cursor_next_rest(const fix_msg_t *m, fix_cursor_t *c);
/* Moves c to the next field (c must be on a field: fix_cursor_get was not NULL) and returns it, as fix_cursor_get
 * would (a walk reads each field once; among the kept fields, no call). */
static inline const fix_field_t *fix_cursor_next(const fix_msg_t *m, fix_cursor_t *c)
{
    return c->i + 1 < m->n ? &m->f[++c->i] : fix_cursor_next_rest(m, c);
}
/* The slot of tag (FIX_SLOT_*), or -1 for a tag without one. */
int fix_tag_slot(uint32_t tag);
/* True when the tag of slot k (< 32) occurs more than once in m. */
static inline bool fix_msg_dup(const fix_msg_t *m, int slot) { return (m->dup >> slot) & 1u; }

/* ---- Stream (zero-copy framing + parsing, see the top of this file) ---- */
typedef struct {
    uint8_t buf[FIX_MAX_MSG_LEN]; /* a message that straddles chunks, gathered */
    size_t len;                   /* bytes held in buf */
    size_t consumed;              /* length of the message last returned from buf; dropped on the next call */
    uint32_t garbled;             /* frames dropped so far */
    uint32_t skipped;             /* garbage bytes skipped while looking for "8=FIX" */
    fix_skip_t skip;              /* the rest of a message longer than buf */
} fix_stream_t;

void fix_stream_init(fix_stream_t *st);
/* Takes bytes from *data, *len (advancing them past what it consumed) until one message is complete and
 * valid, then parses it into m: FIX_FRAME_OK (m's fields point into the chunk or into st->buf, valid until
 * the next call). FIX_FRAME_GARBLED: a frame was dropped; call again. FIX_FRAME_NEED_MORE: the chunk is used
 * up (a partial message is kept). FIX_FRAME_TOO_LONG: a valid message longer than FIX_MAX_MSG_LEN was skipped; m
 * holds the fields of its first FIX_MAX_MSG_LEN bytes (m->raw_len: up to their last SOH). */
fix_frame_res_t fix_stream_next(fix_stream_t *st, const uint8_t **data, size_t *len, fix_msg_t *m);
/* Drops the partial message kept (the next byte given starts a new search for "8=FIX"); returns the bytes dropped. */
size_t fix_stream_drop_partial(fix_stream_t *st);

/* ---- Accessors (first occurrence of a tag; past the kept fields, an indexed tag's among m->late) ---- */
const fix_field_t *fix_msg_get(const fix_msg_t *m, uint32_t tag);
/* fix_msg_get(m, TAG) for a tag with a slot (FIX_SLOT_<TAG>), the receive path's reads of the header and the market
 * data's tags: where the RAM has room (TF_MEM_WORDS, fw/Makefile) a kept field is found in line by its slot, without
 * the call and the slot's hash multiply (a tag past the kept fields through fix_msg_get). */
#if TF_MEM_WORDS
static inline __attribute__((always_inline)) const fix_field_t *fix_msg_slot(const fix_msg_t *m, unsigned slot,
                                                                           uint32_t tag)
{
    unsigned j = m->idx[slot];
    if (j < m->n) return m->f[j].tag == tag ? &m->f[j] : NULL;
    return fix_msg_get(m, tag);
}
#define FIX_MSG_GET_SLOT(m, TAG) fix_msg_slot(m, FIX_SLOT_##TAG, TAG)
#else
#define FIX_MSG_GET_SLOT(m, TAG) fix_msg_get(m, TAG)
#endif
int fix_msg_get_int(const fix_msg_t *m, uint32_t tag, int64_t *out);
/* Unsigned 32-bit value (sequence numbers, counts): FIX_E_FORMAT not an integer, FIX_E_RANGE negative or too big. */
int fix_msg_get_u32(const fix_msg_t *m, uint32_t tag, uint32_t *out);
int fix_parse_u32(const char *s, size_t n, uint32_t *out);
int fix_msg_get_decimal(const fix_msg_t *m, uint32_t tag, unsigned decimals, int64_t *out);
/* Copies the value NUL-terminated into out; FIX_E_RANGE if it does not fit in cap-1 chars. */
int fix_msg_get_str(const fix_msg_t *m, uint32_t tag, char *out, size_t cap);
/* The single-character value of tag, or 0 if missing or longer than one char. */
char fix_msg_get_char(const fix_msg_t *m, uint32_t tag);
/* True if the field exists and its value equals the NUL-terminated s. */
bool fix_field_eq(const fix_field_t *f, const char *s);
/* The same for s of n bytes (no NUL among them), its length known: the length compared first, then the bytes, no
 * test per byte (the session's BeginString and CompIDs, every message). Where the RAM has room (TF_MEM_WORDS,
 * fw/Makefile); fix_field_eq elsewhere (80 bytes less code). */
#if TF_MEM_WORDS
bool fix_field_eq_n(const fix_field_t *f, const char *s, size_t n);
#else
#define fix_field_eq_n(f, s, n) fix_field_eq(f, s)
#endif
bool fix_msg_is_type(const fix_msg_t *m, const char *msg_type);
/* The first field with tag of a serialized message (tag=value fields, each ended by SOH), without a fix_msg_t: its
 * value into *out and, if index is not NULL, its position among the fields into *index. The whole message is walked
 * and refused as fix_parse refuses one: FIX_E_FORMAT (a bad tag, an empty value, an unterminated field, CheckSum not
 * last); FIX_E_MISSING when it is well formed and has no such field. */
int fix_raw_get(const uint8_t *p, size_t len, uint32_t tag, fix_field_t *out, unsigned *index);
/* The same for ntags distinct tags in one walk: out[k] (and index[k]) for tags[k]; FIX_E_MISSING unless all are there. */
int fix_raw_get_tags(const uint8_t *p, size_t len, unsigned ntags, const uint32_t *tags, fix_field_t *out,
                     unsigned *index);
/* Number of occurrences of tag (among every field, kept or not). */
unsigned fix_msg_count(const fix_msg_t *m, uint32_t tag);

/* Value parsers: optional '-', digits (leading zeros allowed). Decimal: digits[.digits]; more
 * fractional digits than `decimals` is FIX_E_RANGE unless the extra digits are all zeros. */
int fix_parse_int(const char *s, size_t n, int64_t *out);
int fix_parse_decimal(const char *s, size_t n, unsigned decimals, int64_t *out);
/* The same numbers, never refused for their size: the floor of the value at `decimals` (nonzero digits past
 * them dropped), a magnitude past INT64_MAX held there; *inexact is set when that changed the value (then the
 * number lies strictly between *out and *out + 1). Format errors as fix_parse_decimal. For market data, where a
 * price is compared exactly (see fix_md_entry_t) and valid data must never be refused. */
int fix_parse_decimal_trunc(const char *s, size_t n, unsigned decimals, int64_t *out, bool *inexact);

/* 10^k for k <= FIX_MAX_DECIMALS. */
extern const uint32_t fix_pow10_tab[FIX_MAX_DECIMALS + 1];
/* fix_parse_decimal's common number in line (market data's prices and sizes, where the call and its checks cost as
 * much as the digits): digits and at most one '.', 1 to 9 digits, at most `decimals` (<= FIX_MAX_DECIMALS) after the
 * '.'. True with the value in *out, as fix_parse_decimal gives it; false for anything else (*out may be written),
 * which the caller hands to fix_parse_decimal or fix_parse_decimal_trunc. Each byte's test two instructions after its
 * load, the multiply issued before the load (its result is not ready for the next two instructions). */
static inline __attribute__((always_inline)) bool fix_parse_decimal_short(const char *s, size_t n, unsigned decimals,
                                                                         int64_t *out)
{
    if (n - 1 >= FIX_MAX_DECIMALS + 1) return false;
    const uint8_t *p = (const uint8_t *)s, *e = p + n, *dot = NULL;
    uint32_t v = 0;
    do {
        uint32_t v10 = MUL_EARLY(v * 10u);
        uint32_t c = *p++;
        uint32_t d = c - '0';
        if (d <= 9) v = v10 + d;
        else if (c == '.' && !dot) dot = p;
        else return false;
    } while (p < e);
    size_t frac = dot ? (size_t)(e - dot) : 0;
    if (n - (dot != NULL) - 1 >= 9 || frac > decimals) return false;
    *out = frac == decimals ? (int64_t)v : (int64_t)((uint64_t)v * fix_pow10_tab[decimals - frac]);
    return true;
}

/* fix_parse_u32's common number in line (MsgSeqNum, MDEntryPositionNo): 1 to 9 digits, nothing else. True with the
 * value in *out; false for anything else (*out not written), which fix_parse_u32 takes whole. */
static inline __attribute__((always_inline)) bool fix_parse_u32_short(const char *s, size_t n, uint32_t *out)
{
    if (n - 1 >= 9) return false;
    const uint8_t *p = (const uint8_t *)s, *e = p + n;
    uint32_t v = 0;
    do {
        uint32_t v10 = MUL_EARLY(v * 10u);
        uint32_t d = (uint32_t)*p++ - '0';
        if (d > 9) return false;
        v = v10 + d;
    } while (p < e);
    *out = v;
    return true;
}

/* ---- Repeating groups ----
 * A group is the NumInGroup tag followed by entries; every entry starts with the delimiter tag
 * and holds only member tags (the delimiter must be in members too). */
typedef struct {
    const fix_msg_t *m;
    const uint32_t *members;
    size_t n_members;
    uint32_t delim;
    uint32_t count;  /* NumInGroup value */
    uint16_t begin;  /* field index range [begin, end) of the current entry */
    uint16_t end;
    uint16_t next;   /* field index where the next entry starts */
    uint16_t stop;   /* field index just after the group */
} fix_group_t;

/* FIX_OK (also when the count tag is absent: count 0), FIX_E_FORMAT, FIX_E_GROUP. */
int fix_group_open(fix_group_t *g, const fix_msg_t *m, uint32_t count_tag, uint32_t delim,
                   const uint32_t *members, size_t n_members);
/* Moves to the next entry; false when there is none. */
bool fix_group_next(fix_group_t *g);
const fix_field_t *fix_group_get(const fix_group_t *g, uint32_t tag);
int fix_group_get_decimal(const fix_group_t *g, uint32_t tag, unsigned decimals, int64_t *out);

/* ---- Builder ---- */
typedef struct {
    uint8_t *buf;
    size_t cap;
    size_t len;
    size_t body_start; /* first byte counted by BodyLength */
    bool overflow;
} fix_builder_t;

/* Writes "8=FIX.4.4|9=<placeholder>|35=<msg_type>|". */
void fix_build_begin(fix_builder_t *b, uint8_t *buf, size_t cap, const char *msg_type);
void fix_build_strn(fix_builder_t *b, uint32_t tag, const char *s, size_t n);
void fix_build_str(fix_builder_t *b, uint32_t tag, const char *s);
void fix_build_char(fix_builder_t *b, uint32_t tag, char c);
void fix_build_uint(fix_builder_t *b, uint32_t tag, uint64_t v);
void fix_build_int(fix_builder_t *b, uint32_t tag, int64_t v);
/* Zero-padded to width digits (e.g. 34=000042), for fields patched later in place. */
void fix_build_uint_padded(fix_builder_t *b, uint32_t tag, uint32_t v, unsigned width);
void fix_build_decimal(fix_builder_t *b, uint32_t tag, int64_t v, unsigned decimals);
void fix_build_utc(fix_builder_t *b, uint32_t tag, uint64_t epoch_ms);
/* Appends pre-formatted "tag=value|" bytes. */
void fix_build_raw(fix_builder_t *b, const void *p, size_t n);
/* Fills BodyLength (minimal digits) and appends 10=ccc|. Returns the message length, 0 on overflow. */
size_t fix_build_end(fix_builder_t *b);

/* ---- Small helpers ---- */
uint8_t fix_checksum(const uint8_t *p, size_t n);
/* Decimal digits of v into out (no NUL), returns the count (at most 20). 32-bit fast path. */
size_t fix_fmt_uint(char *out, uint64_t v);
/* Fixed-point v with `decimals` implied decimals, trailing fractional zeros trimmed
 * ("1170.25", "-3", "0.5"). Returns chars written (at most 22). */
size_t fix_fmt_decimal(char *out, int64_t v, unsigned decimals);

#endif
