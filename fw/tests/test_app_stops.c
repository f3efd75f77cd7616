/* The firmware's stop decision (app/stops.c) on market data through the real FIX session and application
 * layer (tests/stops_host.h): regressions of the disagreements the differential test of the two trigger paths
 * found (hw/test/triggerfish/offload/StopDiffSpec.scala). Expected fires worked out by hand from the FIX float
 * definition: a price is compared exactly, whatever its number of digits, and valid market data is never
 * answered with a Reject. And the order table entries armed stops keep: every fire's order is entered in the order
 * table (tracked), or the stop was never armed (refused with an error), or it stays armed. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "stops_host.h"

/* Feeds a 35=W (the body after MsgSeqNum); asserts that the session answered nothing but orders. */
static void w(const char *rest)
{
    uint8_t msg[FIX_MAX_MSG_LEN + 64];
    size_t n = sh_frame_w(rest, msg, sizeof msg);
    assert_true(n > 0);
    int first = sh_feed(msg, n);
    for (int m = first; m < SH.nsent; m++) assert_string_equal(fx_field(&SH, m, 35), "D");
}

static bool fired(unsigned i) { return stops_get(i)->state == STOP_FIRED; }

/* 2 decimals configured, prices with 5: a hair above the stop is above it (the buy fires, the sell does not),
 * a hair below is below it; never rounded to the stop, never refused. */
static void test_more_decimals_than_configured_compared_exactly(void **st)
{
    (void)st;
    sh_start(2);
    sh_arm(0, '1', "AAPL", 117025); /* buy 1170.25 */
    sh_arm(1, '2', "AAPL", 117025); /* sell 1170.25 */
    w("55=AAPL|268=1|269=2|270=1170.24999|");
    assert_false(fired(0));
    assert_true(fired(1));
    assert_int_equal(stops_get(1)->fired_px, 117024); /* the floor at 2 decimals */
    sh_arm(1, '2', "AAPL", 117025);
    w("55=AAPL|268=1|269=2|270=1170.25001|");
    assert_true(fired(0));
    assert_false(fired(1));
    sh_arm(0, '1', "AAPL", 117025);
    w("55=AAPL|268=1|269=2|270=1170.250000000|"); /* equal: both */
    assert_true(fired(0) && fired(1));
}

/* A trade past the entries the snapshot keeps (FIX_APP_MAX_MD_ENTRIES) is seen all the same. */
static void test_trade_past_the_kept_entries_fires(void **st)
{
    (void)st;
    sh_start(2);
    sh_arm(3, '1', "IBM", 10000);
    char body[FIX_MAX_MSG_LEN];
    int n = snprintf(body, sizeof body, "55=IBM|268=%d|", FIX_APP_MAX_MD_ENTRIES + 4);
    for (int i = 0; i < FIX_APP_MAX_MD_ENTRIES + 3; i++) n += snprintf(body + n, sizeof body - (size_t)n, "269=0|270=99|");
    snprintf(body + n, sizeof body - (size_t)n, "269=2|270=100.5|271=1|");
    w(body);
    assert_true(fired(3));
    assert_int_equal(stops_get(3)->fired_px, 10050);
}

/* The last entry of a 35=W as long as a message may be, far past the fields the parser keeps (FIX_MAX_FIELDS): its
 * trade fires the stop it crosses, and the trades before it do not fire the stop they do not cross. */
static void test_trade_in_the_last_entry_of_a_long_message_fires(void **st)
{
    (void)st;
    sh_start(2);
    sh_arm(3, '1', "IBM", 10000);
    sh_arm(4, '2', "IBM", 9000);
    char entries[FIX_MAX_MSG_LEN];
    int n = 0, count = 0;
    while (n < FIX_MAX_MSG_LEN - 200) {
        n += snprintf(entries + n, sizeof entries - (size_t)n, "269=2|270=99|");
        count++;
    }
    char body[FIX_MAX_MSG_LEN + 64]; /* (framed, the message stays within FIX_MAX_MSG_LEN) */
    snprintf(body, sizeof body, "55=IBM|268=%d|%s269=2|270=100.25|", count + 1, entries);
    assert_true(2 * count > FIX_MAX_FIELDS + 20);
    w(body);
    assert_true(fired(3));
    assert_int_equal(stops_get(3)->fired_px, 10025);
    assert_false(fired(4));
}

/* More integer digits than int64 holds: above every stop. A negative price: below every stop. Neither is refused. */
static void test_huge_and_negative_prices(void **st)
{
    (void)st;
    sh_start(4);
    sh_arm(0, '1', "X", 1);
    sh_arm(1, '2', "X", 1);
    w("55=X|268=1|269=2|270=000123456789012345678901234567890.5|");
    assert_true(fired(0));
    assert_false(fired(1));
    w("55=X|268=1|269=2|270=-0.00001|");
    assert_true(fired(1));
}

