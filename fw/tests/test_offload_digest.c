/* Host tests of offload/digest.c against a model of TCP's receive side written here (rcv_nxt, held skip ranges,
 * in-order delivery): what each descriptor makes TCP skip, and that the session takes the hardware's messages exactly
 * where they are in the stream, between the bytes firmware parses, whatever order descriptors and frames come in
 * (the expected event logs are written out from DESIGN.md's rules, per case). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "offload/digest.h"

/* ---- a model of TCP's receive side ---- */
static uint32_t rcv_nxt;
static struct { uint32_t seq, len; } held[32];
static unsigned nheld;
static ofl_digest_t D;
static char log_[64][40]; /* "data A B" (firmware got [A, B)), "skip A B", "msgs F C" */
static unsigned nlog;
static int skip_result, msg_result;

static void say(const char *fmt, unsigned long a, unsigned long b) { snprintf(log_[nlog++], sizeof log_[0], fmt, a, b); }

static const ofl_digest_ops_t ops;

/* applies held ranges rcv_nxt has reached */
static void apply_held(void) {
    for (unsigned i = 0; i < nheld;) {
        if (held[i].seq != rcv_nxt) {
            i++;
            continue;
        }
        uint32_t s = held[i].seq, n = held[i].len;
        held[i] = held[--nheld];
        rcv_nxt += n;
        say("skip %lu %lu", s, s + n);
        ofl_digest_skipped(&D, s, n, &ops, NULL);
        i = 0;
    }
}

static int tcp_skip(void *ctx, uint32_t seq, uint32_t len) {
    (void)ctx;
    if (skip_result < 0) return skip_result;
    held[nheld].seq = seq;
    held[nheld++].len = len;
    apply_held();
    return 0;
}

/* firmware's bytes [seq, end) reach TCP in one segment (a slot frame): delivered up to the next held range, which is
 * skipped where it starts, and so on */
static void frame(uint32_t seq, uint32_t end) {
    if ((int32_t)(seq - rcv_nxt) > 0 || (int32_t)(end - rcv_nxt) <= 0) return; /* out of order (the model holds no data), or old */
    while ((int32_t)(end - rcv_nxt) > 0) {
        uint32_t stop = end;
        for (unsigned i = 0; i < nheld; i++)
            if (held[i].seq > rcv_nxt && held[i].seq < stop) stop = held[i].seq;
        for (unsigned i = 0; i < nheld; i++) /* a held range at rcv_nxt goes first */
            if (held[i].seq == rcv_nxt) stop = rcv_nxt;
        if (stop != rcv_nxt) {
            say("data %lu %lu", rcv_nxt, stop);
            rcv_nxt = stop;
        }
        uint32_t at = rcv_nxt;
        apply_held();
        if (rcv_nxt == at && stop == at) break; /* nothing moved */
    }
}

static int session_msgs(void *ctx, uint32_t first, uint32_t count) {
    (void)ctx;
    say("msgs %lu %lu", first, count);
    return msg_result;
}

/* the session's framer: whether it holds a partial message (set by the cases, as the bytes they deliver would) */
static bool framer_partial;

static int session_drop(void *ctx) {
    (void)ctx;
    say("drop held %lu", framer_partial, 0); /* (the second argument unused) */
    if (!framer_partial) return -1;
    framer_partial = false;
    return 0;
}

static const ofl_digest_ops_t ops = {tcp_skip, session_msgs, session_drop};

static int setup(void **state) {
    (void)state;
    rcv_nxt = 1000;
    framer_partial = false;
    nheld = nlog = 0;
    skip_result = msg_result = 0;
    ofl_digest_init(&D);
    return 0;
}

static void expect_log(unsigned n, const char *const *want) {
    for (unsigned i = 0; i < n && i < nlog; i++) assert_string_equal(log_[i], want[i]);
    assert_int_equal(nlog, n);
}

static ofl_digest_desc_t digested(uint32_t seq, uint16_t len, uint32_t first, uint8_t count) {
    ofl_digest_desc_t x = {.seq = seq, .len = len, .first = first, .hw_count = count, .digested = true, .synced = true};
    return x;
}

