/* Host tests of offload/price.c: the receive parser's logged BCD price -> fixed point, against the decimal text
 * of the value (an independent conversion: the digits printed by the C library, packed as BCD), for every number of
 * digits and random values; the marker of a price of 10^14 or more; what is not BCD is refused and changes nothing. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "offload/price.h"

static uint64_t bcd_of(uint64_t v) /* the value's decimal text, one digit a nibble */
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    uint64_t b = 0;
    for (const char *p = text; *p; p++) b = b << 4 | (uint64_t)(*p - '0');
    return b;
}

static void test_every_width_and_random(void **state)
{
    (void)state;
    uint64_t p10 = 1;
    for (int n = 0; n <= 14; n++, p10 *= 10) { /* 0, and 10^n - 1, 10^n and 10^n + 7 where they fit in 14 digits */
        const uint64_t vals[] = {p10 - 1, p10, p10 + 7, p10 * 9 / 10 + 3};
        for (unsigned k = 0; k < 4; k++) {
            if (vals[k] >= 100000000000000ull) continue;
            int64_t got = -5;
            assert_true(ofl_price_from_bcd(bcd_of(vals[k]), &got));
            assert_int_equal(got, (int64_t)vals[k]);
        }
    }
    srand(7);
    for (int i = 0; i < 100000; i++) {
        uint64_t v = (((uint64_t)rand() << 31) ^ (uint64_t)rand() ^ ((uint64_t)rand() << 50)) % 100000000000000ull;
        int64_t got = -5;
        assert_true(ofl_price_from_bcd(bcd_of(v), &got));
        assert_int_equal(got, (int64_t)v);
    }
}

static void test_huge_marker(void **state)
{
    (void)state;
    int64_t got = 0;
    assert_true(ofl_price_from_bcd(0x00FFFFFFFFFFFFFFull, &got));
    assert_int_equal(got, (int64_t)0xFFFFFFFFFFFFull); /* (1 << 48) - 1, as the binary log reported it */
}

static void test_not_bcd_refused(void **state)
{
    (void)state;
    for (int nib = 0; nib < 14; nib++)
        for (uint64_t d = 10; d <= 15; d++) {
            int64_t got = 1234;
            uint64_t b = bcd_of(98765432101234ull) & ~(0xFull << (4 * nib));
            assert_false(ofl_price_from_bcd(b | d << (4 * nib), &got));
            assert_int_equal(got, 1234);
        }
    int64_t got = 1234;
    assert_false(ofl_price_from_bcd(1ull << 56 | 0x42, &got)); /* past the 14 digits */
    assert_false(ofl_price_from_bcd(~0ull, &got));
    assert_int_equal(got, 1234);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_width_and_random),
        cmocka_unit_test(test_huge_marker),
        cmocka_unit_test(test_not_bcd_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
