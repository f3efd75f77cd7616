/* Host tests of the zero-copy FIX receive path (fix/codec.c: fix_stream_next, the one-pass tokeniser with its
 * CheckSum and tag index, the 32-bit number parsers). Expectations come from the message texts built here
 * (fx_frame computes BodyLength and CheckSum on its own), from arithmetic done in the test, and, for random
 * streams, from the copying framer plus fix_parse (the reference the session used before). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fix_fixtures.h"

#define HB1 "35=0|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|"
#define W180                                                                                        \
    "35=W|34=17|49=EXCH|52=20261125-13:04:04.298|56=TFISH1|55=MSFT|262=MD1|268=3|269=0|270=99.75|" \
    "271=100|290=1|269=1|270=100.25|271=100|290=1|269=2|270=100|271=100|"

static uint32_t rng = 12345u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* What the stream delivered: each message's bytes (from its raw pointer), field count and kind (FIX_FRAME_OK, or
 * FIX_FRAME_TOO_LONG: the bytes are the first ones of a longer message, n_too_long counts them). */
typedef struct {
    fix_stream_t st;
    fix_msg_t m;
    int n_ok, n_garbled, n_too_long;
    uint8_t msgs[16][FIX_MAX_MSG_LEN];
    size_t lens[16];
    unsigned nfields[16];
    int kinds[16];
} ssink_t;

static void ssink_push(ssink_t *k, const uint8_t *p, size_t n)
{
    for (;;) {
        fix_frame_res_t r = fix_stream_next(&k->st, &p, &n, &k->m);
        if (r == FIX_FRAME_NEED_MORE) {
            assert_int_equal(n, 0);
            return;
        }
        if (r == FIX_FRAME_GARBLED) {
            k->n_garbled++;
            continue;
        }
        if (r == FIX_FRAME_TOO_LONG) k->n_too_long++;
        else assert_int_equal(r, FIX_FRAME_OK);
        int i = k->n_ok++ % 16;
        assert_true(k->m.raw_len <= FIX_MAX_MSG_LEN);
        memcpy(k->msgs[i], k->m.raw, k->m.raw_len);
        k->lens[i] = k->m.raw_len;
        k->nfields[i] = k->m.n;
        k->kinds[i] = (int)r;
    }
}

static void check_field(const fix_msg_t *m, uint32_t tag, const char *val)
{
    const fix_field_t *f = fix_msg_get(m, tag);
    assert_non_null(f);
    assert_int_equal(f->len, strlen(val));
    assert_memory_equal(f->val, val, f->len);
}

/* A whole message in one chunk is parsed where it lies: the fields point into the caller's bytes. */
static void test_stream_in_place_no_copy(void **st)
{
    (void)st;
    uint8_t b[512];
    size_t n = fx_frame(b, sizeof b, W180);
    assert_int_equal(n, 182); /* the 180-byte class the firmware's target is set for */
    fix_stream_t s;
    fix_stream_init(&s);
    fix_msg_t m;
    const uint8_t *p = b;
    size_t len = n;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_OK);
    assert_ptr_equal(m.raw, b);
    assert_int_equal(m.raw_len, n);
    assert_int_equal(len, 0);
    assert_int_equal(s.len, 0); /* nothing gathered */
    assert_int_equal(m.err, FIX_PERR_NONE);
    assert_int_equal(m.n, 22); /* 8 9 35 34 49 52 56 55 262 268, 3 x (269 270 271) + 2 x 290, 10 */
    check_field(&m, 35, "W");
    check_field(&m, 34, "17");
    check_field(&m, 52, "20261125-13:04:04.298");
    check_field(&m, 268, "3");
    check_field(&m, 262, "MD1");
    assert_ptr_equal(fix_msg_get(&m, 270)->val, (const char *)b + (strstr((char *)b, "270=99.75") - (char *)b) + 4);
    assert_int_equal(m.dup, 0);
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_NEED_MORE);
}

/* The head of a message the receive parser took (an undecided head, DESIGN.md "Digesting market data") is dropped,
 * at every length, also right after a message returned from the framer's buffer: the next bytes are a message of
 * their own, parsed whole, and nothing is counted garbled. */
static void test_stream_drop_partial(void **st)
{
    (void)st;
    uint8_t w[512], hb[256];
    size_t nw = fx_frame(w, sizeof w, W180), nh = fx_frame(hb, sizeof hb, HB1);
    for (size_t cut = 1; cut < nw; cut++) {
        ssink_t *k = calloc(1, sizeof *k);
        fix_stream_init(&k->st);
        ssink_push(k, w, cut);                       /* a head */
        assert_int_equal(fix_stream_drop_partial(&k->st), cut);
        assert_int_equal(fix_stream_drop_partial(&k->st), 0);
        ssink_push(k, hb, nh);                       /* what follows the hardware's message */
        assert_int_equal(k->n_ok, 1);
        assert_int_equal(k->n_garbled, 0);
        assert_int_equal(k->lens[0], nh);
        assert_memory_equal(k->msgs[0], hb, nh);
        /* a message gathered in the buffer and returned, then a head: only the head is dropped */
        ssink_push(k, hb, 7);
        uint8_t rest[768];
        memcpy(rest, hb + 7, nh - 7);
        memcpy(rest + nh - 7, w, cut);
        ssink_push(k, rest, nh - 7 + cut);
        assert_int_equal(k->n_ok, 2);
        assert_int_equal(fix_stream_drop_partial(&k->st), cut);
        ssink_push(k, hb, nh);
        assert_int_equal(k->n_ok, 3);
        assert_int_equal(k->n_garbled, 0);
        free(k);
    }
}