static ofl_digest_desc_t passed(uint32_t seq, uint16_t len, uint16_t skip, uint16_t tail, uint32_t first, uint8_t count) {
    ofl_digest_desc_t x = {.seq = seq, .len = len, .skip = skip, .tail = tail, .first = first, .hw_count = count, .synced = true};
    return x;
}

/* Digested segments at rcv_nxt: skipped at once, the session taking each one's messages as TCP passes them; a segment
 * with only a provisional head completes no message. */
static void test_digested_in_order(void **state) {
    (void)state;
    ofl_digest_desc_t a = digested(1000, 1460, 7, 8), b = digested(2460, 1460, 15, 7), c = digested(3920, 200, 0, 0);
    ofl_digest_take(&D, &a, &ops, NULL);
    ofl_digest_take(&D, &b, &ops, NULL);
    ofl_digest_take(&D, &c, &ops, NULL);
    static const char *const want[] = {"skip 1000 2460", "msgs 7 8", "skip 2460 3920", "msgs 15 7", "skip 3920 4120"};
    expect_log(5, want);
    assert_int_equal(D.digested, 3);
    assert_int_equal(D.hw_msgs, 15);
    assert_int_equal(D.bytes, 3120);
    assert_int_equal(ofl_digest_waiting(&D), 0);
    assert_false(D.disagree);
}

/* A passed segment: the message the hardware completed in its skip is taken before firmware's bytes, which stop at
 * the tail; the next segment, digested, completes the tail's message, which the session takes after firmware's. */
static void test_passed_with_skip_and_tail(void **state) {
    (void)state;
    ofl_digest_desc_t p = passed(1000, 900, 120, 80, 5, 1), n = digested(1900, 300, 6, 2);
    ofl_digest_take(&D, &p, &ops, NULL); /* taken before its frame goes to TCP */
    frame(1000, 1900);
    ofl_digest_take(&D, &n, &ops, NULL);
    static const char *const want[] = {"skip 1000 1120", "msgs 5 1", "data 1120 1820", "skip 1820 1900", "skip 1900 2200",
                                       "msgs 6 2"};
    expect_log(6, want);
    assert_int_equal(D.passed, 1);
    assert_int_equal(D.trimmed, 1);
}

/* The descriptors of later digested segments come before the passed frame reaches TCP (firmware is behind): their
 * messages wait until TCP has delivered firmware's bytes before them. */
static void test_messages_wait_for_firmware_bytes(void **state) {
    (void)state;
    ofl_digest_desc_t p = passed(1000, 500, 0, 100, 0, 0), a = digested(1500, 600, 9, 3), b = digested(2100, 400, 12, 2);
    ofl_digest_take(&D, &p, &ops, NULL);
    ofl_digest_take(&D, &a, &ops, NULL);
    ofl_digest_take(&D, &b, &ops, NULL);
    assert_int_equal(nlog, 0);
    assert_int_equal(ofl_digest_waiting(&D), 2);
    frame(1000, 1500);
    static const char *const want[] = {"data 1000 1400", "skip 1400 1500", "skip 1500 2100", "msgs 9 3", "skip 2100 2500",
                                       "msgs 12 2"};
    expect_log(6, want);
    assert_int_equal(ofl_digest_waiting(&D), 0);
}

/* A passed frame lost on the way to firmware (no receive slot) and sent again later: everything the hardware took
 * after it waits in TCP, and the session takes the messages in stream order once the frame is there. */
static void test_lost_frame_sent_again(void **state) {
    (void)state;
    ofl_digest_desc_t p = passed(1000, 400, 50, 0, 4, 1), a = digested(1400, 300, 6, 2), q = passed(1700, 200, 0, 0, 0, 0);
    ofl_digest_take(&D, &p, &ops, NULL); /* its head skip is at rcv_nxt: message 4 now */
    ofl_digest_take(&D, &a, &ops, NULL);
    ofl_digest_take(&D, &q, &ops, NULL);
    frame(1700, 1900); /* the later passed frame: out of order */
    static const char *const want1[] = {"skip 1000 1050", "msgs 4 1"};
    expect_log(2, want1);
    frame(1050, 1400); /* the first one again (its skipped head already passed) */
    frame(1700, 1900); /* and the kernel's retransmission of the later one */
    static const char *const want2[] = {"skip 1000 1050", "msgs 4 1", "data 1050 1400", "skip 1400 1700", "msgs 6 2",
                                        "data 1700 1900"};
    expect_log(6, want2);
}

