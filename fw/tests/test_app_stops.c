/* The firmware's stop decision (app/stops.c) on market data through the real FIX session and application
 * layer (tests/stops_host.h): regressions of the disagreements the differential test of the two trigger paths
 * found (hw/test/triggerfish/offload/StopDiffSpec.scala). Expected fires worked out by hand from the FIX float
 * definition: a price is compared exactly, whatever its number of digits, and valid market data is never
 * answered with a Reject. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_more_decimals_than_configured_compared_exactly),
        cmocka_unit_test(test_trade_past_the_kept_entries_fires),
        cmocka_unit_test(test_huge_and_negative_prices),
        cmocka_unit_test(test_symbol_prefix_extension_and_entry_types),
        cmocka_unit_test(test_long_symbol_does_not_match_its_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
