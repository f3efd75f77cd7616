/* Host tests of fix/codec.c and fix/utc.c: framing (split, batched, garbage, garbled, huge, truncated),
 * parsing, repeating groups, fixed-point decimals, the builder, UTC conversion, and fuzz loops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fix_fixtures.h"

#define HB1 "35=0|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|"
#define HB2 "35=0|34=3|49=EXCH|52=20260105-14:30:01.000|56=TFISH|"
#define W_PAPER                                                                                     \
    "35=W|34=7|49=EXCH|52=20260105-14:30:02.000|56=TFISH|55=AAPL|262=MD1|268=3|"                   \
    "269=0|270=1170.25|271=100|290=1|269=1|270=1170.50|271=200|290=1|269=2|270=1170.30|271=5|"

/* Collects what the framer delivers. */
typedef struct {
    fix_framer_t f;
    int n_ok, n_garbled, n_long; /* n_long: FIX_FRAME_TOO_LONG (not in n_ok) */
    char last[FIX_MAX_MSG_LEN + 1];
    size_t last_len;
} sink_t;

static void sink_push(sink_t *k, const uint8_t *p, size_t n)
{
    while (n) {
        size_t took = fix_framer_feed(&k->f, p, n);
        p += took;
        n -= took;
        for (;;) {
            const uint8_t *m;
            size_t ml;
            fix_frame_res_t r = fix_framer_next(&k->f, &m, &ml);
            if (r == FIX_FRAME_NEED_MORE) break;
            if (r == FIX_FRAME_GARBLED) {
                k->n_garbled++;
                continue;
            }
            if (r == FIX_FRAME_TOO_LONG) k->n_long++;
            else k->n_ok++;
            memcpy(k->last, m, ml);
            k->last[ml] = '\0';
            k->last_len = ml;
            assert_true(k->f.len <= sizeof k->f.buf);
        }
        if (took == 0 && n) {
            /* The framer must always make room: a full buffer is a delivered or dropped frame, or the first bytes of
             * a message longer than it, whose rest the next feed takes. */
            assert_true(k->f.len < sizeof k->f.buf || k->f.skip.left);
        }
    }
}

static void test_codec_one_message(void **st)
{
    (void)st;
    sink_t k = {0};
    fix_framer_init(&k.f);
    uint8_t m[256];
    size_t n = fx_frame(m, sizeof m, HB1);
    sink_push(&k, m, n);
    assert_int_equal(k.n_ok, 1);
    assert_int_equal(k.last_len, n);
    assert_memory_equal(k.last, m, n);
}

static void test_codec_split_across_chunks_every_position(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n = fx_frame(m, sizeof m, HB1);
    n += fx_frame(m + n, sizeof m - n, HB2);
    for (size_t cut1 = 0; cut1 <= n; cut1++) {
        for (size_t cut2 = cut1; cut2 <= n; cut2 += 7) {
            sink_t k = {0};
            fix_framer_init(&k.f);
            sink_push(&k, m, cut1);
            sink_push(&k, m + cut1, cut2 - cut1);
            sink_push(&k, m + cut2, n - cut2);
            assert_int_equal(k.n_ok, 2);
            assert_int_equal(k.n_garbled, 0);
            assert_non_null(strstr(k.last, "34=3\x01"));
        }
    }
}

static void test_codec_byte_by_byte(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n = fx_frame(m, sizeof m, W_PAPER);
    sink_t k = {0};
    fix_framer_init(&k.f);
    for (size_t i = 0; i < n; i++) sink_push(&k, m + i, 1);
    assert_int_equal(k.n_ok, 1);
}

static void test_codec_several_in_one_chunk(void **st)
{
    (void)st;
    uint8_t m[1024];
    size_t n = 0;
    for (int i = 0; i < 5; i++) n += fx_frame(m + n, sizeof m - n, i % 2 ? HB2 : HB1);
    sink_t k = {0};
    fix_framer_init(&k.f);
    sink_push(&k, m, n);
    assert_int_equal(k.n_ok, 5);
    assert_int_equal(k.n_garbled, 0);
}

static void test_codec_garbage_before_and_between(void **st)
{
    (void)st;
    uint8_t m[1024];
    size_t n = 0;
    memcpy(m, "xx8=FI\x01junk8", 12);
    n = 12;
    n += fx_frame(m + n, sizeof m - n, HB1);
    memcpy(m + n, "\x00\xff garbage 9=12\x01", 15);
    n += 15;
    n += fx_frame(m + n, sizeof m - n, HB2);
    sink_t k = {0};
    fix_framer_init(&k.f);
    sink_push(&k, m, n);
    assert_int_equal(k.n_ok, 2);
    assert_int_equal(k.n_garbled, 0);
    assert_true(k.f.skipped >= 27);
}

static void test_codec_bad_checksum_dropped_next_delivered(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n1 = fx_frame(m, sizeof m, HB1);
    m[n1 - 2] = m[n1 - 2] == '0' ? '1' : '0'; /* last checksum digit */
    size_t n = n1 + fx_frame(m + n1, sizeof m - n1, HB2);
    sink_t k = {0};
    fix_framer_init(&k.f);
    sink_push(&k, m, n);
    assert_int_equal(k.n_garbled, 1);
    assert_int_equal(k.n_ok, 1);
    assert_non_null(strstr(k.last, "34=3\x01"));
}

static void test_codec_bad_bodylength_dropped_next_delivered(void **st)
{
    (void)st;
    for (int delta = -3; delta <= 3; delta++) {
        if (delta == 0) continue;
        char body[] = HB1;
        uint8_t m[512];
        size_t n1 = fx_frame(m, sizeof m, body);
        /* rewrite 9=<len> with len+delta, same number of digits, checksum left as computed before */
        char *p = strstr((char *)m, "\x01" "9=") + 3;
        int len = atoi(p) + delta;
        char d[8];
        snprintf(d, sizeof d, "%d", len);
        memcpy(p, d, strlen(d));
        size_t n = n1 + fx_frame(m + n1, sizeof m - n1, HB2);
        sink_t k = {0};
        fix_framer_init(&k.f);
        sink_push(&k, m, n);
        assert_int_equal(k.n_ok, 1);
        assert_true(k.n_garbled >= 1);
        assert_non_null(strstr(k.last, "34=3\x01"));
    }
}

