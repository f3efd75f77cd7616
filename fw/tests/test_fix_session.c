/* Host tests of fix/session.c against a scripted counterparty, one test per FIX 4.4 session-level
 * test case that applies to an initiator (numbering of the FIX "Session-level test cases"), plus
 * resend/offload/reconnect behaviour and a fuzz loop. They check the exact messages sent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fix_fixtures.h"

static fx_t T; /* big: keep it off the stack */

#define HDR_US "49=" FX_US "|52=*|56=" FX_THEM "|"

static void logon_default(void)
{
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    fx_logon(&T);
}

/* ---- 1S: connect and send Logon ---- */

static void test_1s_logon_sent_and_accepted(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_DISCONNECTED);
    fix_session_connected(&T.s, 990);
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_LOGON_SENT);
    FX_EXPECT(&T, 0, "35=A|34=1|" HDR_US "98=0|108=30|");
    fx_in(&T, FX_T0_NOW, "35=A|34=1|98=0|108=30|");
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_ACTIVE);
    assert_true(fx_has_event(&T, FIX_EV_LOGON));
    assert_int_equal(fix_session_next_in(&T.s), 2);
    assert_int_equal(fix_session_next_out(&T.s), 2);
    assert_int_equal(T.nsent, 1);
    /* The clock came from the peer's SendingTime: our next message carries it. */
    assert_true(fix_session_utc_valid(&T.s));
    fix_session_poll(&T.s, FX_T0_NOW + 30000);
    FX_EXPECT(&T, 1, "35=0|34=2|49=TFISH|52=20260105-14:30:30.000|56=EXCH|");
}

static void test_1s_logon_with_reset_seqnum_flag(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    c.reset_on_logon = true;
    fx_init(&T, &c);
    fix_session_set_seqnums(&T.s, 50, 60);
    fix_session_connected(&T.s, 990);
    FX_EXPECT(&T, 0, "35=A|34=1|" HDR_US "98=0|108=30|141=Y|");
    fx_in(&T, FX_T0_NOW, "35=A|34=1|98=0|108=30|141=Y|");
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_ACTIVE);
    assert_int_equal(fix_session_next_in(&T.s), 2);
}

static void test_1s_logon_reply_msgseqnum_too_high_sends_resend_request(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    fix_session_connected(&T.s, 990);
    fx_in(&T, FX_T0_NOW, "35=A|34=5|98=0|108=30|");
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_ACTIVE);
    FX_EXPECT(&T, 1, "35=2|34=2|" HDR_US "7=1|16=0|");
    assert_int_equal(fix_session_next_in(&T.s), 1);
    /* The peer resends 1..4 as a gap fill, then its next message is in sequence. */
    fx_in(&T, 1100, "35=4|34=1|43=Y|122=20260105-14:30:00.000|123=Y|36=6|");
    assert_int_equal(fix_session_next_in(&T.s), 6);
    fx_in(&T, 1200, "35=0|34=6|");
    assert_int_equal(fix_session_next_in(&T.s), 7);
    assert_int_equal(T.nsent, 2);
}

static void test_1s_first_message_not_logon_disconnects(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    fix_session_connected(&T.s, 990);
    fx_in(&T, FX_T0_NOW, "35=0|34=1|");
    assert_int_equal(T.disconnects, 1);
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_DISCONNECTED);
    assert_int_equal(T.nsent, 2); /* 1B.e: a Logout naming the problem before the close */
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US "58=first message not a logon|");
}

static void test_1s_logon_reply_wrong_compid_disconnects(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    fix_session_connected(&T.s, 990);
    fx_in_raw(&T, FX_T0_NOW, "35=A|34=1|49=OTHER|52=20260105-14:30:00.000|56=TFISH|98=0|108=30|");
    assert_int_equal(T.disconnects, 1);
    assert_int_equal(T.nsent, 2); /* 1B.d: a Logout naming the problem before the close */
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US "58=CompID problem|");
}

static void test_1s_no_logon_reply_times_out(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    c.logon_timeout_ms = 5000;
    fx_init(&T, &c);
    fix_session_connected(&T.s, 1000);
    fix_session_poll(&T.s, 5999);
    assert_int_equal(T.disconnects, 0);
    fix_session_poll(&T.s, 6000);
    assert_int_equal(T.disconnects, 1);
}

static void test_1s_logon_refused_teaches_clock_for_next_connection(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    fix_session_connected(&T.s, 990); /* SendingTime 1970: a checking acceptor refuses */
    fx_in(&T, FX_T0_NOW, "35=5|34=1|58=SendingTime accuracy problem|");
    assert_int_equal(T.disconnects, 1);
    fix_session_disconnected(&T.s);
    fix_session_connected(&T.s, FX_T0_NOW + 2000);
    FX_EXPECT(&T, 1, "35=A|34=2|49=TFISH|52=20260105-14:30:02.000|56=EXCH|98=0|108=30|");
}

/* ---- 2: receive message standard header ---- */

static void test_2a_msgseqnum_as_expected_accepted(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    fx_in(&T, 2001, "35=0|34=3|");
    assert_int_equal(fix_session_next_in(&T.s), 4);
    assert_int_equal(T.nsent, 1);
}

static void test_2b_msgseqnum_higher_than_expected_sends_resend_request(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=5|");
    FX_EXPECT(&T, 1, "35=2|34=2|" HDR_US "7=2|16=0|");
    assert_int_equal(fix_session_next_in(&T.s), 2); /* not processed, not queued */
    fx_in(&T, 2001, "35=0|34=6|");
    assert_int_equal(T.nsent, 2); /* only one ResendRequest while it is outstanding */
    /* The peer answers: 2..4 gap-filled, 5 and 6 resent. */
    fx_in(&T, 2100, "35=4|34=2|43=Y|122=20260105-14:30:01.100|123=Y|36=5|");
    fx_in(&T, 2101, "35=0|34=5|43=Y|122=20260105-14:30:01.000|");
    fx_in(&T, 2102, "35=0|34=6|43=Y|122=20260105-14:30:01.001|");
    assert_int_equal(fix_session_next_in(&T.s), 7);
    assert_false(T.s.resend_pending);
    /* A new gap later gets a new request. */
    fx_in(&T, 3000, "35=0|34=9|");
    FX_EXPECT(&T, 2, "35=2|34=3|" HDR_US "7=7|16=0|");
}

static void test_2c_msgseqnum_lower_without_possdup_logs_out(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    fx_in(&T, 2001, "35=0|34=1|");
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US "58=MsgSeqNum too low, expecting 3 but received 1|");
    assert_int_equal(T.disconnects, 1);
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_DISCONNECTED);
    /* Bytes after the disconnect are ignored. */
    fx_in(&T, 2002, "35=0|34=3|");
    assert_int_equal(T.nsent, 2);
}

