/* Host tests of tf_udiv64_u16 against the host's own 64-bit division: random and edge dividends,
 * every divisor shape the firmware uses (timebase / 1000) and the extremes 1 and 65535; tf_udiv_incr (timer_ms) against
 * the same division along random forward tick sequences: small steps, steps of exactly the divisor, jumps past 2^32. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/udiv.h"

static uint64_t rng = 0x0123456789ABCDEFull;
static uint64_t next64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_matches_host_division(void **state) {
    (void)state;
    static const uint32_t divisors[] = {1, 2, 3, 7, 10, 1000, 37500, 62500, 65521, 65535};
    static const uint64_t edges[] = {0, 1, 999, 1000, 0xFFFFFFFFull, 0x100000000ull, 0xFFFFFFFFFFFFFFFFull,
                                     0x8000000000000000ull, 0x0000FFFF0000FFFFull};
    for (size_t k = 0; k < sizeof divisors / sizeof divisors[0]; k++) {
        uint32_t d = divisors[k];
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) assert_true(tf_udiv64_u16(edges[i], d) == edges[i] / d);
        for (int i = 0; i < 20000; i++) {
            uint64_t n = next64() >> (next64() & 63);
            assert_true(tf_udiv64_u16(n, d) == n / d);
        }
    }
}

static void test_general_division_matches_host(void **state) {
    (void)state;
    static const uint64_t edges[] = {0, 1, 2, 9, 10, 0xFFFFFFFFull, 0x100000000ull, 86400000ull, 0x7FFFFFFFFFFFFFFFull,
                                     0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFEull};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (size_t j = 0; j < sizeof edges / sizeof edges[0]; j++) {
            uint64_t n = edges[i], d = edges[j], r;
            if (d == 0) continue;
            assert_true(tf_udivmod64(n, d, &r) == n / d);
            assert_true(r == n % d);
        }
    for (int i = 0; i < 100000; i++) {
        uint64_t n = next64() >> (next64() & 63), d = next64() >> (next64() & 63), r;
        if (d == 0) d = 1;
        assert_true(tf_udivmod64(n, d, &r) == n / d);
        assert_true(r == n % d);
        assert_true(tf_udivmod64(n, d, NULL) == n / d);
    }
    uint64_t r;
    assert_true(tf_udivmod64(1234, 0, &r) == 0xFFFFFFFFFFFFFFFFull && r == 1234);
}

static void test_incremental_matches_division(void **state) {
    (void)state;
    static const uint32_t divisors[] = {1, 7, 1000, 37500, 62500, 65535};
    for (size_t k = 0; k < sizeof divisors / sizeof divisors[0]; k++) {
        uint32_t d = divisors[k];
        tf_udiv_incr_t st = {0, 0};
        uint64_t t = 0;
        assert_true(tf_udiv_incr(&st, 0, d) == 0);
        for (int i = 0; i < 50000; i++) {
            uint64_t r = next64();
            switch (r & 7) {
            case 0: break;                                  /* the same tick again */
            case 1: t += d; break;                          /* exactly one quotient on */
            case 2: t += d - 1; break;                      /* just short of one */
            case 3: t += (r >> 8) % ((uint64_t)1 << 40); break; /* past 2^32 ticks at once */
            default: t += (r >> 8) % (3u * d + 1u); break;  /* a few quotients */
            }
            uint64_t q = tf_udiv_incr(&st, t, d);
            if (q != t / d) fail_msg("d %u: ticks %llu gave %llu, want %llu", (unsigned)d, (unsigned long long)t,
                                     (unsigned long long)q, (unsigned long long)(t / d));
            assert_true(st.base == q * d && st.base <= t);
        }
    }
}

/* tf_div10 against the host's division for every 32-bit value (about 4.3 billion: a few seconds on the host). */
static void test_div10_every_u32(void **state) {
    (void)state;
    uint32_t v = 0;
    do {
        if (tf_div10(v) != v / 10u) fail_msg("tf_div10(%lu) = %lu", (unsigned long)v, (unsigned long)tf_div10(v));
    } while (++v != 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_matches_host_division),
                                       cmocka_unit_test(test_general_division_matches_host),
                                       cmocka_unit_test(test_incremental_matches_division),
                                       cmocka_unit_test(test_div10_every_u32)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
