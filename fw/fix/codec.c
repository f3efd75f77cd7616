/* FIX 4.4 codec: framer, parser, accessors, groups, builder (see codec.h for what goes in and out). */
#include "fix/codec.h"

#include <string.h>

#include "fix/utc.h"
#include "lib/udiv.h"

/* The receive hot path is built for speed (loops rotated so the backward branch is the predicted one, no
 * shared register save/restore calls, loop heads on a 32-bit word so that a turn of a byte loop never fetches an
 * instruction split across two words: the CPU runs compressed code); the rest of the file for size. */
#define HOT __attribute__((optimize("O2", "align-loops=4")))

/* All limits below are compile-time constants: no 64-bit division at run time in the parsers
 * (RV32IM would call libgcc's __udivdi3 for every digit). */
const uint32_t fix_pow10_tab[FIX_MAX_DECIMALS + 1] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
};
#define I64_MAX_U ((uint64_t)INT64_MAX)
static const uint64_t max_before_scale[FIX_MAX_DECIMALS + 1] = {
    I64_MAX_U,         I64_MAX_U / 10u,       I64_MAX_U / 100u,       I64_MAX_U / 1000u,       I64_MAX_U / 10000u,
    I64_MAX_U / 100000u, I64_MAX_U / 1000000u, I64_MAX_U / 10000000u, I64_MAX_U / 100000000u, I64_MAX_U / 1000000000u,
};

/* v * 10 + d without passing INT64_MAX. */
static bool mul10_add(uint64_t *v, uint32_t d)
{
    if (*v > I64_MAX_U / 10u || (*v == I64_MAX_U / 10u && d > (uint32_t)(I64_MAX_U % 10u))) return false;
    *v = *v * 10u + d;
    return true;
}

/* The bytes up to a word boundary one at a time, then whole words: a word's four bytes summed in two 16-bit lanes
 * (bytes 0 and 2 in one word of lanes, 1 and 3 in the other: at most 2 x 255 a word into a lane, so 128 words fit
 * before a lane is folded), then the tail. About half the instructions of a byte loop (the builder sums every
 * message it sends, the engine's templates are summed when built). */
uint8_t fix_checksum(const uint8_t *p, size_t n)
{
    typedef uint32_t __attribute__((may_alias)) word_t;
    uint32_t sum = 0;
    while (n && ((uintptr_t)p & 3u)) {
        sum += *p++;
        n--;
    }
    while (n >= 4) {
        size_t k = n / 4 < 128 ? n / 4 : 128;
        uint32_t lanes = 0;
        n -= 4 * k;
        for (; k; k--, p += 4) {
            uint32_t w = *(const word_t *)p;
            lanes += (w & 0x00FF00FFu) + ((w >> 8) & 0x00FF00FFu);
        }
        sum += (lanes & 0xFFFFu) + (lanes >> 16);
    }
    while (n--) sum += *p++;
    return (uint8_t)sum;
}

/* ================= Framer ================= */

static const char sync_pat[] = "8=FIX";
#define SYNC_LEN 5

void fix_framer_init(fix_framer_t *f)
{
    f->len = 0;
    f->consumed = 0;
    f->garbled = 0;
    f->skipped = 0;
    f->skip.left = 0;
    f->skip.done = false;
}

static void framer_drop(fix_framer_t *f, size_t n)
{
    if (n >= f->len) {
        f->len = 0;
        return;
    }
    memmove(f->buf, f->buf + n, f->len - n);
    f->len -= n;
}

static size_t skip_take(fix_skip_t *k, const uint8_t *p, size_t n) __attribute__((noinline));

size_t fix_framer_feed(fix_framer_t *f, const uint8_t *data, size_t len)
{
    if (f->consumed) {
        framer_drop(f, f->consumed);
        f->consumed = 0;
    }
    if (f->skip.left) return skip_take(&f->skip, data, len);
    size_t room = sizeof f->buf - f->len;
    size_t n = len < room ? len : room;
    memcpy(f->buf + f->len, data, n);
    f->len += n;
    return n;
}

/* Drops bytes from `from` on until the buffer starts with (a prefix of) "8=FIX". */
static void framer_resync(fix_framer_t *f, size_t from)
{
    size_t i = from;
    for (; i < f->len; i++) {
        if (f->buf[i] != '8') continue;
        size_t avail = f->len - i;
        size_t k = avail < SYNC_LEN ? avail : SYNC_LEN;
        if (memcmp(f->buf + i, sync_pat, k) == 0) break;
    }
    f->skipped += (uint32_t)(i - from); /* with from == 1, byte 0 belongs to a dropped frame */
    framer_drop(f, i);
}

/* What frame_header (or header44) read: the whole frame's length and, where the RAM has room (TF_MEM_WORDS) and
 * header44 read it, where the header's two fields are, so that frame_parse does not tokenise them again. */
typedef struct {
    size_t total;    /* the whole frame (through 10=ccc|) */
#if TF_MEM_WORDS
    uint32_t body;   /* 16, the body's first byte after 8=FIX.4.4|9=ddd|; 0: that header was not read at its places */
    uint32_t sum;    /* of the bytes before the body */
#endif
} frame_hdr_t;

#if TF_MEM_WORDS
/* 8=FIX.4.4|9=ddd| (every message of a FIX 4.4 session up to 999 bytes of body) read at its places where the RAM has
 * room (fw/Makefile), and summed for frame_parse: frame_header's loops cost about 110 cycles a message. True with *h
 * filled in; false for anything else, which frame_header reads. In line in the stream's in-place path, before the
 * resynchronisation and frame_header's call: 4,627..4,667 -> 4,587..4,616 cycles a 35=W (sim/tests/run.sh w_cost,
 * profiling build, three runs each, one session). A message gathered across chunks takes frame_header. */
static inline __attribute__((always_inline)) bool header44(const uint8_t *b, size_t n, frame_hdr_t *h)
{
    if (n > 16 && b[0] == '8' && b[1] == '=' && b[2] == 'F' && b[3] == 'I' && b[4] == 'X' && b[5] == '.' &&
        b[6] == '4' && b[7] == '.' && b[8] == '4' && b[9] == FIX_SOH && b[10] == '9' && b[11] == '=' &&
        b[15] == FIX_SOH) {
        uint32_t c0 = b[12], c1 = b[13], c2 = b[14];
        uint32_t d0 = c0 - '0', d1 = c1 - '0', d2 = c2 - '0';
        uint32_t bl = d0 * 100u + d1 * 10u + d2;
        if (d0 <= 9 && d1 <= 9 && d2 <= 9 && bl) {
            h->body = 16;
            h->sum = '8' + '=' + 'F' + 'I' + 'X' + '.' + '4' + '.' + '4' + FIX_SOH + '9' + '=' + FIX_SOH + c0 + c1 + c2;
            h->total = 16 + bl + 7;
            return true;
        }
    }
    return false;
}
#endif