static void test_2d_garbled_message_ignored_seqnum_unchanged(void **st)
{
    (void)st;
    logon_default();
    uint8_t m[256];
    char ts[32];
    fx_peer_time(2000, ts);
    char body[128];
    snprintf(body, sizeof body, "35=0|34=2|49=EXCH|52=%s|56=TFISH|", ts);
    size_t n = fx_frame(m, sizeof m, body);
    m[n - 3] ^= 1; /* bad CheckSum */
    fx_bytes(&T, 2000, m, n);
    assert_int_equal(fix_session_next_in(&T.s), 2);
    assert_int_equal(T.nsent, 1);
    assert_true(fx_has_event(&T, FIX_EV_GARBLED));
    fx_in(&T, 2001, "35=0|34=2|"); /* the same number is still expected */
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_int_equal(T.nsent, 1);
}

/* A valid 35=W of about 2,000 bytes (more than FIX_MAX_MSG_LEN) from the peer with MsgSeqNum seq, framed into m. */
static size_t long_w(uint8_t *m, size_t cap, unsigned seq, uint64_t now)
{
    static char body[4096];
    char ts[32];
    fx_peer_time(now, ts);
    size_t n = (size_t)snprintf(body, sizeof body, "35=W|34=%u|49=EXCH|52=%s|56=TFISH|55=MSFT|268=80|", seq, ts);
    for (unsigned e = 0; e < 80; e++) n += (size_t)snprintf(body + n, sizeof body - n, "269=2|270=%06u.25|271=7|", e);
    size_t len = fx_frame(m, cap, body);
    assert_true(len > 2 * FIX_MAX_MSG_LEN - 100 && len < cap);
    return len;
}

/* A message longer than FIX_MAX_MSG_LEN (the stream's FIX_FRAME_TOO_LONG: its first bytes' fields only) in sequence:
 * answered with a Reject that says why (373=99, Other), its MsgSeqNum counted, an event; not a gap, no
 * ResendRequest, and the next message is taken. Arriving early, it is a gap like any message: ResendRequest. */
static void test_message_longer_than_the_buffer_rejected_and_counted(void **st)
{
    (void)st;
    logon_default();
    static uint8_t m[4096];
    size_t n = long_w(m, sizeof m, 2, 2000);
    fx_bytes(&T, 2000, m, 700); /* across two chunks, as TCP delivers it */
    fx_bytes(&T, 2000, m + 700, n - 700);
    assert_int_equal(T.nsent, 2);
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|372=W|373=99|58=Message longer than 1024 bytes: not processed|");
    assert_true(fx_has_event(&T, FIX_EV_REJECT_SENT));
    assert_false(fx_has_event(&T, FIX_EV_GARBLED));
    assert_int_equal(fix_session_next_in(&T.s), 3);
    fx_in(&T, 2001, "35=0|34=3|");
    assert_int_equal(fix_session_next_in(&T.s), 4);
    assert_int_equal(T.nsent, 2);
    n = long_w(m, sizeof m, 6, 2002); /* 4 and 5 missing */
    fx_bytes(&T, 2002, m, n);
    assert_int_equal(T.nsent, 3);
    FX_EXPECT(&T, 2, "35=2|34=3|" HDR_US "7=4|16=0|");
    assert_int_equal(fix_session_next_in(&T.s), 4);
}

static void test_2e_possdup_lower_seqnum_ignored(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    fx_in(&T, 2001, "35=0|34=2|43=Y|122=20260105-14:30:00.500|");
    assert_int_equal(T.nsent, 1);
    assert_int_equal(T.disconnects, 0);
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_2f_possdup_origsendingtime_after_sendingtime_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|43=Y|122=20260105-14:35:00.000|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=122|372=0|373=10|58=SendingTime accuracy problem|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_int_equal(T.disconnects, 0);
}

static void test_2g_possdup_without_origsendingtime_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|43=Y|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=122|372=0|373=1|58=Required tag missing|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_2h_wrong_beginstring_logs_out(void **st)
{
    (void)st;
    logon_default();
    uint8_t m[256];
    size_t n = fx_frame(m, sizeof m, "35=0|34=2|49=EXCH|52=20260105-14:30:01.000|56=TFISH|");
    memcpy(m, "8=FIX.4.2", 9);
    /* fix the checksum after the edit */
    unsigned sum = 0;
    for (size_t i = 0; i < n - 7; i++) sum += m[i];
    snprintf((char *)m + n - 7, 8, "10=%03u\x01", sum % 256u);
    fx_bytes(&T, 2000, m, n);
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US "58=Incorrect BeginString|");
    assert_int_equal(T.disconnects, 1);
}

