/* Host tests of offload/template.c: the prebuilt order frame is a valid Ethernet/IPv4/TCP/FIX 35=D frame
 * with the placeholders where template.h says; materialised frames (any seq, ack, window, IPv4 id,
 * MsgSeqNum, time of day) are valid with every checksum recomputed; RFC 1624 incremental updates from the
 * template's stored checksums (what the hardware does) give the same checksums; bad input is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fix/codec.h"
#include "fix/utc.h"
#include "net/net_util.h"
#include "offload/template.h"

#define DAY 86400000ull
/* 2026-11-22 15:04:05.678 UTC */
#define T0 1795359845678ull

static ofl_order_spec_t spec(void) {
    ofl_order_spec_t s = {
        .conn = {.dst_mac = {0x0e, 0x95, 0x8d, 0xa7, 0x74, 0xbc},
                 .src_mac = {0x02, 0x54, 0x46, 0x00, 0x00, 0x02},
                 .src_ip = 0x0A4D0002u,
                 .dst_ip = 0x0A4D0001u,
                 .src_port = 50123,
                 .dst_port = 9876},
        .sender = "TFISH1",
        .target = "EXCH",
        .account = "TFISH",
        .clordid = "TABCDEF-17",
        .symbol = "MSFT",
        .side = '1',
        .qty = 100,
        .qty_dec = 0,
        .price = 11702500,
        .price_dec = 4,
        .utc_day_ms = T0,
        .msgseq_width = 8,
    };
    return s;
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static uint32_t rd32(const uint8_t *p) { return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }

/* Every checksum of a frame verifies, and the FIX message frames and parses as a 35=D. */
static void assert_valid_headers(const uint8_t *f, size_t len) {
    const uint8_t *ip = f + OFL_ETH_HDR;
    assert_int_equal(rd16(f + 12), 0x0800);
    assert_int_equal(net_csum_fold(net_csum_add(0, ip, OFL_IP_HDR)), 0);
    assert_int_equal(rd16(ip + 2), len - OFL_ETH_HDR);
    size_t l4 = len - OFL_ETH_HDR - OFL_IP_HDR;
    uint32_t sum = net_csum_pseudo(rd32(ip + 12), rd32(ip + 16), 6, (uint16_t)l4);
    assert_int_equal(net_csum_fold(net_csum_add(sum, ip + OFL_IP_HDR, l4)), 0);
}

static void assert_valid_fix(const uint8_t *f, size_t len, fix_msg_t *m) {
    fix_framer_t fr;
    fix_framer_init(&fr);
    assert_int_equal(fix_framer_feed(&fr, f + OFL_FIX_OFF, len - OFL_FIX_OFF), len - OFL_FIX_OFF);
    const uint8_t *msg;
    size_t mlen;
    assert_int_equal(fix_framer_next(&fr, &msg, &mlen), FIX_FRAME_OK);
    assert_int_equal(mlen, len - OFL_FIX_OFF);
    assert_int_equal(fix_parse(m, msg, mlen), FIX_OK);
    assert_true(fix_msg_is_type(m, "D"));
}

static void assert_valid_frame(const uint8_t *f, size_t len, fix_msg_t *m) {
    assert_valid_headers(f, len);
    assert_valid_fix(f, len, m);
}

/* A template: headers and checksums valid as stored; the CheckSum placeholder is "000" (the engine adds
 * the digits it writes to 0s) and fix_sum is the message's real CheckSum. */
static void assert_valid_template(const ofl_template_t *t, fix_msg_t *m) {
    static uint8_t f[OFL_TEMPLATE_MAX];
    assert_valid_headers(t->frame, t->len);
    assert_memory_equal(t->frame + t->cs_off - 3, "10=000\x01", 7);
    memcpy(f, t->frame, t->len);
    f[t->cs_off] = (uint8_t)('0' + t->fix_sum / 100);
    f[t->cs_off + 1] = (uint8_t)('0' + t->fix_sum / 10 % 10);
    f[t->cs_off + 2] = (uint8_t)('0' + t->fix_sum % 10);
    assert_valid_fix(f, t->len, m);
}

static void test_template_layout_and_placeholders(void **state) {
    (void)state;
    ofl_template_t t;
    ofl_order_spec_t s = spec();
    assert_int_equal(ofl_build_template(&t, &s), OFL_OK);
    static fix_msg_t m;
    assert_valid_template(&t, &m);
    /* DESIGN.md field order: 8 9 35 34 49 52 56 1 11 21 38 40 44 54 55 59 60 10 */
    static const uint32_t order[] = {8, 9, 35, 34, 49, 52, 56, 1, 11, 21, 38, 40, 44, 54, 55, 59, 60, 10};
    assert_int_equal(m.n, sizeof order / sizeof order[0]);
    for (size_t i = 0; i < m.n; i++) assert_int_equal(m.f[i].tag, order[i]);
    assert_memory_equal(t.frame + t.msg_off, "00000000\x01", 9);
    assert_memory_equal(t.frame + t.st_off - 9, "20261122-00:00:00.000\x01", 22);
    assert_memory_equal(t.frame + t.tt_off - 9, "20261122-00:00:00.000\x01", 22);
    assert_memory_equal(t.frame + t.cs_off - 3, "10=000", 6);
    assert_int_equal(rd16(t.frame + OFL_ETH_HDR + 4), 0);              /* IPv4 id */
    assert_int_equal(rd32(t.frame + OFL_ETH_HDR + OFL_IP_HDR + 4), 0); /* seq */
    assert_int_equal(rd32(t.frame + OFL_ETH_HDR + OFL_IP_HDR + 8), 0); /* ack */
    assert_int_equal(rd16(t.frame + OFL_ETH_HDR + OFL_IP_HDR + 14), 0); /* window */
    assert_int_equal(rd16(t.frame + OFL_ETH_HDR + 10), t.ip_csum);
    assert_int_equal(rd16(t.frame + OFL_ETH_HDR + OFL_IP_HDR + 16), t.tcp_csum);
    assert_int_equal(t.fix_len, t.len - OFL_FIX_OFF);
    assert_int_equal(t.day_ms, T0 - T0 % DAY);
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') for each 16-bit word m that changed. The words are aligned on
 * `base` (the first byte covered by the checksum); [at, at+n) is widened to whole words. */
static uint16_t incr16(uint16_t hc, const uint8_t *old_f, const uint8_t *new_f, size_t base, size_t at, size_t n) {
    size_t lo = at - (at - base) % 2, hi = at + n + (at + n - base) % 2;
    uint32_t sum = (uint16_t)~hc;
    for (size_t i = lo; i < hi; i += 2) {
        sum += (uint16_t)~rd16(old_f + i);
        sum += rd16(new_f + i);
    }
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

static void test_materialized_frames_valid_and_match_incremental_update(void **state) {
    (void)state;
    ofl_template_t t;
    ofl_order_spec_t s = spec();
    assert_int_equal(ofl_build_template(&t, &s), OFL_OK);
    static uint8_t out[OFL_TEMPLATE_MAX];
    static fix_msg_t m;
    srand(5);
    for (int i = 0; i < 2000; i++) {
        ofl_patch_t p = {(uint32_t)rand() * 2654435761u, (uint32_t)rand() * 40503u, (uint16_t)rand(), (uint16_t)rand(),
                         (uint32_t)rand() % 100000000u, (uint32_t)((uint64_t)rand() * 7919u % DAY)};
        if (i == 0) p.seq = 0xFFFFFFFFu, p.msgseq = 99999999u, p.tod_ms = (uint32_t)DAY - 1;
        if (i == 1) p.seq = 0, p.ack = 0, p.window = 0, p.ip_id = 0, p.msgseq = 0, p.tod_ms = 0;
        assert_int_equal(ofl_materialize(&t, &p, out), t.len);
        assert_valid_frame(out, t.len, &m);
        uint32_t seq;
        assert_int_equal(fix_msg_get_u32(&m, 34, &seq), FIX_OK);
        assert_int_equal(seq, p.msgseq);
        uint64_t st, tt;
        const fix_field_t *f52 = fix_msg_get(&m, 52), *f60 = fix_msg_get(&m, 60);
        assert_true(fix_utc_parse(f52->val, f52->len, &st));
        assert_true(fix_utc_parse(f60->val, f60->len, &tt));
        assert_true(st == t.day_ms + p.tod_ms && tt == st);
        assert_int_equal(rd32(out + OFL_ETH_HDR + OFL_IP_HDR + 4), p.seq);
        assert_int_equal(rd32(out + OFL_ETH_HDR + OFL_IP_HDR + 8), p.ack);
        /* the hardware's way: incremental updates of the template's checksums over the changed bytes */
        uint16_t ip_c = incr16(t.ip_csum, t.frame, out, OFL_ETH_HDR, OFL_ETH_HDR + 4, 2);
        assert_int_equal(ip_c, rd16(out + OFL_ETH_HDR + 10));
        uint16_t tcp_c = t.tcp_csum;
        const size_t tcp0 = OFL_ETH_HDR + OFL_IP_HDR;
        tcp_c = incr16(tcp_c, t.frame, out, tcp0, tcp0 + 4, 8);   /* seq, ack */
        tcp_c = incr16(tcp_c, t.frame, out, tcp0, tcp0 + 14, 2);  /* window */
        const size_t spans[4][2] = {{t.msg_off, t.msg_width}, {t.st_off, 12}, {t.tt_off, 12}, {t.cs_off, 3}};
        for (int k = 0; k < 4; k++)
            tcp_c = incr16(tcp_c, t.frame, out, tcp0, spans[k][0], spans[k][1]);
        assert_int_equal(tcp_c, rd16(out + tcp0 + 16));
    }
}

static void test_sell_and_other_widths(void **state) {
    (void)state;
    ofl_template_t t;
    ofl_order_spec_t s = spec();
    s.side = '2';
    s.msgseq_width = 10;
    s.price = 5;
    s.price_dec = 2;
    assert_int_equal(ofl_build_template(&t, &s), OFL_OK);
    static fix_msg_t m;
    assert_valid_template(&t, &m);
    assert_int_equal(fix_msg_get_char(&m, 54), '2');
    const fix_field_t *px = fix_msg_get(&m, 44);
    assert_int_equal(px->len, 4);
    assert_memory_equal(px->val, "0.05", 4);
    assert_int_equal(t.msg_width, 10);
    static uint8_t out[OFL_TEMPLATE_MAX];
    ofl_patch_t p = {1, 2, 3, 4, 4000000000u, 1000};
    assert_int_equal(ofl_materialize(&t, &p, out), t.len);
    assert_valid_frame(out, t.len, &m);
}

static void test_bad_input_refused(void **state) {
    (void)state;
    ofl_template_t t;
    ofl_order_spec_t s = spec();
    s.side = '3';
    assert_int_equal(ofl_build_template(&t, &s), OFL_E_ARG);
    s = spec();
    s.msgseq_width = 11;
    assert_int_equal(ofl_build_template(&t, &s), OFL_E_ARG);
    s = spec();
    s.symbol = NULL;
    assert_int_equal(ofl_build_template(&t, &s), OFL_E_ARG);
    s = spec();
    s.account = "AN-ACCOUNT-NAME-THAT-IS-FAR-TOO-LONG-FOR-THE-256-BYTE-TEMPLATE-SLOT-OF-THE-ORDER-ENGINE-"
                "SO-THE-BUILDER-MUST-REFUSE-IT-RATHER-THAN-TRUNCATE-THE-MESSAGE-OR-WRITE-OUTSIDE";
    assert_int_equal(ofl_build_template(&t, &s), OFL_E_TOO_LONG);
    s = spec();
    assert_int_equal(ofl_build_template(&t, &s), OFL_OK);
    static uint8_t out[OFL_TEMPLATE_MAX];
    ofl_patch_t p = {0, 0, 0, 0, 100000000u, 0}; /* nine digits into eight */
    assert_int_equal(ofl_materialize(&t, &p, out), 0);
    p.msgseq = 1;
    p.tod_ms = (uint32_t)DAY;
    assert_int_equal(ofl_materialize(&t, &p, out), 0);
}


/* A message as the session builds it: 8, 9, 35, 34 (a placeholder of `width` '0's, or `seq` when width is 0),
 * 43=Y when possdup, 49, 52, 56, then 58=<text>. */
static size_t session_msg(uint8_t *buf, size_t cap, const char *type, unsigned width, uint32_t seq, bool possdup,
                          const char *text) {
    fix_builder_t b;
    fix_build_begin(&b, buf, cap, type);
    if (width) fix_build_uint_padded(&b, 34, 0, width);
    else fix_build_uint(&b, 34, seq);
    if (possdup) fix_build_char(&b, 43, 'Y');
    fix_build_str(&b, 49, "TFISH1");
    fix_build_utc(&b, 52, T0);
    fix_build_str(&b, 56, "EXCH");
    if (text) fix_build_str(&b, 58, text);
    return fix_build_end(&b);
}

static ofl_conn_t conn(void) { return spec().conn; }

/* Firmware frames for the engine's SEND queue (numbered, kept, bare FIN; short and longer than one 256-byte slot):
 * valid as stored, materialised with random numbers they are valid frames whose MsgSeqNum is the engine's (numbered)
 * or the message's own (kept), whose SendingTime is the session's, and the hardware's incremental checksum updates
 * over the bytes it changes give the same checksums. */
static void test_firmware_frames(void **state) {
    (void)state;
    static ofl_template_t t;
    static uint8_t msg[600], out[OFL_FRAME_MAX];
    static fix_msg_t m;
    static char text[400];
    ofl_conn_t c = conn();
    memset(text, 'x', 300);
    text[300] = 0;
    srand(11);
    for (int kind = 0; kind < 5; kind++) {
        unsigned mode = kind == 4 ? OFL_MSG_NONE : kind >= 2 ? OFL_MSG_KEEP : OFL_MSG_NUMBERED;
        size_t n = 0;
        if (kind == 0) n = session_msg(msg, sizeof msg, "0", 8, 0, false, NULL);
        if (kind == 1) n = session_msg(msg, sizeof msg, "5", 10, 0, false, text); /* 2 slots */
        if (kind == 2) n = session_msg(msg, sizeof msg, "D", 0, 4711, true, "resent");
        if (kind == 3) n = session_msg(msg, sizeof msg, "4", 0, 17, true, NULL);
        bool fin = kind == 4;
        assert_int_equal(ofl_build_frame(&t, &c, msg, n, mode, fin), OFL_OK);
        assert_int_equal(t.len, OFL_FIX_OFF + n);
        if (kind == 1) assert_true(t.len > OFL_TEMPLATE_MAX);
        assert_valid_headers(t.frame, t.len);
        assert_false(t.st_en || t.tt_en);
        uint8_t flags = t.frame[OFL_ETH_HDR + OFL_IP_HDR + 13];
        assert_int_equal(flags, fin ? 0x11 : 0x18);
        if (n) assert_memory_equal(t.frame + t.cs_off - 3, "10=000\x01", 7);
        for (int i = 0; i < 300; i++) {
            ofl_patch_t p = {(uint32_t)rand() * 2654435761u, (uint32_t)rand() * 40503u, (uint16_t)rand(), (uint16_t)rand(),
                             (uint32_t)rand() % 100000000u, (uint32_t)((uint64_t)rand() * 7919u % DAY)};
            assert_int_equal(ofl_materialize(&t, &p, out), t.len);
            assert_valid_headers(out, t.len);
            assert_int_equal(rd32(out + OFL_ETH_HDR + OFL_IP_HDR + 4), p.seq);
            assert_int_equal(rd32(out + OFL_ETH_HDR + OFL_IP_HDR + 8), p.ack);
            assert_int_equal(rd16(out + OFL_ETH_HDR + OFL_IP_HDR + 14), p.window);
            assert_int_equal(rd16(out + OFL_ETH_HDR + 4), p.ip_id);
            if (n) {
                fix_framer_t fr;
                fix_framer_init(&fr);
                assert_int_equal(fix_framer_feed(&fr, out + OFL_FIX_OFF, n), n);
                const uint8_t *fm;
                size_t fl;
                assert_int_equal(fix_framer_next(&fr, &fm, &fl), FIX_FRAME_OK);
                assert_int_equal(fix_parse(&m, fm, fl), FIX_OK);
                uint32_t seq;
                assert_int_equal(fix_msg_get_u32(&m, 34, &seq), FIX_OK);
                assert_int_equal(seq, kind == 2 ? 4711u : kind == 3 ? 17u : p.msgseq);
                uint64_t st;
                const fix_field_t *f52 = fix_msg_get(&m, 52);
                assert_true(fix_utc_parse(f52->val, f52->len, &st));
                assert_true(st == T0);                 /* the session's, not the engine's clock */
                /* everything but 34 and 10 is the session's message, byte for byte */
                size_t a = mode == OFL_MSG_NUMBERED ? (size_t)(t.msg_off - OFL_FIX_OFF) : n;
                assert_memory_equal(out + OFL_FIX_OFF, msg, a < n - 7 ? a : n - 7);
            }
            uint16_t ip_c = incr16(t.ip_csum, t.frame, out, OFL_ETH_HDR, OFL_ETH_HDR + 4, 2);
            assert_int_equal(ip_c, rd16(out + OFL_ETH_HDR + 10));
            const size_t tcp0 = OFL_ETH_HDR + OFL_IP_HDR;
            uint16_t tcp_c = incr16(t.tcp_csum, t.frame, out, tcp0, tcp0 + 4, 8);
            tcp_c = incr16(tcp_c, t.frame, out, tcp0, tcp0 + 14, 2);
            if (mode == OFL_MSG_NUMBERED) tcp_c = incr16(tcp_c, t.frame, out, tcp0, t.msg_off, t.msg_width);
            if (n) tcp_c = incr16(tcp_c, t.frame, out, tcp0, t.cs_off, 3);
            assert_int_equal(tcp_c, rd16(out + tcp0 + 16));
        }
    }
}

/* A message built where its frame puts it (the firmware's session builds in the frame scratch, app/offload.c
 * offload_tx_buffer) is framed in place: the same frame and metadata as one copied from elsewhere, whatever the
 * scratch held before. */
static void test_firmware_frame_built_in_place(void **state) {
    (void)state;
    static ofl_template_t a, b;
    static uint8_t msg[600];
    static char text[400];
    ofl_conn_t c = conn();
    memset(text, 'y', 350);
    text[350] = 0;
    for (int kind = 0; kind < 4; kind++) {
        unsigned mode = kind >= 2 ? OFL_MSG_KEEP : OFL_MSG_NUMBERED;
        size_t n = 0;
        if (kind == 0) n = session_msg(msg, sizeof msg, "0", 8, 0, false, NULL);
        if (kind == 1) n = session_msg(msg, sizeof msg, "5", 10, 0, false, text); /* 2 slots */
        if (kind == 2) n = session_msg(msg, sizeof msg, "D", 0, 4711, true, "resent");
        if (kind == 3) n = session_msg(msg, sizeof msg, "4", 0, 17, true, NULL);
        assert_true(n > 0 && n <= OFL_FRAME_MAX - OFL_FIX_OFF);
        assert_int_equal(ofl_build_frame(&a, &c, msg, n, mode, false), OFL_OK);
        memset(&b, 0xA5 + kind, sizeof b); /* what an earlier frame or record left */
        memcpy(b.frame + OFL_FIX_OFF, msg, n);
        assert_int_equal(ofl_build_frame(&b, &c, b.frame + OFL_FIX_OFF, n, mode, false), OFL_OK);
        assert_int_equal(b.len, a.len);
        /* what app/offload.c's send ring keeps no copy of: the FIX length and the CheckSum's offset follow from len */
        assert_int_equal(a.fix_len, a.len - OFL_FIX_OFF);
        assert_int_equal(a.cs_off, a.len - 4);
        assert_memory_equal(a.frame + a.cs_off - 4, "\x01" "10=000\x01", 8);
        if (mode == OFL_MSG_NUMBERED) assert_true(a.msg_off < 256);
        else assert_int_equal(a.msg_off, 0);
        assert_memory_equal(b.frame, a.frame, a.len);
        assert_int_equal(b.fix_len, a.fix_len);
        assert_int_equal(b.msg_off, a.msg_off);
        assert_int_equal(b.msg_width, a.msg_width);
        assert_int_equal(b.msg_mode, a.msg_mode);
        assert_int_equal(b.st_en, a.st_en);
        assert_int_equal(b.tt_en, a.tt_en);
        assert_int_equal(b.fin, a.fin);
        assert_int_equal(b.cs_off, a.cs_off);
        assert_int_equal(b.st_off, a.st_off);
        assert_int_equal(b.tt_off, a.tt_off);
        assert_int_equal(b.ip_csum, a.ip_csum);
        assert_int_equal(b.tcp_csum, a.tcp_csum);
        assert_int_equal(b.fix_sum, a.fix_sum);
        assert_int_equal(b.day_ms, a.day_ms);
        assert_false(b.st_en || b.tt_en);
        assert_int_equal(b.st_off, 0);
        assert_true(b.day_ms == 0);
        if (mode == OFL_MSG_KEEP) assert_int_equal(b.msg_width, 0);
        /* the same frames the engine would send for the same values */
        static uint8_t oa[OFL_FRAME_MAX], ob[OFL_FRAME_MAX];
        ofl_patch_t p = {0x12345678u, 0x9abcdef0u, 4096, 77, 4242, 0};
        assert_int_equal(ofl_materialize(&a, &p, oa), a.len);
        assert_int_equal(ofl_materialize(&b, &p, ob), a.len);
        assert_memory_equal(oa, ob, a.len);
    }
}

static void test_firmware_frames_bad_input_refused(void **state) {
    (void)state;
    static ofl_template_t t;
    static uint8_t msg[700];
    ofl_conn_t c = conn();
    size_t n = session_msg(msg, sizeof msg, "0", 0, 17, false, NULL);
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, OFL_MSG_NUMBERED, false), OFL_E_ARG); /* 34=17: no placeholder */
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, OFL_MSG_KEEP, false), OFL_OK);
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, OFL_MSG_NONE, true), OFL_E_ARG);     /* NONE with a message */
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, 3, false), OFL_E_ARG);
    assert_int_equal(ofl_build_frame(&t, &c, msg, 0, OFL_MSG_KEEP, true), OFL_E_ARG);     /* KEEP without one */
    assert_int_equal(ofl_build_frame(&t, &c, msg, n - 1, OFL_MSG_KEEP, false), OFL_E_ARG); /* cut short */
    msg[n - 2] = 'x';
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, OFL_MSG_KEEP, false), OFL_E_ARG);     /* CheckSum not digits */
    n = session_msg(msg, sizeof msg, "0", 11, 0, false, NULL);                             /* 11 '0's */
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, OFL_MSG_NUMBERED, false), OFL_E_ARG);
    static char text[500];
    memset(text, 'y', 460);
    text[460] = 0;
    n = session_msg(msg, sizeof msg, "5", 8, 0, false, text);
    assert_true(n > OFL_FRAME_MAX - OFL_FIX_OFF);
    assert_int_equal(ofl_build_frame(&t, &c, msg, n, OFL_MSG_NUMBERED, false), OFL_E_TOO_LONG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template_layout_and_placeholders),
        cmocka_unit_test(test_materialized_frames_valid_and_match_incremental_update),
        cmocka_unit_test(test_sell_and_other_widths),
        cmocka_unit_test(test_bad_input_refused),
        cmocka_unit_test(test_firmware_frames),
        cmocka_unit_test(test_firmware_frames_bad_input_refused),
        cmocka_unit_test(test_firmware_frame_built_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