/* Split into two chunks at every byte position, for one message and for three in a row. */
static void test_stream_split_at_every_position(void **st)
{
    (void)st;
    uint8_t one[512], three[1024];
    size_t n1 = fx_frame(one, sizeof one, W180);
    size_t n3 = 0;
    n3 += fx_frame(three + n3, sizeof three - n3, HB1);
    n3 += fx_frame(three + n3, sizeof three - n3, W180);
    n3 += fx_frame(three + n3, sizeof three - n3, HB1);
    for (int which = 0; which < 2; which++) {
        const uint8_t *b = which ? three : one;
        size_t n = which ? n3 : n1;
        for (size_t cut = 0; cut <= n; cut++) {
            ssink_t *k = calloc(1, sizeof *k);
            fix_stream_init(&k->st);
            ssink_push(k, b, cut);
            ssink_push(k, b + cut, n - cut);
            assert_int_equal(k->n_garbled, 0);
            assert_int_equal(k->n_ok, which ? 3 : 1);
            size_t at = 0;
            for (int i = 0; i < k->n_ok; i++) {
                assert_memory_equal(k->msgs[i], b + at, k->lens[i]);
                at += k->lens[i];
            }
            assert_int_equal(at, n);
            assert_int_equal(k->st.skipped, 0);
            free(k);
        }
    }
}

static void test_stream_byte_by_byte(void **st)
{
    (void)st;
    uint8_t b[512];
    size_t n = fx_frame(b, sizeof b, W180);
    ssink_t *k = calloc(1, sizeof *k);
    fix_stream_init(&k->st);
    for (size_t i = 0; i < n; i++) ssink_push(k, b + i, 1);
    assert_int_equal(k->n_ok, 1);
    assert_int_equal(k->nfields[0], 22);
    assert_memory_equal(k->msgs[0], b, n);
    free(k);
}

/* Garbage before, between and split around messages: every garbage byte is counted as skipped, exactly. */
static void test_stream_garbage_counted_exactly(void **st)
{
    (void)st;
    uint8_t b[1024];
    size_t n = 0;
    memcpy(b, "xx88=FI", 7); /* "8=FI" then 'x': a prefix that does not continue */
    n = 7;
    b[n++] = 'x';
    size_t m1 = fx_frame(b + n, sizeof b - n, HB1);
    n += m1;
    memcpy(b + n, "garbage 8=", 10);
    n += 10;
    b[n++] = 'Q';
    size_t m2 = fx_frame(b + n, sizeof b - n, W180);
    n += m2;
    for (size_t cut = 0; cut <= n; cut += 3) {
        ssink_t *k = calloc(1, sizeof *k);
        fix_stream_init(&k->st);
        ssink_push(k, b, cut);
        ssink_push(k, b + cut, n - cut);
        assert_int_equal(k->n_ok, 2);
        assert_int_equal(k->n_garbled, 0);
        assert_int_equal(k->st.skipped, 8 + 11);
        free(k);
    }
}

/* A bad CheckSum, a BodyLength too short, too long, not a number: the frame is dropped and counted, the next
 * one is delivered. */
static void test_stream_bad_checksum_and_bodylength(void **st)
{
    (void)st;
    uint8_t good[512], bad[512];
    size_t gn = fx_frame(good, sizeof good, HB1);
    for (int kind = 0; kind < 4; kind++) {
        memcpy(bad, good, gn);
        size_t bn = gn;
        char *s = (char *)bad;
        if (kind == 0) { /* CheckSum off by one */
            char *cs = s + gn - 4;
            cs[2] = cs[2] == '9' ? '0' : (char)(cs[2] + 1);
        } else if (kind == 1 || kind == 2) { /* BodyLength 1 too short or too long */
            char *bl = strstr(s, "\x01" "9=") + 3;
            int v = atoi(bl) + (kind == 1 ? -1 : 1);
            char tmp[8];
            snprintf(tmp, sizeof tmp, "%d", v);
            assert_int_equal(strlen(tmp), 2);
            memcpy(bl, tmp, 2);
        } else { /* not a number */
            strstr(s, "\x01" "9=")[3] = 'x';
        }
        for (size_t cut = 0; cut <= bn + gn; cut += 5) {
            uint8_t both[1024];
            memcpy(both, bad, bn);
            memcpy(both + bn, good, gn);
            ssink_t *k = calloc(1, sizeof *k);
            fix_stream_init(&k->st);
            ssink_push(k, both, cut);
            ssink_push(k, both + cut, bn + gn - cut);
            assert_int_equal(k->n_garbled, 1);
            assert_int_equal(k->st.garbled, 1);
            assert_int_equal(k->n_ok, 1);
            assert_memory_equal(k->msgs[0], good, gn);
            free(k);
        }
    }
}

/* A BodyLength beyond the buffer is dropped at once, not waited for. */
static void test_stream_huge_bodylength_not_buffered(void **st)
{
    (void)st;
    const char *huge = "8=FIX.4.4\x01" "9=99999\x01" "35=0\x01";
    uint8_t good[256];
    size_t gn = fx_frame(good, sizeof good, HB1);
    ssink_t *k = calloc(1, sizeof *k);
    fix_stream_init(&k->st);
    ssink_push(k, (const uint8_t *)huge, strlen(huge));
    assert_int_equal(k->n_garbled, 1);
    assert_true(k->st.len < 8);
    ssink_push(k, good, gn);
    assert_int_equal(k->n_ok, 1);
    free(k);
}

/* Duplicate tags: the once-only tags the session checks are flagged, others are not, first occurrences kept. */
static void test_stream_duplicate_tags_flagged(void **st)
{
    (void)st;
    uint8_t b[512];
    size_t n = fx_frame(b, sizeof b, "35=0|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|34=3|58=a|58=b|");
    fix_stream_t s;
    fix_stream_init(&s);
    fix_msg_t m;
    const uint8_t *p = b;
    size_t len = n;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_OK);
    assert_true(fix_msg_dup(&m, FIX_SLOT_34));
    for (int k = 0; k < FIX_SLOT_ONCE_N; k++)
        if (k != FIX_SLOT_34) assert_false(fix_msg_dup(&m, k));
    check_field(&m, 34, "2");  /* the first one */
    check_field(&m, 58, "a");
    assert_int_equal(fix_msg_count(&m, 58), 2);
    /* The index is not cleared between messages: a message without 34 after one with it has no 34. */
    n = fx_frame(b, sizeof b, "35=0|49=EXCH|56=TFISH|");
    p = b;
    len = n;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_OK);
    assert_null(fix_msg_get(&m, 34));
    assert_null(fix_msg_get(&m, 58));
    assert_int_equal(m.dup, 0);
}

