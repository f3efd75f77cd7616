/* Host tests of the cycle statistics: counts, extremes, histogram buckets and the 32-bit mean against
 * the host's own 64-bit arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/cyclestat.h"

static void test_empty_is_zero(void **state) {
    (void)state;
    cyclestat_t s;
    cyclestat_reset(&s);
    assert_int_equal(s.count, 0);
    assert_int_equal(cyclestat_mean(&s), 0);
}

static void test_min_max_count_total(void **state) {
    (void)state;
    cyclestat_t s;
    cyclestat_reset(&s);
    const uint32_t v[] = {35000, 4200, 17000, 4100, 90000};
    uint64_t sum = 0;
    for (size_t i = 0; i < 5; i++) {
        cyclestat_add(&s, v[i]);
        sum += v[i];
    }
    assert_int_equal(s.count, 5);
    assert_int_equal(s.min, 4100);
    assert_int_equal(s.max, 90000);
    assert_true(s.total == sum);
    assert_int_equal(cyclestat_mean(&s), (uint32_t)(sum / 5));
}

/* Each value lands in the bucket whose floor is the largest power-of-two multiple of 1024 not above it. */
static void test_buckets_by_log2(void **state) {
    (void)state;
    const uint32_t edges[] = {0, 1023, 1024, 2047, 2048, 4095, 4096, 8191, 8192, 16384, 32767, 32768,
                              65535, 65536, 1u << 20, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        cyclestat_t s;
        cyclestat_reset(&s);
        cyclestat_add(&s, edges[i]);
        unsigned want = 0;
        while (want + 1 < CYCLESTAT_BUCKETS && edges[i] >= cyclestat_bucket_floor(want + 1)) want++;
        for (unsigned k = 0; k < CYCLESTAT_BUCKETS; k++) assert_int_equal(s.hist[k], k == want ? 1u : 0u);
    }
    assert_int_equal(cyclestat_bucket_floor(1), 1024);
    assert_int_equal(cyclestat_bucket_floor(7), 65536);
}

/* The mean stays exact past 2^32 total cycles. */
static void test_mean_past_32_bits(void **state) {
    (void)state;
    cyclestat_t s;
    cyclestat_reset(&s);
    uint64_t sum = 0;
    uint32_t x = 0x9E3779B9u;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        uint32_t v = 20000u + (x & 0xFFFFu);
        cyclestat_add(&s, v);
        sum += v;
    }
    assert_true(sum > 0xFFFFFFFFull);
    assert_int_equal(cyclestat_mean(&s), (uint32_t)(sum / s.count));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_is_zero),
        cmocka_unit_test(test_min_max_count_total),
        cmocka_unit_test(test_buckets_by_log2),
        cmocka_unit_test(test_mean_past_32_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