/* The frame header at b (which starts with a prefix of "8=FIX"): 8=<BeginString>|9=<BodyLength>|.
 * FIX_FRAME_OK with h->total the whole frame's length (through 10=ccc|) once the header is complete (the rest
 * of the frame may still be missing), FIX_FRAME_NEED_MORE while the header is incomplete, FIX_FRAME_GARBLED
 * for a header no valid frame has. */
HOT static fix_frame_res_t frame_header(const uint8_t *b, size_t n, frame_hdr_t *h)
{
    if (n < SYNC_LEN) return FIX_FRAME_NEED_MORE;
    size_t i = 2;
#if TF_MEM_WORDS
    h->body = 0; /* (the usual header is read by header44, in the stream's in-place path) */
    if (n > 9 && b[5] == '.' && b[6] == '4' && b[7] == '.' && b[8] == '4' && b[9] == FIX_SOH) i = 9; /* (no loop) */
#endif
    /* BeginString value up to SOH */
    while (i < n && b[i] != FIX_SOH && i - 2 <= FIX_MAX_BEGINSTR_LEN) i++;
    if (i - 2 > FIX_MAX_BEGINSTR_LEN) return FIX_FRAME_GARBLED;
    if (i >= n) return FIX_FRAME_NEED_MORE;
    i++; /* SOH */
    if (n < i + 2) return FIX_FRAME_NEED_MORE;
    if (b[i] != '9' || b[i + 1] != '=') return FIX_FRAME_GARBLED;
    i += 2;
    uint32_t body_len = 0, nd = 0;
    while (i < n && b[i] != FIX_SOH) {
        if (b[i] < '0' || b[i] > '9' || ++nd > FIX_MAX_BODYLEN_DIGITS) return FIX_FRAME_GARBLED;
        body_len = body_len * 10u + (uint32_t)(b[i] - '0');
        i++;
    }
    if (i >= n) return FIX_FRAME_NEED_MORE;
    if (nd == 0 || body_len == 0 || body_len > FIX_MAX_LONG_MSG_LEN) return FIX_FRAME_GARBLED;
    i++; /* SOH after BodyLength: the body starts here */
    h->total = i + body_len + 7; /* 10=ccc| */
    if (h->total > FIX_MAX_LONG_MSG_LEN) return FIX_FRAME_GARBLED;
    return FIX_FRAME_OK;
}

/* The trailer of a whole frame: SOH, then 10=ccc| with ccc the sum of every byte before "10=" modulo 256
 * (sum_all: the sum of all total bytes, trailer included). */
HOT static bool frame_trailer_ok(const uint8_t *b, size_t total, uint32_t sum_all)
{
    size_t t = total - 7;
    if (b[t - 1] != FIX_SOH || b[t] != '1' || b[t + 1] != '0' || b[t + 2] != '=' || b[t + 6] != FIX_SOH) return false;
    unsigned cs = 0;
    for (size_t k = 3; k < 6; k++) {
        unsigned d = (unsigned)b[t + k] - '0';
        if (d > 9) return false;
        cs = cs * 10u + d;
        sum_all -= b[t + k];
    }
    sum_all -= '1' + '0' + '=' + FIX_SOH;
    return cs == (sum_all & 0xFFu);
}

/* A CheckSum field (tag 10, leading zeros or not, as the parser reads tags) in b[0..t0) after its first field. */
static bool has_checksum_field(const uint8_t *b, size_t t0)
{
    for (size_t k = 0; k + 1 < t0; k++) {
        if (b[k] != FIX_SOH) continue;
        size_t j = k + 1;
        uint32_t tag = 0;
        bool bad = false;
        for (; j < t0 && b[j] != '=' && b[j] != FIX_SOH; j++) {
            uint32_t d = (uint32_t)b[j] - '0';
            if (d > 9 || tag > 99999999u) bad = true;
            else tag = tag * 10u + d;
        }
        if (!bad && j > k + 1 && j < t0 && b[j] == '=' && tag == 10) return true;
    }
    return false;
}

/* ---- A message longer than the buffer (the framer's and the stream's): its first held bytes are in the buffer,
 * the rest is taken by skip_take, then skip_end checks its trailer (with the sum of all its bytes); *lim: those
 * first bytes up to their last SOH, what is delivered. (Out of line and small: a rare path, the stream's RAM is full.) */
#define COLD __attribute__((noinline))
COLD static void skip_begin(fix_skip_t *k, const uint8_t *b, size_t held, size_t total)
{
    k->left = (uint32_t)(total - held);
    k->sum = fix_checksum(b, held);
    k->done = false;
    for (uint32_t r = k->left + 1; r <= 8; r++) k->tail[8 - r] = b[held - (r - k->left)]; /* r: bytes left from it */
}

COLD static size_t skip_take(fix_skip_t *k, const uint8_t *p, size_t n)
{
    if (n > k->left) n = k->left;
    for (size_t i = 0; i < n; i++) {
        uint32_t r = k->left - (uint32_t)i;
        if (r <= 8) k->tail[8 - r] = p[i];
        k->sum += p[i];
    }
    k->left -= (uint32_t)n;
    k->done = k->left == 0;
    return n;
}

COLD static bool skip_end(fix_skip_t *k, const uint8_t *b, size_t held, size_t *lim)
{
    k->done = false;
    size_t l = held;
    while (l && b[l - 1] != FIX_SOH) l--;
    *lim = l;
    return frame_trailer_ok(k->tail, 8, k->sum);
}

fix_frame_res_t fix_framer_next(fix_framer_t *f, const uint8_t **msg, size_t *len)
{
    if (f->consumed) {
        framer_drop(f, f->consumed);
        f->consumed = 0;
    }
    if (f->skip.left) return FIX_FRAME_NEED_MORE;
    if (f->skip.done) { /* the whole buffer belongs to the message skipped */
        f->consumed = f->len;
        if (!skip_end(&f->skip, f->buf, f->len, len)) {
            f->garbled++;
            return FIX_FRAME_GARBLED;
        }
        *msg = f->buf;
        return FIX_FRAME_TOO_LONG;
    }
    framer_resync(f, 0);
    frame_hdr_t hd;
    fix_frame_res_t h = frame_header(f->buf, f->len, &hd);
    if (h == FIX_FRAME_NEED_MORE) return h;
    if (h == FIX_FRAME_GARBLED) goto garbled;
    size_t total = hd.total;
    if (total > sizeof f->buf) { /* too long: the buffer full of its first bytes, then the rest skipped */
        if (f->len == sizeof f->buf) skip_begin(&f->skip, f->buf, f->len, total);
        return FIX_FRAME_NEED_MORE;
    }
    if (f->len < total) return FIX_FRAME_NEED_MORE;
    if (!frame_trailer_ok(f->buf, total, fix_checksum(f->buf, total))) goto garbled;
    /* A CheckSum field before the trailer: garbled (3.d). */
    if (has_checksum_field(f->buf, total - 7)) goto garbled;
    *msg = f->buf;
    *len = total;
    f->consumed = total;
    return FIX_FRAME_OK;
garbled:
    /* Drop this "8=FIX" and look for the next one; the bytes in between are part of the dropped frame. */
    f->garbled++;
    framer_resync(f, 1);
    return FIX_FRAME_GARBLED;
}