static void test_2i_wrong_compid_rejects_and_logs_out(void **st)
{
    (void)st;
    logon_default();
    fx_in_raw(&T, 2000, "35=0|34=2|49=INTRUDER|52=20260105-14:30:01.000|56=TFISH|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|372=0|373=9|58=CompID problem|");
    FX_EXPECT(&T, 2, "35=5|34=3|" HDR_US "58=CompID problem|");
    assert_int_equal(T.disconnects, 1);
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_2j_bad_bodylength_ignored(void **st)
{
    (void)st;
    logon_default();
    const char *body = "35=0|34=2|49=EXCH|52=20260105-14:30:01.000|56=TFISH|";
    uint8_t m[256];
    size_t n = fx_frame(m, sizeof m, body);
    char *p = strstr((char *)m, "\x01" "9=") + 3;
    p[1]++; /* BodyLength one more (two digits): CheckSum recomputed so only 9 is wrong */
    unsigned sum = 0;
    for (size_t i = 0; i < n - 7; i++) sum += m[i];
    snprintf((char *)m + n - 7, 8, "10=%03u\x01", sum % 256u);
    fx_bytes(&T, 2000, m, n);
    fx_in(&T, 2001, "35=0|34=2|"); /* completes the bogus frame's length, then resync finds it */
    assert_int_equal(T.nsent, 1);
    assert_int_equal(T.disconnects, 0);
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_true(fx_has_event(&T, FIX_EV_GARBLED));
}

static void test_2k_sendingtime_inaccurate_rejects_and_logs_out(void **st)
{
    (void)st;
    logon_default();
    fx_in_raw(&T, 2000, "35=0|34=2|49=EXCH|52=20260105-14:35:00.000|56=TFISH|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=52|372=0|373=10|58=SendingTime accuracy problem|");
    FX_EXPECT(&T, 2, "35=5|34=3|" HDR_US "58=SendingTime accuracy problem|");
    assert_int_equal(T.disconnects, 1);
}

/* max_skew_ms UINT32_MAX (`fix set skew off`): the same SendingTime, 5 minutes off, is taken as any other */
static void test_2k_sendingtime_check_off_accepts(void **st)
{
    (void)st;
    /* the check off (UINT32_MAX), and a wider window than the default (10 minutes) */
    static const uint32_t skews[] = {UINT32_MAX, 600000};
    for (unsigned i = 0; i < sizeof skews / sizeof skews[0]; i++) {
        fix_session_config_t c = fx_default_cfg();
        c.max_skew_ms = skews[i];
        fx_init(&T, &c);
        fx_logon(&T);
        fx_in_raw(&T, 2000, "35=0|34=2|49=EXCH|52=20260105-14:35:00.000|56=TFISH|");
        assert_int_equal(T.nsent, 1); /* our Logon alone: no Reject, no Logout */
        assert_int_equal(T.disconnects, 0);
        assert_int_equal(fix_session_next_in(&T.s), 3);
    }
}

static void test_2k_sendingtime_missing_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in_raw(&T, 2000, "35=0|34=2|49=EXCH|56=TFISH|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=52|372=0|373=1|58=Required tag missing|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_2l_invalid_msgtype_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=ZZZ|34=2|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=35|372=ZZZ|373=11|58=Invalid MsgType|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_2m_unsupported_msgtype_business_reject(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=B|34=2|148=hello|");
    FX_EXPECT(&T, 1, "35=j|34=2|" HDR_US "45=2|372=B|380=3|58=Unsupported Message Type|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_2n_first_three_fields_out_of_order_ignored(void **st)
{
    (void)st;
    logon_default();
    /* 35 not third: BodyLength and CheckSum are right, yet the message is garbled. */
    fx_in_raw(&T, 2000, "34=2|35=0|49=EXCH|52=20260105-14:30:01.000|56=TFISH|");
    assert_int_equal(T.nsent, 1);
    assert_int_equal(fix_session_next_in(&T.s), 2);
    assert_true(fx_has_event(&T, FIX_EV_GARBLED));
}

/* ---- messages the receive parser digested (fix_session_digested) ---- */

/* They move next_in and count as heard from the peer: no TestRequest while digested market data flows. */
static void test_digested_messages_move_next_in_and_keep_the_peer_alive(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    assert_int_equal(fix_session_digested(&T.s, 3, 5, 20000), FIX_OK);
    assert_int_equal(fix_session_next_in(&T.s), 8);
    assert_int_equal(fix_session_digested(&T.s, 8, 1, 50000), FIX_OK);
    fix_session_poll(&T.s, 50000 + 35999);      /* 36 s after the last digested message: not yet */
    for (int i = 0; i < T.nsent; i++) assert_string_not_equal(fx_field(&T, i, 35), "1");
    fix_session_poll(&T.s, 50000 + 36000);
    FX_EXPECT(&T, T.nsent - 1, "35=1|34=*|" HDR_US "112=TEST1|");
    fx_in(&T, 90000, "35=0|34=9|112=TEST1|");  /* the stream goes on after them */
    assert_int_equal(fix_session_next_in(&T.s), 10);
    assert_int_equal(T.disconnects, 0);
}

/* Refused, with nothing changed: not the next MsgSeqNum, none, not logged on, or part of a message held. */
static void test_digested_refused_when_the_parser_and_the_session_disagree(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&T, &c);
    assert_int_equal(fix_session_digested(&T.s, 1, 1, 1000), FIX_E_RANGE);   /* not logged on */
    fx_logon(&T);
    assert_int_equal(fix_session_digested(&T.s, 3, 1, 2000), FIX_E_RANGE);   /* 2 expected */
    assert_int_equal(fix_session_digested(&T.s, 2, 0, 2000), FIX_E_RANGE);
    fx_bytes(&T, 2000, "8=FIX.4.4\x01" "9=", 12);                              /* half a message held */
    assert_false(fix_session_rx_at_boundary(&T.s));
    assert_int_equal(fix_session_digested(&T.s, 2, 1, 2000), FIX_E_RANGE);
    assert_int_equal(fix_session_next_in(&T.s), 2);
}

/* ---- 4, 5, 6: heartbeats and test requests ---- */

static void test_4_heartbeat_received_accepted(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_int_equal(T.nsent, 1);
}

static void test_5_heartbeat_sent_when_nothing_sent_for_heartbtint(void **st)
{
    (void)st;
    logon_default(); /* our Logon went at 990 */
    fx_in(&T, 20000, "35=0|34=2|");
    fix_session_poll(&T.s, 30989);
    assert_int_equal(T.nsent, 1);
    fix_session_poll(&T.s, 30990);
    FX_EXPECT(&T, 1, "35=0|34=2|" HDR_US);
    fix_session_poll(&T.s, 31000);
    assert_int_equal(T.nsent, 2);
    fx_in(&T, 50000, "35=0|34=3|"); /* the peer keeps talking: no TestRequest */
    fix_session_poll(&T.s, 60989);
    assert_int_equal(T.nsent, 2);
    fix_session_poll(&T.s, 60990);
    FX_EXPECT(&T, 2, "35=0|34=3|" HDR_US);
}

static void test_6_test_request_sent_when_peer_silent_then_disconnect(void **st)
{
    (void)st;
    logon_default(); /* last received at 1000; grace 20% of 30 s */
    fx_in(&T, 1000, "35=0|34=2|");
    fix_session_poll(&T.s, 1000 + 35999);
    int before = T.nsent;
    for (int i = 0; i < T.nsent; i++) assert_string_not_equal(fx_field(&T, i, 35), "1");
    fix_session_poll(&T.s, 1000 + 36000);
    assert_int_equal(T.nsent, before + 1);
    FX_EXPECT(&T, T.nsent - 1, "35=1|34=*|" HDR_US "112=TEST1|");
    /* answered: no disconnect */
    fx_in(&T, 40000, "35=0|34=3|112=TEST1|");
    fix_session_poll(&T.s, 40000 + 35999);
    assert_int_equal(T.disconnects, 0);
    /* silent again: second TestRequest, then disconnect after another HeartBtInt + grace */
    fix_session_poll(&T.s, 40000 + 36000);
    FX_EXPECT(&T, T.nsent - 1, "35=1|34=*|" HDR_US "112=TEST2|");
    fix_session_poll(&T.s, 40000 + 36000 + 35999);
    assert_int_equal(T.disconnects, 0);
    fix_session_poll(&T.s, 40000 + 36000 + 36000);
    assert_int_equal(T.disconnects, 1);
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_DISCONNECTED);
}

static void test_6_test_request_received_answered_with_heartbeat(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=1|34=2|112=PING 42|");
    FX_EXPECT(&T, 1, "35=0|34=2|" HDR_US "112=PING 42|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_14b_test_request_without_id_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=1|34=2|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=112|372=1|373=1|58=Required tag missing|");
}

/* ---- 7: Reject received ---- */

static void test_7_reject_received_increments_seqnum(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=3|34=2|45=1|373=5|58=bad|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_true(fx_has_event(&T, FIX_EV_REJECT_RECEIVED));
    assert_int_equal(T.nsent, 1);
}

