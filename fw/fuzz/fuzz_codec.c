/* fuzz/fuzz_codec.c - libFuzzer harness of the FIX codec (fix/codec.c): the receive path's one-pass tokeniser
 * (fix_stream_next) against the copying framer plus fix_parse, then every accessor on what they delivered.
 * Input: 2 bytes seeding how the stream is cut into TCP-like chunks, then the byte stream itself.
 * Checks (beyond ASan/UBSan): both receive paths deliver the same messages (bytes, field count, whole or too long)
 * and drop the same number of frames; each delivered message really has the BodyLength and CheckSum it carries
 * (recomputed here), and the first bytes of a message delivered as too long are a header announcing more than
 * FIX_MAX_MSG_LEN bytes, up to a SOH;
 * fields lie inside the message; every field's value parsed as a decimal (fix_parse_decimal) gives exactly the result
 * worked out here with 128-bit arithmetic (ref_decimal), and a decimal that parses is written back by fix_fmt_decimal
 * as the same value; fix_raw_get refuses what fix_parse refuses and finds the first field of a tag where fix_msg_get
 * does (on the whole input and on each delivered message). */
#include <string.h>

#include "fix/codec.h"
#include "fuzz.h"

#define MAX_MSGS 64

typedef struct {
    size_t n;
    size_t len[MAX_MSGS];
    uint32_t sum[MAX_MSGS]; /* a cheap digest of the bytes, compared with the other path's */
    uint16_t nfields[MAX_MSGS];
    uint8_t kind[MAX_MSGS];
    uint32_t garbled;
} seen_t;