static void test_codec_huge_bodylength_dropped_without_buffering(void **st)
{
    (void)st;
    sink_t k = {0};
    fix_framer_init(&k.f);
    const char *h = "8=FIX.4.4\x01" "9=99999999\x01" "35=0\x01";
    sink_push(&k, (const uint8_t *)h, strlen(h));
    assert_int_equal(k.n_garbled, 1);
    assert_true(k.f.len == 0); /* nothing kept waiting for 100 MB */
    /* Too many digits, even zeros, is garbled too. */
    const char *h2 = "8=FIX.4.4\x01" "9=0000000000012\x01";
    sink_push(&k, (const uint8_t *)h2, strlen(h2));
    assert_int_equal(k.n_garbled, 2);
    /* A BodyLength past the longest message skipped (FIX_MAX_LONG_MSG_LEN) by one. */
    char h3[64];
    snprintf(h3, sizeof h3, "8=FIX.4.4\x01" "9=%d\x01", FIX_MAX_LONG_MSG_LEN + 1);
    sink_push(&k, (const uint8_t *)h3, strlen(h3));
    assert_int_equal(k.n_garbled, 3);
    assert_int_equal(k.n_ok, 0);
    assert_int_equal(k.n_long, 0);
}

/* Exactly FIX_MAX_MSG_LEN: delivered whole; one byte more: FIX_FRAME_TOO_LONG, its first bytes up to their last SOH
 * (all but its CheckSum), not garbled. */
static void test_codec_message_just_under_limit_accepted_and_over_too_long(void **st)
{
    (void)st;
    /* Build a message whose total length is exactly FIX_MAX_MSG_LEN. */
    char body[FIX_MAX_MSG_LEN];
    uint8_t m[FIX_MAX_MSG_LEN + 64];
    const char *pre = "35=0|34=2|49=EXCH|52=20260105-14:30:00.000|56=TFISH|58=";
    size_t fill = FIX_MAX_MSG_LEN - 7 /*10=ccc|*/ - 17 /*8=FIX.4.4|9=nnnn|*/ - strlen(pre) - 1;
    snprintf(body, sizeof body, "%s%0*d|", pre, (int)fill, 0);
    size_t n = fx_frame(m, sizeof m, body);
    assert_int_equal(n, FIX_MAX_MSG_LEN);
    sink_t k = {0};
    fix_framer_init(&k.f);
    sink_push(&k, m, n);
    assert_int_equal(k.n_ok, 1);
    snprintf(body, sizeof body, "%s%0*d|", pre, (int)fill + 1, 0);
    n = fx_frame(m, sizeof m, body);
    sink_push(&k, m, n);
    assert_int_equal(k.n_ok, 1);
    assert_int_equal(k.n_long, 1);
    assert_int_equal(k.n_garbled, 0);
    assert_int_equal(k.last_len, n - 7);
    assert_memory_equal(k.last, m, n - 7);
    sink_push(&k, m, 600); /* and again across chunks, then a message after it */
    sink_push(&k, m + 600, n - 600);
    uint8_t hb[256];
    size_t nh = fx_frame(hb, sizeof hb, HB1);
    sink_push(&k, hb, nh);
    assert_int_equal(k.n_long, 2);
    assert_int_equal(k.n_ok, 2);
    assert_int_equal(k.n_garbled, 0);
}

static void test_codec_truncated_waits_then_completes(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n = fx_frame(m, sizeof m, HB1);
    sink_t k = {0};
    fix_framer_init(&k.f);
    sink_push(&k, m, n - 4);
    assert_int_equal(k.n_ok, 0);
    assert_int_equal(k.n_garbled, 0);
    sink_push(&k, m + n - 4, 4);
    assert_int_equal(k.n_ok, 1);
}

static void test_codec_zero_padded_bodylength_and_seqnum(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n = fx_frame(m, sizeof m, "35=0|34=000042|49=EXCH|52=20260105-14:30:00.000|56=TFISH|");
    /* re-frame with 9=000NN: build by hand */
    char *p = strstr((char *)m, "\x01" "9=") + 3;
    int bl = atoi(p);
    char hand[512];
    int hl = snprintf(hand, sizeof hand, "8=FIX.4.4\x01" "9=%05d\x01", bl);
    const char *body = strchr(p, 0x01) + 1;
    memcpy(hand + hl, body, (size_t)bl);
    unsigned sum = 0;
    for (int i = 0; i < hl + bl; i++) sum += (uint8_t)hand[i];
    int tl = snprintf(hand + hl + bl, 16, "10=%03u\x01", sum % 256u);
    (void)n;
    sink_t k = {0};
    fix_framer_init(&k.f);
    sink_push(&k, (uint8_t *)hand, (size_t)(hl + bl + tl));
    assert_int_equal(k.n_ok, 1);
    fix_msg_t msg;
    assert_int_equal(fix_parse(&msg, (uint8_t *)k.last, k.last_len), FIX_OK);
    uint32_t seq;
    assert_int_equal(fix_msg_get_u32(&msg, 34, &seq), FIX_OK);
    assert_int_equal(seq, 42);
}

static void test_codec_parse_fields_and_accessors(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n = fx_frame(m, sizeof m, "35=8|34=9|49=EXCH|52=20260105-14:30:00.000|56=TFISH|44=-12.5|58=hi there|54=1|");
    fix_msg_t msg;
    assert_int_equal(fix_parse(&msg, m, n), FIX_OK);
    assert_int_equal(msg.n, 11);
    assert_int_equal(msg.f[0].tag, 8);
    assert_int_equal(msg.f[10].tag, 10);
    assert_true(fix_msg_is_type(&msg, "8"));
    int64_t px;
    assert_int_equal(fix_msg_get_decimal(&msg, 44, 2, &px), FIX_OK);
    assert_int_equal(px, -1250);
    char s[16];
    assert_int_equal(fix_msg_get_str(&msg, 58, s, sizeof s), FIX_OK);
    assert_string_equal(s, "hi there");
    assert_int_equal(fix_msg_get_str(&msg, 58, s, 4), FIX_E_RANGE);
    assert_int_equal(fix_msg_get_char(&msg, 54), '1');
    assert_int_equal(fix_msg_get_char(&msg, 58), 0);
    int64_t v;
    assert_int_equal(fix_msg_get_int(&msg, 999, &v), FIX_E_MISSING);
    assert_int_equal(fix_msg_get_int(&msg, 58, &v), FIX_E_FORMAT);
    assert_int_equal(fix_msg_count(&msg, 35), 1);
}