/* Another symbol, a prefix or an extension of the stop's, and entries other than trades do not fire it. */
static void test_symbol_prefix_extension_and_entry_types(void **st)
{
    (void)st;
    sh_start(2);
    sh_arm(0, '1', "AAPL", 100);
    w("55=AAP|268=1|269=2|270=5|");
    w("55=AAPLX|268=1|269=2|270=5|");
    w("55=AAPL|268=3|269=0|270=5|269=1|270=5|269=B|270=5|");
    assert_false(fired(0));
    w("55=AAPL|268=2|269=0|270=5|269=2|270=1.00|");
    assert_true(fired(0));
}

/* A symbol longer than the snapshot holds (FIX_SYMBOL_MAX - 1 characters) is not cut down to match a stop's. */
static void test_long_symbol_does_not_match_its_prefix(void **st)
{
    (void)st;
    sh_start(2);
    sh_arm(0, '1', "ABCDEFGHIJKLMNO", 100); /* 15 characters, the longest a stop takes */
    w("55=ABCDEFGHIJKLMNOP|268=1|269=2|270=5|");
    w("55=ABCDEFGHIJKLMNOPQRSTUVWXYZ|268=1|269=2|270=5|");
    assert_false(fired(0));
    w("55=ABCDEFGHIJKLMNO|268=1|269=2|270=5|");
    assert_true(fired(0));
}

/* ---- the order table entries armed stops keep ---- */

static char out_text[4096];

/* What the code between cap_begin() and cap_end() printed (stdout: console lines and machine-protocol events), in
 * out_text (and on stdout all the same). */
static FILE *cap_file;
static int cap_saved;
static void cap_begin(void)
{
    fflush(stdout);
    cap_file = tmpfile();
    assert_non_null(cap_file);
    cap_saved = dup(1);
    assert_true(cap_saved >= 0 && dup2(fileno(cap_file), 1) == 1);
}
static void cap_end(void)
{
    fflush(stdout);
    assert_int_equal(dup2(cap_saved, 1), 1);
    close(cap_saved);
    rewind(cap_file);
    size_t n = fread(out_text, 1, sizeof out_text - 1, cap_file);
    out_text[n] = '\0';
    fclose(cap_file);
    fputs(out_text, stdout);
}

/* Runs the console's `stop` command on the words of line (as the console splits them); its output in out_text. */
static int run_stop(const char *line)
{
    char buf[128], *argv[10];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && argc < 9; t = strtok(NULL, " ")) argv[argc++] = t;
    argv[argc] = NULL;
    cap_begin();
    int rc = cmd_stop(argc, argv);
    cap_end();
    return rc;
}

/* A limit order as the console's `buy` sends it: leaving the armed stops' entries alone. */
static int console_buy(void) { return fix_app_new_order(&SH.app, "IBM", '1', 1, 100, stops_keep(STOPS_MAX), SH.now); }

/* The exchange fills order idx (an execution report): its entry is available again. */
static void fill(int idx)
{
    char er[200];
    snprintf(er, sizeof er, "35=8|34=%u|37=O%d|11=%s|17=E%d|150=F|39=2|55=IBM|54=1|151=0|14=1|6=1|",
             fix_session_next_in(&SH.s), idx, fix_app_order(&SH.app, idx)->clordid, idx);
    fx_in(&SH, ++SH.now, er);
    assert_int_equal(fix_app_order(&SH.app, idx)->state, FIX_ORD_FILLED);
}

static unsigned armed_stops(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < STOPS_MAX; i++) n += stops_get(i)->state == STOP_ARMED;
    return n;
}

/* Stop i's last fire's order is in the order table, pending new, under the ClOrdID of a 35=D the session sent. */
static void assert_fire_tracked(unsigned i)
{
    const stop_t *s = stops_get(i);
    assert_true(s->fires > 0);
    const fix_order_t *o = fix_app_order(&SH.app, s->order);
    assert_non_null(o);
    assert_int_equal(o->state, FIX_ORD_PENDING_NEW);
    assert_string_equal(o->symbol, s->symbol);
    int sent = 0;
    for (int m = 0; m < SH.nsent; m++)
        if (!strcmp(fx_field(&SH, m, 35), "D") && !strcmp(fx_field(&SH, m, 11), o->clordid)) sent++;
    assert_int_equal(sent, 1);
}

/* The table full of live orders but for two entries: two stops arm, a third is refused with the error and changes
 * nothing; a console order cannot take the two kept entries; a trade crosses all: both armed stops fire, each order
 * tracked. (Without kept entries the third stop armed and one of the three fires sent no order.) A filled order
 * gives its entry back: a stop arms again. */