/* ================= Parser ================= */

/* Slot of each indexed tag by a perfect hash: entry ((tag * 903) >> 5) & 63 holds (slot + 1) << 9 | tag for the
 * tags of FIX_SLOT_* (all below 512) and 0 elsewhere; one multiply and one load per field instead of a search.
 * Generated for the FIX_SLOT_* order; tests/test_fix_stream.c checks it against the list of tags. */
static const uint16_t slot_tab[64] = {
    0x0000, 0x0000, 0x0000, 0x1a10, 0x2829, 0x1407, 0x0000, 0x2020,
    0x3a96, 0x0000, 0x410c, 0x180e, 0x2627, 0x3262, 0x387b, 0x0000,
    0x2e37, 0x0000, 0x0000, 0x0000, 0x2425, 0x0000, 0x45b2, 0x0000,
    0x3670, 0x0000, 0x0000, 0x0423, 0x0000, 0x0000, 0x0000, 0x1c11,
    0x0000, 0x3f06, 0x0000, 0x0000, 0x303a, 0x3c97, 0x0831, 0x346c,
    0x0000, 0x1206, 0x1e1f, 0x0000, 0x0c38, 0x0000, 0x0000, 0x0000,
    0x0000, 0x0e61, 0x107a, 0x2c36, 0x0000, 0x2a2d, 0x160b, 0x2224,
    0x0000, 0x4319, 0x0000, 0x0a34, 0x0000, 0x062b, 0x0000, 0x0222,
};

/* The slot of tag from its hash multiply h = tag * 903. */
static inline __attribute__((always_inline)) int tag_slot_of_hash(uint32_t tag, uint32_t h)
{
    uint32_t e = slot_tab[(h >> 5) & 63u];
    return (e & 511u) == tag ? (int)(e >> 9) - 1 : -1;
}

static inline __attribute__((always_inline)) int tag_slot(uint32_t tag) { return tag_slot_of_hash(tag, tag * 903u); }

int fix_tag_slot(uint32_t tag) { return tag_slot(tag); }

/* Tokenises [p, end) where end[-1] is SOH, so that the inner loops need no bound check (every scan stops at
 * that SOH at the latest). Sums every byte on the way. Fields, errors and slots as fix_parse documents.
 * A value is scanned two bytes a turn, each byte read a turn before its test (a load's use in the next instruction
 * stalls; a turn's taken branch costs too): fix_parse 1,990 -> 1,917 cycles a 35=W (pc-hist; a byte a turn was as fast
 * before the rare cases were laid out of the way, RARE). The tag loop has its test at the bottom (the compiler rotates
 * it). Where the RAM has room (TF_MEM_WORDS, fw/Makefile: 150 bytes more code), a field that starts 3 bytes or more
 * before end has its first three bytes read at once, and a tag of one to three digits (every tag of a 35=W) takes no
 * loop, whose exit is a mispredicted branch per field: a 35=W through the receive path 6,467 -> 6,288 cycles
 * (sim/tests/run.sh w_cost, one session). The last one or two bytes then hold no field ("1=|", an empty value, is 3
 * bytes): a bad tag. */
HOT static void parse_fields(fix_msg_t *m, const uint8_t *p, const uint8_t *end)
{
    uint32_t sum = m->sum, dup = 0;
    unsigned n = m->n; /* (fields entered by the caller before p) */
    fix_field_t *fl = m->f + n; /* &m->f[n], advanced with n (no multiply by the field's size per field) */
#if TF_MEM_WORDS
    const uint8_t *const lim = end - p > 2 ? end - 2 : p; /* a field starting before lim has 3 bytes */
#else
    const uint8_t *const lim = end;
#endif
    while (p < lim) {
        const uint8_t *start = p;
        uint32_t tag, c;
        /* Digits only; a tag of more than 9 digits (past 32 bits), none, or a non-digit before the '=' is bad (then
         * the field is summed up to its SOH below, from p: sum holds the bytes before it). scan_tag is the same rule
         * for the cold paths. */
#if TF_MEM_WORDS
        uint32_t c0 = p[0], c1 = p[1], c2 = p[2];
        uint32_t d0 = c0 - '0', d1 = c1 - '0', d2 = c2 - '0';
        if (RARE(d0 > 9)) goto bad;
        if (d1 <= 9 && d2 <= 9) { /* three digits or more (a 35=W's entries): laid out first, no jump */
            uint32_t t0 = MUL_EARLY(d0 * 100u), t1 = MUL_EARLY(d1 * 10u);
            c = p[3]; /* (c2 is a digit, not the SOH) */
            sum += c0 + c1 + c2;
            p += 3;
            tag = t0 + t1 + d2;
            if (RARE(c - '0' <= 9)) {
                do {
                    tag = tag * 10u + (c - '0');
                    sum += c;
                    c = *++p;
                } while (c - '0' <= 9);
                if (p - start > 9) goto bad;
            }
        } else if (d1 <= 9) {
            tag = d0 * 10u + d1;
            c = c2;
            sum += c0 + c1;
            p += 2;
        } else {
            tag = d0;
            c = c1;
            sum += c0;
            p += 1;
        }
#else
        tag = 0;
        c = *p;
        for (uint32_t d = c - '0'; d <= 9; d = c - '0') {
            tag = tag * 10u + d;
            sum += c;
            c = *++p;
        }
        if (p - start > 9) goto bad;
#endif
        if (RARE(tag == 0 || c != '=')) goto bad; /* (0: "0=", "00=") */
        /* The slot's hash multiply issued here, its result used after the value is scanned: the CPU's multiply result
         * is not ready for the next two instructions, and the compiler would put its use right after it. */
        uint32_t h = MUL_EARLY(tag * 903u);
        const uint8_t *v = ++p;
        sum += '=' + FIX_SOH; /* and the value's SOH */
        uint32_t a = *p;
        if (!RARE(a == FIX_SOH)) {
            for (;;) { /* a = p[0], not SOH: p[1] is in the message, and p[2] when p[1] is not SOH */
                uint32_t b = p[1];
                sum += a;
                if (b == FIX_SOH) {
                    p++;
                    break;
                }
                a = p[2];
                sum += b;
                p += 2;
                if (a == FIX_SOH) break;
            }
        } else if (!m->err) {
            m->err = FIX_PERR_EMPTY_VALUE;
            m->err_tag = tag;
        }
        if (RARE(tag == 10) && p + 1 < end) { /* CheckSum must be the last field */
            m->err = FIX_PERR_CHECKSUM_NOT_LAST;
            m->err_tag = 10;
        }
        /* 269 to 280 (a 35=W's entries but for 290) are not indexed: no lookup (the hash's load, its test and the
         * mispredicted branch to the unindexed path, for three of an entry's four fields) */
        const int k = tag - 269u >= 12u ? tag_slot_of_hash(tag, h) : -1;
        if (RARE(n >= FIX_MAX_FIELDS)) { /* validated and counted, not kept: a cursor reaches it (fix_cursor_t) */
            if (!m->rest) m->rest = start;
            m->n_rest++;
            if (k >= 0) {
                unsigned j = m->idx[k], i = j - FIX_MAX_FIELDS;
                if ((j < n && m->f[j].tag == tag) || (i < m->n_late && m->late[i].tag == tag)) {
                    dup |= k < 32 ? 1u << k : 0u;
                } else if (m->n_late < FIX_MAX_LATE) {
                    fix_field_t *fl = &m->late[m->n_late];
                    fl->tag = tag;
                    fl->val = (const char *)v;
                    fl->len = (uint16_t)(p - v);
                    m->idx[k] = (uint8_t)(FIX_MAX_FIELDS + m->n_late++);
                }
            }
            p++;
            continue;
        }
        fl->tag = tag;
        fl->val = (const char *)v;
        fl->len = (uint16_t)(p - v);
        if (k >= 0) {
            unsigned j = m->idx[k];
            if (RARE(j < n && m->f[j].tag == tag)) dup |= k < 32 ? 1u << k : 0u;
            else m->idx[k] = (uint8_t)n;
        }
        n++;
        fl++;
        p++;
        continue;
    bad:
        if (!m->err) {
            m->err = FIX_PERR_BAD_TAG;
            m->err_tag = 0;
        }
        while ((c = *p) != FIX_SOH) {
            sum += c;
            p++;
        }
        sum += FIX_SOH;
        p++;
    }
    if (p < end) { /* the last one or two bytes: "|" or "x|", fields without a '=' */
        if (!m->err) {
            m->err = FIX_PERR_BAD_TAG;
            m->err_tag = 0;
        }
        do sum += *p; while (++p < end);
    }
    m->n = (uint16_t)n;
    m->sum = sum;
    m->dup = dup;
}

