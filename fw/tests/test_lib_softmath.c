/* Host tests of the self-test's reference arithmetic against the host's own 64-bit arithmetic,
 * and of the RISC-V M-extension edge cases (division by zero, signed overflow). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/softmath.h"

static uint32_t rng_state = 0x12345678u;
static uint32_t xorshift(void) {
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static const uint32_t edges[] = {0, 1, 2, 3, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFFu, 0xFFFFFFFEu, 10, 0x10000};

static void check_pair(uint32_t a, uint32_t b) {
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    assert_int_equal(soft_mul(a, b), (uint32_t)((uint64_t)a * b));
    assert_int_equal(soft_mulhu(a, b), (uint32_t)(((uint64_t)a * b) >> 32));
    assert_int_equal(soft_mulh(sa, sb), (uint32_t)((uint64_t)((int64_t)sa * sb) >> 32));
    assert_int_equal(soft_mulhsu(sa, b), (uint32_t)((uint64_t)((int64_t)sa * (int64_t)(uint64_t)b) >> 32));
    if (b != 0) {
        assert_int_equal(soft_divu(a, b), a / b);
        assert_int_equal(soft_remu(a, b), a % b);
        if (!(sa == INT32_MIN && sb == -1)) {
            assert_int_equal(soft_div(sa, sb), sa / sb);
            assert_int_equal(soft_rem(sa, sb), sa % sb);
        }
    }
}

static void test_random_operands_match_host(void **state) {
    (void)state;
    for (int i = 0; i < 20000; i++) check_pair(xorshift(), xorshift());
    for (int i = 0; i < 20000; i++) check_pair(xorshift(), xorshift() >> (xorshift() & 31));
}

static void test_edge_operands_match_host(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (size_t j = 0; j < sizeof edges / sizeof edges[0]; j++) check_pair(edges[i], edges[j]);
}

static void test_division_by_zero_follows_riscv(void **state) {
    (void)state;
    assert_int_equal(soft_divu(1234, 0), 0xFFFFFFFFu);
    assert_int_equal(soft_remu(1234, 0), 1234);
    assert_int_equal(soft_div(-7, 0), -1);
    assert_int_equal(soft_rem(-7, 0), -7);
}

static void test_signed_overflow_follows_riscv(void **state) {
    (void)state;
    assert_int_equal(soft_div(INT32_MIN, -1), INT32_MIN);
    assert_int_equal(soft_rem(INT32_MIN, -1), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_operands_match_host),
        cmocka_unit_test(test_edge_operands_match_host),
        cmocka_unit_test(test_division_by_zero_follows_riscv),
        cmocka_unit_test(test_signed_overflow_follows_riscv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
