/* Host tests of fix/app.c over a logged-on session and a scripted counterparty: exact bytes of
 * 35=V / 35=D / 35=F, 35=W snapshots into structs, execution reports driving the order table,
 * application-level rejects, PossResend duplicates (test case 19). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fix_fixtures.h"

static fx_t T;

#define HDR_US "49=" FX_US "|52=*|56=" FX_THEM "|"

/* What the application callbacks saw. */
static struct {
    int n_md;
    fix_md_snapshot_t md;
    int n_exec;
    fix_order_t order;
    bool order_null;
    fix_exec_event_t ev;
    int n_md_rej;
    char md_rej_id[FIX_ID_MAX];
    unsigned n_more;      /* entries past the kept ones (fix_md_next_more) */
    int64_t more_px[128]; /* their prices */
    char more_type[128];  /* their types */
} seen;

static void on_md(void *ctx, const fix_md_snapshot_t *md)
{
    (void)ctx;
    seen.n_md++;
    seen.md = *md;
    seen.n_more = 0;
    fix_md_entry_t e;
    for (fix_cursor_t it = {0}; fix_md_next_more(md, &it, &e); seen.n_more++) {
        if (seen.n_more >= 128) fail();
        seen.more_px[seen.n_more] = e.price;
        seen.more_type[seen.n_more] = e.type;
    }
}

static void on_exec(void *ctx, const fix_order_t *o, const fix_exec_event_t *ev)
{
    (void)ctx;
    seen.n_exec++;
    seen.order_null = o == NULL;
    if (o) seen.order = *o;
    seen.ev = *ev;
}

static void on_md_rej(void *ctx, const char *id, char reason, const char *text)
{
    (void)ctx;
    (void)reason;
    (void)text;
    seen.n_md_rej++;
    snprintf(seen.md_rej_id, sizeof seen.md_rej_id, "%s", id);
}

static const fix_app_ops_t app_ops = {on_md, on_exec, on_md_rej};

static void start(const fix_session_config_t *c)
{
    memset(&seen, 0, sizeof seen);
    fx_init(&T, c);
    fix_app_config_t ac = {"ACC1", "TF", 4, 0};
    fix_app_init(&T.app, &T.s, &ac, &app_ops, NULL);
    fx_logon(&T);
}

static void start_default(void)
{
    fix_session_config_t c = fx_default_cfg();
    start(&c);
}

/* The exact bytes of message i equal the framed body (with the true BodyLength and CheckSum). */
static void expect_exact(int i, const char *body)
{
    uint8_t want[FIX_MAX_MSG_LEN];
    size_t n = fx_frame(want, sizeof want, body);
    if (n != T.sent_len[i] || memcmp(want, T.sent[i], n) != 0) {
        fprintf(stderr, "want: 8=FIX.4.4|9=..|%s10=..|\ngot:  %s\n", body, fx_text(&T, i));
        fail();
    }
}

static int new_order(uint64_t now)
{
    return fix_app_new_order(&T.app, "AAPL", '1', 100, 11702500, 0, now);
}

/* ---- Market data ---- */

static void test_app_market_data_request_exact_bytes(void **st)
{
    (void)st;
    start_default();
    const char *syms[] = {"AAPL", "MSFT"};
    assert_int_equal(fix_app_subscribe(&T.app, syms, 2, 1, 2000), 1);
    expect_exact(1, "35=V|34=2|49=TFISH|52=20260105-14:30:01.000|56=EXCH|262=MD1|263=1|264=1|265=0|267=3|"
                    "269=0|269=1|269=2|146=2|55=AAPL|55=MSFT|");
    assert_int_equal(fix_app_subscribe(&T.app, syms, 1, 0, 2001), 2);
    assert_string_equal(fx_field(&T, 2, 262), "MD2");
    assert_int_equal(fix_app_subscribe(&T.app, syms, 0, 0, 2001), FIX_E_RANGE);
}

static void test_app_snapshot_paper_layout_parsed(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|55=AAPL|262=MD1|268=3|269=0|270=1170.25|271=100|290=1|"
                    "269=1|270=1170.50|271=200|290=1|269=2|270=1170.3|271=5|");
    assert_int_equal(seen.n_md, 1);
    assert_string_equal(seen.md.symbol, "AAPL");
    assert_string_equal(seen.md.md_req_id, "MD1");
    assert_int_equal(seen.md.seq, 2);
    assert_int_equal(seen.md.n, 3);
    assert_int_equal(seen.md.e[0].type, '0');
    assert_int_equal(seen.md.e[0].price, 11702500);
    assert_int_equal(seen.md.e[0].size, 100);
    assert_int_equal(seen.md.e[0].position, 1);
    assert_int_equal(seen.md.e[1].type, '1');
    assert_int_equal(seen.md.e[1].price, 11705000);
    assert_int_equal(seen.md.e[2].type, '2');
    assert_int_equal(seen.md.e[2].price, 11703000);
    assert_int_equal(seen.md.e[2].size, 5);
    assert_int_equal(seen.md.e[2].position, 0);
    assert_int_equal(T.nsent, 1); /* nothing to answer */
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

