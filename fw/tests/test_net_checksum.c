/* Host test of the word-wise Internet checksum (net/checksum.c) against the RFC 1071 byte-pair sum written
 * here: every alignment, lengths 0..2000, all-zero, all-0xFF and random data, with and without a running sum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "net/net_util.h"

static uint32_t rng = 1u;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static uint16_t ref_csum(uint32_t sum, const uint8_t *d, size_t n) {
    uint64_t s = sum;
    for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t)((d[i] << 8) | d[i + 1]);
    if (n & 1u) s += (uint32_t)d[n - 1] << 8;
    while (s >> 16) s = (s & 0xFFFFu) + (s >> 16);
    return (uint16_t)~s;
}

static void test_wordwise_matches_byte_pairs(void **state) {
    (void)state;
    static uint8_t buf[2100];
    for (int it = 0; it < 100000; it++) {
        size_t off = rnd() % 8, n = rnd() % (it % 10 == 0 ? 2000u : 80u);
        uint32_t s0 = (it % 3 == 0) ? rnd() : rnd() % 70000u;
        int mode = (int)(rnd() % 4);
        for (size_t i = 0; i < n + off; i++) buf[i] = mode == 0 ? 0xFF : mode == 1 ? 0 : (uint8_t)rnd();
        assert_int_equal(net_csum_fold(net_csum_add(s0, buf + off, n)), ref_csum(s0, buf + off, n));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_wordwise_matches_byte_pairs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