static void test_codec_parse_errors(void **st)
{
    (void)st;
    fix_msg_t msg;
    const char *a = "8=FIX.4.4\x01" "35=0\x01" "x1=2\x01" "58=\x01";
    assert_int_equal(fix_parse(&msg, (const uint8_t *)a, strlen(a)), FIX_E_FORMAT);
    assert_int_equal(msg.err, FIX_PERR_BAD_TAG);
    assert_int_equal(msg.n, 3); /* 8, 35, 58 kept */
    const char *b = "8=FIX.4.4\x01" "58=\x01";
    fix_parse(&msg, (const uint8_t *)b, strlen(b));
    assert_int_equal(msg.err, FIX_PERR_EMPTY_VALUE);
    assert_int_equal(msg.err_tag, 58);
    const char *c = "8=FIX.4.4\x01" "0=1\x01" "=5\x01" "noequals\x01";
    fix_parse(&msg, (const uint8_t *)c, strlen(c));
    assert_int_equal(msg.err, FIX_PERR_BAD_TAG);
    assert_int_equal(msg.n, 1);
    const char *d = "8=FIX.4.4\x01" "35=0";
    fix_parse(&msg, (const uint8_t *)d, strlen(d));
    assert_int_equal(msg.err, FIX_PERR_TRUNCATED);
    char many[2048];
    size_t n = 0;
    for (int i = 0; i < FIX_MAX_FIELDS + 5; i++) n += (size_t)snprintf(many + n, sizeof many - n, "%d=1\x01", 100 + i);
    assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n), FIX_OK); /* more fields than kept is no error */
    assert_int_equal(msg.n, FIX_MAX_FIELDS);
    assert_int_equal(msg.n_rest, 5);
}

/* Tags of every length the parser reads without a loop (1 to 3 digits) and past it, values of one byte up, and the
 * last one or two bytes of a message (no room for a field: a bad tag), each message in a buffer of its exact size
 * (ASan: no byte past it read). Fields, first error and the byte sum against values written out by hand. */
static void test_codec_parse_tag_lengths_and_short_tails(void **st)
{
    (void)st;
    static const struct {
        const char *in;
        unsigned n, err, err_tag;
        uint32_t tags[4];
        const char *vals[4];
    } cases[] = {
        {"1=a\x01", 1, FIX_PERR_NONE, 0, {1}, {"a"}},
        {"12=ab\x01", 1, FIX_PERR_NONE, 0, {12}, {"ab"}},
        {"123=abc\x01", 1, FIX_PERR_NONE, 0, {123}, {"abc"}},
        {"1234=abcd\x01", 1, FIX_PERR_NONE, 0, {1234}, {"abcd"}},
        {"123456789=x\x01" "5=yz\x01", 2, FIX_PERR_NONE, 0, {123456789, 5}, {"x", "yz"}},
        {"1234567890=x\x01" "5=y\x01", 1, FIX_PERR_BAD_TAG, 0, {5}, {"y"}}, /* 10 digits */
        {"0012=x\x01", 1, FIX_PERR_NONE, 0, {12}, {"x"}},                    /* leading zeros */
        {"1=\x01", 1, FIX_PERR_EMPTY_VALUE, 1, {1}, {""}},                  /* 3 bytes: a field */
        {"12=\x01" "3=c\x01", 2, FIX_PERR_EMPTY_VALUE, 12, {12, 3}, {"", "c"}},
        {"123=\x01", 1, FIX_PERR_EMPTY_VALUE, 123, {123}, {""}},
        {"1=a\x01" "\x01", 1, FIX_PERR_BAD_TAG, 0, {1}, {"a"}},            /* a last byte alone */
        {"1=a\x01" "7\x01", 1, FIX_PERR_BAD_TAG, 0, {1}, {"a"}},           /* the last two bytes */
        {"1=a\x01" "\x01\x01", 1, FIX_PERR_BAD_TAG, 0, {1}, {"a"}},
        {"\x01", 0, FIX_PERR_BAD_TAG, 0, {0}, {""}},
        {"7\x01", 0, FIX_PERR_BAD_TAG, 0, {0}, {""}},
        {"0=a\x01" "00=b\x01" "000=c\x01" "0000=d\x01", 0, FIX_PERR_BAD_TAG, 0, {0}, {""}},
        {"1x=a\x01" "2=b\x01", 1, FIX_PERR_BAD_TAG, 0, {2}, {"b"}},
        {"12\x01" "3=c\x01", 1, FIX_PERR_BAD_TAG, 0, {3}, {"c"}},
        {"=5\x01" "44=dd\x01", 1, FIX_PERR_BAD_TAG, 0, {44}, {"dd"}},
        {"123x=1\x01" "4=e\x01", 1, FIX_PERR_BAD_TAG, 0, {4}, {"e"}},
        {"9=\x01" "10=1\x01", 2, FIX_PERR_EMPTY_VALUE, 9, {9, 10}, {"", "1"}},
        {"10=1\x01" "5=a\x01", 2, FIX_PERR_CHECKSUM_NOT_LAST, 10, {10, 5}, {"1", "a"}},
        {"35=W\x01" "55=MSFT\x01" "270=100.25\x01" "10=123\x01", 4, FIX_PERR_NONE, 0, {35, 55, 270, 10},
         {"W", "MSFT", "100.25", "123"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].in);
        uint8_t *b = malloc(len);
        assert_non_null(b);
        memcpy(b, cases[i].in, len);
        uint32_t sum = 0;
        for (size_t k = 0; k < len; k++) sum += b[k];
        fix_msg_t m;
        int r = fix_parse(&m, b, len);
        assert_int_equal(r, cases[i].err ? FIX_E_FORMAT : FIX_OK);
        assert_int_equal(m.err, cases[i].err);
        assert_int_equal(m.err_tag, cases[i].err_tag);
        assert_int_equal(m.sum, sum);
        assert_int_equal(m.n, cases[i].n);
        for (unsigned k = 0; k < cases[i].n; k++) {
            assert_int_equal(m.f[k].tag, cases[i].tags[k]);
            assert_int_equal(m.f[k].len, strlen(cases[i].vals[k]));
            assert_memory_equal(m.f[k].val, cases[i].vals[k], m.f[k].len);
            assert_true(m.f[k].val >= (const char *)b && m.f[k].val + m.f[k].len < (const char *)b + len);
        }
        free(b);
    }
}

/* FIX_MSG_GET_SLOT (in line by the slot where TF_MEM_WORDS, else fix_msg_get): the first occurrence of the tag,
 * kept or past the kept fields, NULL when absent, whatever the previous message left in the index. */