/* The receive path end to end: a 35=W split into two TCP segments at every byte position reaches the market
 * data callback once, whole and exact, and is counted once in sequence. */
static void test_app_snapshot_split_at_every_position(void **st)
{
    (void)st;
    for (size_t cut = 0;; cut++) {
        start_default();
        char full[512], ts[FIX_UTC_TS_LEN + 1];
        fx_peer_time(2000, ts);
        snprintf(full, sizeof full,
                 "35=W|34=2|49=" FX_THEM "|52=%s|56=" FX_US "|55=AAPL|262=MD1|268=2|269=0|270=01170.25|271=100|"
                 "269=1|270=1170.500000|271=200|",
                 ts);
        uint8_t b[512];
        size_t n = fx_frame(b, sizeof b, full);
        if (cut > n) break;
        fx_bytes(&T, 2000, b, cut);
        assert_int_equal(seen.n_md, cut == n ? 1 : 0);
        fx_bytes(&T, 2000, b + cut, n - cut);
        assert_int_equal(seen.n_md, 1);
        assert_string_equal(seen.md.symbol, "AAPL");
        assert_int_equal(seen.md.n, 2);
        assert_int_equal(seen.md.e[0].price, 11702500);
        assert_int_equal(seen.md.e[1].price, 11705000);
        assert_int_equal(seen.md.e[1].size, 200);
        assert_int_equal(fix_session_next_in(&T.s), 3);
        assert_int_equal(T.nsent, 1);
    }
}

static void test_app_snapshot_reordered_fields_and_one_entry(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|262=MD1|268=1|269=2|271=7|270=99|55=MSFT|");
    assert_int_equal(seen.n_md, 1);
    assert_string_equal(seen.md.symbol, "MSFT");
    assert_int_equal(seen.md.n, 1);
    assert_int_equal(seen.md.e[0].price, 990000);
    assert_int_equal(seen.md.e[0].size, 7);
    assert_true(seen.md.e[0].has_price && seen.md.e[0].has_size);
}

/* A price with more decimals than configured is valid market data: taken (never a session Reject), its floor
 * at the configured decimals and a flag that it lies above it, so that a stop compares it exactly. */