/* ---- 8: ResendRequest received ---- */

/* Sends an application message of kind k through the session (35=V-like body). */
static int64_t send_app(const char *type, fix_msg_kind_t k, uint64_t now)
{
    fix_builder_t *b = fix_session_begin(&T.s, type, now);
    assert_non_null(b);
    fix_build_str(b, 11, "X1");
    return fix_session_end(&T.s, k, now);
}

static void test_8_resend_request_gapfills_admin_and_orders_resends_app(void **st)
{
    (void)st;
    logon_default();
    assert_int_equal(send_app("V", FIX_KIND_APP, 2000), 2);
    assert_int_equal(send_app("D", FIX_KIND_ORDER, 2001), 3);
    fix_session_poll(&T.s, 2001 + 30000); /* Heartbeat, 34=4 */
    assert_int_equal(fix_session_next_out(&T.s), 5);
    int base = T.nsent;
    fx_in(&T, 40000, "35=2|34=2|7=1|16=0|");
    assert_int_equal(T.nsent, base + 3);
    FX_EXPECT(&T, base, "35=4|34=1|43=Y|" HDR_US "122=*|123=Y|36=2|");
    FX_EXPECT(&T, base + 1, "35=V|34=2|43=Y|49=TFISH|52=20260105-14:30:39.000|56=EXCH|"
                            "122=20260105-14:30:01.000|11=X1|");
    FX_EXPECT(&T, base + 2, "35=4|34=3|43=Y|" HDR_US "122=*|123=Y|36=5|");
    assert_true(fx_has_event(&T, FIX_EV_ORDER_GAPFILLED));
    assert_int_equal(fix_session_next_out(&T.s), 5); /* resends use their old numbers */
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_8_resend_request_resends_young_order_when_configured(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    c.resend_order_max_age_ms = 5000;
    fx_init(&T, &c);
    fx_logon(&T);
    assert_int_equal(send_app("D", FIX_KIND_ORDER, 2000), 2); /* will be stale */
    assert_int_equal(send_app("D", FIX_KIND_ORDER, 9000), 3); /* young */
    int base = T.nsent;
    fx_in(&T, 10000, "35=2|34=2|7=2|16=3|");
    assert_int_equal(T.nsent, base + 2);
    FX_EXPECT(&T, base, "35=4|34=2|43=Y|" HDR_US "122=*|123=Y|36=3|");
    FX_EXPECT(&T, base + 1, "35=D|34=3|43=Y|" HDR_US "122=20260105-14:30:08.000|11=X1|");
}

static void test_8_resend_request_for_evicted_messages_gapfilled(void **st)
{
    (void)st;
    logon_default();
    for (int i = 0; i < FIX_STORE_SLOTS + 5; i++) send_app("V", FIX_KIND_APP, 2000 + (uint64_t)i);
    uint32_t last = fix_session_next_out(&T.s) - 1;
    int base = T.nsent;
    fx_in(&T, 10000, "35=2|34=2|7=2|16=0|");
    /* the oldest evicted (at least 5: the slots, fewer when the bytes run out first, as with the SoC's limits) -> one
     * gap fill to the oldest kept, k, then k..last resent in order */
    assert_string_equal(fx_field(&T, base, 35), "4");
    assert_string_equal(fx_field(&T, base, 34), "2");
    assert_string_equal(fx_field(&T, base, 123), "Y");
    uint32_t k = (uint32_t)atoi(fx_field(&T, base, 36));
    assert_true(k >= 7 && k <= last);
    assert_true(last - k + 1 <= FIX_STORE_SLOTS);
    assert_int_equal(T.nsent, base + 1 + (int)(last - k + 1));
    for (uint32_t q = k; q <= last; q++) {
        char want[12];
        snprintf(want, sizeof want, "%u", (unsigned)q);
        assert_string_equal(fx_field(&T, base + 1 + (int)(q - k), 35), "V");
        assert_string_equal(fx_field(&T, base + 1 + (int)(q - k), 34), want);
        assert_string_equal(fx_field(&T, base + 1 + (int)(q - k), 43), "Y");
    }
}

static void test_8_resend_request_huge_range_gapfilled_in_few_messages(void **st)
{
    (void)st;
    logon_default();
    assert_int_equal(send_app("V", FIX_KIND_APP, 2000), 2);
    fix_session_set_seqnums(&T.s, 1000000, 0);
    assert_int_equal(send_app("V", FIX_KIND_APP, 2001), 1000000);
    fix_session_poll(&T.s, 40000); /* Heartbeat 1000001 */
    int base = T.nsent;
    fx_in(&T, 40000, "35=2|34=2|7=1|16=0|");
    assert_int_equal(T.nsent, base + 5);
    FX_EXPECT(&T, base, "35=4|34=1|43=Y|" HDR_US "122=*|123=Y|36=2|");
    FX_EXPECT(&T, base + 1, "35=V|34=2|43=Y|" HDR_US "122=*|11=X1|");
    FX_EXPECT(&T, base + 2, "35=4|34=3|43=Y|" HDR_US "122=*|123=Y|36=1000000|");
    FX_EXPECT(&T, base + 3, "35=V|34=1000000|43=Y|" HDR_US "122=*|11=X1|");
    FX_EXPECT(&T, base + 4, "35=4|34=1000001|43=Y|" HDR_US "122=*|123=Y|36=1000002|");
    /* a bounded range ending on a stored message, and one beyond everything we sent */
    base = T.nsent;
    fx_in(&T, 40001, "35=2|34=3|7=2|16=2|");
    assert_int_equal(T.nsent, base + 1);
    FX_EXPECT(&T, base, "35=V|34=2|43=Y|" HDR_US "122=*|11=X1|");
    fx_in(&T, 40002, "35=2|34=4|7=2000000|16=0|");
    assert_int_equal(T.nsent, base + 1);
}

static void test_8_resend_request_missing_begin_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=2|34=2|16=0|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=7|372=2|373=1|58=Required tag missing|");
}

/* ---- 10: SequenceReset GapFill ---- */

static void test_10a_gapfill_msgseqnum_too_high_sends_resend_request(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=4|34=5|123=Y|36=9|");
    FX_EXPECT(&T, 1, "35=2|34=2|" HDR_US "7=2|16=0|");
    assert_int_equal(fix_session_next_in(&T.s), 2);
}

static void test_10b_gapfill_sets_next_expected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=4|34=2|123=Y|36=9|");
    assert_int_equal(fix_session_next_in(&T.s), 9);
    assert_int_equal(T.nsent, 1);
    fx_in(&T, 2001, "35=0|34=9|");
    assert_int_equal(fix_session_next_in(&T.s), 10);
}