static void check_slot_get(const fix_msg_t *m, const fix_field_t *f, const char *want)
{
    if (!want) {
        assert_null(f);
        return;
    }
    assert_non_null(f);
    assert_int_equal(f->len, strlen(want));
    assert_memory_equal(f->val, want, f->len);
    (void)m;
}

static void test_codec_slot_get(void **st)
{
    (void)st;
    fix_msg_t m;
    const char *a = "8=FIX.4.4\x01" "35=W\x01" "34=7\x01" "49=EXCH\x01" "52=T\x01" "56=TF\x01" "55=MSFT\x01"
                    "262=MD1\x01" "268=0\x01" "34=8\x01";
    assert_int_equal(fix_parse(&m, (const uint8_t *)a, strlen(a)), FIX_OK);
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 34), "7"); /* the first of two */
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 49), "EXCH");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 52), "T");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 56), "TF");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 55), "MSFT");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 262), "MD1");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 268), "0");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 43), NULL);
    /* the next message without them, its fields where the first had them: the index's stale entries find nothing */
    const char *b = "8=FIX.4.4\x01" "35=0\x01" "11=7\x01" "58=EXCH\x01" "37=T\x01" "41=TF\x01" "43=Y\x01";
    assert_int_equal(fix_parse(&m, (const uint8_t *)b, strlen(b)), FIX_OK);
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 34), NULL);
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 49), NULL);
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 55), NULL);
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 43), "Y");
    /* past the kept fields: found among the late ones */
    char many[4096];
    size_t n = (size_t)snprintf(many, sizeof many, "8=FIX.4.4\x01" "35=W\x01");
    for (unsigned i = 2; i < FIX_MAX_FIELDS + 3; i++) n += (size_t)snprintf(many + n, sizeof many - n, "%u=v\x01", 1000 + i);
    n += (size_t)snprintf(many + n, sizeof many - n, "55=LATE\x01" "34=9\x01" "55=AGAIN\x01");
    assert_int_equal(fix_parse(&m, (const uint8_t *)many, n), FIX_OK);
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 55), "LATE");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 34), "9");
    check_slot_get(&m, FIX_MSG_GET_SLOT(&m, 262), NULL);
}

/* fix_field_eq_n (fix_field_eq where TF_MEM_WORDS is not set): equal only with the same length and every byte, at
 * every length the unrolled loop has a remainder for. */
static void test_codec_field_eq_n(void **st)
{
    (void)st;
    const char *ids[] = {"F", "EX", "FIX", "EXCH", "TFISH", "TFISH1", "FIX.4.4", "ABCDEFGHIJKLMNOPQRSTUVWX"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        size_t n = strlen(ids[i]);
        char v[32];
        memcpy(v, ids[i], n);
        fix_field_t f = {35, (uint16_t)n, v};
        assert_true(fix_field_eq_n(&f, ids[i], n));
        for (size_t k = 0; k < n; k++) { /* one byte different, at each place */
            v[k] ^= 0x20;
            assert_false(fix_field_eq_n(&f, ids[i], n));
            v[k] ^= 0x20;
        }
        f.len = (uint16_t)(n - 1); /* a prefix */
        assert_false(fix_field_eq_n(&f, ids[i], n));
        v[n] = 'Z';
        f.len = (uint16_t)(n + 1); /* longer */
        assert_false(fix_field_eq_n(&f, ids[i], n));
    }
    assert_false(fix_field_eq_n(NULL, "EXCH", 4));
}

/* Fields past the first FIX_MAX_FIELDS: validated (a bad one is still an error), counted, walked by a cursor in
 * order with their values, and a session tag recurring among them is still a duplicate. */
static void test_codec_fields_past_the_kept_ones(void **st)
{
    (void)st;
    fix_msg_t msg;
    for (unsigned extra = 0; extra <= 70; extra += 7) {
        char many[4096];
        size_t n = (size_t)snprintf(many, sizeof many, "8=FIX.4.4\x01" "34=7\x01");
        unsigned total = FIX_MAX_FIELDS + extra;
        for (unsigned i = 2; i < total; i++) n += (size_t)snprintf(many + n, sizeof many - n, "%u=v%u\x01", 1000 + i, i * 3);
        assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n), FIX_OK);
        assert_int_equal(msg.n, FIX_MAX_FIELDS);
        assert_int_equal(msg.n_rest, extra);
        assert_true(extra ? msg.rest != NULL : msg.rest == NULL);
        assert_false(fix_msg_dup(&msg, FIX_SLOT_34));
        fix_cursor_t c = fix_cursor_at(&msg, 1);
        unsigned i = 1;
        for (const fix_field_t *f; (f = fix_cursor_get(&msg, &c)); fix_cursor_next(&msg, &c), i++) {
            char want[16];
            int wl = i == 1 ? snprintf(want, sizeof want, "7") : snprintf(want, sizeof want, "v%u", i * 3);
            assert_int_equal(f->tag, i == 1 ? 34u : 1000u + i);
            assert_int_equal(f->len, wl);
            assert_memory_equal(f->val, want, (size_t)wl);
            assert_int_equal(c.i, i);
        }
        assert_int_equal(i, total);
        if (!extra) continue;
        /* past the kept fields: an indexed tag's first occurrence is found (a Symbol after a long group), another
         * tag only by walking; fix_msg_count counts them all */
        assert_null(fix_msg_get(&msg, 55));
        n += (size_t)snprintf(many + n, sizeof many - n, "55=LATE\x01");
        assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n), FIX_OK);
        const fix_field_t *sym = fix_msg_get(&msg, 55);
        assert_non_null(sym);
        assert_int_equal(sym->len, 4);
        assert_memory_equal(sym->val, "LATE", 4);
        assert_null(fix_msg_get(&msg, 1000 + FIX_MAX_FIELDS));
        assert_int_equal(fix_msg_count(&msg, 1000 + FIX_MAX_FIELDS), 1);
        assert_int_equal(fix_msg_count(&msg, 55), 1);
        /* a message without it, parsed next, does not find the last one's (no stale index) */
        assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n - 8), FIX_OK);
        assert_null(fix_msg_get(&msg, 55));
        assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n), FIX_OK);
        /* 34 again past the kept fields: a duplicate */
        n += (size_t)snprintf(many + n, sizeof many - n, "34=8\x01");
        assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n), FIX_OK);
        assert_true(fix_msg_dup(&msg, FIX_SLOT_34));
        /* an empty value past them: the parse's error */
        n += (size_t)snprintf(many + n, sizeof many - n, "58=\x01");
        assert_int_equal(fix_parse(&msg, (const uint8_t *)many, n), FIX_E_FORMAT);
        assert_int_equal(msg.err, FIX_PERR_EMPTY_VALUE);
        assert_int_equal(msg.err_tag, 58);
    }
}