static uint32_t digest(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static uint32_t chunk_rng;
static size_t next_chunk(void)
{
    chunk_rng ^= chunk_rng << 13;
    chunk_rng ^= chunk_rng >> 17;
    chunk_rng ^= chunk_rng << 5;
    switch (chunk_rng & 3) {
    case 0: return 1 + (chunk_rng >> 8) % 4;
    case 1: return 1 + (chunk_rng >> 8) % 64;
    default: return 1 + (chunk_rng >> 8) % 1500;
    }
}

/* The BodyLength of the message at p (its second field, 9=, digits only); *body: where the body starts (after that
 * field's SOH, or n when the field does not end within the n bytes). */
static size_t body_len(const uint8_t *p, size_t n, size_t *body)
{
    const uint8_t *s1 = memchr(p, FIX_SOH, n);
    FZ_CHECK(s1 && (size_t)(s1 - p) + 3 <= n && s1[1] == '9' && s1[2] == '=');
    size_t bl = 0, i = (size_t)(s1 - p) + 3;
    for (; i < n && p[i] != FIX_SOH; i++) {
        FZ_CHECK(p[i] >= '0' && p[i] <= '9');
        bl = bl * 10 + (size_t)(p[i] - '0');
    }
    *body = i < n ? i + 1 : n;
    return bl;
}

/* Recomputed from the raw bytes, independently of the codec: 9= is the byte count from after its SOH up to "10=",
 * 10= is the sum of every byte before "10=" modulo 256, written with three digits. */
static void check_frame(const uint8_t *p, size_t n)
{
    FZ_CHECK(n >= 20 && n <= FIX_MAX_MSG_LEN);
    FZ_CHECK(memcmp(p, "8=FIX", 5) == 0);
    FZ_CHECK(n >= 7 && memcmp(p + n - 7, "10=", 3) == 0 && p[n - 1] == FIX_SOH && p[n - 8] == FIX_SOH);
    unsigned sum = 0;
    for (size_t i = 0; i < n - 7; i++) sum += p[i];
    unsigned ck = (unsigned)(p[n - 4] - '0') * 100u + (unsigned)(p[n - 3] - '0') * 10u + (unsigned)(p[n - 2] - '0');
    FZ_CHECK(ck == sum % 256u);
    size_t body;
    FZ_CHECK(body_len(p, n, &body) == n - 7 - body);
}

/* The first bytes of a message delivered as FIX_FRAME_TOO_LONG: "8=FIX...", its BodyLength announcing a message
 * longer than FIX_MAX_MSG_LEN, at most FIX_MAX_MSG_LEN bytes, ending with a SOH. */
static void check_long_head(const uint8_t *p, size_t n)
{
    FZ_CHECK(n >= 20 && n <= FIX_MAX_MSG_LEN && p[n - 1] == FIX_SOH);
    FZ_CHECK(memcmp(p, "8=FIX", 5) == 0);
    size_t body, bl = body_len(p, n, &body);
    FZ_CHECK(body < n && body + bl + 7 > FIX_MAX_MSG_LEN && body + bl + 7 <= FIX_MAX_LONG_MSG_LEN);
}

/* The value of a FIX float written s (n chars) with dec implied decimals, worked out here with 128-bit arithmetic,
 * as fix_parse_decimal documents it: an optional '-', digits with at most one '.', at least one digit; fraction digits
 * beyond dec must be zeros (else FIX_E_RANGE), the scaled magnitude must fit int64 (else FIX_E_RANGE); anything else
 * is FIX_E_FORMAT. Exact: never rounded. */
static int ref_decimal(const char *s, size_t n, unsigned dec, int64_t *out)
{
    size_t i = 0;
    bool neg = n && s[0] == '-', dot = false, extra = false;
    unsigned frac = 0, digits = 0;
    __int128 v = 0;
    const __int128 lim = ((__int128)1 << 63) - 1;
    for (i = neg ? 1 : 0; i < n; i++) {
        if (s[i] == '.') {
            if (dot) return FIX_E_FORMAT;
            dot = true;
            continue;
        }
        if (s[i] < '0' || s[i] > '9') return FIX_E_FORMAT;
        digits++;
        if (dot && frac >= dec) {
            extra |= s[i] != '0';
            continue;
        }
        if (dot) frac++;
        if (v <= lim) v = v * 10 + (s[i] - '0');
    }
    if (!digits) return FIX_E_FORMAT;
    if (extra) return FIX_E_RANGE;
    for (; frac < dec && v <= lim; frac++) v *= 10;
    if (v > lim) return FIX_E_RANGE;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return FIX_OK;
}

/* Every accessor on every field of m; a parsed decimal must survive formatting and parsing back. */
static void exercise(const fix_msg_t *m)
{
    FZ_CHECK(m->n <= FIX_MAX_FIELDS);
    FZ_CHECK((m->rest != NULL) == (m->n_rest > 0) && (!m->n_rest || m->n == FIX_MAX_FIELDS));
    /* a cursor walks every field, kept or not, each within the message, the kept ones as kept */
    unsigned walked = 0;
    fix_cursor_t c = fix_cursor_at(m, 0);
    for (const fix_field_t *f; (f = fix_cursor_get(m, &c)); fix_cursor_next(m, &c), walked++) {
        FZ_CHECK(c.i == walked);
        FZ_CHECK((const uint8_t *)f->val >= m->raw && (const uint8_t *)f->val + f->len <= m->raw + m->raw_len);
        if (walked < m->n) FZ_CHECK(f == &m->f[walked]);
    }
    if (!m->err) FZ_CHECK(walked == (unsigned)m->n + m->n_rest);
    for (unsigned k = 0; k < m->n; k++) {
        const fix_field_t *f = &m->f[k];
        FZ_CHECK((const uint8_t *)f->val >= m->raw && (const uint8_t *)f->val + f->len <= m->raw + m->raw_len);
        FZ_CHECK(fix_msg_get(m, f->tag) != NULL);
        FZ_CHECK(fix_msg_count(m, f->tag) >= 1);
        int64_t v;
        uint32_t u;
        char s[32];
        (void)fix_msg_get_int(m, f->tag, &v);
        (void)fix_msg_get_u32(m, f->tag, &u);
        (void)fix_msg_get_str(m, f->tag, s, sizeof s);
        (void)fix_msg_get_char(m, f->tag);
        unsigned dec = f->tag % (FIX_MAX_DECIMALS + 1);
        int64_t want = 0;
        int rc = fix_parse_decimal(f->val, f->len, dec, &v), want_rc = ref_decimal(f->val, f->len, dec, &want);
        FZ_CHECK(rc == want_rc);
        if (rc == FIX_OK) FZ_CHECK(v == want);
        if (rc == FIX_OK) {
            char txt[32];
            int64_t back;
            size_t tl = fix_fmt_decimal(txt, v, dec);
            FZ_CHECK(tl <= 22);
            FZ_CHECK(fix_parse_decimal(txt, tl, dec, &back) == FIX_OK && back == v);
        }
        if (fix_parse_int(f->val, f->len, &v) == FIX_OK) {
            char txt[24];
            int64_t back;
            size_t tl = v < 0 ? (txt[0] = '-', 1 + fix_fmt_uint(txt + 1, (uint64_t)0 - (uint64_t)v)) : fix_fmt_uint(txt, (uint64_t)v);
            FZ_CHECK(fix_parse_int(txt, tl, &back) == FIX_OK && back == v);
        }
    }
    for (int slot = 0; slot < FIX_SLOT_ONCE_N; slot++) (void)fix_msg_dup(m, slot);
    /* the market data group as the application reads it, and a group over whatever NumInGroup-like tag came first */
    static const uint32_t md_members[] = {269, 270, 271, 290, 272, 273};
    fix_group_t g;
    if (fix_group_open(&g, m, 268, 269, md_members, 6) == FIX_OK) {
        unsigned entries = 0;
        while (fix_group_next(&g)) {
            int64_t px;
            FZ_CHECK(g.begin < g.end && g.end <= m->n);
            (void)fix_group_get(&g, 269);
            (void)fix_group_get_decimal(&g, 270, 4, &px);
            FZ_CHECK(++entries <= m->n);
        }
    }
    if (m->n > 4) {
        uint32_t members[3] = {m->f[4].tag, m->n > 5 ? m->f[5].tag : 1, 2};
        if (fix_group_open(&g, m, m->f[3].tag, m->f[4].tag, members, 3) == FIX_OK)
            while (fix_group_next(&g)) (void)fix_group_get(&g, members[1]);
    }
}

/* fix_raw_get against fix_parse's result pr on the same bytes: refused alike; otherwise the first field of each tag
 * asked (the MsgType, the MsgSeqNum, the ClOrdID, a tag of the message or any) found alike, at the same position. */
static void check_raw(const fix_msg_t *m, int pr, const uint8_t *p, size_t len, uint32_t seed)
{
    uint32_t tags[5] = {35, 34, 11, 1 + seed % 1000u, m->n ? m->f[seed % m->n].tag : 10};
    for (unsigned i = 0; i < 5; i++) {
        fix_field_t f;
        unsigned at = 0;
        int rr = fix_raw_get(p, len, tags[i], &f, &at);
        if (pr != FIX_OK) {
            FZ_CHECK(rr == FIX_E_FORMAT);
            continue;
        }
        const fix_field_t *g = fix_msg_get(m, tags[i]);
        if (!g) { /* absent, or first past the kept fields where fix_msg_get does not look (an unindexed tag, or the
                   * late table full) */
            FZ_CHECK(rr == FIX_E_MISSING ||
                     (rr == FIX_OK && at >= m->n && (fix_tag_slot(tags[i]) < 0 || m->n_late == FIX_MAX_LATE)));
            continue;
        }
        FZ_CHECK(rr == FIX_OK && f.tag == g->tag && f.val == g->val && f.len == g->len);
        if (g >= m->late && g < m->late + m->n_late) FZ_CHECK(at >= m->n); /* past the kept fields */
        else FZ_CHECK(at == (unsigned)(g - m->f));
    }
}

static fix_framer_t framer;
static fix_stream_t stream;
static fix_msg_t ref_msg, st_msg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint32_t seed = (uint32_t)data[0] << 8 | data[1];
    data += 2;
    size -= 2;
    static seen_t ref, st;
    check_raw(&ref_msg, fix_parse(&ref_msg, data, size), data, size, seed); /* the whole input as one message */
    memset(&ref, 0, sizeof ref);
    memset(&st, 0, sizeof st);

    /* the reference: copy into the framer, frame, then parse */
    fix_framer_init(&framer);
    chunk_rng = seed * 2654435761u + 1;
    for (size_t at = 0; at < size;) {
        size_t c = next_chunk();
        if (c > size - at) c = size - at;
        size_t fed = 0;
        for (unsigned stuck = 0; fed < c;) {
            size_t took = fix_framer_feed(&framer, data + at + fed, c - fed);
            fed += took;
            for (;;) {
                const uint8_t *msg;
                size_t ml;
                fix_frame_res_t r = fix_framer_next(&framer, &msg, &ml);
                if (r == FIX_FRAME_NEED_MORE) break;
                if (r == FIX_FRAME_GARBLED) continue;
                FZ_CHECK(r == FIX_FRAME_OK || r == FIX_FRAME_TOO_LONG);
                if (r == FIX_FRAME_OK) check_frame(msg, ml);
                else check_long_head(msg, ml);
                check_raw(&ref_msg, fix_parse(&ref_msg, msg, ml), msg, ml, seed);
                exercise(&ref_msg);
                if (ref.n < MAX_MSGS) {
                    ref.len[ref.n] = ml;
                    ref.sum[ref.n] = digest(msg, ml);
                    ref.nfields[ref.n] = ref_msg.n;
                    ref.kind[ref.n] = (uint8_t)r;
                }
                ref.n++;
            }
            /* drained to NEED_MORE, the framer must take bytes again (its contract): no livelock */
            if (took == 0) FZ_CHECK(++stuck < 2);
        }
        at += c;
    }
    ref.garbled = framer.garbled;

    /* the receive path: tokenise in place, same chunking */
    fix_stream_init(&stream);
    chunk_rng = seed * 2654435761u + 1;
    for (size_t at = 0; at < size;) {
        size_t c = next_chunk();
        if (c > size - at) c = size - at;
        const uint8_t *p = data + at;
        size_t n = c;
        for (unsigned guard = 0;; guard++) {
            FZ_CHECK(guard <= c + FIX_MAX_MSG_LEN + 2); /* each call uses a byte of the chunk or of its buffer */
            fix_frame_res_t r = fix_stream_next(&stream, &p, &n, &st_msg);
            if (r == FIX_FRAME_NEED_MORE) {
                FZ_CHECK(n == 0);
                break;
            }
            if (r == FIX_FRAME_GARBLED) continue;
            FZ_CHECK(r == FIX_FRAME_OK || r == FIX_FRAME_TOO_LONG);
            if (r == FIX_FRAME_OK) check_frame(st_msg.raw, st_msg.raw_len);
            else check_long_head(st_msg.raw, st_msg.raw_len);
            exercise(&st_msg);
            if (st.n < MAX_MSGS) {
                st.len[st.n] = st_msg.raw_len;
                st.sum[st.n] = digest(st_msg.raw, st_msg.raw_len);
                st.nfields[st.n] = st_msg.n;
                st.kind[st.n] = (uint8_t)r;
            }
            st.n++;
        }
        at += c;
    }
    st.garbled = stream.garbled;

    FZ_CHECK(st.n == ref.n);
    FZ_CHECK(st.garbled == ref.garbled);
    FZ_CHECK(stream.skipped == framer.skipped);
    for (size_t i = 0; i < ref.n && i < MAX_MSGS; i++) {
        FZ_CHECK(st.len[i] == ref.len[i]);
        FZ_CHECK(st.sum[i] == ref.sum[i]);
        FZ_CHECK(st.nfields[i] == ref.nfields[i]);
        FZ_CHECK(st.kind[i] == ref.kind[i]);
    }
    return 0;
}