/* The tag that starts at p: its digits up to the first non-digit or end, their value in *tag. Returns where the
 * digits end (the caller wants an '=' there), or NULL when they are no tag: none, more than 9 (leading zeros count)
 * or 0. parse_fields applies the same rule in its own loop, which also sums the bytes. Not inlined: one copy is
 * 88 bytes less code for the Colorlight's RAM. */
static __attribute__((noinline)) const uint8_t *scan_tag(const uint8_t *p, const uint8_t *end, uint32_t *tag)
{
    const uint8_t *q = p;
    uint32_t t = 0;
    while (q < end && (uint32_t)*q - '0' <= 9u) t = t * 10u + (uint32_t)(*q++ - '0'); /* (wraps past 9 digits) */
    *tag = t;
    return q == p || q - p > 9 || t == 0 ? NULL : q;
}

/* m set up for the fields of buf[0..len), none parsed yet, sum: of the bytes before the first one parse_fields reads
 * (m->n, the fields the caller enters, and m->dup, which parse_fields writes, are left to the caller). */
static inline __attribute__((always_inline)) void msg_begin(fix_msg_t *m, const uint8_t *buf, size_t len, uint32_t sum)
{
    m->n_rest = 0;
    m->rest = NULL;
    m->n_late = 0;
    m->err = FIX_PERR_NONE;
    m->err_tag = 0;
    m->raw = buf;
    m->raw_len = len;
    m->sum = sum;
}

HOT int fix_parse(fix_msg_t *m, const uint8_t *buf, size_t len)
{
    msg_begin(m, buf, len, 0);
    m->n = 0;
    m->dup = 0;
    /* Fields up to the last SOH; what follows it is an unterminated field. */
    size_t lim = len;
    while (lim && buf[lim - 1] != FIX_SOH) lim--;
    if (lim) parse_fields(m, buf, buf + lim);
    if (lim < len) {
        /* The unterminated tail: a bad tag unless it is "tag=" plus a value, which is truncated. */
        const uint8_t *end = buf + len;
        uint32_t tag;
        const uint8_t *p = scan_tag(buf + lim, end, &tag);
        if (!m->err) {
            if (!p || p >= end || *p != '=') {
                m->err = FIX_PERR_BAD_TAG;
                m->err_tag = 0;
            } else {
                m->err = FIX_PERR_TRUNCATED;
                m->err_tag = tag;
            }
        }
    }
    for (size_t i = lim; i < len; i++) m->sum += buf[i];
    return m->err ? FIX_E_FORMAT : FIX_OK;
}

const fix_field_t *fix_cursor_next_rest(const fix_msg_t *m, fix_cursor_t *c)
{
    if (c->i < m->n) { /* the last kept field: on to the first one not kept */
        c->i++;
        c->p = m->rest;
    } else {
        const fix_field_t *f = fix_cursor_get_rest(m, c);
        c->p = (const uint8_t *)f->val + f->len + 1;
        c->i++;
    }
    return fix_cursor_get_rest(m, c);
}

const fix_field_t *fix_cursor_get_rest(const fix_msg_t *m, fix_cursor_t *c)
{
    const uint8_t *p = c->p, *end = m->raw + m->raw_len;
    if (!p || p >= end) return NULL;
    uint32_t tag = 0;
    for (; p < end && *p != '='; p++) tag = tag * 10u + (uint32_t)(*p - '0'); /* validated by fix_parse */
    const uint8_t *v = ++p;
    while (p < end && *p != FIX_SOH) p++;
    if (p >= end) return NULL; /* an unterminated tail is not a field */
    c->f.tag = tag;
    c->f.val = (const char *)v;
    c->f.len = (uint16_t)(p - v);
    return &c->f;
}

/* ================= Stream ================= */

void fix_stream_init(fix_stream_t *st)
{
    st->len = 0;
    st->consumed = 0;
    st->garbled = 0;
    st->skipped = 0;
    st->skip.left = 0;
    st->skip.done = false;
}