/* fix_raw_get: a field of a serialized message found in place (its first occurrence, its position), and every
 * message fix_parse refuses refused too. */
static void test_codec_raw_get(void **st)
{
    (void)st;
    fix_field_t f;
    unsigned at = 99;
    const char *m = "8=FIX.4.4\x01" "9=20\x01" "35=D\x01" "34=0007\x01" "11=A1\x01" "11=B2\x01" "10=123\x01";
    size_t n = strlen(m);
    assert_int_equal(fix_raw_get((const uint8_t *)m, n, 35, &f, &at), FIX_OK);
    assert_int_equal(at, 2);
    assert_int_equal(f.tag, 35);
    assert_int_equal(f.len, 1);
    assert_ptr_equal(f.val, m + 18);
    assert_int_equal(fix_raw_get((const uint8_t *)m, n, 11, &f, &at), FIX_OK); /* the first of two */
    assert_int_equal(at, 4);
    assert_memory_equal(f.val, "A1", 2);
    assert_int_equal(fix_raw_get((const uint8_t *)m, n, 34, &f, NULL), FIX_OK);
    assert_int_equal(f.len, 4);
    assert_memory_equal(f.val, "0007", 4);
    assert_int_equal(fix_raw_get((const uint8_t *)m, n, 10, &f, &at), FIX_OK);
    assert_int_equal(at, 6);
    assert_int_equal(fix_raw_get((const uint8_t *)m, n, 58, &f, NULL), FIX_E_MISSING);
    assert_int_equal(fix_raw_get((const uint8_t *)m, 0, 8, &f, NULL), FIX_E_MISSING);
    /* several tags in one walk: each its first occurrence and position, in the order asked */
    static const uint32_t tags[3] = {34, 11, 35};
    fix_field_t fs[3];
    unsigned ats[3];
    assert_int_equal(fix_raw_get_tags((const uint8_t *)m, n, 3, tags, fs, ats), FIX_OK);
    assert_memory_equal(fs[0].val, "0007", 4);
    assert_memory_equal(fs[1].val, "A1", 2);
    assert_int_equal(fs[2].tag, 35);
    assert_int_equal(ats[0], 3);
    assert_int_equal(ats[1], 4);
    assert_int_equal(ats[2], 2);
    static const uint32_t some[2] = {35, 58};
    assert_int_equal(fix_raw_get_tags((const uint8_t *)m, n, 2, some, fs, NULL), FIX_E_MISSING);
    assert_int_equal(fs[0].tag, 35); /* the one there is found all the same */
    assert_int_equal(fs[1].tag, 0);
    uint32_t u;
    assert_int_equal(fix_parse_u32("999999999", 9, &u), FIX_OK); /* the 32-bit loop's longest */
    assert_true(u == 999999999u);
    assert_int_equal(fix_parse_u32("4294967295", 10, &u), FIX_OK);
    assert_true(u == UINT32_MAX);
    assert_int_equal(fix_parse_u32("4294967296", 10, &u), FIX_E_RANGE);
    assert_int_equal(fix_parse_u32("-1", 2, &u), FIX_E_RANGE);
    assert_int_equal(fix_parse_u32("1x", 2, &u), FIX_E_FORMAT);
    /* refused wherever the fault lies, even after the field asked for */
    static const char *const bad[] = {
        "8=FIX.4.4\x01" "35=0\x01" "x1=2\x01",        /* a bad tag */
        "8=FIX.4.4\x01" "35=0\x01" "58=\x01",         /* an empty value */
        "8=FIX.4.4\x01" "35=0\x01" "0=1\x01",         /* tag 0 */
        "8=FIX.4.4\x01" "35=0\x01" "=5\x01",          /* no tag */
        "8=FIX.4.4\x01" "35=0\x01" "noequals\x01",
        "8=FIX.4.4\x01" "35=0\x01" "1234567890=1\x01", /* a tag of ten digits */
        "8=FIX.4.4\x01" "35=0\x01" "0000000049=1\x01", /* ten digits, the leading ones zeros */
        "8=FIX.4.4\x01" "35=0\x01" "0000000049=1",     /* the same, unterminated */
        "8=FIX.4.4\x01" "35=0\x01" "10=000\x01" "58=x\x01", /* CheckSum not last */
        "8=FIX.4.4\x01" "35=0",                       /* unterminated */
        "8=FIX.4.4\x01" "35",
    };
    fix_msg_t msg;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t bn = strlen(bad[i]);
        assert_int_equal(fix_parse(&msg, (const uint8_t *)bad[i], bn), FIX_E_FORMAT);
        assert_int_equal(fix_raw_get((const uint8_t *)bad[i], bn, 8, &f, NULL), FIX_E_FORMAT);
        assert_int_equal(fix_raw_get_tags((const uint8_t *)bad[i], bn, 3, tags, fs, NULL), FIX_E_FORMAT);
    }
    const char *nine = "8=FIX.4.4\x01" "123456789=1\x01"; /* nine digits are a tag */
    assert_int_equal(fix_raw_get((const uint8_t *)nine, strlen(nine), 123456789, &f, &at), FIX_OK);
    assert_int_equal(at, 1);
    char many[2048];
    size_t k = 0;
    for (int i = 0; i < FIX_MAX_FIELDS; i++) k += (size_t)snprintf(many + k, sizeof many - k, "%d=1\x01", 100 + i);
    assert_int_equal(fix_raw_get((const uint8_t *)many, k, 100, &f, NULL), FIX_OK);
    k += (size_t)snprintf(many + k, sizeof many - k, "58=1\x01");
    assert_int_equal(fix_raw_get((const uint8_t *)many, k, 58, &f, &at), FIX_OK); /* past FIX_MAX_FIELDS too */
    assert_int_equal(at, FIX_MAX_FIELDS);
}

static const uint32_t md_members[] = {269, 270, 271, 290};