static void test_app_snapshot_price_with_too_many_decimals_taken_exactly(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|55=AAPL|268=3|269=2|270=1170.12345|271=5.5|269=2|270=-0.00001|269=2|270=7.000000|");
    assert_int_equal(T.nsent, 1); /* the Logon only: no Reject */
    assert_int_equal(seen.n_md, 1);
    assert_int_equal(seen.md.n, 3);
    assert_int_equal(seen.md.e[0].price, 11701234);
    assert_true(seen.md.e[0].price_inexact);
    assert_int_equal(seen.md.e[0].size, 5);
    assert_int_equal(seen.md.e[1].price, -1); /* floor(-0.00001) at 4 decimals */
    assert_true(seen.md.e[1].price_inexact);
    assert_int_equal(seen.md.e[2].price, 70000);
    assert_false(seen.md.e[2].price_inexact);
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

/* A price too large for int64 is above every stop: held at INT64_MAX, inexact; a malformed one is rejected. */
static void test_app_snapshot_price_overflow_held_and_format_rejected(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|55=AAPL|268=2|269=2|270=99999999999999999|269=2|270=-99999999999999999.5|");
    assert_int_equal(T.nsent, 1); /* the Logon only: no Reject */
    assert_int_equal(seen.n_md, 1);
    assert_int_equal(seen.md.e[0].price, INT64_MAX);
    assert_true(seen.md.e[0].price_inexact);
    assert_int_equal(seen.md.e[1].price, INT64_MIN);
    assert_true(seen.md.e[1].price_inexact);
    fx_in(&T, 2001, "35=W|34=3|55=AAPL|268=1|269=2|270=12,5|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=3|371=270|372=W|373=6|58=Incorrect data format for value|");
    fx_in(&T, 2002, "35=W|34=4|55=AAPL|268=1|269=2|270=+12.5|");
    FX_EXPECT(&T, 2, "35=3|34=3|" HDR_US "45=4|371=270|372=W|373=6|58=Incorrect data format for value|");
    assert_int_equal(seen.n_md, 1);
}

/* MDEntryPositionNo (290): any number of digits up to INT32_MAX (leading zeros too) is taken; a sign, a value past
 * INT32_MAX or a non-digit is rejected as a format error naming 290. */
static void test_app_snapshot_position_forms(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|55=AAPL|268=3|269=0|290=2147483647|269=1|290=0000000000007|269=2|290=0|");
    assert_int_equal(T.nsent, 1); /* the Logon only: no Reject */
    assert_int_equal(seen.n_md, 1);
    assert_int_equal(seen.md.e[0].position, INT32_MAX);
    assert_int_equal(seen.md.e[1].position, 7);
    assert_int_equal(seen.md.e[2].position, 0);
    static const char *const bad[] = {"2147483648", "-1", "+1", "1.0", "x", "99999999999999999999"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char msg[128], want[160];
        snprintf(msg, sizeof msg, "35=W|34=%u|55=AAPL|268=1|269=0|290=%s|", 3 + i, bad[i]);
        fx_in(&T, 2001 + i, msg);
        snprintf(want, sizeof want, "35=3|34=%u|" HDR_US "45=%u|371=290|372=W|373=6|58=Incorrect data format for value|",
                 2 + i, 3 + i);
        FX_EXPECT(&T, 1 + i, want);
    }
    assert_int_equal(seen.n_md, 1);
}

/* Entries of the common form and of others in one group, as the in-line walk and parse_entry take them: a value
 * repeated (the first one kept), member tags without values, an entry without values, a position past 9 digits, a
 * size with decimals and a negative price between entries of the common form; then the first bad value of an entry in
 * entry order whatever the field order (a bad 290 before a bad 271: 271), and a bad entry after a good one. */
static void test_app_snapshot_common_and_other_entries_mixed(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|55=AAPL|262=MD1|268=6|269=0|270=99.75|270=1|271=100|290=1|272=20260101|"
                    "269=1|290=0000000002|270=100.2|271=3|269=2|269=0|270=-1.5|271=7.25|"
                    "269=1|271=05|270=000000001.|290=123456789|269=2|270=1.23456|271=1|");
    assert_int_equal(T.nsent, 1); /* the Logon only: no Reject */
    assert_int_equal(seen.n_md, 1);
    assert_int_equal(seen.md.n, 6);
    assert_int_equal(seen.md.count, 6);
    const fix_md_entry_t *e = seen.md.e;
    assert_int_equal(e[0].type, '0');
    assert_int_equal(e[0].price, 997500);
    assert_int_equal(e[0].size, 100);
    assert_int_equal(e[0].position, 1);
    assert_true(e[0].has_price && e[0].has_size && !e[0].price_inexact);
    assert_int_equal(e[1].type, '1');
    assert_int_equal(e[1].price, 1002000);
    assert_int_equal(e[1].size, 3);
    assert_int_equal(e[1].position, 2);
    assert_int_equal(e[2].type, '2');
    assert_false(e[2].has_price || e[2].has_size || e[2].price_inexact);
    assert_int_equal(e[2].price, 0);
    assert_int_equal(e[2].size, 0);
    assert_int_equal(e[2].position, 0);
    assert_int_equal(e[3].type, '0');
    assert_int_equal(e[3].price, -15000);
    assert_int_equal(e[3].size, 7); /* its floor */
    assert_int_equal(e[4].type, '1');
    assert_int_equal(e[4].price, 10000);
    assert_int_equal(e[4].size, 5);
    assert_int_equal(e[4].position, 123456789);
    assert_int_equal(e[5].type, '2');
    assert_int_equal(e[5].price, 12345);
    assert_true(e[5].price_inexact);
    assert_int_equal(e[5].size, 1);
    fx_in(&T, 2001, "35=W|34=3|55=AAPL|268=2|269=0|270=1|271=2|269=1|290=x|271=1.5.|270=2|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=3|371=271|372=W|373=6|58=Incorrect data format for value|");
    fx_in(&T, 2002, "35=W|34=4|55=AAPL|268=3|269=0|270=1|269=12|270=x|269=1|270=y|");
    FX_EXPECT(&T, 2, "35=3|34=3|" HDR_US "45=4|371=269|372=W|373=6|58=Incorrect data format for value|");
    assert_int_equal(seen.n_md, 1);
}