/* Offset of the first byte from which p[0..n) continues as (a prefix of) "8=FIX"; n if none. */
HOT static size_t sync_scan(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '8') continue;
        size_t k = 1;
        while (k < SYNC_LEN && i + k < n && p[i + k] == (uint8_t)sync_pat[k]) k++;
        if (k == SYNC_LEN || i + k == n) return i;
    }
    return n;
}

static void stream_drop(fix_stream_t *st, size_t n)
{
    if (n < st->len) memmove(st->buf, st->buf + n, st->len - n);
    st->len = n < st->len ? st->len - n : 0;
}

/* Parses the whole frame b[0..h->total) into m and checks its trailer against the sum taken on the way. Where the RAM
 * has room (TF_MEM_WORDS), a frame with a FIX.4.4 header that header44 has read and summed, and a trailer of the
 * form |10=ddd|, has neither tokenised again: their three fields are entered as fix_parse would enter them, the body
 * is parsed from the sum of the header's bytes up to the trailer, and the trailer's digits compared with that sum.
 * Anything else (a header header44 did not read, another trailer, a body of FIX_MAX_FIELDS fields or more) goes
 * through fix_parse, as does every frame of the other builds. A 35=W through the receive path 4,876 -> 4,799 cycles for the
 * header, -> 4,715 to 4,745 with the trailer (sim/tests/run.sh w_cost, profiling build, one session), for 200 and 250
 * bytes of code. */
HOT static bool frame_parse(const uint8_t *b, const frame_hdr_t *h, fix_msg_t *m)
{
    const size_t total = h->total;
#if TF_MEM_WORDS
    const uint32_t body = h->body;
    const uint8_t *const t = b + total - 7; /* "10=ddd|", when body < total - 7 */
    const uint32_t c0 = (uint32_t)t[3] - '0', c1 = (uint32_t)t[4] - '0', c2 = (uint32_t)t[5] - '0';
    if (body && body + 7 < total && t[-1] == FIX_SOH && t[0] == '1' && t[1] == '0' && t[2] == '=' &&
        c0 <= 9 && c1 <= 9 && c2 <= 9 && t[6] == FIX_SOH) {
        msg_begin(m, b, total, h->sum);
        m->f[0].tag = 8;
        m->f[0].val = (const char *)b + 2; /* FIX.4.4 */
        m->f[0].len = 7;
        m->f[1].tag = 9;
        m->f[1].val = (const char *)b + 12; /* ddd */
        m->f[1].len = 3;
        m->n = 2;
        parse_fields(m, b + body, t);
        unsigned n = m->n;
        if (USUAL(n < FIX_MAX_FIELDS)) {
            /* A CheckSum field right before the trailer: parse_fields saw it end its range, not the frame. */
            if (RARE(m->f[n - 1].tag == 10)) {
                m->err = FIX_PERR_CHECKSUM_NOT_LAST;
                m->err_tag = 10;
            }
            const uint32_t sum = m->sum;
            m->f[n].tag = 10;
            m->f[n].val = (const char *)t + 3;
            m->f[n].len = 3;
            m->n = (uint16_t)(n + 1);
            m->sum = sum + '1' + '0' + '=' + FIX_SOH + 3 * '0' + c0 + c1 + c2;
            return m->err != FIX_PERR_CHECKSUM_NOT_LAST && c0 * 100u + c1 * 10u + c2 == (sum & 0xFFu);
        }
        /* (the kept fields full: the trailer is one past them, which fix_parse handles) */
    }
#endif
    fix_parse(m, b, total);
    return m->err != FIX_PERR_CHECKSUM_NOT_LAST && frame_trailer_ok(b, total, m->sum);
}

#define HEADER_MAX (2 + FIX_MAX_BEGINSTR_LEN + 1 + 2 + FIX_MAX_BODYLEN_DIGITS + 1) /* bytes that settle a header */