/* A garbled message: the segment that finishes it skips its rest and completes nothing (the session sees the gap). */
static void test_garbled(void **state) {
    (void)state;
    ofl_digest_desc_t g = passed(1000, 300, 40, 0, 0, 0);
    g.garbled = true;
    ofl_digest_take(&D, &g, &ops, NULL);
    frame(1000, 1300);
    static const char *const want[] = {"skip 1000 1040", "data 1040 1300"};
    expect_log(2, want);
    assert_int_equal(D.garbled, 1);
}

/* Room: OFL_DIGEST_PENDING descriptors with messages may wait; the owner takes no more until TCP reaches them. */
static void test_room(void **state) {
    (void)state;
    ofl_digest_desc_t p = passed(1000, 100, 0, 0, 0, 0);
    ofl_digest_take(&D, &p, &ops, NULL);
    for (unsigned i = 0; i < OFL_DIGEST_PENDING; i++) {
        assert_true(ofl_digest_room(&D));
        ofl_digest_desc_t x = digested(1100 + 10 * i, 10, 1 + i, 1);
        ofl_digest_take(&D, &x, &ops, NULL);
    }
    assert_false(ofl_digest_room(&D));
    frame(1000, 1100);
    assert_true(ofl_digest_room(&D));
    assert_int_equal(D.hw_msgs, OFL_DIGEST_PENDING);
    assert_string_equal(log_[nlog - 1], "msgs 16 1");
}

/* TCP or the session refusing is counted and flagged for the owner (who resynchronises the parser); a refused skip
 * leaves no message waiting for it. */
static void test_refusals_flagged(void **state) {
    (void)state;
    ofl_digest_desc_t a = digested(1000, 500, 3, 2), b = digested(1500, 500, 5, 2);
    msg_result = -1;
    ofl_digest_take(&D, &a, &ops, NULL);
    assert_int_equal(D.msg_refused, 1);
    assert_true(D.disagree);
    D.disagree = false;
    skip_result = -2;
    ofl_digest_take(&D, &b, &ops, NULL);
    assert_int_equal(D.skip_refused, 1);
    assert_true(D.disagree);
    assert_int_equal(ofl_digest_waiting(&D), 0);
    ofl_digest_desc_t bad = passed(2000, 100, 60, 60, 0, 0); /* the hardware's bytes overlap: refused whole */
    skip_result = 0;
    ofl_digest_take(&D, &bad, &ops, NULL);
    assert_int_equal(D.skip_refused, 2);
}

static ofl_digest_desc_t with_held(ofl_digest_desc_t x, uint16_t held) {
    x.held = held;
    return x;
}

/* An undecided head the hardware takes: the passed segment's W are skipped (firmware parses nothing), its last 40
 * bytes reach the framer, and the framer drops them when TCP reaches the next (digested) segment, before the session
 * takes that segment's messages, the first of which is the one whose head firmware held. */
static void test_undecided_head_taken(void **state) {
    (void)state;
    ofl_digest_desc_t p = with_held(passed(1000, 500, 460, 0, 1, 2), 40), n = digested(1500, 600, 3, 3);
    ofl_digest_take(&D, &p, &ops, NULL);
    frame(1000, 1500);
    framer_partial = true; /* the 40 bytes */
    assert_true(D.holding);
    ofl_digest_take(&D, &n, &ops, NULL);
    static const char *const want[] = {"skip 1000 1460", "msgs 1 2", "data 1460 1500", "skip 1500 2100", "drop held 1",
                                       "msgs 3 3"};
    expect_log(6, want);
    assert_int_equal(D.held, 1);
    assert_int_equal(D.held_taken, 1);
    assert_int_equal(D.held_fw, 0);
    assert_false(D.holding);
    assert_false(D.disagree);
}

/* The next descriptor comes before the passed frame reaches TCP: the drop waits for TCP too, after the held bytes. A
 * passed next segment whose skip finishes the message takes it the same way. */