static void test_14i_group_count_mismatch_rejected(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|55=AAPL|268=3|269=0|270=1|269=1|270=2|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=268|372=W|373=16|58=Incorrect NumInGroup count for repeating group|");
    assert_int_equal(seen.n_md, 0);
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_14b_snapshot_without_symbol_rejected(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=W|34=2|268=1|269=2|270=1|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=55|372=W|373=1|58=Required tag missing|");
}

static void test_app_snapshot_more_entries_than_kept(void **st)
{
    (void)st;
    start_default();
    char body[FIX_MAX_MSG_LEN];
    int n = snprintf(body, sizeof body, "35=W|34=2|55=X|268=%d|", FIX_APP_MAX_MD_ENTRIES + 3);
    for (int i = 0; i < FIX_APP_MAX_MD_ENTRIES + 3; i++) n += snprintf(body + n, sizeof body - (size_t)n, "269=1|270=%d|", i + 1);
    fx_in(&T, 2000, body);
    assert_int_equal(seen.n_md, 1);
    assert_int_equal(seen.md.count, FIX_APP_MAX_MD_ENTRIES + 3);
    assert_int_equal(seen.md.n, FIX_APP_MAX_MD_ENTRIES);
    assert_int_equal(seen.md.e[FIX_APP_MAX_MD_ENTRIES - 1].price, (int64_t)FIX_APP_MAX_MD_ENTRIES * 10000);
}

/* A 35=W as long as a message may be (FIX_MAX_MSG_LEN), its entries reaching far past the fields the parser keeps
 * (FIX_MAX_FIELDS, 40 on the SoC): valid market data, delivered whole and never answered with a Reject; every entry
 * past the kept ones is seen, in order, with its own type and price. */
static void test_app_snapshot_longer_than_the_kept_fields(void **st)
{
    (void)st;
    start_default();
    char entries[FIX_MAX_MSG_LEN];
    int n = 0, count = 0;
    /* entries "269=t|270=p|" (t cycles bid, offer, trade; p = 1001 + i) while the whole message stays within limits */
    while (n < FIX_MAX_MSG_LEN - 200) {
        n += snprintf(entries + n, sizeof entries - (size_t)n, "269=%c|270=%d|", "012"[count % 3], 1001 + count);
        count++;
    }
    assert_true(2 * count > FIX_MAX_FIELDS + 20);
    char body[FIX_MAX_MSG_LEN + 64]; /* (framed, the message stays within FIX_MAX_MSG_LEN) */
    snprintf(body, sizeof body, "35=W|34=2|262=MD7|55=LONG|268=%d|%s", count, entries);
    int before = T.nsent;
    fx_in(&T, 2000, body);
    assert_int_equal(T.nsent, before); /* no Reject */
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_int_equal(seen.n_md, 1);
    assert_string_equal(seen.md.symbol, "LONG");
    assert_int_equal(seen.md.count, count);
    assert_int_equal(seen.md.n, FIX_APP_MAX_MD_ENTRIES);
    for (int i = 0; i < FIX_APP_MAX_MD_ENTRIES; i++) {
        assert_int_equal(seen.md.e[i].type, "012"[i % 3]);
        assert_int_equal(seen.md.e[i].price, (int64_t)(1001 + i) * 10000);
    }
    assert_int_equal(seen.n_more, count - FIX_APP_MAX_MD_ENTRIES);
    for (int i = FIX_APP_MAX_MD_ENTRIES; i < count; i++) {
        assert_int_equal(seen.more_type[i - FIX_APP_MAX_MD_ENTRIES], "012"[i % 3]);
        assert_int_equal(seen.more_px[i - FIX_APP_MAX_MD_ENTRIES], (int64_t)(1001 + i) * 10000);
    }
    /* the count is still checked past the kept fields: one entry short is refused (373=16) */
    snprintf(body, sizeof body, "35=W|34=3|262=MD7|55=LONG|268=%d|%s", count + 1, entries);
    fx_in(&T, 2001, body);
    assert_int_equal(T.nsent, before + 1);
    assert_string_equal(fx_field(&T, before, 35), "3");
    assert_string_equal(fx_field(&T, before, 373), "16");
}

static void test_app_market_data_request_reject_reported(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2000, "35=Y|34=2|262=MD1|281=0|58=unknown symbol|");
    assert_int_equal(seen.n_md_rej, 1);
    assert_string_equal(seen.md_rej_id, "MD1");
    assert_int_equal(T.nsent, 1);
}

/* ---- Orders ---- */