HOT fix_frame_res_t fix_stream_next(fix_stream_t *st, const uint8_t **data, size_t *len, fix_msg_t *m)
{
    if (st->consumed) {
        stream_drop(st, st->consumed);
        st->consumed = 0;
    }
    frame_hdr_t hd;
    hd.total = 0;
    fix_frame_res_t h;
top:
    if (st->skip.left) { /* the rest of a message longer than buf, skipped (summed) where it lies */
        size_t n = skip_take(&st->skip, *data, *len);
        *data += n;
        *len -= n;
        if (st->skip.left) return FIX_FRAME_NEED_MORE;
    }
    if (st->skip.done) { /* buf holds its first bytes */
        size_t lim;
        st->consumed = st->len;
        if (!skip_end(&st->skip, st->buf, st->len, &lim)) {
            st->garbled++;
            return FIX_FRAME_GARBLED;
        }
        fix_parse(m, st->buf, lim);
        return FIX_FRAME_TOO_LONG;
    }
    while (st->len) { /* a message straddling chunks: gather it in buf */
        size_t i = sync_scan(st->buf, st->len);
        if (i) {
            st->skipped += (uint32_t)i;
            stream_drop(st, i);
            continue;
        }
        h = frame_header(st->buf, st->len, &hd);
        if (h == FIX_FRAME_OK && hd.total > sizeof st->buf && st->len == sizeof st->buf) {
            skip_begin(&st->skip, st->buf, st->len, hd.total);
            goto top;
        }
        if (h == FIX_FRAME_OK && st->len >= hd.total) {
            if (frame_parse(st->buf, &hd, m)) {
                st->consumed = hd.total;
                return FIX_FRAME_OK;
            }
            h = FIX_FRAME_GARBLED;
        }
        if (h == FIX_FRAME_GARBLED) {
            st->garbled++;
            size_t j = 1 + sync_scan(st->buf + 1, st->len - 1);
            st->skipped += (uint32_t)(j - 1);
            stream_drop(st, j);
            return FIX_FRAME_GARBLED;
        }
        if (*len == 0) return FIX_FRAME_NEED_MORE;
        size_t want = (h == FIX_FRAME_OK ? (hd.total < sizeof st->buf ? hd.total : sizeof st->buf) : HEADER_MAX) - st->len;
        size_t n = *len < want ? *len : want;
        memcpy(st->buf + st->len, *data, n);
        st->len += n;
        *data += n;
        *len -= n;
    }
    /* In place in the chunk. */
    const uint8_t *d = *data;
    size_t n = *len;
#if TF_MEM_WORDS /* a chunk that starts with the usual header (every one, but for garbage) without the calls */
    if (header44(d, n, &hd)) {
        h = FIX_FRAME_OK;
    } else {
        size_t i = n >= SYNC_LEN && d[0] == '8' && d[1] == '=' && d[2] == 'F' && d[3] == 'I' && d[4] == 'X'
                       ? 0
                       : sync_scan(d, n);
#else
    {
        size_t i = sync_scan(d, n);
#endif
        st->skipped += (uint32_t)i;
        d += i;
        n -= i;
        *data = d;
        *len = n;
        if (n == 0) return FIX_FRAME_NEED_MORE;
        h = frame_header(d, n, &hd);
    }
    if (h == FIX_FRAME_OK && n >= hd.total && hd.total <= sizeof st->buf) {
        if (frame_parse(d, &hd, m)) {
            *data = d + hd.total;
            *len = n - hd.total;
            return FIX_FRAME_OK;
        }
        h = FIX_FRAME_GARBLED;
    }
    if (h == FIX_FRAME_GARBLED) {
        st->garbled++;
        *data = d + 1; /* the bytes up to the next "8=FIX" are skipped as part of the dropped frame */
        *len = n - 1;
        size_t j = sync_scan(d + 1, n - 1);
        st->skipped += (uint32_t)j;
        *data += j;
        *len -= j;
        return FIX_FRAME_GARBLED;
    }
    /* Incomplete: keep it; longer than the buffer: keep what fits, and skip the rest (top). */
    size_t k = n < sizeof st->buf ? n : sizeof st->buf;
    memcpy(st->buf, d, k);
    st->len = k;
    *data = d + k;
    *len = n - k;
    if (k == sizeof st->buf) goto top;
    return FIX_FRAME_NEED_MORE;
}

size_t fix_stream_drop_partial(fix_stream_t *st)
{
    if (st->consumed) { /* the message last returned is complete: not part of what is dropped */
        stream_drop(st, st->consumed);
        st->consumed = 0;
    }
    size_t n = st->len;
    st->len = 0;
    st->skip.left = 0;
    st->skip.done = false;
    return n;
}

/* ================= Accessors ================= */

HOT const fix_field_t *fix_msg_get(const fix_msg_t *m, uint32_t tag)
{
    int k = tag_slot(tag);
    if (k >= 0) {
        unsigned j = m->idx[k];
        if (j < m->n) return m->f[j].tag == tag ? &m->f[j] : NULL;
        j -= FIX_MAX_FIELDS; /* (wraps to a large number below it) */
        return (j < m->n_late && m->late[j].tag == tag) ? &m->late[j] : NULL;
    }
    for (uint16_t i = 0; i < m->n; i++)
        if (m->f[i].tag == tag) return &m->f[i];
    return NULL;
}

unsigned fix_msg_count(const fix_msg_t *m, uint32_t tag)
{
    unsigned c = 0;
    fix_cursor_t it = fix_cursor_at(m, 0);
    for (const fix_field_t *f; (f = fix_cursor_get(m, &it)); fix_cursor_next(m, &it)) c += f->tag == tag;
    return c;
}

/* Digits accumulate in 32 bits while v < 10^8 (so v * 10 + 9 fits); longer numbers go on in 64 bits. */
#define V32_LIMIT 100000000u

HOT int fix_parse_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n && s[0] == '-') {
        neg = true;
        i = 1;
    }
    if (i >= n) return FIX_E_FORMAT;
    uint32_t v32 = 0;
    for (; i < n && v32 < V32_LIMIT; i++) {
        uint32_t d = (uint32_t)(uint8_t)s[i] - '0';
        if (d > 9) return FIX_E_FORMAT;
        v32 = v32 * 10u + d;
    }
    uint64_t v = v32;
    for (; i < n; i++) {
        uint32_t d = (uint32_t)(uint8_t)s[i] - '0';
        if (d > 9) return FIX_E_FORMAT;
        if (!mul10_add(&v, d)) return FIX_E_RANGE;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return FIX_OK;
}

/* Any number fix_parse_decimal takes (a sign, up to 19 digits): in 64 bits, built for size, off the common path.
 * decimals <= FIX_MAX_DECIMALS. */
__attribute__((noinline)) static int parse_decimal_general(const char *s, size_t n, unsigned decimals, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n && s[0] == '-') {
        neg = true;
        i = 1;
    }
    uint64_t v = 0;
    unsigned frac = 0, ndig = 0;
    bool dot = false, range = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (dot) return FIX_E_FORMAT;
            dot = true;
            continue;
        }
        uint32_t d = (uint32_t)(uint8_t)c - '0';
        if (d > 9) return FIX_E_FORMAT;
        ndig++;
        if (dot) {
            if (frac >= decimals) {
                if (d != 0) range = true; /* keep scanning: a format error wins */
                continue;
            }
            frac++;
        }
        if (!range && !mul10_add(&v, d)) range = true;
    }
    if (ndig == 0) return FIX_E_FORMAT;
    if (range || v > max_before_scale[decimals - frac]) return FIX_E_RANGE;
    v *= fix_pow10_tab[decimals - frac];
    *out = neg ? -(int64_t)v : (int64_t)v;
    return FIX_OK;
}

HOT int fix_parse_decimal(const char *s, size_t n, unsigned decimals, int64_t *out)
{
    if (decimals > FIX_MAX_DECIMALS) return FIX_E_RANGE;
    /* The common number (market data's prices and sizes): fix_parse_decimal_short (codec.h, one loop in 32 bits);
     * anything else (a sign, more digits or decimals, a format error) takes the general loop
     * (parse_decimal_general), which gives the same value for these. */
    if (fix_parse_decimal_short(s, n, decimals, out)) return FIX_OK;
    return parse_decimal_general(s, n, decimals, out);
}

/* v * 10 + d, held at INT64_MAX when it would pass it (no 64-bit division: a compare with INT64_MAX / 10). */
static bool sat_mul10_add(uint64_t *v, uint32_t d)
{
    if (*v > 922337203685477580ull || (*v == 922337203685477580ull && d > 7)) {
        *v = (uint64_t)INT64_MAX;
        return false;
    }
    *v = *v * 10u + d;
    return true;
}

/* fix_parse_decimal_trunc past fix_parse_decimal: well formed, but with nonzero digits past `decimals` or a
 * magnitude past INT64_MAX (built for size: off the common path). */
__attribute__((noinline)) static int decimal_trunc_rest(const char *s, size_t n, unsigned decimals, int64_t *out,
                                                        bool *inexact)
{
    size_t i = (n && s[0] == '-') ? 1 : 0;
    uint64_t v = 0;
    unsigned frac = 0;
    bool dot = false, sat = false;
    for (; i < n; i++) {
        if (s[i] == '.') {
            dot = true;
            continue;
        }
        uint32_t d = (uint32_t)(uint8_t)s[i] - '0';
        if (dot && frac >= decimals) {
            if (d) *inexact = true;
            continue;
        }
        if (dot) frac++;
        if (!sat && !sat_mul10_add(&v, d)) sat = true;
    }
    for (; frac < decimals && !sat; frac++)
        if (!sat_mul10_add(&v, 0)) sat = true;
    if (sat) *inexact = true;
    /* the floor: a negative value that lost digits goes one down (INT64_MIN at most) */
    *out = s[0] == '-' ? -(int64_t)v - (*inexact ? 1 : 0) : (int64_t)v;
    return FIX_OK;
}