static void test_undecided_head_taken_by_a_skip_before_the_frame(void **state) {
    (void)state;
    ofl_digest_desc_t p = with_held(passed(1000, 300, 0, 0, 0, 0), 20), n = passed(1300, 400, 150, 0, 8, 1);
    ofl_digest_take(&D, &p, &ops, NULL);
    ofl_digest_take(&D, &n, &ops, NULL);
    assert_int_equal(nlog, 0);
    framer_partial = true; /* what the frame's last 20 bytes leave in the framer */
    frame(1000, 1300);     /* delivered, and TCP goes on into the next skip at once: the drop follows the data */
    frame(1300, 1700);
    static const char *const want[] = {"data 1000 1300", "skip 1300 1450", "drop held 1", "msgs 8 1", "data 1450 1700"};
    expect_log(5, want);
    assert_int_equal(D.held_taken, 1);
}

/* An undecided head that is firmware's (a Heartbeat, say): the next passed segment has no skip, nothing is dropped.
 * One that stays undecided over a short segment (all of it held) is settled by the segment after. */
static void test_undecided_head_firmwares_and_still_undecided(void **state) {
    (void)state;
    ofl_digest_desc_t a = with_held(passed(1000, 200, 190, 0, 1, 1), 10), b = with_held(passed(1200, 5, 0, 0, 0, 0), 5),
                      c = passed(1205, 300, 0, 0, 0, 0);
    ofl_digest_take(&D, &a, &ops, NULL);
    frame(1000, 1200);
    framer_partial = true;
    ofl_digest_take(&D, &b, &ops, NULL);
    frame(1200, 1205);
    assert_true(D.holding);
    ofl_digest_take(&D, &c, &ops, NULL);
    frame(1205, 1505);
    static const char *const want[] = {"skip 1000 1190", "msgs 1 1", "data 1190 1200", "data 1200 1205", "data 1205 1505"};
    expect_log(5, want);
    assert_int_equal(D.held, 2);
    assert_int_equal(D.held_taken, 0);
    assert_int_equal(D.held_fw, 1);
    assert_false(D.holding);
    assert_true(framer_partial); /* nothing dropped: the session parses the message */
}

/* The hardware takes a message whose head firmware does not hold: the two sides disagree (counted, flagged); a
 * resynchronisation at a boundary forgets a head the hardware never settled; bytes that overlap are refused. */
static void test_undecided_disagreements(void **state) {
    (void)state;
    ofl_digest_desc_t p = with_held(passed(1000, 100, 0, 0, 0, 0), 30), n = digested(1100, 200, 5, 1);
    ofl_digest_take(&D, &p, &ops, NULL);
    frame(1000, 1100); /* framer_partial stays false */
    ofl_digest_take(&D, &n, &ops, NULL);
    assert_int_equal(D.msg_refused, 1);
    assert_true(D.disagree);
    setup(NULL);
    ofl_digest_take(&D, &p, &ops, NULL);
    ofl_digest_at_boundary(&D);
    assert_false(D.holding);
    ofl_digest_desc_t n2 = digested(1100, 200, 5, 1);
    frame(1000, 1100);
    ofl_digest_take(&D, &n2, &ops, NULL);
    static const char *const want[] = {"data 1000 1100", "skip 1100 1300", "msgs 5 1"};
    expect_log(3, want);
    ofl_digest_desc_t bad = with_held(passed(1300, 100, 50, 20, 0, 0), 40);
    ofl_digest_take(&D, &bad, &ops, NULL);
    assert_int_equal(D.skip_refused, 1);
    assert_false(D.holding);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_digested_in_order, setup),
        cmocka_unit_test_setup(test_passed_with_skip_and_tail, setup),
        cmocka_unit_test_setup(test_messages_wait_for_firmware_bytes, setup),
        cmocka_unit_test_setup(test_lost_frame_sent_again, setup),
        cmocka_unit_test_setup(test_garbled, setup),
        cmocka_unit_test_setup(test_room, setup),
        cmocka_unit_test_setup(test_refusals_flagged, setup),
        cmocka_unit_test_setup(test_undecided_head_taken, setup),
        cmocka_unit_test_setup(test_undecided_head_taken_by_a_skip_before_the_frame, setup),
        cmocka_unit_test_setup(test_undecided_head_firmwares_and_still_undecided, setup),
        cmocka_unit_test_setup(test_undecided_disagreements, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
