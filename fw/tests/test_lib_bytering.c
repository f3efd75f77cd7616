/* Host tests of the byte ring behind the console's transmit queue (lib/bytering.h): what leaves is what was put, in
 * order, never more than the ring holds, across the wrap of its 32-bit counts; against a plain array as reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bytering.h"

#define OUT_MAX 200000
static uint8_t out[OUT_MAX];
static size_t out_n;
static void sink(uint8_t c) {
    assert_true(out_n < OUT_MAX);
    out[out_n++] = c;
}

static uint32_t rng = 0x2545F491u;
static uint32_t next(void) { /* xorshift32 */
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Random single bytes (while not full), runs written (as much as fits) and drains of 0 to 16 bytes (a 16-byte
 * FIFO's room), counts starting at `start`. */
static void run(uint32_t size, uint32_t start, unsigned steps) {
    uint8_t buf[64];
    assert_true(size <= sizeof buf);
    memset(buf, 0xEE, sizeof buf);
    bytering_t r;
    bytering_init(&r, buf, size, start);
    static uint8_t in[OUT_MAX];
    size_t in_n = 0;
    out_n = 0;
    for (unsigned s = 0; s < steps; s++) {
        unsigned op = next() % 6;
        if (op < 2) { /* bytes one at a time while there is room */
            unsigned k = next() % 24;
            for (unsigned i = 0; i < k && !bytering_full(&r); i++) {
                uint8_t c = (uint8_t)next();
                assert_int_equal(bytering_write(&r, &c, 1), 1);
                in[in_n++] = c;
            }
        } else if (op < 4) { /* a run: as much of it as there is room for, the rest left */
            uint8_t run_[40];
            uint32_t k = next() % sizeof run_, room = size - bytering_used(&r);
            for (uint32_t i = 0; i < k; i++) run_[i] = (uint8_t)next();
            uint32_t took = bytering_write(&r, run_, k);
            assert_int_equal(took, k < room ? k : room);
            memcpy(in + in_n, run_, took);
            in_n += took;
        } else {
            uint32_t room = next() % 17, held = bytering_used(&r);
            uint32_t moved = bytering_drain(&r, room, sink);
            assert_int_equal(moved, room < held ? room : held);
        }
        assert_true(bytering_used(&r) <= size);
        assert_int_equal(bytering_used(&r), in_n - out_n);
        assert_true(bytering_full(&r) == (bytering_used(&r) == size));
    }
    bytering_drain(&r, UINT32_MAX, sink);
    assert_int_equal(bytering_used(&r), 0);
    assert_int_equal(out_n, in_n);
    assert_memory_equal(out, in, in_n);
}

static void test_order_kept(void **state) {
    (void)state;
    run(16, 0, 20000);
    run(64, 0, 20000);
    run(1, 0, 5000); /* one byte: full after every put */
}

/* The counts wrap at 2^32 during the run: head below tail as numbers, the ring still right. */
static void test_across_the_wrap(void **state) {
    (void)state;
    run(16, 0xFFFFFF00u, 20000);
    run(64, 0xFFFFFFF0u, 20000);
}

/* An empty ring moves nothing, a full one takes no more than its size, room 0 moves nothing. */
static void test_edges(void **state) {
    (void)state;
    uint8_t buf[8];
    bytering_t r;
    bytering_init(&r, buf, 8, 0xFFFFFFFCu);
    out_n = 0;
    assert_int_equal(bytering_drain(&r, 16, sink), 0);
    assert_int_equal(bytering_write(&r, (const uint8_t *)"abcdefghij", 10), 8); /* as much as it holds */
    assert_true(bytering_full(&r));
    assert_int_equal(bytering_write(&r, (const uint8_t *)"k", 1), 0);
    assert_int_equal(bytering_drain(&r, 0, sink), 0);
    assert_int_equal(bytering_drain(&r, 3, sink), 3);
    assert_false(bytering_full(&r));
    assert_int_equal(bytering_drain(&r, 100, sink), 5);
    assert_int_equal(out_n, 8);
    assert_memory_equal(out, "abcdefgh", 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_kept),
        cmocka_unit_test(test_across_the_wrap),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