HOT int fix_parse_decimal_trunc(const char *s, size_t n, unsigned decimals, int64_t *out, bool *inexact)
{
    *inexact = false;
    int r = fix_parse_decimal(s, n, decimals, out); /* the common case, and the format check */
    if (r != FIX_E_RANGE || decimals > FIX_MAX_DECIMALS) return r;
    return decimal_trunc_rest(s, n, decimals, out, inexact);
}

HOT int fix_msg_get_int(const fix_msg_t *m, uint32_t tag, int64_t *out)
{
    const fix_field_t *f = fix_msg_get(m, tag);
    if (!f) return FIX_E_MISSING;
    return fix_parse_int(f->val, f->len, out);
}

HOT int fix_parse_u32(const char *s, size_t n, uint32_t *out)
{
    if (fix_parse_u32_short(s, n, out)) return FIX_OK; /* 1 to 9 digits: in 32 bits, without fix_parse_int */
    int64_t v;
    int r = fix_parse_int(s, n, &v);
    if (r) return r;
    if (v < 0 || v > (int64_t)UINT32_MAX) return FIX_E_RANGE;
    *out = (uint32_t)v;
    return FIX_OK;
}

HOT int fix_msg_get_u32(const fix_msg_t *m, uint32_t tag, uint32_t *out)
{
    const fix_field_t *f = fix_msg_get(m, tag);
    if (!f) return FIX_E_MISSING;
    return fix_parse_u32(f->val, f->len, out);
}

int fix_msg_get_decimal(const fix_msg_t *m, uint32_t tag, unsigned decimals, int64_t *out)
{
    const fix_field_t *f = fix_msg_get(m, tag);
    if (!f) return FIX_E_MISSING;
    return fix_parse_decimal(f->val, f->len, decimals, out);
}

int fix_msg_get_str(const fix_msg_t *m, uint32_t tag, char *out, size_t cap)
{
    const fix_field_t *f = fix_msg_get(m, tag);
    if (!f) return FIX_E_MISSING;
    if (cap == 0 || f->len >= cap) return FIX_E_RANGE;
    memcpy(out, f->val, f->len);
    out[f->len] = '\0';
    return FIX_OK;
}

HOT char fix_msg_get_char(const fix_msg_t *m, uint32_t tag)
{
    const fix_field_t *f = fix_msg_get(m, tag);
    return (f && f->len == 1) ? f->val[0] : 0;
}

/* One pass, no strlen and memcmp calls (the session compares BeginString and both CompIDs of every message). */
HOT bool fix_field_eq(const fix_field_t *f, const char *s)
{
    if (!f) return false;
    const char *v = f->val;
    for (size_t i = 0, n = f->len; i < n; i++) {
        char c = s[i];
        if (c == '\0' || c != v[i]) return false; /* s shorter than the value, or a different byte */
    }
    return s[f->len] == '\0';
}

#if TF_MEM_WORDS
/* The length first, then the bytes as tf_bytes_eq compares them, but unrolled by 4, not 8: n is not known here, and
 * tf_bytes_eq's 8 (for its fixed lengths) cost this path about 50 cycles a 35=W (sim/tests/run.sh w_cost, one
 * session). fix_field_eq's three calls per 35=W 203 -> 179 cycles. */
HOT bool fix_field_eq_n(const fix_field_t *f, const char *s, size_t n)
{
    if (!f || f->len != n) return false;
    const uint8_t *v = (const uint8_t *)f->val, *t = (const uint8_t *)s;
    uint32_t diff = 0;
#pragma GCC unroll 4
    for (size_t i = 0; i < n; i++) diff |= (uint32_t)(v[i] ^ t[i]);
    return diff == 0;
}
#endif

bool fix_msg_is_type(const fix_msg_t *m, const char *msg_type)
{
    return fix_field_eq(fix_msg_get(m, 35), msg_type);
}

int fix_raw_get(const uint8_t *p, size_t len, uint32_t tag, fix_field_t *out, unsigned *index)
{
    return fix_raw_get_tags(p, len, 1, &tag, out, index);
}

int fix_raw_get_tags(const uint8_t *p, size_t len, unsigned ntags, const uint32_t *tags, fix_field_t *out,
                     unsigned *index)
{
    unsigned found = 0, n = 0;
    for (unsigned k = 0; k < ntags; k++) out[k].tag = 0; /* (0: not found yet; no field has tag 0) */
    for (size_t i = 0; i < len; i++) { /* i: a field's first byte, then its SOH */
        uint32_t t;
        const uint8_t *q = scan_tag(p + i, p + len, &t);
        if (!q || q >= p + len || *q != '=') return FIX_E_FORMAT;
        i = (size_t)(q - p);
        size_t v = ++i;
        while (i < len && p[i] != FIX_SOH) i++;
        if (i >= len || i == v || (t == 10 && i + 1 < len)) return FIX_E_FORMAT;
        n++;
        for (unsigned k = 0; k < ntags; k++) {
            if (t != tags[k] || out[k].tag) continue;
            out[k].tag = t;
            out[k].val = (const char *)p + v;
            out[k].len = (uint16_t)(i - v);
            if (index) index[k] = n - 1;
            found++;
        }
    }
    return found == ntags ? FIX_OK : FIX_E_MISSING;
}

/* ================= Groups ================= */

static bool is_member(const fix_group_t *g, uint32_t tag)
{
    for (size_t i = 0; i < g->n_members; i++)
        if (g->members[i] == tag) return true;
    return false;
}

/* End (exclusive) of the entry that starts at field index `at`. */
static uint16_t entry_end(const fix_group_t *g, uint16_t at)
{
    uint16_t j = (uint16_t)(at + 1);
    while (j < g->m->n && g->m->f[j].tag != g->delim && is_member(g, g->m->f[j].tag)) j++;
    return j;
}

int fix_group_open(fix_group_t *g, const fix_msg_t *m, uint32_t count_tag, uint32_t delim,
                   const uint32_t *members, size_t n_members)
{
    g->m = m;
    g->members = members;
    g->n_members = n_members;
    g->delim = delim;
    g->count = 0;
    g->begin = g->end = g->next = g->stop = 0;
    uint16_t ci = 0;
    while (ci < m->n && m->f[ci].tag != count_tag) ci++;
    if (ci == m->n) return FIX_OK;
    int64_t cnt;
    if (fix_parse_int(m->f[ci].val, m->f[ci].len, &cnt) != FIX_OK || cnt < 0) return FIX_E_FORMAT;
    uint16_t at = (uint16_t)(ci + 1);
    uint32_t seen = 0;
    while (at < m->n && m->f[at].tag == delim) {
        seen++;
        at = entry_end(g, at);
    }
    if ((int64_t)seen != cnt) return FIX_E_GROUP;
    g->count = seen;
    g->next = (uint16_t)(ci + 1);
    g->stop = at;
    return FIX_OK;
}