static void test_codec_repeating_group_md_entries(void **st)
{
    (void)st;
    uint8_t m[512];
    size_t n = fx_frame(m, sizeof m, W_PAPER);
    fix_msg_t msg;
    assert_int_equal(fix_parse(&msg, m, n), FIX_OK);
    fix_group_t g;
    assert_int_equal(fix_group_open(&g, &msg, 268, 269, md_members, 4), FIX_OK);
    assert_int_equal(g.count, 3);
    static const char types[] = {'0', '1', '2'};
    static const int64_t px[] = {11702500, 11705000, 11703000};
    static const int64_t qty[] = {100, 200, 5};
    int i = 0;
    while (fix_group_next(&g)) {
        assert_true(i < 3);
        assert_int_equal(fix_group_get(&g, 269)->val[0], types[i]);
        int64_t p, q;
        assert_int_equal(fix_group_get_decimal(&g, 270, 4, &p), FIX_OK);
        assert_int_equal(p, px[i]);
        assert_int_equal(fix_group_get_decimal(&g, 271, 0, &q), FIX_OK);
        assert_int_equal(q, qty[i]);
        /* the trade entry has no 290, and must not see the offer's */
        assert_true((fix_group_get(&g, 290) != NULL) == (i < 2));
        i++;
    }
    assert_int_equal(i, 3);
    assert_int_equal(g.stop, msg.n - 1); /* group ends just before 10 */
}

static void test_codec_repeating_group_count_mismatch_and_absent(void **st)
{
    (void)st;
    uint8_t m[512];
    fix_msg_t msg;
    fix_group_t g;
    size_t n = fx_frame(m, sizeof m, "35=W|34=7|55=X|268=3|269=0|270=1|269=1|270=2|");
    fix_parse(&msg, m, n);
    assert_int_equal(fix_group_open(&g, &msg, 268, 269, md_members, 4), FIX_E_GROUP);
    n = fx_frame(m, sizeof m, "35=W|34=7|55=X|268=1|269=0|270=1|269=1|270=2|");
    fix_parse(&msg, m, n);
    assert_int_equal(fix_group_open(&g, &msg, 268, 269, md_members, 4), FIX_E_GROUP);
    n = fx_frame(m, sizeof m, "35=W|34=7|55=X|268=x|");
    fix_parse(&msg, m, n);
    assert_int_equal(fix_group_open(&g, &msg, 268, 269, md_members, 4), FIX_E_FORMAT);
    n = fx_frame(m, sizeof m, "35=W|34=7|55=X|");
    fix_parse(&msg, m, n);
    assert_int_equal(fix_group_open(&g, &msg, 268, 269, md_members, 4), FIX_OK);
    assert_false(fix_group_next(&g));
    /* entries in another order, delimiter first */
    n = fx_frame(m, sizeof m, "35=W|34=7|268=2|269=2|271=7|270=99.5|269=0|270=1|55=X|");
    fix_parse(&msg, m, n);
    assert_int_equal(fix_group_open(&g, &msg, 268, 269, md_members, 4), FIX_OK);
    assert_true(fix_group_next(&g));
    int64_t p;
    assert_int_equal(fix_group_get_decimal(&g, 270, 2, &p), FIX_OK);
    assert_int_equal(p, 9950);
    assert_true(fix_group_next(&g));
    assert_null(fix_group_get(&g, 55)); /* 55 is after the group */
    assert_false(fix_group_next(&g));
}

/* fix_parse_decimal_short (the market data path's in-line parser, also fix_parse_decimal's first step) against the
 * value computed here: every string of up to 7 bytes over digits, '.', '-' and a letter, then longer ones of every
 * length and dot position, at every number of decimals. It takes exactly the common form (digits, at most one '.',
 * 1 to 9 digits, at most `decimals` after the '.'), with the digits' value scaled to `decimals`, and fix_parse_decimal
 * gives the same; false for anything else. */
static void check_decimal_short(const char *s, size_t n)
{
    for (unsigned dec = 0; dec <= FIX_MAX_DECIMALS; dec++) {
        unsigned digits = 0, dots = 0, frac = 0;
        int64_t want = 0;
        bool other = false;
        for (size_t i = 0; i < n; i++) {
            if (s[i] >= '0' && s[i] <= '9') {
                digits++;
                frac += dots;
                if (digits <= 9) want = want * 10 + (s[i] - '0');
            } else if (s[i] == '.') {
                dots++;
            } else {
                other = true;
            }
        }
        bool common = !other && dots <= 1 && digits >= 1 && digits <= 9 && frac <= dec;
        int64_t v = -1, ref = -2;
        bool ok = fix_parse_decimal_short(s, n, dec, &v);
        if (ok != common) fprintf(stderr, "'%.*s' dec %u\n", (int)n, s, dec);
        assert_int_equal(ok, common);
        if (ok) {
            for (unsigned k = frac; k < dec; k++) want *= 10;
            assert_int_equal(v, want);
            assert_int_equal(fix_parse_decimal(s, n, dec, &ref), FIX_OK);
            assert_int_equal(ref, want);
        }
    }
}

static void test_codec_decimal_short(void **st)
{
    (void)st;
    static const char alpha[] = "019.-a";
    char s[16];
    for (size_t n = 0; n <= 7; n++) {
        size_t total = 1;
        for (size_t i = 0; i < n; i++) total *= sizeof alpha - 1;
        for (size_t k = 0; k < total; k++) {
            size_t x = k;
            for (size_t i = 0; i < n; i++, x /= sizeof alpha - 1) s[i] = alpha[x % (sizeof alpha - 1)];
            check_decimal_short(s, n);
        }
    }
    for (size_t n = 1; n <= 14; n++) { /* every length, the dot anywhere or nowhere, digits 9 (the largest) or mixed */
        for (size_t dot = 0; dot <= n; dot++) {
            for (int fill = 0; fill < 2; fill++) {
                for (size_t i = 0; i < n; i++) s[i] = fill ? (char)('1' + (i * 7) % 9) : '9';
                if (dot < n) s[dot] = '.';
                check_decimal_short(s, n);
            }
        }
    }
}