static void test_10c_gapfill_lower_with_possdup_ignored(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    fx_in(&T, 2001, "35=4|34=1|43=Y|123=Y|36=5|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
    assert_int_equal(T.nsent, 1);
    assert_int_equal(T.disconnects, 0);
}

static void test_10d_gapfill_lower_without_possdup_logs_out(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    fx_in(&T, 2001, "35=4|34=1|123=Y|36=5|");
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US "58=MsgSeqNum too low, expecting 3 but received 1|");
    assert_int_equal(T.disconnects, 1);
}

static void test_10e_gapfill_newseqno_not_above_msgseqnum_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=4|34=2|123=Y|36=2|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=36|372=4|373=5|58=attempt to lower sequence number, invalid value NewSeqNum=2|");
    assert_int_equal(fix_session_next_in(&T.s), 2);
}

/* ---- 11: SequenceReset Reset ---- */

static void test_11a_reset_higher_newseqno_accepted_ignoring_msgseqnum(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=4|34=77|36=20|");
    assert_int_equal(fix_session_next_in(&T.s), 20);
    assert_int_equal(T.nsent, 1);
    assert_true(fx_has_event(&T, FIX_EV_SEQ_RESET));
    fx_in(&T, 2001, "35=0|34=20|");
    assert_int_equal(fix_session_next_in(&T.s), 21);
}

static void test_11b_reset_equal_newseqno_accepted(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=4|34=1|36=2|");
    assert_int_equal(fix_session_next_in(&T.s), 2);
    assert_int_equal(T.nsent, 1);
    assert_int_equal(T.disconnects, 0);
}

static void test_11c_reset_lower_newseqno_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    fx_in(&T, 2001, "35=0|34=3|");
    fx_in(&T, 2002, "35=4|34=4|36=2|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=4|371=36|372=4|373=5|58=attempt to lower sequence number, invalid value NewSeqNum=2|");
    assert_int_equal(fix_session_next_in(&T.s), 4);
}

/* ---- 12, 13: Logout ---- */

static void test_12_logout_initiated_and_acknowledged(void **st)
{
    (void)st;
    logon_default();
    fix_session_logout(&T.s, "end of day", 2000);
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US "58=end of day|");
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_LOGOUT_SENT);
    assert_null(fix_session_begin(&T.s, "D", 2001)); /* no new orders while logging out */
    fx_in(&T, 2100, "35=5|34=2|");
    assert_int_equal(T.disconnects, 1);
    assert_true(fx_has_event(&T, FIX_EV_LOGOUT));
    assert_int_equal(T.nsent, 2);
}

static void test_12_logout_reply_timeout_disconnects(void **st)
{
    (void)st;
    logon_default();
    fix_session_logout(&T.s, NULL, 2000);
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US);
    fix_session_poll(&T.s, 11999);
    assert_int_equal(T.disconnects, 0);
    fix_session_poll(&T.s, 12000);
    assert_int_equal(T.disconnects, 1);
}

static void test_13b_logout_from_peer_answered_then_wait_for_close(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=5|34=2|58=maintenance|");
    FX_EXPECT(&T, 1, "35=5|34=2|" HDR_US);
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_LOGOUT_RECEIVED);
    assert_int_equal(T.disconnects, 0);
    fix_session_poll(&T.s, 12000);
    assert_int_equal(T.disconnects, 1);
}

/* ---- 14: messages with errors ---- */

static void test_14a_invalid_tag_number_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|x9=1|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|372=0|373=0|58=Invalid tag number|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_14d_tag_without_value_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|58=|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=58|372=0|373=4|58=Tag specified without a value|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

static void test_14h_header_tag_twice_rejected(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|52=20260105-14:30:01.000|");
    FX_EXPECT(&T, 1, "35=3|34=2|" HDR_US "45=2|371=52|372=0|373=13|58=Tag appears more than once|");
    assert_int_equal(fix_session_next_in(&T.s), 3);
}

/* ---- 20: simultaneous ResendRequest ---- */

static void test_20_simultaneous_resend_request(void **st)
{
    (void)st;
    logon_default();
    assert_int_equal(send_app("V", FIX_KIND_APP, 1500), 2); /* peer missed it */
    int base = T.nsent;
    /* The peer saw a gap (our 2 lost) and asks; its own 2..4 were lost towards us. */
    fx_in(&T, 2000, "35=2|34=5|7=2|16=0|");
    /* We answer its request first (resend our 2), then ask for our gap. */
    FX_EXPECT(&T, base, "35=V|34=2|43=Y|" HDR_US "122=20260105-14:30:00.500|11=X1|");
    FX_EXPECT(&T, base + 1, "35=2|34=3|" HDR_US "7=2|16=0|");
    assert_int_equal(fix_session_next_in(&T.s), 2);
    /* The peer answers ours: 2..4 gap-filled, and its ResendRequest 5 (admin) gap-filled too. */
    fx_in(&T, 2100, "35=4|34=2|43=Y|122=20260105-14:30:01.000|123=Y|36=6|");
    assert_int_equal(fix_session_next_in(&T.s), 6);
    /* Its next real message is in sequence, no further requests. */
    fx_in(&T, 2200, "35=0|34=6|");
    assert_int_equal(fix_session_next_in(&T.s), 7);
    assert_int_equal(T.nsent, base + 2);
    assert_false(T.s.resend_pending);
}

/* ---- Reconnect, offload hooks, streaming ---- */

static void test_seqnums_persist_across_reconnect(void **st)
{
    (void)st;
    logon_default();
    fx_in(&T, 2000, "35=0|34=2|");
    send_app("V", FIX_KIND_APP, 2001);
    fix_session_disconnected(&T.s);
    fix_session_connected(&T.s, 5000);
    FX_EXPECT(&T, T.nsent - 1, "35=A|34=3|" HDR_US "98=0|108=30|");
    fx_in(&T, 5100, "35=A|34=3|98=0|108=30|");
    assert_int_equal(fix_session_state(&T.s), FIX_SESS_ACTIVE);
    assert_int_equal(fix_session_next_in(&T.s), 4);
}

static void test_reset_on_logon_restarts_seqnums_on_reconnect(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    c.reset_on_logon = true;
    fx_init(&T, &c);
    fx_logon(&T);
    fx_in(&T, 2000, "35=0|34=2|");
    fix_session_disconnected(&T.s);
    fix_session_connected(&T.s, 5000);
    FX_EXPECT(&T, T.nsent - 1, "35=A|34=1|" HDR_US "98=0|108=30|141=Y|");
}