bool fix_group_next(fix_group_t *g)
{
    if (g->next >= g->stop) return false;
    g->begin = g->next;
    g->end = entry_end(g, g->begin);
    g->next = g->end;
    return true;
}

const fix_field_t *fix_group_get(const fix_group_t *g, uint32_t tag)
{
    for (uint16_t i = g->begin; i < g->end; i++)
        if (g->m->f[i].tag == tag) return &g->m->f[i];
    return NULL;
}

int fix_group_get_decimal(const fix_group_t *g, uint32_t tag, unsigned decimals, int64_t *out)
{
    const fix_field_t *f = fix_group_get(g, tag);
    if (!f) return FIX_E_MISSING;
    return fix_parse_decimal(f->val, f->len, decimals, out);
}

/* ================= Formatting ================= */

size_t fix_fmt_uint(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    while (v > UINT32_MAX) {
        uint64_t q = v / 10u;
        tmp[n++] = (char)('0' + (unsigned)(v - q * 10u));
        v = q;
    }
    uint32_t w = (uint32_t)v;
    do {
        uint32_t q = tf_div10(w);
        tmp[n++] = (char)('0' + w - q * 10u);
        w = q;
    } while (w);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

size_t fix_fmt_decimal(char *out, int64_t v, unsigned decimals)
{
    if (decimals > FIX_MAX_DECIMALS) decimals = FIX_MAX_DECIMALS;
    size_t n = 0;
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        out[n++] = '-';
        u = 0u - u;
    }
    const uint32_t scale = fix_pow10_tab[decimals];
    uint64_t ip;
    uint32_t fp;
    if (u <= UINT32_MAX) { /* the common case stays in 32-bit arithmetic */
        uint32_t w = (uint32_t)u;
        ip = w / scale;
        fp = w - (uint32_t)ip * scale;
    } else {
        ip = u / scale;
        fp = (uint32_t)(u - ip * scale);
    }
    n += fix_fmt_uint(out + n, ip);
    if (fp) {
        out[n++] = '.';
        unsigned d = decimals;
        while (fp % 10u == 0) {
            fp /= 10u;
            d--;
        }
        for (unsigned k = d; k > 0; k--) {
            out[n + k - 1] = (char)('0' + fp % 10u);
            fp /= 10u;
        }
        n += d;
    }
    return n;
}

/* ================= Builder ================= */

#define BODYLEN_PLACEHOLDER_DIGITS 5 /* room reserved for BodyLength, trimmed in fix_build_end */

static void put(fix_builder_t *b, const void *p, size_t n)
{
    if (b->overflow || n > b->cap - b->len) {
        b->overflow = true;
        return;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

static void put_tag(fix_builder_t *b, uint32_t tag)
{
    char t[12];
    size_t n = fix_fmt_uint(t, tag);
    t[n++] = '=';
    put(b, t, n);
}

static void put_soh(fix_builder_t *b)
{
    static const char soh = FIX_SOH;
    put(b, &soh, 1);
}

void fix_build_begin(fix_builder_t *b, uint8_t *buf, size_t cap, const char *msg_type)
{
    b->buf = buf;
    b->cap = cap;
    b->len = 0;
    b->overflow = false;
    put(b, "8=" FIX_BEGIN_STRING "\x01" "9=00000\x01", 10 + sizeof FIX_BEGIN_STRING);
    b->body_start = b->len;
    fix_build_str(b, 35, msg_type);
}

void fix_build_strn(fix_builder_t *b, uint32_t tag, const char *s, size_t n)
{
    put_tag(b, tag);
    put(b, s, n);
    put_soh(b);
}

void fix_build_str(fix_builder_t *b, uint32_t tag, const char *s) { fix_build_strn(b, tag, s, strlen(s)); }

void fix_build_char(fix_builder_t *b, uint32_t tag, char c) { fix_build_strn(b, tag, &c, 1); }

void fix_build_uint(fix_builder_t *b, uint32_t tag, uint64_t v)
{
    char t[20];
    fix_build_strn(b, tag, t, fix_fmt_uint(t, v));
}

void fix_build_int(fix_builder_t *b, uint32_t tag, int64_t v) { fix_build_decimal(b, tag, v, 0); }

void fix_build_uint_padded(fix_builder_t *b, uint32_t tag, uint32_t v, unsigned width)
{
    char t[10];
    char z[20];
    size_t n = fix_fmt_uint(t, v);
    if (width > sizeof z) width = sizeof z;
    size_t pad = width > n ? width - n : 0;
    memset(z, '0', pad);
    memcpy(z + pad, t, n);
    fix_build_strn(b, tag, z, pad + n);
}

void fix_build_decimal(fix_builder_t *b, uint32_t tag, int64_t v, unsigned decimals)
{
    char t[24];
    fix_build_strn(b, tag, t, fix_fmt_decimal(t, v, decimals));
}

void fix_build_utc(fix_builder_t *b, uint32_t tag, uint64_t epoch_ms)
{
    char t[FIX_UTC_TS_LEN];
    fix_utc_format(t, epoch_ms);
    fix_build_strn(b, tag, t, sizeof t);
}

void fix_build_raw(fix_builder_t *b, const void *p, size_t n) { put(b, p, n); }

size_t fix_build_end(fix_builder_t *b)
{
    if (b->overflow) return 0;
    size_t body = b->len - b->body_start;
    char d[20];
    size_t nd = fix_fmt_uint(d, body);
    if (nd > BODYLEN_PLACEHOLDER_DIGITS) return 0;
    /* Close the placeholder gap so BodyLength has no leading zeros. */
    size_t shift = BODYLEN_PLACEHOLDER_DIGITS - nd;
    size_t digits_at = b->body_start - 1 - BODYLEN_PLACEHOLDER_DIGITS;
    memmove(b->buf + digits_at + nd, b->buf + digits_at + BODYLEN_PLACEHOLDER_DIGITS, b->len - digits_at - BODYLEN_PLACEHOLDER_DIGITS);
    memcpy(b->buf + digits_at, d, nd);
    b->len -= shift;
    b->body_start -= shift;
    uint8_t cs = fix_checksum(b->buf, b->len);
    char t[7] = {'1', '0', '=', (char)('0' + cs / 100u), (char)('0' + cs / 10u % 10u), (char)('0' + cs % 10u), FIX_SOH};
    put(b, t, sizeof t);
    return b->overflow ? 0 : b->len;
}