static void test_codec_decimals(void **st)
{
    (void)st;
    struct {
        const char *s;
        unsigned dec;
        int rc;
        int64_t v;
    } c[] = {
        {"1170.25", 4, FIX_OK, 11702500},     {"1170.25", 2, FIX_OK, 117025},
        {"1170.255", 2, FIX_E_RANGE, 0},      {"1170.2500", 2, FIX_OK, 117025},
        {"1170", 4, FIX_OK, 11700000},        {"0.0001", 4, FIX_OK, 1},
        {"-3.5", 1, FIX_OK, -35},             {".5", 1, FIX_OK, 5},
        {"5.", 1, FIX_OK, 50},                {"00012.30", 2, FIX_OK, 1230},
        {"", 2, FIX_E_FORMAT, 0},             {".", 2, FIX_E_FORMAT, 0},
        {"-", 2, FIX_E_FORMAT, 0},            {"1.2.3", 2, FIX_E_FORMAT, 0},
        {"12a", 2, FIX_E_FORMAT, 0},          {"1e5", 2, FIX_E_FORMAT, 0},
        {"922337203685477580.7", 1, FIX_OK, INT64_MAX},
        {"922337203685477580.8", 1, FIX_E_RANGE, 0},
        {"9223372036854775807", 1, FIX_E_RANGE, 0},
        {"99999999999999999999999", 0, FIX_E_RANGE, 0},
        {"1.5", 10, FIX_E_RANGE, 0},
        /* the 32-bit loop's limits (9 digits; its multiply issued a digit ahead), then past it: the general loop */
        {"999999999", 0, FIX_OK, 999999999}, {"99999.9999", 4, FIX_OK, 999999999},
        {"9.99999999", 9, FIX_OK, 9999999990}, {"4294967296", 0, FIX_OK, 4294967296},
        {"0.0000001", 4, FIX_E_RANGE, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int64_t v = 0;
        int rc = fix_parse_decimal(c[i].s, strlen(c[i].s), c[i].dec, &v);
        if (rc != c[i].rc) fprintf(stderr, "case %zu '%s'\n", i, c[i].s);
        assert_int_equal(rc, c[i].rc);
        if (rc == FIX_OK) assert_int_equal(v, c[i].v);
    }
    char out[32];
    struct {
        int64_t v;
        unsigned dec;
        const char *s;
    } f[] = {{11702500, 4, "1170.25"}, {117025, 2, "1170.25"}, {11700000, 4, "1170"}, {1, 4, "0.0001"},
             {-35, 1, "-3.5"},        {0, 2, "0"},              {INT64_MIN, 0, "-9223372036854775808"},
             {INT64_MAX, 9, "9223372036.854775807"}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        size_t n = fix_fmt_decimal(out, f[i].v, f[i].dec);
        out[n] = '\0';
        assert_string_equal(out, f[i].s);
    }
    int64_t iv;
    assert_int_equal(fix_parse_int("000042", 6, &iv), FIX_OK);
    assert_int_equal(iv, 42);
    assert_int_equal(fix_parse_int("9223372036854775808", 19, &iv), FIX_E_RANGE);
    assert_int_equal(fix_parse_int("4 2", 3, &iv), FIX_E_FORMAT);
}

static void test_codec_builder_exact_bytes(void **st)
{
    (void)st;
    uint8_t buf[256];
    fix_builder_t b;
    fix_build_begin(&b, buf, sizeof buf, "D");
    fix_build_uint_padded(&b, 34, 42, 6);
    fix_build_str(&b, 49, "TFISH");
    fix_build_utc(&b, 52, 1767623400123ull); /* 2026-01-05 14:30:00.123 */
    fix_build_str(&b, 56, "EXCH");
    fix_build_decimal(&b, 44, 11702500, 4);
    fix_build_int(&b, 99, -7);
    fix_build_char(&b, 54, '1');
    size_t n = fix_build_end(&b);
    const char *want_body = "35=D|34=000042|49=TFISH|52=20260105-14:30:00.123|56=EXCH|44=1170.25|99=-7|54=1|";
    uint8_t want[256];
    size_t wn = fx_frame(want, sizeof want, want_body);
    assert_int_equal(n, wn);
    assert_memory_equal(buf, want, n);
}

/* fix_checksum sums words where it can: against a byte loop, for every start offset within a word and every length
 * up to 1,100 (over the 128 words a lane holds before it is folded), on bytes of 0xFF (the largest lane sums) and on
 * varied bytes. */
static void test_codec_checksum_words_equal_bytes(void **st)
{
    (void)st;
    static uint8_t buf[1200];
    for (int fill = 0; fill < 2; fill++) {
        for (size_t i = 0; i < sizeof buf; i++) buf[i] = fill ? (uint8_t)(i * 151u + 7u) : 0xFFu;
        for (size_t off = 0; off < 4; off++)
            for (size_t n = 0; n <= 1100; n++) {
                uint32_t want = 0;
                for (size_t i = 0; i < n; i++) want += buf[off + i];
                if (fix_checksum(buf + off, n) != (uint8_t)want) fail_msg("offset %zu length %zu fill %d", off, n, fill);
            }
    }
}

static void test_codec_builder_overflow_returns_zero(void **st)
{
    (void)st;
    uint8_t buf[40];
    fix_builder_t b;
    fix_build_begin(&b, buf, sizeof buf, "0");
    fix_build_str(&b, 58, "this text does not fit in forty bytes at all");
    assert_int_equal(fix_build_end(&b), 0);
    fix_build_begin(&b, buf, sizeof buf, "0");
    fix_build_uint(&b, 34, 1);
    assert_int_equal(fix_build_end(&b), 32); /* 8=FIX.4.4|9=10|35=0|34=1|10=ccc| */
    fix_build_begin(&b, buf, 31, "0");
    fix_build_uint(&b, 34, 1);
    assert_int_equal(fix_build_end(&b), 0);
}

static void test_utc_conversion(void **st)
{
    (void)st;
    char out[FIX_UTC_TS_LEN + 1] = {0};
    fix_utc_format(out, 0);
    assert_string_equal(out, "19700101-00:00:00.000");
    fix_utc_format(out, 951782400000ull + 86399999ull); /* 2000-02-29 23:59:59.999 */
    assert_string_equal(out, "20000229-23:59:59.999");
    fix_utc_format(out, 4102444800000ull); /* 2100-01-01 */
    assert_string_equal(out, "21000101-00:00:00.000");
    uint64_t ms;
    assert_true(fix_utc_parse("20260105-14:30:00.123", 21, &ms));
    assert_int_equal(ms, 1767623400123ull);
    assert_true(fix_utc_parse("20260105-14:30:00", 17, &ms));
    assert_int_equal(ms, 1767623400000ull);
    assert_true(fix_utc_parse("20260105-14:30:00.123456789", 27, &ms));
    assert_int_equal(ms, 1767623400123ull);
    assert_false(fix_utc_parse("20261305-14:30:00", 17, &ms));
    assert_false(fix_utc_parse("20260105 14:30:00", 17, &ms));
    assert_false(fix_utc_parse("20260105-14:30:00.", 18, &ms));
    /* fractions of every length up to 4, and a non-digit in each place of the 3-digit form (its own path where
     * the RAM has room) */
    assert_true(fix_utc_parse("20260105-14:30:00.1", 19, &ms));
    assert_int_equal(ms, 1767623400100ull);
    assert_true(fix_utc_parse("20260105-14:30:00.12", 20, &ms));
    assert_int_equal(ms, 1767623400120ull);
    assert_true(fix_utc_parse("20260105-14:30:00.999", 21, &ms));
    assert_int_equal(ms, 1767623400999ull);
    assert_true(fix_utc_parse("20260105-14:30:00.0009", 22, &ms));
    assert_int_equal(ms, 1767623400000ull);
    assert_false(fix_utc_parse("20260105-14:30:00.x23", 21, &ms));
    assert_false(fix_utc_parse("20260105-14:30:00.1x3", 21, &ms));
    assert_false(fix_utc_parse("20260105-14:30:00.12/", 21, &ms));
    assert_false(fix_utc_parse("20260105-14:30:00.12:", 21, &ms));
    assert_false(fix_utc_parse("2026010", 7, &ms));
    /* Round trip over every day from 1970 to 2400. */
    for (int32_t d = 0; d < 157000; d++) {
        int32_t y;
        uint32_t mo, da;
        fix_civil_from_days(d, &y, &mo, &da);
        assert_int_equal(fix_days_from_civil(y, mo, da), d);
    }
}

/* xorshift32, fixed seed: reproducible fuzzing */
static uint32_t rng = 0x2545F491u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void test_codec_fuzz_random_bytes_then_resync(void **st)
{
    (void)st;
    uint8_t good[256];
    size_t gn = fx_frame(good, sizeof good, HB1);
    sink_t k = {0};
    fix_framer_init(&k.f);
    for (int it = 0; it < 3000; it++) {
        uint8_t junk[300];
        size_t jn = rnd() % sizeof junk;
        for (size_t i = 0; i < jn; i++) {
            uint32_t r = rnd();
            /* bias towards FIX-looking bytes so the framer's paths are exercised */
            junk[i] = (r & 3) == 0 ? (uint8_t)"8=FIX.4.49\x01" "0123456789"[(r >> 8) % 21] : (uint8_t)(r >> 16);
        }
        int before = k.n_ok;
        size_t at = 0;
        while (at < jn) {
            size_t c = 1 + rnd() % 64;
            if (c > jn - at) c = jn - at;
            sink_push(&k, junk + at, c);
            at += c;
        }
        /* Then good messages until one comes out: the junk may have opened a frame that swallows some. */
        int sent = 0;
        while (k.n_ok == before && sent < 40) {
            sink_push(&k, good, gn);
            sent++;
        }
        assert_true(k.n_ok > before);
        assert_memory_equal(k.last, good, gn);
    }
}

static void test_codec_fuzz_mutated_messages(void **st)
{
    (void)st;
    uint8_t good[512];
    size_t gn = fx_frame(good, sizeof good, W_PAPER);
    sink_t k = {0};
    fix_framer_init(&k.f);
    for (int it = 0; it < 5000; it++) {
        uint8_t m[512];
        memcpy(m, good, gn);
        int flips = 1 + (int)(rnd() % 4);
        for (int f = 0; f < flips; f++) m[rnd() % gn] = (uint8_t)rnd();
        size_t mn = gn - (rnd() % 8 == 0 ? rnd() % gn : 0); /* sometimes truncated */
        int before = k.n_ok;
        sink_push(&k, m, mn);
        if (k.n_ok > before) {
            /* A delivered frame passed the checksum: it must parse without crashing. */
            fix_msg_t msg;
            fix_parse(&msg, (const uint8_t *)k.last, k.last_len);
            fix_group_t g;
            if (fix_group_open(&g, &msg, 268, 269, md_members, 4) == FIX_OK)
                while (fix_group_next(&g)) (void)fix_group_get(&g, 270);
        }
        int sent = 0;
        before = k.n_ok;
        while (k.n_ok == before && sent < 10) {
            sink_push(&k, good, gn);
            sent++;
        }
        assert_true(k.n_ok > before);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codec_one_message),
        cmocka_unit_test(test_codec_split_across_chunks_every_position),
        cmocka_unit_test(test_codec_byte_by_byte),
        cmocka_unit_test(test_codec_several_in_one_chunk),
        cmocka_unit_test(test_codec_garbage_before_and_between),
        cmocka_unit_test(test_codec_bad_checksum_dropped_next_delivered),
        cmocka_unit_test(test_codec_bad_bodylength_dropped_next_delivered),
        cmocka_unit_test(test_codec_huge_bodylength_dropped_without_buffering),
        cmocka_unit_test(test_codec_message_just_under_limit_accepted_and_over_too_long),
        cmocka_unit_test(test_codec_truncated_waits_then_completes),
        cmocka_unit_test(test_codec_zero_padded_bodylength_and_seqnum),
        cmocka_unit_test(test_codec_parse_fields_and_accessors),
        cmocka_unit_test(test_codec_parse_errors),
        cmocka_unit_test(test_codec_field_eq_n),
        cmocka_unit_test(test_codec_slot_get),
        cmocka_unit_test(test_codec_parse_tag_lengths_and_short_tails),
        cmocka_unit_test(test_codec_raw_get),
        cmocka_unit_test(test_codec_repeating_group_md_entries),
        cmocka_unit_test(test_codec_repeating_group_count_mismatch_and_absent),
        cmocka_unit_test(test_codec_decimals),
        cmocka_unit_test(test_codec_decimal_short),
        cmocka_unit_test(test_codec_builder_exact_bytes),
        cmocka_unit_test(test_codec_checksum_words_equal_bytes),
        cmocka_unit_test(test_codec_builder_overflow_returns_zero),
        cmocka_unit_test(test_utc_conversion),
        cmocka_unit_test(test_codec_fuzz_random_bytes_then_resync),
        cmocka_unit_test(test_codec_fuzz_mutated_messages),
        cmocka_unit_test(test_codec_fields_past_the_kept_ones),
    };
    return cmocka_run_group_tests_name("fix_codec", tests, NULL, NULL);
}