static void test_armed_stops_keep_their_order_entries(void **st)
{
    (void)st;
    sh_start(2);
    for (int k = 0; k < FIX_APP_MAX_ORDERS - 2; k++) assert_int_equal(console_buy(), k);
    assert_int_equal(run_stop("stop buy AAPL 1 1.00 1.05"), 0);
    assert_int_equal(run_stop("stop sell AAPL 1 1.00 0.95"), 0);
    char want[96];
    snprintf(want, sizeof want, "error: order table full: %d live orders, 2 armed stops\n", FIX_APP_MAX_ORDERS - 2);
    assert_int_equal(run_stop("stop buy AAPL 1 0.50 0.55"), 1);
    assert_string_equal(out_text, want);
    assert_int_equal(armed_stops(), 2);
    for (unsigned i = 2; i < STOPS_MAX; i++) assert_int_equal(stops_get(i)->state, STOP_FREE);
    assert_int_equal(console_buy(), FIX_E_FULL);
    w("55=AAPL|268=1|269=2|270=1.00|");
    assert_true(fired(0) && fired(1));
    assert_fire_tracked(0);
    assert_fire_tracked(1);
    assert_int_equal(fix_app_available(&SH.app), 0);
    snprintf(want, sizeof want, "error: order table full: %d live orders, 0 armed stops\n", FIX_APP_MAX_ORDERS);
    assert_int_equal(run_stop("stop buy AAPL 1 0.50 0.55"), 1);
    assert_string_equal(out_text, want);
    fill(3);
    assert_int_equal(run_stop("stop buy AAPL 1 0.50 0.55"), 0);
    assert_int_equal(stops_get(2)->state, STOP_ARMED);
    assert_int_equal(console_buy(), FIX_E_FULL); /* the entry is the stop's */
    w("55=AAPL|268=1|269=2|270=0.60|");
    assert_fire_tracked(2);
    assert_int_equal(stops_get(2)->order, 3);
}

/* Every stop slot armed (as many as the order table holds, when it holds fewer: the SoC's limits) on a table with
 * room for exactly that many orders, one trade crossing them all: every fire tracked; canceling a stop gives its
 * entry back to other orders. */
static void test_every_slot_fires_into_its_entry(void **st)
{
    (void)st;
    enum { NS = STOPS_MAX < FIX_APP_MAX_ORDERS ? STOPS_MAX : FIX_APP_MAX_ORDERS };
    _Static_assert(NS > 5, "stop 5 is canceled");
    sh_start(2);
    for (int k = 0; k < FIX_APP_MAX_ORDERS - NS; k++) assert_int_equal(console_buy(), k);
    for (unsigned i = 0; i < NS; i++) assert_int_equal(run_stop("stop buy MSFT 1 2.00 2.10"), 0);
    assert_int_equal(console_buy(), FIX_E_FULL);
    if (NS < STOPS_MAX) assert_int_equal(run_stop("stop buy MSFT 1 2.00 2.10"), 1); /* a free slot, no entry */
    assert_int_equal(run_stop("stop cancel 5"), 0);
    assert_int_equal(console_buy(), FIX_APP_MAX_ORDERS - NS); /* the canceled stop's entry */
    w("55=MSFT|268=1|269=2|270=2.00|");
    for (unsigned i = 0; i < NS; i++)
        if (i != 5) assert_fire_tracked(i);
    assert_int_equal(stops_get(5)->state, STOP_CANCELED);
    assert_int_equal(fix_app_available(&SH.app), 0);
}

/* A hardware fire is entered as app/offload.c enters it (fix_app_adopt_order leaving the other armed stops' entries):
 * with the table otherwise full it is tracked all the same. */
static void test_hardware_fire_adopted_into_the_kept_entry(void **st)
{
    (void)st;
    sh_start(2);
    for (int k = 0; k < FIX_APP_MAX_ORDERS - 2; k++) assert_int_equal(console_buy(), k);
    assert_int_equal(run_stop("stop buy AAPL 1 1.00 1.05"), 0);
    assert_int_equal(run_stop("stop sell AAPL 1 1.00 0.95"), 0);
    stops_slot(0)->hw = true; /* the trigger table's (the host has no offload: armed as the firmware's, moved) */
    char id[FIX_ID_MAX];
    fix_app_take_clordid(&SH.app, id);
    const stop_t *s = stops_get(0);
    int order = fix_app_adopt_order(&SH.app, id, s->symbol, s->side, s->qty, s->limit_px, 77, stops_keep(0), SH.now);
    assert_true(order >= 0);
    stops_hw_fired(0, 100, order, id, 77, 22);
    stops_flush_events();
    assert_int_equal(stops_get(0)->state, STOP_FIRED);
    const fix_order_t *o = fix_app_order(&SH.app, stops_get(0)->order);
    assert_non_null(o);
    assert_string_equal(o->clordid, id);
    assert_int_equal(o->seq, 77);
    w("55=AAPL|268=1|269=2|270=0.99|"); /* the firmware stop: the last entry is its own */
    assert_fire_tracked(1);
    /* an adoption for no armed stop leaves none it may take */
    fix_app_take_clordid(&SH.app, id);
    assert_int_equal(fix_app_adopt_order(&SH.app, id, "AAPL", '1', 1, 100, 78, stops_keep(STOPS_MAX), SH.now), FIX_E_FULL);
}