static void test_offload_reserved_seqnum_recorded_and_resent_consistently(void **st)
{
    (void)st;
    fix_session_config_t c = fx_default_cfg();
    c.resend_order_max_age_ms = 60000;
    fx_init(&T, &c);
    fx_logon(&T);
    uint32_t seq = fix_session_reserve_seqnum(&T.s, 1);
    assert_int_equal(seq, 2);
    assert_int_equal(fix_session_next_out(&T.s), 3);
    /* The hardware's frame: 34 zero-padded, as DESIGN.md allows. */
    uint8_t hw[256];
    fix_builder_t b;
    fix_build_begin(&b, hw, sizeof hw, "D");
    fix_build_uint_padded(&b, 34, seq, 6);
    fix_build_str(&b, 49, FX_US);
    fix_build_str(&b, 52, "20260105-14:30:01.000");
    fix_build_str(&b, 56, FX_THEM);
    fix_app_put_nos_body(&b, "ACC", "HW1", 10, 0, 11702500, 4, '1', "AAPL", 1767623401000ull);
    size_t n = fix_build_end(&b);
    assert_int_equal(fix_session_record_sent(&T.s, hw, n, 2000), FIX_OK);
    assert_int_equal(fix_session_record_sent(&T.s, hw, n, 2000), FIX_E_RANGE); /* never twice */
    assert_int_equal(send_app("V", FIX_KIND_APP, 2500), 3);                    /* no reuse */
    int base = T.nsent;
    fx_in(&T, 3000, "35=2|34=2|7=2|16=0|");
    FX_EXPECT(&T, base, "35=D|34=2|43=Y|" HDR_US "122=20260105-14:30:01.000|1=ACC|11=HW1|21=1|38=10|40=2|"
                        "44=1170.25|54=1|55=AAPL|59=0|60=20260105-14:30:01.000|");
    FX_EXPECT(&T, base + 1, "35=V|34=3|43=Y|" HDR_US "122=*|11=X1|");
    /* A number not reserved cannot be recorded. */
    fix_build_begin(&b, hw, sizeof hw, "D");
    fix_build_uint(&b, 34, 99);
    n = fix_build_end(&b);
    assert_int_equal(fix_session_record_sent(&T.s, hw, n, 2000), FIX_E_RANGE);
}

static void test_offload_unused_reserved_seqnums_gap_filled(void **st)
{
    (void)st;
    logon_default();
    uint32_t seq = fix_session_reserve_seqnum(&T.s, 2);
    assert_int_equal(fix_session_fill_gap(&T.s, seq, 2, 2000), FIX_OK);
    FX_EXPECT(&T, 1, "35=4|34=2|43=Y|" HDR_US "122=*|123=Y|36=4|");
    assert_int_equal(fix_session_next_out(&T.s), 4);
    assert_int_equal(fix_session_fill_gap(&T.s, 4, 1, 2000), FIX_E_RANGE); /* not reserved */
    /* asked later, the unrecorded numbers are gap-filled too */
    int base = T.nsent;
    fx_in(&T, 3000, "35=2|34=2|7=2|16=0|");
    FX_EXPECT(&T, base, "35=4|34=2|43=Y|" HDR_US "122=*|123=Y|36=4|");
}

/* What the hardware does when it sends an order: reserves the next number and records the order it sent. */
static void hw_sends_order(fx_t *t, const char *clordid)
{
    uint32_t seq = fix_session_reserve_seqnum(&t->s, 1);
    uint8_t hw[256];
    fix_builder_t b;
    fix_build_begin(&b, hw, sizeof hw, "D");
    fix_build_uint_padded(&b, 34, seq, 8);
    fix_build_str(&b, 49, FX_US);
    fix_build_str(&b, 52, "20260105-14:30:01.000");
    fix_build_str(&b, 56, FX_THEM);
    fix_app_put_nos_body(&b, "ACC", clordid, 10, 0, 11702500, 4, '2', "AAPL", 1767623401000ull);
    size_t n = fix_build_end(&b);
    assert_int_equal(fix_session_record_sent(&t->s, hw, n, 2000), FIX_OK);
}

/* The before_send hook: the "hardware" sends an order (number reserved and recorded inside the hook)
 * just before the session answers a TestRequest; the answer takes the next number, and a later
 * ResendRequest gap-fills the hardware's order (orders are never resent by default). */
static int hook_calls, hook_pending;
static void hw_hook(void *ctx)
{
    fx_t *t = ctx;
    hook_calls++;
    if (!hook_pending) return;
    hook_pending = 0;
    hw_sends_order(t, "HW7");
}

static void test_offload_before_send_hook_adopts_hardware_message(void **st)
{
    (void)st;
    logon_default();
    T.s.ops.before_send = hw_hook;
    hook_calls = 0;
    hook_pending = 1;
    int base = T.nsent;
    fx_in(&T, 2000, "35=1|34=2|112=PING|");
    assert_int_equal(hook_calls, 1);
    FX_EXPECT(&T, base, "35=0|34=3|" HDR_US "112=PING|");
    assert_int_equal(fix_session_next_out(&T.s), 4);
    base = T.nsent;
    fx_in(&T, 3000, "35=2|34=3|7=2|16=0|");
    FX_EXPECT(&T, base, "35=4|34=2|43=Y|" HDR_US "122=*|123=Y|36=4|");
    assert_true(hook_calls >= 2); /* the gap fill went through the hook too */
}

/* The buffer the session builds in is the owner's when set (fix_session_set_tx; the firmware's is the order
 * engine's frame scratch): every message is handed to the transport from there, the same bytes as a session
 * building in its own; one that does not fit is refused whole (FIX_E_FULL), nothing sent, no number taken. */
static const uint8_t *sent_from;
static void send_from_cb(void *ctx, const uint8_t *d, size_t n)
{
    sent_from = d;
    fx_send_cb(ctx, d, n);
}

static void test_tx_buffer_of_the_owner(void **st)
{
    (void)st;
    static uint8_t buf[FIX_TX_MAX + 8];
    logon_default();
    memset(buf, 0xA5, sizeof buf);
    fix_session_set_tx(&T.s, buf, FIX_TX_MAX);
    T.s.ops.send = send_from_cb;
    sent_from = NULL;
    int base = T.nsent;
    assert_int_equal(send_app("V", FIX_KIND_APP, 2000), 2);
    assert_int_equal(T.nsent, base + 1);
    assert_ptr_equal(sent_from, buf);
    FX_EXPECT(&T, base, "35=V|34=2|" HDR_US "11=X1|");
    assert_true(fx_framing_ok(&T, base));
    assert_int_equal(buf[FIX_TX_MAX], 0xA5); /* nothing written past the buffer given */
    /* a resend (its stored copy rebuilt) and a gap fill are built there too */
    sent_from = NULL;
    fx_in(&T, 3000, "35=2|34=2|7=1|16=0|");
    assert_int_equal(T.nsent, base + 3);
    assert_ptr_equal(sent_from, buf);
    FX_EXPECT(&T, base + 1, "35=4|34=1|43=Y|" HDR_US "122=*|123=Y|36=2|");
    FX_EXPECT(&T, base + 2, "35=V|34=2|43=Y|" HDR_US "122=*|11=X1|");
    /* too small for the message: refused whole, the number not taken */
    fix_session_set_tx(&T.s, buf, 60);
    fix_builder_t *b = fix_session_begin(&T.s, "V", 4000);
    assert_non_null(b);
    fix_build_str(b, 11, "X2");
    assert_int_equal(fix_session_end(&T.s, FIX_KIND_APP, 4000), FIX_E_FULL);
    assert_int_equal(T.nsent, base + 3);
    assert_int_equal(fix_session_next_out(&T.s), 3);
    /* none: nothing can be sent */
    fix_session_set_tx(&T.s, NULL, 0);
    assert_non_null(b = fix_session_begin(&T.s, "V", 4000));
    fix_build_str(b, 11, "X3");
    assert_int_equal(fix_session_end(&T.s, FIX_KIND_APP, 4000), FIX_E_FULL);
    assert_int_equal(T.nsent, base + 3);
    /* a size over FIX_TX_MAX is used up to FIX_TX_MAX */
    fix_session_set_tx(&T.s, buf, sizeof buf);
    assert_int_equal(T.s.tx_cap, FIX_TX_MAX);
    assert_int_equal(send_app("V", FIX_KIND_APP, 5000), 3);
    assert_int_equal(T.nsent, base + 4);
}