static void test_app_new_order_single_exact_bytes_in_design_order(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000);
    assert_true(idx >= 0);
    expect_exact(1, "35=D|34=2|49=TFISH|52=20260105-14:30:01.000|56=EXCH|1=ACC1|11=TF1|21=1|38=100|40=2|"
                    "44=1170.25|54=1|55=AAPL|59=0|60=20260105-14:30:01.000|");
    const fix_order_t *o = fix_app_order(&T.app, idx);
    assert_non_null(o);
    assert_int_equal(o->state, FIX_ORD_PENDING_NEW);
    assert_string_equal(o->clordid, "TF1");
    assert_int_equal(o->seq, 2);
    assert_int_equal(o->leaves_qty, 100);
    assert_int_equal(fix_app_find(&T.app, "TF1"), idx);
    /* bad arguments send nothing */
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '3', 1, 1, 0, 2001), FIX_E_RANGE);
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 0, 1, 0, 2001), FIX_E_RANGE);
    assert_int_equal(T.nsent, 2);
}

static void test_app_execution_reports_new_partial_fill(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000);
    fx_in(&T, 2100, "35=8|34=2|37=OID1|11=TF1|17=E1|150=0|39=0|55=AAPL|54=1|38=100|44=1170.25|151=100|14=0|6=0|");
    assert_int_equal(seen.n_exec, 1);
    assert_int_equal(seen.ev.exec_type, '0');
    assert_int_equal(seen.order.state, FIX_ORD_NEW);
    assert_string_equal(seen.order.order_id, "OID1");
    fx_in(&T, 2200, "35=8|34=3|37=OID1|11=TF1|17=E2|150=F|39=1|55=AAPL|54=1|38=100|44=1170.25|"
                    "32=40|31=1170.25|151=60|14=40|6=1170.25|");
    assert_int_equal(seen.n_exec, 2);
    assert_int_equal(seen.ev.exec_type, 'F');
    assert_int_equal(seen.ev.last_qty, 40);
    assert_int_equal(seen.ev.last_px, 11702500);
    assert_int_equal(seen.order.state, FIX_ORD_PARTIAL);
    assert_int_equal(seen.order.cum_qty, 40);
    assert_int_equal(seen.order.leaves_qty, 60);
    /* AvgPx with more decimals than configured is truncated, not rejected. */
    fx_in(&T, 2300, "35=8|34=4|37=OID1|11=TF1|17=E3|150=F|39=2|55=AAPL|54=1|38=100|44=1170.25|"
                    "32=60|31=1170.20|151=0|14=100|6=1170.22000001|");
    const fix_order_t *o = fix_app_order(&T.app, idx);
    assert_int_equal(o->state, FIX_ORD_FILLED);
    assert_int_equal(o->cum_qty, 100);
    assert_int_equal(o->leaves_qty, 0);
    assert_int_equal(o->avg_px, 11702200);
    assert_int_equal(T.nsent, 2); /* no rejects */
    assert_int_equal(fix_app_cancel(&T.app, idx, 2400), FIX_E_RANGE); /* filled: nothing to cancel */
}