/* A repeating stop is armed again after each fire while an entry is left for its next order; when none is, it is
 * disarmed and says so (not armed without an entry, not spent silently). */
static void test_repeating_stop_disarmed_when_no_entry_is_left(void **st)
{
    (void)st;
    sh_start(2);
    for (int k = 0; k < FIX_APP_MAX_ORDERS - 2; k++) assert_int_equal(console_buy(), k);
    assert_int_equal(run_stop("stop buy AAPL 1 1.00 1.05 repeat"), 0);
    assert_non_null(strstr(out_text, "stop 0: armed buy AAPL 1, stop 1 limit 1.05 (firmware, repeating)\n"));
    assert_non_null(strstr(out_text, "\"ev\":\"stop.armed\""));
    cap_begin();
    w("55=AAPL|268=1|269=2|270=1.00|");
    cap_end();
    assert_int_equal(stops_get(0)->state, STOP_ARMED); /* one entry left: armed again */
    assert_non_null(strstr(out_text, "\"armed\":true"));
    assert_fire_tracked(0);
    cap_begin();
    w("55=AAPL|268=1|269=2|270=1.01|");
    cap_end();
    assert_int_equal(stops_get(0)->fires, 2);
    assert_fire_tracked(0);
    assert_int_equal(stops_get(0)->state, STOP_FIRED); /* no entry left: disarmed */
    char want[96];
    snprintf(want, sizeof want, "stop 0: disarmed, order table full: %d live orders, 0 armed stops\n", FIX_APP_MAX_ORDERS);
    assert_non_null(strstr(out_text, want));
    assert_non_null(strstr(out_text, "\"ev\":\"stop.fired\""));
    assert_non_null(strstr(out_text, "\"armed\":false"));
    assert_int_equal(armed_stops(), 0);
    int before = SH.nsent;
    w("55=AAPL|268=1|269=2|270=1.02|");
    assert_int_equal(SH.nsent, before);
    assert_int_equal(stops_get(0)->fires, 2);
}

/* A stop whose order cannot be entered stays armed and fires on a later trade: stops armed past the order table's
 * check (as the differential test arms them) on a table with one entry for two. */
static void test_stop_without_an_entry_stays_armed(void **st)
{
    (void)st;
    sh_start(2);
    for (int k = 0; k < FIX_APP_MAX_ORDERS - 1; k++) assert_int_equal(console_buy(), k);
    sh_arm(0, '1', "AAPL", 100);
    sh_arm(1, '1', "AAPL", 100);
    int before = SH.nsent;
    cap_begin();
    w("55=AAPL|268=1|269=2|270=1.00|");
    cap_end();
    assert_int_equal(SH.nsent, before); /* each leaves the other's entry: neither order sent */
    assert_string_equal(out_text, "stop 0: order NOT sent (-5), still armed\nstop 1: order NOT sent (-5), still armed\n");
    assert_int_equal(stops_get(0)->state, STOP_ARMED);
    assert_int_equal(stops_get(1)->state, STOP_ARMED);
    assert_int_equal(stops_get(0)->fires + stops_get(1)->fires, 0);
    fill(0);
    fill(1);
    w("55=AAPL|268=1|269=2|270=1.10|");
    assert_fire_tracked(0);
    assert_fire_tracked(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_more_decimals_than_configured_compared_exactly),
        cmocka_unit_test(test_trade_past_the_kept_entries_fires),
        cmocka_unit_test(test_trade_in_the_last_entry_of_a_long_message_fires),
        cmocka_unit_test(test_huge_and_negative_prices),
        cmocka_unit_test(test_symbol_prefix_extension_and_entry_types),
        cmocka_unit_test(test_long_symbol_does_not_match_its_prefix),
        cmocka_unit_test(test_armed_stops_keep_their_order_entries),
        cmocka_unit_test(test_every_slot_fires_into_its_entry),
        cmocka_unit_test(test_hardware_fire_adopted_into_the_kept_entry),
        cmocka_unit_test(test_repeating_stop_disarmed_when_no_entry_is_left),
        cmocka_unit_test(test_stop_without_an_entry_stays_armed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