/* What the stream's parse of a whole frame gives (its header and trailer not tokenised again where frame_header read
 * them) is what fix_parse gives for the same bytes: every field, the error, the sum, the duplicate bits and the fields
 * past the kept ones; a frame with a CheckSum field right before its trailer is garbled. The frames: the usual 35=W
 * and Heartbeat, other BeginStrings (empty, longer), BodyLength with leading zeros, a trailer of another form, and
 * bodies that fill the kept fields up to and past FIX_MAX_FIELDS. */
static size_t frame_with(uint8_t *out, size_t cap, const char *begin, int bl_pad, const char *body, bool trailer_ok)
{
    size_t bl = strlen(body);
    int hl = snprintf((char *)out, cap, "8=%s|9=%0*zu|", begin, bl_pad, bl);
    memcpy(out + hl, body, bl);
    size_t n = (size_t)hl + bl;
    for (size_t i = 0; i < n; i++)
        if (out[i] == '|') out[i] = 0x01;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) sum += out[i];
    n += (size_t)snprintf((char *)out + n, cap - n, "10=%03u|", (sum + !trailer_ok) % 256u); /* (off by one: bad) */
    out[n - 1] = 0x01;
    return n;
}

static void assert_same_msg(const fix_msg_t *a, const fix_msg_t *b)
{
    assert_int_equal(a->n, b->n);
    for (unsigned i = 0; i < a->n; i++) {
        assert_int_equal(a->f[i].tag, b->f[i].tag);
        assert_int_equal(a->f[i].len, b->f[i].len);
        assert_ptr_equal(a->f[i].val, b->f[i].val);
    }
    assert_int_equal(a->err, b->err);
    assert_int_equal(a->err_tag, b->err_tag);
    assert_int_equal(a->sum, b->sum);
    assert_int_equal(a->dup, b->dup);
    assert_int_equal(a->n_rest, b->n_rest);
    assert_ptr_equal(a->rest, b->rest);
    assert_int_equal(a->n_late, b->n_late);
    assert_ptr_equal(a->raw, b->raw);
    assert_int_equal(a->raw_len, b->raw_len);
}

static void test_stream_header_and_trailer_as_fix_parse(void **st)
{
    (void)st;
    static char many[4][4096];
    for (int k = 0; k < 4; k++) { /* 60 to 63 body fields: with 8 and 9, the kept fields 62 to 65 before the trailer */
        size_t o = (size_t)sprintf(many[k], "35=0|");
        for (int i = 0; i < 58 + k; i++) o += (size_t)sprintf(many[k] + o, "%d=v%d|", 5000 + i, i);
        o += (size_t)sprintf(many[k] + o, "58=end|");
    }
    const char *bodies[] = {W180, HB1, "35=0|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|34=3|58=a|58=b|",
                            "35=0|", "35=0|10=123|58=x|", many[0], many[1], many[2], many[3]};
    const char *begins[] = {"FIX.4.4", "FIX.4.2", "FIXT.1.1", "FIX.4.4x"};
    int n_checked = 0;
    for (size_t bi = 0; bi < sizeof bodies / sizeof bodies[0]; bi++)
        for (size_t gi = 0; gi < sizeof begins / sizeof begins[0]; gi++)
            for (int pad = 0; pad <= 5; pad += 5)
                for (int tok = 0; tok <= 1; tok++) {
                    static uint8_t b[4200];
                    size_t n = frame_with(b, sizeof b, begins[gi], pad, bodies[bi], tok);
                    if (n > FIX_MAX_MSG_LEN) continue;
                    fix_stream_t s;
                    fix_stream_init(&s);
                    fix_msg_t m, ref;
                    const uint8_t *p = b;
                    size_t len = n;
                    fix_frame_res_t r = fix_stream_next(&s, &p, &len, &m);
                    fix_parse(&ref, b, n);
                    if (!tok || bi == 4) { /* a bad CheckSum, or a CheckSum field before the trailer */
                        assert_int_equal(r, FIX_FRAME_GARBLED);
                        continue;
                    }
                    assert_int_equal(r, FIX_FRAME_OK);
                    assert_same_msg(&m, &ref);
                    n_checked++;
                }
    assert_true(n_checked >= 40);
    /* A CheckSum field right before the trailer: garbled, as fix_parse says (CheckSum not last). */
    uint8_t b[512];
    size_t n = fx_frame(b, sizeof b, "35=0|34=2|10=000|");
    fix_stream_t s;
    fix_stream_init(&s);
    fix_msg_t m, ref;
    const uint8_t *p = b;
    size_t len = n;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_GARBLED);
    fix_parse(&ref, b, n);
    assert_int_equal(ref.err, FIX_PERR_CHECKSUM_NOT_LAST);
}

/* The slot hash gives exactly the listed tags their slots, and no other tag one. */
static void test_tag_slots_exact(void **st)
{
    (void)st;
    static const uint32_t tags[FIX_SLOTS] = {34, 35, 43, 49, 52, 56, 97, 122, 6, 7, 11, 14, 16, 17, 31, 32, 36,
                                             37, 39, 41, 45, 54, 55, 58, 98, 108, 112, 123, 150, 151, 262, 268, 281, 434};
    for (uint32_t t = 0; t < 200000; t++) {
        int want = -1;
        for (int k = 0; k < FIX_SLOTS; k++)
            if (tags[k] == t) want = k;
        assert_int_equal(fix_tag_slot(t), want);
    }
    assert_int_equal(fix_tag_slot(99999999u), -1);
    assert_int_equal(fix_tag_slot(34u + (1u << 31)), -1);
    /* The tokeniser does not look 269 to 280 up (parse_fields): none may be indexed. */
    for (uint32_t t = 269; t <= 280; t++) assert_int_equal(fix_tag_slot(t), -1);
}