static void test_app_cancel_request_exact_bytes_and_canceled(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000);
    fx_in(&T, 2100, "35=8|34=2|37=OID1|11=TF1|17=E1|150=0|39=0|55=AAPL|54=1|151=100|14=0|6=0|");
    assert_int_equal(fix_app_cancel(&T.app, idx, 3000), FIX_OK);
    expect_exact(2, "35=F|34=3|49=TFISH|52=20260105-14:30:02.000|56=EXCH|41=TF1|37=OID1|11=TF2|54=1|55=AAPL|"
                    "38=100|60=20260105-14:30:02.000|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_PENDING_CANCEL);
    fx_in(&T, 3100, "35=8|34=3|37=OID1|11=TF2|41=TF1|17=E2|150=4|39=4|55=AAPL|54=1|151=0|14=0|6=0|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_CANCELED);
    assert_int_equal(seen.ev.exec_type, '4');
    assert_false(seen.order_null);
}

static void test_app_cancel_reject_restores_state(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000);
    fx_in(&T, 2100, "35=8|34=2|37=OID1|11=TF1|17=E1|150=0|39=0|55=AAPL|54=1|151=100|14=0|6=0|");
    fix_app_cancel(&T.app, idx, 3000);
    fx_in(&T, 3100, "35=9|34=3|37=OID1|11=TF2|41=TF1|39=0|434=1|58=too late|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_NEW);
    assert_int_equal(seen.ev.msg_type, '9');
    assert_string_equal(seen.ev.text, "too late");
}


/* Orders numbered by the transport (the order engine, ops.send_numbered): the order has no MsgSeqNum until its
 * message is handed back as sent (fix_session_adopt), interleaved with an order the hardware sent on its own;
 * then a Business Message Reject naming that number rejects it, and a number out of turn is refused. */
static struct {
    uint8_t m[FIX_MAX_MSG_LEN];
    size_t n;
    int count;
} q;
static void q_send(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    memcpy(q.m, d, n);
    q.n = n;
    q.count++;
}

/* A session whose new messages the transport numbers (q_send keeps the last), and an order sent that way. */
static int start_numbered_order(void)
{
    start_default();
    T.s.ops.send_numbered = q_send;
    memset(&q, 0, sizeof q);
    int idx = new_order(2000);
    assert_true(idx >= 0);
    return idx;
}

static void test_app_order_numbered_by_transport(void **st)
{
    (void)st;
    int idx = start_numbered_order();
    assert_int_equal(q.count, 1);
    assert_int_equal(T.nsent, 1);                         /* (only the Logon went the direct way) */
    assert_int_equal(fix_app_order(&T.app, idx)->seq, 0); /* no number yet */
    assert_int_equal(fix_session_next_out(&T.s), 2);
    /* the placeholder, at FIX_NUMBERED_WIDTH */
    const char *ph = "\x01" "34=00000000\x01";
    bool found = false;
    for (size_t i = 0; i + 13 <= q.n; i++) found |= memcmp(q.m + i, ph, 13) == 0;
    assert_true(found);
    /* the hardware's order goes first and takes 2 */
    uint8_t hw[FIX_MAX_MSG_LEN];
    size_t hn = fx_frame(hw, sizeof hw, "35=D|34=00000002|49=TFISH|52=20260105-14:30:01.000|56=EXCH|1=ACC1|11=H1|21=1|"
                                         "38=5|40=2|44=117|54=2|55=MSFT|59=0|60=20260105-14:30:01.000|");
    assert_int_equal(fix_session_adopt(&T.s, hw, hn, 2001), 2);
    /* firmware's order out of turn: refused, nothing taken */
    uint8_t m[FIX_MAX_MSG_LEN];
    memcpy(m, q.m, q.n);
    for (size_t i = 0; i + 13 <= q.n; i++)
        if (memcmp(m + i, ph, 13) == 0) memcpy(m + i + 4, "00000002", 8);
    assert_int_equal(fix_session_adopt(&T.s, m, q.n, 2002), FIX_E_RANGE);
    assert_int_equal(fix_session_next_out(&T.s), 3);
    assert_int_equal(fix_app_order(&T.app, idx)->seq, 0);
    /* in turn: 3 */
    for (size_t i = 0; i + 13 <= q.n; i++)
        if (memcmp(m + i, "\x01" "34=00000002\x01", 13) == 0) memcpy(m + i + 4, "00000003", 8);
    assert_int_equal(fix_session_adopt(&T.s, m, q.n, 2003), 3);
    assert_int_equal(fix_app_order(&T.app, idx)->seq, 3);
    assert_int_equal(fix_session_next_out(&T.s), 4);
    assert_int_equal(fix_session_adopt(&T.s, hw, 5, 2004), FIX_E_FORMAT);
    /* the exchange's Business Message Reject of MsgSeqNum 3 is this order's */
    fx_in(&T, 2100, "35=j|34=2|45=3|372=D|380=2|58=unknown security|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_REJECTED);
}

/* An order the risk gate refused before it left (its numbered message never sent): rejected locally, with the
 * reason; an order already sent (numbered) or an unknown ClOrdID is not. */
static void test_app_order_refused_before_it_left(void **st)
{
    (void)st;
    int idx = start_numbered_order();
    const char *id = fix_app_order(&T.app, idx)->clordid;
    assert_int_equal(fix_app_refuse(&T.app, "nope", "risk: max_qty"), FIX_E_RANGE);
    assert_int_equal(fix_app_refuse(&T.app, id, "risk: max_qty"), idx);
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_REJECTED);
    assert_int_equal(seen.ev.msg_type, '8');
    assert_string_equal(seen.ev.text, "risk: max_qty");
    assert_int_equal(fix_session_next_out(&T.s), 2); /* no number taken */
    assert_int_equal(fix_app_refuse(&T.app, id, "again"), FIX_E_RANGE);
    /* a sent order (adopted: it has its number) is not refused */
    int k = new_order(2001);
    for (size_t i = 0; i + 13 <= q.n; i++)
        if (memcmp(q.m + i, "\x01" "34=00000000\x01", 13) == 0) memcpy(q.m + i + 4, "00000002", 8);
    assert_int_equal(fix_session_adopt(&T.s, q.m, q.n, 2002), 2);
    assert_int_equal(fix_app_refuse(&T.app, fix_app_order(&T.app, k)->clordid, "late"), FIX_E_RANGE);
    assert_int_equal(fix_app_order(&T.app, k)->state, FIX_ORD_PENDING_NEW);
}

static void test_app_order_rejected_by_exchange(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000);
    fx_in(&T, 2100, "35=8|34=2|37=NONE|11=TF1|17=E1|150=8|39=8|55=AAPL|54=1|151=0|14=0|6=0|58=halted|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_REJECTED);
    assert_string_equal(seen.ev.text, "halted");
}

static void test_app_business_reject_of_order_marks_rejected(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000);
    fx_in(&T, 2100, "35=j|34=2|45=2|372=D|380=2|58=unknown security|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_REJECTED);
    assert_int_equal(seen.ev.msg_type, 'j');
    assert_int_equal(T.nsent, 2);
}

static void test_app_execution_report_missing_required_tag_rejected(void **st)
{
    (void)st;
    start_default();
    new_order(2000);
    fx_in(&T, 2100, "35=8|34=2|37=OID1|11=TF1|17=E1|39=0|55=AAPL|54=1|151=100|14=0|6=0|");
    FX_EXPECT(&T, 2, "35=3|34=3|" HDR_US "45=2|371=150|372=8|373=1|58=Required tag missing|");
    assert_int_equal(seen.n_exec, 0);
    fx_in(&T, 2200, "35=8|34=3|37=OID1|11=TF1|17=E1|150=0|39=Q|55=AAPL|54=1|151=100|14=0|6=0|");
    FX_EXPECT(&T, 3, "35=3|34=4|" HDR_US "45=3|371=39|372=8|373=5|58=*|");
    assert_int_equal(seen.n_exec, 0);
}

static void test_app_execution_report_for_unknown_order_reported(void **st)
{
    (void)st;
    start_default();
    fx_in(&T, 2100, "35=8|34=2|37=X|11=NOPE|17=E9|150=0|39=0|55=AAPL|54=1|151=1|14=0|6=0|");
    assert_int_equal(seen.n_exec, 1);
    assert_true(seen.order_null);
    assert_int_equal(T.nsent, 1);
}

static void test_19_possresend_duplicate_execution_report_ignored(void **st)
{
    (void)st;
    start_default();
    new_order(2000);
    fx_in(&T, 2100, "35=8|34=2|37=OID1|11=TF1|17=E1|150=F|39=1|55=AAPL|54=1|32=10|31=1170|151=90|14=10|6=1170|");
    assert_int_equal(seen.n_exec, 1);
    /* 19a: same ExecID again with PossResend=Y and a new MsgSeqNum: accepted at session level, ignored */
    fx_in(&T, 2200, "35=8|34=3|97=Y|37=OID1|11=TF1|17=E1|150=F|39=1|55=AAPL|54=1|32=10|31=1170|151=90|14=10|6=1170|");
    assert_int_equal(seen.n_exec, 1);
    assert_int_equal(fix_session_next_in(&T.s), 4);
    /* 19b: PossResend=Y but not seen before: processed */
    fx_in(&T, 2300, "35=8|34=4|97=Y|37=OID1|11=TF1|17=E2|150=F|39=1|55=AAPL|54=1|32=5|31=1170|151=85|14=15|6=1170|");
    assert_int_equal(seen.n_exec, 2);
    assert_int_equal(seen.order.cum_qty, 15);
    assert_int_equal(T.nsent, 2);
}

static void test_app_gapfilled_order_marked_not_delivered(void **st)
{
    (void)st;
    start_default();
    int idx = new_order(2000); /* 34=2 */
    fx_in(&T, 5000, "35=2|34=2|7=2|16=0|");
    FX_EXPECT(&T, 2, "35=4|34=2|43=Y|" HDR_US "122=*|123=Y|36=3|");
    assert_int_equal(fix_app_order(&T.app, idx)->state, FIX_ORD_REJECTED);
    assert_string_equal(seen.ev.text, "not delivered: gap-filled on resend");
}

static void test_app_orders_refused_when_not_logged_on(void **st)
{
    (void)st;
    memset(&seen, 0, sizeof seen);
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    fix_app_config_t ac = {"ACC1", "TF", 4, 0};
    fix_app_init(&T.app, &T.s, &ac, &app_ops, NULL);
    assert_int_equal(new_order(100), FIX_E_MISSING);
    fix_session_connected(&T.s, 200);
    assert_int_equal(new_order(300), FIX_E_MISSING);
    assert_int_equal(T.nsent, 1); /* only the Logon */
    assert_int_equal(T.app.next_id, 1); /* no ClOrdID consumed */
}

static void test_app_order_table_full_reuses_finished_slots(void **st)
{
    (void)st;
    start_default();
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++) assert_int_equal(new_order(2000 + (uint64_t)i), i);
    assert_int_equal(new_order(3000), FIX_E_FULL);
    /* finish order 5 (TF6) */
    fx_in(&T, 3100, "35=8|34=2|37=O6|11=TF6|17=E1|150=8|39=8|55=AAPL|54=1|151=0|14=0|6=0|");
    int before = T.nsent;
    assert_int_equal(new_order(3200), 5);
    assert_int_equal(T.nsent, before + 1);
    char want[16];
    snprintf(want, sizeof want, "TF%d", FIX_APP_MAX_ORDERS + 1); /* the next ClOrdID: the refused order took none */
    assert_string_equal(fix_app_order(&T.app, 5)->clordid, want);
}