/* The owner's before_send runs once per message, resends and gap fills included, and for a resend before its stored
 * copy is read: there the owner may adopt what the hardware sent (the firmware: records taken to make room in the
 * engine's send ring), which adds to the store and can evict the very message being resent. It is then gap-filled,
 * never resent from bytes another message overwrote. */
static int evict_on_hook;
static void evicting_hook(void *ctx)
{
    fx_t *t = ctx;
    hook_calls++;
    if (!evict_on_hook) return;
    evict_on_hook = 0;
    for (int i = 0; i < FIX_STORE_SLOTS; i++) hw_sends_order(t, "HWEVICT"); /* as many as the store's slots: every older one goes */
}

static void test_before_send_once_per_message_and_before_a_resend_reads_the_store(void **st)
{
    (void)st;
    logon_default();
    assert_int_equal(send_app("V", FIX_KIND_APP, 2000), 2);
    assert_int_equal(send_app("D", FIX_KIND_ORDER, 2001), 3);
    assert_int_equal(send_app("F", FIX_KIND_APP, 2002), 4);
    T.s.ops.before_send = evicting_hook;
    hook_calls = 0;
    evict_on_hook = 0;
    int base = T.nsent;
    fx_in(&T, 3000, "35=2|34=2|7=2|16=0|");
    assert_int_equal(T.nsent, base + 3); /* resent V, the order gap-filled, resent F */
    FX_EXPECT(&T, base, "35=V|34=2|43=Y|" HDR_US "122=*|11=X1|");
    FX_EXPECT(&T, base + 1, "35=4|34=3|43=Y|" HDR_US "122=*|123=Y|36=4|");
    FX_EXPECT(&T, base + 2, "35=F|34=4|43=Y|" HDR_US "122=*|11=X1|");
    assert_int_equal(hook_calls, 3);
    /* now the hook's orders evict V (2) and F (4) just before V is resent: both gap-filled, no bytes resent */
    hook_calls = 0;
    evict_on_hook = 1;
    base = T.nsent;
    fx_in(&T, 4000, "35=2|34=3|7=2|16=4|");
    assert_int_equal(T.nsent, base + 1);
    FX_EXPECT(&T, base, "35=4|34=2|43=Y|" HDR_US "122=*|123=Y|36=5|");
    assert_true(fx_framing_ok(&T, base));
    assert_int_equal(hook_calls, 2); /* the resend that found its message gone, then the gap fill */
    assert_int_equal(fix_session_next_out(&T.s), 5 + FIX_STORE_SLOTS);
}

static void test_stream_split_and_batched_messages(void **st)
{
    (void)st;
    logon_default();
    uint8_t all[1024];
    size_t n = 0;
    char body[128], ts[32];
    for (int i = 0; i < 6; i++) {
        fx_peer_time(2000, ts);
        snprintf(body, sizeof body, "35=1|34=%d|49=EXCH|52=%s|56=TFISH|112=T%d|", 2 + i, ts, i);
        n += fx_frame(all + n, sizeof all - n, body);
    }
    /* feed in uneven chunks: 1 byte, 50 bytes, the rest */
    fx_bytes(&T, 2000, all, 1);
    fx_bytes(&T, 2000, all + 1, 50);
    fx_bytes(&T, 2000, all + 51, n - 51);
    assert_int_equal(fix_session_next_in(&T.s), 8);
    assert_int_equal(T.nsent, 7);
    for (int i = 0; i < 6; i++) {
        char want[64];
        snprintf(want, sizeof want, "35=0|34=%d|" HDR_US "112=T%d|", 2 + i, i);
        FX_EXPECT(&T, 1 + i, want);
    }
}

/* The offload resynchronises its receive parser to firmware's rcv_nxt only at a message boundary: the session says
 * whether a partial message is held, byte by byte through two messages. */
static void test_rx_at_boundary_only_between_whole_messages(void **st)
{
    (void)st;
    logon_default();
    assert_true(fix_session_rx_at_boundary(&T.s));
    uint8_t all[512];
    size_t n = 0, ends[2];
    char body[128], ts[32];
    for (int i = 0; i < 2; i++) {
        fx_peer_time(2000, ts);
        snprintf(body, sizeof body, "35=0|34=%d|49=EXCH|52=%s|56=TFISH|", 2 + i, ts);
        n += fx_frame(all + n, sizeof all - n, body);
        ends[i] = n;
    }
    for (size_t k = 0; k < n; k++) {
        fx_bytes(&T, 2000, all + k, 1);
        bool at_end = k + 1 == ends[0] || k + 1 == ends[1];
        if (fix_session_rx_at_boundary(&T.s) != at_end) fail_msg("after byte %zu of %zu: at a boundary %d", k + 1, n, !at_end);
    }
    assert_int_equal(fix_session_next_in(&T.s), 4);
    /* garbage between messages is not a partial message once skipped; a message cut short is */
    fx_bytes(&T, 2000, (const uint8_t *)"8=FIX.4.4\0019=", 12);
    assert_false(fix_session_rx_at_boundary(&T.s));
}