/* Market data never refuses a number for its size: the floor at the decimals, and whether digits were lost
 * (then the number is strictly between the value and the value + 1). Expected values worked out by hand. */
static void test_numbers_trunc_floor_and_inexact(void **st)
{
    (void)st;
    int64_t v;
    bool x;
#define TRUNC(str, dec, want, wantx)                                                           \
    do {                                                                                       \
        assert_int_equal(fix_parse_decimal_trunc(str, strlen(str), dec, &v, &x), FIX_OK);      \
        assert_true(v == (want));                                                              \
        assert_int_equal(x, wantx);                                                            \
    } while (0)
    TRUNC("1170.25", 4, 11702500, false);
    TRUNC("1170.250000000000000", 4, 11702500, false);
    TRUNC("1170.25000000001", 4, 11702500, true);
    TRUNC("0.00009", 4, 0, true);
    TRUNC("-0.00009", 4, -1, true);
    TRUNC("-0.00000", 4, 0, false);
    TRUNC("-5.12345", 2, -513, true);
    TRUNC("12.", 0, 12, false);
    TRUNC(".5", 0, 0, true);
    TRUNC("000000000000000000000000000000042.5", 1, 425, false);
    TRUNC("92233720368547758070", 0, INT64_MAX, true);
    TRUNC("9223372036854775807", 0, INT64_MAX, false);
    TRUNC("9223372036854775807.1", 0, INT64_MAX, true);
    TRUNC("922337203685477580.8", 1, INT64_MAX, true);
#undef TRUNC
    assert_int_equal(fix_parse_decimal_trunc("1.2.3", 5, 4, &v, &x), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal_trunc("+1", 2, 4, &v, &x), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal_trunc("-", 1, 4, &v, &x), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal_trunc("1.99999x", 8, 4, &v, &x), FIX_E_FORMAT);
}

/* Prices with many fraction digits are exact (never rounded): extra zeros pass, an extra non-zero digit is out of
 * range; leading zeros are fine; values past 32 bits go on in 64 bits. Expected values computed here. */