/* `keep`: an order takes an entry only while it leaves that many available (free or finished) ones, which an order
 * with a smaller keep may then take; nothing is sent when it is refused. */
static void test_app_order_leaves_kept_entries(void **st)
{
    (void)st;
    start_default();
    assert_int_equal(fix_app_available(&T.app), FIX_APP_MAX_ORDERS);
    for (int i = 0; i < FIX_APP_MAX_ORDERS - 3; i++) assert_int_equal(new_order(2000 + (uint64_t)i), i);
    assert_int_equal(fix_app_available(&T.app), 3);
    int before = T.nsent;
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 1, 1, 3, 2100), FIX_E_FULL);
    assert_int_equal(T.nsent, before);
    assert_int_equal(fix_app_adopt_order(&T.app, "HW1", "AAPL", '1', 1, 1, 9, 3, 2100), FIX_E_FULL);
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 1, 1, 2, 2100), FIX_APP_MAX_ORDERS - 3);
    assert_int_equal(fix_app_adopt_order(&T.app, "HW1", "AAPL", '1', 1, 1, 9, 1, 2101), FIX_APP_MAX_ORDERS - 2);
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 1, 1, 1, 2102), FIX_E_FULL);
    assert_int_equal(fix_app_available(&T.app), 1);
    /* a finished order's entry is available again (TF2, order 1, rejected) */
    fx_in(&T, 3100, "35=8|34=2|37=O2|11=TF2|17=E1|150=8|39=8|55=AAPL|54=1|151=0|14=0|6=0|");
    assert_int_equal(fix_app_available(&T.app), 2);
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 1, 1, 1, 3200), FIX_APP_MAX_ORDERS - 1); /* free first */
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 1, 1, 1, 3201), FIX_E_FULL);
    assert_int_equal(fix_app_new_order(&T.app, "AAPL", '1', 1, 1, 0, 3202), 1);
    assert_int_equal(fix_app_available(&T.app), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_market_data_request_exact_bytes),
        cmocka_unit_test(test_app_snapshot_paper_layout_parsed),
        cmocka_unit_test(test_app_snapshot_split_at_every_position),
        cmocka_unit_test(test_app_snapshot_reordered_fields_and_one_entry),
        cmocka_unit_test(test_app_snapshot_price_with_too_many_decimals_taken_exactly),
        cmocka_unit_test(test_app_snapshot_price_overflow_held_and_format_rejected),
        cmocka_unit_test(test_app_snapshot_position_forms),
        cmocka_unit_test(test_app_snapshot_common_and_other_entries_mixed),
        cmocka_unit_test(test_14i_group_count_mismatch_rejected),
        cmocka_unit_test(test_14b_snapshot_without_symbol_rejected),
        cmocka_unit_test(test_app_snapshot_more_entries_than_kept),
        cmocka_unit_test(test_app_snapshot_longer_than_the_kept_fields),
        cmocka_unit_test(test_app_market_data_request_reject_reported),
        cmocka_unit_test(test_app_new_order_single_exact_bytes_in_design_order),
        cmocka_unit_test(test_app_execution_reports_new_partial_fill),
        cmocka_unit_test(test_app_cancel_request_exact_bytes_and_canceled),
        cmocka_unit_test(test_app_cancel_reject_restores_state),
        cmocka_unit_test(test_app_order_rejected_by_exchange),
        cmocka_unit_test(test_app_business_reject_of_order_marks_rejected),
        cmocka_unit_test(test_app_execution_report_missing_required_tag_rejected),
        cmocka_unit_test(test_app_execution_report_for_unknown_order_reported),
        cmocka_unit_test(test_19_possresend_duplicate_execution_report_ignored),
        cmocka_unit_test(test_app_gapfilled_order_marked_not_delivered),
        cmocka_unit_test(test_app_orders_refused_when_not_logged_on),
        cmocka_unit_test(test_app_order_numbered_by_transport),
        cmocka_unit_test(test_app_order_refused_before_it_left),
        cmocka_unit_test(test_app_order_table_full_reuses_finished_slots),
        cmocka_unit_test(test_app_order_leaves_kept_entries),
    };
    return cmocka_run_group_tests_name("fix_app", tests, NULL, NULL);
}