static uint32_t rng = 12345u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void test_fuzz_session_never_crashes_and_only_answers_well_formed(void **st)
{
    (void)st;
    static const char *const bodies[] = {
        "35=0|34=%u|", "35=1|34=%u|112=X|", "35=2|34=%u|7=1|16=0|", "35=4|34=%u|123=Y|36=%u|",
        "35=4|34=%u|36=%u|", "35=3|34=%u|45=1|", "35=W|34=%u|55=A|268=1|269=2|270=1.5|271=1|", "35=8|34=%u|",
    };
    for (int round = 0; round < 200; round++) {
        logon_default();
        for (int it = 0; it < 20 && fix_session_state(&T.s) != FIX_SESS_DISCONNECTED; it++) {
            char body[256], full[400], ts[32];
            uint32_t seq = fix_session_next_in(&T.s) + (rnd() % 8 == 0 ? rnd() % 5 : 0);
            snprintf(body, sizeof body, bodies[rnd() % 8], seq, seq + 1 + rnd() % 3);
            fx_peer_time(3000, ts);
            const char *p = strchr(strchr(body, '|') + 1, '|') + 1;
            snprintf(full, sizeof full, "%.*s49=EXCH|52=%s|56=TFISH|%s", (int)(p - body), body, ts, p);
            uint8_t m[512];
            size_t n = fx_frame(m, sizeof m, full);
            int flips = (int)(rnd() % 3);
            for (int f = 0; f < flips; f++) m[rnd() % n] = (uint8_t)rnd();
            size_t at = 0;
            while (at < n) {
                size_t c = 1 + rnd() % 40;
                if (c > n - at) c = n - at;
                fx_bytes(&T, 3000 + (uint64_t)it, m + at, c);
                at += c;
            }
            fix_session_poll(&T.s, 3000 + (uint64_t)it * 5000);
        }
        for (int i = 0; i < T.nsent; i++) {
            assert_true(fx_framing_ok(&T, i));
            const char *type = fx_field(&T, i, 35);
            assert_non_null(strchr("012345Aj", type[0]));
        }
        if (T.nsent >= FX_MAX_SENT - 20) T.nsent = 0;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1s_logon_sent_and_accepted),
        cmocka_unit_test(test_1s_logon_with_reset_seqnum_flag),
        cmocka_unit_test(test_1s_logon_reply_msgseqnum_too_high_sends_resend_request),
        cmocka_unit_test(test_1s_first_message_not_logon_disconnects),
        cmocka_unit_test(test_1s_logon_reply_wrong_compid_disconnects),
        cmocka_unit_test(test_1s_no_logon_reply_times_out),
        cmocka_unit_test(test_1s_logon_refused_teaches_clock_for_next_connection),
        cmocka_unit_test(test_2a_msgseqnum_as_expected_accepted),
        cmocka_unit_test(test_2b_msgseqnum_higher_than_expected_sends_resend_request),
        cmocka_unit_test(test_2c_msgseqnum_lower_without_possdup_logs_out),
        cmocka_unit_test(test_2d_garbled_message_ignored_seqnum_unchanged),
        cmocka_unit_test(test_message_longer_than_the_buffer_rejected_and_counted),
        cmocka_unit_test(test_2e_possdup_lower_seqnum_ignored),
        cmocka_unit_test(test_2f_possdup_origsendingtime_after_sendingtime_rejected),
        cmocka_unit_test(test_2g_possdup_without_origsendingtime_rejected),
        cmocka_unit_test(test_2h_wrong_beginstring_logs_out),
        cmocka_unit_test(test_2i_wrong_compid_rejects_and_logs_out),
        cmocka_unit_test(test_2j_bad_bodylength_ignored),
        cmocka_unit_test(test_2k_sendingtime_inaccurate_rejects_and_logs_out),
        cmocka_unit_test(test_2k_sendingtime_check_off_accepts),
        cmocka_unit_test(test_2k_sendingtime_missing_rejected),
        cmocka_unit_test(test_2l_invalid_msgtype_rejected),
        cmocka_unit_test(test_2m_unsupported_msgtype_business_reject),
        cmocka_unit_test(test_2n_first_three_fields_out_of_order_ignored),
        cmocka_unit_test(test_digested_messages_move_next_in_and_keep_the_peer_alive),
        cmocka_unit_test(test_digested_refused_when_the_parser_and_the_session_disagree),
        cmocka_unit_test(test_4_heartbeat_received_accepted),
        cmocka_unit_test(test_5_heartbeat_sent_when_nothing_sent_for_heartbtint),
        cmocka_unit_test(test_6_test_request_sent_when_peer_silent_then_disconnect),
        cmocka_unit_test(test_6_test_request_received_answered_with_heartbeat),
        cmocka_unit_test(test_14b_test_request_without_id_rejected),
        cmocka_unit_test(test_7_reject_received_increments_seqnum),
        cmocka_unit_test(test_8_resend_request_gapfills_admin_and_orders_resends_app),
        cmocka_unit_test(test_8_resend_request_resends_young_order_when_configured),
        cmocka_unit_test(test_8_resend_request_for_evicted_messages_gapfilled),
        cmocka_unit_test(test_8_resend_request_huge_range_gapfilled_in_few_messages),
        cmocka_unit_test(test_8_resend_request_missing_begin_rejected),
        cmocka_unit_test(test_10a_gapfill_msgseqnum_too_high_sends_resend_request),
        cmocka_unit_test(test_10b_gapfill_sets_next_expected),
        cmocka_unit_test(test_10c_gapfill_lower_with_possdup_ignored),
        cmocka_unit_test(test_10d_gapfill_lower_without_possdup_logs_out),
        cmocka_unit_test(test_10e_gapfill_newseqno_not_above_msgseqnum_rejected),
        cmocka_unit_test(test_11a_reset_higher_newseqno_accepted_ignoring_msgseqnum),
        cmocka_unit_test(test_11b_reset_equal_newseqno_accepted),
        cmocka_unit_test(test_11c_reset_lower_newseqno_rejected),
        cmocka_unit_test(test_12_logout_initiated_and_acknowledged),
        cmocka_unit_test(test_12_logout_reply_timeout_disconnects),
        cmocka_unit_test(test_13b_logout_from_peer_answered_then_wait_for_close),
        cmocka_unit_test(test_14a_invalid_tag_number_rejected),
        cmocka_unit_test(test_14d_tag_without_value_rejected),
        cmocka_unit_test(test_14h_header_tag_twice_rejected),
        cmocka_unit_test(test_20_simultaneous_resend_request),
        cmocka_unit_test(test_seqnums_persist_across_reconnect),
        cmocka_unit_test(test_reset_on_logon_restarts_seqnums_on_reconnect),
        cmocka_unit_test(test_offload_reserved_seqnum_recorded_and_resent_consistently),
        cmocka_unit_test(test_offload_unused_reserved_seqnums_gap_filled),
        cmocka_unit_test(test_offload_before_send_hook_adopts_hardware_message),
        cmocka_unit_test(test_tx_buffer_of_the_owner),
        cmocka_unit_test(test_before_send_once_per_message_and_before_a_resend_reads_the_store),
        cmocka_unit_test(test_stream_split_and_batched_messages),
        cmocka_unit_test(test_rx_at_boundary_only_between_whole_messages),
        cmocka_unit_test(test_fuzz_session_never_crashes_and_only_answers_well_formed),
    };
    return cmocka_run_group_tests_name("fix_session", tests, NULL, NULL);
}