static void test_numbers_exact(void **st)
{
    (void)st;
    int64_t v;
    assert_int_equal(fix_parse_decimal("1170.2500000000000", 17, 4, &v), FIX_OK);
    assert_true(v == 11702500);
    assert_int_equal(fix_parse_decimal("1170.25000000001", 16, 4, &v), FIX_E_RANGE);
    assert_int_equal(fix_parse_decimal("1170.12345", 10, 4, &v), FIX_E_RANGE);
    assert_int_equal(fix_parse_decimal("1170.1234", 9, 4, &v), FIX_OK);
    assert_true(v == 11701234);
    assert_int_equal(fix_parse_decimal("0.123456789", 11, 9, &v), FIX_OK);
    assert_true(v == 123456789);
    assert_int_equal(fix_parse_decimal("000000000000001170.5", 20, 4, &v), FIX_OK);
    assert_true(v == 11705000);
    assert_int_equal(fix_parse_decimal("-0099.75", 8, 2, &v), FIX_OK);
    assert_true(v == -9975);
    assert_int_equal(fix_parse_decimal("1234567890.123456789", 20, 9, &v), FIX_OK);
    assert_true(v == (int64_t)1234567890 * 1000000000 + 123456789);
    assert_int_equal(fix_parse_decimal("12345678901.123456789", 21, 9, &v), FIX_E_RANGE); /* past INT64_MAX */
    assert_int_equal(fix_parse_decimal("9223372036.854775808", 20, 9, &v), FIX_E_RANGE); /* INT64_MAX + 1 */
    assert_int_equal(fix_parse_decimal("9223372036.854775807", 20, 9, &v), FIX_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(fix_parse_decimal("1.2.3", 5, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal("1.99999x", 8, 4, &v), FIX_E_FORMAT); /* format wins over range */
    assert_int_equal(fix_parse_decimal(".", 1, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_int("0000000000000000000042", 22, &v), FIX_OK);
    assert_true(v == 42);
    assert_int_equal(fix_parse_int("4294967296", 10, &v), FIX_OK);
    assert_true(v == 4294967296ll);
    assert_int_equal(fix_parse_int("9223372036854775807", 19, &v), FIX_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(fix_parse_int("9223372036854775808", 19, &v), FIX_E_RANGE);
    /* Random decimals against the test's own arithmetic (value = integer digits * 10^d + fraction). */
    for (int i = 0; i < 20000; i++) {
        unsigned d = rnd() % 10, fd = rnd() % (d + 1), lz = rnd() % 4;
        uint64_t ip = rnd() % 1000000000u, fp = 0, scale = 1;
        char s[64];
        size_t n = 0;
        for (unsigned z = 0; z < lz; z++) s[n++] = '0';
        n += (size_t)snprintf(s + n, sizeof s - n, "%llu", (unsigned long long)ip);
        if (fd) {
            s[n++] = '.';
            for (unsigned k = 0; k < fd; k++) {
                unsigned dig = rnd() % 10;
                s[n++] = (char)('0' + dig);
                fp = fp * 10 + dig;
            }
        }
        for (unsigned k = 0; k < d - fd; k++) fp *= 10;
        for (unsigned k = 0; k < d; k++) scale *= 10;
        assert_int_equal(fix_parse_decimal(s, n, d, &v), FIX_OK);
        assert_true((uint64_t)v == ip * scale + fp);
    }
}

/* A message with more fields than kept is framed (its CheckSum covers every byte) and parsed: the rest counted. */
static void test_stream_too_many_fields_still_framed(void **st)
{
    (void)st;
    char body[2048];
    size_t n = (size_t)snprintf(body, sizeof body, "35=W|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|");
    for (int i = 0; i < FIX_MAX_FIELDS; i++) n += (size_t)snprintf(body + n, sizeof body - n, "58=%d|", i);
    uint8_t b[FIX_MAX_MSG_LEN];
    size_t bn = fx_frame(b, sizeof b, body);
    assert_true(bn > 0);
    fix_stream_t s;
    fix_stream_init(&s);
    fix_msg_t m;
    const uint8_t *p = b;
    size_t len = bn;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_OK);
    assert_int_equal(m.err, FIX_PERR_NONE);
    assert_int_equal(m.n, FIX_MAX_FIELDS);
    assert_int_equal(m.n + m.n_rest, 3 + 5 + FIX_MAX_FIELDS); /* 8, 9, 10; 35, 34, 49, 52, 56; the 58s */
}

/* A 35=W of about `size` bytes (trade entries), framed into b; returns its length. */
static size_t long_w(uint8_t *b, size_t cap, size_t size)
{
    static char body[70000];
    size_t n = (size_t)snprintf(body, sizeof body, "35=W|34=17|49=EXCH|52=20261125-13:04:04.298|56=TFISH1|55=MSFT|268=%u|",
                                (unsigned)(size / 23));
    for (unsigned e = 0; e < size / 23; e++) n += (size_t)snprintf(body + n, sizeof body - n, "269=2|270=%06u.25|271=7|", e);
    size_t len = fx_frame(b, cap, body);
    assert_true(len > size);
    return len;
}

/* A valid message longer than FIX_MAX_MSG_LEN, cut anywhere, between two heartbeats: the stream keeps its first
 * FIX_MAX_MSG_LEN bytes, skips the rest while summing it, checks the CheckSum, and delivers the whole fields of those
 * first bytes as FIX_FRAME_TOO_LONG (the header the session answers: 35, 34, 49, 56); nothing garbled, nothing
 * skipped as garbage, and the heartbeat after it whole. Its CheckSum wrong: garbled, and the heartbeat still whole.
 * A BodyLength past FIX_MAX_LONG_MSG_LEN: garbled at once. */
static void test_stream_too_long_message(void **st)
{
    (void)st;
    static uint8_t b[8000], w[3000];
    uint8_t hb[256];
    size_t nh = fx_frame(hb, sizeof hb, HB1), nw = long_w(w, sizeof w, 2500);
    for (int bad = 0; bad < 2; bad++) {
        size_t n = 0;
        memcpy(b, hb, nh);
        n = nh;
        memcpy(b + n, w, nw);
        if (bad) b[n + nw - 2] = b[n + nw - 2] == '0' ? '1' : '0'; /* the CheckSum's last digit */
        n += nw;
        memcpy(b + n, hb, nh);
        n += nh;
        for (size_t cut = 0; cut <= n; cut += (cut > nh + 1000 && cut < nh + 1040) ? 1 : 37) {
            for (size_t cut2 = cut; cut2 <= n; cut2 += (n - cut) / 3 + 1) {
                ssink_t *k = calloc(1, sizeof *k);
                fix_stream_init(&k->st);
                ssink_push(k, b, cut);
                ssink_push(k, b + cut, cut2 - cut);
                ssink_push(k, b + cut2, n - cut2);
                assert_int_equal(k->n_garbled, bad);
                assert_int_equal(k->n_too_long, !bad);
                assert_int_equal(k->n_ok, bad ? 2 : 3);
                assert_int_equal(k->st.skipped, 0);
                assert_int_equal(k->lens[0], nh);
                assert_memory_equal(k->msgs[bad ? 1 : 2], hb, nh);
                if (!bad) {
                    assert_int_equal(k->kinds[1], FIX_FRAME_TOO_LONG);
                    assert_true(k->lens[1] <= FIX_MAX_MSG_LEN && k->lens[1] > FIX_MAX_MSG_LEN - 24);
                    assert_memory_equal(k->msgs[1], w, k->lens[1]);
                    assert_int_equal(k->msgs[1][k->lens[1] - 1], 0x01);
                }
                free(k);
            }
        }
    }
    /* the fields of the first bytes, as the session reads them */
    fix_stream_t s;
    fix_stream_init(&s);
    fix_msg_t m;
    const uint8_t *p = w;
    size_t len = nw;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_TOO_LONG);
    assert_int_equal(len, 0);
    assert_int_equal(m.err, FIX_PERR_NONE);
    check_field(&m, 35, "W");
    check_field(&m, 34, "17");
    check_field(&m, 49, "EXCH");
    check_field(&m, 56, "TFISH1");
    check_field(&m, 55, "MSFT");
    assert_null(fix_msg_get(&m, 10));
    /* a BodyLength past the longest message skipped */
    char huge[64];
    int hn = snprintf(huge, sizeof huge, "8=FIX.4.4\x01" "9=%u\x01" "35=0\x01", (unsigned)FIX_MAX_LONG_MSG_LEN + 1u);
    fix_stream_init(&s);
    p = (const uint8_t *)huge;
    len = (size_t)hn;
    assert_int_equal(fix_stream_next(&s, &p, &len, &m), FIX_FRAME_GARBLED);
}

/* Random streams of good, mutated and junk bytes in random chunks: the stream delivers exactly what the copying
 * framer + fix_parse deliver (same messages, same fields, same garbled and skipped counts). */
static void test_stream_matches_copying_framer(void **st)
{
    (void)st;
    uint8_t good[3][512];
    size_t gn[3] = {fx_frame(good[0], 512, HB1), fx_frame(good[1], 512, W180),
                    fx_frame(good[2], 512, "35=8|34=9|49=EXCH|52=20260105-14:30:00.000|56=TFISH|6=0|14=0|58=x=y|")};
    static uint8_t longer[3000]; /* longer than FIX_MAX_MSG_LEN: delivered as FIX_FRAME_TOO_LONG */
    size_t ln = long_w(longer, sizeof longer, 2500);
    static uint8_t stream[200000];
    for (int round = 0; round < 20; round++) {
        size_t n = 0;
        while (n < sizeof stream - 3000) {
            uint32_t r = rnd() % 10;
            if (r < 6) {
                uint32_t which = rnd() % 13;
                const uint8_t *g = which == 12 ? longer : good[which % 3];
                size_t l = which == 12 ? ln : gn[which % 3];
                memcpy(stream + n, g, l);
                if (r == 5) { /* mutate or truncate */
                    if (rnd() & 1) stream[n + rnd() % l] = (uint8_t)rnd();
                    else l -= rnd() % l;
                }
                n += l;
            } else {
                size_t jl = rnd() % 40;
                for (size_t i = 0; i < jl; i++)
                    stream[n++] = (rnd() & 3) ? (uint8_t)"8=FIX.4.49\x01" "0123456789"[rnd() % 21] : (uint8_t)rnd();
            }
        }
        fix_framer_t *fr = calloc(1, sizeof *fr);
        fix_framer_init(fr);
        ssink_t *k = calloc(1, sizeof *k);
        fix_stream_init(&k->st);
        fix_msg_t *ref = calloc(1, sizeof *ref);
        static uint8_t rmsgs[16][FIX_MAX_MSG_LEN];
        static size_t rlens[16];
        static unsigned rfields[16];
        static int rkinds[16];
        int ref_ok = 0, ref_garbled = 0, ref_long = 0;
        size_t at = 0;
        while (at < n) {
            size_t c = 1 + rnd() % 700;
            if (c > n - at) c = n - at;
            int before = ref_ok;
            size_t fed = 0;
            while (fed < c) { /* the reference: copy, frame, then parse */
                fed += fix_framer_feed(fr, stream + at + fed, c - fed);
                for (;;) {
                    const uint8_t *msg;
                    size_t ml;
                    fix_frame_res_t res = fix_framer_next(fr, &msg, &ml);
                    if (res == FIX_FRAME_NEED_MORE) break;
                    if (res == FIX_FRAME_GARBLED) {
                        ref_garbled++;
                        continue;
                    }
                    fix_parse(ref, msg, ml);
                    ref_long += res == FIX_FRAME_TOO_LONG;
                    int i = ref_ok++ % 16;
                    memcpy(rmsgs[i], msg, ml);
                    rlens[i] = ml;
                    rfields[i] = ref->n;
                    rkinds[i] = (int)res;
                }
            }
            ssink_push(k, stream + at, c);
            at += c;
            assert_int_equal(k->n_ok, ref_ok);
            assert_int_equal(k->n_garbled, ref_garbled);
            assert_int_equal(k->n_too_long, ref_long);
            assert_int_equal(k->st.skipped, fr->skipped);
            assert_true(ref_ok - before <= 16);
            for (int j = before; j < ref_ok; j++) {
                assert_int_equal(k->lens[j % 16], rlens[j % 16]);
                assert_memory_equal(k->msgs[j % 16], rmsgs[j % 16], rlens[j % 16]);
                assert_int_equal(k->nfields[j % 16], rfields[j % 16]);
                assert_int_equal(k->kinds[j % 16], rkinds[j % 16]);
            }
        }
        assert_true(ref_ok > 100);
        assert_true(ref_long > 5);
        free(ref);
        free(fr);
        free(k);
    }
}

/* The largest message accepted whole; one byte more is delivered as FIX_FRAME_TOO_LONG, its first
 * FIX_MAX_MSG_LEN bytes up to their last SOH (all but its CheckSum); both split across chunks at a few places. */
static void test_stream_message_at_limit_and_over(void **st)
{
    (void)st;
    char body[FIX_MAX_MSG_LEN];
    static uint8_t m[2][FIX_MAX_MSG_LEN + 64];
    const char *pre = "35=0|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|58=";
    size_t fill = FIX_MAX_MSG_LEN - 7 /*10=ccc|*/ - 17 /*8=FIX.4.4|9=nnnn|*/ - strlen(pre) - 1;
    snprintf(body, sizeof body, "%s%0*d|", pre, (int)fill, 0);
    size_t n0 = fx_frame(m[0], sizeof m[0], body);
    assert_int_equal(n0, FIX_MAX_MSG_LEN);
    snprintf(body, sizeof body, "%s%0*d|", pre, (int)fill + 1, 0);
    size_t n1 = fx_frame(m[1], sizeof m[1], body);
    assert_int_equal(n1, FIX_MAX_MSG_LEN + 1);
    static const size_t cuts[] = {0, 1, 5, 17, 18, 500, FIX_MAX_MSG_LEN - 1, FIX_MAX_MSG_LEN};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        ssink_t *k = calloc(1, sizeof *k);
        fix_stream_init(&k->st);
        ssink_push(k, m[0], cuts[c]);
        ssink_push(k, m[0] + cuts[c], n0 - cuts[c]);
        assert_int_equal(k->n_ok, 1);
        assert_memory_equal(k->msgs[0], m[0], n0);
        ssink_push(k, m[1], cuts[c]);
        ssink_push(k, m[1] + cuts[c], n1 - cuts[c]);
        assert_int_equal(k->n_ok, 2);
        assert_int_equal(k->n_too_long, 1);
        assert_int_equal(k->n_garbled, 0);
        assert_int_equal(k->kinds[1], FIX_FRAME_TOO_LONG);
        assert_int_equal(k->lens[1], n1 - 7); /* every field but the CheckSum, which ends past the first bytes */
        assert_memory_equal(k->msgs[1], m[1], n1 - 7);
        check_field(&k->m, 35, "0");
        check_field(&k->m, 34, "2");
        assert_int_equal(fix_msg_get(&k->m, 58)->len, fill + 1);
        assert_null(fix_msg_get(&k->m, 10));
        free(k);
    }
}

/* A message cut short waits for the rest, then completes; a zero-padded BodyLength and MsgSeqNum are fine. */
static void test_stream_truncated_waits_and_zero_padding(void **st)
{
    (void)st;
    char hand[512];
    const char *body = "35=0\x01" "34=000042\x01" "49=EXCH\x01" "52=20260105-14:30:00.000\x01" "56=TFISH\x01";
    int bl = (int)strlen(body);
    int hl = snprintf(hand, sizeof hand, "8=FIX.4.4\x01" "9=%05d\x01", bl);
    memcpy(hand + hl, body, (size_t)bl);
    unsigned sum = 0;
    for (int i = 0; i < hl + bl; i++) sum += (uint8_t)hand[i];
    int tl = snprintf(hand + hl + bl, 16, "10=%03u\x01", sum % 256u);
    size_t n = (size_t)(hl + bl + tl);
    ssink_t *k = calloc(1, sizeof *k);
    fix_stream_init(&k->st);
    ssink_push(k, (const uint8_t *)hand, n - 4);
    assert_int_equal(k->n_ok, 0);
    assert_int_equal(k->n_garbled, 0);
    ssink_push(k, (const uint8_t *)hand + n - 4, 4);
    assert_int_equal(k->n_ok, 1);
    uint32_t seq;
    assert_int_equal(fix_msg_get_u32(&k->m, 34, &seq), FIX_OK);
    assert_int_equal(seq, 42);
    free(k);
}

/* The 32-bit loop fix_parse_decimal takes for 1 to 9 digits with at most `decimals` after one '.', at its edges,
 * and the general loop just past them: the same values either way. Expected values worked out by hand here. */
static void test_numbers_fast_path_edges(void **st)
{
    (void)st;
    int64_t v;
    bool x;
    assert_int_equal(fix_parse_decimal("123456789", 9, 0, &v), FIX_OK); /* 9 digits: the 32-bit loop */
    assert_true(v == 123456789);
    assert_int_equal(fix_parse_decimal("123456789", 9, 9, &v), FIX_OK);
    assert_true(v == 123456789000000000);
    assert_int_equal(fix_parse_decimal("999999999", 9, 9, &v), FIX_OK);
    assert_true(v == 999999999000000000);
    assert_int_equal(fix_parse_decimal("1234567890", 10, 0, &v), FIX_OK); /* 10 digits: the general loop */
    assert_true(v == 1234567890);
    assert_int_equal(fix_parse_decimal("12345678.9", 10, 1, &v), FIX_OK); /* 9 digits and a '.' */
    assert_true(v == 123456789);
    assert_int_equal(fix_parse_decimal("12345678.9", 10, 0, &v), FIX_E_RANGE); /* a nonzero decimal too many */
    assert_int_equal(fix_parse_decimal("12345678.90", 11, 1, &v), FIX_OK);   /* a zero decimal too many */
    assert_true(v == 123456789);
    assert_int_equal(fix_parse_decimal("0.0001", 6, 4, &v), FIX_OK);
    assert_true(v == 1);
    assert_int_equal(fix_parse_decimal("0.0001", 6, 3, &v), FIX_E_RANGE);
    assert_int_equal(fix_parse_decimal("0.0000", 6, 3, &v), FIX_OK);
    assert_true(v == 0);
    assert_int_equal(fix_parse_decimal(".5", 2, 1, &v), FIX_OK);
    assert_true(v == 5);
    assert_int_equal(fix_parse_decimal("5.", 2, 2, &v), FIX_OK);
    assert_true(v == 500);
    assert_int_equal(fix_parse_decimal("99.7", 4, 4, &v), FIX_OK);
    assert_true(v == 997000);
    assert_int_equal(fix_parse_decimal("-0.5", 4, 1, &v), FIX_OK);
    assert_true(v == -5);
    assert_int_equal(fix_parse_decimal(".", 1, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal("", 0, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal("1..2", 4, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal("1.2x", 4, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal("1 ", 2, 4, &v), FIX_E_FORMAT);
    assert_int_equal(fix_parse_decimal("1", 1, FIX_MAX_DECIMALS + 1, &v), FIX_E_RANGE);
    /* market data keeps the exact rule: a price with more decimals than configured is flagged, never rounded */
    assert_int_equal(fix_parse_decimal_trunc("99.75", 5, 1, &v, &x), FIX_OK);
    assert_true(v == 997 && x);
    assert_int_equal(fix_parse_decimal_trunc("99.7", 4, 4, &v, &x), FIX_OK);
    assert_true(v == 997000 && !x);
}

/* fix_utc_parse reads seven digit pairs at fixed places and keeps the first three fraction digits; the date's epoch
 * comes from a one-entry cache keyed by the date. Epoch values from Python's datetime (UTC). */
static void test_utc_parse_pairs_and_date_cache(void **st)
{
    (void)st;
    uint64_t ms;
    const uint64_t t0 = 1767623400000ull; /* 2026-01-05 14:30:00 */
    assert_true(fix_utc_parse("20260105-14:30:00.1", 19, &ms));
    assert_true(ms == t0 + 100);
    assert_true(fix_utc_parse("20260105-14:30:00.12", 20, &ms));
    assert_true(ms == t0 + 120);
    assert_true(fix_utc_parse("20260105-14:30:00.987654321", 27, &ms));
    assert_true(ms == t0 + 987);
    assert_false(fix_utc_parse("20260105-14:30:00.1234567890", 28, &ms)); /* 10 fraction digits */
    assert_false(fix_utc_parse("20260105-14:30:00.12x", 21, &ms));
    assert_false(fix_utc_parse("20260105-14:30:00x123", 21, &ms));
    /* a non-digit in any of the 14 digit places: just below '0', just above '9', a letter */
    static const char good[] = "20260105-14:30:00";
    static const unsigned places[] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13, 15, 16};
    for (unsigned i = 0; i < sizeof places / sizeof places[0]; i++) {
        for (const char *bad = "/:a"; *bad; bad++) {
            char t[18];
            memcpy(t, good, sizeof t);
            t[places[i]] = *bad;
            assert_false(fix_utc_parse(t, 17, &ms));
        }
    }
    assert_false(fix_utc_parse("20260105:14:30:00", 17, &ms));
    assert_false(fix_utc_parse("20260105-14-30:00", 17, &ms));
    assert_false(fix_utc_parse("20260105-14:30-00", 17, &ms));
    assert_false(fix_utc_parse("19691231-23:59:59", 17, &ms));
    assert_true(fix_utc_parse("19700101-00:00:00", 17, &ms));
    assert_true(ms == 0);
    assert_false(fix_utc_parse("20260005-14:30:00", 17, &ms));
    assert_false(fix_utc_parse("20260100-14:30:00", 17, &ms));
    assert_false(fix_utc_parse("20260132-14:30:00", 17, &ms));
    assert_false(fix_utc_parse("20260105-24:00:00", 17, &ms));
    assert_false(fix_utc_parse("20260105-14:60:00", 17, &ms));
    assert_false(fix_utc_parse("20260105-14:30:61", 17, &ms));
    assert_true(fix_utc_parse("20260105-14:30:60", 17, &ms)); /* a leap second */
    assert_true(ms == t0 + 60000);
    /* the cache follows the date: another date, then back */
    assert_true(fix_utc_parse("20240229-12:00:00", 17, &ms));
    assert_true(ms == 1709208000000ull);
    assert_true(fix_utc_parse("20260228-23:59:59.5", 19, &ms));
    assert_true(ms == 1772323199500ull);
    assert_true(fix_utc_parse("20260105-14:30:00", 17, &ms));
    assert_true(ms == t0);
}

/* The date is cached by its 8 characters and compared, not parsed: a session's timestamps across midnight, a bad
 * time on the cached date, and a bad date (never cached) after a good one. Epoch values from Python's datetime. */
static void test_utc_parse_cached_date_across_midnight(void **st)
{
    (void)st;
    uint64_t ms;
    assert_true(fix_utc_parse("20261231-23:59:59.999", 21, &ms));
    assert_true(ms == 1798761599999ull);
    assert_true(fix_utc_parse("20261231-23:59:60", 17, &ms)); /* the cached date, a leap second */
    assert_true(ms == 1798761600000ull);
    assert_true(fix_utc_parse("20270101-00:00:00.000", 21, &ms)); /* the next day: parsed, then cached */
    assert_true(ms == 1798761600000ull);
    assert_true(fix_utc_parse("20270101-00:00:00.001", 21, &ms));
    assert_true(ms == 1798761600001ull);
    assert_false(fix_utc_parse("20270101-24:00:00", 17, &ms));  /* the cached date does not excuse the time */
    assert_false(fix_utc_parse("20270101-00:00:0x", 17, &ms));
    assert_false(fix_utc_parse("20270132-00:00:00", 17, &ms));  /* a bad date is not cached... */
    assert_false(fix_utc_parse("20270132-00:00:00", 17, &ms));  /* ...so it fails again */
    assert_false(fix_utc_parse("2027010x-00:00:00", 17, &ms));
    assert_true(fix_utc_parse("20270101-00:00:01", 17, &ms));   /* and the good date still reads */
    assert_true(ms == 1798761601000ull);
    assert_true(fix_utc_parse("20261231-23:59:59", 17, &ms));   /* back across midnight */
    assert_true(ms == 1798761599000ull);
}

/* fix_field_eq compares in one pass (no strlen): the whole value and the whole string, a NUL in a value included. */
static void test_field_eq(void **st)
{
    (void)st;
    fix_field_t f = {56, 4, "EXCH"};
    assert_true(fix_field_eq(&f, "EXCH"));
    assert_false(fix_field_eq(&f, "EXC"));
    assert_false(fix_field_eq(&f, "EXCHX"));
    assert_false(fix_field_eq(&f, "EXCX"));
    assert_false(fix_field_eq(&f, ""));
    fix_field_t z = {56, 4, "EX\0H"};
    assert_false(fix_field_eq(&z, "EX"));
    fix_field_t e = {56, 0, ""};
    assert_true(fix_field_eq(&e, ""));
    assert_false(fix_field_eq(&e, "A"));
    assert_false(fix_field_eq(NULL, "EXCH"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_in_place_no_copy),
        cmocka_unit_test(test_stream_drop_partial),
        cmocka_unit_test(test_stream_split_at_every_position),
        cmocka_unit_test(test_stream_byte_by_byte),
        cmocka_unit_test(test_stream_garbage_counted_exactly),
        cmocka_unit_test(test_stream_bad_checksum_and_bodylength),
        cmocka_unit_test(test_stream_huge_bodylength_not_buffered),
        cmocka_unit_test(test_stream_duplicate_tags_flagged),
        cmocka_unit_test(test_stream_header_and_trailer_as_fix_parse),
        cmocka_unit_test(test_tag_slots_exact),
        cmocka_unit_test(test_numbers_exact),
        cmocka_unit_test(test_numbers_fast_path_edges),
        cmocka_unit_test(test_utc_parse_pairs_and_date_cache),
        cmocka_unit_test(test_utc_parse_cached_date_across_midnight),
        cmocka_unit_test(test_field_eq),
        cmocka_unit_test(test_numbers_trunc_floor_and_inexact),
        cmocka_unit_test(test_stream_too_many_fields_still_framed),
        cmocka_unit_test(test_stream_matches_copying_framer),
        cmocka_unit_test(test_stream_too_long_message),
        cmocka_unit_test(test_stream_message_at_limit_and_over),
        cmocka_unit_test(test_stream_truncated_waits_and_zero_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
